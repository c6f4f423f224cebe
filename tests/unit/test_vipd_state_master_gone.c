/* The VRRP state machine, continued: vrrp_state_master_gone (the master is
 * known to be gone: fenced read its power off), with explicit times
 * (microseconds). */
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

/* fenced read the master's power off: as a priority 0 advert, Master_Down_Timer
 * to Skew_Time (RFC 9568 §6.4.2), but only ever sooner, from the end of the
 * start-up hold while it lasts; a master's advert afterwards restores
 * Master_Down_Interval; nothing in MASTER, FAULT or INIT. */
static void test_master_gone(void **state)
{
	struct vrrp_sm_config c;
	struct vrrp_sm sm;
	struct vrrp_out out;
	uint64_t t, hold = T0 + 5 * S;

	(void)state;
	/* a master heard at T0 + 1 s, then gone: take over Skew_Time later */
	backup_at_t0(&sm, cfg3(100));
	assert_int_equal(vrrp_state_advert(&sm, T0 + S, 200, 100, A2, A1, &out), 0);
	assert_int_equal(out.deadline, T0 + S + 3609375);
	t = T0 + 2 * S;
	out.n = 3; /* the call starts a fresh list */
	vrrp_state_master_gone(&sm, t, &out);
	acts(&out, END);
	assert_int_equal(sm.state, VRRP_STATE_BACKUP);
	assert_int_equal(out.deadline, t + 609375);
	assert_int_equal(sm.master_down_timer, t + 609375);
	assert_int_equal(vrrp_state_deadline(&sm), t + 609375);
	vrrp_state_timer(&sm, t + 609374, &out); /* not before Skew_Time */
	acts(&out, END);
	assert_int_equal(sm.state, VRRP_STATE_BACKUP);
	assert_int_equal(out.deadline, t + 609375);
	vrrp_state_timer(&sm, t + 609375, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 100, VRRP_ACT_BECOME_MASTER, 100, END);
	assert_int_equal(out.act[1].from, VRRP_STATE_BACKUP);
	assert_int_equal(sm.state, VRRP_STATE_MASTER);
	assert_int_equal(out.deadline, t + 609375 + S);

	/* the Skew_Time of our priority and the master's interval: 200 at
	 * 0.5 s gives 56 * 0.5 / 256 s = 109375 us */
	backup_at_t0(&sm, cfg3(200));
	vrrp_state_advert(&sm, T0 + S, 250, 50, A2, A1, &out);
	vrrp_state_master_gone(&sm, T0 + 2 * S, &out);
	assert_int_equal(out.deadline, T0 + 2 * S + 109375);

	/* a master's advert after it (the check was wrong, or it came back):
	 * Master_Down_Interval again, from that advert */
	backup_at_t0(&sm, cfg3(100));
	vrrp_state_advert(&sm, T0 + S, 200, 100, A2, A1, &out);
	vrrp_state_master_gone(&sm, T0 + 2 * S, &out);
	assert_int_equal(out.deadline, T0 + 2 * S + 609375);
	assert_int_equal(vrrp_state_advert(&sm, T0 + 2 * S + 100 * MS, 200, 100, A2, A1, &out), 0);
	acts(&out, END);
	assert_int_equal(out.deadline, T0 + 2 * S + 100 * MS + 3609375);
	vrrp_state_timer(&sm, T0 + 2 * S + 609375, &out); /* the old deadline: nothing */
	acts(&out, END);
	assert_int_equal(sm.state, VRRP_STATE_BACKUP);

	/* never later: after a priority 0 advert (Skew_Time already runs)... */
	backup_at_t0(&sm, cfg3(100));
	vrrp_state_advert(&sm, T0 + S, 0, 100, A2, A1, &out);
	assert_int_equal(out.deadline, T0 + S + 609375);
	vrrp_state_master_gone(&sm, T0 + S + 500 * MS, &out);
	acts(&out, END);
	assert_int_equal(out.deadline, T0 + S + 609375);
	vrrp_state_timer(&sm, T0 + S + 609375, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 100, VRRP_ACT_BECOME_MASTER, 100, END);
	/* ...and when Master_Down_Timer is due before now + Skew_Time */
	backup_at_t0(&sm, cfg3(100));
	vrrp_state_master_gone(&sm, T0 + 3500 * MS, &out);
	assert_int_equal(out.deadline, T0 + 3609375);
	/* and twice in a row does not push it on */
	backup_at_t0(&sm, cfg3(100));
	vrrp_state_master_gone(&sm, T0 + S, &out);
	vrrp_state_master_gone(&sm, T0 + S + 200 * MS, &out);
	assert_int_equal(out.deadline, T0 + S + 609375);

	/* during the start-up hold: Skew_Time after its end, not before */
	c = cfg3(100);
	c.hold_until = hold;
	backup_at_t0(&sm, c);
	vrrp_state_master_gone(&sm, T0 + S, &out);
	assert_int_equal(out.deadline, hold + 609375);
	vrrp_state_timer(&sm, hold + 609374, &out);
	acts(&out, END);
	vrrp_state_timer(&sm, hold + 609375, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 100, VRRP_ACT_BECOME_MASTER, 100, END);
	/* after the hold: from now */
	backup_at_t0(&sm, c);
	vrrp_state_master_gone(&sm, hold + S, &out);
	assert_int_equal(out.deadline, hold + S + 609375);
	/* the owner waiting for the end of the hold: not a moment later */
	c = cfg3(255);
	c.hold_until = hold;
	init(&sm, c);
	vrrp_state_start(&sm, T0, &out);
	vrrp_state_master_gone(&sm, T0 + S, &out);
	acts(&out, END);
	assert_int_equal(out.deadline, hold);

	/* a sync group member asks at Skew_Time instead of taking over */
	c = cfg3(100);
	c.sync = true;
	backup_at_t0(&sm, c);
	vrrp_state_advert(&sm, T0 + S, 200, 100, A2, A1, &out);
	vrrp_state_master_gone(&sm, T0 + 2 * S, &out);
	acts(&out, END);
	vrrp_state_timer(&sm, T0 + 2 * S + 609374, &out);
	acts(&out, END);
	vrrp_state_timer(&sm, T0 + 2 * S + 609375, &out);
	acts(&out, VRRP_ACT_WANT_MASTER, 100, END);
	assert_int_equal(sm.state, VRRP_STATE_BACKUP);
	assert_true(sm.want_master);
	/* already asking (timer at Master_Down_Interval): asks again sooner */
	vrrp_state_master_gone(&sm, T0 + 3 * S, &out);
	assert_int_equal(out.deadline, T0 + 3 * S + 609375);

	/* no-op in MASTER: the advert timer stays */
	t = master_from_t0(&sm, cfg3(100));
	vrrp_state_master_gone(&sm, t + 10, &out);
	acts(&out, END);
	assert_int_equal(sm.state, VRRP_STATE_MASTER);
	assert_int_equal(out.deadline, t + S);
	assert_int_equal(sm.master_down_timer, VRRP_NEVER);
	/* in FAULT: no timer appears */
	backup_at_t0(&sm, cfg3(100));
	vrrp_state_fault(&sm, T0 + S, true, &out);
	vrrp_state_master_gone(&sm, T0 + 2 * S, &out);
	acts(&out, END);
	assert_int_equal(out.deadline, VRRP_NEVER);
	assert_int_equal(sm.master_down_timer, VRRP_NEVER);
	vrrp_state_timer(&sm, T0 + 10 * S, &out);
	acts(&out, END);
	assert_int_equal(sm.state, VRRP_STATE_FAULT);
	/* in INIT: nothing either */
	init(&sm, cfg3(100));
	vrrp_state_master_gone(&sm, T0, &out);
	acts(&out, END);
	assert_int_equal(out.deadline, VRRP_NEVER);
	assert_int_equal(sm.master_down_timer, VRRP_NEVER);
	vrrp_state_timer(&sm, T0 + 10 * S, &out);
	acts(&out, END);
	assert_int_equal(sm.state, VRRP_STATE_INIT);
}

