#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "fdlimit.h"
#include "log.h"

unsigned fdlimit_maxpipes(unsigned maxconn)
{
	return maxconn >= 4 ? maxconn / 4 : maxconn;
}

unsigned long fdlimit_maxsock(const struct fdlimit_fixed *fx, unsigned maxconn)
{
	unsigned long n = FDLIMIT_RESERVE;

	n += fx->listeners + fx->checks;
	n += (unsigned long)fx->nworkers * FDLIMIT_PER_WORKER;
	n += 2UL * maxconn; /* a client and a server socket */
	return n;
}

unsigned fdlimit_pipes(const struct fdlimit_fixed *fx, unsigned maxconn, unsigned long limit)
{
	unsigned long need = fdlimit_maxsock(fx, maxconn), room;

	if (limit <= need)
		return 0;
	room = (limit - need) / 2; /* each pipe is two descriptors */
	return room < fdlimit_maxpipes(maxconn) ? (unsigned)room : fdlimit_maxpipes(maxconn);
}

unsigned fdlimit_ideal_maxconn(const struct fdlimit_fixed *fx, unsigned long limit)
{
	unsigned long fixed = fdlimit_maxsock(fx, 0), m;

	if (limit <= fixed)
		return FDLIMIT_MIN_MAXCONN;
	m = (limit - fixed) / 2;
	if (m > UINT_MAX)
		m = UINT_MAX;
	return m < FDLIMIT_MIN_MAXCONN ? FDLIMIT_MIN_MAXCONN : (unsigned)m;
}

void fdlimit_fixed_of(const struct lbd_config *c, unsigned nworkers, struct fdlimit_fixed *fx)
{
	size_t i, j;

	memset(fx, 0, sizeof(*fx));
	fx->nworkers = nworkers;
	for (i = 0; i < c->nfrontends; i++)
		fx->listeners += (unsigned long)c->frontends[i].nbinds * nworkers;
	for (i = 0; i < c->nbackends; i++)
		for (j = 0; j < c->backends[i].nservers; j++)
			if (c->backends[i].servers[j].o.check)
				fx->checks++;
}

/* The configuration line that asked for these descriptors, for messages. */
static void origin(const struct lbd_config *c, char *buf, size_t len)
{
	const struct lbd_global *g = &c->global;

	if (g->ulimit_line)
		snprintf(buf, len, "%s:%u: ulimit-n %u: ", c->file, g->ulimit_line, g->ulimit_n);
	else if (g->maxconn_line)
		snprintf(buf, len, "%s:%u: maxconn %u: ", c->file, g->maxconn_line, g->maxconn);
	else
		snprintf(buf, len, "%s: default maxconn %u: ", c->file, g->maxconn);
}

static unsigned long cap(unsigned long v, unsigned hard)
{
	return hard && v > hard ? hard : v;
}

/* Set the soft limit to want (the hard one too when it is lower and we
 * may raise it); 0 or -1. */
static int set_limit(unsigned long want, const struct rlimit *now, unsigned hard_cap)
{
	struct rlimit rl;

	if (hard_cap && want > hard_cap)
		return -1;
	rl.rlim_cur = want;
	rl.rlim_max = now->rlim_max > want ? now->rlim_max : want;
	return setrlimit(RLIMIT_NOFILE, &rl);
}

int fdlimit_apply(struct lbd_config *c, unsigned nworkers, bool reload, unsigned *maxpipes)
{
	struct lbd_global *g = &c->global;
	struct fdlimit_fixed fx;
	struct rlimit now, rl;
	unsigned long maxsock, want, pipes_want;
	char where[512];

	*maxpipes = 0;
	fdlimit_fixed_of(c, nworkers, &fx);
	if (getrlimit(RLIMIT_NOFILE, &now) == -1) {
		log_err("getrlimit(RLIMIT_NOFILE): %m");
		return 0;
	}
	if (!g->maxconn_line)
		/* HAProxy sizes an unset maxconn to the limit it finds */
		g->maxconn = fdlimit_ideal_maxconn(
			&fx, cap(now.rlim_cur > now.rlim_max ? now.rlim_cur : now.rlim_max,
				     g->fd_hard_limit));
	maxsock = g->maxsock = fdlimit_maxsock(&fx, g->maxconn);
	pipes_want = maxsock + 2UL * fdlimit_maxpipes(g->maxconn);
	origin(c, where, sizeof(where));
	want = g->ulimit_n ? g->ulimit_n : maxsock;
	if (reload && want < now.rlim_cur)
		want = now.rlim_cur; /* never below what open sessions may hold */
	/* room for the pipes when the limit allows it; they are optional */
	if (!g->ulimit_n && pipes_want > want && set_limit(pipes_want, &now, g->fd_hard_limit) == 0)
		want = pipes_want;
	else if (set_limit(want, &now, g->fd_hard_limit) == -1) {
		if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
			rl = now;
		if (!g->no_strict_limits) {
			log_err("%sCannot raise FD limit to %lu, limit is %lu "
				"(maxconn=%u/maxsock=%lu; "
				"strict-limits)",
				where, want, cap(rl.rlim_cur, g->fd_hard_limit), g->maxconn,
				maxsock);
			return -1;
		}
		/* no strict-limits: as high as allowed, and say so */
		rl.rlim_cur = cap(rl.rlim_max, g->fd_hard_limit);
		if (setrlimit(RLIMIT_NOFILE, &rl) == -1 || getrlimit(RLIMIT_NOFILE, &rl) == -1)
			getrlimit(RLIMIT_NOFILE, &rl);
		log_warn("%sCannot raise FD limit to %lu, limit is %lu", where, want,
			(unsigned long)rl.rlim_cur);
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		rl.rlim_cur = want;
	if (rl.rlim_cur < maxsock) {
		log_err("%sFD limit (%lu) too low for maxconn=%u/maxsock=%lu. Please raise "
			"'ulimit-n' to %lu or more to avoid any trouble%s",
			where, (unsigned long)rl.rlim_cur, g->maxconn, maxsock, maxsock,
			g->no_strict_limits ? "" : " (strict-limits)");
		if (!g->no_strict_limits)
			return -1;
	}
	*maxpipes = fdlimit_pipes(&fx, g->maxconn, cap(rl.rlim_cur, g->fd_hard_limit));
	if (*maxpipes < fdlimit_maxpipes(g->maxconn))
		log_info("descriptor limit %lu: %u pipes for splicing (of %u wanted); sessions "
			 "without one copy their data",
			(unsigned long)rl.rlim_cur, *maxpipes, fdlimit_maxpipes(g->maxconn));
	return 0;
}
