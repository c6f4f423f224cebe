/* cpha-bench-floor: the floor for a TCP-terminating proxy on this kernel,
 * for bench/lbd_conn_bench.py. It does what any such proxy must do and
 * nothing else: accept, connect to a backend (round-robin), copy bytes
 * both ways, pass each side's FIN on, close. No health checks, timeouts,
 * queues, logs, statistics or configuration: what lbd costs above it is
 * what lbd's features and event loop cost. Loopback only.
 *
 *   cpha-bench-floor THREADS LISTEN_PORT=BACKEND_PORT[,BACKEND_PORT...]...
 *
 * Choices, made to match lbd as the benchmark runs it (nbthread N, one
 * TCP frontend per pattern, the same backends), so the comparison is fair:
 *  - THREADS threads, each with its own listening socket per frontend
 *    (SO_REUSEPORT, as lbd's workers have) and one epoll set holding its
 *    listeners and its connections. lbd's worker nests its session epoll
 *    set in sd-event's; the floor needs one epoll_wait per wake-up;
 *  - listeners level-triggered, up to 64 accept4() per wake-up (lbd's
 *    batch); connection sockets edge-triggered with EPOLLRDHUP, their
 *    readiness remembered, so nothing is read or written on speculation;
 *  - TCP_NODELAY on both sides (accepted sockets inherit it from the
 *    listener, as in lbd). SO_KEEPALIVE, which lbd also sets, is left out:
 *    it changes nothing in a connection that lasts milliseconds and costs a
 *    setsockopt per server connection;
 *  - the server connection counts as open at its first EPOLLOUT; lbd asks
 *    TCP_INFO right after connect() instead (one getsockopt, often one
 *    loop iteration less; measured as a wash in docs/performance.md);
 *  - bytes are copied through a 16 KiB per-thread buffer; what the
 *    destination does not take waits in a buffer of the connection's own.
 *    lbd also copies these patterns (small exchanges); it splices only a
 *    flow that fills its 16 KiB buffer, which none of the benchmark's
 *    req / banner / tls exchanges does, so the floor does not splice;
 *  - half-close as lbd does it: a side's FIN (recv() returning 0) becomes
 *    shutdown(SHUT_WR) towards the other side, unless the other direction
 *    has already ended, in which case close() sends that FIN; when both
 *    directions have ended both sockets are closed. A read or write error
 *    closes both, the other side with a reset (SO_LINGER 0), so a cut
 *    stream is never passed on as complete. lbd's MSG_MORE on the last
 *    bytes before a FIN (one segment fewer) is a refinement, not part of
 *    the floor. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_FRONTENDS 8
#define MAX_BACKENDS  8
#define MAX_THREADS   16
#define ACCEPT_BATCH  64    /* accepts per wake-up, as lbd */
#define EPOLL_BATCH   256   /* events per epoll_wait */
#define COPY_BUF      16384 /* per-thread copy buffer, as lbd's */

/* epoll data: a connection's address with the side in the low bits, or a
 * listener's index shifted up with TAG_LISTENER */
#define TAG_CLIENT   0u /* the client's socket of a connection */
#define TAG_SERVER   1u /* the server's socket of a connection */
#define TAG_LISTENER 2u /* a listening socket; the index is data >> 2 */
#define TAG_MASK     3u

struct frontend {
	int port;
	int backends[MAX_BACKENDS];
	int nbackends;
};

struct flow {
	char *buf; /* bytes the destination did not take yet */
	size_t off, len;
	bool src_ready; /* the source may have bytes (an edge was seen) */
	bool src_rdhup; /* the source's FIN arrived: read until 0 */
	bool src_eof;   /* recv() returned 0 */
	bool dst_ready; /* the destination may take bytes */
	bool shut;      /* the FIN was passed on (or will be, by close) */
};

struct conn {
	int cfd, sfd;
	bool open; /* the server connection is established */
	bool dead;
	struct flow c2s, s2c;
	struct conn *next_dead;
};

struct thread {
	const struct frontend *fe;
	int nfe;
	int ep;
	int lfd[MAX_FRONTENDS];
	unsigned rr[MAX_FRONTENDS];
	char buf[COPY_BUF];
	struct conn *dead; /* closed during this batch; freed after it */
};

static struct sockaddr_in loopback(int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return sin;
}

static int listen_on(int port)
{
	struct sockaddr_in sin = loopback(port);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1;

	if (fd == -1)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == -1 ||
		setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) == -1 ||
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) == -1 ||
		bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
		listen(fd, SOMAXCONN) == -1) {
		fprintf(stderr, "cpha-bench-floor: listen on 127.0.0.1:%d: %m\n", port);
		close(fd);
		return -1;
	}
	return fd;
}

static void reset_on_close(int fd)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
}

