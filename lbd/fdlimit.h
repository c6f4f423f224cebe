/* The descriptors lbd needs for a configuration, counted as HAProxy 2.6
 * counts them (maxsock), and the process limit (RLIMIT_NOFILE) set to fit.
 * HAProxy counts pipes only for proxies with 'option splice-*'; lbd splices
 * every session but needs no pipe to run (a session without one copies),
 * so its pipes are sized from the descriptors left once maxsock fits, and
 * never make it refuse a file HAProxy runs. */
#ifndef LBD_FDLIMIT_H
#define LBD_FDLIMIT_H

#include <stdbool.h>

#include "cfg-types.h"

#define FDLIMIT_RESERVE         10   /* HAProxy's reserve: stdio, main loop, admin, logs */
#define FDLIMIT_PER_WORKER      4    /* epoll set, sd-event's epoll and timer, mailbox */
#define FDLIMIT_MIN_MAXCONN     100  /* HAProxy's DEFAULT_MAXCONN: the floor */

/* What a configuration needs, apart from the connections themselves. */
struct fdlimit_fixed {
	unsigned long listeners; /* bind lines times workers (one socket each) */
	unsigned long checks;    /* servers with health checks: one socket each */
	unsigned nworkers;
};

/* Pipes lbd would like for splicing with this maxconn (HAProxy's
 * maxpipes with splicing on: a quarter of maxconn, all of it below 4). */
unsigned fdlimit_maxpipes(unsigned maxconn);

/* Descriptors needed for maxconn connections: the reserve, listeners,
 * checks, each worker's own and two per connection. */
unsigned long fdlimit_maxsock(const struct fdlimit_fixed *fx, unsigned maxconn);

/* The pipes that fit in limit beside maxsock: at most fdlimit_maxpipes(). */
unsigned fdlimit_pipes(const struct fdlimit_fixed *fx, unsigned maxconn, unsigned long limit);

/* The largest maxconn whose maxsock fits in limit, as HAProxy 2.6 derives
 * an unset maxconn (two descriptors a connection, no pipes), never below
 * FDLIMIT_MIN_MAXCONN (as HAProxy: a too small limit is then reported by
 * the caller, not hidden by a tiny maxconn). */
unsigned fdlimit_ideal_maxconn(const struct fdlimit_fixed *fx, unsigned long limit);

/* Count what configuration c needs with nworkers workers. */
void fdlimit_fixed_of(const struct lbd_config *c, unsigned nworkers, struct fdlimit_fixed *fx);

/* At start and on reload: settle maxconn (when the file sets none, derived
 * from the descriptor limit as HAProxy does) and set RLIMIT_NOFILE to
 * 'ulimit-n', or else to the descriptors needed and room for the pipes,
 * raising the hard limit when allowed, or to the descriptors needed alone.
 * When the limit stays below what is needed, log HAProxy's messages and
 * return -1 under strict-limits (the default; the caller refuses to start
 * or to reload), or 0 with 'no strict-limits'. *maxpipes: the pipes that
 * fit under the limit set. On reload the soft limit is never lowered
 * (sessions carried over may hold more). Logs every outcome but silence. */
int fdlimit_apply(struct lbd_config *c, unsigned nworkers, bool reload, unsigned *maxpipes);

#endif
