#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "backend.h"
#include "clock.h"
#include "log.h"
#include "proxyproto.h"
#include "rules.h"
#include "server.h"
#include "health.h"
#include "session.h"
#include "tlog.h"

#define TURNAROUND_USEC     1000000ULL /* wait before retrying the same server (HAProxy's) */
#define TIMER_ACCURACY_USEC 5000ULL
#define FDWAIT_RETRY_USEC   100000ULL /* no descriptor: try again (HAProxy's listener pause) */
#define FDWAIT_KICK         2         /* sessions retried per ended session (two fds freed) */
#define LBD_INSPECT_BYTES   16384     /* what tcp-request content rules see at most (HAProxy's bufsize) */

static void on_client_io(struct lbd_evh *h, uint32_t revents);
static void on_server_io(struct lbd_evh *h, uint32_t revents);
static void on_hedge_io(struct lbd_evh *h, uint32_t revents);
static void server_io(struct lbd_session *s, uint32_t revents);
static void hedge_promote(struct lbd_session *s);
static int on_timer(sd_event_source *src, uint64_t usec, void *userdata);
static void session_dispatch(struct lbd_session *s);
static void session_choose(struct lbd_session *s, const uint8_t *payload, size_t len);
static void session_inspect(struct lbd_session *s, bool final);
static struct acl_facts session_facts(
	const struct lbd_session *s, const uint8_t *payload, size_t len, bool final);
static void session_connect(struct lbd_session *s);
static void session_fdwait(struct lbd_session *s, int err);
static void session_open(struct lbd_session *s, bool server_readable);

void session_fd_exhausted(struct lbd_worker *w)
{
	atomic_store_explicit(&w->rt->fd_full_until, lbd_loop_now(w->e) + SESSION_EMFILE_PAUSE_USEC,
		memory_order_relaxed);
}

static struct lbd_backend_rt *be_of(const struct lbd_session *s)
{
	return s->be;
}

static void set_nodelay_keepalive(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
}

/* option tcp-smart-connect, as HAProxy does it: no quick ACK for the
 * server's SYN-ACK, so the kernel sends the ACK with the first data (the
 * client's bytes, a PROXY header) and the handshake costs one packet less. */
static void hold_first_ack(int fd)
{
	int zero = 0;

	if (setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &zero, sizeof(zero)) == -1)
		log_debug("TCP_QUICKACK: %m");
}

/* Make close(2) send a reset instead of a FIN (and drop unsent data). */
static void reset_on_close(int fd)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)) == -1)
		log_debug("SO_LINGER: %m");
}

static void fe_params_unref(struct lbd_fe_params *fp)
{
	if (atomic_fetch_sub(&fp->refs, 1) == 1)
		fp->release(fp);
}

static uint64_t add_deadline(uint64_t base, uint64_t timeout)
{
	return timeout ? base + timeout : UINT64_MAX;
}

/* The content rules a session in LBD_SESS_INSPECT waits for: its
 * frontend's, then those of the backend they chose; and since when. */
static const struct lbd_fe_rules *inspect_rules(const struct lbd_session *s)
{
	return s->inspect_be ? s->be_rules : s->fp->rules;
}

static uint64_t inspect_start(const struct lbd_session *s)
{
	return s->inspect_be ? s->t_chosen : s->t_accept;
}

static uint64_t session_deadline(const struct lbd_session *s)
{
	const struct lbd_timeouts *ft = &s->fp->timeouts;
	const struct lbd_timeouts *bt = be_of(s) ? &be_of(s)->timeouts : ft;
	uint64_t d = UINT64_MAX, tc, ts, hedge_at;

	switch (s->st) {
	case LBD_SESS_INSPECT:
		/* the rules decide on what came when inspect-delay is over,
		 * and timeout client bounds the wait too */
		d = inspect_start(s) + inspect_rules(s)->inspect_delay;
		if (add_deadline(s->t_accept, ft->client) < d)
			d = add_deadline(s->t_accept, ft->client);
		break;
	case LBD_SESS_QUEUED:
		d = add_deadline(s->t_queue, bt->queue ? bt->queue : bt->connect);
		break;
	case LBD_SESS_TURNAROUND:
		d = s->t_connect + TURNAROUND_USEC;
		break;
	case LBD_SESS_CONNECTING:
		d = add_deadline(s->t_connect, bt->connect);
		hedge_at = health_hedge_at(s->t_connect, s->hedge_usec, bt->connect);
		if (!s->hedged && hedge_at && hedge_at < d)
			d = hedge_at;
		break;
	case LBD_SESS_FDWAIT:
		/* waits as long as a queued session would */
		d = add_deadline(s->t_fdwait, bt->queue ? bt->queue : bt->connect);
		if (s->fd_retry_at < d)
			d = s->fd_retry_at;
		break;
	case LBD_SESS_OPEN:
		/* each side is idle when nothing moved to or from it; the
		 * tunnel timeout replaces both once established (HAProxy) */
		tc = bt->tunnel ? bt->tunnel : ft->client;
		ts = bt->tunnel ? bt->tunnel : bt->server;
		if (s->c2s.src_eof && ft->client_fin)
			tc = ft->client_fin;
		if (s->s2c.src_eof && bt->server_fin)
			ts = bt->server_fin;
		d = add_deadline(s->last_c, tc);
		if (add_deadline(s->last_s, ts) < d)
			d = add_deadline(s->last_s, ts);
		break;
	}
	if (s->kill_at && s->kill_at < d)
		d = s->kill_at;
	return d;
}

