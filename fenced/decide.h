/* fenced's decisions, pure: no I/O, no clock, no randomness of its own. The
 * daemon feeds in what corosync says (CPG membership changes with their
 * reasons, votequorum's quorate flag), who holds the VIP (vipd), the
 * results of its agent runs and the outcomes other members broadcast, and
 * the time (monotonic microseconds); it gets back what to do (struct
 * decide_out: actions, then the next deadline at which to call decide_timer()).
 *
 * The rules, after RHCS's fenced:
 * - A member that leaves by failure (node down, process down) becomes a
 *   victim; a clean leave does not. A node of the nodelist that has not
 *   joined by post_join_delay after this node was first quorate is a
 *   victim too, unless clean_start (RHCS's fenced joins the domain once
 *   quorate, and the delay runs from the join: a node that booted alone,
 *   into a partition, must not fence the others the instant the merge
 *   makes it quorate, while corosync's view of them is still settling).
 * - A victim is due post_fail_delay after it failed, plus its node's delay,
 *   a random part up to its delay_max, and its priority_delay_vip when it
 *   holds the VIP (the side of a split that holds the VIP fences first);
 *   not once its power was read off (decide_power_off: a host that is off
 *   races nobody).
 * - Nothing is fenced without quorum: victims wait. When quorum comes back,
 *   each victim's delay runs again from then, if that is later than its
 *   turn: as RHCS's fenced waits post_fail_delay when a quorate domain
 *   starts its recovery. A split healing in steps (two nodes merge, the
 *   third a moment later, as knet finds its links up again) would
 *   otherwise see the first two fence the third at once, its turn long
 *   past, though it was never cut off.
 * - Nor before votequorum has finished the membership change that lost
 *   the victim: a victim that left corosync's membership (node down)
 *   waits for a votequorum notification that leaves it out and came after
 *   the last CPG change it was a member in (decide_vq_members()). CPG
 *   reports a change before votequorum has recalculated the quorum of it,
 *   and votequorum goes on saying the old membership's flag until then:
 *   - with a quorum device, up to quorum.device.sync_timeout while it
 *     waits for the device's vote, so the side of a split cut off from
 *     corosync-qnetd would look quorate and fence the side that keeps
 *     quorum;
 *   - without one, for good when a newer membership interrupts the
 *     change: a node frozen past the token timeout thaws alone, CPG tells
 *     it the others left, the others' join aborts votequorum's part of
 *     that change, and the old quorate flag stays until the merged
 *     membership, which has the others back with their old state.
 *   corosync runs each service's part of a change in turn (CPG's before
 *   votequorum's) and votequorum notifies at the end of its part and
 *   never during one, so a notification that leaves the victim out, and
 *   is newer than the victim's last CPG membership, carries the quorum of
 *   a membership without it. A notification dispatched before CPG's
 *   change counts when it is newer than that last membership.
 * - One member fences: the lowest node id among the members that were
 *   members when the victim failed ("complete" state). The others defer.
 *   If that member leaves, the next one takes over.
 * - The fencer walks the node's levels in order; a failed level falls
 *   through to the next; when all failed, it starts over after
 *   retry_interval (attempt counted, never silently pending).
 * - A victim that rejoins clean (its fenced restarted: the host rebooted)
 *   before it was fenced is skipped. One that rejoins with its old state
 *   (a partition merged) is spared at once by a member that had no quorum
 *   while it was out, as that member saw it. Otherwise it is averted when
 *   its turn comes if it is by then back in both corosync's membership
 *   (cs_member) and the domain, as RHCS's fenced averts it: it was out
 *   without quorum, so it fenced nobody and took nothing over, and nothing
 *   moved away from it (vipd takes no VIP over while a fence is pending).
 *   post_fail_delay is what gives a ring that broke for a moment the time
 *   to merge (a soak: a master out of a quorate membership for 0.24 s was
 *   powered off with a delay of 0). When a victim is dropped this way by
 *   the member that fences it, that member says so to the others, who
 *   drop it too. Without that, a member that deferred to it kept the
 *   victim and fenced it once the fencer left, long after it had merged
 *   back (a soak: 94 s later, a healthy master). A victim whose agent
 *   already runs is fenced all the same.
 * - A node with no level is fenced by its watchdog: treated as fenced
 *   2 x watchdog timeout after it failed. With no watchdog either, nothing
 *   can fence it: every retry_interval it is reported (ALL_FAILED) until an
 *   administrator's ack arrives as a broadcast outcome.
 * - A node fenced, or seen as a member, before post_join_delay ends is not
 *   a start-up victim: the rule is for nodes never seen. Nor is one that
 *   corosync counts as a member (cs_member) when the start-up victim
 *   would be made or fenced: its fenced has not joined yet, the host is
 *   up.
 * - Any member's broadcast outcome ends the victim's entry everywhere.
 * - A pending fence is overdue once the delay it was given and one round of
 *   its levels have passed since it failed (plus delay_max and
 *   priority_delay_vip when another member fences it: that member drew its
 *   own delay). Waiting for quorum does not stop the clock: a victim that
 *   cannot be fenced for want of quorum is overdue all the same. */
