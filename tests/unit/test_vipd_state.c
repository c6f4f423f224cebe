/* The VRRP state machine, rule by rule, with explicit times (microseconds).
 * Skew_Time and Master_Down_Interval arithmetic: see vrrp_state.h. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "vipd_state_test.h"

/* RFC 9568 §6.1 / RFC 3768 §6.1, in microseconds (vrrp_state.h). */
static void test_timing_arithmetic(void **state)
{
	struct vrrp_sm_config c;
	struct vrrp_sm sm;

	(void)state;
	/* priority 100 at 1 s: (256 - 100) / 256 s = 609375 us, in both versions
	 * (not 156.25 ms: that would be 156 / 1000) */
	init(&sm, cfg3(100));
	assert_int_equal(sm.skew_time, 609375);
	assert_int_equal(sm.master_down_int, 3609375);
	c = cfg3(100);
	c.version = 2;
	init(&sm, c);
	assert_int_equal(sm.skew_time, 609375);
	assert_int_equal(sm.master_down_int, 3609375);

	/* v3 scales the skew by the interval: 0.5 s gives 304687.5, truncated */
	c = cfg3(100);
	c.adver_int = 500 * MS;
	init(&sm, c);
	assert_int_equal(sm.skew_time, 304687);
	assert_int_equal(sm.master_down_int, 1804687);
	/* v3 at 3 s: 156 * 3 / 256 s; v2 at 3 s: the skew stays in seconds / 256 */
	c = cfg3(100);
	c.adver_int = 3 * S;
	init(&sm, c);
	assert_int_equal(sm.skew_time, 1828125);
	assert_int_equal(sm.master_down_int, 10828125);
	c.version = 2;
	init(&sm, c);
	assert_int_equal(sm.skew_time, 609375);
	assert_int_equal(sm.master_down_int, 9609375);

	/* the extremes: 255 -> 1/256 s (3906.25), 1 -> 255/256 s */
	init(&sm, cfg3(255));
	assert_int_equal(sm.skew_time, 3906);
	assert_int_equal(sm.master_down_int, 3003906);
	init(&sm, cfg3(1));
	assert_int_equal(sm.skew_time, 996093);
	/* v3 at 10 ms, priority 254: 2 * 10000 / 256 = 78.125 */
	c = cfg3(254);
	c.adver_int = 10 * MS;
	init(&sm, c);
	assert_int_equal(sm.skew_time, 78);
	assert_int_equal(sm.master_down_int, 30078);
}

/* RFC 9568 §6.4.1 then §6.4.2: start as backup, take over after
 * Master_Down_Interval without adverts, then advertise every interval. */
static void test_start_backup_timeout(void **state)
{
	struct vrrp_sm sm;
	struct vrrp_out out;

	(void)state;
	init(&sm, cfg3(100));
	assert_int_equal(sm.state, VRRP_STATE_INIT);
	vrrp_state_start(&sm, T0, &out);
	acts(&out, VRRP_ACT_BECOME_BACKUP, 100, END);
	assert_int_equal(out.deadline, T0 + 3609375);
	assert_int_equal(vrrp_state_deadline(&sm), T0 + 3609375);

	vrrp_state_timer(&sm, T0 + 3609374, &out); /* early wake-up: nothing */
	acts(&out, END);
	assert_int_equal(out.deadline, T0 + 3609375);
	assert_int_equal(sm.state, VRRP_STATE_BACKUP);

	vrrp_state_timer(&sm, T0 + 3609375, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 100, VRRP_ACT_BECOME_MASTER, 100, END);
	assert_int_equal(out.act[1].from, VRRP_STATE_BACKUP);
	assert_int_equal(out.deadline, T0 + 4609375);

	/* a late wake-up: the next one is an interval from now */
	vrrp_state_timer(&sm, T0 + 4700000, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 100, END);
	assert_int_equal(out.deadline, T0 + 5700000);
	vrrp_state_start(&sm, T0 + 5 * S, &out); /* not in INIT: no-op */
	acts(&out, END);
	assert_int_equal(sm.state, VRRP_STATE_MASTER);
}

/* RFC 9568 §6.4.1: the owner (255) advertises and becomes master at once. */
static void test_owner_starts_master(void **state)
{
	struct vrrp_sm sm;
	struct vrrp_out out;

	(void)state;
	init(&sm, cfg3(255));
	vrrp_state_start(&sm, T0, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 255, VRRP_ACT_BECOME_MASTER, 255, END);
	assert_int_equal(out.act[1].from, VRRP_STATE_INIT);
	assert_int_equal(out.deadline, T0 + S);
	assert_int_equal(sm.state, VRRP_STATE_MASTER);
}

/* keepalived 2.2.7's "state MASTER" below 255 is BACKUP: with a
 * lower-priority master advertising, it takes over exactly
 * Master_Down_Interval after start-up (captured: 3.67 s for priority 100,
 * start-up included). */
static void test_state_master_hint(void **state)
{
	struct vrrp_sm sm;
	struct vrrp_out out;
	uint64_t t;

	(void)state;
	backup_at_t0(&sm, cfg3(100));
	for (t = T0 + 500 * MS; t < T0 + 3609375; t += S) {
		assert_int_equal(vrrp_state_advert(&sm, t, 50, 100, A2, A1, &out), 0);
		acts(&out, END);
		assert_int_equal(out.deadline, T0 + 3609375);
	}
	vrrp_state_timer(&sm, T0 + 3609375, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 100, VRRP_ACT_BECOME_MASTER, 100, END);
}

/* RFC 9568 §6.4.2: a backup takes the master's interval (v3) and restarts
 * Master_Down_Timer with it. */
