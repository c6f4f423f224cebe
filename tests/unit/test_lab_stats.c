/* cpha lab: event lines, window statistics and goals (lab_stats.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "lab_stats.h"

static void add_event(struct lab_events *e, const char *line)
{
	struct lab_event ev;
	char why[200] = "";

	if (lab_event_parse(line, &ev, why, sizeof(why)) < 0)
		fail_msg("%s: %s", line, why);
	assert_int_equal(lab_events_add(e, &ev), 0);
}

static void add_req(struct lab_events *e, double t, bool ok)
{
	char line[128];

	snprintf(line, sizeof(line), "{\"t\":%.3f,\"k\":\"readyz\",\"ok\":%s,\"ms\":1,\"code\":%d}",
		t, ok ? "true" : "false", ok ? 200 : 0);
	add_event(e, line);
}

static void test_parse(void **state)
{
	struct lab_event ev;
	char why[200];

	(void)state;
	assert_int_equal(lab_event_parse("{\"t\":12.5,\"k\":\"start\",\"server\":\"x\","
					 "\"interval_ms\":100,\"watches\":50}",
				 &ev, why, sizeof(why)),
		0);
	assert_int_equal(ev.kind, LAB_EV_START);
	assert_int_equal(ev.watches, 50);
	assert_true(ev.t == 12.5);
	assert_int_equal(lab_event_parse("{\"t\":1,\"k\":\"lease_put\",\"ok\":false,\"n\":3}", &ev,
				 why, sizeof(why)),
		0);
	assert_int_equal(ev.kind, LAB_EV_REQ);
	assert_int_equal(ev.n, 3);
	assert_false(ev.ok);
	assert_int_equal(lab_event_parse("{\"t\":1,\"k\":\"watch_break\",\"w\":7,\"err\":\"x\"}",
				 &ev, why, sizeof(why)),
		0);
	assert_int_equal(ev.w, 7);
	assert_int_equal(
		lab_event_parse("{\"t\":1,\"k\":\"future_kind\"}", &ev, why, sizeof(why)), 0);
	assert_int_equal(ev.kind, LAB_EV_OTHER);

	assert_int_equal(lab_event_parse("{\"t\":1,", &ev, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "column"));
	assert_int_equal(lab_event_parse("{\"k\":\"stop\"}", &ev, why, sizeof(why)), -EINVAL);
	assert_int_equal(
		lab_event_parse("{\"t\":1,\"k\":\"readyz\"}", &ev, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "ok"));
	assert_int_equal(
		lab_event_parse("{\"t\":1,\"k\":\"watch_open\"}", &ev, why, sizeof(why)), -EINVAL);
	assert_int_equal(lab_event_parse("{\"t\":1,\"k\":\"readyz\",\"ok\":true,\"n\":0}", &ev, why,
				 sizeof(why)),
		-EINVAL);
}

/* Ten requests a second, all ok: the gap is the tick, edges included. */
static void test_steady(void **state)
{
	struct lab_events e = { 0 };
	struct lab_window w;

	(void)state;
	add_event(&e, "{\"t\":100,\"k\":\"start\",\"watches\":5}");
	for (int i = 0; i < 100; i++)
		add_req(&e, 100.05 + i * 0.1, true);
	lab_window_stats(&e, 101, 105, &w);
	assert_int_equal(w.requests, 40);
	assert_int_equal(w.failed, 0);
	assert_int_equal(w.watches, 5);
	assert_true(w.max_gap_ms > 99 && w.max_gap_ms < 101);
	assert_true(w.availability == 100.0);
	assert_true(w.watches_restored_ms < 0);
	assert_int_equal(w.never_restored, 0);
	assert_int_equal(w.lost_writes, 0);
	lab_events_free(&e);
}

/* The longest gap may sit at either edge of the window. */
static void test_gap_edges(void **state)
{
	struct lab_events e = { 0 };
	struct lab_window w;

	(void)state;
	add_req(&e, 10.0, true);
	add_req(&e, 12.0, false);
	add_req(&e, 13.5, true);
	add_req(&e, 14.0, true);
	/* start edge: nothing ok from 11 to 13.5 */
	lab_window_stats(&e, 11, 14.5, &w);
	assert_int_equal(w.requests, 3);
	assert_int_equal(w.failed, 1);
	assert_true(w.max_gap_ms > 2499 && w.max_gap_ms < 2501);
	assert_true(w.availability > 66.666 && w.availability < 66.668);
	/* end edge: nothing ok after 14 until 20 */
	lab_window_stats(&e, 13, 20, &w);
	assert_true(w.max_gap_ms > 5999 && w.max_gap_ms < 6001);
	lab_events_free(&e);
}

