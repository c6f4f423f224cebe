#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "health.h"

static void test_starts_up_and_one_failure_downs(void **state)
{
	struct lbd_health h;

	(void)state;
	health_init(&h, 2, 3, true);
	assert_true(h.up);
	assert_int_equal(health_report(&h, false), LBD_HEALTH_DOWN);
	assert_false(h.up);
}

static void test_fall_and_rise_counts(void **state)
{
	struct lbd_health h;

	(void)state;
	health_init(&h, 2, 3, false);
	assert_int_equal(health_report(&h, true), LBD_HEALTH_SAME);
	assert_int_equal(health_report(&h, true), LBD_HEALTH_UP); /* rise 2 */
	assert_int_equal(health_report(&h, false), LBD_HEALTH_SAME);
	assert_int_equal(health_report(&h, false), LBD_HEALTH_SAME);
	assert_int_equal(health_report(&h, false), LBD_HEALTH_DOWN); /* fall 3 */
	assert_int_equal(health_report(&h, true), LBD_HEALTH_SAME);
	assert_int_equal(health_report(&h, false), LBD_HEALTH_SAME); /* rise starts over */
	assert_int_equal(health_report(&h, true), LBD_HEALTH_SAME);
	assert_int_equal(health_report(&h, true), LBD_HEALTH_UP);
}

static void test_alternating_results_do_not_flap(void **state)
{
	struct lbd_health h;
	int i;

	(void)state;
	health_init(&h, 2, 3, false);
	health_report(&h, true);
	health_report(&h, true);
	for (i = 0; i < 20; i++) {
		assert_int_equal(health_report(&h, false), LBD_HEALTH_SAME);
		assert_int_equal(health_report(&h, true), LBD_HEALTH_SAME);
	}
	assert_true(h.up);
}

static void test_intervals(void **state)
{
	struct lbd_health h;

	(void)state;
	health_init(&h, 2, 2, false);
	assert_int_equal(health_interval(&h, 10, 3, 5), 5); /* fully down */
	health_report(&h, true);
	assert_int_equal(health_interval(&h, 10, 3, 5), 3); /* rising */
	health_report(&h, true);
	assert_int_equal(health_interval(&h, 10, 3, 5), 10); /* fully up */
	health_report(&h, false);
	assert_int_equal(health_interval(&h, 10, 3, 5), 3); /* falling */
	health_report(&h, false);
	assert_int_equal(health_interval(&h, 10, 3, 5), 5);
	assert_int_equal(health_interval(&h, 10, 0, 0), 10); /* unset: inter */
	health_force(&h, true);
	assert_true(h.up);
	assert_int_equal(health_interval(&h, 10, 3, 5), 10);
}

static void test_cut_offset(void **state)
{
	(void)state;
	/* no spread, or one session: at once */
	assert_int_equal(health_cut_offset(3, 10, 0), 0);
	assert_int_equal(health_cut_offset(0, 1, 2000000), 0);
	/* more than one a millisecond would fit: evenly over the whole
	 * window, the first at once */
	assert_int_equal(health_cut_offset(0, 20000, 10000000), 0);
	assert_int_equal(health_cut_offset(10000, 20000, 10000000), 5000000);
	assert_int_equal(health_cut_offset(19999, 20000, 10000000), 9999500);
	/* fewer: one a millisecond, done before the window ends */
	assert_int_equal(health_cut_offset(2500, 5000, 10000000), 2500000);
	/* a handful: one a millisecond, not held up for the window */
	assert_int_equal(health_cut_offset(1, 6, 2000000), 1000);
	assert_int_equal(health_cut_offset(5, 6, 2000000), 5000);
	/* exactly at the rate: the window */
	assert_int_equal(health_cut_offset(1000, 2000, 2000000), 1000000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_starts_up_and_one_failure_downs),
		cmocka_unit_test(test_fall_and_rise_counts),
		cmocka_unit_test(test_alternating_results_do_not_flap),
		cmocka_unit_test(test_intervals),
		cmocka_unit_test(test_cut_offset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