static void test_backup_adopts_interval(void **state)
{
	struct vrrp_sm_config c;
	struct vrrp_sm sm;
	struct vrrp_out out;

	(void)state;
	backup_at_t0(&sm, cfg3(100));
	assert_int_equal(vrrp_state_advert(&sm, T0 + S, 150, 50, A2, A1, &out), 0);
	acts(&out, END);
	assert_int_equal(sm.master_adver_int, 500 * MS);
	/* 3 * 0.5 s + 156 * 0.5 / 256 s */
	assert_int_equal(out.deadline, T0 + S + 1804687);
	assert_true(sm.master_seen);
	assert_int_equal(sm.master_priority, 150);
	assert_memory_equal(sm.master_addr, A2, 4);
	/* and again when the master changes it */
	assert_int_equal(vrrp_state_advert(&sm, T0 + 2 * S, 150, 200, A2, A1, &out), 0);
	assert_int_equal(out.deadline, T0 + 2 * S + 6 * S + 1218750);
	/* our own adverts stay at the configured interval */
	assert_int_equal(vrrp_state_adver_field(&sm), 100);

	/* VRRPv2: the interval field is not used (the packet layer drops a
	 * different one, RFC 3768 §7.1) */
	c = cfg3(100);
	c.version = 2;
	backup_at_t0(&sm, c);
	assert_int_equal(vrrp_state_advert(&sm, T0 + S, 150, 2, A2, A1, &out), 0);
	assert_int_equal(out.deadline, T0 + S + 3609375);
	assert_int_equal(vrrp_state_adver_field(&sm), 1);
}

/* RFC 9568 §6.4.2: priority 0 from the master: take over after Skew_Time. */
static void test_backup_prio0(void **state)
{
	struct vrrp_sm sm;
	struct vrrp_out out;

	(void)state;
	backup_at_t0(&sm, cfg3(100));
	vrrp_state_advert(&sm, T0 + S, 200, 100, A2, A1, &out);
	assert_int_equal(out.deadline, T0 + S + 3609375);
	vrrp_state_advert(&sm, T0 + 2 * S, 0, 100, A2, A1, &out);
	acts(&out, END);
	assert_int_equal(out.deadline, T0 + 2 * S + 609375);
	vrrp_state_timer(&sm, T0 + 2 * S + 609375, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 100, VRRP_ACT_BECOME_MASTER, 100, END);

	/* Skew_Time of the adopted interval: 0.5 s -> 304687 */
	backup_at_t0(&sm, cfg3(100));
	vrrp_state_advert(&sm, T0 + S, 200, 50, A2, A1, &out);
	vrrp_state_advert(&sm, T0 + 2 * S, 0, 50, A2, A1, &out);
	assert_int_equal(out.deadline, T0 + 2 * S + 304687);
}

/* RFC 9568 §6.4.3: higher priority: become backup, timer from its interval. */
static void test_master_higher_prio(void **state)
{
	struct vrrp_sm sm;
	struct vrrp_out out;
	uint64_t t;

	(void)state;
	t = master_from_t0(&sm, cfg3(100));
	assert_int_equal(vrrp_state_advert(&sm, t + 100 * MS, 101, 200, A0, A1, &out), 0);
	acts(&out, VRRP_ACT_BECOME_BACKUP, 100, END);
	assert_int_equal(out.act[0].from, VRRP_STATE_MASTER);
	assert_int_equal(sm.state, VRRP_STATE_BACKUP);
	/* 3 * 2 s + 156 * 2 / 256 s */
	assert_int_equal(out.deadline, t + 100 * MS + 7218750);
	assert_int_equal(sm.adver_timer, VRRP_NEVER);
}

/* RFC 9568 §6.4.3: equal priority, the greater primary address wins; the
 * addresses compare as unsigned integers in network order. */
static void test_master_tie_break(void **state)
{
	static const uint8_t lo4[4] = { 198, 18, 255, 255 }, hi4[4] = { 198, 19, 0, 1 };
	struct vrrp_sm_config c;
	struct vrrp_sm sm;
	struct vrrp_out out;
	uint8_t lo6[16], hi6[16];
	uint64_t t;

	(void)state;
	t = master_from_t0(&sm, cfg3(100));
	vrrp_state_advert(&sm, t + 1, 100, 100, A0, A1, &out); /* smaller: ignored */
	acts(&out, END);
	vrrp_state_advert(&sm, t + 2, 100, 100, A1, A1, &out); /* our own: ignored */
	acts(&out, END);
	assert_int_equal(sm.state, VRRP_STATE_MASTER);
	vrrp_state_advert(&sm, t + 3, 100, 100, A2, A1, &out); /* greater: yield */
	acts(&out, VRRP_ACT_BECOME_BACKUP, 100, END);

	/* 198.19.0.1 > 198.18.255.255: byte order, not the last byte */
	t = master_from_t0(&sm, cfg3(100));
	vrrp_state_advert(&sm, t + 1, 100, 100, lo4, hi4, &out);
	acts(&out, END);
	vrrp_state_advert(&sm, t + 2, 100, 100, hi4, lo4, &out);
	acts(&out, VRRP_ACT_BECOME_BACKUP, 100, END);

	/* IPv6: 2001:db8::1:0 > 2001:db8::ffff */
	inet_pton(AF_INET6, "2001:db8::ffff", lo6);
	inet_pton(AF_INET6, "2001:db8::1:0", hi6);
	c = cfg3(100);
	c.family = AF_INET6;
	t = master_from_t0(&sm, c);
	vrrp_state_advert(&sm, t + 1, 100, 100, lo6, hi6, &out);
	acts(&out, END);
	vrrp_state_advert(&sm, t + 2, 100, 100, hi6, lo6, &out);
	acts(&out, VRRP_ACT_BECOME_BACKUP, 100, END);
}