/* A window with no events at all: all of it is a gap, nothing to count. */
static void test_empty_window(void **state)
{
	struct lab_events e = { 0 };
	struct lab_window w;

	(void)state;
	lab_window_stats(&e, 5, 7, &w);
	assert_int_equal(w.requests, 0);
	assert_true(w.availability < 0);
	assert_true(w.max_gap_ms > 1999 && w.max_gap_ms < 2001);
	add_req(&e, 1, true);
	add_req(&e, 9, true);
	lab_window_stats(&e, 5, 7, &w);
	assert_int_equal(w.requests, 0);
	assert_true(w.max_gap_ms > 1999 && w.max_gap_ms < 2001);
	lab_events_free(&e);
}

static void test_watches(void **state)
{
	struct lab_events e = { 0 };
	struct lab_window w;

	(void)state;
	add_event(&e, "{\"t\":1,\"k\":\"start\",\"watches\":3}");
	add_event(&e, "{\"t\":1.1,\"k\":\"watch_open\",\"w\":0}"); /* initial open: not a restore */
	add_event(&e, "{\"t\":10.0,\"k\":\"watch_break\",\"w\":0}");
	add_event(&e, "{\"t\":10.2,\"k\":\"watch_break\",\"w\":1}");
	add_event(&e, "{\"t\":10.3,\"k\":\"watch_break\",\"w\":1}"); /* its reopen failed again */
	add_event(&e, "{\"t\":11.0,\"k\":\"watch_open\",\"w\":0}");
	add_event(&e, "{\"t\":12.5,\"k\":\"watch_open\",\"w\":1}");
	lab_window_stats(&e, 0, 20, &w);
	assert_int_equal(w.watches, 3);
	assert_int_equal(w.watches_broken, 3);
	assert_int_equal(w.never_restored, 0);
	assert_true(w.watches_restored_ms > 2499 && w.watches_restored_ms < 2501);

	/* window ends before watch 1 came back: never restored (by end) */
	lab_window_stats(&e, 0, 12, &w);
	assert_int_equal(w.never_restored, 1);
	assert_true(w.watches_restored_ms < 0);

	/* two outages (two apiservers restarted in turn): the longest episode,
	 * not the time from the first break to the last restore */
	add_event(&e, "{\"t\":30.0,\"k\":\"watch_break\",\"w\":2}");
	add_event(&e, "{\"t\":31.0,\"k\":\"watch_open\",\"w\":2}");
	add_event(&e, "{\"t\":40.0,\"k\":\"watch_break\",\"w\":0}");
	add_event(&e, "{\"t\":41.0,\"k\":\"watch_break\",\"w\":2}");
	add_event(&e, "{\"t\":41.5,\"k\":\"watch_open\",\"w\":0}");
	add_event(&e, "{\"t\":43.0,\"k\":\"watch_open\",\"w\":2}");
	lab_window_stats(&e, 25, 50, &w);
	assert_int_equal(w.watches_broken, 3);
	assert_int_equal(w.never_restored, 0);
	assert_true(w.watches_restored_ms > 2999 && w.watches_restored_ms < 3001);
	lab_events_free(&e);
}

static void test_lost_write(void **state)
{
	struct lab_events e = { 0 };
	struct lab_scenario s = { .name = "x" };
	json_t *inv = json_pack("{sbsbsn}", "no_lost_write", 1, "one_vip_holder", 0, "etcd_odd");

	(void)state;
	add_event(&e, "{\"t\":5,\"k\":\"lost_write\",\"seq_read\":3,\"seq_acked\":4}");
	s.invariants = inv;
	lab_window_stats(&e, 0, 4, &s.st);
	assert_int_equal(s.st.lost_writes, 0);
	assert_int_equal(lab_invariant(&s, "no_lost_write"), 1);
	assert_int_equal(lab_invariant(&s, "one_vip_holder"), 0);
	assert_int_equal(lab_invariant(&s, "etcd_odd"), -1);
	assert_int_equal(lab_invariant(&s, "absent"), -1);
	lab_window_stats(&e, 0, 10, &s.st);
	assert_int_equal(s.st.lost_writes, 1);
	/* the prober's evidence wins over the orchestrator's true */
	assert_int_equal(lab_invariant(&s, "no_lost_write"), 0);
	s.invariants = NULL;
	assert_int_equal(lab_invariant(&s, "no_lost_write"), 0);
	lab_window_stats(&e, 0, 4, &s.st);
	assert_int_equal(lab_invariant(&s, "no_lost_write"), 1);
	json_decref(inv);
	/* a restore from a snapshot: its own invariant judges the loss */
	inv = json_pack("{sb}", "lost_only_after_snapshot", 1);
	s.invariants = inv;
	lab_window_stats(&e, 0, 10, &s.st);
	assert_int_equal(lab_invariant(&s, "no_lost_write"), -1);
	assert_int_equal(lab_invariant(&s, "lost_only_after_snapshot"), 1);
	json_decref(inv);
	lab_events_free(&e);
}

