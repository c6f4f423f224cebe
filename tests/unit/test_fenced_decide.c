/* fenced's decisions, scenario by scenario, with explicit times (us). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "decide.h"

#define S  1000000ull
#define T0 (100 * S)

static struct decide_node nodes[4];
static struct decide_state st;
static struct decide_out out;

/* Nodes 1, 2, 3 (index 0, 1, 2), two levels each; we are `me`. */
static void setup3(uint32_t me, uint64_t post_fail, bool clean_start)
{
	struct decide_config c = { .post_join_delay = 6 * S,
		.post_fail_delay = post_fail,
		.retry_interval = 10 * S,
		.clean_start = clean_start };
	unsigned i;

	memset(nodes, 0, sizeof(nodes));
	for (i = 0; i < 3; i++) {
		nodes[i].cfg.id = i + 1;
		nodes[i].cfg.nlevels = 2;
	}
	decide_init(&st, &c, nodes, 3, me, T0, 42);
}

/* CPG's configuration change alone */
static void cpg_only(uint64_t now, const uint32_t *m, size_t n, const struct decide_left *l,
	size_t nl, const struct decide_joined *j, size_t nj)
{
	decide_membership(&st, now, m, n, l, nl, j, nj, &out);
}

/* A membership change as corosync completes it: CPG's change, then
 * votequorum's notification counting the same members with the quorate
 * flag as it stands; out holds the actions of both, in that order. */
static void members(uint64_t now, const uint32_t *m, size_t n, const struct decide_left *l,
	size_t nl, const struct decide_joined *j, size_t nj)
{
	struct decide_out cpg;
	unsigned k;

	decide_membership(&st, now, m, n, l, nl, j, nj, &cpg);
	decide_vq_members(&st, m, n);
	decide_quorum(&st, now, st.quorate, &out);
	for (k = 0; k < out.n && cpg.n < DECIDE_MAX_OUT; k++)
		cpg.act[cpg.n++] = out.act[k];
	cpg.deadline = out.deadline;
	out = cpg;
}

/* All three join at T0, quorate. */
static void all_up(void)
{
	static const uint32_t m[] = { 1, 2, 3 };
	static const struct decide_joined j[] = { { 1, true }, { 2, true }, { 3, true } };

	members(T0, m, 3, NULL, 0, j, 3);
	assert_int_equal(out.n, 0);
	decide_quorum(&st, T0, true, &out);
	assert_int_equal(out.n, 0);
	assert_int_equal(out.deadline, T0 + 6 * S); /* post_join_delay */
	decide_timer(&st, T0 + 6 * S, &out);
	assert_int_equal(out.n, 0); /* everyone joined: nobody to fence */
	assert_int_equal(out.deadline, DECIDE_NEVER);
}

static void expect_action(unsigned k, enum decide_action_type t, size_t node, unsigned level)
{
	assert_true(k < out.n);
	assert_int_equal(out.act[k].type, t);
	assert_int_equal(out.act[k].node, node);
	assert_int_equal(out.act[k].level, level);
}

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
	expect_action(0, DECIDE_ACT_SKIPPED, 1, 0);
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

