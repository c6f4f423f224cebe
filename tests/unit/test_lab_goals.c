/* cpha lab: the goal table and its verdicts (lab_goals.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "lab_goals.h"
#include "lab_sample.h"
#include "lab_stats.h"

/* An attempt with chosen figures; restored < 0: none broke. */
static struct lab_scenario scen(const char *name, long failed, double gap, double restored)
{
	struct lab_scenario s = { .name = name };

	s.st.requests = 100;
	s.st.failed = failed;
	s.st.max_gap_ms = gap;
	s.st.watches_restored_ms = restored;
	s.st.restored_stat_ms = restored < 0 ? 0 : restored;
	return s;
}

enum {
	G_ROLLING_ZERO,
	G_RELOAD_ZERO,
	G_LB_FAILED,
	G_LB_GAP,
	G_MASTER_FAILED,
	G_MASTER_GAP,
	G_LB_VIP,
	G_MASTER_WATCHES,
	G_ROLLING_WATCHES,
};

static void test_resolution(void **state)
{
	(void)state;
	assert_true(lab_goal_resolution("failed") == 3);
	assert_true(lab_goal_resolution("max_gap_ms") == 100);
	assert_true(lab_goal_resolution("watches_restored_ms") == 100);
	assert_true(lab_goal_resolution("detect_ms") == 100);
	assert_true(lab_goal_resolution("vip_after_fence") == 0);
	assert_true(lab_goal_resolution("_ms") == 0);
}

/* One run per scenario and stack: the table's rows, n = 1 verdicts. */
static void test_single_runs(void **state)
{
	json_t *vip = json_pack("{sb}", "vip_after_fence", 1);
	struct lab_scenario a[] = {
		scen("apiserver-rolling-restart", 0, 100, 900),
		scen("reload-under-load", 2, 300, -1),
		scen("lb-poweroff", 3, 2000, 1000),
		scen("master-poweroff", 5, 3000, 1500),
	};
	struct lab_scenario b[] = {
		scen("apiserver-rolling-restart", 9, 100, 5000),
		scen("lb-poweroff", 3, 1900, 1000),
		scen("master-poweroff", 50, 9000, 1400),
	};
	struct lab_run runs[] = {
		{ .stack = "cpha", .scen = a, .nscen = 4 },
		{ .stack = "haproxy+keepalived", .scen = b, .nscen = 3 },
	};
	struct lab_model m = { .runs = runs, .nruns = 2 };
	struct lab_goal g[LAB_NGOALS];

	(void)state;
	a[2].invariants = vip;
	b[0].st.never_restored = 2;
	assert_int_equal(lab_goals(&m, g), 0);
	assert_string_equal(
		g[G_ROLLING_ZERO].what, "apiserver-rolling-restart: 0 failed requests (cpha)");
	assert_string_equal(g[G_ROLLING_ZERO].scenario, "apiserver-rolling-restart");
	assert_string_equal(g[G_ROLLING_ZERO].metric, "failed");
	assert_false(g[G_ROLLING_ZERO].comparative);
	assert_int_equal(g[G_ROLLING_ZERO].verdict, LAB_VERDICT_MET);
	assert_int_equal(g[G_ROLLING_ZERO].cpha.n, 1);
	assert_int_equal(g[G_RELOAD_ZERO].verdict, LAB_VERDICT_NOT_MET);
	assert_string_equal(g[G_RELOAD_ZERO].why, "0 failed requests in 0 of 1 valid runs of cpha");
	/* 3 vs 3 failed, 2000 vs 1900 ms: the difference is the resolution */
	assert_string_equal(g[G_LB_FAILED].what,
		"lb-poweroff: failed requests no worse than haproxy+keepalived");
	assert_true(g[G_LB_FAILED].comparative);
	assert_int_equal(g[G_LB_FAILED].verdict, LAB_VERDICT_WITHIN_NOISE);
	assert_int_equal(g[G_LB_GAP].verdict, LAB_VERDICT_WITHIN_NOISE);
	assert_int_equal(
		g[G_MASTER_FAILED].verdict, LAB_VERDICT_MET); /* 5 vs 50, n 1: not clearly */
	assert_int_equal(g[G_MASTER_GAP].verdict, LAB_VERDICT_MET);
	assert_true(g[G_MASTER_GAP].cpha.median == 3000 && g[G_MASTER_GAP].peer.median == 9000);
	assert_string_equal(g[G_LB_VIP].metric, "vip_after_fence");
	assert_int_equal(g[G_LB_VIP].verdict, LAB_VERDICT_MET);
	assert_true(g[G_LB_VIP].cpha.n == 1 && g[G_LB_VIP].cpha.median == 1);
	assert_int_equal(g[G_MASTER_WATCHES].verdict, LAB_VERDICT_WITHIN_NOISE); /* 1500 vs 1400 */
	assert_string_equal(g[G_MASTER_WATCHES].what,
		"master-poweroff: watches restored faster than haproxy+keepalived");
	/* 900 ms against a lower bound of 5000 ms */
	assert_int_equal(g[G_ROLLING_WATCHES].verdict, LAB_VERDICT_MET);

	/* without the peer: the comparisons are not measured */
	m.nruns = 1;
	assert_int_equal(lab_goals(&m, g), 0);
	assert_int_equal(g[G_LB_FAILED].verdict, LAB_VERDICT_NOT_MET);
	assert_string_equal(g[G_LB_FAILED].why, "not measured: no valid run of the peer stack");
	assert_int_equal(g[G_ROLLING_WATCHES].verdict, LAB_VERDICT_NOT_MET);
	/* without the scenarios: nothing measured */
	m.nruns = 0;
	assert_int_equal(lab_goals(&m, g), 0);
	for (int i = 0; i < LAB_NGOALS; i++) {
		assert_int_equal(g[i].verdict, LAB_VERDICT_NOT_MET);
		assert_non_null(strstr(g[i].why, "not measured: no valid run of "));
	}
	json_decref(vip);
}

