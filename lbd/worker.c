#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "quiet.h"
#include "server.h"
#include "session.h"
#include "splice.h"
#include "worker.h"

#define ACCEPT_BATCH 64             /* accepts per wake-up, for fairness */
#define RESUME_USEC  (50 * 1000ULL) /* recheck of paused listeners */

static __thread struct lbd_worker *this_worker;

void listener_unref(struct lbd_listener *l)
{
	if (atomic_fetch_sub(&l->refs, 1) == 1)
		free(l);
}

int worker_listen_socket(const struct cpha_addr *addr, int v6only, bool defer_accept)
{
	int fd, one = 1, r;

	fd = socket(addr->ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1)
		return -errno;
	if (addr->ss.ss_family == AF_INET6 && v6only >= 0 &&
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof(v6only)) == -1)
		goto fail;
	/* option tcp-smart-accept: accept() once the client has sent data
	 * (HAProxy asks TCP_DEFER_ACCEPT for 1 second) */
	if (defer_accept && setsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &one, sizeof(one)) == -1)
		goto fail;
	/* accepted sockets inherit TCP_NODELAY and SO_KEEPALIVE from here */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == -1 ||
		setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) == -1 ||
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) == -1 ||
		setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one)) == -1 ||
		bind(fd, (const struct sockaddr *)&addr->ss, addr->len) == -1 ||
		listen(fd, SOMAXCONN) == -1)
		goto fail;
	return fd;
fail:
	r = -errno;
	close(fd);
	return r;
}

static bool listener_has_room(struct lbd_worker *w, struct lbd_listener *l)
{
	struct lbd_fe_params *fp;
	struct lbd_frontend_rt *fe = atomic_load(&l->fe);

	if (atomic_load_explicit(&w->rt->cur, memory_order_relaxed) >= w->rt->maxconn)
		return false;
	/* out of descriptors: clients wait in the kernel's backlog, and the
	 * ones already accepted get the next free descriptors first */
	if (!cpha_list_empty(&w->fdwait) ||
		lbd_loop_now(w->e) <
			atomic_load_explicit(&w->rt->fd_full_until, memory_order_relaxed))
		return false;
	if (!fe)
		return true;
	fp = atomic_load_explicit(&fe->params, memory_order_acquire);
	return !fp->maxconn || atomic_load_explicit(&fe->cur, memory_order_relaxed) < fp->maxconn;
}

static int on_resume(sd_event_source *src, uint64_t usec, void *userdata);

static void arm_resume(struct lbd_worker *w, uint64_t after)
{
	if (!w->resume_timer) {
		if (sd_event_add_time_relative(
			    w->e, &w->resume_timer, CLOCK_MONOTONIC, after, 1000, on_resume, w) < 0)
			log_err("worker %u: cannot arm the accept resume timer", w->id);
		return;
	}
	sd_event_source_set_time_relative(w->resume_timer, after);
	sd_event_source_set_enabled(w->resume_timer, SD_EVENT_ONESHOT);
}

static void pause_slot(struct lbd_worker *w, size_t i, uint64_t retry)
{
	if (!w->paused[i]) {
		sd_event_source_set_enabled(w->accept_src[i], SD_EVENT_OFF);
		w->paused[i] = true;
		w->npaused++;
	}
	arm_resume(w, retry);
}

static void try_resume(struct lbd_worker *w)
{
	size_t i;

	for (i = 0; i < w->nlisteners; i++) {
		if (!w->paused[i] || !listener_has_room(w, w->listeners[i]))
			continue;
		sd_event_source_set_enabled(w->accept_src[i], SD_EVENT_ON);
		w->paused[i] = false;
		w->npaused--;
	}
	if (w->npaused)
		arm_resume(w, RESUME_USEC);
}

static int on_resume(sd_event_source *src, uint64_t usec, void *userdata)
{
	(void)src;
	(void)usec;
	try_resume(userdata);
	return 0;
}

