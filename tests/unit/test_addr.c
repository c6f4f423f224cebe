#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "addr.h"

/* Parse and format back; "ERR" when the parse fails. */
static const char *fmt(const char *s, unsigned flags)
{
	static char buf[CPHA_ADDR_STRLEN];
	struct cpha_addr a;
	const char *why = NULL;

	if (cpha_parse_addr(s, flags, &a, &why) < 0) {
		assert_non_null(why);
		return "ERR";
	}
	return cpha_addr_format(&a, buf, sizeof(buf));
}

static void test_ipv4(void **state)
{
	(void)state;
	assert_string_equal(fmt("198.18.0.1", CPHA_ADDR_PORT_OPTIONAL), "198.18.0.1");
	assert_string_equal(fmt("198.18.0.1:6443", CPHA_ADDR_PORT_OPTIONAL), "198.18.0.1:6443");
	assert_string_equal(fmt("198.18.0.1:6443", CPHA_ADDR_PORT_REQUIRED), "198.18.0.1:6443");
	assert_string_equal(fmt("198.18.0.1", CPHA_ADDR_PORT_REQUIRED), "ERR");
	assert_string_equal(fmt("198.18.0.1", CPHA_ADDR_PORT_NONE), "198.18.0.1");
	assert_string_equal(fmt("198.18.0.1:80", CPHA_ADDR_PORT_NONE), "ERR");
	assert_string_equal(fmt("198.18.0.256", CPHA_ADDR_PORT_OPTIONAL), "ERR");
	assert_string_equal(fmt("kubem00:6443", CPHA_ADDR_PORT_OPTIONAL), "ERR");
	assert_string_equal(fmt("198.18.0.1:0", CPHA_ADDR_PORT_OPTIONAL), "ERR");
	assert_string_equal(fmt("198.18.0.1:65536", CPHA_ADDR_PORT_OPTIONAL), "ERR");
	assert_string_equal(fmt("198.18.0.1:", CPHA_ADDR_PORT_OPTIONAL), "ERR");
	assert_string_equal(fmt("198.18.0.1:80x", CPHA_ADDR_PORT_OPTIONAL), "ERR");
}

static void test_wildcards(void **state)
{
	struct cpha_addr a;
	const char *why;

	(void)state;
	assert_int_equal(cpha_parse_addr("*:6443", CPHA_ADDR_PORT_REQUIRED, &a, &why), 0);
	assert_int_equal(cpha_addr_family(&a), AF_INET);
	assert_true(a.flags & CPHA_ADDR_F_ANY);
	assert_int_equal(cpha_addr_port(&a), 6443);
	assert_int_equal(cpha_parse_addr(":6443", CPHA_ADDR_PORT_REQUIRED, &a, &why), 0);
	assert_int_equal(cpha_addr_family(&a), AF_INET);
	assert_true(a.flags & CPHA_ADDR_F_ANY);
	assert_int_equal(cpha_parse_addr(":::6443", CPHA_ADDR_PORT_REQUIRED, &a, &why), 0);
	assert_int_equal(cpha_addr_family(&a), AF_INET6);
	assert_true(a.flags & CPHA_ADDR_F_ANY);
	assert_int_equal(cpha_addr_port(&a), 6443);
	assert_int_equal(cpha_parse_addr("[::]:6443", CPHA_ADDR_PORT_REQUIRED, &a, &why), 0);
	assert_true(a.flags & CPHA_ADDR_F_ANY);
	assert_int_equal(cpha_parse_addr("*", CPHA_ADDR_PORT_OPTIONAL, &a, &why), -EINVAL);
	assert_int_equal(cpha_parse_addr("", CPHA_ADDR_PORT_OPTIONAL, &a, &why), -EINVAL);
	assert_int_equal(cpha_parse_addr("198.18.0.1:6443", CPHA_ADDR_PORT_REQUIRED, &a, &why), 0);
	assert_false(a.flags & CPHA_ADDR_F_ANY);
	assert_true(a.flags & CPHA_ADDR_F_PORT);
}

static void test_ipv6(void **state)
{
	(void)state;
	assert_string_equal(
		fmt("[2001:db8::1]:6443", CPHA_ADDR_PORT_REQUIRED), "[2001:db8::1]:6443");
	assert_string_equal(fmt("[2001:db8::1]", CPHA_ADDR_PORT_OPTIONAL), "2001:db8::1");
	assert_string_equal(fmt("[2001:db8::1]", CPHA_ADDR_PORT_REQUIRED), "ERR");
	assert_string_equal(fmt("2001:db8::1", CPHA_ADDR_PORT_NONE), "2001:db8::1");
	assert_string_equal(fmt("2001:db8::1", CPHA_ADDR_PORT_OPTIONAL), "2001:db8::1");
	/* HAProxy's form: the last colon separates the port */
	assert_string_equal(fmt("2001:db8::1:6443", CPHA_ADDR_PORT_REQUIRED), "[2001:db8::1]:6443");
	assert_string_equal(fmt("::1:80", CPHA_ADDR_PORT_OPTIONAL), "[::1]:80");
	assert_string_equal(fmt("2001:db8::1", CPHA_ADDR_PORT_REQUIRED), "ERR");
	assert_string_equal(fmt("[2001:db8::1]:80", CPHA_ADDR_PORT_NONE), "ERR");
	assert_string_equal(fmt("[2001:db8::1", CPHA_ADDR_PORT_OPTIONAL), "ERR");
	assert_string_equal(fmt("[2001:db8::1]x", CPHA_ADDR_PORT_OPTIONAL), "ERR");
	assert_string_equal(fmt("[198.18.0.1]:80", CPHA_ADDR_PORT_OPTIONAL), "ERR");
	assert_string_equal(fmt("2001:db8:::1", CPHA_ADDR_PORT_NONE), "ERR");
}

