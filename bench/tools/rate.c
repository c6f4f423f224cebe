/* cpha-bench-rate: open-loop load at a fixed rate, for latency percentiles.
 * Every 1/rate seconds it opens a new TCP connection to HOST:PORT, sends an
 * HTTP/1.0 request and reads the response to the end; the latency of each
 * is from the scheduled start to the last byte. Prints JSON.
 *   cpha-bench-rate HOST PORT RATE SECONDS */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_INFLIGHT 65536

struct req {
	int fd;
	uint64_t start;
	int sent;
};

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

static uint64_t pct(const uint64_t *v, size_t n, double p)
{
	size_t i;

	if (n == 0)
		return 0;
	i = (size_t)(p * (double)(n - 1) + 0.5);
	return v[i];
}

int main(int argc, char **argv)
{
	static const char request[] = "GET / HTTP/1.0\r\n\r\n";
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct epoll_event ev, evs[256];
	struct rlimit rl = { 1 << 20, 1 << 20 };
	uint64_t t0, next, end, interval, *lat;
	size_t nlat = 0, cap, errors = 0, launched = 0, inflight = 0;
	double rate, seconds;
	char buf[16384];
	int ep, i, n;

	if (argc != 5) {
		fprintf(stderr, "usage: %s HOST PORT RATE SECONDS\n", argv[0]);
		return 2;
	}
	setrlimit(RLIMIT_NOFILE, &rl);
	inet_pton(AF_INET, argv[1], &sin.sin_addr);
	sin.sin_port = htons((uint16_t)atoi(argv[2]));
	rate = atof(argv[3]);
	seconds = atof(argv[4]);
	cap = (size_t)(rate * seconds) + 16;
	lat = calloc(cap, sizeof(*lat));
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (!lat || ep < 0 || rate <= 0)
		return 1;
	interval = (uint64_t)(1e9 / rate);
	t0 = now_ns();
	next = t0;
	end = t0 + (uint64_t)(seconds * 1e9);
	while (now_ns() < end + 2000000000ULL && (now_ns() < end || inflight > 0)) {
		uint64_t now = now_ns();
		int timeout;

		while (now >= next && next < end && inflight < MAX_INFLIGHT) {
			struct req *r = calloc(1, sizeof(*r));
			int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
			int one = 1;

			r->fd = fd;
			r->start = next; /* open loop: latency counts from the schedule */
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 &&
				errno != EINPROGRESS) {
				errors++;
				close(fd);
				free(r);
			} else {
				ev.events = EPOLLOUT | EPOLLIN;
				ev.data.ptr = r;
				epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
				inflight++;
			}
			launched++;
			next += interval;
		}
		timeout = next > now ? (int)((next - now) / 1000000) : 0;
		n = epoll_wait(ep, evs, 256, timeout);
		for (i = 0; i < n; i++) {
			struct req *r = evs[i].data.ptr;
			ssize_t k;
			int done = 0;

			if (!r->sent && (evs[i].events & EPOLLOUT)) {
				if (send(r->fd, request, sizeof(request) - 1, MSG_NOSIGNAL) < 0)
					done = -1;
				r->sent = 1;
				ev.events = EPOLLIN;
				ev.data.ptr = r;
				epoll_ctl(ep, EPOLL_CTL_MOD, r->fd, &ev);
			}
			if (!done && (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))) {
				for (;;) {
					k = recv(r->fd, buf, sizeof(buf), 0);
					if (k > 0)
						continue;
					if (k == 0)
						done = 1;
					else if (errno != EAGAIN)
						done = -1;
					break;
				}
			}
			if (done) {
				if (done > 0 && nlat < cap)
					lat[nlat++] = now_ns() - r->start;
				else
					errors++;
				close(r->fd);
				free(r);
				inflight--;
			}
		}
	}
	qsort(lat, nlat, sizeof(*lat), cmp_u64);
	printf("{\"rate\": %.0f, \"launched\": %zu, \"completed\": %zu, \"errors\": %zu, "
	       "\"p50_us\": %.1f, \"p90_us\": %.1f, \"p99_us\": %.1f, \"max_us\": %.1f}\n",
		rate, launched, nlat, errors + inflight, pct(lat, nlat, 0.50) / 1e3,
		pct(lat, nlat, 0.90) / 1e3, pct(lat, nlat, 0.99) / 1e3,
		nlat ? lat[nlat - 1] / 1e3 : 0.0);
	free(lat);
	return 0;
}