void worker_session_closed(struct lbd_worker *w)
{
	/* descriptors were freed: sessions waiting for one first, then
	 * (in every worker: the limit is the process's) new clients */
	if (!cpha_list_empty(&w->fdwait))
		session_fdwait_kick(w);
	else if (atomic_load_explicit(&w->rt->fd_full_until, memory_order_relaxed))
		atomic_store_explicit(&w->rt->fd_full_until, 0, memory_order_relaxed);
	if (w->npaused)
		try_resume(w);
	if (w->stopping && w->nsessions == 0)
		sd_event_exit(w->e, 0);
}

static size_t slot_of(struct lbd_worker *w, const struct lbd_listener *l)
{
	size_t i;

	for (i = 0; i < w->nlisteners; i++)
		if (w->listeners[i] == l)
			return i;
	return SIZE_MAX;
}

static int on_accept(sd_event_source *src, int fd, uint32_t revents, void *userdata)
{
	struct lbd_listener *l = userdata;
	struct lbd_worker *w = this_worker;
	struct sockaddr_storage peer;
	socklen_t len;
	int cfd, i;

	(void)src;
	(void)revents;
	for (i = 0; i < ACCEPT_BATCH; i++) {
		if (!listener_has_room(w, l)) {
			pause_slot(w, slot_of(w, l), RESUME_USEC);
			return 0;
		}
		len = sizeof(peer);
		cfd = accept4(fd, (struct sockaddr *)&peer, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (cfd == -1) {
			if (errno == EAGAIN)
				return 0;
			if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO)
				continue;
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
				errno == ENOMEM) {
				/* never spin: stop accepting (in every worker)
				 * until a session ends or for a while; the
				 * clients wait in the backlog (HAProxy) */
				cpha_log_reason(LOG_ERR, "lbd: accept: out of resources",
					"accept: %m; new connections wait in the backlog "
					"until a session ends (at most %llu ms)",
					SESSION_EMFILE_PAUSE_USEC / 1000);
				if (errno != ENOBUFS && errno != ENOMEM)
					session_fd_exhausted(w);
				pause_slot(w, slot_of(w, l), SESSION_EMFILE_PAUSE_USEC);
				return 0;
			}
			log_err("accept: %m");
			return 0;
		}
		session_accept(w, l, cfd, &peer);
	}
	return 0;
}

static void do_listen(struct lbd_worker *w, struct lbd_listener *l)
{
	size_t i = w->nlisteners;
	int r;

	if (i >= LBD_MAX_LISTENERS || l->fds[w->id] < 0) {
		listener_unref(l);
		return;
	}
	r = sd_event_add_io(w->e, &w->accept_src[i], l->fds[w->id], EPOLLIN, on_accept, l);
	if (r < 0) {
		log_err("worker %u: cannot watch a listening socket: %s", w->id, strerror(-r));
		listener_unref(l);
		return;
	}
	w->listeners[i] = l;
	w->paused[i] = false;
	w->nlisteners++;
	if (w->quiet && (r = quiet_apply(l->fds[w->id], w->quiet)) < 0)
		log_err("worker %u: cannot quiesce a listening socket: %s", w->id, strerror(-r));
}

/* The listeners' filter changed (quiet.h): p, with a reference for us. */
static void do_quiet(struct lbd_worker *w, struct lbd_quiet_prog *p)
{
	int r;

	for (size_t i = 0; i < w->nlisteners; i++)
		if ((r = quiet_apply(w->listeners[i]->fds[w->id], p)) < 0)
			log_err("worker %u: cannot %s a listening socket: %s", w->id,
				p->fprog.len ? "quiesce" : "unquiesce", strerror(-r));
	quiet_prog_unref(w->quiet);
	w->quiet = p->fprog.len ? p : NULL;
	if (!w->quiet)
		quiet_prog_unref(p);
}

static void do_unlisten(struct lbd_worker *w, struct lbd_listener *l)
{
	size_t i = slot_of(w, l), last;

	if (i == SIZE_MAX)
		return;
	sd_event_source_disable_unref(w->accept_src[i]);
	close(l->fds[w->id]);
	l->fds[w->id] = -1;
	if (w->paused[i])
		w->npaused--;
	last = w->nlisteners - 1;
	w->accept_src[i] = w->accept_src[last];
	w->listeners[i] = w->listeners[last];
	w->paused[i] = w->paused[last];
	w->nlisteners--;
	listener_unref(l);
}

