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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_starts_up_and_one_failure_downs),
		cmocka_unit_test(test_fall_and_rise_counts),
		cmocka_unit_test(test_alternating_results_do_not_flap),
		cmocka_unit_test(test_intervals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
