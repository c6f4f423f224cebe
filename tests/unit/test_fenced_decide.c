/* fenced's decisions, scenario by scenario, with explicit times (us):
 * failures, levels, delays and the fencer's turn. Rejoins, merges and
 * quorum-device splits are in test_fenced_decide_merge.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fenced_decide_test.h"

static void test_failure_fenced_by_lowest(void **state)
{
	static const uint32_t m[] = { 2, 3 };
	static const struct decide_left l[] = { { 1, DECIDE_LEFT_NODEDOWN } };

	(void)state;
	setup3(2, 0, false);
	all_up();
	members(T0 + 10 * S, m, 2, l, 1, NULL, 0);
	assert_int_equal(out.n, 1);
	expect_action(0, DECIDE_ACT_FENCE, 0, 0);
	assert_int_equal(nodes[0].state, DECIDE_FENCING);
	decide_result(&st, T0 + 12 * S, 0, 0, true, &out);
	expect_action(0, DECIDE_ACT_FENCED, 0, 0);
	assert_int_equal(out.act[0].by, 2);
	assert_int_equal(nodes[0].state, DECIDE_OK);
	assert_int_equal(nodes[0].fenced_by, 2);
	assert_int_equal(nodes[0].fenced_at, T0 + 12 * S);

	/* node 3 defers to 2, once */
	setup3(3, 0, false);
	all_up();
	members(T0 + 10 * S, m, 2, l, 1, NULL, 0);
	expect_action(0, DECIDE_ACT_DEFER, 0, 0);
	assert_int_equal(out.act[0].by, 2);
	decide_timer(&st, T0 + 11 * S, &out);
	assert_int_equal(out.n, 0);
	assert_int_equal(nodes[0].state, DECIDE_VICTIM);
	decide_remote_fenced(&st, T0 + 12 * S, 1, 2, &out);
	assert_int_equal(nodes[0].state, DECIDE_OK);
	assert_int_equal(nodes[0].fenced_by, 2);
}

static void test_clean_leave_and_procdown(void **state)
{
	static const uint32_t m[] = { 1, 3 };
	static const struct decide_left clean[] = { { 2, DECIDE_LEFT_CLEAN } };
	static const struct decide_left proc[] = { { 2, DECIDE_LEFT_PROCDOWN } };

	(void)state;
	setup3(1, 0, false);
	all_up();
	members(T0 + 10 * S, m, 2, clean, 1, NULL, 0);
	assert_int_equal(out.n, 0);
	assert_int_equal(nodes[1].state, DECIDE_OK);

	setup3(1, 0, false);
	all_up();
	members(T0 + 10 * S, m, 2, proc, 1, NULL, 0);
	expect_action(0, DECIDE_ACT_FENCE, 1, 0); /* fenced died: the node is not trusted */
	/* a member that vanished without a reason failed */
	setup3(1, 0, false);
	all_up();
	members(T0 + 10 * S, m, 2, NULL, 0, NULL, 0);
	expect_action(0, DECIDE_ACT_FENCE, 1, 0);
}

static void test_no_quorum_no_fencing(void **state)
{
	static const uint32_t m[] = { 3 };
	static const struct decide_left l[] = { { 1, DECIDE_LEFT_NODEDOWN },
		{ 2, DECIDE_LEFT_NODEDOWN } };

	(void)state;
	setup3(3, 0, false);
	all_up();
	decide_quorum(&st, T0 + 9 * S, false, &out);
	members(T0 + 10 * S, m, 1, l, 2, NULL, 0);
	assert_int_equal(out.n, 0);
	assert_int_equal(out.deadline, DECIDE_NEVER);
	decide_timer(&st, T0 + 100 * S, &out);
	assert_int_equal(out.n, 0);
	assert_int_equal(nodes[0].state, DECIDE_VICTIM);
	/* quorum back (a third node, say): both due long ago, fenced now */
	decide_quorum(&st, T0 + 200 * S, true, &out);
	assert_int_equal(out.n, 2);
	expect_action(0, DECIDE_ACT_FENCE, 0, 0);
	expect_action(1, DECIDE_ACT_FENCE, 1, 0);
}

