/* track_fenced's gate (vipd/fenced_gate.h): when a backup that tracks
 * fenced may take over, when it asks fenced and for whose power, and what
 * it does with the answers. The paths are those the lab's failures take:
 * the VIP holder powered off (silence, power read off, takeover), frozen
 * (power on, held until fenced has fenced it), partitioned (no quorum,
 * another holder), and fenced itself not answering. No socket, no clock:
 * the answers and the time are given. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fenced_gate.h"
#include "vipd.h"

#define MS 1000ULL
#define T0 (100 * 1000 * MS)

static const struct fg_config cfg = {
	.poll_usec = 1000 * MS,
	.held_usec = 100 * MS,
	.fast_usec = 20 * MS,
};

/* A backup whose master adverts every second, three backups' Skew_Time of
 * a priority 100 (0.609 s). */
static struct fg_vrrp backup(bool want_master)
{
	struct fg_vrrp v = { 0 };

	v.backup = true;
	v.want_master = want_master;
	v.skew = 609 * MS;
	v.silence = 1500 * MS;
	return v;
}

static struct fg_answer answer(bool quorate, unsigned pending, bool other)
{
	struct fg_answer a = { 0 };

	a.known = true;
	a.quorate = quorate;
	a.pending = pending;
	a.other_holder = other;
	return a;
}

static unsigned count(const struct fg_out *o, enum fg_action_type t)
{
	unsigned i, n = 0;

	for (i = 0; i < o->n; i++)
		n += o->act[i].type == t;
	return n;
}

static const struct fg_action *find(const struct fg_out *o, enum fg_action_type t)
{
	unsigned i;

	for (i = 0; i < o->n; i++)
		if (o->act[i].type == t)
			return &o->act[i];
	return NULL;
}

/* A gate that has had one answer from a quorate fenced with nobody
 * pending, at T0. */
static void settled(struct fg_state *st, const struct fg_vrrp *v)
{
	struct fg_answer a = answer(true, 0, false);
	struct fg_out o;

	fg_init(st, &cfg, T0);
	fg_answer(st, &a, v, T0, &o);
	assert_int_equal(count(&o, FG_ACT_CHANGED), 1);
	assert_int_equal(o.deadline, T0 + cfg.poll_usec);
}

static void test_allows(void **state)
{
	struct fg_state st;
	struct fg_vrrp v = backup(true);

	(void)state;
	fg_init(&st, &cfg, T0);
	assert_false(fg_allows(&st, &v)); /* no answer yet */
	st.known = true;
	assert_false(fg_allows(&st, &v)); /* no quorum */
	st.quorate = true;
	assert_true(fg_allows(&st, &v));
	st.pending = 1;
	assert_false(fg_allows(&st, &v));
	/* preempting a master it still hears: only an answering, quorate fenced */
	v.preempting = true;
	assert_true(fg_allows(&st, &v));
	st.pending = 0;
	st.other_holder = true;
	assert_true(fg_allows(&st, &v));
	v.preempting = false;
	assert_false(fg_allows(&st, &v));
	st.quorate = false;
	v.preempting = true;
	assert_false(fg_allows(&st, &v));
	/* preempting counts only in BACKUP */
	st.quorate = true;
	v.backup = false;
	assert_false(fg_allows(&st, &v));
}

/* Polls: due at once, one out at a time, once a second after an answer. */
static void test_poll_cadence(void **state)
{
	struct fg_state st;
	struct fg_vrrp v = backup(false);
	struct fg_answer a = answer(true, 0, false);
	struct fg_out o;
	int i;

	(void)state;
	fg_init(&st, &cfg, T0);
	fg_timer(&st, &v, T0, &o);
	assert_int_equal(count(&o, FG_ACT_POLL), 1);
	assert_int_equal(o.deadline, FG_NEVER); /* nothing due while it is out */
	fg_timer(&st, &v, T0 + 5 * MS, &o);
	assert_int_equal(o.n, 0);
	fg_answer(&st, &a, &v, T0 + 2 * MS, &o);
	assert_int_equal(count(&o, FG_ACT_CHANGED), 1);
	assert_int_equal(o.deadline, T0 + 2 * MS + cfg.poll_usec);
	/* the tenth poll as the first, and an unchanged answer says nothing */
	for (i = 1; i <= 10; i++) {
		uint64_t now = o.deadline;

		fg_timer(&st, &v, now - 1, &o);
		assert_int_equal(o.n, 0); /* not before it is due */
		fg_timer(&st, &v, now, &o);
		assert_int_equal(o.n, 1);
		assert_int_equal(o.act[0].type, FG_ACT_POLL);
		fg_answer(&st, &a, &v, now + MS, &o);
		assert_int_equal(o.n, 0);
		assert_int_equal(o.deadline, now + MS + cfg.poll_usec);
	}
}