static void unlisten_all(struct lbd_worker *w)
{
	while (w->nlisteners)
		do_unlisten(w, w->listeners[w->nlisteners - 1]);
}

static void handle(struct lbd_worker *w, struct lbd_msg *m)
{
	switch (m->type) {
	case LBD_MSG_LISTEN:
		do_listen(w, m->arg);
		break;
	case LBD_MSG_UNLISTEN:
		do_unlisten(w, m->arg);
		break;
	case LBD_MSG_CUT_SERVER:
		session_cut_server(w, m->arg, m->usec, m->arg2);
		server_unref(m->arg); /* taken by the sender */
		break;
	case LBD_MSG_DEQUEUE:
		session_dequeued(w, m->arg, m->arg2);
		break;
	case LBD_MSG_SOFT_STOP:
		unlisten_all(w);
		w->stopping = true;
		if (w->nsessions == 0)
			sd_event_exit(w->e, 0);
		break;
	case LBD_MSG_QUIET:
		do_quiet(w, m->arg);
		break;
	case LBD_MSG_HARD_STOP:
		unlisten_all(w);
		w->stopping = true;
		session_cut_all(w, "KD");
		sd_event_exit(w->e, 0);
		break;
	}
}

#define EPOLL_BATCH 256 /* session events handled per wake-up */

/* One wake-up of the worker's loop handles every ready session socket,
 * where an sd-event source per socket would cost an epoll_wait each. */
static int on_epoll(sd_event_source *src, int fd, uint32_t revents, void *userdata)
{
	struct lbd_worker *w = userdata;
	struct epoll_event evs[EPOLL_BATCH];
	int n, i;

	(void)src;
	(void)revents;
	n = epoll_wait(fd, evs, EPOLL_BATCH, 0);
	if (n == -1 && errno != EINTR)
		log_err("worker %u: epoll_wait: %m", w->id);
	w->in_batch = true;
	for (i = 0; i < n; i++) {
		struct lbd_evh *h = evs[i].data.ptr;

		h->fn(h, evs[i].events);
	}
	w->in_batch = false;
	session_reap(w);
	return 0;
}

static int on_mbox(sd_event_source *src, int fd, uint32_t revents, void *userdata)
{
	struct lbd_worker *w = userdata;
	struct lbd_msg *m, *rev = NULL, *next;
	uint64_t v;

	(void)src;
	(void)revents;
	if (read(fd, &v, sizeof(v)) == -1 && errno != EAGAIN)
		log_err("worker %u: mailbox: %m", w->id);
	pthread_mutex_lock(&w->mbox_lock);
	m = w->mbox;
	w->mbox = NULL;
	pthread_mutex_unlock(&w->mbox_lock);
	for (; m; m = next) { /* producers push in front: reverse to keep order */
		next = m->next;
		m->next = rev;
		rev = m;
	}
	for (m = rev; m; m = next) {
		next = m->next;
		handle(w, m);
		if (!m->owned)
			free(m);
	}
	return 0;
}

void worker_post_msg(struct lbd_worker *w, struct lbd_msg *m)
{
	uint64_t one = 1;

	pthread_mutex_lock(&w->mbox_lock);
	m->next = w->mbox;
	w->mbox = m;
	pthread_mutex_unlock(&w->mbox_lock);
	if (write(w->efd, &one, sizeof(one)) == -1 && errno != EAGAIN)
		log_err("worker %u: mailbox doorbell: %m", w->id);
}

void worker_hand_slot(struct lbd_session *s)
{
	s->dq_msg.type = LBD_MSG_DEQUEUE;
	s->dq_msg.arg = s;
	s->dq_msg.arg2 = s->srv; /* the slot travels with the message */
	s->dq_msg.usec = 0;
	s->dq_msg.owned = true;
	worker_post_msg(s->w, &s->dq_msg);
}

static void msg_fill(
	struct lbd_msg *m, enum lbd_msg_type type, void *arg, void *arg2, uint64_t usec)
{
	m->type = type;
	m->arg = arg;
	m->arg2 = arg2;
	m->usec = usec;
	m->owned = false;
}

