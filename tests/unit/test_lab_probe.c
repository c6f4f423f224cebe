/* cpha lab probe: its usage errors (exit 64) and unreadable files (exit 1),
 * before any connection is made. The prober's behaviour against an
 * apiserver is tests/integration/test_lab_probe.py. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "cpha.h"
#include "lab.h"

#define RUN(...)                                                                                   \
	({                                                                                         \
		char *argv_[] = { "probe", __VA_ARGS__, NULL };                                    \
		cmd_lab_probe((int)(sizeof(argv_) / sizeof(argv_[0])) - 1, argv_);                 \
	})

/* The required options, with files that exist. */
#define NEED                                                                                       \
	"--server", "https://198.18.0.1:6443", "--cacert", "/dev/null", "--cert", "/dev/null",     \
		"--key", "/dev/null"

static void test_usage(void **state)
{
	(void)state;
	assert_int_equal(RUN("--cacert", "/dev/null"), CPHA_EXIT_USAGE);
	assert_int_equal(RUN(NEED, "--watches", "many"), CPHA_EXIT_USAGE);
	assert_int_equal(RUN(NEED, "--watches", "-1"), CPHA_EXIT_USAGE);
	assert_int_equal(RUN(NEED, "--watches", "10001"), CPHA_EXIT_USAGE);
	assert_int_equal(RUN(NEED, "--interval", "0"), CPHA_EXIT_USAGE);
	assert_int_equal(RUN(NEED, "--interval", "100 ms"), CPHA_EXIT_USAGE);
	assert_int_equal(RUN(NEED, "--timeout", "soon"), CPHA_EXIT_USAGE);
	assert_int_equal(RUN(NEED, "--watch-stall", "10ms"), CPHA_EXIT_USAGE);
	assert_int_equal(RUN(NEED, "--namespace", "Kube_System"), CPHA_EXIT_USAGE);
	assert_int_equal(RUN(NEED, "--lease", "a/b"), CPHA_EXIT_USAGE);
	assert_int_equal(RUN(NEED, "--server-name", "bad name"), CPHA_EXIT_USAGE);
	assert_int_equal(RUN(NEED, "--bogus"), CPHA_EXIT_USAGE);
	assert_int_equal(RUN(NEED, "extra"), CPHA_EXIT_USAGE);
	assert_int_equal(RUN("--server", "http://198.18.0.1:6443", "--cacert", "/dev/null",
				 "--cert", "/dev/null", "--key", "/dev/null"),
		CPHA_EXIT_USAGE);
	assert_int_equal(RUN("--server", "not a url", "--cacert", "/dev/null", "--cert",
				 "/dev/null", "--key", "/dev/null"),
		CPHA_EXIT_USAGE);
	assert_int_equal(RUN("--help"), CPHA_EXIT_OK);
}

static void test_files(void **state)
{
	(void)state;
	assert_int_equal(RUN("--server", "https://198.18.0.1:6443", "--cacert", "/nonexistent/ca",
				 "--cert", "/dev/null", "--key", "/dev/null"),
		CPHA_EXIT_FAIL);
	assert_int_equal(RUN(NEED, "--out", "/nonexistent/dir/out.jsonl"), CPHA_EXIT_FAIL);
	/* an IPv6 VIP's URL (a dual-stack lab's second prober) passes the
	 * checks of the URL: the file is what fails */
	assert_int_equal(
		RUN("--server", "https://[2001:db8:18::2]:6443", "--server-name", "kubernetes",
			"--cacert", "/nonexistent/ca", "--cert", "/dev/null", "--key", "/dev/null"),
		CPHA_EXIT_FAIL);
	/* without its brackets it is no URL */
	assert_int_equal(RUN("--server", "https://2001:db8:18::2:6443", "--cacert", "/dev/null",
				 "--cert", "/dev/null", "--key", "/dev/null"),
		CPHA_EXIT_USAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
