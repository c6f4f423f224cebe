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

static void test_observe_counts_consecutive_errors(void **state)
{
	unsigned e = 0;
	int i;

	(void)state;
	/* two short of the limit, then a success: the count starts over */
	for (i = 0; i < 8; i++)
		assert_false(health_observe(&e, 10, false));
	assert_int_equal(e, 8);
	assert_false(health_observe(&e, 10, true));
	assert_int_equal(e, 0);
	for (i = 0; i < 9; i++)
		assert_false(health_observe(&e, 10, false));
	assert_true(health_observe(&e, 10, false)); /* the 10th in a row */
	assert_int_equal(e, 0);                     /* and it starts over */
	for (i = 0; i < 9; i++)
		assert_false(health_observe(&e, 10, false));
	assert_true(health_observe(&e, 10, false));
	/* a limit of 1: every error */
	assert_true(health_observe(&e, 1, false));
	assert_true(health_observe(&e, 1, false));
}

static void test_on_error_fail_check(void **state)
{
	struct lbd_health h;
	bool failed;

	(void)state;
	health_init(&h, 2, 3, false);
	health_force(&h, true); /* fully up: 4 */
	assert_int_equal(health_on_error(&h, LBD_ONERR_FAIL_CHECK, &failed), LBD_HEALTH_SAME);
	assert_true(failed);
	assert_int_equal(h.health, 3);
	assert_int_equal(health_on_error(&h, LBD_ONERR_FAIL_CHECK, &failed), LBD_HEALTH_SAME);
	assert_int_equal(health_on_error(&h, LBD_ONERR_FAIL_CHECK, &failed), LBD_HEALTH_DOWN);
	assert_false(h.up);
	/* already fully down: nothing changes, no failed check counted */
	assert_int_equal(health_on_error(&h, LBD_ONERR_FAIL_CHECK, &failed), LBD_HEALTH_SAME);
	assert_false(failed);
}

static void test_on_error_sudden_death(void **state)
{
	struct lbd_health h;
	bool failed;

	(void)state;
	health_init(&h, 2, 5, false);
	health_force(&h, true); /* 6 */
	assert_int_equal(health_on_error(&h, LBD_ONERR_SUDDEN_DEATH, &failed), LBD_HEALTH_SAME);
	assert_true(failed);
	assert_true(h.up);
	assert_int_equal(h.health, h.rise); /* one failure from down */
	/* the next failed check, whatever its source, marks it down */
	assert_int_equal(health_report(&h, false), LBD_HEALTH_DOWN);
	/* a success in between brings it back up one step only */
	health_force(&h, true);
	health_on_error(&h, LBD_ONERR_SUDDEN_DEATH, &failed);
	assert_int_equal(health_report(&h, true), LBD_HEALTH_SAME);
	assert_int_equal(health_report(&h, false), LBD_HEALTH_SAME);
	assert_int_equal(health_report(&h, false), LBD_HEALTH_DOWN);
}

static void test_on_error_mark_down_and_fastinter(void **state)
{
	struct lbd_health h;
	bool failed;

	(void)state;
	health_init(&h, 3, 10, false);
	health_force(&h, true);
	assert_int_equal(health_on_error(&h, LBD_ONERR_FASTINTER, &failed), LBD_HEALTH_SAME);
	assert_false(failed);
	assert_int_equal(h.health, 12); /* untouched */
	assert_int_equal(health_on_error(&h, LBD_ONERR_MARK_DOWN, &failed), LBD_HEALTH_DOWN);
	assert_true(failed);
	assert_false(h.up);
	assert_int_equal(h.health, 0);
	/* back after rise passed checks, and down again at once */
	health_report(&h, true);
	health_report(&h, true);
	assert_int_equal(health_report(&h, true), LBD_HEALTH_UP);
	assert_int_equal(health_on_error(&h, LBD_ONERR_MARK_DOWN, &failed), LBD_HEALTH_DOWN);
}

static void test_on_error_names(void **state)
{
	int m;

	(void)state;
	for (m = LBD_ONERR_FAIL_CHECK; m <= LBD_ONERR_MARK_DOWN; m++)
		assert_int_equal(health_on_error_parse(health_on_error_name(m)), m);
	assert_int_equal(health_on_error_parse("sudden-death"), LBD_ONERR_SUDDEN_DEATH);
	assert_int_equal(health_on_error_parse("markdown"), -1);
}

static void test_hedge_at(void **state)
{
	(void)state;
	assert_int_equal(health_hedge_at(1000, 100, 5000), 1100);
	assert_int_equal(health_hedge_at(1000, 100, 0), 1100); /* no timeout connect */
	assert_int_equal(health_hedge_at(1000, 0, 5000), 0);   /* off */
	/* timeout connect ends the attempt first: never */
	assert_int_equal(health_hedge_at(1000, 5000, 5000), 0);
	assert_int_equal(health_hedge_at(1000, 6000, 5000), 0);
	assert_int_equal(health_hedge_at(1000, 4999, 5000), 5999);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_starts_up_and_one_failure_downs),
		cmocka_unit_test(test_fall_and_rise_counts),
		cmocka_unit_test(test_alternating_results_do_not_flap),
		cmocka_unit_test(test_intervals),
		cmocka_unit_test(test_cut_offset),
		cmocka_unit_test(test_observe_counts_consecutive_errors),
		cmocka_unit_test(test_on_error_fail_check),
		cmocka_unit_test(test_on_error_sudden_death),
		cmocka_unit_test(test_on_error_mark_down_and_fastinter),
		cmocka_unit_test(test_on_error_names),
		cmocka_unit_test(test_hedge_at),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
