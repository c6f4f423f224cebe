/* Health checks, run on the main thread: TCP connect, tcp-check rule lists
 * (optionally over TLS), and HTTP(S) checks through libcurl (check_http.c). */
#ifndef LBD_CHECK_H
#define LBD_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include <systemd/sd-event.h>

#include "cfg-types.h"
#include "check-types.h"
#include "proxy-types.h"

/* Start checking srv as bcfg (its backend's configuration, which must stay
 * valid until check_stop) says. The health counter in srv is kept, so a
 * reload carries the state. first_delay: usec before the first check.
 * Returns 0 or a negative errno. */
int check_start(struct lbd_runtime *rt, struct lbd_server *srv, const struct lbd_backend *bcfg,
	uint64_t first_delay);

/* A check object with its timer (off), for check_start() to arm: made
 * when a configuration is prepared, so that applying it cannot fail.
 * NULL when out of memory. check_discard() frees one never started. */
struct lbd_check *check_new(struct lbd_runtime *rt);
void check_discard(struct lbd_check *c);

/* Stop checking (an in-flight check is abandoned). */
void check_stop(struct lbd_server *srv);

/* Start again after maintenance, with the last configuration. */
void check_resume(struct lbd_runtime *rt, struct lbd_server *srv);

/* A random delay for a server's first check, so checks do not all start at
 * once: within inter, at most 2 s. */
uint64_t check_first_delay(const struct lbd_server *srv);

/* Bring the next check forward to delay from now, if it is due later and
 * no check is running (HAProxy's forced fastinter after on-error). */
void check_hasten(struct lbd_server *srv, uint64_t delay);

/* Free the check object of a server (stops it first). */
void check_free(struct lbd_server *srv);

#endif