/* vipd extension: the master proven gone was the only peer of a unicast
 * instance: no Skew_Time (vrrp_sole_backup, vrrp_state_master_gone_sole). */
static void test_master_gone_sole(void **state)
{
	static const uint8_t A3[4] = { 198, 18, 0, 3 };
	uint8_t peers[3 * 4];
	struct vrrp_sm_config c;
	struct vrrp_sm sm;
	struct vrrp_out out;

	(void)state;
	/* the rule: every listed peer is the master or ourselves */
	memcpy(peers, A2, 4);
	assert_true(vrrp_sole_backup(AF_INET, true, peers, 1, A1, A2));
	memcpy(peers + 4, A1, 4); /* our own address listed too (a shared list) */
	assert_true(vrrp_sole_backup(AF_INET, true, peers, 2, A1, A2));
	memcpy(peers + 8, A3, 4); /* a third router may contend */
	assert_false(vrrp_sole_backup(AF_INET, true, peers, 3, A1, A2));
	/* the gone master is not listed: someone else was master */
	memcpy(peers, A3, 4);
	assert_false(vrrp_sole_backup(AF_INET, true, peers, 1, A1, A2));
	/* multicast, or no peers: never */
	memcpy(peers, A2, 4);
	assert_false(vrrp_sole_backup(AF_INET, false, peers, 1, A1, A2));
	assert_false(vrrp_sole_backup(AF_INET, true, peers, 0, A1, A2));

	/* the move: master at once, not Skew_Time later */
	backup_at_t0(&sm, cfg3(100));
	vrrp_state_advert(&sm, T0 + S, 200, 100, A2, A1, &out);
	vrrp_state_master_gone_sole(&sm, T0 + 2 * S, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 100, VRRP_ACT_BECOME_MASTER, 100, END);
	assert_int_equal(sm.state, VRRP_STATE_MASTER);
	/* a tracked (sync or fenced) instance asks instead */
	c = cfg3(100);
	c.sync = true;
	backup_at_t0(&sm, c);
	vrrp_state_advert(&sm, T0 + S, 200, 100, A2, A1, &out);
	vrrp_state_master_gone_sole(&sm, T0 + 2 * S, &out);
	acts(&out, VRRP_ACT_WANT_MASTER, 100, END);
	assert_int_equal(sm.state, VRRP_STATE_BACKUP);
	/* the start-up hold still holds */
	c = cfg3(100);
	c.hold_until = T0 + 10 * S;
	backup_at_t0(&sm, c);
	vrrp_state_master_gone_sole(&sm, T0 + 2 * S, &out);
	acts(&out, END);
	assert_int_equal(out.deadline, T0 + 10 * S);
	/* not a backup: nothing */
	init(&sm, cfg3(100));
	vrrp_state_master_gone_sole(&sm, T0, &out);
	acts(&out, END);
	assert_int_equal(sm.state, VRRP_STATE_INIT);
}