/* RFC 9568 §6.4.3: lower priority is discarded; the master keeps its
 * schedule (no extra advert: keepalived's lower_prio_no_advert). */
static void test_master_lower_prio(void **state)
{
	struct vrrp_sm sm;
	struct vrrp_out out;
	uint64_t t;

	(void)state;
	t = master_from_t0(&sm, cfg3(100));
	vrrp_state_advert(&sm, t + 300 * MS, 99, 100, A2, A1, &out);
	acts(&out, END);
	assert_int_equal(out.deadline, t + S);
	assert_int_equal(sm.state, VRRP_STATE_MASTER);
	vrrp_state_timer(&sm, t + S, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 100, END);
}

/* RFC 9568 §6.4.3: priority 0 received: advertise now, restart Adver_Timer. */
static void test_master_prio0(void **state)
{
	struct vrrp_sm sm;
	struct vrrp_out out;
	uint64_t t;

	(void)state;
	t = master_from_t0(&sm, cfg3(100));
	vrrp_state_advert(&sm, t + 300 * MS, 0, 100, A2, A1, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 100, END);
	assert_int_equal(out.deadline, t + 1300 * MS);
	assert_int_equal(sm.state, VRRP_STATE_MASTER);
}

/* RFC 9568 §6.4.2, preempt: a higher-priority backup discards a lower
 * master's adverts and takes over when its timer runs out. */
static void test_preempt(void **state)
{
	struct vrrp_sm sm;
	struct vrrp_out out;
	uint64_t t;

	(void)state;
	backup_at_t0(&sm, cfg3(150));
	/* Master_Down_Interval for 150: 3 s + 106 / 256 s */
	assert_int_equal(sm.master_down_int, 3414062);
	/* first a higher master, followed */
	vrrp_state_advert(&sm, T0 + S, 200, 100, A2, A1, &out);
	assert_int_equal(out.deadline, T0 + S + 3414062);
	/* then it drops to 120 (tracking): discarded, the timer runs on */
	for (t = T0 + 2 * S; t <= T0 + 4 * S; t += S) {
		vrrp_state_advert(&sm, t, 120, 100, A2, A1, &out);
		acts(&out, END);
		assert_int_equal(out.deadline, T0 + S + 3414062);
	}
	vrrp_state_timer(&sm, T0 + S + 3414062, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 150, VRRP_ACT_BECOME_MASTER, 150, END);
	/* equal priority is followed, not preempted */
	backup_at_t0(&sm, cfg3(150));
	vrrp_state_advert(&sm, T0 + S, 150, 100, A0, A1, &out);
	assert_int_equal(out.deadline, T0 + S + 3414062);
}

/* preempt_handover: the backup that preempts a master it still hears
 * sends its advert first and takes the VIP only once that master is
 * silent; every advert heard from it meanwhile costs another round. The
 * RFC's way (test_preempt) takes the VIP at once: with the first advert
 * lost, the VIP is on both hosts until the next one arrives. */
