#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <cmocka.h>

#include "duration.h"

static uint64_t dur(const char *s, uint64_t unit)
{
	const char *why = NULL;
	uint64_t v = 0;

	assert_int_equal(cpha_parse_duration(s, unit, &v, &why), 0);
	return v;
}

static void test_haproxy_units(void **state)
{
	(void)state;
	assert_int_equal(dur("10s", CPHA_USEC_PER_MSEC), 10000000);
	assert_int_equal(dur("500", CPHA_USEC_PER_MSEC), 500000); /* ms by default */
	assert_int_equal(dur("500ms", CPHA_USEC_PER_SEC), 500000);
	assert_int_equal(dur("250us", CPHA_USEC_PER_MSEC), 250);
	assert_int_equal(dur("2m", CPHA_USEC_PER_MSEC), 120000000);
	assert_int_equal(dur("1h", CPHA_USEC_PER_MSEC), 3600000000ULL);
	assert_int_equal(dur("1d", CPHA_USEC_PER_MSEC), 86400000000ULL);
	assert_int_equal(dur("0", CPHA_USEC_PER_MSEC), 0);
}

static void test_duration_errors(void **state)
{
	const char *why = NULL;
	uint64_t v;

	(void)state;
	assert_int_equal(cpha_parse_duration("", 1000, &v, &why), -EINVAL);
	assert_int_equal(cpha_parse_duration("s", 1000, &v, &why), -EINVAL);
	assert_int_equal(cpha_parse_duration("10x", 1000, &v, &why), -EINVAL);
	assert_string_equal(why, "unknown time unit (expected us, ms, s, m, h or d)");
	assert_int_equal(cpha_parse_duration("1.5s", 1000, &v, &why), -EINVAL);
	assert_int_equal(cpha_parse_duration("-1s", 1000, &v, &why), -EINVAL);
	assert_int_equal(cpha_parse_duration("10 s", 1000, &v, &why), -EINVAL);
	assert_int_equal(cpha_parse_duration("99999999999999999999", 1, &v, &why), -ERANGE);
	assert_int_equal(cpha_parse_duration("999999999999d", 1, &v, &why), -ERANGE);
}

static void test_keepalived_seconds(void **state)
{
	const char *why = NULL;
	uint64_t v = 0;

	(void)state;
	assert_int_equal(cpha_parse_seconds("1", &v, &why), 0);
	assert_int_equal(v, 1000000);
	assert_int_equal(cpha_parse_seconds("0.1", &v, &why), 0);
	assert_int_equal(v, 100000);
	assert_int_equal(cpha_parse_seconds("2.55", &v, &why), 0);
	assert_int_equal(v, 2550000);
	assert_int_equal(cpha_parse_seconds(".5", &v, &why), 0);
	assert_int_equal(v, 500000);
	assert_int_equal(cpha_parse_seconds("0.0000010", &v, &why), 0);
	assert_int_equal(v, 1);
	assert_int_equal(cpha_parse_seconds("0.0000001", &v, &why), -EINVAL);
	assert_int_equal(cpha_parse_seconds("1s", &v, &why), -EINVAL);
	assert_int_equal(cpha_parse_seconds("", &v, &why), -EINVAL);
	assert_int_equal(cpha_parse_seconds(".", &v, &why), -EINVAL);
	assert_int_equal(cpha_parse_seconds("99999999999999999", &v, &why), -ERANGE);
}

static void test_format(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(cpha_format_duration(0, buf, sizeof(buf)), "0");
	assert_string_equal(cpha_format_duration(10000000, buf, sizeof(buf)), "10s");
	assert_string_equal(cpha_format_duration(1500000, buf, sizeof(buf)), "1500ms");
	assert_string_equal(cpha_format_duration(120000000, buf, sizeof(buf)), "2m");
	assert_string_equal(cpha_format_duration(7, buf, sizeof(buf)), "7us");
}

static void test_now(void **state)
{
	uint64_t a = cpha_now_usec(CLOCK_MONOTONIC), b;

	(void)state;
	usleep(20000);
	b = cpha_now_usec(CLOCK_MONOTONIC);
	assert_true(b - a >= 20000 && b - a < 2000000);
	assert_true(cpha_now_usec(CLOCK_REALTIME) > 1700000000ULL * 1000000ULL); /* after 2023 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_haproxy_units),
		cmocka_unit_test(test_duration_errors),
		cmocka_unit_test(test_keepalived_seconds),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_now),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
