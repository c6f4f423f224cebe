/* track_fenced's decisions (fenced_gate.h). */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "fenced_gate.h"

static const char *const power_names[] = {
	[FG_POWER_UNKNOWN] = "unknown",
	[FG_POWER_CHECKING] = "checking",
	[FG_POWER_ON] = "on",
	[FG_POWER_OFF] = "off",
};

const char *fg_power_name(enum fg_power p)
{
	return (unsigned)p < sizeof(power_names) / sizeof(power_names[0]) ? power_names[p]
									  : "unknown";
}

enum fg_power fg_power_parse(const char *s)
{
	unsigned i;

	for (i = 0; s && i < sizeof(power_names) / sizeof(power_names[0]); i++)
		if (strcmp(s, power_names[i]) == 0)
			return (enum fg_power)i;
	return FG_POWER_UNKNOWN;
}

static struct fg_action *push(struct fg_out *out, enum fg_action_type type)
{
	struct fg_action *a;

	if (out->n >= FG_MAX_OUT)
		return NULL; /* cannot happen: no call makes more than four */
	a = &out->act[out->n++];
	memset(a, 0, sizeof(*a));
	a->type = type;
	return a;
}

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* How soon to ask fenced again: often while a power read is out or a
 * held takeover waits on a fence (either answer ends the wait, and each
 * poll is a local round trip), less often while held otherwise. */
static uint64_t poll_interval(const struct fg_state *st)
{
	if (st->power_node[0] && st->power == FG_POWER_CHECKING)
		return st->cfg.fast_usec;
	if (st->held)
		return st->pending ? st->cfg.fast_usec : st->cfg.held_usec;
	return st->cfg.poll_usec;
}

static void poll_sooner(struct fg_state *st, uint64_t now)
{
	st->next_poll = min64(st->next_poll, now + poll_interval(st));
}

static void deadline_of(const struct fg_state *st, const struct fg_vrrp *v, struct fg_out *out)
{
	uint64_t d = st->silence_at;

	if (!st->polling)
		d = min64(d, st->next_poll);
	if (st->held && st->open_at)
		d = min64(d, st->open_at + v->skew);
	out->deadline = d;
}

static void begin(struct fg_out *out)
{
	out->n = 0;
	out->deadline = FG_NEVER;
}

void fg_init(struct fg_state *st, const struct fg_config *cfg, uint64_t now)
{
	memset(st, 0, sizeof(*st));
	st->cfg = *cfg;
	st->silence_at = FG_NEVER;
	st->next_poll = now;
}

bool fg_allows(const struct fg_state *st, const struct fg_vrrp *v)
{
	/* preempting a master we still hear is plain VRRP: it is alive and
	 * steps down when it hears us; fenced matters only when the master
	 * fell silent */
	if (v->preempting && v->backup)
		return st->known && st->quorate;
	return st->known && st->quorate && st->pending == 0 && !st->other_holder;
}

static void ask_power(struct fg_state *st, enum fg_ask why, struct fg_out *out)
{
	struct fg_action *a;

	if (st->asking)
		return; /* one request at a time */
	a = push(out, FG_ACT_ASK_POWER);
	if (!a)
		return;
	st->asking = true;
	a->ask = why;
}

/* fenced was asked for the silent master's power: act on its answer, once
 * per silence. True when the master was found gone (the caller applies
 * that, then asks again). */
static bool power_answer(
	struct fg_state *st, const struct fg_vrrp *v, uint64_t now, struct fg_out *out)
{
	struct fg_action *a;
	char node[FG_NODE_MAX];

	if (!st->power_node[0] || !v->backup)
		return false;
	if (st->power == FG_POWER_CHECKING) {
		poll_sooner(st, now);
		return false;
	}
	/* answered: cleared first, so acting on it cannot act twice */
	snprintf(node, sizeof(node), "%s", st->power_node);
	st->power_node[0] = '\0';
	if (st->power == FG_POWER_OFF && fg_allows(st, v)) {
		a = push(out, v->sole_backup ? FG_ACT_MASTER_GONE_SOLE : FG_ACT_MASTER_GONE);
		if (a)
			snprintf(a->node, sizeof(a->node), "%s", node);
		return true;
	}
	a = push(out, FG_ACT_POWER_READ);
	if (a) {
		snprintf(a->node, sizeof(a->node), "%s", node);
		a->power = st->power;
	}
	return false;
}

static enum fg_why held_why(const struct fg_state *st)
{
	return !st->known     ? FG_WHY_NO_ANSWER
	       : !st->quorate ? FG_WHY_NO_QUORUM
	       : st->pending  ? FG_WHY_PENDING
			      : FG_WHY_OTHER_HOLDER;
}

static void try_master(
	struct fg_state *st, const struct fg_vrrp *v, uint64_t now, struct fg_out *out)
{
	struct fg_action *a;

