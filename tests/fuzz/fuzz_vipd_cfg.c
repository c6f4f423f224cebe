/* libFuzzer target: vipd's configuration parser (keepalived's language).
 * Any text either parses into a configuration that keeps every rule the
 * parser checks (ranges, one family per instance, names that resolve,
 * one group per instance), or fails with messages that say where; nothing
 * leaks either way. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cfg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define USEC 1000000ULL

static void check_tracks(
	const struct vipd_config *c, const struct vipd_track *t, size_t n, int kind)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!t[i].name || t[i].weight < -254 || t[i].weight > 254)
			__builtin_trap();
		if (kind == 's' &&
			(!vipd_cfg_script(c, t[i].name) || t[i].weight < -253 || t[i].weight > 253))
			__builtin_trap(); /* tracked scripts exist */
		if (kind == 'f' && !vipd_cfg_track_file(c, t[i].name))
			__builtin_trap(); /* tracked files exist */
		if (kind == 'l' &&
			(!t[i].lbd_socket || t[i].lbd_socket[0] != '/' || t[i].lbd_min_up < 1))
			__builtin_trap();
	}
}

static void check_instance(const struct vipd_config *c, const struct vipd_instance *v)
{
	size_t i;

	if (!v->name || vipd_cfg_instance(c, v->name) != v)
		__builtin_trap(); /* names are unique */
	if (!v->interface || v->vrid < 1 || v->vrid > 255 || v->priority < 1 || v->priority > 255 ||
		(v->version != 2 && v->version != 3))
		__builtin_trap();
	if (v->nvips < 1 || (v->family != AF_INET && v->family != AF_INET6))
		__builtin_trap();
	for (i = 0; i < v->nvips; i++)
		if (cpha_addr_family(&v->vips[i].addr) != v->family)
			__builtin_trap(); /* one family per instance */
	for (i = 0; i < v->npeers; i++)
		if (cpha_addr_family(&v->peers[i]) != v->family)
			__builtin_trap();
	if (v->unicast != (v->npeers > 0))
		__builtin_trap();
	if (v->family == AF_INET6 && v->version != 3)
		__builtin_trap();
	if (v->version == 2 &&
		(v->advert_int % USEC || v->advert_int < USEC || v->advert_int > 255 * USEC))
		__builtin_trap();
	if (v->version == 3 && (v->advert_int % (USEC / 100) || v->advert_int < USEC / 100 ||
				       v->advert_int > 4095 * (USEC / 100)))
		__builtin_trap();
	if (v->auth == VIPD_AUTH_PASS && (v->version != 2 || !v->auth_pass[0]))
		__builtin_trap();
	if (v->auth_pass[8] != '\0')
		__builtin_trap();
	if (v->nopreempt && v->state != VIPD_INIT_BACKUP)
		__builtin_trap();
	if (v->garp_master_repeat < 1 || v->garp_master_refresh_repeat < 1)
		__builtin_trap();
	check_tracks(c, v->track_script, v->ntrack_script, 's');
	check_tracks(c, v->track_interface, v->ntrack_interface, 'i');
	check_tracks(c, v->track_file, v->ntrack_file, 'f');
	check_tracks(c, v->track_lbd, v->ntrack_lbd, 'l');
}

static void check_config(const struct vipd_config *c)
{
	const struct vipd_instance *v;
	size_t i, j, in_groups = 0, members = 0;

	if (c->global.vrrp_version != 2 && c->global.vrrp_version != 3)
		__builtin_trap();
	for (i = 0; i < c->nscripts; i++)
		if (!c->scripts[i].command ||
			vipd_cfg_script(c, c->scripts[i].name) != &c->scripts[i] ||
			c->scripts[i].interval < USEC || c->scripts[i].rise < 1 ||
			c->scripts[i].fall < 1)
			__builtin_trap();
	for (i = 0; i < c->ntrack_files; i++)
		if (!c->track_files[i].path ||
			vipd_cfg_track_file(c, c->track_files[i].name) != &c->track_files[i])
			__builtin_trap();
	for (i = 0; i < c->ninstances; i++) {
		check_instance(c, &c->instances[i]);
		in_groups += c->instances[i].sync_group != NULL;
	}
	for (i = 0; i < c->ngroups; i++) {
		const struct vipd_sync_group *g = &c->groups[i];

		if (!g->nmembers)
			__builtin_trap();
		for (j = 0; j < g->nmembers; j++) {
			/* every member exists and knows its group */
			v = vipd_cfg_instance(c, g->members[j]);
			if (!v || !v->sync_group || strcmp(v->sync_group, g->name) != 0)
				__builtin_trap();
			members++;
		}
		check_tracks(c, g->track_script, g->ntrack_script, 's');
		check_tracks(c, g->track_file, g->ntrack_file, 'f');
	}
	if (members != in_groups)
		__builtin_trap(); /* one group per instance */
	for (i = 0; i < c->nnotices; i++)
		if (strncmp(c->notices[i], "fuzz.conf:", 10) != 0)
			__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cpha_msgs errs = { 0 };
	struct vipd_config *c = NULL;
	size_t i;

	if (vipd_cfg_load_mem("fuzz.conf", (const char *)data, size, &c, &errs) == 0) {
		if (!c || errs.nerrs)
			__builtin_trap();
		check_config(c);
		vipd_cfg_free(c);
	} else {
		/* at least one message, each saying where (at most 100 and
		 * the "too many errors" one) */
		if (c || errs.nerrs == 0 || errs.nerrs > 101)
			__builtin_trap();
		for (i = 0; i < errs.nerrs; i++)
			if (strncmp(errs.errs[i].text, "fuzz.conf:", 10) != 0)
				__builtin_trap();
		cpha_msgs_free(&errs);
	}
	return 0;
}
