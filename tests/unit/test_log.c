#include <errno.h>
#include <pthread.h>
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

#define MAX_LINES 128

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

/* "<reason>: N more in the last Ts, last: ..." -> N, or -1 */
static long long summary_count(const char *line, const char *reason)
{
	size_t n = strlen(reason);
	long long count;

	if (strncmp(line, reason, n) != 0 || strncmp(line + n, ": ", 2) != 0)
		return -1;
	if (sscanf(line + n + 2, "%lld more in the last ", &count) != 1)
		return -1;
	return count;
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
	cpha_log_set_ratelimit(0, 0); /* pending summaries go to this test's sink */
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

/* Lines that differ (one per packet source) but share a reason: the burst,
 * then one summary with the count and the last line held back. */
static void test_reason_limits_varying_lines(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < 1000; i++)
		cpha_log_reason(LOG_WARNING, "vrrp: bad checksum",
			"instance VI_1: dropped an advertisement from 198.18.%d.%d: checksum",
			i / 250, i % 250 + 1);
	assert_int_equal(got.n, 3);
	assert_string_equal(
		got.line[2], "instance VI_1: dropped an advertisement from 198.18.0.3: checksum");
	fake_now += 5 * 1000000ULL;
	log_info("unrelated");
	assert_int_equal(got.n, 4); /* the interval is not over: no summary yet */
	fake_now += 5 * 1000000ULL;
	log_info("unrelated again");
	assert_int_equal(got.n, 6); /* the summary comes first */
	assert_string_equal(got.line[4],
		"vrrp: bad checksum: 997 more in the last 10s, last: instance VI_1: dropped an "
		"advertisement from 198.18.3.250: checksum");
	assert_int_equal(got.level[4], LOG_WARNING);
	assert_string_equal(got.line[5], "unrelated again");
	cpha_log_flush();
	assert_int_equal(got.n, 6); /* said once */
}

/* The summary comes out from cpha_log_flush() when the reason goes quiet
 * and nothing else is logged. */
static void test_reason_summary_when_quiet(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < 50; i++)
		cpha_log_reason(LOG_WARNING, "tcp: accept", "accept from 198.18.0.%d: refused", i);
	assert_int_equal(got.n, 3);
	fake_now += 9999999ULL;
	cpha_log_flush();
	assert_int_equal(got.n, 3);
	fake_now += 1;
	cpha_log_flush();
	assert_int_equal(got.n, 4);
	assert_int_equal(summary_count(got.line[3], "tcp: accept"), 47);
	assert_non_null(strstr(got.line[3], "last: accept from 198.18.0.49: refused"));
	fake_now += 100 * 1000000ULL;
	cpha_log_flush();
	assert_int_equal(got.n, 4);
}

/* Every interval of a long flood gives the burst and one summary, the
 * tenth as the first; after an hour of quiet the burst is back. */
static void test_reason_tenth_interval_and_after_quiet(void **state)
{
	int round, i, before;

	(void)state;
	for (round = 0; round < 12; round++) {
		before = got.n;
		for (i = 0; i < 100; i++) {
			cpha_log_reason(LOG_WARNING, "vrrp: bad ttl", "from 198.18.1.%d", i);
			fake_now += 50000; /* 100 lines in 5 s */
		}
		fake_now += 5 * 1000000ULL;
		cpha_log_flush();
		assert_int_equal(got.n - before, 4);
		assert_int_equal(summary_count(got.line[before + 3], "vrrp: bad ttl"), 97);
		assert_non_null(
			strstr(got.line[before + 3], "in the last 10s, last: from 198.18.1.99"));
		if (round == 9) { /* quiet for an hour, then again */
			fake_now += 3600 * 1000000ULL;
			cpha_log_flush();
			assert_int_equal(got.n - before, 4);
			got.n = 0;
		}
		if (got.n > MAX_LINES - 8)
			got.n = 0;
	}
}

static void test_reasons_are_separate(void **state)
{
	int i, sum_a = -1, sum_b = -1;

	(void)state;
	for (i = 0; i < 10; i++) {
		cpha_log_reason(LOG_WARNING, "a", "same text");
		cpha_log_reason(LOG_ERR, "b", "same text");
	}
	assert_int_equal(got.n, 6); /* 3 of each, the identical-line limit aside */
	fake_now += 10 * 1000000ULL;
	cpha_log_flush();
	assert_int_equal(got.n, 8);
	for (i = 6; i < 8; i++) {
		if (summary_count(got.line[i], "a") >= 0) {
			sum_a = (int)summary_count(got.line[i], "a");
			assert_int_equal(got.level[i], LOG_WARNING);
		}
		if (summary_count(got.line[i], "b") >= 0) {
			sum_b = (int)summary_count(got.line[i], "b");
			assert_int_equal(got.level[i], LOG_ERR);
		}
	}
	assert_int_equal(sum_a, 7);
	assert_int_equal(sum_b, 7);
}

