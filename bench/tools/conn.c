/* cpha-bench-conn: new-connection load and a reconnect storm, for
 * bench/lbd_bench.py. Loopback only (the address is 127.0.0.1).
 *
 *   cpha-bench-conn server MODE THREADS PORT[:ID]...
 *       req     read a request, answer, close when the client closes
 *       banner  speak first (a short banner) and close
 *       watch   send "ID\n" at once, then hold the connection
 *   cpha-bench-conn client MODE PORT CONNS SECONDS THREADS
 *       closed loop, CONNS connections at a time; each one is
 *       req     connect, send a request, read the whole response, close
 *       banner  connect, read until the server closes, close
 *       tls     connect, TLS handshake, HTTP/1.0 request, read to the end
 *       prints {"conns": N, "rate": N/s, "errors": N}
 *   cpha-bench-conn storm PORT CONNS PROBE_RATE
 *       holds CONNS "watch" connections, prints "ready N ID=count...",
 *       then reads "T0_NS DOWN_ID" (CLOCK_MONOTONIC) on stdin: every
 *       connection cut after that reconnects at once until it receives
 *       data from a server other than DOWN_ID. Meanwhile a second thread
 *       opens PROBE_RATE new connections per second (open loop) and times
 *       each to its first byte. Prints JSON. Stops by itself (60 s). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_PORTS   8
#define STORM_LIMIT (60ULL * 1000000000ULL)

static const char request[] = "GET / HTTP/1.0\r\n\r\n";
static const char response[] = "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok";
static const char banner[] = "220 cpha-bench banner, then the server closes\r\n";

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double pct_ms(uint64_t *v, size_t n, double p)
{
	if (n == 0)
		return 0;
	return (double)v[(size_t)(p * (double)(n - 1) + 0.5)] / 1e6;
}

static struct sockaddr_in loopback(int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return sin;
}

static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* Connections from one address to one address and port can reuse a
 * port in TIME_WAIT only after a second (tcp_tw_reuse), and connect()
 * gets half of ip_local_port_range: about 14,000 new connections per
 * second where the client closes first. Clients dial from 127.0.0.1-8. */
#define SOURCES 8

static int dial(int port)
{
	static _Atomic unsigned next_src;
	struct sockaddr_in sin = loopback(port), src = loopback(0);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1;

	if (fd == -1)
		return -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	src.sin_addr.s_addr = htonl(INADDR_LOOPBACK + atomic_fetch_add(&next_src, 1) % SOURCES);
	setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&src, sizeof(src)) == -1) {
		close(fd);
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 && errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	return fd;
}

/* ---- server ---- */

enum mode { M_REQ, M_BANNER, M_WATCH, M_TLS };

struct srv_port {
	int port;
	char id[32];
};

struct srv_arg {
	enum mode mode;
	struct srv_port *ports;
	int nports;
};

static int listen_on(int port)
{
	struct sockaddr_in sin = loopback(port);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1;

	if (fd == -1)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 || listen(fd, 4096) == -1) {
		perror("listen");
		exit(1);
	}
	return fd;
}