/* Make sure the timer fires no later than the current deadline. Activity
 * only pushes deadlines later, so the timer is moved lazily when it fires. */
static void session_arm(struct lbd_session *s)
{
	uint64_t d = session_deadline(s);

	if (d == UINT64_MAX || (s->armed && s->armed <= d))
		return;
	s->armed = d;
	if (!s->timer) {
		if (sd_event_add_time(s->w->e, &s->timer, CLOCK_MONOTONIC, d, TIMER_ACCURACY_USEC,
			    on_timer, s) < 0)
			log_err("session timer: out of memory");
		return;
	}
	sd_event_source_set_time(s->timer, d);
	sd_event_source_set_enabled(s->timer, SD_EVENT_ONESHOT);
}

#define COUNT(obj, field, v) atomic_fetch_add_explicit(&(obj)->cnt.field, (v), memory_order_relaxed)

/* Add a socket to the worker's epoll set, edge-triggered. Closing the
 * socket removes it (we never duplicate session sockets). */
static int watch(struct lbd_session *s, int fd, struct lbd_evh *h)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
		.data.ptr = h };

	return epoll_ctl(s->w->epfd, EPOLL_CTL_ADD, fd, &ev) == -1 ? -errno : 0;
}

static void close_server_side(struct lbd_session *s)
{
	if (s->sfd >= 0)
		close(s->sfd);
	s->sfd = -1;
	cpha_list_del(&s->slink);
}

/* hedge: give up the second connect (it lost, failed, or the session
 * ends). Nothing was sent on it: a reset, not a FIN. */
static void hedge_drop(struct lbd_session *s)
{
	if (s->hfd >= 0) {
		reset_on_close(s->hfd);
		close(s->hfd);
		s->hfd = -1;
	}
	if (s->hsrv) {
		backend_release_server(be_of(s), s->hsrv);
		s->hsrv = NULL;
	}
}

static void session_free(struct lbd_session *s)
{
	fe_params_unref(s->fp);
	free(s);
}

void session_reap(struct lbd_worker *w)
{
	struct cpha_list *n;

	while ((n = cpha_list_pop(&w->dead)))
		session_free(cpha_container_of(n, struct lbd_session, wlink));
}

/* End a session: log it, give everything back. term is the two-letter
 * termination state of HAProxy's logs ("--" for a normal end). */
static void session_close(struct lbd_session *s, const char *term)
{
	struct lbd_worker *w = s->w;
	struct lbd_backend_rt *be = be_of(s);

	memcpy(s->term, term, 2);
	s->term[2] = '\0';
	cpha_list_del(&s->flink);
	if (s->st == LBD_SESS_QUEUED && be && backend_unqueue(be, s) < 0) {
		/* a slot is on its way in a message: finish when it arrives */
		s->zombie = true;
	}
	if (s->fp->tcplog && !s->nolog && !(s->fp->dontlognull && s->c2s.bytes == 0))
		tlog_session(s, lbd_loop_now(w->e));
	s->timer = sd_event_source_disable_unref(s->timer);
	close(s->cfd);
	s->cfd = -1;
	close_server_side(s);
	hedge_drop(s);
	splice_flow_release(w, &s->c2s);
	splice_flow_release(w, &s->s2c);
	if (!s->zombie && be)
		backend_release(be, s);
	atomic_fetch_sub_explicit(&w->rt->cur, 1, memory_order_relaxed);
	atomic_fetch_sub_explicit(&s->fe->cur, 1, memory_order_relaxed);
	if (be)
		atomic_fetch_sub_explicit(&be->cur, 1, memory_order_relaxed);
	cpha_list_del(&s->wlink);
	w->nsessions--;
	s->dead = true;
	if (s->zombie)
		; /* freed when its slot's message arrives */
	else if (w->in_batch)
		cpha_list_append(&w->dead, &s->wlink); /* more events may name it */
	else
		session_free(s);
	w->session_closed(w);
}