static void test_preempt_handover(void **state)
{
	struct vrrp_sm sm;
	struct vrrp_out out;
	struct vrrp_sm_config c = cfg3(150);
	uint64_t fire = T0 + S + 3414062, t, wait = S + 414062; /* interval + Skew_Time */

	(void)state;
	c.preempt_handover = true;
	backup_at_t0(&sm, c);
	vrrp_state_advert(&sm, T0 + S, 200, 100, A2, A1, &out);
	for (t = T0 + 2 * S; t <= T0 + 4 * S; t += S)
		vrrp_state_advert(&sm, t, 120, 100, A2, A1, &out);
	/* the timer fires while the master of 120 is heard: announce only */
	vrrp_state_timer(&sm, fire, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 150, END);
	assert_int_equal(out.act[0].from, VRRP_STATE_BACKUP);
	assert_int_equal(sm.state, VRRP_STATE_BACKUP);
	assert_int_equal(out.deadline, fire + wait);
	/* our advert was lost: it advertises again, we announce again */
	vrrp_state_advert(&sm, fire + S / 2, 120, 100, A2, A1, &out);
	acts(&out, END);
	vrrp_state_timer(&sm, fire + wait, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 150, END);
	assert_int_equal(sm.state, VRRP_STATE_BACKUP);
	/* a one-way loss: ten more rounds, never the VIP while it speaks */
	for (t = fire + wait; t < fire + 11 * wait; t += wait) {
		vrrp_state_advert(&sm, t + S / 2, 120, 100, A2, A1, &out);
		vrrp_state_timer(&sm, t + wait, &out);
		acts(&out, VRRP_ACT_SEND_ADVERT, 150, END);
	}
	assert_false(sm.resigned);
	/* this time it heard us and stepped down: silence, then the VIP; not
	 * resigned (no priority 0 heard): track_fenced asks who holds it */
	vrrp_state_timer(&sm, t + wait, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 150, VRRP_ACT_BECOME_MASTER, 150, END);
	assert_int_equal(sm.state, VRRP_STATE_MASTER);

	/* no master heard within Master_Down_Interval: a plain takeover */
	backup_at_t0(&sm, c);
	vrrp_state_advert(&sm, T0 + S / 2, 120, 100, A2, A1, &out);
	vrrp_state_advert(&sm, T0 + 3 * S, 200, 100, A2, A1, &out); /* back at 200 */
	vrrp_state_timer(&sm, T0 + 3 * S + 3414062, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 150, VRRP_ACT_BECOME_MASTER, 150, END);

	/* the master resigns (priority 0) during a handover: no wait */
	backup_at_t0(&sm, c);
	vrrp_state_advert(&sm, T0 + 3 * S, 120, 100, A2, A1, &out);
	vrrp_state_timer(&sm, T0 + 3414062, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 150, END);
	vrrp_state_advert(&sm, T0 + 3414062 + 1000, 0, 100, A2, A1, &out);
	assert_true(sm.resigned);
	vrrp_state_timer(&sm, out.deadline, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 150, VRRP_ACT_BECOME_MASTER, 150, END);
	assert_false(sm.resigned);

	/* a master proven gone (fenced read its power off): no handover */
	backup_at_t0(&sm, c);
	vrrp_state_advert(&sm, T0 + 3 * S, 120, 100, A2, A1, &out);
	vrrp_state_master_gone_sole(&sm, T0 + 3 * S + 1000, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 150, VRRP_ACT_BECOME_MASTER, 150, END);

	/* a master with preempt_handover steps down with priority 0 */
	c.sync = false;
	master_from_t0(&sm, c);
	vrrp_state_advert(&sm, T0 + 10 * S, 200, 100, A2, A1, &out);
	acts(&out, VRRP_ACT_BECOME_BACKUP, 150, VRRP_ACT_SEND_ADVERT, 0, END);
	/* and the handing-over backup that hears it takes over at once */
	backup_at_t0(&sm, c);
	vrrp_state_advert(&sm, T0 + 3 * S, 120, 100, A2, A1, &out);
	vrrp_state_timer(&sm, T0 + 3414062, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 150, END);
	vrrp_state_advert(&sm, T0 + 3414062 + 2000, 0, 100, A2, A1, &out);
	assert_int_equal(out.deadline, T0 + 3414062 + 2000);
	vrrp_state_timer(&sm, out.deadline, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 150, VRRP_ACT_BECOME_MASTER, 150, END);

	/* a sync group member asks the group only after the handover */
	c.sync = true;
	backup_at_t0(&sm, c);
	vrrp_state_advert(&sm, T0 + 3 * S, 120, 100, A2, A1, &out);
	vrrp_state_timer(&sm, T0 + 3414062, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 150, END);
	vrrp_state_timer(&sm, out.deadline, &out);
	acts(&out, VRRP_ACT_WANT_MASTER, 150, END);
	/* ended in silence: the group (or fenced) is asked with the master
	 * not known to have resigned; heard again, a new handover begins and
	 * the master still has not resigned */
	assert_false(sm.resigned);
	t = out.deadline;
	vrrp_state_advert(&sm, t - S / 2, 120, 100, A2, A1, &out);
	vrrp_state_timer(&sm, t, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 150, END);
	assert_true(sm.handover);
	assert_false(sm.resigned);
	/* its priority 0 this time: resigned, asked at once */
	vrrp_state_advert(&sm, t + 1000, 0, 100, A2, A1, &out);
	assert_true(sm.resigned);
	vrrp_state_timer(&sm, out.deadline, &out);
	acts(&out, VRRP_ACT_WANT_MASTER, 150, END);
	/* a master of a higher priority heard: nothing resigned any more */
	vrrp_state_advert(&sm, out.deadline + 1000, 200, 100, A2, A1, &out);
	assert_false(sm.resigned);
}

/* nopreempt: the backup follows a lower-priority master for as long as it
 * advertises. */
static void test_nopreempt(void **state)
{
	struct vrrp_sm_config c = cfg3(150);
	struct vrrp_sm sm;
	struct vrrp_out out;
	uint64_t t;

	(void)state;
	c.preempt = false;
	backup_at_t0(&sm, c);
	for (t = T0 + S; t <= T0 + 60 * S; t += S) {
		vrrp_state_advert(&sm, t, 100, 100, A2, A1, &out);
		acts(&out, END);
		assert_int_equal(out.deadline, t + 3414062);
		vrrp_state_timer(&sm, t + 999 * MS, &out);
		acts(&out, END);
	}
	/* the master goes silent after T0 + 60 s */
	vrrp_state_timer(&sm, T0 + 60 * S + 3414062, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 150, VRRP_ACT_BECOME_MASTER, 150, END);
}

/* keepalived's preempt_delay: after start-up (or after first seeing a
 * lower-priority master), follow it for preempt_delay, then preempt. */
static void test_preempt_delay(void **state)
{
	struct vrrp_sm_config c = cfg3(150);
	struct vrrp_sm sm;
	struct vrrp_out out;
	uint64_t t;

	(void)state;
	c.preempt_delay = 10 * S;
	backup_at_t0(&sm, c);
	/* counted from start-up: followed until T0 + 10 s... */
	for (t = T0 + S; t < T0 + 10 * S; t += S) {
		vrrp_state_advert(&sm, t, 100, 100, A2, A1, &out);
		assert_int_equal(out.deadline, t + 3414062);
	}
	/* ...then discarded: take over a Master_Down_Interval after the last
	 * advert followed (T0 + 9 s) */
	vrrp_state_advert(&sm, T0 + 10 * S, 100, 100, A2, A1, &out);
	assert_int_equal(out.deadline, T0 + 9 * S + 3414062);
	vrrp_state_advert(&sm, T0 + 11 * S, 100, 100, A2, A1, &out);
	assert_int_equal(out.deadline, T0 + 9 * S + 3414062);
	vrrp_state_timer(&sm, T0 + 9 * S + 3414062, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 150, VRRP_ACT_BECOME_MASTER, 150, END);

	/* a higher master stops the delay; when it later advertises lower, the
	 * delay starts again from that advert */
	backup_at_t0(&sm, c);
	vrrp_state_advert(&sm, T0 + 20 * S, 200, 100, A2, A1, &out);
	assert_false(sm.preempt_armed);
	for (t = T0 + 21 * S; t < T0 + 31 * S; t += S) {
		vrrp_state_advert(&sm, t, 100, 100, A2, A1, &out);
		assert_int_equal(out.deadline, t + 3414062); /* followed */
	}
	vrrp_state_advert(&sm, T0 + 31 * S, 100, 100, A2, A1, &out);
	assert_int_equal(out.deadline, T0 + 30 * S + 3414062); /* discarded */

	/* no master at all: preempt_delay does not delay the timeout */
	backup_at_t0(&sm, c);
	vrrp_state_timer(&sm, T0 + 3414062, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 150, VRRP_ACT_BECOME_MASTER, 150, END);

	/* nopreempt wins over preempt_delay */
	c.preempt = false;
	backup_at_t0(&sm, c);
	vrrp_state_advert(&sm, T0 + 30 * S, 100, 100, A2, A1, &out);
	assert_int_equal(out.deadline, T0 + 30 * S + 3414062);
}