static void test_scoped_link_local(void **state)
{
	struct cpha_addr a;
	const char *why;

	(void)state;
	/* "lo" exists everywhere, so its index resolves */
	assert_int_equal(cpha_parse_addr("fe80::1%lo", CPHA_ADDR_PORT_NONE, &a, &why), 0);
	assert_string_equal(a.ifname, "lo");
	assert_int_equal(((struct sockaddr_in6 *)&a.ss)->sin6_scope_id, if_nametoindex("lo"));
	assert_string_equal(fmt("[fe80::1%lo]:80", CPHA_ADDR_PORT_REQUIRED), "[fe80::1%lo]:80");
	assert_string_equal(fmt("fe80::1%lo:80", CPHA_ADDR_PORT_REQUIRED), "[fe80::1%lo]:80");
	/* an interface this machine lacks is kept by name, scope id 0 */
	assert_int_equal(cpha_parse_addr("fe80::1%nosuchif0", CPHA_ADDR_PORT_NONE, &a, &why), 0);
	assert_string_equal(a.ifname, "nosuchif0");
	assert_int_equal(((struct sockaddr_in6 *)&a.ss)->sin6_scope_id, 0);
	assert_string_equal(fmt("fe80::1%", CPHA_ADDR_PORT_NONE), "ERR");
	assert_string_equal(fmt("fe80::1%waytoolonginterfacename", CPHA_ADDR_PORT_NONE), "ERR");
}

static void test_family_prefixes(void **state)
{
	(void)state;
	assert_string_equal(fmt("ipv4@198.18.0.1:80", CPHA_ADDR_PORT_REQUIRED), "198.18.0.1:80");
	assert_string_equal(fmt("ipv6@::1:80", CPHA_ADDR_PORT_REQUIRED), "[::1]:80");
	assert_string_equal(fmt("ipv4@[::1]:80", CPHA_ADDR_PORT_REQUIRED), "ERR");
	assert_string_equal(fmt("ipv4@::1:80", CPHA_ADDR_PORT_REQUIRED), "ERR");
}

static void test_prefix(void **state)
{
	struct cpha_addr a;
	const char *why;
	unsigned len;

	(void)state;
	assert_int_equal(cpha_parse_prefix("198.18.0.2/24", &a, &len, &why), 0);
	assert_int_equal(len, 24);
	assert_int_equal(cpha_parse_prefix("198.18.0.2", &a, &len, &why), 0);
	assert_int_equal(len, 32);
	assert_int_equal(cpha_parse_prefix("2001:db8::2/64", &a, &len, &why), 0);
	assert_int_equal(len, 64);
	assert_int_equal(cpha_parse_prefix("2001:db8::2", &a, &len, &why), 0);
	assert_int_equal(len, 128);
	assert_int_equal(cpha_parse_prefix("198.18.0.2/33", &a, &len, &why), -EINVAL);
	assert_string_equal(why, "prefix length must be 0 to 32");
	assert_int_equal(cpha_parse_prefix("2001:db8::2/129", &a, &len, &why), -EINVAL);
	assert_int_equal(cpha_parse_prefix("198.18.0.2/", &a, &len, &why), -EINVAL);
	assert_int_equal(cpha_parse_prefix("198.18.0.2/-1", &a, &len, &why), -EINVAL);
	assert_int_equal(cpha_parse_prefix("198.18.0.2/2x", &a, &len, &why), -EINVAL);
	assert_int_equal(cpha_parse_prefix("198.18.0.2:80/24", &a, &len, &why), -EINVAL);
}

static void test_equal_and_port(void **state)
{
	struct cpha_addr a, b;
	const char *why;

	(void)state;
	cpha_parse_addr("198.18.0.1:80", CPHA_ADDR_PORT_OPTIONAL, &a, &why);
	cpha_parse_addr("198.18.0.1", CPHA_ADDR_PORT_OPTIONAL, &b, &why);
	assert_false(cpha_addr_equal(&a, &b));
	cpha_addr_set_port(&b, 80);
	assert_true(cpha_addr_equal(&a, &b));
	cpha_parse_addr("[2001:db8::1]:80", CPHA_ADDR_PORT_OPTIONAL, &a, &why);
	cpha_parse_addr("2001:db8::1:80", CPHA_ADDR_PORT_OPTIONAL, &b, &why);
	assert_true(cpha_addr_equal(&a, &b));
	assert_int_equal(a.len, sizeof(struct sockaddr_in6));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv4),
		cmocka_unit_test(test_wildcards),
		cmocka_unit_test(test_ipv6),
		cmocka_unit_test(test_scoped_link_local),
		cmocka_unit_test(test_family_prefixes),
		cmocka_unit_test(test_prefix),
		cmocka_unit_test(test_equal_and_port),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