static void conn_close(struct thread *t, struct conn *c)
{
	if (c->dead)
		return;
	close(c->cfd);
	if (c->sfd >= 0)
		close(c->sfd);
	free(c->c2s.buf);
	free(c->s2c.buf);
	c->dead = true;
	c->next_dead = t->dead;
	t->dead = c;
}

enum pump_result { PUMP_OK, PUMP_SRC_ERR, PUMP_DST_ERR };

/* Move what can move from src to dst without blocking. other: the flow the
 * other way (its end decides between shutdown() and close()). */
static enum pump_result pump(
	struct thread *t, struct flow *f, const struct flow *other, int src, int dst)
{
	ssize_t n, k;

	for (;;) {
		while (f->len > 0) {
			if (!f->dst_ready)
				return PUMP_OK;
			n = send(dst, f->buf + f->off, f->len, MSG_NOSIGNAL | MSG_DONTWAIT);
			if (n == -1 && errno == EINTR)
				continue;
			if (n == -1 && errno == EAGAIN) {
				f->dst_ready = false;
				return PUMP_OK;
			}
			if (n == -1)
				return PUMP_DST_ERR;
			f->off += (size_t)n;
			f->len -= (size_t)n;
		}
		if (f->src_eof) {
			if (!f->shut) {
				f->shut = true;
				/* the other way done too: both sockets are
				 * closed next, and close() sends this FIN */
				if (!other->shut && shutdown(dst, SHUT_WR) == -1 &&
					errno != ENOTCONN)
					return PUMP_DST_ERR;
			}
			return PUMP_OK;
		}
		if (!f->src_ready)
			return PUMP_OK;
		n = recv(src, t->buf, sizeof(t->buf), MSG_DONTWAIT);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN) {
			f->src_ready = false;
			continue;
		}
		if (n == -1)
			return PUMP_SRC_ERR;
		if (n == 0) {
			f->src_eof = true;
			continue;
		}
		/* a short read took all there was; after the FIN, read on:
		 * only the next read tells a clean end from an abort */
		if ((size_t)n < sizeof(t->buf) && !f->src_rdhup)
			f->src_ready = false;
		k = f->dst_ready ? send(dst, t->buf, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) : 0;
		if (k == -1 && errno != EAGAIN && errno != EINTR)
			return PUMP_DST_ERR;
		if (k < n) {
			if (k < 0)
				k = 0;
			f->dst_ready = false;
			free(f->buf);
			f->buf = malloc((size_t)(n - k));
			if (!f->buf)
				return PUMP_SRC_ERR;
			memcpy(f->buf, t->buf + k, (size_t)(n - k));
			f->off = 0;
			f->len = (size_t)(n - k);
		}
	}
}

/* Both directions, then the end when both have ended. An error on one
 * side closes the other with a reset. */
static void conn_run(struct thread *t, struct conn *c)
{
	enum pump_result r;

	if (!c->open)
		return;
	r = pump(t, &c->c2s, &c->s2c, c->cfd, c->sfd);
	if (r != PUMP_OK) {
		reset_on_close(r == PUMP_SRC_ERR ? c->sfd : c->cfd);
		conn_close(t, c);
		return;
	}
	r = pump(t, &c->s2c, &c->c2s, c->sfd, c->cfd);
	if (r != PUMP_OK) {
		reset_on_close(r == PUMP_SRC_ERR ? c->cfd : c->sfd);
		conn_close(t, c);
		return;
	}
	if (c->c2s.shut && c->s2c.shut)
		conn_close(t, c);
}

static void on_conn(struct thread *t, struct conn *c, bool server, uint32_t ev)
{
	struct flow *from = server ? &c->s2c : &c->c2s, *to = server ? &c->c2s : &c->s2c;

	if (c->dead)
		return;
	if (ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
		from->src_ready = true;
	if (ev & (EPOLLRDHUP | EPOLLHUP))
		from->src_rdhup = true; /* the edge does not come again */
	if (ev & (EPOLLOUT | EPOLLHUP | EPOLLERR))
		to->dst_ready = true;
	if (server && !c->open) {
		if (ev & (EPOLLERR | EPOLLHUP)) {
			conn_close(t, c); /* the connect failed */
			return;
		}
		if (!(ev & EPOLLOUT))
			return;
		c->open = true;
	}
	conn_run(t, c);
}

static int watch(struct thread *t, int fd, uint64_t data)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
		.data.u64 = data };

	return epoll_ctl(t->ep, EPOLL_CTL_ADD, fd, &ev);
}