/* Deliver an advert sent by one machine to the other. */
static void deliver(struct vrrp_sm *to, const uint8_t *to_addr, const uint8_t *from_addr,
	uint64_t t, const struct vrrp_out *sent)
{
	struct vrrp_out out;
	unsigned i;

	for (i = 0; i < sent->n; i++)
		if (sent->act[i].type == VRRP_ACT_SEND_ADVERT)
			vrrp_state_advert(
				to, t, sent->act[i].priority, 100, from_addr, to_addr, &out);
}

/* Two masters (after a partition) hear each other again: within one
 * advertisement interval exactly one is left, the higher priority or, on a
 * tie, the greater address. */
static void split_brain(int pa, int pb, uint64_t stagger, enum vrrp_sm_state want_a)
{
	struct vrrp_sm a, b;
	struct vrrp_out out;
	uint64_t heal, t;

	init(&a, cfg3(pa));
	init(&b, cfg3(pb));
	vrrp_state_start(&a, T0, &out);
	vrrp_state_start(&b, T0 + stagger, &out);
	/* partitioned: both time out */
	vrrp_state_timer(&a, vrrp_state_deadline(&a), &out);
	vrrp_state_timer(&b, vrrp_state_deadline(&b), &out);
	assert_int_equal(a.state, VRRP_STATE_MASTER);
	assert_int_equal(b.state, VRRP_STATE_MASTER);

	heal = (vrrp_state_deadline(&a) < vrrp_state_deadline(&b) ? vrrp_state_deadline(&a)
								  : vrrp_state_deadline(&b)) -
	       1;
	/* the link is back: run both for one advertisement interval */
	for (;;) {
		uint64_t da = vrrp_state_deadline(&a), db = vrrp_state_deadline(&b);

		t = da < db ? da : db;
		if (t > heal + S)
			break;
		if (da <= db) {
			vrrp_state_timer(&a, t, &out);
			deliver(&b, A2, A1, t, &out);
		} else {
			vrrp_state_timer(&b, t, &out);
			deliver(&a, A1, A2, t, &out);
		}
	}
	assert_int_equal(a.state, want_a);
	assert_int_equal(
		b.state, want_a == VRRP_STATE_MASTER ? VRRP_STATE_BACKUP : VRRP_STATE_MASTER);
}

static void test_split_brain(void **state)
{
	(void)state;
	/* a is 198.18.0.1, b 198.18.0.2 */
	split_brain(100, 100, 0, VRRP_STATE_BACKUP);
	split_brain(100, 100, 400 * MS, VRRP_STATE_BACKUP);
	split_brain(150, 100, 0, VRRP_STATE_MASTER);
	split_brain(150, 100, 700 * MS, VRRP_STATE_MASTER);
	split_brain(100, 150, 300 * MS, VRRP_STATE_BACKUP);
}

/* Tracking: the effective priority goes into the adverts and the timers,
 * clamped as keepalived does. */
static void test_set_priority(void **state)
{
	struct vrrp_sm sm;
	struct vrrp_out out;
	uint64_t t;

	(void)state;
	backup_at_t0(&sm, cfg3(100));
	vrrp_state_advert(&sm, T0 + S, 120, 100, A2, A1, &out);
	assert_int_equal(out.deadline, T0 + S + 3609375);
	/* now above the master: its next advert is discarded (preempt) and the
	 * timer from the last one followed runs out */
	vrrp_state_set_priority(&sm, T0 + 1500 * MS, 150, &out);
	acts(&out, END);
	assert_int_equal(out.deadline, T0 + S + 3609375); /* unchanged now */
	assert_int_equal(sm.master_down_int, 3414062);    /* for the next one */
	vrrp_state_advert(&sm, T0 + 2 * S, 120, 100, A2, A1, &out);
	assert_int_equal(out.deadline, T0 + S + 3609375);
	vrrp_state_timer(&sm, T0 + S + 3609375, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 150, VRRP_ACT_BECOME_MASTER, 150, END);

	/* a master's adverts carry the new priority from the next one */
	t = master_from_t0(&sm, cfg3(100));
	vrrp_state_set_priority(&sm, t + 10, 60, &out);
	acts(&out, END);
	assert_int_equal(out.deadline, t + S);
	vrrp_state_timer(&sm, t + S, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 60, END);
	/* and it yields to a backup now above it */
	vrrp_state_advert(&sm, t + S + 1, 80, 100, A0, A1, &out);
	acts(&out, VRRP_ACT_BECOME_BACKUP, 60, END);

	/* clamped to 1..254; the owner stays 255 */
	init(&sm, cfg3(100));
	vrrp_state_set_priority(&sm, T0, 300, &out);
	assert_int_equal(sm.priority, 254);
	vrrp_state_set_priority(&sm, T0, -20, &out);
	assert_int_equal(sm.priority, 1);
	init(&sm, cfg3(255));
	vrrp_state_set_priority(&sm, T0, 200, &out);
	assert_int_equal(sm.priority, 255);
}