static void test_changes_said(void **state)
{
	struct fg_state st;
	struct fg_vrrp v = backup(false);
	struct fg_answer a = answer(true, 2, false), none = { 0 };
	struct fg_out o;

	(void)state;
	settled(&st, &v);
	fg_answer(&st, &a, &v, T0 + 1000 * MS, &o);
	assert_int_equal(count(&o, FG_ACT_CHANGED), 0);
	assert_non_null(find(&o, FG_ACT_PENDING));
	assert_int_equal(find(&o, FG_ACT_PENDING)->pending, 2);
	/* no quorum: changed (the tracking faults the instance on it) */
	a = answer(false, 2, false);
	fg_answer(&st, &a, &v, T0 + 2000 * MS, &o);
	assert_int_equal(count(&o, FG_ACT_CHANGED), 1);
	assert_int_equal(count(&o, FG_ACT_PENDING), 0);
	assert_true(st.known);
	assert_false(st.quorate);
	/* no answer: changed, and what it said before counts no more */
	fg_answer(&st, &none, &v, T0 + 3000 * MS, &o);
	assert_int_equal(count(&o, FG_ACT_CHANGED), 1);
	assert_false(st.known);
	assert_int_equal(st.pending, 0);
}

/* Master_Down_Timer fired and fenced allows it: at once, no Skew_Time
 * (the state machine waited it already). */
static void test_takeover_allowed(void **state)
{
	struct fg_state st;
	struct fg_vrrp v = backup(true);
	struct fg_out o;

	(void)state;
	settled(&st, &v);
	fg_try_master(&st, &v, T0 + 10 * MS, &o);
	assert_int_equal(o.n, 1);
	assert_int_equal(o.act[0].type, FG_ACT_GOTO_MASTER);
	assert_false(st.held);
}

/* fenced does not answer (stopped, hung): the takeover waits, said once,
 * fenced asked every 100 ms; its answer lets the takeover go after
 * Skew_Time. */
static void test_fenced_silent(void **state)
{
	struct fg_state st;
	struct fg_vrrp v = backup(true);
	struct fg_answer none = { 0 }, ok = answer(true, 0, false);
	struct fg_out o;
	uint64_t now = T0;

	(void)state;
	fg_init(&st, &cfg, now);
	fg_try_master(&st, &v, now, &o);
	assert_int_equal(o.n, 1);
	assert_int_equal(o.act[0].type, FG_ACT_HELD);
	assert_int_equal(o.act[0].why, FG_WHY_NO_ANSWER);
	assert_int_equal(o.deadline, now); /* the first poll is due */
	fg_timer(&st, &v, now, &o);
	assert_int_equal(count(&o, FG_ACT_POLL), 1);
	fg_answer(&st, &none, &v, now + 500 * MS, &o);
	now += 500 * MS;
	assert_int_equal(o.deadline, now + cfg.held_usec);
	fg_try_master(&st, &v, now, &o);
	assert_int_equal(o.n, 0); /* held already: not said again */
	assert_int_equal(count(&o, FG_ACT_ASK_POWER), 0);
	/* it answers: allowed from now, Skew_Time later */
	now += cfg.held_usec;
	fg_timer(&st, &v, now, &o);
	assert_int_equal(count(&o, FG_ACT_POLL), 1);
	fg_answer(&st, &ok, &v, now + MS, &o);
	now += MS;
	fg_try_master(&st, &v, now, &o);
	assert_int_equal(o.n, 0);
	assert_int_equal(st.open_at, now);
	/* polled every 100 ms meanwhile; Skew_Time is a deadline too */
	assert_int_equal(o.deadline, now + cfg.held_usec);
	fg_timer(&st, &v, now + v.skew - 1, &o);
	assert_int_equal(count(&o, FG_ACT_GOTO_MASTER), 0);
	assert_int_equal(count(&o, FG_ACT_POLL), 1);
	assert_int_equal(o.deadline, now + v.skew);
	fg_timer(&st, &v, now + v.skew, &o);
	assert_int_equal(count(&o, FG_ACT_OPEN), 1);
	assert_int_equal(count(&o, FG_ACT_GOTO_MASTER), 1);
	assert_false(st.held);
}