/* epoll data: listeners are tagged with the low bit set (index << 1 | 1) */
static void *server_thread(void *p)
{
	struct srv_arg *a = p;
	struct epoll_event ev, evs[256];
	int ep = epoll_create1(EPOLL_CLOEXEC), lfd[MAX_PORTS], i, n;
	char buf[4096];

	for (i = 0; i < a->nports; i++) {
		lfd[i] = listen_on(a->ports[i].port);
		ev.events = EPOLLIN;
		ev.data.u64 = ((uint64_t)i << 1) | 1;
		epoll_ctl(ep, EPOLL_CTL_ADD, lfd[i], &ev);
	}
	for (;;) {
		n = epoll_wait(ep, evs, 256, -1);
		for (i = 0; i < n; i++) {
			uint64_t d = evs[i].data.u64;

			if (d & 1) {
				int li = (int)(d >> 1), c;

				while ((c = accept4(lfd[li], NULL, NULL,
						SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
					if (a->mode == M_BANNER) {
						send(c, banner, sizeof(banner) - 1, MSG_NOSIGNAL);
						close(c);
						continue;
					}
					if (a->mode == M_WATCH) {
						char line[40];
						int k = snprintf(line, sizeof(line), "%s\n",
							a->ports[li].id);

						send(c, line, (size_t)k, MSG_NOSIGNAL);
					}
					ev.events = EPOLLIN | EPOLLRDHUP;
					ev.data.u64 = (uint64_t)c << 1;
					epoll_ctl(ep, EPOLL_CTL_ADD, c, &ev);
				}
				continue;
			}
			{
				int c = (int)(d >> 1);
				ssize_t k = recv(c, buf, sizeof(buf), 0);

				if (k > 0 && a->mode == M_REQ) {
					send(c, response, sizeof(response) - 1, MSG_NOSIGNAL);
					k = recv(c, buf, sizeof(buf), 0); /* often the FIN too */
				}
				if (k == 0 || (k == -1 && errno != EAGAIN))
					close(c);
			}
		}
	}
	return NULL;
}

static enum mode parse_mode(const char *s)
{
	if (strcmp(s, "req") == 0)
		return M_REQ;
	if (strcmp(s, "banner") == 0)
		return M_BANNER;
	if (strcmp(s, "watch") == 0)
		return M_WATCH;
	if (strcmp(s, "tls") == 0)
		return M_TLS;
	fprintf(stderr, "unknown mode %s\n", s);
	exit(2);
}

static int cmd_server(int argc, char **argv)
{
	static struct srv_port ports[MAX_PORTS];
	struct srv_arg a;
	pthread_t th[16];
	int i, nth;

	if (argc < 4)
		return 2;
	a.mode = parse_mode(argv[1]);
	nth = atoi(argv[2]);
	a.nports = 0;
	for (i = 3; i < argc && a.nports < MAX_PORTS; i++) {
		char *colon = strchr(argv[i], ':');

		ports[a.nports].port = atoi(argv[i]);
		snprintf(ports[a.nports].id, sizeof(ports[a.nports].id), "%s",
			colon ? colon + 1 : argv[i]);
		a.nports++;
	}
	a.ports = ports;
	if (nth < 1 || nth > 16)
		return 2;
	for (i = 0; i < nth; i++)
		pthread_create(&th[i], NULL, server_thread, &a);
	pthread_join(th[0], NULL);
	return 0;
}

/* ---- closed-loop client ---- */

struct cconn {
	int fd;
	SSL *ssl;
	int sent;
	size_t got;
};

struct cli_arg {
	enum mode mode;
	int port, conns;
	uint64_t end;
	SSL_CTX *ctx;
	uint64_t done, errors;
};

static int cconn_open(struct cli_arg *a, int ep, struct cconn *c)
{
	struct epoll_event ev;

	memset(c, 0, sizeof(*c));
	c->fd = dial(a->port);
	if (c->fd == -1)
		return -1;
	if (a->mode == M_TLS) {
		c->ssl = SSL_new(a->ctx);
		SSL_set_fd(c->ssl, c->fd);
		SSL_set_connect_state(c->ssl);
	}
	ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
	ev.data.ptr = c;
	epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
	return 0;
}

static void cconn_close(struct cconn *c)
{
	if (c->ssl)
		SSL_free(c->ssl);
	c->ssl = NULL;
	close(c->fd);
	c->fd = -1;
}

/* 1 done, 0 wait, -1 failed */
static int step_plain(struct cli_arg *a, struct cconn *c)
{
	char buf[4096];
	ssize_t k;

	if (a->mode == M_REQ && !c->sent) {
		k = send(c->fd, request, sizeof(request) - 1, MSG_NOSIGNAL);
		if (k == -1)
			return errno == EAGAIN || errno == ENOTCONN ? 0 : -1;
		c->sent = 1;
	}
	for (;;) {
		k = recv(c->fd, buf, sizeof(buf), 0);
		if (k > 0) {
			c->got += (size_t)k;
			if (a->mode == M_REQ && c->got >= sizeof(response) - 1)
				return 1; /* the client closes */
			continue;
		}
		if (k == 0)
			return a->mode == M_BANNER && c->got > 0 ? 1 : -1;
		return errno == EAGAIN || errno == ENOTCONN ? 0 : -1;
	}
}

static int step_tls(struct cconn *c)
{
	char buf[4096];
	int r;

	if (!SSL_is_init_finished(c->ssl)) {
		r = SSL_do_handshake(c->ssl);
		if (r != 1) {
			r = SSL_get_error(c->ssl, r);
			return r == SSL_ERROR_WANT_READ || r == SSL_ERROR_WANT_WRITE ? 0 : -1;
		}
	}
	if (!c->sent) {
		r = SSL_write(c->ssl, request, sizeof(request) - 1);
		if (r <= 0) {
			r = SSL_get_error(c->ssl, r);
			return r == SSL_ERROR_WANT_READ || r == SSL_ERROR_WANT_WRITE ? 0 : -1;
		}
		c->sent = 1;
	}
	for (;;) {
		r = SSL_read(c->ssl, buf, sizeof(buf));
		if (r > 0) {
			c->got += (size_t)r;
			continue;
		}
		r = SSL_get_error(c->ssl, r);
		if (r == SSL_ERROR_WANT_READ || r == SSL_ERROR_WANT_WRITE)
			return 0;
		/* the server's close ends the response */
		ERR_clear_error();
		return c->got > 0 ? 1 : -1;
	}
}

static void *client_thread(void *p)
{
	struct cli_arg *a = p;
	struct cconn *cs = calloc((size_t)a->conns, sizeof(*cs));
	struct epoll_event evs[256];
	int ep = epoll_create1(EPOLL_CLOEXEC), i, n, live = 0;

	for (i = 0; i < a->conns; i++)
		if (cconn_open(a, ep, &cs[i]) == 0)
			live++;
		else
			a->errors++;
	while (live > 0) {
		uint64_t now = now_ns();

		n = epoll_wait(ep, evs, 256, 100);
		for (i = 0; i < n; i++) {
			struct cconn *c = evs[i].data.ptr;
			int r = a->mode == M_TLS ? step_tls(c) : step_plain(a, c);

			if (r == 0)
				continue;
			if (r > 0)
				a->done++;
			else
				a->errors++;
			cconn_close(c);
			if (now >= a->end || cconn_open(a, ep, c) < 0) {
				if (now < a->end)
					a->errors++;
				live--;
			}
		}
		if (now > a->end + 5000000000ULL)
			break; /* a stuck connection does not hold the run */
	}
	for (i = 0; i < a->conns; i++)
		if (cs[i].fd >= 0 && (cs[i].ssl || cs[i].fd > 0))
			cconn_close(&cs[i]);
	free(cs);
	close(ep);
	return NULL;
}

static int cmd_client(int argc, char **argv)
{
	struct cli_arg a[16];
	pthread_t th[16];
	uint64_t t0, done = 0, errors = 0;
	double secs;
	SSL_CTX *ctx = NULL;
	int i, nth, conns;

	if (argc != 6)
		return 2;
	nth = atoi(argv[5]);
	conns = atoi(argv[3]);
	secs = atof(argv[4]);
	if (nth < 1 || nth > 16 || conns < nth)
		return 2;
	if (parse_mode(argv[1]) == M_TLS) {
		ctx = SSL_CTX_new(TLS_client_method());
		SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
		/* every connection a full handshake */
		SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
	}
	t0 = now_ns();
	for (i = 0; i < nth; i++) {
		memset(&a[i], 0, sizeof(a[i]));
		a[i].mode = parse_mode(argv[1]);
		a[i].port = atoi(argv[2]);
		a[i].conns = conns / nth + (i < conns % nth);
		a[i].end = t0 + (uint64_t)(secs * 1e9);
		a[i].ctx = ctx;
		pthread_create(&th[i], NULL, client_thread, &a[i]);
	}
	for (i = 0; i < nth; i++) {
		pthread_join(th[i], NULL);
		done += a[i].done;
		errors += a[i].errors;
	}
	printf("{\"conns\": %llu, \"rate\": %.1f, \"errors\": %llu}\n", (unsigned long long)done,
		(double)done / secs, (unsigned long long)errors);
	SSL_CTX_free(ctx);
	return 0;
}

/* ---- reconnect storm ---- */

enum wstate { W_CONNECTING, W_HELD, W_RECONNECTING, W_DONE };

struct wconn {
	int fd;
	enum wstate st;
	char sid[32];
	size_t len;
	uint64_t t_dial;
};

struct probe {
	int port;
	double rate;
	_Atomic uint64_t t0;
	atomic_bool stop;
	uint64_t *lat;
	size_t nlat, cap, errors;
};

static void *probe_thread(void *p)
{
	struct probe *pr = p;
	struct epoll_event ev, evs[256];
	int ep = epoll_create1(EPOLL_CLOEXEC), i, n, inflight = 0;
	uint64_t next, interval = (uint64_t)(1e9 / pr->rate);
	char buf[256];

	while (!atomic_load(&pr->t0))
		usleep(1000);
	next = atomic_load(&pr->t0);
	while (!atomic_load(&pr->stop) || inflight > 0) {
		uint64_t now = now_ns();

		while (!atomic_load(&pr->stop) && now >= next) {
			int fd = dial(pr->port);
			uint64_t *start = malloc(sizeof(*start) * 2);

			next += interval;
			if (fd == -1 || !start) {
				pr->errors++;
				free(start);
				continue;
			}
			start[0] = next - interval; /* open loop: from the schedule */
			start[1] = (uint64_t)fd;
			ev.events = EPOLLIN | EPOLLRDHUP;
			ev.data.ptr = start;
			epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
			inflight++;
		}
		n = epoll_wait(ep, evs, 256, 1);
		for (i = 0; i < n; i++) {
			uint64_t *start = evs[i].data.ptr;
			int fd = (int)start[1];
			ssize_t k = recv(fd, buf, sizeof(buf), 0);

			if (k == -1 && errno == EAGAIN)
				continue;
			if (k > 0 && pr->nlat < pr->cap)
				pr->lat[pr->nlat++] = now_ns() - start[0];
			else
				pr->errors++;
			close(fd);
			free(start);
			inflight--;
		}
		if (now > atomic_load(&pr->t0) + STORM_LIMIT)
			break;
	}
	close(ep);
	return NULL;
}

static int wconn_dial(int ep, int port, struct wconn *c, enum wstate st)
{
	struct epoll_event ev;

	c->fd = dial(port);
	c->st = st;
	c->len = 0;
	c->t_dial = now_ns();
	if (c->fd == -1)
		return -1;
	ev.events = EPOLLIN | EPOLLRDHUP;
	ev.data.ptr = c;
	epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
	return 0;
}

static int cmd_storm(int argc, char **argv)
{
	struct epoll_event evs[256];
	struct probe pr = { 0 };
	struct wconn *cs;
	uint64_t t0 = 0, first_cut = 0, last_cut = 0, last_done = 0, *rlat;
	size_t nconns, i, held = 0, opened = 0, cut = 0, done = 0, nrlat = 0, wrong = 0;
	size_t errors = 0, connecting = 0, expect = 0;
	char down[32] = "", line[128], ids[8][32];
	size_t idn[8] = { 0 }, nids = 0, j;
	pthread_t th;
	int ep, port, n, k;

	if (argc != 4)
		return 2;
	port = atoi(argv[1]);
	nconns = (size_t)atoi(argv[2]);
	pr.port = port;
	pr.rate = atof(argv[3]);
	pr.cap = (size_t)(pr.rate * 70) + 16;
	pr.lat = calloc(pr.cap, sizeof(*pr.lat));
	cs = calloc(nconns, sizeof(*cs));
	rlat = calloc(nconns, sizeof(*rlat));
	ep = epoll_create1(EPOLL_CLOEXEC);
	pthread_create(&th, NULL, probe_thread, &pr);
	/* phase 1: every connection held, at most 256 connecting at a time */
	while (held < nconns) {
		while (opened < nconns && connecting < 256) {
			if (wconn_dial(ep, port, &cs[opened], W_CONNECTING) < 0) {
				fprintf(stderr, "storm: connect: %m\n");
				return 1;
			}
			opened++;
			connecting++;
		}
		n = epoll_wait(ep, evs, 256, 1000);
		for (k = 0; k < n; k++) {
			struct wconn *c = evs[k].data.ptr;
			ssize_t r = recv(c->fd, c->sid + c->len, sizeof(c->sid) - 1 - c->len, 0);

			if (r <= 0) {
				fprintf(stderr, "storm: a connection ended while opening\n");
				return 1;
			}
			c->len += (size_t)r;
			if (!memchr(c->sid, '\n', c->len))
				continue;
			*strchr(c->sid, '\n') = '\0';
			c->st = W_HELD;
			connecting--;
			held++;
		}
	}
	for (i = 0; i < nconns; i++) {
		for (j = 0; j < nids && strcmp(ids[j], cs[i].sid) != 0; j++)
			;
		if (j == nids && nids < 8)
			snprintf(ids[nids++], sizeof(ids[0]), "%s", cs[i].sid);
		if (j < 8)
			idn[j]++;
	}
	printf("ready %zu", held);
	for (j = 0; j < nids; j++)
		printf(" %s=%zu", ids[j], idn[j]);
	printf("\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin) ||
		sscanf(line, "%llu %31s", (unsigned long long *)&t0, down) != 2)
		return 1;
	for (i = 0; i < nconns; i++)
		if (strcmp(cs[i].sid, down) == 0)
			expect++;
	atomic_store(&pr.t0, t0);
	/* phase 2: the storm */
	while (done < expect && now_ns() < t0 + STORM_LIMIT) {
		n = epoll_wait(ep, evs, 256, 100);
		for (k = 0; k < n; k++) {
			struct wconn *c = evs[k].data.ptr;
			char buf[64];
			ssize_t r = recv(c->fd, buf, sizeof(buf) - 1, 0);
			uint64_t now = now_ns();

			if (r == -1 && errno == EAGAIN)
				continue;
			if (r > 0 && c->st == W_RECONNECTING) {
				buf[r] = '\0';
				if (strncmp(buf, down, strlen(down)) == 0 &&
					buf[strlen(down)] == '\n')
					wrong++;
				rlat[nrlat++] = now - c->t_dial;
				c->st = W_DONE;
				done++;
				last_done = now;
				continue;
			}
			if (r > 0)
				continue;
			/* the proxy closed it (or refused a reconnect): dial again */
			if (c->st == W_HELD) {
				cut++;
				if (!first_cut)
					first_cut = now;
				last_cut = now;
			} else {
				errors++;
			}
			close(c->fd);
			while (wconn_dial(ep, port, c, W_RECONNECTING) < 0) {
				errors++;
				usleep(1000);
			}
		}
	}
	if (done < expect || now_ns() - t0 < 200000000ULL)
		usleep(200000); /* the probe gets at least 200 ms */
	atomic_store(&pr.stop, true);
	pthread_join(th, NULL);
	qsort(rlat, nrlat, sizeof(*rlat), cmp_u64);
	qsort(pr.lat, pr.nlat, sizeof(*pr.lat), cmp_u64);
	printf("{\"conns\": %zu, \"on_down\": %zu, \"cut\": %zu, \"reconnected\": %zu, "
	       "\"wrong_server\": %zu, \"reconnect_errors\": %zu, "
	       "\"first_cut_ms\": %.1f, \"last_cut_ms\": %.1f, \"all_reconnected_ms\": %.1f, "
	       "\"reconnect_p50_ms\": %.2f, \"reconnect_p99_ms\": %.2f, "
	       "\"probe_n\": %zu, \"probe_errors\": %zu, \"probe_p50_ms\": %.2f, "
	       "\"probe_p99_ms\": %.2f, \"probe_max_ms\": %.2f}\n",
		nconns, expect, cut, done, wrong, errors,
		first_cut ? (double)(first_cut - t0) / 1e6 : -1.0,
		last_cut ? (double)(last_cut - t0) / 1e6 : -1.0,
		done == expect && last_done ? (double)(last_done - t0) / 1e6 : -1.0,
		pct_ms(rlat, nrlat, 0.5), pct_ms(rlat, nrlat, 0.99), pr.nlat, pr.errors,
		pct_ms(pr.lat, pr.nlat, 0.5), pct_ms(pr.lat, pr.nlat, 0.99),
		pr.nlat ? (double)pr.lat[pr.nlat - 1] / 1e6 : 0.0);
	for (i = 0; i < nconns; i++)
		close(cs[i].fd);
	free(cs);
	free(rlat);
	free(pr.lat);
	return 0;
}

int main(int argc, char **argv)
{
	raise_nofile();
	if (argc >= 2 && strcmp(argv[1], "server") == 0)
		return cmd_server(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "client") == 0)
		return cmd_client(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "storm") == 0)
		return cmd_storm(argc - 1, argv + 1);
	fprintf(stderr,
		"usage: %s server req|banner|watch THREADS PORT[:ID]...\n"
		"       %s client req|banner|tls PORT CONNS SECONDS THREADS\n"
		"       %s storm PORT CONNS PROBE_RATE\n",
		argv[0], argv[0], argv[0]);
	return 2;
}