static void test_rejoin_before_fenced(void **state)
{
	static const uint32_t two[] = { 1, 2 }, three[] = { 1, 2, 3 };
	static const struct decide_left l[] = { { 3, DECIDE_LEFT_NODEDOWN } };
	static const struct decide_joined clean[] = { { 3, true } }, stale[] = { { 3, false } };

	(void)state;
	/* post_fail_delay 5 s: node 3 comes back rebooted after 2 s */
	setup3(1, 5 * S, false);
	all_up();
	members(T0 + 10 * S, two, 2, l, 1, NULL, 0);
	assert_int_equal(out.n, 0);
	assert_int_equal(out.deadline, T0 + 15 * S);
	members(T0 + 12 * S, three, 3, NULL, 0, clean, 1);
	expect_action(0, DECIDE_ACT_SKIPPED, 2, 0);
	assert_int_equal(nodes[2].state, DECIDE_OK);
	decide_timer(&st, T0 + 15 * S, &out);
	assert_int_equal(out.n, 0);

	/* the same, but it comes back with its old state: a victim until its
	 * turn, then averted if it is still back in both memberships */
	setup3(1, 5 * S, false);
	all_up();
	members(T0 + 10 * S, two, 2, l, 1, NULL, 0);
	members(T0 + 12 * S, three, 3, NULL, 0, stale, 1);
	nodes[2].cs_member = true;
	assert_int_equal(out.n, 0);
	assert_int_equal(nodes[2].state, DECIDE_VICTIM);
	decide_timer(&st, T0 + 15 * S, &out);
	assert_int_equal(out.n, 1);
	expect_action(0, DECIDE_ACT_SKIPPED, 2, 3);
	assert_int_equal(out.act[0].by, 1); /* ours to fence: broadcast it */
	assert_int_equal(nodes[2].state, DECIDE_OK);

	/* back in the domain but not (yet) counted by corosync at its turn:
	 * fenced */
	setup3(1, 5 * S, false);
	all_up();
	members(T0 + 10 * S, two, 2, l, 1, NULL, 0);
	members(T0 + 12 * S, three, 3, NULL, 0, stale, 1);
	nodes[2].cs_member = false;
	decide_timer(&st, T0 + 15 * S, &out);
	expect_action(0, DECIDE_ACT_FENCE, 2, 0);

	/* gone again before its turn: fenced */
	setup3(1, 5 * S, false);
	all_up();
	members(T0 + 10 * S, two, 2, l, 1, NULL, 0);
	members(T0 + 12 * S, three, 3, NULL, 0, stale, 1);
	nodes[2].cs_member = true;
	members(T0 + 13 * S, two, 2, l, 1, NULL, 0);
	nodes[2].cs_member = false;
	decide_timer(&st, T0 + 15 * S, &out);
	expect_action(0, DECIDE_ACT_FENCE, 2, 0);
}

/* A partition heals: the minority, which had no quorum while the others
 * were away, must not fence them once the merge makes it quorate (the
 * quorate side was right; it fences the minority if it must). */
