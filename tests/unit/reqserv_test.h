/* Shared by test_admin.c and test_metrics.c: a flood of idle and
 * byte-at-a-time clients against a reqserv-based listener (the admin
 * socket or the metrics port), reconnecting as soon as they are dropped.
 * Include after <cmocka.h>, <systemd/sd-event.h> and "duration.h". */
#ifndef REQSERV_TEST_H
#define REQSERV_TEST_H

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define NIDLE   300 /* clients that connect and say nothing */
#define NSLOW   60  /* clients that send a byte every SLOW_MS, never a whole request */
#define SLOW_MS 100

static __attribute__((unused)) int connect_unix(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	strcpy(sun.sun_path, path);
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1 && errno != EAGAIN) {
		close(fd);
		return -1;
	}
	return fd;
}

static __attribute__((unused)) int connect_tcp(uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 && errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The server closed fd (EOF or reset). */
static __attribute__((unused)) int closed(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLRDHUP };
	char c;

	return poll(&p, 1, 0) == 1 &&
	       (p.revents & (POLLHUP | POLLERR | POLLRDHUP) || recv(fd, &c, 1, MSG_DONTWAIT) <= 0);
}

struct flood {
	const char *path; /* the unix socket to flood, or NULL for port */
	uint16_t port;    /* the loopback TCP port, when path is NULL */
	char byte;        /* what the slow clients send */
	int fds[NIDLE + NSLOW];
	int reconnects;
	uint64_t next_byte;
};

static __attribute__((unused)) int flood_connect(const struct flood *f)
{
	return f->path ? connect_unix(f->path) : connect_tcp(f->port);
}

/* Connect all the clients, letting the server accept as they come. */
static __attribute__((unused)) void flood_start(sd_event *e, struct flood *f)
{
	int i;

	f->reconnects = 0;
	f->next_byte = 0;
	for (i = 0; i < NIDLE + NSLOW; i++) {
		f->fds[i] = flood_connect(f);
		if (i % 16 == 0)
			sd_event_run(e, 0); /* the backlog is finite: let the server accept */
	}
}

/* A second of flood: the slow ones trickle, the dropped come back. */
static __attribute__((unused)) void flood_second(sd_event *e, struct flood *f)
{
	uint64_t t0, now;
	int i;

	t0 = cpha_now_usec(CLOCK_MONOTONIC);
	while ((now = cpha_now_usec(CLOCK_MONOTONIC)) < t0 + 1000000) {
		assert_true(sd_event_run(e, 10000) >= 0);
		for (i = 0; i < NIDLE + NSLOW; i++) {
			if (f->fds[i] >= 0 && !closed(f->fds[i]))
				continue;
			if (f->fds[i] >= 0)
				close(f->fds[i]);
			f->fds[i] = flood_connect(f);
			f->reconnects++;
		}
		if (now >= f->next_byte) {
			for (i = NIDLE; i < NIDLE + NSLOW; i++)
				if (f->fds[i] >= 0)
					(void)send(f->fds[i], &f->byte, 1, MSG_NOSIGNAL);
			f->next_byte = now + SLOW_MS * 1000;
		}
	}
}

static __attribute__((unused)) void flood_stop(struct flood *f)
{
	int i;

	for (i = 0; i < NIDLE + NSLOW; i++)
		if (f->fds[i] >= 0)
			close(f->fds[i]);
}

#endif