/* Three valid runs a side and an invalid one that would change everything. */
static void test_repeats(void **state)
{
	json_t *yes = json_pack("{sb}", "vip_after_fence", 1);
	json_t *no = json_pack("{sb}", "vip_after_fence", 0);
	struct lab_scenario a[] = {
		scen("lb-poweroff", 36, 2000, 900),
		scen("lb-poweroff", 900, 90000, 90000), /* invalid */
		scen("lb-poweroff", 38, 2100, 1000),
		scen("lb-poweroff", 41, 2300, 1100),
	};
	struct lab_scenario b[] = {
		scen("lb-poweroff", 59, 3000, 1000),
		scen("lb-poweroff", 61, 3500, 1000),
		scen("lb-poweroff", 64, 3300, 1000),
	};
	struct lab_run runs[] = {
		{ .stack = "cpha", .scen = a, .nscen = 4 },
		{ .stack = "haproxy+keepalived", .scen = b, .nscen = 3 },
	};
	struct lab_model m = { .runs = runs, .nruns = 2 };
	struct lab_goal g[LAB_NGOALS];

	(void)state;
	a[1].invalid = true;
	a[1].invariants = no;
	for (int i = 0; i < 4; i++)
		if (i != 1)
			a[i].invariants = yes;
	assert_int_equal(lab_goals(&m, g), 0);
	assert_int_equal(g[G_LB_FAILED].cpha.n, 3);
	assert_true(g[G_LB_FAILED].cpha.median == 38 && g[G_LB_FAILED].cpha.max == 41);
	assert_int_equal(g[G_LB_FAILED].verdict, LAB_VERDICT_CLEARLY_MET);
	assert_int_equal(g[G_LB_GAP].verdict, LAB_VERDICT_CLEARLY_MET);
	assert_int_equal(g[G_LB_VIP].verdict, LAB_VERDICT_MET);
	assert_string_equal(g[G_LB_VIP].why, "vip_after_fence true in 3 of 3 valid runs of cpha");
	assert_int_equal(g[G_MASTER_WATCHES].verdict, LAB_VERDICT_NOT_MET); /* no master-poweroff */

	/* a valid run with the invariant false, then one that did not judge it */
	a[3].invariants = no;
	assert_int_equal(lab_goals(&m, g), 0);
	assert_int_equal(g[G_LB_VIP].verdict, LAB_VERDICT_NOT_MET);
	assert_int_equal(g[G_LB_VIP].cpha.n, 3);
	a[3].invariants = NULL;
	assert_int_equal(lab_goals(&m, g), 0);
	assert_int_equal(g[G_LB_VIP].verdict, LAB_VERDICT_NOT_MET);
	assert_int_equal(g[G_LB_VIP].cpha.n, 2);
	assert_string_equal(g[G_LB_VIP].why, "vip_after_fence true in 2 of 3 valid runs of cpha");

	/* one cpha run left valid: met, no longer clearly */
	a[0].not_started = true;
	a[2].invalid = true;
	assert_int_equal(lab_goals(&m, g), 0);
	assert_int_equal(g[G_LB_FAILED].cpha.n, 1);
	assert_int_equal(g[G_LB_FAILED].verdict, LAB_VERDICT_MET);
	/* none valid: not measured */
	a[3].invalid = true;
	assert_int_equal(lab_goals(&m, g), 0);
	assert_int_equal(g[G_LB_FAILED].verdict, LAB_VERDICT_NOT_MET);
	assert_string_equal(g[G_LB_FAILED].why, "not measured: no valid run of cpha");
	assert_int_equal(g[G_LB_VIP].verdict, LAB_VERDICT_NOT_MET);
	json_decref(yes);
	json_decref(no);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resolution),
		cmocka_unit_test(test_single_runs),
		cmocka_unit_test(test_repeats),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