/* The failure fields of request lines, old and new. */
static void test_parse_failure(void **state)
{
	struct lab_event ev;
	char why[200];

	(void)state;
	/* a prober that writes how the transfer failed */
	assert_int_equal(lab_event_parse("{\"t\":1,\"k\":\"readyz\",\"ok\":false,\"ms\":1002,"
					 "\"code\":0,\"curl\":28,\"errno\":0,\"connected\":true,"
					 "\"tls\":false,\"err\":\"SSL connection timeout\"}",
				 &ev, why, sizeof(why)),
		0);
	assert_int_equal(ev.curl, 28);
	assert_int_equal(ev.connected, 1);
	assert_int_equal(ev.tls, 0);
	assert_true(ev.ms == 1002);
	assert_false(ev.not_sent);
	assert_int_equal(ev.cause, LAB_CAUSE_TLS_TIMEOUT);
	assert_int_equal(lab_event_parse("{\"t\":1,\"k\":\"lease_put\",\"ok\":false,\"ms\":0,"
					 "\"code\":0,\"curl\":7,\"errno\":111,\"connected\":false,"
					 "\"tls\":false,\"not_sent\":true,\"err\":\"x\"}",
				 &ev, why, sizeof(why)),
		0);
	assert_true(ev.not_sent);
	assert_int_equal(ev.os_errno, 111);
	assert_int_equal(ev.cause, LAB_CAUSE_CONNECT_REFUSED);
	assert_int_equal(
		lab_event_parse("{\"t\":1,\"k\":\"lease_get\",\"ok\":false,\"ms\":40,"
				"\"code\":503,\"reason\":\"ServiceUnavailable\",\"err\":\"{}\"}",
			&ev, why, sizeof(why)),
		0);
	assert_int_equal(ev.code, 503);
	assert_int_equal(ev.cause, LAB_CAUSE_HTTP_5XX);
	/* an old line: no curl, the text decides; "not sent: " marks it */
	assert_int_equal(lab_event_parse("{\"t\":1,\"k\":\"lease_get\",\"ok\":false,\"ms\":0,"
					 "\"code\":0,\"err\":\"not sent: readyz failed: Connection "
					 "refused\"}",
				 &ev, why, sizeof(why)),
		0);
	assert_int_equal(ev.curl, -1);
	assert_int_equal(ev.connected, -1);
	assert_true(ev.not_sent);
	assert_int_equal(ev.cause, LAB_CAUSE_CONNECT_REFUSED);
	/* an ok line keeps its fields and has no cause to speak of */
	assert_int_equal(lab_event_parse("{\"t\":1,\"k\":\"readyz\",\"ok\":true,\"ms\":3,"
					 "\"code\":200}",
				 &ev, why, sizeof(why)),
		0);
	assert_int_equal(ev.code, 200);
	/* wrong types are errors */
	assert_int_equal(lab_event_parse("{\"t\":1,\"k\":\"readyz\",\"ok\":false,\"curl\":\"7\"}",
				 &ev, why, sizeof(why)),
		-EINVAL);
	assert_non_null(strstr(why, "curl"));
	assert_int_equal(lab_event_parse("{\"t\":1,\"k\":\"readyz\",\"ok\":false,\"errno\":-1}",
				 &ev, why, sizeof(why)),
		-EINVAL);
	assert_int_equal(lab_event_parse("{\"t\":1,\"k\":\"readyz\",\"ok\":false,\"tls\":1}", &ev,
				 why, sizeof(why)),
		-EINVAL);
	assert_non_null(strstr(why, "tls"));
	assert_int_equal(lab_event_parse("{\"t\":1,\"k\":\"readyz\",\"ok\":false,\"ms\":\"3\"}",
				 &ev, why, sizeof(why)),
		-EINVAL);
	assert_int_equal(lab_event_parse("{\"t\":1,\"k\":\"readyz\",\"ok\":false,\"reason\":5}",
				 &ev, why, sizeof(why)),
		-EINVAL);
	/* other kinds do not look at these fields */
	assert_int_equal(lab_event_parse("{\"t\":1,\"k\":\"watch_break\",\"w\":1,\"curl\":\"x\"}",
				 &ev, why, sizeof(why)),
		0);
}