/* The VIP holder powered off, with no BFD: its adverts stop; 1.5
 * intervals later fenced is asked for its power; it reads off, and the
 * master is gone (at once when it was our only peer). */
static void test_holder_powered_off(void **state)
{
	struct fg_state st;
	struct fg_vrrp v = backup(false);
	struct fg_answer a;
	struct fg_out o;
	uint64_t now = T0 + 3000 * MS;
	int sole;

	(void)state;
	for (sole = 0; sole <= 1; sole++) {
		v.sole_backup = sole;
		settled(&st, &v);
		fg_master_heard(&st, &v, now, &o);
		assert_int_equal(o.n, 0);
		assert_int_equal(st.silence_at, now + v.silence);
		/* heard again: the silence starts again */
		fg_master_heard(&st, &v, now + 1000 * MS, &o);
		assert_int_equal(st.silence_at, now + 1000 * MS + v.silence);
		st.next_poll = FG_NEVER; /* the polls are another test's */
		fg_timer(&st, &v, now + 1000 * MS + v.silence, &o);
		assert_non_null(find(&o, FG_ACT_ASK_POWER));
		assert_int_equal(find(&o, FG_ACT_ASK_POWER)->ask, FG_ASK_SILENCE);
		/* one question at a time */
		fg_bfd_down(&st, &v, now + 2600 * MS, &o);
		assert_int_equal(o.n, 0);
		fg_power_asked(&st, "lb1", &v, now + 2600 * MS, &o);
		assert_string_equal(st.power_node, "lb1");
		assert_int_equal(st.power, FG_POWER_CHECKING);
		assert_int_equal(o.deadline, now + 2600 * MS + cfg.fast_usec);
		/* still reading: asked again often */
		a = answer(true, 0, false);
		a.power_listed = true;
		a.power = FG_POWER_CHECKING;
		fg_timer(&st, &v, now + 2620 * MS, &o);
		assert_int_equal(count(&o, FG_ACT_POLL), 1);
		fg_answer(&st, &a, &v, now + 2621 * MS, &o);
		assert_int_equal(o.n, 0);
		assert_int_equal(o.deadline, now + 2621 * MS + cfg.fast_usec);
		/* off */
		a.power = FG_POWER_OFF;
		fg_timer(&st, &v, now + 2641 * MS, &o);
		fg_answer(&st, &a, &v, now + 2642 * MS, &o);
		assert_int_equal(o.n, 1);
		assert_int_equal(
			o.act[0].type, sole ? FG_ACT_MASTER_GONE_SOLE : FG_ACT_MASTER_GONE);
		assert_string_equal(o.act[0].node, "lb1");
		assert_string_equal(st.power_node, ""); /* once per silence */
		fg_answer(&st, &a, &v, now + 2700 * MS, &o);
		assert_int_equal(o.n, 0);
		/* the state machine then wants to take over: allowed at once */
		v.want_master = true;
		fg_try_master(&st, &v, now + 2700 * MS, &o);
		assert_int_equal(count(&o, FG_ACT_GOTO_MASTER), 1);
		v.want_master = false;
	}
}

/* A BFD session to the master went down: fenced is asked at once, before
 * any silence; not again while its power is being read. */
static void test_bfd_down(void **state)
{
	struct fg_state st;
	struct fg_vrrp v = backup(false);
	struct fg_out o;

	(void)state;
	settled(&st, &v);
	fg_bfd_down(&st, &v, T0 + 10 * MS, &o);
	assert_int_equal(o.n, 1);
	assert_int_equal(o.act[0].type, FG_ACT_ASK_POWER);
	assert_int_equal(o.act[0].ask, FG_ASK_BFD);
	fg_power_asked(&st, "lb1", &v, T0 + 11 * MS, &o);
	fg_bfd_down(&st, &v, T0 + 12 * MS, &o);
	assert_int_equal(o.n, 0);
	/* fenced could not read it: the next loss may ask again */
	memset(st.power_node, 0, sizeof(st.power_node));
	fg_bfd_down(&st, &v, T0 + 13 * MS, &o);
	assert_int_equal(count(&o, FG_ACT_ASK_POWER), 1);
	fg_power_asked(&st, NULL, &v, T0 + 14 * MS, &o);
	assert_false(st.asking);
	assert_string_equal(st.power_node, "");
	fg_bfd_down(&st, &v, T0 + 15 * MS, &o);
	assert_int_equal(count(&o, FG_ACT_ASK_POWER), 1);
}