void session_accept(
	struct lbd_worker *w, struct lbd_listener *l, int cfd, const struct sockaddr_storage *peer)
{
	struct lbd_frontend_rt *fe = atomic_load(&l->fe);
	struct lbd_fe_params *fp = atomic_load_explicit(&fe->params, memory_order_acquire);
	struct lbd_session *s;
	uint64_t now = lbd_loop_now(w->e);

	s = calloc(1, sizeof(*s));
	if (!s) {
		close(cfd);
		return;
	}
	atomic_fetch_add(&fp->refs, 1);
	s->w = w;
	s->fe = fe;
	s->fp = fp;
	s->cfd = cfd;
	s->sfd = -1; /* TCP_NODELAY and SO_KEEPALIVE come from the listener */
	s->hfd = -1;
	s->peer = *peer;
	s->local_port = cpha_addr_port(&l->addr);
	s->t_accept = now;
	cpha_list_init(&s->slink);
	cpha_list_init(&s->qlink);
	cpha_list_init(&s->flink);
	cpha_list_append(&w->sessions, &s->wlink);
	w->nsessions++;
	atomic_fetch_add_explicit(&w->rt->cur, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&fe->cur, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&w->rt->sessions_total, 1, memory_order_relaxed);
	COUNT(fe, sessions_total, 1);
	s->ch.fn = on_client_io;
	s->sh.fn = on_server_io;
	s->hh.fn = on_hedge_io;
	if (fp->rules) {
		struct acl_facts f = session_facts(s, NULL, 0, true);

		if (rules_connection(fp->rules, &f) == RULES_REJECT) {
			/* HAProxy logs nothing for these */
			COUNT(fe, denied, 1);
			reset_on_close(cfd);
			s->nolog = true;
			session_close(s, "PR");
			return;
		}
	}
	if (watch(s, cfd, &s->ch) < 0) {
		session_close(s, "RC");
		return;
	}
	if (fp->inspect) {
		s->st = LBD_SESS_INSPECT;
		session_inspect(s, fp->rules->inspect_delay == 0);
		return;
	}
	session_choose(s, NULL, 0);
}

/* What the rules may ask about this session. */
static struct acl_facts session_facts(
	const struct lbd_session *s, const uint8_t *payload, size_t len, bool final)
{
	struct acl_facts f = {
		.src = (const struct sockaddr *)&s->peer,
		.dst_port = s->local_port,
		.payload = payload,
		.payload_len = len,
		.final = final,
	};

	return f;
}

/* The backend: the first switching rule that holds, else default_backend.
 * HAProxy closes a session no rule sends anywhere. */
static void session_choose(struct lbd_session *s, const uint8_t *payload, size_t len)
{
	struct lbd_fe_params *fp = s->fp;
	struct acl_facts f = session_facts(s, payload, len, true);
	int i = fp->rules ? rules_switch(fp->rules, &f) : -1;

	s->be = i >= 0 ? fp->sw_be[i] : fp->be;
	if (!s->be) {
		COUNT(s->fe, denied, 1);
		session_close(s, "PR");
		return;
	}
	s->attempts_left = s->be->retries + 1;
	atomic_fetch_add_explicit(&s->be->cur, 1, memory_order_relaxed);
	COUNT(s->be, sessions_total, 1);
	/* the backend's own content rules, as HAProxy runs them once the
	 * stream entered the backend, with the backend's inspect-delay */
	s->be_rules = i >= 0 ? fp->sw_be_rules[i] : fp->be_rules;
	if (s->be_rules && s->be_rules->ncontent) {
		s->st = LBD_SESS_INSPECT;
		s->inspect_be = true;
		s->t_chosen = lbd_loop_now(s->w->e);
		session_inspect(s, s->be_rules->inspect_delay == 0);
		return;
	}
	session_dispatch(s);
}

/* tcp-request content rules over what the client sent so far, read and
 * left in the socket for the server (final: no more will be waited for). */