/* FAULT: a master sends priority 0 and gives up, a backup stops; leaving
 * FAULT is a fresh backup (or master for the owner). */
static void test_fault(void **state)
{
	struct vrrp_sm sm;
	struct vrrp_out out;
	uint64_t t;

	(void)state;
	t = master_from_t0(&sm, cfg3(100));
	vrrp_state_fault(&sm, t + 10, true, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 0, VRRP_ACT_BECOME_FAULT, 100, END);
	assert_int_equal(out.act[1].from, VRRP_STATE_MASTER);
	assert_int_equal(out.deadline, VRRP_NEVER);
	assert_int_equal(sm.state, VRRP_STATE_FAULT);
	/* nothing moves it but the end of the fault */
	vrrp_state_fault(&sm, t + 20, true, &out);
	acts(&out, END);
	vrrp_state_advert(&sm, t + 30, 0, 100, A2, A1, &out);
	acts(&out, END);
	vrrp_state_timer(&sm, t + 100 * S, &out);
	acts(&out, END);
	assert_int_equal(sm.state, VRRP_STATE_FAULT);
	vrrp_state_fault(&sm, t + 200 * S, false, &out);
	acts(&out, VRRP_ACT_BECOME_BACKUP, 100, END);
	assert_int_equal(out.act[0].from, VRRP_STATE_FAULT);
	assert_int_equal(out.deadline, t + 200 * S + 3609375);

	/* a backup that adopted 2 s comes back with its own 1 s */
	backup_at_t0(&sm, cfg3(100));
	vrrp_state_advert(&sm, T0 + S, 200, 200, A2, A1, &out);
	vrrp_state_fault(&sm, T0 + 2 * S, true, &out);
	acts(&out, VRRP_ACT_BECOME_FAULT, 100, END);
	assert_int_equal(out.act[0].from, VRRP_STATE_BACKUP);
	assert_int_equal(out.deadline, VRRP_NEVER);
	vrrp_state_fault(&sm, T0 + 3 * S, false, &out);
	acts(&out, VRRP_ACT_BECOME_BACKUP, 100, END);
	assert_int_equal(out.deadline, T0 + 3 * S + 3609375);

	/* the owner leaves FAULT as master at once */
	init(&sm, cfg3(255));
	vrrp_state_start(&sm, T0, &out);
	vrrp_state_fault(&sm, T0 + S, true, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 0, VRRP_ACT_BECOME_FAULT, 255, END);
	vrrp_state_fault(&sm, T0 + 2 * S, false, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 255, VRRP_ACT_BECOME_MASTER, 255, END);
	assert_int_equal(out.deadline, T0 + 3 * S);

	/* faulty before start-up: start goes to FAULT */
	init(&sm, cfg3(100));
	vrrp_state_fault(&sm, T0 - S, true, &out);
	acts(&out, END);
	assert_int_equal(sm.state, VRRP_STATE_INIT);
	vrrp_state_start(&sm, T0, &out);
	acts(&out, VRRP_ACT_BECOME_FAULT, 100, END);
	assert_int_equal(out.act[0].from, VRRP_STATE_INIT);
	assert_int_equal(out.deadline, VRRP_NEVER);

	/* preempt_delay starts over after FAULT, from the first lower master */
	{
		struct vrrp_sm_config c = cfg3(150);

		c.preempt_delay = 5 * S;
		backup_at_t0(&sm, c);
		vrrp_state_fault(&sm, T0 + S, true, &out);
		vrrp_state_fault(&sm, T0 + 100 * S, false, &out);
		vrrp_state_advert(&sm, T0 + 101 * S, 100, 100, A2, A1, &out);
		assert_int_equal(out.deadline, T0 + 101 * S + 3414062); /* followed */
		vrrp_state_advert(&sm, T0 + 106 * S, 100, 100, A2, A1, &out);
		assert_int_equal(out.deadline, T0 + 101 * S + 3414062); /* preempting */
	}
}

/* RFC 9568 §6.4.3: Shutdown in master sends priority 0; then INIT. */
static void test_stop(void **state)
{
	struct vrrp_sm sm;
	struct vrrp_out out;
	uint64_t t;

	(void)state;
	t = master_from_t0(&sm, cfg3(100));
	vrrp_state_stop(&sm, t + 10, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 0, VRRP_ACT_BECOME_INIT, 100, END);
	assert_int_equal(out.act[1].from, VRRP_STATE_MASTER);
	assert_int_equal(out.deadline, VRRP_NEVER);
	assert_int_equal(sm.state, VRRP_STATE_INIT);
	vrrp_state_stop(&sm, t + 20, &out);
	acts(&out, END);
	vrrp_state_timer(&sm, t + 100 * S, &out);
	acts(&out, END);
	vrrp_state_advert(&sm, t + 100 * S, 200, 100, A2, A1, &out);
	acts(&out, END);
	/* and starts again */
	vrrp_state_start(&sm, t + 200 * S, &out);
	acts(&out, VRRP_ACT_BECOME_BACKUP, 100, END);
	assert_int_equal(out.deadline, t + 200 * S + 3609375);

	backup_at_t0(&sm, cfg3(100));
	vrrp_state_stop(&sm, T0 + S, &out);
	acts(&out, VRRP_ACT_BECOME_INIT, 100, END);
	assert_int_equal(out.act[0].from, VRRP_STATE_BACKUP);
	assert_int_equal(out.deadline, VRRP_NEVER);
}

