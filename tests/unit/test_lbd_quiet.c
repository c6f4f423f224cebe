/* lbd's quiet addresses (quiet.c): the set, and the socket filter run by
 * the kernel on a real listening socket on loopback: a connection to a
 * quiet address gets no answer (its SYN is dropped, not refused), one to
 * another address of the same socket is accepted, and the filter comes
 * off again. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "quiet.h"

static struct cpha_addr addr(const char *s)
{
	struct cpha_addr a;
	const char *why;

	assert_int_equal(cpha_parse_addr(s, CPHA_ADDR_PORT_NONE, &a, &why), 0);
	return a;
}

static void test_set(void **state)
{
	struct lbd_quiet q = { 0 };
	struct cpha_addr a = addr("198.18.0.2"), b = addr("2001:db8::2");

	(void)state;
	assert_int_equal(quiet_next_end(&q), UINT64_MAX);
	assert_int_equal(quiet_add(&q, &a, 100), 0);
	assert_int_equal(quiet_add(&q, &b, 50), 0);
	assert_int_equal(q.n, 2);
	assert_int_equal(quiet_next_end(&q), 50);
	/* again: a new end, not a second entry */
	assert_int_equal(quiet_add(&q, &b, 300), 0);
	assert_int_equal(q.n, 2);
	assert_int_equal(quiet_next_end(&q), 100);
	assert_false(quiet_expire(&q, 99));
	assert_true(quiet_expire(&q, 100));
	assert_int_equal(q.n, 1);
	assert_true(quiet_remove(&q, &b));
	assert_false(quiet_remove(&q, &b));
	assert_int_equal(q.n, 0);
	for (int i = 0; i < LBD_QUIET_MAX; i++) {
		char s[32];
		struct cpha_addr x;

		snprintf(s, sizeof(s), "198.18.1.%d", i + 1);
		x = addr(s);
		assert_int_equal(quiet_add(&q, &x, 10), 0);
	}
	assert_int_equal(quiet_add(&q, &a, 10), -ENOSPC);
}

static void test_program_shape(void **state)
{
	struct lbd_quiet q = { 0 };
	struct sock_filter p[LBD_QUIET_PROG_MAX];
	struct cpha_addr a;

	(void)state;
	assert_int_equal(quiet_program(&q, p), 0);
	for (int i = 0; i < LBD_QUIET_MAX / 2; i++) {
		char s[32];

		snprintf(s, sizeof(s), "198.18.1.%d", i + 1);
		a = addr(s);
		quiet_add(&q, &a, 10);
		snprintf(s, sizeof(s), "2001:db8::%d", i + 1);
		a = addr(s);
		quiet_add(&q, &a, 10);
	}
	size_t n = quiet_program(&q, p);
	assert_true(n > 0 && n <= LBD_QUIET_PROG_MAX);
	/* ends with accept, then drop */
	assert_int_equal(p[n - 2].k, 0xffffffffu);
	assert_int_equal(p[n - 1].k, 0);
	/* every jump lands inside the program */
	for (size_t i = 0; i < n; i++)
		if (BPF_CLASS(p[i].code) == BPF_JMP) {
			assert_true(i + 1 + p[i].jt < n);
			assert_true(i + 1 + p[i].jf < n);
		}
}

/* A listening socket on the wildcard address of family fam, port out. */
static int listener(int fam, uint16_t *port)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t len = fam == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	int fd = socket(fam, SOCK_STREAM | SOCK_NONBLOCK, 0), zero = 0;

	assert_true(fd >= 0);
	ss.ss_family = (sa_family_t)fam;
	if (fam == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	assert_int_equal(bind(fd, (struct sockaddr *)&ss, len), 0);
	assert_int_equal(listen(fd, 16), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&ss, &len), 0);
	*port = ntohs(fam == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
				     : ((struct sockaddr_in6 *)&ss)->sin6_port);
	return fd;
}

/* Whether a connection to ip:port is answered within ms (the handshake
 * done: the kernel answers for the listener, no accept needed). */
static bool answered(const char *ip, uint16_t port, int ms)
{
	struct cpha_addr a = addr(ip);
	struct pollfd p;
	int fd, err = 0, r;
	socklen_t l = sizeof(err);

	cpha_addr_set_port(&a, port);
	fd = socket(a.ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK, 0);
	assert_true(fd >= 0);
	r = connect(fd, (struct sockaddr *)&a.ss, a.len);
	assert_true(r == 0 || errno == EINPROGRESS);
	p = (struct pollfd){ fd, POLLOUT, 0 };
	r = poll(&p, 1, ms);
	if (r == 1)
		getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &l);
	close(fd);
	return r == 1 && err == 0;
}

static void test_filter_on_a_socket(void **state)
{
	struct lbd_quiet q = { 0 };
	struct lbd_quiet_prog *p;
	struct cpha_addr a = addr("127.0.0.2");
	uint16_t port;
	int fd = listener(AF_INET, &port);

	(void)state;
	assert_true(answered("127.0.0.2", port, 2000));
	quiet_add(&q, &a, 10);
	p = quiet_prog_new(&q);
	assert_non_null(p);
	assert_int_equal(quiet_apply(fd, p), 0);
	/* dropped: no answer, not a reset (the client would retry its SYN) */
	assert_false(answered("127.0.0.2", port, 300));
	assert_true(answered("127.0.0.1", port, 2000));
	/* this is not a one-off: the tenth connection is dropped too */
	for (int i = 0; i < 10; i++)
		assert_true(answered("127.0.0.3", port, 2000));
	assert_false(answered("127.0.0.2", port, 100));
	quiet_prog_unref(p);
	/* off again */
	assert_int_equal(quiet_apply(fd, NULL), 0);
	assert_true(answered("127.0.0.2", port, 2000));
	/* detaching twice is no error */
	assert_int_equal(quiet_apply(fd, NULL), 0);
	close(fd);
}

static void test_filter_dual_stack(void **state)
{
	struct lbd_quiet q = { 0 };
	struct lbd_quiet_prog *p;
	struct cpha_addr a = addr("::1"), b = addr("127.0.0.5");
	uint16_t port;
	int fd = socket(AF_INET6, SOCK_STREAM, 0);

	(void)state;
	if (fd < 0) {
		print_message("skipped: no IPv6 here\n");
		skip();
	}
	close(fd);
	fd = listener(AF_INET6, &port);
	quiet_add(&q, &a, 10);
	quiet_add(&q, &b, 10);
	p = quiet_prog_new(&q);
	assert_int_equal(quiet_apply(fd, p), 0);
	assert_false(answered("::1", port, 300));
	/* IPv4 on the dual-stack socket, matched by its IPv4 address */
	assert_false(answered("127.0.0.5", port, 300));
	assert_true(answered("127.0.0.1", port, 2000));
	quiet_remove(&q, &a);
	quiet_prog_unref(p);
	p = quiet_prog_new(&q);
	assert_int_equal(quiet_apply(fd, p), 0);
	assert_true(answered("::1", port, 2000));
	assert_false(answered("127.0.0.5", port, 300));
	quiet_prog_unref(p);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set),
		cmocka_unit_test(test_program_shape),
		cmocka_unit_test(test_filter_on_a_socket),
		cmocka_unit_test(test_filter_dual_stack),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
