/* The admin socket's `quiesce` and `unquiesce` on the main thread: the
 * set of quiet addresses (quiet.h), its program posted to every worker,
 * and the timer that ends each entry. */
#ifndef LBD_QUIET_CTL_H
#define LBD_QUIET_CTL_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "proxy-types.h"

/* Quiet the n addresses for ms milliseconds (a new time for those quiet
 * already). Returns 0, or a negative errno (-ENOSPC: too many quiet;
 * -ENOMEM) with nothing changed. */
int quiet_ctl_add(struct lbd_runtime *rt, const struct cpha_addr *a, size_t n, unsigned ms);

/* The n addresses (every one when n is 0) no longer quiet. Returns how
 * many were. */
size_t quiet_ctl_remove(struct lbd_runtime *rt, const struct cpha_addr *a, size_t n);

/* One line per quiet address and the milliseconds it has left, or JSON. */
void quiet_ctl_show(struct lbd_runtime *rt, struct cpha_buf *reply, bool json);

#endif