static void test_levels_and_retry(void **state)
{
	static const uint32_t m[] = { 1, 2 };
	static const struct decide_left l[] = { { 3, DECIDE_LEFT_NODEDOWN } };
	uint64_t t = T0 + 10 * S;
	unsigned round;

	(void)state;
	setup3(1, 0, false);
	all_up();
	members(t, m, 2, l, 1, NULL, 0);
	expect_action(0, DECIDE_ACT_FENCE, 2, 0);
	for (round = 1; round <= 10; round++) { /* the tenth round as the first */
		decide_result(&st, t + S, 2, 0, false, &out);
		expect_action(0, DECIDE_ACT_FENCE, 2, 1); /* level 1 failed: level 2 at once */
		decide_result(&st, t + 2 * S, 2, 1, false, &out);
		expect_action(0, DECIDE_ACT_ALL_FAILED, 2, 1);
		assert_int_equal(out.act[0].at, t + 12 * S);
		assert_int_equal(out.deadline, t + 12 * S);
		assert_int_equal(nodes[2].rounds, round);
		assert_int_equal(nodes[2].state, DECIDE_VICTIM);
		decide_timer(&st, t + 12 * S - 1, &out);
		assert_int_equal(out.n, 0);
		t += 12 * S;
		decide_timer(&st, t, &out);
		expect_action(0, DECIDE_ACT_FENCE, 2, 0);
	}
	decide_result(&st, t + S, 2, 0, true, &out);
	expect_action(0, DECIDE_ACT_FENCED, 2, 0);
	/* a result for an attempt that is over changes nothing */
	decide_result(&st, t + S, 2, 1, false, &out);
	assert_int_equal(out.n, 0);
	assert_int_equal(nodes[2].state, DECIDE_OK);
}

static void test_post_join_delay(void **state)
{
	static const uint32_t m[] = { 1, 2 };
	static const struct decide_joined j[] = { { 1, true }, { 2, true } };

	(void)state;
	setup3(1, 0, false);
	members(T0, m, 2, NULL, 0, j, 2);
	decide_quorum(&st, T0, true, &out);
	decide_timer(&st, T0 + 6 * S - 1, &out);
	assert_int_equal(out.n, 0);
	decide_timer(&st, T0 + 6 * S, &out);
	expect_action(0, DECIDE_ACT_FENCE, 2, 0); /* node 3 never joined */
	assert_int_equal(nodes[2].delay, 0);      /* no post_fail_delay at start-up */

	setup3(1, 0, true); /* clean_start */
	members(T0, m, 2, NULL, 0, j, 2);
	decide_quorum(&st, T0, true, &out);
	decide_timer(&st, T0 + 6 * S, &out);
	assert_int_equal(out.n, 0);
	assert_int_equal(nodes[2].state, DECIDE_OK);
}

/* Start-up victims and corosync's own membership (cs_member): the lab
 * found a freshly booted LB host, alone in a partition past its
 * post_join_delay, fencing the VIP holder the moment the partition healed
 * (the holder's arrival made it quorate, two_node). The soak found the
 * same with three masters: m1, booted into its partition, became quorate
 * with m2 when it healed and fenced m3 at once, m3 not yet counted by
 * votequorum. post_join_delay now runs from the first quorum. */
