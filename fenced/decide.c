/* fenced's decisions: see decide.h for the rules. */
#include <string.h>

#include "decide.h"

static void emit(struct decide_out *out, enum decide_action_type type, size_t node, unsigned level,
	uint32_t by, uint64_t at)
{
	if (out->n < DECIDE_MAX_OUT) {
		out->act[out->n].type = type;
		out->act[out->n].node = node;
		out->act[out->n].level = level;
		out->act[out->n].by = by;
		out->act[out->n].at = at;
		out->n++;
	}
}

static uint64_t add(uint64_t t, uint64_t d)
{
	return t > DECIDE_NEVER - d ? DECIDE_NEVER : t + d;
}

/* xorshift64*: delay_max only needs to differ between the two sides */
static uint64_t rnd(struct decide_state *st, uint64_t max)
{
	uint64_t x = st->rnd;

	if (!max)
		return 0;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	st->rnd = x;
	return (x * 2685821657736338717ull) % (max + 1);
}

size_t decide_find(const struct decide_state *st, uint32_t id)
{
	size_t i;

	for (i = 0; i < st->nnodes; i++)
		if (st->nodes[i].cfg.id == id)
			return i;
	return (size_t)-1;
}

void decide_init(struct decide_state *st, const struct decide_config *cfg,
	struct decide_node *nodes, size_t nnodes, uint32_t our_id, uint64_t now, uint64_t seed)
{
	size_t i;

	memset(st, 0, sizeof(*st));
	st->cfg = *cfg;
	st->nodes = nodes;
	st->nnodes = nnodes;
	st->our_id = our_id;
	/* post_join_delay runs from the first quorum, not from start-up */
	st->join_deadline = DECIDE_NEVER;
	st->join_started = false;
	(void)now;
	st->rnd = seed ? seed : 0x9e3779b97f4a7c15ull;
	for (i = 0; i < nnodes; i++) {
		struct decide_node_cfg c = nodes[i].cfg;

		memset(&nodes[i], 0, sizeof(nodes[i]));
		nodes[i].cfg = c;
		nodes[i].state = DECIDE_OK;
		nodes[i].due = DECIDE_NEVER;
	}
}

/* Node i becomes a victim now; after_fail: post_fail_delay applies (a
 * failure, not the start-up rule). */
static void make_victim(
	struct decide_state *st, size_t i, uint64_t now, bool after_fail, uint64_t fail_gen)
{
	struct decide_node *n = &st->nodes[i];
	uint64_t d = 0;

	if (n->state != DECIDE_OK)
		return; /* already a victim: its first failure counts */
	if (after_fail)
		d = add(d, st->cfg.post_fail_delay);
	d = add(d, n->cfg.delay);
	d = add(d, rnd(st, n->cfg.delay_max));
	n->vip_delayed = st->vip_holder && st->vip_holder == n->cfg.id && n->cfg.priority_delay_vip;
	if (n->vip_delayed)
		d = add(d, n->cfg.priority_delay_vip);
	/* no device: its watchdog has reset it 2 x timeout after it lost us */
	if (!n->cfg.nlevels && d < 2 * st->cfg.watchdog_timeout)
		d = 2 * st->cfg.watchdog_timeout;
	n->state = DECIDE_VICTIM;
	n->failed_at = now;
	n->fail_gen = fail_gen;
	n->due = add(now, d);
	n->delay = d;
	n->level = 0;
	n->rounds = 0;
	n->deferred_to = 0;
	n->vq_unsettled = false;
	n->quorate_seen = st->quorate;
}

uint32_t decide_fencer(const struct decide_state *st, size_t i)
{
	uint32_t best = 0, any = 0;
	size_t k;

	for (k = 0; k < st->nnodes; k++) {
		const struct decide_node *m = &st->nodes[k];

		if (!m->member || k == i)
			continue;
		if (!any || m->cfg.id < any)
			any = m->cfg.id;
		if (m->member_gen < st->nodes[i].fail_gen && (!best || m->cfg.id < best))
			best = m->cfg.id;
	}
	/* nobody kept state across the failure (all restarted): someone must */
	return best ? best : any;
}