static void session_inspect(struct lbd_session *s, bool final)
{
	uint8_t buf[LBD_INSPECT_BYTES];
	struct acl_facts f;
	ssize_t n;

	n = recv(s->cfd, buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT);
	if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
		session_close(s, "CR");
		return;
	}
	if (n < 0)
		n = 0;
	/* a client that is done sending, or a full buffer, ends the wait */
	if ((n == 0 && s->c2s.src_rdhup) || (size_t)n == sizeof(buf))
		final = true;
	f = session_facts(s, buf, (size_t)n, final);
	switch (rules_content(inspect_rules(s), &f)) {
	case RULES_WAIT:
		session_arm(s);
		return;
	case RULES_REJECT:
		COUNT(s->fe, denied, 1);
		reset_on_close(s->cfd);
		session_close(s, "PR");
		return;
	case RULES_ACCEPT:
		break;
	}
	s->armed = 0;
	s->timer = sd_event_source_disable_unref(s->timer);
	if (s->inspect_be)
		session_dispatch(s);
	else
		session_choose(s, buf, (size_t)n);
}

static void session_dispatch(struct lbd_session *s)
{
	struct lbd_backend_rt *be = be_of(s);
	uint64_t now = lbd_loop_now(s->w->e);
	int r;

	r = backend_assign(be, s, now);
	if (r == BALANCE_NONE && s->redispatched) {
		/* every other server was tried: any server will do */
		memset(s->tried, 0, sizeof(s->tried));
		r = backend_assign(be, s, now);
	}
	if (r == 0) {
		session_connect(s);
		return;
	}
	if (r == BALANCE_FULL && backend_enqueue(be, s)) {
		s->st = LBD_SESS_QUEUED;
		s->t_queue = now;
		session_arm(s);
		return;
	}
	COUNT(be, denied, 1);
	session_close(s, r == BALANCE_FULL ? "sQ" : "SC");
}

/* observe layer4: one connect's outcome counts for the server's passive
 * health (health.c decides; the main thread acts, server_ctl.c). HAProxy
 * counts nothing on a server without checks, and neither does lbd. */
static void session_observe(struct lbd_session *s, struct lbd_server *srv, bool ok)
{
	struct lbd_runtime *rt = s->w->rt;
	unsigned old, n;
	bool due;

	if (!srv->o.observe || !srv->o.check)
		return;
	old = atomic_load_explicit(&srv->hana_errors, memory_order_relaxed);
	do {
		if (ok && old == 0)
			return; /* the common case: nothing to write */
		n = old;
		due = health_observe(&n, srv->o.error_limit, ok);
	} while (!atomic_compare_exchange_weak(&srv->hana_errors, &old, n));
	if (!due)
		return;
	atomic_store(&srv->hana_due, true);
	if (rt->hana_src && eventfd_write(rt->hana_efd, 1) == -1)
		log_debug("server %s/%s: eventfd: %m", be_of(s)->name, srv->name);
}

static void connect_failed(struct lbd_session *s, int err, bool timeout)
{
	struct lbd_backend_rt *be = be_of(s);
	struct lbd_server *srv = s->srv;

	session_observe(s, srv, false);
	COUNT(srv, connect_errors, 1);
	COUNT(be, connect_errors, 1);
	log_debug("server %s/%s: connect: %s", be->name, srv->name, strerror(err));
	if (s->hsrv) {
		/* the hedge's connect goes on as this attempt's */
		hedge_promote(s);
		s->armed = 0;
		session_arm(s);
		return;
	}
	close_server_side(s);
	if (s->attempts_left <= 1) {
		session_close(s, timeout ? "sC" : "SC");
		return;
	}
	s->attempts_left--;
	s->retries_done++;
	COUNT(srv, retries, 1);
	COUNT(be, retries, 1);
	if (be->redispatch) {
		/* lbd redispatches on every retry: a refused connect says the
		 * server is going away, waiting for it helps nobody */
		if (srv->id < 256)
			s->tried[srv->id / 8] |= (uint8_t)(1u << (srv->id % 8));
		s->redispatched = true;
		COUNT(srv, redispatches, 1);
		COUNT(be, redispatches, 1);
		backend_release(be, s);
		session_dispatch(s);
		return;
	}
	/* same server again after HAProxy's one-second turn-around */
	s->st = LBD_SESS_TURNAROUND;
	s->t_connect = lbd_loop_now(s->w->e);
	s->armed = 0;
	session_arm(s);
}