/* A reason is a key, not a pointer: the same text from two places counts
 * together. */
static void test_reason_compared_by_text(void **state)
{
	char key[] = "vrrp: bad checksum";
	int i;

	(void)state;
	for (i = 0; i < 3; i++)
		cpha_log_reason(LOG_WARNING, "vrrp: bad checksum", "x%d", i);
	cpha_log_reason(LOG_WARNING, key, "y");
	assert_int_equal(got.n, 3);
}

/* More reasons than the table holds: one pushed out is summed up at once,
 * so no count is lost. */
static void test_reason_eviction_keeps_counts(void **state)
{
	static const char *const keys[] = { "k00", "k01", "k02", "k03", "k04", "k05", "k06", "k07",
		"k08", "k09", "k10", "k11", "k12", "k13", "k14", "k15", "k16", "k17", "k18", "k19",
		"k20", "k21", "k22", "k23", "k24", "k25", "k26", "k27", "k28", "k29", "k30", "k31",
		"k32", "k33", "k34", "k35", "k36", "k37", "k38", "k39", "k40", "k41", "k42", "k43",
		"k44", "k45", "k46", "k47", "k48", "k49", "k50", "k51", "k52", "k53", "k54", "k55",
		"k56", "k57", "k58", "k59", "k60", "k61", "k62", "k63", "k64", "k65" };
	size_t i;
	int j;

	(void)state;
	for (j = 0; j < 5; j++)
		cpha_log_reason(LOG_WARNING, "first", "held %d", j);
	assert_int_equal(got.n, 3);
	cpha_log_set_level(LOG_WARNING); /* the others are filtered out: not counted */
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		fake_now += 1;
		cpha_log_reason(LOG_INFO, keys[i], "filtered");
	}
	assert_int_equal(got.n, 3);
	cpha_log_set_level(LOG_INFO);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		fake_now += 1;
		cpha_log_reason(LOG_INFO, keys[i], "one");
	}
	/* "first" was the least recently used when the table filled up */
	assert_int_equal(got.n, 3 + 66 + 1);
	assert_int_equal(summary_count(got.line[3 + 63], "first"), 2);
	assert_non_null(strstr(got.line[3 + 63], "last: held 4"));
	assert_string_equal(got.line[3 + 64], "one");
}

static void test_reason_pending_on_set_ratelimit(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < 10; i++)
		cpha_log_reason(LOG_WARNING, "r", "line %d", i);
	cpha_log_set_ratelimit(0, 0);
	assert_int_equal(got.n, 4);
	assert_int_equal(summary_count(got.line[3], "r"), 7);
	for (i = 0; i < 10; i++)
		cpha_log_reason(LOG_WARNING, "r", "line %d", i);
	assert_int_equal(got.n, 14); /* burst 0: no limit */
}

#define THREADS      4
#define THREAD_LINES 20000

static struct {
	long long passed, summed;
} tally;

/* Called under the library's lock: no lock of its own needed. */
static void tally_sink(void *ud, int level, const char *line)
{
	long long n = summary_count(line, "thread");

	(void)ud;
	(void)level;
	if (n >= 0)
		tally.summed += n;
	else
		tally.passed++;
}

static void *flood(void *arg)
{
	int i, id = (int)(intptr_t)arg;

	for (i = 0; i < THREAD_LINES; i++) {
		cpha_log_reason(LOG_WARNING, "thread", "worker %d: line %d", id, i);
		if (i % 1000 == 0)
			log_info("worker %d: progress %d", id, i); /* lines of all kinds */
	}
	return NULL;
}

static uint64_t thread_now;

/* Advances a little at every reading, from any thread. */
static uint64_t moving_clock(void)
{
	return __atomic_add_fetch(&thread_now, 100, __ATOMIC_RELAXED);
}

/* lbd logs from several worker threads: every line is either let through
 * or counted in exactly one summary. */
