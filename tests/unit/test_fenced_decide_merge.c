/* fenced's decisions when membership comes back: a victim that rejoins
 * before its fence, a partition that heals, a node thawed after a freeze,
 * a ring broken for a moment, and two nodes split with a quorum device.
 * Times in us. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fenced_decide_test.h"

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
	expect_action(0, DECIDE_ACT_SKIPPED, 2, DECIDE_SKIP_REJOINED_CLEAN);
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
	expect_action(0, DECIDE_ACT_SKIPPED, 2, DECIDE_SKIP_AVERTED);
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
	expect_action(0, DECIDE_ACT_SKIPPED, 0, DECIDE_SKIP_MERGED_QUORATE);
	expect_action(1, DECIDE_ACT_SKIPPED, 1, DECIDE_SKIP_MERGED_QUORATE);
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
	expect_action(0, DECIDE_ACT_SKIPPED, 0, DECIDE_SKIP_REJOINED_CLEAN);
	assert_int_equal(nodes[1].state, DECIDE_FENCING);
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
	expect_action(0, DECIDE_ACT_SKIPPED, 1, DECIDE_SKIP_MERGED_QUORATE);
	expect_action(1, DECIDE_ACT_SKIPPED, 2, DECIDE_SKIP_MERGED_QUORATE);
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
	expect_action(0, DECIDE_ACT_SKIPPED, 2, DECIDE_SKIP_MERGED_QUORATE);
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
	expect_action(0, DECIDE_ACT_SKIPPED, 2, DECIDE_SKIP_SPARED);
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
		expect_action(0, DECIDE_ACT_SKIPPED, 0, DECIDE_SKIP_AVERTED);
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
	expect_action(0, DECIDE_ACT_SKIPPED, 0, DECIDE_SKIP_AVERTED);
	assert_int_equal(out.act[0].by, 0);
	assert_int_equal(nodes[0].state, DECIDE_OK);
	decide_remote_skipped(&st, t + 1 * S + 300000, 1, 2, &out);
	assert_int_equal(out.n, 0);
	assert_int_equal(nodes[0].state, DECIDE_OK);
}

/* A split that heals in steps, as in a soak: 3 cut off from a quorate
 * 1 and 2, then 2 cut off too before 3's turn; 2 comes back first and
 * brings quorum, 3's turn long past. Its delay runs again from then, as
 * RHCS's fenced waits post_fail_delay when its recovery starts: 3 back
 * within it is averted; 3 really gone is fenced once it has run. */
static void test_quorum_back_delay_runs_again(void **state)
{
	static const uint32_t m12[] = { 1, 2 }, m1[] = { 1 }, all[] = { 1, 2, 3 };
	static const struct decide_left down3[] = { { 3, DECIDE_LEFT_NODEDOWN } },
					down2[] = { { 2, DECIDE_LEFT_NODEDOWN } };
	static const struct decide_joined old2[] = { { 2, false } }, old3[] = { { 3, false } };
	uint64_t t = T0 + 100 * S;
	int back;

	(void)state;
	for (back = 0; back <= 1; back++) {
		setup3(1, 1 * S, false);
		all_up();
		members(t, m12, 2, down3, 1, NULL, 0);
		assert_int_equal(out.n, 0);
		assert_int_equal(out.deadline, t + 1 * S);
		/* quorum lost first, then the change that lost it */
		decide_quorum(&st, t + 500000, false, &out);
		members(t + 500000, m1, 1, down2, 1, NULL, 0);
		decide_timer(&st, t + 10 * S, &out);
		assert_int_equal(out.n, 0);
		/* 2 merges back: the change first, then the quorum it brings */
		nodes[1].cs_member = true;
		members(t + 20 * S, m12, 2, NULL, 0, old2, 1);
		expect_action(0, DECIDE_ACT_SKIPPED, 1, DECIDE_SKIP_MERGED_QUORATE);
		decide_quorum(&st, t + 20 * S, true, &out);
		assert_int_equal(out.n, 0); /* not fenced at once */
		assert_int_equal(out.deadline, t + 21 * S);
		assert_int_equal(nodes[2].state, DECIDE_VICTIM);
		if (back) {
			nodes[2].cs_member = true;
			members(t + 20 * S + 300000, all, 3, NULL, 0, old3, 1);
			assert_int_equal(out.n, 0);
			decide_timer(&st, t + 21 * S, &out);
			assert_int_equal(out.n, 1);
			expect_action(0, DECIDE_ACT_SKIPPED, 2, DECIDE_SKIP_AVERTED);
			assert_int_equal(out.act[0].by, 1);
		} else {
			decide_timer(&st, t + 21 * S - 1, &out);
			assert_int_equal(out.n, 0);
			decide_timer(&st, t + 21 * S, &out);
			assert_int_equal(out.n, 1);
			expect_action(0, DECIDE_ACT_FENCE, 2, 0);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rejoin_before_fenced),
		cmocka_unit_test(test_minority_does_not_fence_after_merge),
		cmocka_unit_test(test_qdevice_cut_side_never_fences),
		cmocka_unit_test(test_qdevice_quorate_side_fences),
		cmocka_unit_test(test_qdevice_notification_first_and_procdown),
		cmocka_unit_test(test_stale_notification_settles_nothing),
		cmocka_unit_test(test_thawed_node_fences_nobody),
		cmocka_unit_test(test_spared_victim_dropped_everywhere),
		cmocka_unit_test(test_brief_gap_averted),
		cmocka_unit_test(test_quorum_back_delay_runs_again),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
