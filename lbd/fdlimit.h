/* The descriptors lbd needs for a configuration, counted as HAProxy 2.6
 * counts them (maxsock), and the process limit (RLIMIT_NOFILE) set to fit. */
#ifndef LBD_FDLIMIT_H
#define LBD_FDLIMIT_H

#include <stdbool.h>

#include "cfg-types.h"

#define FDLIMIT_RESERVE         10   /* HAProxy's reserve: stdio, main loop, admin, logs */
#define FDLIMIT_PER_WORKER      4    /* epoll set, sd-event's epoll and timer, mailbox */
#define FDLIMIT_DEFAULT_MAXCONN 4096 /* lbd's maxconn when the file sets none */
#define FDLIMIT_MIN_MAXCONN     100  /* HAProxy's DEFAULT_MAXCONN: the floor */

/* What a configuration needs, apart from the connections themselves. */
struct fdlimit_fixed {
	unsigned long listeners; /* bind lines times workers (one socket each) */
	unsigned long checks;    /* servers with health checks: one socket each */
	unsigned nworkers;
};

/* Pipes lbd may hold for splicing with this maxconn (HAProxy's default
 * maxpipes: a quarter of maxconn, all of it below 4). */
unsigned fdlimit_maxpipes(unsigned maxconn);

/* Descriptors needed for maxconn connections: the reserve, listeners,
 * checks, each worker's own, two per connection and two per pipe. */
unsigned long fdlimit_maxsock(const struct fdlimit_fixed *fx, unsigned maxconn);

/* The largest maxconn whose maxsock fits in limit, never below
 * FDLIMIT_MIN_MAXCONN (as HAProxy: a too small limit is then reported by
 * the caller, not hidden by a tiny maxconn). */
unsigned fdlimit_ideal_maxconn(const struct fdlimit_fixed *fx, unsigned long limit);

/* Count what configuration c needs with nworkers workers. */
void fdlimit_fixed_of(const struct lbd_config *c, unsigned nworkers, struct fdlimit_fixed *fx);

/* At start and on reload: settle maxconn (when the file sets none, lbd's
 * default lowered to what the descriptor limit allows) and set
 * RLIMIT_NOFILE to 'ulimit-n', or else to the descriptors needed, raising
 * the hard limit when allowed. When the limit stays below what is needed,
 * log HAProxy's messages and return -1 under strict-limits (the default;
 * the caller refuses to start or to reload), or 0 with 'no strict-limits'.
 * On reload the soft limit is never lowered (sessions carried over may
 * hold more). Logs every outcome but silence. */
int fdlimit_apply(struct lbd_config *c, unsigned nworkers, bool reload);

#endif