static void test_reason_threads(void **state)
{
	pthread_t t[THREADS];
	intptr_t i;

	(void)state;
	memset(&tally, 0, sizeof(tally));
	thread_now = 1000000;
	cpha_log_set_clock(moving_clock);
	cpha_log_set_sink(tally_sink, NULL);
	cpha_log_set_ratelimit(1000000ULL, 3); /* 1 s: many intervals */
	for (i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, flood, (void *)i), 0);
	for (i = 0; i < THREADS; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	thread_now += 2000000ULL;
	cpha_log_flush();
	/* THREADS * THREAD_LINES * 100 usec = 8 s of clock: 8 or 9 intervals */
	assert_int_equal(tally.summed + tally.passed - THREADS * (THREAD_LINES / 1000),
		THREADS * THREAD_LINES);
	assert_true(tally.summed > THREADS * THREAD_LINES - 100);
	cpha_log_set_ratelimit(10 * 1000000ULL, 3);
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

/* stderr into a new temporary file until capture_end(), which reads the
 * file into text (NUL-terminated) and removes it. */
struct capture {
	char path[32];
	int fd, saved;
};

static void capture_start(struct capture *c)
{
	snprintf(c->path, sizeof(c->path), "/tmp/cpha-test-log-XXXXXX");
	c->fd = mkstemp(c->path);
	assert_true(c->fd >= 0);
	fflush(stderr);
	c->saved = dup(STDERR_FILENO);
	dup2(c->fd, STDERR_FILENO);
}

static void capture_end(struct capture *c, char *text, size_t len)
{
	FILE *f;

	fflush(stderr);
	dup2(c->saved, STDERR_FILENO);
	close(c->saved);
	f = fdopen(c->fd, "r");
	rewind(f);
	assert_int_equal(fread(text, 1, len - 1, f) > 0, 1);
	fclose(f);
	unlink(c->path);
}

/* Under systemd, stderr lines carry "<N>" so journald keeps the priority. */
static void test_journal_prefix(void **state)
{
	char text[256] = "", env[64];
	struct capture c;
	struct stat st;

	(void)state;
	capture_start(&c);
	fstat(c.fd, &st);
	snprintf(env, sizeof(env), "%llu:%llu", (unsigned long long)st.st_dev,
		(unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", env, 1);
	cpha_log_open("test", CPHA_LOG_AUTO);
	assert_int_equal(cpha_log_target(), CPHA_LOG_JOURNAL);
	log_notice("state MASTER");
	log_debug("not written");
	cpha_log_open("test", CPHA_LOG_STDERR);
	log_warn("plain");
	capture_end(&c, text, sizeof(text));
	unsetenv("JOURNAL_STREAM");
	assert_non_null(strstr(text, "<5>state MASTER\n"));
	assert_null(strstr(text, "not written"));
	assert_non_null(strstr(text, "test["));
	assert_non_null(strstr(text, "]: warning: plain\n"));
	cpha_log_set_sink(sink, NULL);
}

/* CPHA_LOG_TIME=1: plain lines start with the UTC time; journal lines
 * never (journald has its own). */
static void test_time_prefix(void **state)
{
	char text[512] = "";
	struct capture c;

	(void)state;
	capture_start(&c);
	setenv("CPHA_LOG_TIME", "1", 1);
	cpha_log_open("test", CPHA_LOG_STDERR);
	log_notice("with time");
	unsetenv("CPHA_LOG_TIME");
	cpha_log_open("test", CPHA_LOG_STDERR);
	log_notice("without time");
	capture_end(&c, text, sizeof(text));
	/* 2026-11-30T04:41:07.123Z test[PID]: notice: with time */
	assert_int_equal(text[4], '-');
	assert_int_equal(text[10], 'T');
	assert_int_equal(text[19], '.');
	assert_int_equal(text[23], 'Z');
	assert_int_equal(text[24], ' ');
	assert_int_equal(strncmp(text + 25, "test[", 5), 0);
	assert_non_null(strstr(text, "]: notice: with time\ntest["));
	assert_non_null(strstr(text, "]: notice: without time\n"));
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
		cmocka_unit_test_setup_teardown(test_reason_limits_varying_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reason_summary_when_quiet, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_reason_tenth_interval_and_after_quiet, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reasons_are_separate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reason_compared_by_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reason_eviction_keeps_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_reason_pending_on_set_ratelimit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reason_threads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_level_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_journal_prefix, setup, teardown),
		cmocka_unit_test_setup_teardown(test_time_prefix, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