void worker_post(struct lbd_worker *w, enum lbd_msg_type type, void *arg, void *arg2, uint64_t usec)
{
	struct lbd_msg *m = malloc(sizeof(*m));

	if (!m) {
		log_err("worker %u: out of memory for a message", w->id);
		return;
	}
	msg_fill(m, type, arg, arg2, usec);
	worker_post_msg(w, m);
}

int worker_pool_fill(struct lbd_msg **pool, size_t n)
{
	struct lbd_msg *m;

	for (; n > 0; n--) {
		m = malloc(sizeof(*m));
		if (!m)
			return -ENOMEM;
		m->next = *pool;
		*pool = m;
	}
	return 0;
}

void worker_post_pooled(struct lbd_worker *w, struct lbd_msg **pool, enum lbd_msg_type type,
	void *arg, void *arg2, uint64_t usec)
{
	struct lbd_msg *m = *pool;

	if (!m) {
		worker_post(w, type, arg, arg2, usec);
		return;
	}
	*pool = m->next;
	msg_fill(m, type, arg, arg2, usec);
	worker_post_msg(w, m);
}

void worker_pool_free(struct lbd_msg **pool)
{
	struct lbd_msg *m, *next;

	for (m = *pool; m; m = next) {
		next = m->next;
		free(m);
	}
	*pool = NULL;
}

int worker_init(struct lbd_worker *w, struct lbd_runtime *rt, unsigned id)
{
	memset(w, 0, sizeof(*w));
	w->id = id;
	w->rt = rt;
	w->session_closed = worker_session_closed;
	cpha_list_init(&w->sessions);
	cpha_list_init(&w->dead);
	cpha_list_init(&w->fdwait);
	w->epfd = -1;
	pthread_mutex_init(&w->mbox_lock, NULL);
	w->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (w->efd == -1)
		return -errno;
	return 0;
}

static void *worker_main(void *arg)
{
	struct lbd_worker *w = arg;
	int r;

	this_worker = w;
	w->scratch = malloc(LBD_COPY_BUF);
	if (!w->scratch) {
		log_err("worker %u: out of memory", w->id);
		return NULL;
	}
	w->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (w->epfd == -1) {
		log_err("worker %u: epoll_create1: %m", w->id);
		return NULL;
	}
	r = sd_event_new(&w->e);
	if (r >= 0)
		r = sd_event_add_io(w->e, &w->efd_src, w->efd, EPOLLIN, on_mbox, w);
	if (r >= 0)
		r = sd_event_add_io(w->e, &w->ep_src, w->epfd, EPOLLIN, on_epoll, w);
	if (r < 0) {
		log_err("worker %u: cannot start its event loop: %s", w->id, strerror(-r));
		return NULL;
	}
	r = sd_event_loop(w->e);
	if (r < 0)
		log_err("worker %u: event loop: %s", w->id, strerror(-r));
	unlisten_all(w);
	session_cut_all(w, "KD");
	w->resume_timer = sd_event_source_disable_unref(w->resume_timer);
	w->efd_src = sd_event_source_disable_unref(w->efd_src);
	w->ep_src = sd_event_source_disable_unref(w->ep_src);
	close(w->epfd);
	w->epfd = -1;
	splice_pool_free(w);
	free(w->scratch);
	w->scratch = NULL;
	w->e = sd_event_unref(w->e);
	return NULL;
}

int worker_start(struct lbd_worker *w)
{
	int r = pthread_create(&w->thread, NULL, worker_main, w);

	return -r;
}

void worker_join(struct lbd_worker *w)
{
	struct lbd_msg *m, *next;

	pthread_join(w->thread, NULL);
	for (m = w->mbox; m; m = next) {
		next = m->next;
		if (m->type == LBD_MSG_LISTEN || m->type == LBD_MSG_UNLISTEN)
			listener_unref(m->arg);
		if (m->type == LBD_MSG_QUIET)
			quiet_prog_unref(m->arg);
		if (!m->owned)
			free(m);
	}
	w->mbox = NULL;
	quiet_prog_unref(w->quiet);
	w->quiet = NULL;
	close(w->efd);
	pthread_mutex_destroy(&w->mbox_lock);
}