/* The holder frozen with its power on: the read says on, and the takeover
 * waits for corosync to lose it and fenced to fence it; the fence pending
 * holds it (the holder's power asked once), its end lets it go. */
static void test_holder_frozen(void **state)
{
	struct fg_state st;
	struct fg_vrrp v = backup(false);
	struct fg_answer a;
	struct fg_out o;
	uint64_t now = T0 + 1000 * MS;

	(void)state;
	settled(&st, &v);
	fg_master_heard(&st, &v, now, &o);
	now += v.silence;
	fg_timer(&st, &v, now, &o);
	fg_power_asked(&st, "lb1", &v, now, &o);
	a = answer(true, 0, false);
	a.power_listed = true;
	a.power = FG_POWER_ON;
	fg_timer(&st, &v, now + 20 * MS, &o);
	fg_answer(&st, &a, &v, now + 21 * MS, &o);
	assert_int_equal(o.n, 1);
	assert_int_equal(o.act[0].type, FG_ACT_POWER_READ);
	assert_int_equal(o.act[0].power, FG_POWER_ON);
	assert_string_equal(o.act[0].node, "lb1");
	/* Master_Down_Timer fires; corosync has lost the holder: pending */
	now += 1500 * MS;
	a = answer(true, 1, true);
	fg_answer(&st, &a, &v, now, &o);
	v.want_master = true;
	fg_try_master(&st, &v, now, &o);
	assert_non_null(find(&o, FG_ACT_HELD));
	assert_int_equal(find(&o, FG_ACT_HELD)->why, FG_WHY_PENDING);
	assert_non_null(find(&o, FG_ACT_ASK_POWER));
	assert_int_equal(find(&o, FG_ACT_ASK_POWER)->ask, FG_ASK_HELD);
	assert_int_equal(o.deadline, now + cfg.fast_usec); /* a fence about to end */
	fg_power_asked(&st, NULL, &v, now + MS, &o);
	/* held: neither said nor asked again */
	fg_try_master(&st, &v, now + 2 * MS, &o);
	assert_int_equal(o.n, 0);
	/* fenced fenced it: nobody pending, nobody else holds the VIP */
	a = answer(true, 0, false);
	now += 5000 * MS;
	fg_answer(&st, &a, &v, now, &o);
	fg_try_master(&st, &v, now, &o);
	assert_int_equal(o.n, 0);
	assert_int_equal(o.deadline, now + cfg.held_usec); /* held: polled every 100 ms */
	fg_timer(&st, &v, now + v.skew, &o);
	assert_int_equal(count(&o, FG_ACT_OPEN), 1);
	assert_int_equal(count(&o, FG_ACT_GOTO_MASTER), 1);
}

/* A partition: this side has no quorum (the tracking faults the instance)
 * or fenced still sees another holder: no takeover. */
static void test_partition(void **state)
{
	struct fg_state st;
	struct fg_vrrp v = backup(true);
	struct fg_answer a = answer(false, 1, false);
	struct fg_out o;

	(void)state;
	settled(&st, &v);
	fg_answer(&st, &a, &v, T0 + 1000 * MS, &o);
	fg_try_master(&st, &v, T0 + 1000 * MS, &o);
	assert_non_null(find(&o, FG_ACT_HELD));
	assert_int_equal(find(&o, FG_ACT_HELD)->why, FG_WHY_NO_QUORUM);
	assert_int_equal(count(&o, FG_ACT_ASK_POWER), 0); /* without quorum, no power read */
	assert_int_equal(count(&o, FG_ACT_GOTO_MASTER), 0);

	settled(&st, &v);
	a = answer(true, 0, true);
	fg_answer(&st, &a, &v, T0 + 1000 * MS, &o);
	fg_try_master(&st, &v, T0 + 1000 * MS, &o);
	assert_int_equal(find(&o, FG_ACT_HELD)->why, FG_WHY_OTHER_HOLDER);
	assert_int_equal(count(&o, FG_ACT_ASK_POWER), 1);
	assert_int_equal(o.deadline, T0 + 1000 * MS + cfg.held_usec);
}