	if (power_answer(st, v, now, out))
		return;
	if (!v->backup || !v->want_master) {
		st->held = false; /* a master was heard, or we are one */
		st->asked_held = false;
		st->open_at = 0;
		return;
	}
	if (!fg_allows(st, v)) {
		st->open_at = 0;
		if (!st->held && (a = push(out, FG_ACT_HELD)))
			a->why = held_why(st);
		/* a backup that never heard the master (it started after it went
		 * silent) has had no silence to notice, and a holder corosync
		 * already lost waits for its fence and priority_delay_vip: ask
		 * for the holder's power once, now (off drops the delay) */
		if (!st->held && st->known && st->quorate && (st->pending || st->other_holder) &&
			!st->power_node[0] && !st->asked_held) {
			st->asked_held = true;
			ask_power(st, FG_ASK_HELD, out);
		}
		st->held = true;
		poll_sooner(st, now); /* the takeover waits on fenced: ask it often */
		return;
	}
	if (st->held) {
		/* every held backup is let go at once: wait Skew_Time, so the
		 * best one's advert reaches the others first */
		if (!st->open_at)
			st->open_at = now;
		if (now < st->open_at + v->skew)
			return;
		push(out, FG_ACT_OPEN);
	}
	st->held = false;
	st->open_at = 0;
	push(out, FG_ACT_GOTO_MASTER);
}

void fg_try_master(struct fg_state *st, const struct fg_vrrp *v, uint64_t now, struct fg_out *out)
{
	begin(out);
	try_master(st, v, now, out);
	deadline_of(st, v, out);
}

void fg_answer(struct fg_state *st, const struct fg_answer *a, const struct fg_vrrp *v,
	uint64_t now, struct fg_out *out)
{
	struct fg_action *x;
	bool quorate = a->known && a->quorate;

	begin(out);
	st->polling = false;
	if (a->known != st->known || quorate != st->quorate)
		push(out, FG_ACT_CHANGED);
	if (a->known && a->pending != st->pending && (x = push(out, FG_ACT_PENDING)))
		x->pending = a->pending;
	st->known = a->known;
	st->quorate = quorate;
	st->pending = a->known ? a->pending : 0;
	st->other_holder = a->known && a->other_holder;
	if (a->known && st->power_node[0] && a->power_listed)
		st->power = a->power;
	st->next_poll = now + poll_interval(st);
	power_answer(st, v, now, out);
	deadline_of(st, v, out);
}

void fg_power_asked(struct fg_state *st, const char *node, const struct fg_vrrp *v, uint64_t now,
	struct fg_out *out)
{
	begin(out);
	st->asking = false;
	if (node && node[0]) {
		snprintf(st->power_node, sizeof(st->power_node), "%s", node);
		st->power = FG_POWER_CHECKING;
		poll_sooner(st, now); /* ask for the answer often while the read is out */
	}
	deadline_of(st, v, out);
}

void fg_master_heard(struct fg_state *st, const struct fg_vrrp *v, uint64_t now, struct fg_out *out)
{
	begin(out);
	if (st->power_node[0])
		push(out, FG_ACT_SPEAKS);
	st->power_node[0] = '\0';
	st->silence_at = now + v->silence;
	deadline_of(st, v, out);
}

void fg_bfd_down(struct fg_state *st, const struct fg_vrrp *v, uint64_t now, struct fg_out *out)
{
	(void)now;
	begin(out);
	if (!st->power_node[0])
		ask_power(st, FG_ASK_BFD, out);
	deadline_of(st, v, out);
}

void fg_timer(struct fg_state *st, const struct fg_vrrp *v, uint64_t now, struct fg_out *out)
{
	begin(out);
	if (st->silence_at <= now) {
		st->silence_at = FG_NEVER;
		/* still a backup, not already taking over, not asked yet */
		if (v->backup && !v->want_master && !st->power_node[0])
			ask_power(st, FG_ASK_SILENCE, out);
	}
	if (!st->polling && st->next_poll <= now) {
		st->polling = true;
		push(out, FG_ACT_POLL);
	}
	if (st->held && st->open_at && now >= st->open_at + v->skew)
		try_master(st, v, now, out);
	deadline_of(st, v, out);
}

void fg_answer_read(const char *reply, const char *power_node, struct fg_answer *a)
{
	json_t *j, *q, *p, *nodes, *nd;
	const char *self;
	size_t k;

	memset(a, 0, sizeof(*a));
	if (!reply || !(j = json_loads(reply, 0, NULL)))
		return;
	q = json_object_get(j, "quorate");
	p = json_object_get(j, "pending");
	if (json_is_boolean(q) && json_is_array(p)) {
		a->known = true;
		a->quorate = json_is_true(q);
		a->pending = (unsigned)json_array_size(p);
		/* another node fenced says holds the VIP: its master may still be
		 * alive even if corosync has not noticed yet */
		self = json_string_value(json_object_get(j, "node"));
		nodes = json_object_get(j, "nodes");
		json_array_foreach(nodes, k, nd)
		{
			const char *name = json_string_value(json_object_get(nd, "name"));

			if (!name)
				continue;
			if (json_is_true(json_object_get(nd, "vip")) &&
				(!self || strcmp(name, self) != 0))
				a->other_holder = true;
			if (power_node && power_node[0] && strcmp(name, power_node) == 0) {
				a->power_listed = true;
				a->power = fg_power_parse(
					json_string_value(json_object_get(nd, "power")));
			}
		}
	}
	json_decref(j);
}