/* The client is accepted but there is no descriptor for its server side:
 * keep it, holding its server slot, and retry when a session ends or after
 * FDWAIT_RETRY_USEC. Closing it would turn a full process into refused
 * clients; HAProxy avoids the case by sizing maxconn to the fd limit, which
 * lbd does too (fdlimit.c) unless 'no strict-limits' says otherwise. */
static void session_fdwait(struct lbd_session *s, int err)
{
	uint64_t now = lbd_loop_now(s->w->e);

	cpha_log_reason(LOG_ERR, "lbd: server socket: out of descriptors",
		"server %s/%s: socket: %s; the client waits for a descriptor", be_of(s)->name,
		s->srv->name, strerror(err));
	session_fd_exhausted(s->w);
	if (!s->t_fdwait)
		s->t_fdwait = now;
	s->st = LBD_SESS_FDWAIT;
	s->fd_retry_at = now + FDWAIT_RETRY_USEC;
	cpha_list_append(&s->w->fdwait, &s->flink);
	s->armed = 0;
	session_arm(s);
}

void session_fdwait_kick(struct lbd_worker *w)
{
	struct cpha_list *pos, *tmp;
	uint64_t now = lbd_loop_now(w->e);
	unsigned n = 0;

	cpha_list_for_each_safe(pos, tmp, &w->fdwait)
	{
		struct lbd_session *s = cpha_container_of(pos, struct lbd_session, flink);

		if (n++ == FDWAIT_KICK)
			break;
		s->fd_retry_at = now;
		s->armed = 0;
		session_arm(s);
	}
}

static bool connected_now(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	return getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) == 0 &&
	       ti.tcpi_state == TCP_ESTABLISHED;
}

/* The hedge takes the first connect's place: that one is closed with a
 * reset (nothing was sent on it) and its slot given back; the hedge's
 * socket, still watched through hh, is the session's server side. */
static void hedge_promote(struct lbd_session *s)
{
	reset_on_close(s->sfd);
	close_server_side(s);
	backend_release(be_of(s), s);
	s->srv = s->hsrv;
	s->hsrv = NULL;
	s->sfd = s->hfd;
	s->hfd = -1;
	s->sfd_on_hh = true;
	s->send_proxy = s->hsend_proxy;
	cpha_list_append(&s->srv->sessions[s->w->id], &s->slink);
}

/* The hedge's connect failed, or timeout connect ended it: an error of its
 * server, as any connect's. */
static void hedge_failed(struct lbd_session *s, int err)
{
	struct lbd_server *h = s->hsrv;

	/* as a failed first connect: no retry of this session goes there */
	if (h->id < 256)
		s->tried[h->id / 8] |= (uint8_t)(1u << (h->id % 8));
	session_observe(s, h, false);
	COUNT(h, connect_errors, 1);
	COUNT(be_of(s), connect_errors, 1);
	log_debug("server %s/%s: connect (hedge): %s", be_of(s)->name, h->name, strerror(err));
	hedge_drop(s);
}

/* The hedge connected first. The first connect had no answer within hedge
 * and is given up: for observe layer4 that is a layer-4 error of its
 * server (so a server that has gone silent goes down after error-limit
 * such connects), though not a connect error in the counters. */
static void hedge_won(struct lbd_session *s, bool server_readable)
{
	session_observe(s, s->srv, false);
	hedge_promote(s);
	session_open(s, server_readable);
}

static bool hedge_due(const struct lbd_session *s, uint64_t now)
{
	uint64_t at = health_hedge_at(s->t_connect, s->hedge_usec, be_of(s)->timeouts.connect);

	return !s->hedged && at && at <= now;
}

/* hedge: the first connect has no answer after hedge_usec. Start one to
 * another server chosen by the balancer, if there is one with room. */
