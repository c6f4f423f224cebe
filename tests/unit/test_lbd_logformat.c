/* lbd's log-format compiler and renderer (lbd/logformat.c), against the
 * behaviour of HAProxy 2.6's log-format in TCP mode. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "logformat.h"

static struct sockaddr_storage v4(const char *ip, unsigned port)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *s = (struct sockaddr_in *)&ss;

	memset(&ss, 0, sizeof(ss));
	s->sin_family = AF_INET;
	s->sin_port = htons((uint16_t)port);
	assert_int_equal(inet_pton(AF_INET, ip, &s->sin_addr), 1);
	return ss;
}

static struct sockaddr_storage v6(const char *ip, unsigned port)
{
	struct sockaddr_storage ss;
	struct sockaddr_in6 *s = (struct sockaddr_in6 *)&ss;

	memset(&ss, 0, sizeof(ss));
	s->sin6_family = AF_INET6;
	s->sin6_port = htons((uint16_t)port);
	assert_int_equal(inet_pton(AF_INET6, ip, &s->sin6_addr), 1);
	return ss;
}

static struct sockaddr_storage cli, fro, bac, srv;

static struct lf_values values(void)
{
	struct lf_values v;

	memset(&v, 0, sizeof(v));
	cli = v4("198.18.0.5", 40000);
	fro = v6("2001:db8::1", 6443);
	bac = v4("198.18.0.2", 50000);
	srv = v4("198.18.0.11", 6443);
	v.client = &cli;
	v.front = &fro;
	v.back = &bac;
	v.server = &srv;
	v.frontend = "main";
	v.backend = "masters";
	v.server_name = "master-0";
	v.accept_real_usec = 1700000000123456ull; /* 2023-11-14 22:13:20.123 UTC */
	v.tw = 0;
	v.tc = 2;
	v.tt = 1500;
	v.bytes_in = 300;
	v.bytes_out = 4000;
	v.term = "--";
	v.ac = 5;
	v.fc = 4;
	v.bc = 3;
	v.sc = 2;
	v.rc = 1;
	v.sq = 0;
	v.bq = 7;
	v.pid = 42;
	v.hostname = "lb1";
	v.log_counter = 9;
	v.session_counter = 11;
	return v;
}

/* Compile fmt (which must compile) and render it over values(). */
static const char *render(const char *fmt)
{
	static char buf[512];
	struct lf_format f;
	struct lf_values v = values();
	char err[256], warn[256];

	if (lf_compile(fmt, &f, err, sizeof(err), warn, sizeof(warn)) < 0) {
		print_error("%s: %s\n", fmt, err);
		fail();
	}
	lf_render(&f, &v, buf, sizeof(buf));
	lf_free(&f);
	return buf;
}

static void compile_err(const char *fmt, const char *needle)
{
	struct lf_format f = { NULL, 0 };
	char err[256], warn[256];

	assert_int_equal(lf_compile(fmt, &f, err, sizeof(err), warn, sizeof(warn)), -1);
	if (!strstr(err, needle)) {
		print_error("'%s': got '%s', want '%s'\n", fmt, err, needle);
		fail();
	}
	assert_null(f.n);
}

static void test_openshift_format(void **state)
{
	(void)state;
	assert_string_equal(render("%ci:%cp -> %fi:%fp %ft %b/%s %Tw/%Tc/%Tt %B %ts "
				   "%ac/%fc/%bc/%sc/%rc %sq/%bq"),
		"198.18.0.5:40000 -> 2001:db8::1:6443 main masters/master-0 0/2/1500 4000 -- "
		"5/4/3/2/1 0/7");
}

static void test_variables(void **state)
{
	(void)state;
	assert_string_equal(
		render("%bi:%bp %si:%sp %U %f"), "198.18.0.2:50000 198.18.0.11:6443 300 main");
	assert_string_equal(render("%pid %H %lc %rt %Ts %ms"), "42 lb1 9 11 1700000000 123");
	assert_string_equal(render("%T"), "14/Nov/2023:22:13:20 +0000");
	assert_string_equal(render("%Td %Th %Tu %ST %tsc"), "1498 0 1500 0 ----");
	assert_string_equal(render("%ID %sslc %sslv"), "- - -");
	/* no captures in TCP: nothing, and no double space */
	assert_string_equal(render("a %hr %hs b"), "a b");
}

static void test_missing_values(void **state)
{
	struct lf_format f;
	struct lf_values v = values();
	char buf[256], err[256], warn[256];

	(void)state;
	v.server = NULL;
	v.back = NULL;
	v.server_name = NULL;
	v.tc = -1;
	v.term = "CC";
	v.redispatched = 1;
	assert_int_equal(lf_compile("%b/%s %si:%sp %bi %Tc %Td %ts %rc", &f, err, sizeof(err), warn,
				 sizeof(warn)),
		0);
	lf_render(&f, &v, buf, sizeof(buf));
	assert_string_equal(buf, "masters/<NOSRV> -:- - -1 -1 CC +1");
	lf_free(&f);
}

static void test_quote_and_text(void **state)
{
	char warn[256], err[256];
	struct lf_format f;

	(void)state;
	assert_string_equal(render("%{+Q}ci %{+Q}b %{+Q}cp"), "\"198.18.0.5\" \"masters\" 40000");
	/* %o: flags for every variable after it; -Q takes one back */
	assert_string_equal(render("%{+Q}o %f %{-Q}b"), "\"main\" masters");
	assert_string_equal(render("100%% [%f]"), "100% [main]");
	/* spaces collapse to one, none leading */
	assert_string_equal(render("  %f    %b  "), "main masters ");
	assert_int_equal(lf_compile("%{+X}ci", &f, err, sizeof(err), warn, sizeof(warn)), 0);
	assert_non_null(strstr(warn, "'+X' is accepted but not applied"));
	lf_free(&f);
	assert_int_equal(lf_compile("%{+Q}ci", &f, err, sizeof(err), warn, sizeof(warn)), 0);
	assert_string_equal(warn, "");
	lf_free(&f);
}

static void test_errors(void **state)
{
	(void)state;
	compile_err("%ci %zz", "no such format variable 'zz'");
	compile_err("%ci 50%", "truncated line after '%'");
	compile_err("%ci %r", "format variable 'r' is reserved for HTTP mode");
	compile_err("%TR", "reserved for HTTP mode");
	compile_err("%[src]", "sample expressions");
	compile_err("% ci", "unexpected variable name near ' '");
	compile_err("%{+Q", "missing '}'");
}

static void test_cut(void **state)
{
	struct lf_format f;
	struct lf_values v = values();
	char buf[8], err[256], warn[256];

	(void)state;
	assert_int_equal(lf_compile("%f %b %s", &f, err, sizeof(err), warn, sizeof(warn)), 0);
	assert_int_equal(lf_render(&f, &v, buf, sizeof(buf)), 7);
	assert_string_equal(buf, "main ma");
	lf_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_openshift_format),
		cmocka_unit_test(test_variables),
		cmocka_unit_test(test_missing_values),
		cmocka_unit_test(test_quote_and_text),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
