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
	G_LB_SERVING,
	G_MASTER_FAILED,
	G_MASTER_GAP,
	G_MASTER_LB_AVOIDABLE,
	G_LB_VIP,
	G_HANG_VIP,
	G_HANG_SERVING,
	G_HANG_TWO_VIP,
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
	assert_string_equal(g[G_RELOAD_ZERO].why,
		"0 failed requests in 0 of 1 valid runs of cpha; cpha: median 2 [2, 2]");
	/* 3 vs 0.25 x 3 failed, 2000 vs 1900 ms: within the resolution */
	assert_string_equal(g[G_LB_FAILED].what,
		"lb-poweroff: failed requests at most 0.25 x haproxy+keepalived's");
	assert_true(g[G_LB_FAILED].comparative);
	assert_int_equal(g[G_LB_FAILED].verdict, LAB_VERDICT_WITHIN_NOISE);
	assert_int_equal(g[G_LB_GAP].verdict, LAB_VERDICT_WITHIN_NOISE);
	/* 5 vs 0.5 x 50, n 1: met, not clearly */
	assert_int_equal(g[G_MASTER_FAILED].verdict, LAB_VERDICT_MET);
	assert_true(g[G_MASTER_FAILED].peer.median == 50); /* the peer's own figure */
	assert_non_null(strstr(g[G_MASTER_FAILED].why, "0.5 x haproxy+keepalived 25 [25, 25]"));
	/* 3000 ms against the bound of 150 ms */
	assert_string_equal(
		g[G_MASTER_GAP].what, "master-poweroff: max gap (ms) at most 150 (cpha, median)");
	assert_false(g[G_MASTER_GAP].comparative);
	assert_int_equal(g[G_MASTER_GAP].verdict, LAB_VERDICT_NOT_MET);
	assert_true(g[G_MASTER_GAP].cpha.median == 3000);
	/* no lb_avoidable_failed in the run: not satisfied */
	assert_int_equal(g[G_MASTER_LB_AVOIDABLE].verdict, LAB_VERDICT_NOT_MET);
	assert_string_equal(g[G_MASTER_LB_AVOIDABLE].why,
		"0 failed requests attributable to the load balancer in 0 of 1 valid runs of cpha");
	assert_string_equal(g[G_LB_VIP].metric, "vip_after_fence");
	assert_int_equal(g[G_LB_VIP].verdict, LAB_VERDICT_MET);
	assert_true(g[G_LB_VIP].cpha.n == 1 && g[G_LB_VIP].cpha.median == 1);
	assert_int_equal(g[G_MASTER_WATCHES].verdict, LAB_VERDICT_WITHIN_NOISE); /* 1500 vs 1400 */
	assert_string_equal(g[G_MASTER_WATCHES].what,
		"master-poweroff: watches restored faster than haproxy+keepalived");
	/* 900 ms against a lower bound of 5000 ms */
	assert_int_equal(g[G_ROLLING_WATCHES].verdict, LAB_VERDICT_MET);

	/* the timings of the new goals */
	a[3].timings = json_pack("{si}", "lb_avoidable_failed", 0);
	a[2].timings = json_pack("{si}", "vip_serving_ms", 450);
	assert_int_equal(lab_goals(&m, g), 0);
	assert_int_equal(g[G_MASTER_LB_AVOIDABLE].verdict, LAB_VERDICT_MET);
	/* 450 against 500 ms: within the resolution of 100 ms */
	assert_int_equal(g[G_LB_SERVING].verdict, LAB_VERDICT_WITHIN_NOISE);
	json_decref(a[2].timings);
	a[2].timings = json_pack("{si}", "vip_serving_ms", 300);
	assert_int_equal(lab_goals(&m, g), 0);
	assert_int_equal(g[G_LB_SERVING].verdict, LAB_VERDICT_MET);
	json_decref(a[2].timings);
	json_decref(a[3].timings);
	a[2].timings = a[3].timings = NULL;

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
		scen("lb-poweroff", 9, 2000, 900),
		scen("lb-poweroff", 900, 90000, 90000), /* invalid */
		scen("lb-poweroff", 10, 2100, 1000),
		scen("lb-poweroff", 12, 2300, 1100),
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
	assert_true(g[G_LB_FAILED].cpha.median == 10 && g[G_LB_FAILED].cpha.max == 12);
	/* 10 [9, 12] against 0.25 x 61 [59, 64] = 15.25 [14.75, 16] */
	assert_int_equal(g[G_LB_FAILED].verdict, LAB_VERDICT_CLEARLY_MET);
	assert_non_null(strstr(g[G_LB_FAILED].why, "vs 0.25 x haproxy+keepalived 15.25 [14.75, 16] "
						   "(n 3): the intervals do not overlap"));
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