/* VRRPv2 timing (RFC 3768 §6.1): whole-second intervals, Skew_Time in
 * 1/256 s, never the master's interval. */
static void test_v2(void **state)
{
	struct vrrp_sm_config c = cfg3(200);
	struct vrrp_sm sm;
	struct vrrp_out out;

	(void)state;
	c.version = 2;
	c.adver_int = 2 * S;
	backup_at_t0(&sm, c);
	assert_int_equal(sm.skew_time, 218750); /* 56 / 256 s */
	assert_int_equal(out.deadline = vrrp_state_deadline(&sm), T0 + 6218750);
	vrrp_state_advert(&sm, T0 + S, 0, 2, A2, A1, &out);
	assert_int_equal(out.deadline, T0 + S + 218750);
	vrrp_state_timer(&sm, T0 + S + 218750, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 200, VRRP_ACT_BECOME_MASTER, 200, END);
	assert_int_equal(out.deadline, T0 + 3 * S + 218750);
	vrrp_state_advert(&sm, T0 + 4 * S, 250, 1, A2, A1, &out);
	acts(&out, VRRP_ACT_BECOME_BACKUP, 200, END);
	assert_int_equal(out.deadline, T0 + 4 * S + 6218750);
	assert_int_equal(vrrp_state_adver_field(&sm), 2);
}

static void test_invalid(void **state)
{
	struct vrrp_sm_config c;
	struct vrrp_sm sm;
	struct vrrp_out out;

	(void)state;
	c = cfg3(100), c.version = 4;
	assert_int_equal(vrrp_state_init(&sm, &c), -EINVAL);
	c = cfg3(100), c.family = AF_UNIX;
	assert_int_equal(vrrp_state_init(&sm, &c), -EINVAL);
	c = cfg3(100), c.version = 2, c.family = AF_INET6;
	assert_int_equal(vrrp_state_init(&sm, &c), -EINVAL);
	c = cfg3(0);
	assert_int_equal(vrrp_state_init(&sm, &c), -EINVAL);
	c = cfg3(256);
	assert_int_equal(vrrp_state_init(&sm, &c), -EINVAL);
	c = cfg3(100), c.adver_int = 0;
	assert_int_equal(vrrp_state_init(&sm, &c), -EINVAL);
	c = cfg3(100), c.adver_int = 15 * MS; /* not whole centiseconds */
	assert_int_equal(vrrp_state_init(&sm, &c), -EINVAL);
	c = cfg3(100), c.adver_int = 40960 * MS;
	assert_int_equal(vrrp_state_init(&sm, &c), -EINVAL);
	c = cfg3(100), c.adver_int = 40950 * MS;
	assert_int_equal(vrrp_state_init(&sm, &c), 0);
	c = cfg3(100), c.version = 2, c.adver_int = 1500 * MS;
	assert_int_equal(vrrp_state_init(&sm, &c), -EINVAL);
	c = cfg3(100), c.version = 2, c.adver_int = 256 * S;
	assert_int_equal(vrrp_state_init(&sm, &c), -EINVAL);
	c = cfg3(100), c.preempt_delay = 1001 * S;
	assert_int_equal(vrrp_state_init(&sm, &c), -EINVAL);

	backup_at_t0(&sm, cfg3(100));
	assert_int_equal(vrrp_state_advert(&sm, T0 + S, 200, 0, A2, A1, &out), -EINVAL);
	assert_int_equal(out.deadline, T0 + 3609375); /* nothing changed */
	assert_int_equal(vrrp_state_advert(&sm, T0 + S, 200, 4096, A2, A1, &out), -EINVAL);
	assert_int_equal(vrrp_state_advert(&sm, T0 + S, 256, 100, A2, A1, &out), -EINVAL);
	assert_int_equal(vrrp_state_advert(&sm, T0 + S, -1, 100, A2, A1, &out), -EINVAL);
	assert_int_equal(sm.state, VRRP_STATE_BACKUP);
	assert_false(sm.master_seen);
}

/* A sync group member asks instead of taking over, asks again every
 * Master_Down_Interval, stops asking when it hears a master, and is moved
 * by the group: to MASTER (advert first), to BACKUP without priority 0. */
static void test_sync_member(void **state)
{
	struct vrrp_sm_config c = cfg3(100);
	struct vrrp_sm sm;
	struct vrrp_out out;
	uint64_t t;
	int i;

	(void)state;
	c.sync = true;
	backup_at_t0(&sm, c);
	t = T0 + 3609375;
	for (i = 0; i < 10; i++) { /* the tenth time as the first */
		vrrp_state_timer(&sm, t, &out);
		acts(&out, VRRP_ACT_WANT_MASTER, 100, END);
		assert_int_equal(sm.state, VRRP_STATE_BACKUP);
		assert_true(sm.want_master);
		assert_int_equal(out.deadline, t + 3609375);
		t += 3609375;
	}
	/* a master's advert: no longer asking, the timer starts over */
	assert_int_equal(vrrp_state_advert(&sm, t - S, 150, 100, A2, A1, &out), 0);
	acts(&out, END);
	assert_false(sm.want_master);
	vrrp_state_goto_backup(&sm, t, &out); /* not master: nothing */
	acts(&out, END);
	vrrp_state_goto_master(&sm, t, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 100, VRRP_ACT_BECOME_MASTER, 100, END);
	assert_int_equal(out.act[1].from, VRRP_STATE_BACKUP);
	assert_int_equal(out.deadline, t + S);
	vrrp_state_goto_master(&sm, t, &out); /* already: nothing */
	acts(&out, END);
	vrrp_state_goto_backup(&sm, t + S / 2, &out);
	acts(&out, VRRP_ACT_BECOME_BACKUP, 100, END);
	assert_int_equal(out.act[0].from, VRRP_STATE_MASTER);
	assert_int_equal(sm.state, VRRP_STATE_BACKUP);
	assert_int_equal(out.deadline, t + S / 2 + 3609375);
	/* out of the group (a reload): the timer takes over again */
	vrrp_state_set_sync(&sm, false);
	vrrp_state_timer(&sm, t + S / 2 + 3609375, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 100, VRRP_ACT_BECOME_MASTER, 100, END);
}

