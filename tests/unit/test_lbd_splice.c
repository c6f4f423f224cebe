/* splice_pump's copy path on real loopback TCP sockets: what a server sends
 * before its FIN reaches the client with the FIN, in one segment, and what
 * it sends before a reset still reaches the client. */
#include <errno.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cmocka.h>

#include "proxy-types.h"
#include "splice.h"

/* p[0] connected to p[1] (accepted), both on 127.0.0.1, p[1] non-blocking */
static void tcp_pair(int p[2])
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	int l, one = 1;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(l >= 0);
	assert_int_equal(bind(l, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(listen(l, 1), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&sin, &len), 0);
	p[0] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_int_equal(connect(p[0], (struct sockaddr *)&sin, sizeof(sin)), 0);
	p[1] = accept4(l, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	assert_true(p[1] >= 0);
	/* lbd's sockets have TCP_NODELAY (from the listener, or set) */
	setsockopt(p[1], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	close(l);
}

static unsigned segs_in(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	assert_int_equal(getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len), 0);
	return ti.tcpi_segs_in;
}

/* wait until the kernel has the peer's FIN or reset on fd */
static void wait_rdhup(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLRDHUP };

	assert_int_equal(poll(&p, 1, 2000), 1);
	assert_true(p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

static ssize_t recv_wait(int fd, char *buf, size_t len, long usec)
{
	struct timeval tv = { .tv_sec = usec / 1000000, .tv_usec = usec % 1000000 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return recv(fd, buf, len, 0);
}

struct fixture {
	struct lbd_worker w;
	int server[2]; /* [0] the server, [1] lbd's server side */
	int client[2]; /* [0] the client, [1] lbd's client side */
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	fx->w.scratch = malloc(LBD_COPY_BUF);
	tcp_pair(fx->server);
	tcp_pair(fx->client);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	int i;

	for (i = 0; i < 2; i++) {
		if (fx->server[i] >= 0)
			close(fx->server[i]);
		close(fx->client[i]);
	}
	free(fx->w.scratch);
	free(fx);
	return 0;
}

/* A server that speaks first and closes: its bytes and the FIN leave lbd
 * in one segment, and the client reads them and then the end. */
static void test_fin_rides_with_the_data(void **state)
{
	struct fixture *fx = *state;
	struct lbd_flow f = { .src_ready = true, .src_rdhup = true };
	char buf[64];
	size_t moved;
	unsigned before;

	assert_int_equal(send(fx->server[0], "hello\n", 6, 0), 6);
	shutdown(fx->server[0], SHUT_WR);
	wait_rdhup(fx->server[1]);
	before = segs_in(fx->client[0]);
	assert_int_equal(
		splice_pump(&fx->w, &f, fx->server[1], fx->client[1], false, &moved), LBD_PUMP_OK);
	assert_int_equal(moved, 6);
	assert_true(f.src_eof);
	assert_true(f.dst_shut);
	assert_int_equal(recv_wait(fx->client[0], buf, sizeof(buf), 1000000), 6);
	assert_memory_equal(buf, "hello\n", 6);
	assert_int_equal(recv_wait(fx->client[0], buf, sizeof(buf), 1000000), 0);
	assert_int_equal(segs_in(fx->client[0]) - before, 1);
	splice_flow_release(&fx->w, &f);
}

/* Bytes followed by a reset: the read after them fails, and the bytes
 * held for a FIN that did not come are on their way to the client. */
static void test_held_bytes_go_before_a_reset(void **state)
{
	struct fixture *fx = *state;
	struct lbd_flow f = { .src_ready = true, .src_rdhup = true };
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	char buf[64];
	size_t moved;

	assert_int_equal(send(fx->server[0], "abc", 3, 0), 3);
	setsockopt(fx->server[0], SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(fx->server[0]);
	fx->server[0] = -1;
	wait_rdhup(fx->server[1]);
	assert_int_equal(splice_pump(&fx->w, &f, fx->server[1], fx->client[1], false, &moved),
		LBD_PUMP_SRC_ERR);
	assert_int_equal(moved, 3);
	assert_false(f.dst_shut);
	/* at once: bytes held by MSG_MORE would leave only after about
	 * 200 ms, and the caller's reset right after would drop them */
	assert_int_equal(recv_wait(fx->client[0], buf, sizeof(buf), 50000), 3);
	assert_memory_equal(buf, "abc", 3);
	splice_flow_release(&fx->w, &f);
}

/* No FIN seen: bytes go out at once, nothing is held. */
static void test_no_fin_no_hold(void **state)
{
	struct fixture *fx = *state;
	struct lbd_flow f = { .src_ready = true };
	char buf[64];
	size_t moved;

	assert_int_equal(send(fx->server[0], "xyz", 3, 0), 3);
	usleep(20000);
	assert_int_equal(
		splice_pump(&fx->w, &f, fx->server[1], fx->client[1], false, &moved), LBD_PUMP_OK);
	assert_int_equal(moved, 3);
	assert_false(f.src_ready);
	assert_false(f.dst_shut);
	assert_int_equal(recv_wait(fx->client[0], buf, sizeof(buf), 1000000), 3);
	assert_memory_equal(buf, "xyz", 3);
	splice_flow_release(&fx->w, &f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fin_rides_with_the_data, setup, teardown),
		cmocka_unit_test_setup_teardown(test_held_bytes_go_before_a_reset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_fin_no_hold, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