static void test_startup_victim_corosync_member(void **state)
{
	static const uint32_t me[] = { 1 }, both[] = { 1, 2 }, all[] = { 1, 2, 3 };
	static const struct decide_joined j1[] = { { 1, true } }, j2[] = { { 2, true } },
					  j23[] = { { 2, true }, { 3, true } };

	(void)state;
	/* two nodes of three (3 unused here); we are 1 and start alone */
	setup3(1, 0, false);
	nodes[2].fenced_at = 1; /* not part of this story */
	members(T0, me, 1, NULL, 0, j1, 1);
	assert_int_equal(out.deadline, DECIDE_NEVER); /* no quorum: no clock */
	decide_timer(&st, T0 + 6 * S, &out);
	assert_int_equal(out.n, 0);
	assert_int_equal(nodes[1].state, DECIDE_OK); /* not before quorum */
	/* the partition heals: corosync sees 2, quorum comes before the
	 * domain join of 2's fenced */
	nodes[1].cs_member = true;
	decide_quorum(&st, T0 + 20 * S, true, &out);
	assert_int_equal(out.n, 0);
	assert_int_equal(out.deadline, T0 + 26 * S);
	members(T0 + 20 * S, both, 2, NULL, 0, j2, 1);
	assert_int_equal(out.n, 0);
	decide_timer(&st, T0 + 26 * S, &out);
	assert_int_equal(out.n, 0);
	assert_int_equal(nodes[1].state, DECIDE_OK);

	/* three masters: quorate with 2 while votequorum does not count 3
	 * yet; 3 is counted, and joins the domain, within the delay */
	setup3(1, 0, false);
	members(T0, me, 1, NULL, 0, j1, 1);
	decide_timer(&st, T0 + 10 * S, &out);
	assert_int_equal(out.n, 0);
	nodes[1].cs_member = true;
	decide_quorum(&st, T0 + 20 * S, true, &out);
	assert_int_equal(out.n, 0); /* nobody fenced the instant of the merge */
	nodes[2].cs_member = true;
	members(T0 + 20 * S + S / 2, all, 3, NULL, 0, j23, 2);
	assert_int_equal(out.n, 0);
	decide_timer(&st, T0 + 26 * S, &out);
	assert_int_equal(out.n, 0);
	assert_int_equal(nodes[1].state, DECIDE_OK);
	assert_int_equal(nodes[2].state, DECIDE_OK);

	/* the same with 2 really gone: fenced post_join_delay after the
	 * quorum, not at once */
	setup3(1, 0, false);
	nodes[2].fenced_at = 1;
	members(T0, me, 1, NULL, 0, j1, 1);
	decide_timer(&st, T0 + 6 * S, &out);
	decide_quorum(&st, T0 + 20 * S, true, &out);
	assert_int_equal(out.n, 0);
	decide_timer(&st, T0 + 26 * S - 1, &out);
	assert_int_equal(out.n, 0);
	decide_timer(&st, T0 + 26 * S, &out);
	expect_action(0, DECIDE_ACT_FENCE, 1, 0);

	/* a start-up victim that corosync counts before it is fenced is up */
	setup3(1, 0, false);
	nodes[2].fenced_at = 1;
	members(T0, me, 1, NULL, 0, j1, 1);
	decide_quorum(&st, T0, true, &out);
	nodes[1].cs_member = false;
	decide_quorum(&st, T0 + 6 * S, false, &out); /* lost before the end */
	decide_timer(&st, T0 + 6 * S, &out);
	assert_int_equal(nodes[1].state, DECIDE_VICTIM);
	nodes[1].cs_member = true;
	decide_quorum(&st, T0 + 7 * S, true, &out);
	expect_action(0, DECIDE_ACT_SKIPPED, 1, DECIDE_SKIP_CS_MEMBER);
	assert_int_equal(nodes[1].state, DECIDE_OK);

	/* a corosync member at the end of post_join_delay is no victim */
	setup3(1, 0, false);
	nodes[2].fenced_at = 1;
	members(T0, me, 1, NULL, 0, j1, 1);
	decide_quorum(&st, T0, true, &out);
	nodes[1].cs_member = true;
	decide_timer(&st, T0 + 6 * S, &out);
	assert_int_equal(out.n, 0);
	assert_int_equal(nodes[1].state, DECIDE_OK);

	/* a member that failed stays a victim even if corosync still lists
	 * it (its fenced died, the host runs): only start-up victims */
	setup3(1, 0, false);
	all_up();
	{
		static const uint32_t m13[] = { 1, 3 };
		static const struct decide_left l[] = { { 2, DECIDE_LEFT_PROCDOWN } };

		nodes[1].cs_member = true;
		members(T0 + 10 * S, m13, 2, l, 1, NULL, 0);
		expect_action(0, DECIDE_ACT_FENCE, 1, 0);
	}
}

