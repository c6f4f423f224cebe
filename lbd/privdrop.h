/* Dropping privileges once lbd holds every socket it needs: HAProxy's
 * global 'chroot', 'user'/'uid' and 'group'/'gid'. */
#ifndef LBD_PRIVDROP_H
#define LBD_PRIVDROP_H

#include "cfg-types.h"

/* Call after the listeners, the admin socket and the metrics endpoint are
 * bound, before the workers start. In HAProxy's order: chroot(dir) and
 * chdir("/"), then setgroups(0) and setgid, then setuid. Does nothing when
 * g sets none of them. Returns 0, or -1 after logging what failed (lbd must
 * not run with privileges the file said to drop). */
int privdrop_apply(const struct lbd_config *c, const char *config_file);

/* On reload: a changed chroot, user or group cannot be applied by a
 * process that already dropped them; say so once (restart lbd). */
void privdrop_reload_notice(
	const struct lbd_global *old, const struct lbd_global *new, const char *config_file);

#endif
