#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "proxyproto.h"

static struct sockaddr_storage v4(const char *ip, uint16_t port)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *s = (struct sockaddr_in *)&ss;

	s->sin_family = AF_INET;
	s->sin_port = htons(port);
	inet_pton(AF_INET, ip, &s->sin_addr);
	return ss;
}

static struct sockaddr_storage v6(const char *ip, uint16_t port)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in6 *s = (struct sockaddr_in6 *)&ss;

	s->sin6_family = AF_INET6;
	s->sin6_port = htons(port);
	inet_pton(AF_INET6, ip, &s->sin6_addr);
	return ss;
}

static void test_v1(void **state)
{
	struct sockaddr_storage a = v4("198.18.0.5", 40000), b = v4("198.18.0.2", 6443);
	struct sockaddr_storage c = v6("2001:db8::5", 40000), d = v6("2001:db8::2", 6443);
	char buf[128];
	int n;

	(void)state;
	n = proxyproto_build(1, &a, &b, buf, sizeof(buf));
	assert_int_equal(n, (int)strlen("PROXY TCP4 198.18.0.5 198.18.0.2 40000 6443\r\n"));
	assert_memory_equal(buf, "PROXY TCP4 198.18.0.5 198.18.0.2 40000 6443\r\n", (size_t)n);
	n = proxyproto_build(1, &c, &d, buf, sizeof(buf));
	buf[n] = '\0';
	assert_string_equal(buf, "PROXY TCP6 2001:db8::5 2001:db8::2 40000 6443\r\n");
	assert_int_equal(proxyproto_build(1, &a, &d, buf, sizeof(buf)), -1); /* mixed families */
	assert_int_equal(proxyproto_build(1, &a, &b, buf, 10), -1);
}

static void test_v2(void **state)
{
	static const unsigned char want4[28] = { 0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51,
		0x55, 0x49, 0x54, 0x0a, 0x21, 0x11, 0x00, 0x0c, 198, 18, 0, 5, 198, 18, 0, 2, 0x9c,
		0x40, 0x19, 0x2b };
	struct sockaddr_storage a = v4("198.18.0.5", 40000), b = v4("198.18.0.2", 6443);
	struct sockaddr_storage c = v6("2001:db8::5", 40000), d = v6("2001:db8::2", 6443);
	unsigned char buf[64];

	(void)state;
	assert_int_equal(proxyproto_build(2, &a, &b, (char *)buf, sizeof(buf)), 28);
	assert_memory_equal(buf, want4, 28);
	assert_int_equal(proxyproto_build(2, &c, &d, (char *)buf, sizeof(buf)), 52);
	assert_int_equal(buf[13], 0x21); /* TCP over IPv6 */
	assert_int_equal(buf[15], 36);
	assert_int_equal(buf[16], 0x20); /* 2001:... */
	assert_int_equal(buf[48] << 8 | buf[49], 40000);
	assert_int_equal(buf[50] << 8 | buf[51], 6443);
	assert_int_equal(proxyproto_build(2, &c, &d, (char *)buf, 40), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v1),
		cmocka_unit_test(test_v2),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