static void test_delays(void **state)
{
	static const uint32_t m[] = { 1, 2 };
	static const struct decide_left l[] = { { 3, DECIDE_LEFT_NODEDOWN } };
	uint64_t seen[2];
	int k;

	(void)state;
	/* static delay plus post_fail_delay */
	setup3(1, 2 * S, false);
	nodes[2].cfg.delay = 3 * S;
	all_up();
	members(T0 + 10 * S, m, 2, l, 1, NULL, 0);
	assert_int_equal(out.deadline, T0 + 15 * S);

	/* priority_delay_vip only while the victim holds the VIP */
	setup3(1, 0, false);
	nodes[2].cfg.priority_delay_vip = 5 * S;
	all_up();
	decide_vip(&st, 1);
	members(T0 + 10 * S, m, 2, l, 1, NULL, 0);
	expect_action(0, DECIDE_ACT_FENCE, 2, 0);
	setup3(1, 0, false);
	nodes[2].cfg.priority_delay_vip = 5 * S;
	all_up();
	decide_vip(&st, 3);
	members(T0 + 10 * S, m, 2, l, 1, NULL, 0);
	assert_int_equal(out.n, 0);
	assert_int_equal(out.deadline, T0 + 15 * S);

	/* delay_max: within bounds, and two seeds disagree */
	for (k = 0; k < 2; k++) {
		struct decide_config c = { .post_join_delay = 6 * S, .retry_interval = 10 * S };

		memset(nodes, 0, sizeof(nodes));
		nodes[0].cfg = (struct decide_node_cfg){ .id = 1, .nlevels = 1 };
		nodes[1].cfg = (struct decide_node_cfg){ .id = 2, .nlevels = 1 };
		nodes[2].cfg =
			(struct decide_node_cfg){ .id = 3, .nlevels = 1, .delay_max = 10 * S };
		decide_init(&st, &c, nodes, 3, 1, T0, (uint64_t)k + 1);
		all_up();
		members(T0 + 10 * S, m, 2, l, 1, NULL, 0);
		seen[k] = nodes[2].delay;
		assert_true(seen[k] <= 10 * S);
	}
	assert_true(seen[0] != seen[1]);
}

static void test_fencer_succession(void **state)
{
	static const uint32_t m1[] = { 2, 3 }, m2[] = { 3 }, m3[] = { 1, 3 };
	static const struct decide_left l1[] = { { 1, DECIDE_LEFT_NODEDOWN } };
	static const struct decide_left l2[] = { { 2, DECIDE_LEFT_NODEDOWN } };
	static const struct decide_joined j1[] = { { 1, true } };

	(void)state;
	/* we are 3; 1 fails with post_fail_delay 5 s; 2, the fencer, fails
	 * before: 3 fences both */
	setup3(3, 5 * S, false);
	all_up();
	members(T0 + 10 * S, m1, 2, l1, 1, NULL, 0);
	assert_int_equal(decide_fencer(&st, 0), 2);
	members(T0 + 11 * S, m2, 1, l2, 1, NULL, 0);
	assert_int_equal(decide_fencer(&st, 0), 3);
	decide_timer(&st, T0 + 16 * S, &out);
	assert_int_equal(out.n, 2);
	expect_action(0, DECIDE_ACT_FENCE, 0, 0);
	expect_action(1, DECIDE_ACT_FENCE, 1, 0);

	/* a member that joined after the failure has no complete state: we
	 * (3) fence 2 although 1 has the lower id */
	setup3(3, 5 * S, true);
	members(T0, (const uint32_t[]){ 2, 3 }, 2, NULL, 0, NULL, 0);
	decide_quorum(&st, T0, true, &out);
	members(T0 + 10 * S, m2, 1, l2, 1, NULL, 0);
	members(T0 + 11 * S, m3, 2, NULL, 0, j1, 1);
	assert_int_equal(decide_fencer(&st, 1), 3);
	decide_timer(&st, T0 + 15 * S, &out);
	expect_action(0, DECIDE_ACT_FENCE, 1, 0);
}