#ifndef FENCED_DECIDE_H
#define FENCED_DECIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DECIDE_NEVER   UINT64_MAX
#define DECIDE_MAX_OUT 16

struct decide_node_cfg {
	uint32_t id;                                   /* corosync node id, > 0 */
	uint64_t delay, delay_max, priority_delay_vip; /* us */
	unsigned nlevels;                              /* 0: watchdog only */
	/* us: the longest one round of its levels may take (every agent run
	 * up to its timeout); bounds when its fence is overdue */
	uint64_t round_timeout;
};

struct decide_config {
	uint64_t post_join_delay, post_fail_delay, retry_interval; /* us */
	uint64_t watchdog_timeout;                                 /* us; 0: no watchdog */
	bool clean_start;
};

enum decide_node_state {
	DECIDE_OK,      /* nothing to do: a member, or gone cleanly, or fenced */
	DECIDE_VICTIM,  /* to be fenced when due */
	DECIDE_FENCING, /* we run its level `level` now */
};

enum decide_left_reason {
	DECIDE_LEFT_CLEAN,    /* CPG_REASON_LEAVE: the process left the group */
	DECIDE_LEFT_NODEDOWN, /* CPG_REASON_NODEDOWN */
	DECIDE_LEFT_PROCDOWN, /* CPG_REASON_PROCDOWN */
};

struct decide_node {
	struct decide_node_cfg cfg;
	enum decide_node_state state;
	bool member;          /* in the fence domain now */
	uint64_t member_gen;  /* the membership generation it joined in */
	uint64_t fail_gen;    /* victim: the generation it failed in */
	uint64_t failed_at;   /* victim: when */
	uint64_t due;         /* victim: when to fence it */
	uint64_t delay;       /* victim: the delay applied (for the history) */
	unsigned level;       /* the level tried next (FENCING: being tried) */
	unsigned rounds;      /* rounds of every level that failed */
	uint32_t fenced_by;   /* the last outcome: who fenced it (0: none, or its watchdog) */
	uint64_t fenced_at;   /* and when (0: never) */
	uint32_t deferred_to; /* victim: the member we said would fence it */
	bool vip_delayed;     /* victim: its delay includes priority_delay_vip */
	bool vq_unsettled;    /* victim: left corosync; votequorum has not yet said so */
	uint64_t cpg_seq;     /* the event (decide_state.seq) it was last a CPG member at */
	uint64_t vq_out_seq;  /* the last notification that left it out; 0: the last counted it */
	/* victim: our partition has been quorate while it was out of
	 * corosync's membership. A victim that failed while we had no quorum
	 * and merges back before that (the partition heals) was in the
	 * quorate side: that side decides, and we do not fence it. */
	bool quorate_seen;
	/* corosync counts it as a member now (votequorum), whether or not its
	 * fenced has joined the domain yet: set by the caller before each
	 * call. A node never seen in the domain but a corosync member is no
	 * start-up victim (RHCS's reduce_victims): it is up, and in a
	 * two_node cluster its arrival is what makes the partition quorate. */
	bool cs_member;
};

enum decide_action_type {
	DECIDE_ACT_FENCE,      /* run level .level of node .node (index) */
	DECIDE_ACT_FENCED,     /* we fenced .node (.by 0: its watchdog has by now): broadcast it */
	DECIDE_ACT_ALL_FAILED, /* every level of .node failed: say it loudly; retry at .at */
	DECIDE_ACT_SKIPPED,    /* .node is not fenced after all; .level holds why, an
				* enum decide_skip */
	DECIDE_ACT_DEFER,      /* .node is due, .by (another member) fences it */
};

/* Why a victim was dropped (DECIDE_ACT_SKIPPED's .level). */
enum decide_skip {
	/* it rejoined clean (its fenced restarted) before being fenced */
	DECIDE_SKIP_REJOINED_CLEAN,
	/* it merged back from the quorate side of a partition ours was the
	 * minority of; .by: our id when we were the member to fence it, who
	 * must tell the others (broadcast it), else 0 */
	DECIDE_SKIP_MERGED_QUORATE,
	/* the member to fence it said it spared it; .by: that member */
	DECIDE_SKIP_SPARED,
	/* it was back in corosync's membership and the domain when its turn
	 * came: averted; .by as for DECIDE_SKIP_MERGED_QUORATE */
	DECIDE_SKIP_AVERTED,
	/* a start-up victim that corosync now counts as a member: up */
	DECIDE_SKIP_CS_MEMBER,
};

