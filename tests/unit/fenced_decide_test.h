/* Helpers shared by the unit tests of fenced's decisions
 * (test_fenced_decide.c, test_fenced_decide_merge.c): times in
 * microseconds, every test starting at T0. Include after cmocka.h. */
#ifndef FENCED_DECIDE_TEST_H
#define FENCED_DECIDE_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "decide.h"

#define S  1000000ull
#define T0 (100 * S)

static __attribute__((unused)) struct decide_node nodes[4];
static __attribute__((unused)) struct decide_state st;
static __attribute__((unused)) struct decide_out out;

/* Nodes 1, 2, 3 (index 0, 1, 2), two levels each; we are `me`. */
static inline void setup3(uint32_t me, uint64_t post_fail, bool clean_start)
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
static inline void cpg_only(uint64_t now, const uint32_t *m, size_t n, const struct decide_left *l,
	size_t nl, const struct decide_joined *j, size_t nj)
{
	decide_membership(&st, now, m, n, l, nl, j, nj, &out);
}

/* A membership change as corosync completes it: CPG's change, then
 * votequorum's notification counting the same members with the quorate
 * flag as it stands; out holds the actions of both, in that order. */
static inline void members(uint64_t now, const uint32_t *m, size_t n, const struct decide_left *l,
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
static inline void all_up(void)
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

static inline void expect_action(unsigned k, enum decide_action_type t, size_t node, unsigned level)
{
	assert_true(k < out.n);
	assert_int_equal(out.act[k].type, t);
	assert_int_equal(out.act[k].node, node);
	assert_int_equal(out.act[k].level, level);
}

#endif