/* lb-hang: fenced before the VIP moved, serving within 500 ms of the
 * fence, the VIP on two hosts 0 ms for cpha with the peer's figure shown. */
static void test_hang(void **state)
{
	json_t *yes = json_pack("{sb}", "vip_after_fence", 1);
	json_t *t[3], *pt[3];
	struct lab_scenario a[3], b[3];
	struct lab_run runs[] = {
		{ .stack = "cpha", .scen = a, .nscen = 3 },
		{ .stack = "haproxy+keepalived", .scen = b, .nscen = 3 },
	};
	struct lab_model m = { .runs = runs, .nruns = 2 };
	struct lab_goal g[LAB_NGOALS];
	static const int serving[] = { 150, 180, 210 }, two[] = { 1200, 900, 1500 };

	(void)state;
	for (int i = 0; i < 3; i++) {
		a[i] = scen("lb-hang", 10, 500, 300);
		b[i] = scen("lb-hang", 40, 3000, 300);
		a[i].invariants = yes;
		a[i].timings = t[i] =
			json_pack("{sisi}", "serving_after_fence_ms", serving[i], "two_vip_ms", 0);
		b[i].timings = pt[i] = json_pack("{si}", "two_vip_ms", two[i]);
	}
	assert_int_equal(lab_goals(&m, g), 0);
	assert_int_equal(g[G_HANG_VIP].verdict, LAB_VERDICT_MET);
	assert_string_equal(g[G_HANG_VIP].scenario, "lb-hang");
	/* 180 [150, 210] against 500, 3 runs: the interval below the bound */
	assert_int_equal(g[G_HANG_SERVING].verdict, LAB_VERDICT_CLEARLY_MET);
	assert_non_null(strstr(g[G_HANG_SERVING].why, "cpha 180 [150, 210] (n 3) vs the bound"));
	assert_int_equal(g[G_HANG_TWO_VIP].verdict, LAB_VERDICT_MET);
	assert_string_equal(g[G_HANG_TWO_VIP].why,
		"0 ms with the VIP on two hosts in 3 of 3 valid runs of cpha; "
		"haproxy+keepalived: median 1200 [900, 1500] (n 3)");
	assert_true(g[G_HANG_TWO_VIP].peer.n == 3 && g[G_HANG_TWO_VIP].peer.median == 1200);
	/* one cpha run with the VIP on two hosts, one served late */
	json_object_set_new(t[1], "two_vip_ms", json_integer(250));
	json_object_set_new(t[0], "serving_after_fence_ms", json_integer(900));
	json_object_set_new(t[1], "serving_after_fence_ms", json_integer(1000));
	json_object_set_new(t[2], "serving_after_fence_ms", json_integer(1200));
	assert_int_equal(lab_goals(&m, g), 0);
	assert_int_equal(g[G_HANG_TWO_VIP].verdict, LAB_VERDICT_NOT_MET);
	assert_string_equal(g[G_HANG_TWO_VIP].why,
		"0 ms with the VIP on two hosts in 2 of 3 valid runs of cpha; "
		"cpha: median 0 [0, 250]; haproxy+keepalived: median 1200 [900, 1500] (n 3)");
	assert_int_equal(g[G_HANG_SERVING].verdict, LAB_VERDICT_CLEARLY_NOT_MET);
	for (int i = 0; i < 3; i++) {
		json_decref(t[i]);
		json_decref(pt[i]);
	}
	json_decref(yes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resolution),
		cmocka_unit_test(test_single_runs),
		cmocka_unit_test(test_repeats),
		cmocka_unit_test(test_hang),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