static void session_hedge(struct lbd_session *s)
{
	struct lbd_backend_rt *be = be_of(s);
	struct lbd_server *h;
	struct cpha_addr dst;
	int fd, proxy;

	s->hedged = true;
	s->armed = 0;
	if (backend_assign_other(be, s, lbd_loop_now(s->w->e), &h) != 0)
		goto out; /* nowhere else to go: the first connect goes on alone */
	server_target(h, &dst, &proxy);
	if (cpha_addr_port(&dst) == 0)
		cpha_addr_set_port(&dst, s->local_port);
	fd = socket(dst.ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1) {
		log_debug("server %s/%s: socket (hedge): %m", be->name, h->name);
		backend_release_server(be, h);
		goto out;
	}
	s->hsrv = h;
	s->hfd = fd;
	s->hsend_proxy = (uint8_t)proxy;
	COUNT(s->srv, hedges, 1);
	COUNT(be, hedges, 1);
	log_debug("server %s/%s: no answer after %llums: connecting to %s too", be->name,
		s->srv->name, (unsigned long long)(s->hedge_usec / 1000), h->name);
	set_nodelay_keepalive(fd);
	if (be->smart_connect)
		hold_first_ack(fd);
	if (connect(fd, (struct sockaddr *)&dst.ss, dst.len) == -1 && errno != EINPROGRESS) {
		hedge_failed(s, errno);
		goto out;
	}
	if (watch(s, fd, &s->hh) < 0) {
		hedge_drop(s);
		goto out;
	}
	if (connected_now(fd)) {
		hedge_won(s, false);
		return;
	}
out:
	session_arm(s);
}

static void session_connect(struct lbd_session *s)
{
	struct lbd_server *srv = s->srv;
	struct cpha_addr dst;
	int fd, proxy, err;

	server_target(srv, &dst, &proxy);
	if (cpha_addr_port(&dst) == 0)
		cpha_addr_set_port(&dst, s->local_port);
	s->st = LBD_SESS_CONNECTING;
	s->t_connect = lbd_loop_now(s->w->e);
	s->hedged = false; /* one hedge per attempt */
	s->hedge_usec = srv->o.hedge;
	s->sfd_on_hh = false;
	cpha_list_del(&s->flink);
	cpha_list_del(&s->slink); /* still there after waiting for a descriptor */
	cpha_list_append(&srv->sessions[s->w->id], &s->slink);
	fd = socket(dst.ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1 && (errno == EMFILE || errno == ENFILE)) {
		session_fdwait(s, errno);
		return;
	}
	if (fd == -1) {
		err = errno;
		log_err("server %s/%s: socket: %s", be_of(s)->name, srv->name, strerror(err));
		cpha_list_del(&s->slink);
		session_close(s, "RC");
		return;
	}
	s->t_fdwait = 0;
	s->sfd = fd;
	set_nodelay_keepalive(fd);
	if (be_of(s)->smart_connect)
		hold_first_ack(fd);
	if (connect(fd, (struct sockaddr *)&dst.ss, dst.len) == -1 && errno != EINPROGRESS) {
		connect_failed(s, errno, false);
		return;
	}
	if (watch(s, fd, &s->sh) < 0) {
		session_close(s, "RC");
		return;
	}
	s->send_proxy = (uint8_t)proxy;
	if (connected_now(fd)) {
		/* near servers (loopback, same rack) are often connected
		 * before connect() returns: skip a trip through the loop */
		session_open(s, false);
		return;
	}
	s->armed = 0;
	session_arm(s);
}

void session_dequeued(struct lbd_worker *w, struct lbd_session *s, struct lbd_server *srv)
{
	(void)w;
	s->srv = srv;
	s->dequeued = false;
	if (s->zombie) {
		backend_release(be_of(s), s);
		session_free(s);
		return;
	}
	session_connect(s);
}

/* Run one direction; returns false when the session was closed. readable:
 * the source socket reported events (rdhup: with its peer's FIN). */
static bool pump(struct lbd_session *s, bool c2s, bool readable, bool rdhup)
{
	struct lbd_flow *f = c2s ? &s->c2s : &s->s2c, *other = c2s ? &s->s2c : &s->c2s;
	int src = c2s ? s->cfd : s->sfd, dst = c2s ? s->sfd : s->cfd;
	enum lbd_pump_result r;
	size_t moved = 0;
	uint64_t now;

	if (readable)
		f->src_ready = true;
	if (rdhup)
		f->src_rdhup = true;
	r = splice_pump(s->w, f, src, dst, other->dst_shut, &moved);
	if (moved) {
		now = lbd_loop_now(s->w->e);
		s->last_c = s->last_s = now;
		if (c2s) {
			COUNT(s->fe, bytes_in, moved);
			COUNT(be_of(s), bytes_in, moved);
			COUNT(s->srv, bytes_in, moved);
		} else {
			COUNT(s->fe, bytes_out, moved);
			COUNT(be_of(s), bytes_out, moved);
			COUNT(s->srv, bytes_out, moved);
		}
	}
	/* an aborted side is passed on as a reset: a FIN would tell the
	 * other peer that a cut-off stream (a list, a watch) was complete */
	switch (r) {
	case LBD_PUMP_OK:
		return true;
	case LBD_PUMP_SRC_ERR:
		reset_on_close(dst);
		session_close(s, c2s ? "CD" : "SD");
		return false;
	case LBD_PUMP_DST_ERR:
		reset_on_close(src);
		session_close(s, c2s ? "SD" : "CD");
		return false;
	case LBD_PUMP_RESOURCE:
		reset_on_close(src);
		reset_on_close(dst);
		session_close(s, "RD");
		return false;
	}
	return true;
}