/* A held backup that hears a master again (the partition healed) is no
 * longer held; a later hold is said again. */
static void test_master_back(void **state)
{
	struct fg_state st;
	struct fg_vrrp v = backup(true);
	struct fg_answer a = answer(true, 0, true);
	struct fg_out o;

	(void)state;
	settled(&st, &v);
	fg_answer(&st, &a, &v, T0 + 1000 * MS, &o);
	fg_try_master(&st, &v, T0 + 1000 * MS, &o);
	assert_true(st.held);
	v.want_master = false;
	fg_master_heard(&st, &v, T0 + 1100 * MS, &o);
	fg_try_master(&st, &v, T0 + 1100 * MS, &o);
	assert_false(st.held);
	assert_int_equal(st.open_at, 0);
	/* back to the slow poll */
	fg_answer(&st, &a, &v, T0 + 1200 * MS, &o);
	assert_int_equal(st.next_poll, T0 + 1200 * MS + cfg.poll_usec);
	v.want_master = true;
	fg_try_master(&st, &v, T0 + 3000 * MS, &o);
	assert_int_equal(count(&o, FG_ACT_HELD), 1);
}

/* The master speaks while its power is read: the read is forgotten and
 * its answer acts on nothing. */
static void test_master_speaks(void **state)
{
	struct fg_state st;
	struct fg_vrrp v = backup(false);
	struct fg_answer a = answer(true, 0, false);
	struct fg_out o;

	(void)state;
	settled(&st, &v);
	fg_power_asked(&st, "lb1", &v, T0 + 10 * MS, &o);
	fg_master_heard(&st, &v, T0 + 20 * MS, &o);
	assert_int_equal(count(&o, FG_ACT_SPEAKS), 1);
	a.power_listed = true;
	a.power = FG_POWER_OFF;
	fg_answer(&st, &a, &v, T0 + 30 * MS, &o);
	assert_int_equal(o.n, 0);
	fg_master_heard(&st, &v, T0 + 40 * MS, &o);
	assert_int_equal(count(&o, FG_ACT_SPEAKS), 0);
}

/* Not a backup (a master, or in fault): nothing to take over, nothing
 * asked at the end of a silence. */
static void test_not_backup(void **state)
{
	struct fg_state st;
	struct fg_vrrp v = backup(true);
	struct fg_out o;

	(void)state;
	settled(&st, &v);
	v.backup = false;
	fg_try_master(&st, &v, T0 + 10 * MS, &o);
	assert_int_equal(o.n, 0);
	fg_master_heard(&st, &v, T0 + 10 * MS, &o);
	fg_timer(&st, &v, T0 + 10 * MS + v.silence, &o);
	assert_int_equal(count(&o, FG_ACT_ASK_POWER), 0);
	assert_int_equal(st.silence_at, FG_NEVER);
}

static void test_answer_read(void **state)
{
	struct fg_answer a;

	(void)state;
	fg_answer_read("{\"node\":\"lb2\",\"quorate\":true,\"pending\":[\"lb1\"],"
		       "\"nodes\":[{\"name\":\"lb1\",\"vip\":true,\"power\":\"off\"},"
		       "{\"name\":\"lb2\",\"vip\":true,\"power\":\"on\"}]}",
		"lb1", &a);
	assert_true(a.known);
	assert_true(a.quorate);
	assert_int_equal(a.pending, 1);
	assert_true(a.other_holder);
	assert_true(a.power_listed);
	assert_int_equal(a.power, FG_POWER_OFF);
	/* its own node holding the VIP is no other holder */
	fg_answer_read("{\"node\":\"lb2\",\"quorate\":false,\"pending\":[],"
		       "\"nodes\":[{\"name\":\"lb2\",\"vip\":true,\"power\":\"checking\"}]}",
		"lb1", &a);
	assert_true(a.known);
	assert_false(a.quorate);
	assert_false(a.other_holder);
	assert_false(a.power_listed);
	fg_answer_read("{\"node\":\"lb2\",\"quorate\":true,\"pending\":[],"
		       "\"nodes\":[{\"name\":\"lb1\",\"power\":\"warming\"}]}",
		"lb1", &a);
	assert_true(a.power_listed);
	assert_int_equal(a.power, FG_POWER_UNKNOWN);
	fg_answer_read("not json", "lb1", &a);
	assert_false(a.known);
	fg_answer_read("{\"quorate\":\"yes\",\"pending\":[]}", NULL, &a);
	assert_false(a.known);
	fg_answer_read(NULL, NULL, &a);
	assert_false(a.known);
	assert_string_equal(fg_power_name(FG_POWER_CHECKING), "checking");
	assert_int_equal(fg_power_parse("on"), FG_POWER_ON);
}

