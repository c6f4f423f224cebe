#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "log.h"

#define MAX_LINES 64

static struct {
	int n;
	int level[MAX_LINES];
	char line[MAX_LINES][512];
} got;

static uint64_t fake_now;

static uint64_t fake_clock(void)
{
	return fake_now;
}

static void sink(void *ud, int level, const char *line)
{
	(void)ud;
	if (got.n < MAX_LINES) {
		got.level[got.n] = level;
		snprintf(got.line[got.n], sizeof(got.line[0]), "%s", line);
	}
	got.n++;
}

static int setup(void **state)
{
	(void)state;
	memset(&got, 0, sizeof(got));
	fake_now = 1000000;
	cpha_log_set_clock(fake_clock);
	cpha_log_set_sink(sink, NULL);
	cpha_log_set_level(LOG_INFO);
	cpha_log_set_ratelimit(10 * 1000000ULL, 3);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	cpha_log_set_sink(NULL, NULL);
	cpha_log_set_clock(NULL);
	return 0;
}

static void test_levels_filter(void **state)
{
	(void)state;
	log_debug("hidden %d", 1);
	log_info("shown %d", 2);
	log_err("error %s", "x");
	assert_int_equal(got.n, 2);
	assert_string_equal(got.line[0], "shown 2");
	assert_int_equal(got.level[0], LOG_INFO);
	assert_int_equal(got.level[1], LOG_ERR);
	cpha_log_set_level(LOG_DEBUG);
	log_debug("now shown");
	assert_int_equal(got.n, 3);
}

static void test_errno_preserved_and_m(void **state)
{
	(void)state;
	errno = ECONNREFUSED;
	log_warn("server apiservers/m1: connect: %m");
	assert_int_equal(errno, ECONNREFUSED);
	assert_string_equal(got.line[0], "server apiservers/m1: connect: Connection refused");
	errno = ETIMEDOUT;
	log_debug("filtered out");
	assert_int_equal(errno, ETIMEDOUT);
}

static void test_ratelimit_repeated_lines(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < 10; i++)
		log_err("check failed: Connection refused");
	log_err("a different line");
	assert_int_equal(got.n, 4); /* burst of 3, then the different line */
	assert_string_equal(got.line[3], "a different line");

	fake_now += 11 * 1000000ULL; /* next interval */
	log_err("check failed: Connection refused");
	assert_int_equal(got.n, 5);
	assert_string_equal(
		got.line[4], "check failed: Connection refused (7 similar lines suppressed)");
	log_err("check failed: Connection refused");
	assert_string_equal(got.line[5], "check failed: Connection refused");
}

static void test_ratelimit_same_text_other_level(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < 5; i++) {
		log_err("same");
		log_warn("same");
	}
	assert_int_equal(got.n, 6);
}

static void test_ratelimit_disabled(void **state)
{
	int i;

	(void)state;
	cpha_log_set_ratelimit(0, 0);
	for (i = 0; i < 20; i++)
		log_info("flood");
	assert_int_equal(got.n, 20);
}

static void test_level_names(void **state)
{
	(void)state;
	assert_int_equal(cpha_log_level_from_name("err"), LOG_ERR);
	assert_int_equal(cpha_log_level_from_name("error"), LOG_ERR);
	assert_int_equal(cpha_log_level_from_name("warning"), LOG_WARNING);
	assert_int_equal(cpha_log_level_from_name("debug"), LOG_DEBUG);
	assert_int_equal(cpha_log_level_from_name("6"), LOG_INFO);
	assert_int_equal(cpha_log_level_from_name("loud"), -EINVAL);
	assert_int_equal(cpha_log_level_from_name("8"), -EINVAL);
}

/* Under systemd, stderr lines carry "<N>" so journald keeps the priority. */
static void test_journal_prefix(void **state)
{
	char path[] = "/tmp/cpha-test-log-XXXXXX", text[256] = "", env[64];
	struct stat st;
	int fd, saved;
	FILE *f;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(fd, STDERR_FILENO);
	fstat(fd, &st);
	snprintf(env, sizeof(env), "%llu:%llu", (unsigned long long)st.st_dev,
		(unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", env, 1);
	cpha_log_open("test", CPHA_LOG_AUTO);
	assert_int_equal(cpha_log_target(), CPHA_LOG_JOURNAL);
	log_notice("state MASTER");
	log_debug("not written");
	cpha_log_open("test", CPHA_LOG_STDERR);
	log_warn("plain");
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	unsetenv("JOURNAL_STREAM");
	f = fdopen(fd, "r");
	rewind(f);
	assert_int_equal(fread(text, 1, sizeof(text) - 1, f) > 0, 1);
	fclose(f);
	unlink(path);
	assert_non_null(strstr(text, "<5>state MASTER\n"));
	assert_null(strstr(text, "not written"));
	assert_non_null(strstr(text, "test["));
	assert_non_null(strstr(text, "]: warning: plain\n"));
	cpha_log_set_sink(sink, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_levels_filter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errno_preserved_and_m, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ratelimit_repeated_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_ratelimit_same_text_other_level, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ratelimit_disabled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_level_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_journal_prefix, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