static void test_watchdog_only(void **state)
{
	static const uint32_t m[] = { 1, 2 };
	static const struct decide_left l[] = { { 3, DECIDE_LEFT_NODEDOWN } };
	struct decide_config c = {
		.post_join_delay = 6 * S, .retry_interval = 10 * S, .watchdog_timeout = 5 * S
	};

	(void)state;
	memset(nodes, 0, sizeof(nodes));
	nodes[0].cfg = (struct decide_node_cfg){ .id = 1, .nlevels = 1 };
	nodes[1].cfg = (struct decide_node_cfg){ .id = 2, .nlevels = 1 };
	nodes[2].cfg = (struct decide_node_cfg){ .id = 3, .nlevels = 0 };
	decide_init(&st, &c, nodes, 3, 1, T0, 7);
	all_up();
	members(T0 + 10 * S, m, 2, l, 1, NULL, 0);
	assert_int_equal(out.n, 0);
	assert_int_equal(out.deadline, T0 + 20 * S); /* 2 x timeout */
	decide_timer(&st, T0 + 20 * S, &out);
	expect_action(0, DECIDE_ACT_FENCED, 2, 0);
	assert_int_equal(out.act[0].by, 0);
	assert_int_equal(nodes[2].state, DECIDE_OK);
}

/* Found by integration.fenced_cluster: a node that failed and was fenced
 * before post_join_delay ended was made a victim again at its end (it was
 * not a member then: it was off). */
static void test_join_deadline_spares_seen_nodes(void **state)
{
	static const uint32_t m[] = { 1, 2 };
	static const uint32_t m3[] = { 1, 2, 3 };
	static const struct decide_joined j3[] = { { 1, true }, { 2, true }, { 3, true } };
	static const struct decide_left l[] = { { 3, DECIDE_LEFT_NODEDOWN } };

	(void)state;
	setup3(1, 0, false);
	members(T0, m3, 3, NULL, 0, j3, 3);
	decide_quorum(&st, T0, true, &out);
	members(T0 + 1 * S, m, 2, l, 1, NULL, 0);
	expect_action(0, DECIDE_ACT_FENCE, 2, 0);
	decide_result(&st, T0 + 2 * S, 2, 0, true, &out);
	expect_action(0, DECIDE_ACT_FENCED, 2, 0);
	decide_timer(&st, T0 + 6 * S, &out); /* post_join_delay ends: node 3 is off */
	assert_int_equal(out.n, 0);
	assert_int_equal(nodes[2].state, DECIDE_OK);
	assert_int_equal(out.deadline, DECIDE_NEVER);
}

/* No level and no watchdog: never "fenced" by itself; reported every
 * retry_interval until acked. */
static void test_unfenceable(void **state)
{
	static const uint32_t m[] = { 1, 2 };
	static const struct decide_left l[] = { { 3, DECIDE_LEFT_NODEDOWN } };
	unsigned round;

	(void)state;
	setup3(1, 0, false);
	nodes[2].cfg.nlevels = 0;
	all_up();
	members(T0 + 10 * S, m, 2, l, 1, NULL, 0);
	for (round = 1; round <= 10; round++) {
		expect_action(0, DECIDE_ACT_ALL_FAILED, 2, 0);
		assert_int_equal(nodes[2].rounds, round);
		assert_int_equal(nodes[2].state, DECIDE_VICTIM);
		assert_int_equal(out.deadline, T0 + 10 * S + round * 10 * S);
		decide_timer(&st, out.deadline, &out);
	}
	decide_remote_fenced(&st, T0 + 200 * S, 3, 1, &out); /* the ack */
	assert_int_equal(nodes[2].state, DECIDE_OK);
	assert_int_equal(out.deadline, DECIDE_NEVER);
}

