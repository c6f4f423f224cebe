/* cpha lab: the attempts at a scenario taken together (lab_repeat.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "lab_repeat.h"
#include "lab_sample.h"
#include "lab_stats.h"

static struct lab_scenario att(const char *name, long failed)
{
	struct lab_scenario s = { .name = name };

	s.st.failed = failed;
	return s;
}

static void test_grouping(void **state)
{
	struct lab_scenario a[] = {
		att("x", 5),
		att("y", 0),
		att("x", 3),
		att("x", 4),
		att("y", 1),
		att("x", 9),
	};
	struct lab_run r = { .stack = "cpha", .scen = a, .nscen = 6 };
	size_t nvalid;

	(void)state;
	a[5].invalid = true;
	a[4].not_started = true;
	assert_true(lab_repeat_first(&r, 0));
	assert_true(lab_repeat_first(&r, 1));
	assert_false(lab_repeat_first(&r, 2));
	assert_false(lab_repeat_first(&r, 4));
	assert_int_equal(lab_repeat_count(&r, "x", &nvalid), 4);
	assert_int_equal(nvalid, 3);
	assert_int_equal(lab_repeat_count(&r, "y", &nvalid), 2);
	assert_int_equal(nvalid, 1);
	assert_int_equal(lab_repeat_count(&r, "z", &nvalid), 0);
	assert_int_equal(lab_repeat_count(NULL, "x", NULL), 0);
	/* the round: its rank unless given */
	assert_int_equal(lab_repeat_round(&r, 0), 1);
	assert_int_equal(lab_repeat_round(&r, 3), 3);
	assert_int_equal(lab_repeat_round(&r, 4), 2);
	a[3].repeat = 7;
	assert_int_equal(lab_repeat_round(&r, 3), 7);
	assert_false(lab_repeat_valid(&a[4]));
	assert_false(lab_repeat_valid(&a[5]));
	assert_true(lab_repeat_valid(&a[0]));
}

static void test_representative(void **state)
{
	struct lab_scenario a[] = {
		att("x", 5),
		att("x", 3),
		att("x", 4),
		att("x", 0),
		att("x", 3),
		att("y", 2),
	};
	struct lab_run r = { .stack = "cpha", .scen = a, .nscen = 6 };

	(void)state;
	/* failed 5 3 4 0 3: sorted 0 3 3 4 5, the median 3: the earlier 3 */
	assert_ptr_equal(lab_repeat_representative(&r, "x"), &a[1]);
	/* an even count: the lower median; 5 3 4 3 -> 3 3 4 5 -> 3 */
	a[3].invalid = true;
	assert_ptr_equal(lab_repeat_representative(&r, "x"), &a[1]);
	/* 5 4 -> the lower, 4 */
	a[1].invalid = true;
	a[4].invalid = true;
	assert_ptr_equal(lab_repeat_representative(&r, "x"), &a[2]);
	/* none valid: the last attempt */
	a[0].invalid = a[2].invalid = true;
	assert_ptr_equal(lab_repeat_representative(&r, "x"), &a[4]);
	assert_ptr_equal(lab_repeat_representative(&r, "y"), &a[5]);
	assert_null(lab_repeat_representative(&r, "z"));
	assert_null(lab_repeat_representative(NULL, "x"));
}