static void test_minority_does_not_fence_after_merge(void **state)
{
	static const uint32_t alone[] = { 3 }, three[] = { 1, 2, 3 };
	static const struct decide_left l[] = { { 1, DECIDE_LEFT_NODEDOWN },
		{ 2, DECIDE_LEFT_NODEDOWN } };
	static const struct decide_joined stale[] = { { 1, false }, { 2, false } };

	(void)state;
	setup3(3, 0, false);
	all_up();
	/* node 3 cut off: no quorum, 1 and 2 victims in its view */
	decide_quorum(&st, T0 + 9 * S, false, &out);
	members(T0 + 10 * S, alone, 1, l, 2, NULL, 0);
	assert_int_equal(out.n, 0);
	assert_int_equal(nodes[0].state, DECIDE_VICTIM);
	/* the cut heals: corosync counts 1 and 2 again, quorum comes back
	 * before the fence domain's merge: nothing is fenced ... */
	nodes[0].cs_member = nodes[1].cs_member = true;
	decide_quorum(&st, T0 + 15 * S, true, &out);
	assert_int_equal(out.n, 0);
	decide_timer(&st, T0 + 16 * S, &out);
	assert_int_equal(out.n, 0);
	/* ... and the merge (their old state) settles them */
	members(T0 + 16 * S, three, 3, NULL, 0, stale, 2);
	assert_int_equal(out.n, 2);
	expect_action(0, DECIDE_ACT_SKIPPED, 0, 1);
	expect_action(1, DECIDE_ACT_SKIPPED, 1, 1);
	assert_int_equal(nodes[0].state, DECIDE_OK);
	assert_int_equal(nodes[1].state, DECIDE_OK);
	decide_timer(&st, T0 + 100 * S, &out);
	assert_int_equal(out.n, 0);

	/* quorum back while one of them is still away (the other rebooted):
	 * the one away is ours to fence, even if it merges back later */
	setup3(3, 0, false);
	all_up();
	decide_quorum(&st, T0 + 9 * S, false, &out);
	members(T0 + 10 * S, alone, 1, l, 2, NULL, 0);
	nodes[0].cs_member = true; /* node 1 is back */
	decide_quorum(&st, T0 + 15 * S, true, &out);
	assert_int_equal(out.n, 1);
	expect_action(0, DECIDE_ACT_FENCE, 1, 0);
	static const uint32_t one_three[] = { 1, 3 };
	static const struct decide_joined clean1[] = { { 1, true } };
	members(T0 + 16 * S, one_three, 2, NULL, 0, clean1, 1);
	expect_action(0, DECIDE_ACT_SKIPPED, 0, 0);
	assert_int_equal(nodes[1].state, DECIDE_FENCING);
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

/* Two nodes with a quorum device. The split as each side sees it: CPG
 * says the peer is down while votequorum, waiting for the device's vote
 * on the new membership, still says quorate. */
static void setup2_qdevice(uint32_t me)
{
	static const uint32_t m[] = { 1, 2 };
	static const struct decide_joined j[] = { { 1, true }, { 2, true } };
	struct decide_config c = { .post_join_delay = 6 * S, .retry_interval = 10 * S };

	memset(nodes, 0, sizeof(nodes));
	nodes[0].cfg.id = 1;
	nodes[1].cfg.id = 2;
	nodes[0].cfg.nlevels = nodes[1].cfg.nlevels = 1;
	decide_init(&st, &c, nodes, 2, me, T0, 7);
	cpg_only(T0, m, 2, NULL, 0, j, 2);
	decide_vq_members(&st, m, 2);
	decide_quorum(&st, T0, true, &out);
	decide_timer(&st, T0 + 6 * S, &out);
	assert_int_equal(out.n, 0);
}

static void test_qdevice_cut_side_never_fences(void **state)
{
	static const uint32_t me[] = { 2 }, both[] = { 1, 2 };
	static const struct decide_left l[] = { { 1, DECIDE_LEFT_NODEDOWN } };

	(void)state;
	setup2_qdevice(2);
	/* the stale flag: quorate, asked at the configuration change */
	cpg_only(T0 + 10 * S, me, 1, l, 1, NULL, 0);
	decide_quorum(&st, T0 + 10 * S, true, &out);
	assert_int_equal(out.n, 0);
	assert_int_equal(nodes[0].state, DECIDE_VICTIM);
	decide_timer(&st, T0 + 20 * S, &out);
	assert_int_equal(out.n, 0);
	/* a notification of the old membership settles nothing */
	decide_vq_members(&st, both, 2);
	decide_quorum(&st, T0 + 21 * S, true, &out);
	assert_int_equal(out.n, 0);
	/* votequorum ends the change: the device said no, no quorum */
	decide_vq_members(&st, me, 1);
	decide_quorum(&st, T0 + 25 * S, false, &out);
	assert_int_equal(out.n, 0);
	decide_timer(&st, T0 + 40 * S, &out);
	assert_int_equal(out.n, 0);
	assert_int_equal(nodes[0].state, DECIDE_VICTIM);
}

static void test_qdevice_quorate_side_fences(void **state)
{
	static const uint32_t me[] = { 1 };
	static const struct decide_left l[] = { { 2, DECIDE_LEFT_NODEDOWN } };

	(void)state;
	setup2_qdevice(1);
	cpg_only(T0 + 10 * S, me, 1, l, 1, NULL, 0);
	assert_int_equal(out.n, 0); /* quorate, but not settled yet */
	decide_vq_members(&st, me, 1);
	decide_quorum(&st, T0 + 12 * S, true, &out);
	assert_int_equal(out.n, 1);
	expect_action(0, DECIDE_ACT_FENCE, 1, 0);
	decide_result(&st, T0 + 14 * S, 1, 0, true, &out);
	expect_action(0, DECIDE_ACT_FENCED, 1, 0);
}

static void test_qdevice_notification_first_and_procdown(void **state)
{
	static const uint32_t me[] = { 1 }, both[] = { 1, 2 };
	static const struct decide_left down[] = { { 2, DECIDE_LEFT_NODEDOWN } };
	static const struct decide_left proc[] = { { 2, DECIDE_LEFT_PROCDOWN } };
	static const struct decide_joined j[] = { { 2, true } };

	(void)state;
	/* votequorum's notification dispatched before CPG's change: newer
	 * than the last CPG membership 2 was in, it settles the victim */
	setup2_qdevice(1);
	decide_vq_members(&st, me, 1);
	decide_quorum(&st, T0 + 10 * S, true, &out);
	cpg_only(T0 + 10 * S, me, 1, down, 1, NULL, 0);
	assert_int_equal(out.n, 1);
	expect_action(0, DECIDE_ACT_FENCE, 1, 0);
	/* fenced down, corosync up: votequorum still counts it and is right
	 * to; no wait (only a node down waits) */
	decide_result(&st, T0 + 12 * S, 1, 0, true, &out);
	cpg_only(T0 + 30 * S, both, 2, NULL, 0, j, 1);
	decide_vq_members(&st, both, 2);
	cpg_only(T0 + 40 * S, me, 1, proc, 1, NULL, 0);
	assert_int_equal(out.n, 1);
	expect_action(0, DECIDE_ACT_FENCE, 1, 0);
}

/* An old notification that left the node out says nothing of a change
 * after it was back in CPG's membership. */
static void test_stale_notification_settles_nothing(void **state)
{
	static const uint32_t me[] = { 1 }, both[] = { 1, 2 };
	static const struct decide_left down[] = { { 2, DECIDE_LEFT_NODEDOWN } };
	static const struct decide_joined j[] = { { 2, false } };

	(void)state;
	setup2_qdevice(1);
	/* 2 gone and fenced, votequorum's notification leaves it out */
	members(T0 + 10 * S, me, 1, down, 1, NULL, 0);
	expect_action(0, DECIDE_ACT_FENCE, 1, 0);
	decide_result(&st, T0 + 11 * S, 1, 0, true, &out);
	/* back in CPG; votequorum's part of that change never completes */
	cpg_only(T0 + 30 * S, both, 2, NULL, 0, j, 1);
	cpg_only(T0 + 31 * S, me, 1, down, 1, NULL, 0);
	assert_int_equal(out.n, 0);
	assert_true(nodes[1].vq_unsettled);
	assert_int_equal(out.deadline, DECIDE_NEVER); /* no timer spinning */
	decide_timer(&st, T0 + 40 * S, &out);
	assert_int_equal(out.n, 0);
	decide_vq_members(&st, me, 1);
	decide_quorum(&st, T0 + 41 * S, true, &out);
	expect_action(0, DECIDE_ACT_FENCE, 1, 0);
}

/* No quorum device. m1 frozen past the token timeout thaws alone: CPG
 * says m2 and m3 left (node down), but the others' join aborts
 * votequorum's part of that change, so the quorate flag stays the old
 * membership's; the next change has them back with their old state and
 * votequorum counts all three. m1 fences nobody (it is the one the
 * others fence). */
static void test_thawed_node_fences_nobody(void **state)
{
	static const uint32_t me[] = { 1 }, all[] = { 1, 2, 3 };
	static const struct decide_left down[] = { { 2, DECIDE_LEFT_NODEDOWN },
		{ 3, DECIDE_LEFT_NODEDOWN } };
	static const struct decide_joined old[] = { { 2, false }, { 3, false } };

	(void)state;
	setup3(1, 0, false);
	all_up();
	cpg_only(T0 + 100 * S, me, 1, down, 2, NULL, 0);
	decide_quorum(&st, T0 + 100 * S, true, &out); /* the stale flag */
	assert_int_equal(out.n, 0);
	assert_int_equal(nodes[1].state, DECIDE_VICTIM);
	assert_int_equal(nodes[2].state, DECIDE_VICTIM);
	assert_int_equal(out.deadline, DECIDE_NEVER);
	members(T0 + 100 * S + 300000, all, 3, NULL, 0, old, 2);
	assert_int_equal(out.n, 2);
	expect_action(0, DECIDE_ACT_SKIPPED, 1, 1);
	expect_action(1, DECIDE_ACT_SKIPPED, 2, 1);
	decide_timer(&st, T0 + 200 * S, &out);
	assert_int_equal(out.n, 0);
	assert_int_equal(nodes[1].state, DECIDE_OK);
	assert_int_equal(nodes[2].state, DECIDE_OK);
}

/* The soak's stale fence: m3 left during loss on its link and merged back
 * 0.45 s later with its old state. m1, the member to fence it, had not yet
 * seen quorum without it and spared it; m2 had, deferred to m1, and kept
 * the victim until m1 left 94 s later, then fenced a healthy m3. The
 * fencer now says it spared it, and m2 drops it. */
static void test_spared_victim_dropped_everywhere(void **state)
{
	static const uint32_t m12[] = { 1, 2 }, all[] = { 1, 2, 3 }, m23[] = { 2, 3 };
	static const struct decide_left down3[] = { { 3, DECIDE_LEFT_NODEDOWN } };
	static const struct decide_left down1[] = { { 1, DECIDE_LEFT_NODEDOWN } };
	static const struct decide_joined old3[] = { { 3, false } };
	uint64_t t = T0 + 100 * S;
	unsigned k;

	(void)state;
	/* m1: its quorate flag still false when m3 left; m3 back first */
	setup3(1, 0, false);
	all_up();
	decide_quorum(&st, t, false, &out);
	cpg_only(t, m12, 2, down3, 1, NULL, 0);
	assert_int_equal(nodes[2].state, DECIDE_VICTIM);
	cpg_only(t + 450000, all, 3, NULL, 0, old3, 1);
	assert_int_equal(out.n, 1);
	expect_action(0, DECIDE_ACT_SKIPPED, 2, 1);
	assert_int_equal(out.act[0].by, 1); /* ours to fence: broadcast it */
	assert_int_equal(nodes[2].state, DECIDE_OK);

	/* m2: quorate without m3, m1 fences it; then m1's word */
	setup3(2, 0, false);
	all_up();
	members(t, m12, 2, down3, 1, NULL, 0);
	assert_int_equal(out.n, 1);
	expect_action(0, DECIDE_ACT_DEFER, 2, 0);
	assert_int_equal(out.act[0].by, 1);
	members(t + 450000, all, 3, NULL, 0, old3, 1);
	assert_int_equal(nodes[2].state, DECIDE_VICTIM); /* with its old state */
	/* a member that is not the one to fence it has no say */
	decide_remote_skipped(&st, t + 460000, 3, 3, &out);
	assert_int_equal(out.n, 0);
	assert_int_equal(nodes[2].state, DECIDE_VICTIM);
	decide_remote_skipped(&st, t + 470000, 3, 1, &out);
	assert_int_equal(out.n, 1);
	expect_action(0, DECIDE_ACT_SKIPPED, 2, 2);
	assert_int_equal(out.act[0].by, 1);
	assert_int_equal(nodes[2].state, DECIDE_OK);
	/* m1 leaves 94 s later: m2 fences m1 in time, never m3 */
	members(t + 94 * S, m23, 2, down1, 1, NULL, 0);
	decide_timer(&st, t + 200 * S, &out);
	for (k = 0; k < out.n; k++)
		assert_false(out.act[k].type == DECIDE_ACT_FENCE && out.act[k].node == 2);
	assert_int_equal(nodes[2].state, DECIDE_OK);
	assert_int_not_equal(nodes[0].state, DECIDE_OK);
}

/* The soak's fence without cause: packet loss broke the masters' ring; m2
 * and m3 formed a quorate membership without m1, and 0.24 s later all
 * three were back, m1 with its old state. With a post_fail_delay of 0, m2
 * fenced m1 at once. With a delay, m1 is back in both memberships when its
 * turn comes: m2 (the member to fence it) averts the fence and says so,
 * and m3 averts it too, whichever of them comes first. */
static void test_brief_gap_averted(void **state)
{
	static const uint32_t m23[] = { 2, 3 }, all[] = { 1, 2, 3 };
	static const struct decide_left down1[] = { { 1, DECIDE_LEFT_NODEDOWN } };
	static const struct decide_joined old1[] = { { 1, false } };
	uint64_t t = T0 + 100 * S;
	uint32_t me;

	(void)state;
	/* no delay: the fence starts before the merge */
	setup3(2, 0, false);
	all_up();
	members(t, m23, 2, down1, 1, NULL, 0);
	expect_action(0, DECIDE_ACT_FENCE, 0, 0);
	assert_int_equal(nodes[0].state, DECIDE_FENCING);
	nodes[0].cs_member = true;
	members(t + 240000, all, 3, NULL, 0, old1, 1);
	assert_int_equal(nodes[0].state, DECIDE_FENCING); /* its agent runs on */

	for (me = 2; me <= 3; me++) {
		setup3(me, 1 * S, false);
		all_up();
		members(t, m23, 2, down1, 1, NULL, 0);
		assert_int_equal(out.n, 0);
		assert_int_equal(out.deadline, t + 1 * S);
		assert_int_equal(nodes[0].state, DECIDE_VICTIM);
		nodes[0].cs_member = true;
		members(t + 240000, all, 3, NULL, 0, old1, 1);
		assert_int_equal(out.n, 0); /* quorate without it: still a victim */
		assert_int_equal(nodes[0].state, DECIDE_VICTIM);
		decide_timer(&st, t + 1 * S, &out);
		assert_int_equal(out.n, 1);
		expect_action(0, DECIDE_ACT_SKIPPED, 0, 3);
		/* m2 fences it (the lowest id with complete state): m2 tells */
		assert_int_equal(out.act[0].by, me == 2 ? 2 : 0);
		assert_int_equal(nodes[0].state, DECIDE_OK);
		decide_timer(&st, t + 30 * S, &out);
		assert_int_equal(out.n, 0);
		assert_int_equal(out.deadline, DECIDE_NEVER);
	}

	/* m3, whose turn came before the merge: it deferred to m2, and
	 * averts the fence itself once m1 is back (m2's outcome, a fence
	 * already running or its word that it averted it, changes nothing) */
	setup3(3, 1 * S, false);
	all_up();
	members(t, m23, 2, down1, 1, NULL, 0);
	decide_timer(&st, t + 1 * S, &out);
	expect_action(0, DECIDE_ACT_DEFER, 0, 0);
	nodes[0].cs_member = true;
	members(t + 1 * S + 240000, all, 3, NULL, 0, old1, 1);
	assert_int_equal(out.n, 1);
	expect_action(0, DECIDE_ACT_SKIPPED, 0, 3);
	assert_int_equal(out.act[0].by, 0);
	assert_int_equal(nodes[0].state, DECIDE_OK);
	decide_remote_skipped(&st, t + 1 * S + 300000, 1, 2, &out);
	assert_int_equal(out.n, 0);
	assert_int_equal(nodes[0].state, DECIDE_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_failure_fenced_by_lowest),
		cmocka_unit_test(test_clean_leave_and_procdown),
		cmocka_unit_test(test_no_quorum_no_fencing),
		cmocka_unit_test(test_levels_and_retry),
		cmocka_unit_test(test_post_join_delay),
		cmocka_unit_test(test_rejoin_before_fenced),
		cmocka_unit_test(test_minority_does_not_fence_after_merge),
		cmocka_unit_test(test_delays),
		cmocka_unit_test(test_power_off_drops_vip_delay),
		cmocka_unit_test(test_startup_victim_corosync_member),
		cmocka_unit_test(test_fencer_succession),
		cmocka_unit_test(test_watchdog_only),
		cmocka_unit_test(test_join_deadline_spares_seen_nodes),
		cmocka_unit_test(test_unfenceable),
		cmocka_unit_test(test_overdue_and_failed),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_qdevice_cut_side_never_fences),
		cmocka_unit_test(test_qdevice_quorate_side_fences),
		cmocka_unit_test(test_qdevice_notification_first_and_procdown),
		cmocka_unit_test(test_stale_notification_settles_nothing),
		cmocka_unit_test(test_thawed_node_fences_nobody),
		cmocka_unit_test(test_spared_victim_dropped_everywhere),
		cmocka_unit_test(test_brief_gap_averted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