/* decide.h: overdue once its delay and one round of its levels have passed
 * since it failed; failed once a whole round failed, until it is fenced. */
static void test_overdue_and_failed(void **state)
{
	static const uint32_t m[] = { 1, 2 }, m3[] = { 3 };
	static const struct decide_left l[] = { { 3, DECIDE_LEFT_NODEDOWN } };
	static const struct decide_left l12[] = { { 1, DECIDE_LEFT_NODEDOWN },
		{ 2, DECIDE_LEFT_NODEDOWN } };
	uint64_t t = T0 + 10 * S;

	(void)state;
	setup3(1, 2 * S, false);
	nodes[2].cfg.delay = 3 * S;
	nodes[2].cfg.round_timeout = 20 * S;
	all_up();
	assert_int_equal(decide_overdue_at(&st, 2), DECIDE_NEVER); /* not pending */
	assert_false(decide_failed(&st, 2));
	assert_int_equal(decide_overdue_at(&st, 7), DECIDE_NEVER); /* no such node */
	assert_false(decide_failed(&st, 7));
	members(t, m, 2, l, 1, NULL, 0);
	/* post_fail_delay 2 s + delay 3 s + a round 20 s */
	assert_int_equal(decide_overdue_at(&st, 2), t + 25 * S);
	assert_false(decide_failed(&st, 2));
	decide_timer(&st, t + 5 * S, &out);
	expect_action(0, DECIDE_ACT_FENCE, 2, 0);
	assert_int_equal(decide_overdue_at(&st, 2), t + 25 * S); /* running: the same */
	decide_result(&st, t + 6 * S, 2, 0, false, &out);
	assert_false(decide_failed(&st, 2)); /* level 2 still to try */
	decide_result(&st, t + 7 * S, 2, 1, false, &out);
	expect_action(0, DECIDE_ACT_ALL_FAILED, 2, 1);
	assert_true(decide_failed(&st, 2));
	/* the retry does not move the deadline: it was missed for good */
	assert_int_equal(decide_overdue_at(&st, 2), t + 25 * S);
	decide_timer(&st, t + 17 * S, &out);
	expect_action(0, DECIDE_ACT_FENCE, 2, 0);
	assert_true(decide_failed(&st, 2)); /* still: its last round failed */
	decide_result(&st, t + 18 * S, 2, 0, true, &out);
	expect_action(0, DECIDE_ACT_FENCED, 2, 0);
	assert_false(decide_failed(&st, 2));
	assert_int_equal(decide_overdue_at(&st, 2), DECIDE_NEVER);

	/* another member fences it: its delay_max and priority_delay_vip may
	 * make it later than we are */
	setup3(3, 0, false);
	nodes[0].cfg.delay_max = 4 * S;
	nodes[0].cfg.priority_delay_vip = 5 * S;
	nodes[0].cfg.round_timeout = 10 * S;
	all_up();
	{
		static const uint32_t m23[] = { 2, 3 };
		static const struct decide_left l1[] = { { 1, DECIDE_LEFT_NODEDOWN } };

		members(t, m23, 2, l1, 1, NULL, 0);
	}
	assert_int_equal(nodes[0].state, DECIDE_VICTIM);
	assert_int_equal(decide_fencer(&st, 0), 2);
	assert_int_equal(decide_overdue_at(&st, 0), t + nodes[0].delay + 10 * S + 4 * S + 5 * S);

	/* no quorum: victims wait, and become overdue all the same */
	setup3(3, 0, false);
	nodes[0].cfg.round_timeout = 10 * S;
	all_up();
	decide_quorum(&st, t - S, false, &out);
	members(t, m3, 1, l12, 2, NULL, 0);
	assert_int_equal(out.deadline, DECIDE_NEVER);
	assert_int_equal(decide_overdue_at(&st, 0), t + 10 * S);
	assert_false(decide_failed(&st, 0));
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(decide_node_state_name(DECIDE_OK), "ok");
	assert_string_equal(decide_node_state_name(DECIDE_VICTIM), "victim");
	assert_string_equal(decide_node_state_name(DECIDE_FENCING), "fencing");
	assert_string_equal(decide_node_state_name((enum decide_node_state)9), "unknown");
}