uint64_t decide_deadline(const struct decide_state *st)
{
	uint64_t d = st->join_deadline;
	size_t i;

	if (!st->quorate)
		return d; /* victims wait for quorum, whatever their time */
	/* an unsettled victim waits for votequorum's notification, which
	 * runs the decisions again: no timer for it */
	for (i = 0; i < st->nnodes; i++)
		if (st->nodes[i].state == DECIDE_VICTIM && !st->nodes[i].vq_unsettled &&
			st->nodes[i].due < d)
			d = st->nodes[i].due;
	return d;
}

uint64_t decide_overdue_at(const struct decide_state *st, size_t i)
{
	const struct decide_node *n;
	uint64_t t;

	if (i >= st->nnodes || st->nodes[i].state == DECIDE_OK)
		return DECIDE_NEVER;
	n = &st->nodes[i];
	t = add(add(n->failed_at, n->delay), n->cfg.round_timeout);
	if (decide_fencer(st, i) != st->our_id)
		t = add(add(t, n->cfg.delay_max), n->vip_delayed ? 0 : n->cfg.priority_delay_vip);
	return t;
}

bool decide_failed(const struct decide_state *st, size_t i)
{
	return i < st->nnodes && st->nodes[i].state != DECIDE_OK && st->nodes[i].rounds > 0;
}

static void begin(struct decide_out *out)
{
	out->n = 0;
}

static void deadline_of(const struct decide_state *st, struct decide_out *out)
{
	out->deadline = decide_deadline(st);
}

static void done(struct decide_state *st, size_t i, uint32_t by, uint64_t now)
{
	struct decide_node *n = &st->nodes[i];

	n->state = DECIDE_OK;
	n->fenced_by = by;
	n->fenced_at = now;
	n->due = DECIDE_NEVER;
	n->level = 0;
	n->deferred_to = 0;
}

/* What is due now. */
static void run_due(struct decide_state *st, uint64_t now, struct decide_out *out)
{
	uint32_t by;
	size_t i;

	if (st->join_deadline != DECIDE_NEVER && now >= st->join_deadline) {
		st->join_deadline = DECIDE_NEVER;
		/* only nodes never seen since we started: one that was a member
		 * and failed is a victim already, one that was fenced is off */
		for (i = 0; i < st->nnodes && !st->cfg.clean_start; i++)
			if (!st->nodes[i].member && !st->nodes[i].member_gen &&
				!st->nodes[i].fenced_at && !st->nodes[i].cs_member &&
				st->nodes[i].cfg.id != st->our_id)
				make_victim(st, i, now, false, st->gen + 1);
	}
	if (!st->quorate)
		return;
	/* quorate now while a victim is out of corosync's membership: from
	 * here on it is ours to fence, whatever it rejoins with */
	for (i = 0; i < st->nnodes; i++) {
		struct decide_node *n = &st->nodes[i];

		if (n->state == DECIDE_VICTIM && !n->member && !n->cs_member && !n->vq_unsettled)
			n->quorate_seen = true;
	}
	for (i = 0; i < st->nnodes; i++) {
		struct decide_node *n = &st->nodes[i];

		if (n->state == DECIDE_VICTIM && n->vq_unsettled)
			continue; /* the quorate flag may be the old membership's */

		if (n->state == DECIDE_VICTIM && !n->member_gen && n->cs_member) {
			/* a start-up victim corosync now counts as a member: up */
			n->state = DECIDE_OK;
			n->due = DECIDE_NEVER;
			n->deferred_to = 0;
			emit(out, DECIDE_ACT_SKIPPED, i, DECIDE_SKIP_CS_MEMBER, 0, now);
			continue;
		}
		if (n->state != DECIDE_VICTIM || now < n->due)
			continue;
		if (n->member && n->cs_member) {
			/* back in corosync's membership and the domain when
			 * its turn came: averted, as RHCS's fenced does. It
			 * was out without quorum, so it acted on nothing, and
			 * nothing moved away from it while its fence was
			 * pending. The member that fences it says so. */
			by = decide_fencer(st, i);
			n->state = DECIDE_OK;
			n->due = DECIDE_NEVER;
			n->deferred_to = 0;
			emit(out, DECIDE_ACT_SKIPPED, i, DECIDE_SKIP_AVERTED,
				by == st->our_id ? by : 0, now);
			continue;
		}
		if (!n->quorate_seen)
			continue; /* quorate only with it back: the merge decides */
		by = decide_fencer(st, i);
		if (by != st->our_id) {
			if (by && by != n->deferred_to)
				emit(out, DECIDE_ACT_DEFER, i, 0, by, now);
			n->deferred_to = by;
			continue;
		}
		if (!n->cfg.nlevels && !st->cfg.watchdog_timeout) {
			/* no device and no watchdog: nothing can fence it; say so
			 * every retry_interval until an administrator acks it */
			n->rounds++;
			n->due = add(now, st->cfg.retry_interval);
			emit(out, DECIDE_ACT_ALL_FAILED, i, 0, st->our_id, n->due);
			continue;
		}
		if (!n->cfg.nlevels) {
			/* watchdog only: it has reset itself by now */
			done(st, i, 0, now);
			emit(out, DECIDE_ACT_FENCED, i, 0, 0, now);
			continue;
		}
		n->state = DECIDE_FENCING;
		emit(out, DECIDE_ACT_FENCE, i, n->level, st->our_id, now);
	}
}

