/* vipd's configuration: freeing it, and finding definitions by name. */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "cfg_ctx.h"
#include "webcfg.h"

void vipd_cfg_track_free(struct vipd_track *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(t[i].name);
		free(t[i].lbd_socket);
	}
	free(t);
}

static void cfg_runas_free(struct vipd_runas *as, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(as[i].user);
		free(as[i].group);
	}
}

static void cfg_notify_free(char **n[5])
{
	int i;

	for (i = 0; i < 5; i++)
		free(*n[i]);
}

void vipd_cfg_free(struct vipd_config *c)
{
	size_t i, j;

	if (!c)
		return;
	for (i = 0; i < c->nscripts; i++) {
		free(c->scripts[i].name);
		free(c->scripts[i].command);
		free(c->scripts[i].user);
		free(c->scripts[i].group);
	}
	free(c->scripts);
	for (i = 0; i < c->ntrack_files; i++) {
		free(c->track_files[i].name);
		free(c->track_files[i].path);
	}
	free(c->track_files);
	for (i = 0; i < c->ntrack_processes; i++) {
		free(c->track_processes[i].name);
		free(c->track_processes[i].process);
		free(c->track_processes[i].params);
	}
	free(c->track_processes);
	for (i = 0; i < c->nbfds; i++)
		free(c->bfds[i].name);
	free(c->bfds);
	for (i = 0; i < c->ninstances; i++) {
		struct vipd_instance *v = &c->instances[i];
		char **notify[5] = { &v->notify_master, &v->notify_backup, &v->notify_fault,
			&v->notify_stop, &v->notify };

		free(v->name);
		free(v->interface);
		free(v->peers);
		if (v->hmac_keys)
			OPENSSL_cleanse(v->hmac_keys, v->hmac.nkeys * sizeof(*v->hmac_keys));
		free(v->hmac_keys);
		for (j = 0; j < v->nvips; j++) {
			free(v->vips[j].dev);
			free(v->vips[j].label);
		}
		free(v->vips);
		vipd_cfg_track_free(v->track_script, v->ntrack_script);
		vipd_cfg_track_free(v->track_interface, v->ntrack_interface);
		vipd_cfg_track_free(v->track_file, v->ntrack_file);
		vipd_cfg_track_free(v->track_lbd, v->ntrack_lbd);
		vipd_cfg_track_free(v->track_process, v->ntrack_process);
		vipd_cfg_track_free(v->track_bfd, v->ntrack_bfd);
		free(v->fenced_socket);
		cfg_notify_free(notify);
		cfg_runas_free(v->notify_as, VIPD_NOTIFY_N);
		free(v->sync_group);
	}
	free(c->instances);
	for (i = 0; i < c->ngroups; i++) {
		struct vipd_sync_group *g = &c->groups[i];
		char **notify[5] = { &g->notify_master, &g->notify_backup, &g->notify_fault,
			&g->notify_stop, &g->notify };

		free(g->name);
		for (j = 0; j < g->nmembers; j++)
			free(g->members[j]);
		free(g->members);
		vipd_cfg_track_free(g->track_script, g->ntrack_script);
		vipd_cfg_track_free(g->track_interface, g->ntrack_interface);
		vipd_cfg_track_free(g->track_file, g->ntrack_file);
		vipd_cfg_track_free(g->track_process, g->ntrack_process);
		vipd_cfg_track_free(g->track_bfd, g->ntrack_bfd);
		cfg_notify_free(notify);
		cfg_runas_free(g->notify_as, VIPD_NOTIFY_N);
	}
	free(c->groups);
	free(c->global.router_id);
	free(c->global.script_user);
	free(c->global.script_group);
	free(c->global.admin_socket);
	cpha_webcfg_unref(c->global.metrics_web);
	for (i = 0; i < 2; i++) {
		free(c->global.fifo[i].path);
		free(c->global.fifo[i].user);
		free(c->global.fifo[i].group);
		free(c->global.fifo[i].script);
		cfg_runas_free(&c->global.fifo[i].script_as, 1);
	}
	for (i = 0; i < c->nnotices; i++)
		free(c->notices[i]);
	free(c->notices);
	free(c->file);
	free(c);
}

const struct vipd_script *vipd_cfg_script(const struct vipd_config *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nscripts; i++)
		if (c->scripts[i].name && strcmp(c->scripts[i].name, name) == 0)
			return &c->scripts[i];
	return NULL;
}

const struct vipd_instance *vipd_cfg_instance(const struct vipd_config *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->ninstances; i++)
		if (c->instances[i].name && strcmp(c->instances[i].name, name) == 0)
			return &c->instances[i];
	return NULL;
}