/* A victim whose delay included priority_delay_vip loses that part once
 * its power is read off; other delays stay, and a node not waiting on it
 * is left alone. */
static void test_power_off_drops_vip_delay(void **state)
{
	static const uint32_t m[] = { 1, 2 };
	static const struct decide_left l[] = { { 3, DECIDE_LEFT_NODEDOWN } };

	(void)state;
	setup3(1, 0, false);
	nodes[2].cfg.delay = 2 * S;
	nodes[2].cfg.priority_delay_vip = 8 * S;
	all_up();
	decide_vip(&st, 3);
	members(T0 + 10 * S, m, 2, l, 1, NULL, 0);
	assert_int_equal(out.n, 0);
	assert_int_equal(out.deadline, T0 + 20 * S); /* 2 s + 8 s */
	assert_true(nodes[2].vip_delayed);
	/* read off 1 s after the failure: the static 2 s still counts */
	decide_power_off(&st, T0 + 11 * S, 2, &out);
	assert_int_equal(out.n, 0);
	assert_int_equal(out.deadline, T0 + 12 * S);
	assert_int_equal(nodes[2].delay, 2 * S);
	assert_false(nodes[2].vip_delayed);
	/* a second read changes nothing */
	decide_power_off(&st, T0 + 11 * S, 2, &out);
	assert_int_equal(out.deadline, T0 + 12 * S);
	/* read off after the static delay passed: due at once */
	setup3(1, 0, false);
	nodes[2].cfg.priority_delay_vip = 8 * S;
	all_up();
	decide_vip(&st, 3);
	members(T0 + 10 * S, m, 2, l, 1, NULL, 0);
	decide_power_off(&st, T0 + 11 * S, 2, &out);
	assert_int_equal(out.n, 1);
	expect_action(0, DECIDE_ACT_FENCE, 2, 0);
	/* not the VIP holder when it failed: nothing to drop */
	setup3(1, 0, false);
	nodes[2].cfg.delay = 4 * S;
	nodes[2].cfg.priority_delay_vip = 8 * S;
	all_up();
	decide_vip(&st, 1);
	members(T0 + 10 * S, m, 2, l, 1, NULL, 0);
	decide_power_off(&st, T0 + 11 * S, 2, &out);
	assert_int_equal(out.n, 0);
	assert_int_equal(out.deadline, T0 + 14 * S);
	/* a member (not a victim) read off: nothing happens */
	setup3(1, 0, false);
	nodes[1].cfg.priority_delay_vip = 8 * S;
	all_up();
	decide_vip(&st, 2);
	decide_power_off(&st, T0 + 11 * S, 1, &out);
	assert_int_equal(out.n, 0);
	assert_int_equal(nodes[1].state, DECIDE_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_failure_fenced_by_lowest),
		cmocka_unit_test(test_clean_leave_and_procdown),
		cmocka_unit_test(test_no_quorum_no_fencing),
		cmocka_unit_test(test_levels_and_retry),
		cmocka_unit_test(test_post_join_delay),
		cmocka_unit_test(test_delays),
		cmocka_unit_test(test_power_off_drops_vip_delay),
		cmocka_unit_test(test_startup_victim_corosync_member),
		cmocka_unit_test(test_fencer_succession),
		cmocka_unit_test(test_watchdog_only),
		cmocka_unit_test(test_join_deadline_spares_seen_nodes),
		cmocka_unit_test(test_unfenceable),
		cmocka_unit_test(test_overdue_and_failed),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