/* After any progress: a session whose both directions are shut is done. */
static void session_check_done(struct lbd_session *s)
{
	if (s->c2s.dst_shut && s->s2c.dst_shut) {
		session_close(s, "--");
		return;
	}
	session_arm(s);
}

/* Connected: start forwarding. The client's side is read now only if an
 * edge said it was readable while we were not forwarding (an edge still
 * queued, such as the one epoll_ctl's ADD queues for a socket that already
 * has data, brings its read later); the server's side only when the event
 * that said "connected" also said "readable". Reading on speculation cost
 * a recv() that found nothing for most new connections. */
static void session_open(struct lbd_session *s, bool server_readable)
{
	s->st = LBD_SESS_OPEN;
	s->t_open = s->last_c = s->last_s = lbd_loop_now(s->w->e);
	COUNT(s->srv, sessions_total, 1);
	session_observe(s, s->srv, true);
	s->armed = 0;
	if (s->send_proxy && proxyproto_send(s->cfd, s->sfd, s->send_proxy) < 0) {
		session_close(s, "SC");
		return;
	}
	if (!pump(s, true, false, false))
		return;
	if (server_readable && !pump(s, false, true, false))
		return;
	session_check_done(s);
}

static void on_server_io(struct lbd_evh *h, uint32_t revents)
{
	struct lbd_session *s = cpha_container_of(h, struct lbd_session, sh);

	if (s->dead || s->sfd_on_hh)
		return; /* a stale event of a first connect a hedge replaced */
	server_io(s, revents);
}