struct decide_action {
	enum decide_action_type type;
	size_t node;
	unsigned level;
	uint32_t by;
	uint64_t at;
};

struct decide_out {
	struct decide_action act[DECIDE_MAX_OUT];
	unsigned n;
	uint64_t deadline; /* call decide_timer() then; DECIDE_NEVER: no timer */
};

struct decide_state {
	struct decide_config cfg;
	struct decide_node *nodes; /* the nodelist; owned by the caller */
	size_t nnodes;
	uint32_t our_id;
	bool quorate;
	uint32_t vip_holder;    /* node id holding the VIP; 0: none known */
	uint64_t gen;           /* membership generation */
	uint64_t seq;           /* CPG changes and votequorum notifications, counted */
	uint64_t join_deadline; /* start-up: post_join_delay ends; DECIDE_NEVER before
				 * the first quorum and once done */
	bool join_started;      /* quorate once: join_deadline was set */
	uint64_t rnd;           /* xorshift state for delay_max */
};

/* Set up with nodes[] (ids from corosync's nodelist, configs filled; the
 * rest is set here), our id, the time and a random seed. Every node starts
 * as no member until the first membership. */
void decide_init(struct decide_state *st, const struct decide_config *cfg,
	struct decide_node *nodes, size_t nnodes, uint32_t our_id, uint64_t now, uint64_t seed);

/* A CPG configuration change: the members now, those that left with their
 * reasons, and whether each one that joined joined clean (a fresh fenced:
 * the host restarted; an id not listed in joined counts as not clean). A
 * member missing from members that is not in left failed. Ids not in the
 * nodelist are ignored. */
struct decide_left {
	uint32_t id;
	enum decide_left_reason reason;
};
struct decide_joined {
	uint32_t id;
	bool clean;
};
void decide_membership(struct decide_state *st, uint64_t now, const uint32_t *members,
	size_t nmembers, const struct decide_left *left, size_t nleft,
	const struct decide_joined *joined, size_t njoined, struct decide_out *out);

/* A votequorum notification counts these node ids as members: a victim
 * it leaves out is settled (the rule above). No output: call
 * decide_quorum() with the notification's quorate flag next. */
void decide_vq_members(struct decide_state *st, const uint32_t *ids, size_t n);

/* votequorum's quorate flag changed. */
void decide_quorum(struct decide_state *st, uint64_t now, bool quorate, struct decide_out *out);

/* vipd says who holds the VIP (0: nobody). */
void decide_vip(struct decide_state *st, uint32_t holder);

/* Node i's power was read off from its fence devices (power-check): a
 * host that is off races nobody, so a victim whose delay included
 * priority_delay_vip loses that part (due at once if the rest has
 * passed). Nodes not waiting on that delay are left as they are. */
void decide_power_off(struct decide_state *st, uint64_t now, size_t i, struct decide_out *out);

/* The deadline came: start what is due (start-up victims, due victims). */
void decide_timer(struct decide_state *st, uint64_t now, struct decide_out *out);

/* Our run of level `level` of node i ended. */
void decide_result(struct decide_state *st, uint64_t now, size_t i, unsigned level, bool ok,
	struct decide_out *out);

/* Another member broadcast that node id was fenced (by `by`). */
void decide_remote_fenced(
	struct decide_state *st, uint64_t now, uint32_t id, uint32_t by, struct decide_out *out);

/* Another member broadcast that it spared node id (merged back, see
 * DECIDE_ACT_SKIPPED): when `by` is the member that fences it as we see it,
 * the victim is dropped here too, so that no member fences later, on its
 * own view, a node the others let back. */
void decide_remote_skipped(
	struct decide_state *st, uint64_t now, uint32_t id, uint32_t by, struct decide_out *out);

/* The member that fences victim i: the lowest id among the members that
 * were members when it failed; 0 when none. */
uint32_t decide_fencer(const struct decide_state *st, size_t i);

/* When node i's pending fence becomes overdue (the rule above);
 * DECIDE_NEVER when node i is not pending. */
uint64_t decide_overdue_at(const struct decide_state *st, size_t i);

/* Node i is pending and its last round of levels failed (it is still not
 * fenced): what an operator must look at. */
bool decide_failed(const struct decide_state *st, size_t i);

/* The node index of an id, or (size_t)-1. */
size_t decide_find(const struct decide_state *st, uint32_t id);

uint64_t decide_deadline(const struct decide_state *st);
const char *decide_node_state_name(enum decide_node_state s);

#endif