void decide_membership(struct decide_state *st, uint64_t now, const uint32_t *members,
	size_t nmembers, const struct decide_left *left, size_t nleft,
	const struct decide_joined *joined, size_t njoined, struct decide_out *out)
{
	size_t i, k;
	bool in;

	begin(out);
	st->gen++;
	st->seq++;
	for (i = 0; i < st->nnodes; i++) {
		struct decide_node *n = &st->nodes[i];

		in = false;
		for (k = 0; k < nmembers && !in; k++)
			in = members[k] == n->cfg.id;
		if (in)
			n->cpg_seq = st->seq;
		if (in && !n->member) {
			bool clean = false;

			for (k = 0; k < njoined; k++)
				if (joined[k].id == n->cfg.id)
					clean = joined[k].clean;
			n->member = true;
			n->member_gen = st->gen;
			/* back before being fenced: a fresh start means it was reset
			 * (RHCS skips it); with its old state it is still fenced. An
			 * agent already running is not stopped. */
			/* Nor is one that failed while we had no quorum and
			 * merges back before we had it without it: it was in
			 * the quorate partition, we were not (the other side
			 * fences us if it must). */
			if (n->state == DECIDE_VICTIM && (clean || !n->quorate_seen)) {
				/* spared while ours to fence: the others must know */
				uint32_t by = !clean && decide_fencer(st, i) == st->our_id
						      ? st->our_id
						      : 0;

				n->state = DECIDE_OK;
				n->due = DECIDE_NEVER;
				n->deferred_to = 0;
				emit(out, DECIDE_ACT_SKIPPED, i,
					clean ? DECIDE_SKIP_REJOINED_CLEAN
					      : DECIDE_SKIP_MERGED_QUORATE,
					by, now);
			}
		} else if (!in && n->member) {
			enum decide_left_reason why =
				DECIDE_LEFT_NODEDOWN; /* vanished: a failure */

			for (k = 0; k < nleft; k++)
				if (left[k].id == n->cfg.id)
					why = left[k].reason;
			n->member = false;
			if (why != DECIDE_LEFT_CLEAN && n->cfg.id != st->our_id &&
				n->state == DECIDE_OK) {
				make_victim(st, i, now, true, st->gen);
				/* settled by a notification newer than its last
				 * CPG membership (dispatched first), or by the next */
				n->vq_unsettled =
					why == DECIDE_LEFT_NODEDOWN && n->vq_out_seq <= n->cpg_seq;
				/* a quorate flag votequorum has not settled proves
				 * nothing yet */
				n->quorate_seen = st->quorate && !n->vq_unsettled;
			}
		}
	}
	run_due(st, now, out);
	deadline_of(st, out);
}

void decide_vq_members(struct decide_state *st, const uint32_t *ids, size_t n)
{
	size_t i, k;
	bool in;

	st->seq++;
	for (i = 0; i < st->nnodes; i++) {
		in = false;
		for (k = 0; k < n && !in; k++)
			in = ids[k] == st->nodes[i].cfg.id;
		st->nodes[i].vq_out_seq = in ? 0 : st->seq;
		if (!in)
			st->nodes[i].vq_unsettled = false;
	}
}