static void on_hedge_io(struct lbd_evh *h, uint32_t revents)
{
	struct lbd_session *s = cpha_container_of(h, struct lbd_session, hh);
	socklen_t len = sizeof(int);
	int err = 0;

	if (s->dead)
		return;
	if (s->sfd_on_hh) {
		server_io(s, revents);
		return;
	}
	if (s->hfd < 0 || s->st != LBD_SESS_CONNECTING)
		return; /* a stale event of a hedge given up */
	if (revents & (EPOLLERR | EPOLLHUP)) {
		if (getsockopt(s->hfd, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
			err = errno;
		hedge_failed(s, err ? err : ECONNREFUSED);
		return;
	}
	if (revents & EPOLLOUT)
		hedge_won(s, revents & (EPOLLIN | EPOLLRDHUP));
}

static void server_io(struct lbd_session *s, uint32_t revents)
{
	socklen_t len = sizeof(int);
	int err = 0, fd = s->sfd;

	if (fd < 0)
		return;
	if (revents & (EPOLLRDHUP | EPOLLHUP))
		s->s2c.src_rdhup = true; /* kept: the edge does not come again */
	if (s->st == LBD_SESS_CONNECTING) {
		if (revents & (EPOLLERR | EPOLLHUP)) {
			if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
				err = errno;
			connect_failed(s, err ? err : ECONNREFUSED, false);
			return;
		}
		if (revents & EPOLLOUT) {
			hedge_drop(s); /* the first connect won: the hedge lost */
			session_open(s, revents & (EPOLLIN | EPOLLRDHUP));
		}
		return;
	}
	if (s->st != LBD_SESS_OPEN)
		return;
	if ((revents & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) &&
		!pump(s, false, true, revents & EPOLLRDHUP))
		return;
	if ((revents & (EPOLLOUT | EPOLLHUP | EPOLLERR)) && !pump(s, true, false, false))
		return;
	session_check_done(s);
	return;
}

static void on_client_io(struct lbd_evh *h, uint32_t revents)
{
	struct lbd_session *s = cpha_container_of(h, struct lbd_session, ch);

	if (s->dead)
		return;
	if (revents & (EPOLLRDHUP | EPOLLHUP))
		s->c2s.src_rdhup = true; /* kept: the edge does not come again */
	if (s->st != LBD_SESS_OPEN) {
		/* not forwarding yet; data waits in the socket, and the edge
		 * is remembered for session_open. A client that resets before
		 * we reach a server is gone. */
		if (revents & (EPOLLIN | EPOLLRDHUP | EPOLLHUP))
			s->c2s.src_ready = true;
		if (revents & EPOLLERR)
			session_close(s, s->st == LBD_SESS_QUEUED	? "CQ"
					 : s->st == LBD_SESS_INSPECT ? "CR"
								      : "CC");
		else if (s->st == LBD_SESS_INSPECT && (revents & (EPOLLIN | EPOLLRDHUP | EPOLLHUP)))
			session_inspect(s, false);
		return;
	}
	if ((revents & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) &&
		!pump(s, true, true, revents & EPOLLRDHUP))
		return;
	if ((revents & (EPOLLOUT | EPOLLHUP | EPOLLERR)) && !pump(s, false, false, false))
		return;
	session_check_done(s);
	return;
}

static int on_timer(sd_event_source *src, uint64_t usec, void *userdata)
{
	struct lbd_session *s = userdata;
	uint64_t now = usec, d;

	(void)src;
	s->armed = 0;
	d = session_deadline(s);
	if (d > now) {
		session_arm(s); /* activity moved the deadline: sleep again */
		return 0;
	}
	if (s->kill_at && s->kill_at <= now) {
		session_close(s, s->kill_term ? s->kill_term : "KD");
		return 0;
	}
	switch (s->st) {
	case LBD_SESS_INSPECT:
		/* HAProxy: timeout client before the rules decide is the
		 * client's; inspect-delay over, the rules decide on what came */
		if (add_deadline(s->t_accept, s->fp->timeouts.client) <= now &&
			inspect_start(s) + inspect_rules(s)->inspect_delay > now) {
			session_close(s, "cR");
			break;
		}
		session_inspect(s, true);
		break;
	case LBD_SESS_QUEUED:
		if (backend_unqueue(be_of(s), s) > 0) {
			COUNT(be_of(s), denied, 1);
			session_close(s, "sQ");
		}
		/* else a slot is on its way: the message decides */
		break;
	case LBD_SESS_TURNAROUND:
		session_connect(s);
		break;
	case LBD_SESS_FDWAIT: {
		const struct lbd_timeouts *bt = &be_of(s)->timeouts;

		if (add_deadline(s->t_fdwait, bt->queue ? bt->queue : bt->connect) > now) {
			session_connect(s);
			break;
		}
		COUNT(be_of(s), denied, 1);
		session_close(s, "RC"); /* no descriptor came in time */
		break;
	}
	case LBD_SESS_CONNECTING:
		if (hedge_due(s, now)) {
			session_hedge(s);
			break;
		}
		/* timeout connect bounds the attempt, hedge included */
		if (s->hsrv)
			hedge_failed(s, ETIMEDOUT);
		connect_failed(s, ETIMEDOUT, true);
		break;
	case LBD_SESS_OPEN: {
		const struct lbd_timeouts *bt = &be_of(s)->timeouts;
		uint64_t ts = bt->tunnel ? bt->tunnel : bt->server;

		if (s->s2c.src_eof && bt->server_fin)
			ts = bt->server_fin;
		/* which side ran out: the server's if its deadline passed */
		session_close(s, add_deadline(s->last_s, ts) <= now ? "sD" : "cD");
		break;
	}
	}
	return 0;
}

void session_cut_server(
	struct lbd_worker *w, struct lbd_server *srv, uint64_t spread_usec, const char *term)
{
	struct cpha_list *pos, *tmp, *head = &srv->sessions[w->id];
	uint64_t now = lbd_loop_now(w->e), k = 0, i = 0;

	cpha_list_for_each_safe(pos, tmp, head) k++;
	cpha_list_for_each_safe(pos, tmp, head)
	{
		struct lbd_session *s = cpha_container_of(pos, struct lbd_session, slink);

		if (spread_usec == 0 || k == 1) {
			session_close(s, term);
			continue;
		}
		/* evenly over the window (or faster, for a few), the first now */
		s->kill_at = now + health_cut_offset(i, k, spread_usec) + 1;
		s->kill_term = term;
		i++;
		session_arm(s);
	}
}

void session_cut_all(struct lbd_worker *w, const char *term)
{
	struct cpha_list *pos, *tmp;

	cpha_list_for_each_safe(pos, tmp, &w->sessions)
	{
		session_close(cpha_container_of(pos, struct lbd_session, wlink), term);
	}
}