static void on_accept(struct thread *t, int i)
{
	const struct frontend *fe = &t->fe[i];
	struct sockaddr_in dst;
	struct conn *c;
	int cfd, sfd, one = 1;

	for (int n = 0; n < ACCEPT_BATCH; n++) {
		cfd = accept4(t->lfd[i], NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (cfd == -1) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno != EAGAIN)
				fprintf(stderr, "cpha-bench-floor: accept on port %d: %m\n",
					fe->port);
			return;
		}
		dst = loopback(fe->backends[t->rr[i]++ % (unsigned)fe->nbackends]);
		sfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		c = calloc(1, sizeof(*c));
		if (sfd == -1 || !c) {
			fprintf(stderr, "cpha-bench-floor: socket: %m\n");
			close(cfd);
			if (sfd >= 0)
				close(sfd);
			free(c);
			continue;
		}
		c->cfd = cfd;
		c->sfd = sfd;
		setsockopt(sfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if ((connect(sfd, (struct sockaddr *)&dst, sizeof(dst)) == -1 &&
			    errno != EINPROGRESS) ||
			watch(t, cfd, (uint64_t)(uintptr_t)c | TAG_CLIENT) == -1 ||
			watch(t, sfd, (uint64_t)(uintptr_t)c | TAG_SERVER) == -1)
			conn_close(t, c);
	}
}

static void *thread_main(void *arg)
{
	struct thread *t = arg;
	struct epoll_event evs[EPOLL_BATCH];
	int n, i;

	for (;;) {
		n = epoll_wait(t->ep, evs, EPOLL_BATCH, -1);
		if (n == -1 && errno != EINTR) {
			fprintf(stderr, "cpha-bench-floor: epoll_wait: %m\n");
			exit(1);
		}
		for (i = 0; i < n; i++) {
			uint64_t d = evs[i].data.u64;

			if ((d & TAG_MASK) == TAG_LISTENER)
				on_accept(t, (int)(d >> 2));
			else
				on_conn(t, (struct conn *)(uintptr_t)(d & ~(uint64_t)TAG_MASK),
					(d & TAG_MASK) == TAG_SERVER, evs[i].events);
		}
		while (t->dead) {
			struct conn *c = t->dead;

			t->dead = c->next_dead;
			free(c);
		}
	}
	return NULL;
}

/* "PORT=PORT[,PORT...]" */
static int parse_frontend(const char *s, struct frontend *fe)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || *end != '=' || v < 1 || v > 65535)
		return -1;
	fe->port = (int)v;
	fe->nbackends = 0;
	do {
		s = end + 1;
		v = strtol(s, &end, 10);
		if (end == s || (*end != ',' && *end != '\0') || v < 1 || v > 65535 ||
			fe->nbackends == MAX_BACKENDS)
			return -1;
		fe->backends[fe->nbackends++] = (int)v;
	} while (*end == ',');
	return 0;
}

int main(int argc, char **argv)
{
	static struct frontend fe[MAX_FRONTENDS];
	static struct thread th[MAX_THREADS];
	pthread_t tid[MAX_THREADS];
	struct rlimit rl;
	int nth, nfe = argc - 2, i, j;

	nth = argc >= 3 ? atoi(argv[1]) : 0;
	if (nth < 1 || nth > MAX_THREADS || nfe < 1 || nfe > MAX_FRONTENDS) {
		fprintf(stderr,
			"usage: %s THREADS LISTEN_PORT=BACKEND_PORT[,BACKEND_PORT...]...\n"
			"(THREADS 1-%d, at most %d frontends of %d backends; loopback)\n",
			argv[0], MAX_THREADS, MAX_FRONTENDS, MAX_BACKENDS);
		return 2;
	}
	for (i = 0; i < nfe; i++)
		if (parse_frontend(argv[i + 2], &fe[i]) < 0) {
			fprintf(stderr,
				"cpha-bench-floor: argument %d: \"%s\" is not "
				"LISTEN_PORT=BACKEND_PORT[,BACKEND_PORT...]\n",
				i + 2, argv[i + 2]);
			return 2;
		}
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	for (i = 0; i < nth; i++) {
		th[i].fe = fe;
		th[i].nfe = nfe;
		th[i].ep = epoll_create1(EPOLL_CLOEXEC);
		if (th[i].ep == -1) {
			fprintf(stderr, "cpha-bench-floor: epoll_create1: %m\n");
			return 1;
		}
		for (j = 0; j < nfe; j++) {
			struct epoll_event ev = { .events = EPOLLIN,
				.data.u64 = ((uint64_t)j << 2) | TAG_LISTENER };

			th[i].lfd[j] = listen_on(fe[j].port);
			if (th[i].lfd[j] == -1 ||
				epoll_ctl(th[i].ep, EPOLL_CTL_ADD, th[i].lfd[j], &ev) == -1)
				return 1;
		}
	}
	for (i = 0; i < nth; i++)
		if (pthread_create(&tid[i], NULL, thread_main, &th[i]) != 0) {
			fprintf(stderr, "cpha-bench-floor: pthread_create failed\n");
			return 1;
		}
	pthread_join(tid[0], NULL);
	return 0;
}