void decide_quorum(struct decide_state *st, uint64_t now, bool quorate, struct decide_out *out)
{
	size_t i;

	begin(out);
	/* quorum back: each victim's delay runs again from now (decide.h) */
	for (i = 0; quorate && !st->quorate && i < st->nnodes; i++) {
		struct decide_node *n = &st->nodes[i];

		if (n->state == DECIDE_VICTIM && n->due < add(now, n->delay))
			n->due = add(now, n->delay);
	}
	st->quorate = quorate;
	/* RHCS's fenced joins the domain once quorate and counts
	 * post_join_delay from there: a node started alone (booted into a
	 * partition) gives the others the whole delay after the merge, not
	 * none, to show up before the start-up rule fences them */
	if (quorate && !st->join_started) {
		st->join_started = true;
		st->join_deadline = add(now, st->cfg.post_join_delay);
	}
	run_due(st, now, out);
	deadline_of(st, out);
}

void decide_vip(struct decide_state *st, uint32_t holder)
{
	st->vip_holder = holder;
}

void decide_power_off(struct decide_state *st, uint64_t now, size_t i, struct decide_out *out)
{
	struct decide_node *n = &st->nodes[i];

	begin(out);
	if (i < st->nnodes && n->state == DECIDE_VICTIM && n->vip_delayed) {
		n->vip_delayed = false;
		n->due =
			n->due > n->cfg.priority_delay_vip ? n->due - n->cfg.priority_delay_vip : 0;
		n->delay -=
			n->delay > n->cfg.priority_delay_vip ? n->cfg.priority_delay_vip : n->delay;
	}
	run_due(st, now, out);
	deadline_of(st, out);
}

void decide_timer(struct decide_state *st, uint64_t now, struct decide_out *out)
{
	begin(out);
	run_due(st, now, out);
	deadline_of(st, out);
}

void decide_result(struct decide_state *st, uint64_t now, size_t i, unsigned level, bool ok,
	struct decide_out *out)
{
	struct decide_node *n;

	begin(out);
	if (i >= st->nnodes || st->nodes[i].state != DECIDE_FENCING ||
		st->nodes[i].level != level) {
		deadline_of(st, out); /* stale: someone else's outcome came first */
		return;
	}
	n = &st->nodes[i];
	if (ok) {
		done(st, i, st->our_id, now);
		emit(out, DECIDE_ACT_FENCED, i, level, st->our_id, now);
	} else if (level + 1 < n->cfg.nlevels) {
		n->level = level + 1; /* the next level, at once */
		emit(out, DECIDE_ACT_FENCE, i, n->level, st->our_id, now);
	} else {
		n->level = 0;
		n->rounds++;
		n->state = DECIDE_VICTIM;
		n->due = add(now, st->cfg.retry_interval);
		emit(out, DECIDE_ACT_ALL_FAILED, i, level, st->our_id, n->due);
	}
	deadline_of(st, out);
}

void decide_remote_fenced(
	struct decide_state *st, uint64_t now, uint32_t id, uint32_t by, struct decide_out *out)
{
	size_t i = decide_find(st, id);

	begin(out);
	if (i != (size_t)-1 && st->nodes[i].state != DECIDE_OK)
		done(st, i, by, now);
	deadline_of(st, out);
}

void decide_remote_skipped(
	struct decide_state *st, uint64_t now, uint32_t id, uint32_t by, struct decide_out *out)
{
	size_t i = decide_find(st, id);

	begin(out);
	if (i != (size_t)-1 && st->nodes[i].state == DECIDE_VICTIM && st->nodes[i].member && by &&
		decide_fencer(st, i) == by) {
		st->nodes[i].state = DECIDE_OK;
		st->nodes[i].due = DECIDE_NEVER;
		st->nodes[i].deferred_to = 0;
		emit(out, DECIDE_ACT_SKIPPED, i, DECIDE_SKIP_SPARED, by, now);
	}
	deadline_of(st, out);
}

const char *decide_node_state_name(enum decide_node_state s)
{
	switch (s) {
	case DECIDE_OK:
		return "ok";
	case DECIDE_VICTIM:
		return "victim";
	case DECIDE_FENCING:
		return "fencing";
	}
	return "unknown";
}