/* vipd extension: a BFD session to addr left Up; is addr our master? */
static void test_master_at(void **state)
{
	struct vrrp_sm_config c;
	struct vrrp_sm sm;
	struct vrrp_out out;

	(void)state;
	backup_at_t0(&sm, cfg3(100));
	assert_false(vrrp_state_master_at(&sm, AF_INET, A2)); /* no master heard yet */
	vrrp_state_advert(&sm, T0 + S, 200, 100, A2, A1, &out);
	assert_true(vrrp_state_master_at(&sm, AF_INET, A2));
	assert_false(vrrp_state_master_at(&sm, AF_INET, A0)); /* another router */
	assert_false(vrrp_state_master_at(&sm, AF_INET6, A2));
	/* already taking over (a sync or fenced instance that asked) */
	c = cfg3(100);
	c.sync = true;
	backup_at_t0(&sm, c);
	vrrp_state_advert(&sm, T0 + S, 200, 100, A2, A1, &out);
	vrrp_state_timer(&sm, T0 + S + sm.master_down_int, &out);
	assert_true(sm.want_master);
	assert_false(vrrp_state_master_at(&sm, AF_INET, A2));
	/* a master itself */
	master_from_t0(&sm, cfg3(100));
	assert_false(vrrp_state_master_at(&sm, AF_INET, A2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_master_gone),
		cmocka_unit_test(test_master_gone_sole),
		cmocka_unit_test(test_master_at),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