/* vrrp_startup_delay: backup until the hold ends plus Master_Down_Interval,
 * adverts heard meanwhile never bring the timer before that; the owner
 * waits for the end of the hold only; after it, nothing changes. */
static void test_startup_hold(void **state)
{
	struct vrrp_sm_config c = cfg3(100);
	struct vrrp_sm sm;
	struct vrrp_out out;
	uint64_t hold = T0 + 5 * S;

	(void)state;
	c.hold_until = hold;
	backup_at_t0(&sm, c);
	assert_int_equal(sm.master_down_timer, hold + 3609375);
	vrrp_state_timer(&sm, hold + 3609374, &out);
	acts(&out, END);
	/* a master heard during the hold: Master_Down_Interval from its end */
	assert_int_equal(vrrp_state_advert(&sm, T0 + S, 150, 100, A2, A1, &out), 0);
	assert_int_equal(out.deadline, hold + 3609375);
	/* priority 0 during the hold: Skew_Time after its end */
	assert_int_equal(vrrp_state_advert(&sm, T0 + 2 * S, 0, 100, A2, A1, &out), 0);
	assert_int_equal(out.deadline, hold + sm.skew_time);
	/* after the hold: from now, as ever */
	assert_int_equal(vrrp_state_advert(&sm, hold + S, 150, 100, A2, A1, &out), 0);
	assert_int_equal(out.deadline, hold + S + 3609375);

	/* the owner: backup, master when the hold ends */
	c = cfg3(255);
	c.hold_until = hold;
	init(&sm, c);
	vrrp_state_start(&sm, T0, &out);
	acts(&out, VRRP_ACT_BECOME_BACKUP, 255, END);
	assert_int_equal(out.deadline, hold);
	vrrp_state_timer(&sm, hold, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 255, VRRP_ACT_BECOME_MASTER, 255, END);
	/* a fault that ends after the hold: master at once */
	vrrp_state_fault(&sm, hold + S, true, &out);
	vrrp_state_fault(&sm, hold + 2 * S, false, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 255, VRRP_ACT_BECOME_MASTER, 255, END);
	/* a fault that ends during the hold: waits for its end */
	init(&sm, c);
	vrrp_state_fault(&sm, T0, true, &out);
	vrrp_state_start(&sm, T0, &out);
	acts(&out, VRRP_ACT_BECOME_FAULT, 255, END);
	vrrp_state_fault(&sm, T0 + S, false, &out);
	acts(&out, VRRP_ACT_BECOME_BACKUP, 255, END);
	assert_int_equal(out.deadline, hold);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(vrrp_state_name(VRRP_STATE_INIT), "INIT");
	assert_string_equal(vrrp_state_name(VRRP_STATE_BACKUP), "BACKUP");
	assert_string_equal(vrrp_state_name(VRRP_STATE_MASTER), "MASTER");
	assert_string_equal(vrrp_state_name(VRRP_STATE_FAULT), "FAULT");
	assert_string_equal(vrrp_state_name((enum vrrp_sm_state)9), "UNKNOWN");
	assert_string_equal(vrrp_state_action_name(VRRP_ACT_SEND_ADVERT), "send_advert");
	assert_string_equal(vrrp_state_action_name(VRRP_ACT_BECOME_MASTER), "become_master");
	assert_string_equal(vrrp_state_action_name(VRRP_ACT_BECOME_BACKUP), "become_backup");
	assert_string_equal(vrrp_state_action_name(VRRP_ACT_BECOME_FAULT), "become_fault");
	assert_string_equal(vrrp_state_action_name(VRRP_ACT_BECOME_INIT), "become_init");
	assert_string_equal(vrrp_state_action_name(VRRP_ACT_WANT_MASTER), "want_master");
	assert_string_equal(vrrp_state_action_name((enum vrrp_action_type)9), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timing_arithmetic),
		cmocka_unit_test(test_start_backup_timeout),
		cmocka_unit_test(test_owner_starts_master),
		cmocka_unit_test(test_state_master_hint),
		cmocka_unit_test(test_backup_adopts_interval),
		cmocka_unit_test(test_backup_prio0),
		cmocka_unit_test(test_master_higher_prio),
		cmocka_unit_test(test_master_tie_break),
		cmocka_unit_test(test_master_lower_prio),
		cmocka_unit_test(test_master_prio0),
		cmocka_unit_test(test_preempt),
		cmocka_unit_test(test_preempt_handover),
		cmocka_unit_test(test_nopreempt),
		cmocka_unit_test(test_preempt_delay),
		cmocka_unit_test(test_split_brain),
		cmocka_unit_test(test_set_priority),
		cmocka_unit_test(test_fault),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_v2),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_sync_member),
		cmocka_unit_test(test_startup_hold),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