/* Failed requests counted by cause and phase, with their n. */
static void test_causes_phases(void **state)
{
	struct lab_events e = { 0 };
	struct lab_phase_span spans[] = {
		{ LAB_PHASE_BEFORE_DETECT, 10.0, 11.0 },
		{ LAB_PHASE_NO_VIP, 11.0, 12.0 },
	};
	struct lab_scenario s = {
		.name = "x", .start = 9, .end = 20, .phases = spans, .nphases = 2
	};

	(void)state;
	add_req(&e, 9.5, true);
	/* 10.5: in before_detect; 11.5 reaching back 0.6 s over before_detect
	 * and no_vip: before_detect (it met the fault before detection); its
	 * two requests not sent: at 11.5, no_vip */
	add_event(
		&e, "{\"t\":10.5,\"k\":\"readyz\",\"ok\":false,\"ms\":0,\"curl\":7,\"errno\":111}");
	add_event(&e, "{\"t\":11.5,\"k\":\"readyz\",\"ok\":false,\"ms\":600,\"curl\":28,"
		      "\"connected\":false}");
	add_event(&e, "{\"t\":11.5,\"k\":\"lease_put\",\"ok\":false,\"ms\":0,\"n\":2,"
		      "\"err\":\"not sent: readyz failed: Connection timed out after 600 "
		      "milliseconds\"}");
	add_event(&e, "{\"t\":13,\"k\":\"lease_get\",\"ok\":false,\"ms\":5,\"code\":500}");
	add_event(&e,
		"{\"t\":25,\"k\":\"lease_get\",\"ok\":false,\"ms\":5,\"code\":500}"); /* outside */
	lab_scenario_stats(&e, &s);
	assert_int_equal(s.st.failed, 5);
	assert_int_equal(s.st.causes[LAB_CAUSE_CONNECT_REFUSED], 1);
	assert_int_equal(s.st.causes[LAB_CAUSE_CONNECT_TIMEOUT], 3);
	assert_int_equal(s.st.causes[LAB_CAUSE_HTTP_5XX], 1);
	assert_int_equal(s.st.phases[LAB_PHASE_BEFORE_DETECT], 2);
	assert_int_equal(s.st.phases[LAB_PHASE_NO_VIP], 2);
	assert_int_equal(s.st.phases[LAB_PHASE_OTHER], 1);
	/* without phases every failure is in other */
	lab_window_stats(&e, 9, 20, &s.st);
	assert_int_equal(s.st.phases[LAB_PHASE_OTHER], 5);
	assert_int_equal(s.st.causes[LAB_CAUSE_CONNECT_TIMEOUT], 3);
	lab_events_free(&e);
}

/* watches_restored_ms for statistics: 0, the longest episode, or a lower
 * bound when some never came back. */
static void test_restored_stat(void **state)
{
	struct lab_events e = { 0 };
	struct lab_window w;

	(void)state;
	add_event(&e, "{\"t\":1,\"k\":\"start\",\"watches\":2}");
	lab_window_stats(&e, 0, 5, &w);
	assert_true(w.restored_stat_ms == 0);
	add_event(&e, "{\"t\":10.0,\"k\":\"watch_break\",\"w\":0}");
	add_event(&e, "{\"t\":11.0,\"k\":\"watch_open\",\"w\":0}");
	add_event(&e, "{\"t\":20.0,\"k\":\"watch_break\",\"w\":1}");
	lab_window_stats(&e, 0, 15, &w);
	assert_true(w.restored_stat_ms > 999 && w.restored_stat_ms < 1001);
	/* watch 1 never back: from its break at 20 to the end at 22.5 */
	lab_window_stats(&e, 0, 22.5, &w);
	assert_int_equal(w.never_restored, 1);
	assert_true(w.watches_restored_ms > 999 && w.watches_restored_ms < 1001);
	assert_true(w.restored_stat_ms > 2499 && w.restored_stat_ms < 2501);
	/* a longer earlier episode stays the figure */
	lab_window_stats(&e, 0, 20.5, &w);
	assert_true(w.restored_stat_ms > 999 && w.restored_stat_ms < 1001);
	lab_events_free(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_steady),
		cmocka_unit_test(test_gap_edges),
		cmocka_unit_test(test_empty_window),
		cmocka_unit_test(test_watches),
		cmocka_unit_test(test_lost_write),
		cmocka_unit_test(test_parse_failure),
		cmocka_unit_test(test_causes_phases),
		cmocka_unit_test(test_restored_stat),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
