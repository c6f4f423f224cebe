/* chroot, setgroups, setgid and setuid, in the order and with the rules of
 * HAProxy 2.6 (haproxy.c: chroot after binding, then the group, then the
 * user). lbd reloads in place on SIGHUP rather than from a master process
 * that stays root, so what a reload can still do afterwards is logged once
 * here: it re-reads the configuration with the new identity (and, with a
 * chroot, at the same path inside it), and a reload that needs privileges
 * it no longer has (a bind below 1024, a new stats socket in a root-owned
 * directory) is refused with the reason, the old configuration running on. */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "privdrop.h"

/* HTTPS checks (libcurl) read their ca-file and crt at each check: inside
 * a chroot those paths must exist under it. Returns 0 or -1 (logged). */
static int privdrop_check_files(const struct lbd_config *c, const char *config_file)
{
	const char *root = c->global.chroot, *paths[2];
	const struct lbd_server_cfg *s;
	char p[4096];
	size_t i, j, k;

	for (i = 0; i < c->nbackends; i++) {
		if (c->backends[i].check_kind != LBD_CHECK_HTTP)
			continue;
		for (j = 0; j < c->backends[i].nservers; j++) {
			s = &c->backends[i].servers[j];
			paths[0] = s->o.ca_file;
			paths[1] = s->o.crt;
			for (k = 0; k < 2; k++) {
				if (!s->o.check || !paths[k] || paths[k][0] != '/')
					continue;
				snprintf(p, sizeof(p), "%s%s", root, paths[k]);
				if (access(p, R_OK) == 0)
					continue;
				log_err("%s:%u: server %s/%s: its HTTPS checks read %s at each "
					"check, and it is not inside chroot %s (%s): copy it "
					"there or drop 'chroot'",
					config_file, s->line, c->backends[i].name, s->name,
					paths[k], root, p);
				return -1;
			}
		}
	}
	return 0;
}

int privdrop_apply(const struct lbd_config *c, const char *config_file)
{
	const struct lbd_global *g = &c->global;
	int set_uid = g->uid != (uid_t)-1, set_gid = g->gid != (gid_t)-1;

	if (!g->chroot && !set_uid && !set_gid)
		return 0;
	if (g->chroot && privdrop_check_files(c, config_file) < 0)
		return -1;
	if (g->chroot && (chroot(g->chroot) == -1 || chdir("/") == -1)) {
		log_err("%s:%u: cannot chroot(%s): %m", config_file, g->chroot_line, g->chroot);
		return -1;
	}
	if (set_gid) {
		/* supplementary groups would keep root's access (HAProxy drops them too) */
		if (getgroups(0, NULL) > 0 && setgroups(0, NULL) == -1)
			log_warn("%s:%u: cannot drop supplementary groups: %m", config_file,
				g->gid_line);
		if (setgid(g->gid) == -1) {
			log_err("%s:%u: cannot set gid %u: %m", config_file, g->gid_line,
				(unsigned)g->gid);
			return -1;
		}
	}
	if (set_uid && setuid(g->uid) == -1) {
		log_err("%s:%u: cannot set uid %u: %m", config_file, g->uid_line, (unsigned)g->uid);
		return -1;
	}
	/* a setuid that left a way back to root would be no drop at all */
	if (set_uid && g->uid != 0 && (setuid(0) != -1 || geteuid() == 0)) {
		log_err("%s:%u: uid %u could become root again; stopping", config_file, g->uid_line,
			(unsigned)g->uid);
		return -1;
	}
	log_notice("running as uid %u gid %u%s%s; a reload reads %s%s and cannot bind ports "
		   "below 1024 or create root-owned sockets (restart lbd for those)",
		(unsigned)geteuid(), (unsigned)getegid(), g->chroot ? " in chroot " : "",
		g->chroot ? g->chroot : "", config_file,
		g->chroot ? " inside the chroot" : " with these ids");
	return 0;
}

void privdrop_reload_notice(
	const struct lbd_global *old, const struct lbd_global *new, const char *config_file)
{
	int chroot_changed = (old->chroot == NULL) != (new->chroot == NULL) ||
			     (old->chroot && strcmp(old->chroot, new->chroot) != 0);

	if (chroot_changed || old->uid != new->uid || old->gid != new->gid)
		log_warn("%s: chroot, user or group changed; a reload cannot apply that, lbd "
			 "keeps running as uid %u gid %u until it is restarted",
			config_file, (unsigned)geteuid(), (unsigned)getegid());
}