static void test_values(void **state)
{
	json_t *t = json_pack(
		"{sisfsnss}", "detect_ms", 1200, "fence_ms", 850.5, "vip_move_ms", "serve_ms", "x");
	struct lab_scenario s = att("x", 7);
	double v;

	(void)state;
	s.st.max_gap_ms = 1234.6;
	s.st.watches_restored_ms = -1;
	s.st.restored_stat_ms = 2000.4; /* some never came back: a lower bound */
	s.timings = t;
	assert_true(lab_repeat_value(&s, "failed", &v) && v == 7);
	assert_true(lab_repeat_value(&s, "max_gap_ms", &v) && v == 1235);
	assert_true(lab_repeat_value(&s, "watches_restored_ms", &v) && v == 2000);
	assert_true(lab_repeat_value(&s, "detect_ms", &v) && v == 1200);
	assert_true(lab_repeat_value(&s, "fence_ms", &v) && v == 850.5);
	assert_false(lab_repeat_value(&s, "vip_move_ms", &v)); /* null */
	assert_false(lab_repeat_value(&s, "serve_ms", &v));    /* not a number */
	assert_false(lab_repeat_value(&s, "absent_ms", &v));
	/* the IPv6 prober's figures: only in a dual-stack run */
	assert_false(lab_repeat_value(&s, "ipv6_failed", &v));
	assert_false(lab_repeat_value(&s, "ipv6_max_gap_ms", &v));
	s.has_v6 = true;
	s.st6.failed = 3;
	s.st6.max_gap_ms = 4100.6;
	assert_true(lab_repeat_value(&s, "ipv6_failed", &v) && v == 3);
	assert_true(lab_repeat_value(&s, "ipv6_max_gap_ms", &v) && v == 4101);
	s.timings = NULL;
	assert_false(lab_repeat_value(&s, "detect_ms", &v));
	json_decref(t);
}

static void test_stats_and_sums(void **state)
{
	json_t *t1 = json_pack("{sisn}", "detect_ms", 1000, "fence_ms");
	json_t *t2 = json_pack("{sisi}", "serve_ms", 5, "detect_ms", 1400);
	json_t *t3 = json_pack("{si}", "late_ms", 9);
	json_t *names = json_array();
	struct lab_scenario a[] = { att("x", 10), att("x", 20), att("x", 90), att("y", 1) };
	struct lab_run r = { .stack = "cpha", .scen = a, .nscen = 4 };
	struct lab_sample st;
	long causes[LAB_NCAUSES] = { 0 }, phases[LAB_NPHASES] = { 0 };

	(void)state;
	a[0].timings = t1;
	a[1].timings = t2;
	a[2].timings = t3;
	a[2].invalid = true;
	for (int i = 0; i < 4; i++) {
		a[i].st.causes[LAB_CAUSE_CONNECT_REFUSED] = a[i].st.failed;
		a[i].st.phases[LAB_PHASE_NO_VIP] = a[i].st.failed - 1;
		a[i].st.phases[LAB_PHASE_OTHER] = 1;
	}
	assert_int_equal(lab_repeat_stats(&r, "x", "failed", &st), 0);
	assert_int_equal(st.n, 2);
	assert_true(st.median == 15 && st.min == 10 && st.max == 20);
	assert_int_equal(lab_repeat_stats(&r, "x", "detect_ms", &st), 0);
	assert_true(st.n == 2 && st.median == 1200);
	assert_int_equal(lab_repeat_stats(&r, "x", "fence_ms", &st), 0);
	assert_int_equal(st.n, 0);
	assert_int_equal(lab_repeat_stats(&r, "z", "failed", &st), 0);
	assert_int_equal(st.n, 0);
	assert_int_equal(lab_repeat_stats(NULL, "x", "failed", &st), 0);
	assert_int_equal(st.n, 0);
	lab_repeat_sums(&r, "x", causes, phases);
	assert_int_equal(causes[LAB_CAUSE_CONNECT_REFUSED], 30);
	assert_int_equal(phases[LAB_PHASE_NO_VIP], 28);
	assert_int_equal(phases[LAB_PHASE_OTHER], 2);
	/* numbers only, valid runs only, each name once in order */
	assert_int_equal(lab_repeat_timing_names(&r, "x", names), 0);
	assert_int_equal(json_array_size(names), 2);
	assert_string_equal(json_string_value(json_array_get(names, 0)), "detect_ms");
	assert_string_equal(json_string_value(json_array_get(names, 1)), "serve_ms");
	json_decref(names);
	json_decref(t1);
	json_decref(t2);
	json_decref(t3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grouping),
		cmocka_unit_test(test_representative),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_stats_and_sums),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