static void test_lbd_healthy(void **state)
{
	const char *r = "{\"backends\":[{\"backend\":\"api\",\"active_servers\":2},"
			"{\"backend\":\"other\",\"active_servers\":0}]}";

	(void)state;
	assert_true(track_lbd_healthy(r, "api", 1));
	assert_true(track_lbd_healthy(r, "api", 2));
	assert_false(track_lbd_healthy(r, "api", 3));
	assert_false(track_lbd_healthy(r, "other", 1));
	assert_false(track_lbd_healthy(r, "missing", 0));
	assert_false(track_lbd_healthy("{", "api", 1));
	assert_false(track_lbd_healthy(NULL, "api", 1));
}

/* An lbd that does not answer (busy with a reload, a loaded machine) keeps
 * the track's state until LBD_UNANSWERED_DOWN questions in a row went
 * unanswered; an answer, or no lbd on the socket, counts at once. */
static void test_lbd_step(void **state)
{
	const char *ok = "{\"backends\":[{\"backend\":\"api\",\"active_servers\":2}]}";
	const char *none = "{\"backends\":[{\"backend\":\"api\",\"active_servers\":0}]}";
	unsigned n = 0, i;
	bool up = true;

	(void)state;
	/* unanswered: up stays up, LBD_UNANSWERED_DOWN - 1 times */
	for (i = 1; i < LBD_UNANSWERED_DOWN; i++) {
		up = track_lbd_step(up, &n, -ETIMEDOUT, NULL, "api", 1);
		assert_true(up);
		assert_int_equal(n, i);
	}
	/* an answer in between starts the count again */
	up = track_lbd_step(up, &n, 0, ok, "api", 1);
	assert_true(up);
	assert_int_equal(n, 0);
	for (i = 1; i < LBD_UNANSWERED_DOWN; i++)
		up = track_lbd_step(up, &n, -ETIMEDOUT, NULL, "api", 1);
	assert_true(up);
	/* the last one of the row: down */
	up = track_lbd_step(up, &n, -ETIMEDOUT, NULL, "api", 1);
	assert_false(up);
	/* and stays down, the count bounded */
	for (i = 0; i < 10; i++)
		assert_false(track_lbd_step(up, &n, -ETIMEDOUT, NULL, "api", 1));
	assert_int_equal(n, LBD_UNANSWERED_DOWN);
	/* an answer with servers: up at once, the count reset */
	up = track_lbd_step(up, &n, 0, ok, "api", 1);
	assert_true(up);
	assert_int_equal(n, 0);
	/* an answer without enough servers: down at once */
	assert_false(track_lbd_step(true, &n, 0, none, "api", 1));
	/* no lbd on the socket: down at once, whatever came before */
	n = 0;
	assert_false(track_lbd_step(true, &n, -ECONNREFUSED, NULL, "api", 1));
	assert_false(track_lbd_step(true, &n, -ENOENT, NULL, "api", 1));
	/* a track down while lbd does not answer stays down (it came up only
	 * on an answer) */
	n = 0;
	assert_false(track_lbd_step(false, &n, -ETIMEDOUT, NULL, "api", 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allows),
		cmocka_unit_test(test_poll_cadence),
		cmocka_unit_test(test_changes_said),
		cmocka_unit_test(test_takeover_allowed),
		cmocka_unit_test(test_fenced_silent),
		cmocka_unit_test(test_holder_powered_off),
		cmocka_unit_test(test_bfd_down),
		cmocka_unit_test(test_holder_frozen),
		cmocka_unit_test(test_partition),
		cmocka_unit_test(test_master_back),
		cmocka_unit_test(test_master_speaks),
		cmocka_unit_test(test_not_backup),
		cmocka_unit_test(test_answer_read),
		cmocka_unit_test(test_lbd_healthy),
		cmocka_unit_test(test_lbd_step),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
