/* The VRRP state machine, continued: resign_grace (vipd_quiesce), a master
 * that gives the VIP up on purpose quiescing it first, with explicit times
 * (microseconds). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "vipd_state_test.h"

/* vipd_quiesce (resign_grace): a master that gives the VIP up on purpose
 * quiesces first and gives it up only after the grace; a fault of
 * another kind does not wait, and a drain called off keeps the VIP. */
static void test_resign_grace(void **state)
{
	struct vrrp_sm sm;
	struct vrrp_out out;
	struct vrrp_sm_config c = cfg3(150);
	uint64_t m, g = 250 * MS;

	(void)state;
	c.preempt_handover = true;
	c.resign_grace = g;

	/* drained: QUIESCE now, priority 0 and FAULT after the grace */
	m = master_from_t0(&sm, c);
	vrrp_state_drain(&sm, m + S / 10, &out);
	acts(&out, VRRP_ACT_QUIESCE, 150, END);
	assert_int_equal(sm.state, VRRP_STATE_MASTER);
	assert_int_equal(out.deadline, m + S / 10 + g);
	vrrp_state_timer(&sm, m + S / 10 + g - 1, &out); /* early: nothing */
	acts(&out, END);
	vrrp_state_timer(&sm, m + S / 10 + g, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 0, VRRP_ACT_BECOME_FAULT, 150, END);
	assert_int_equal(out.act[1].from, VRRP_STATE_MASTER);
	assert_int_equal(sm.state, VRRP_STATE_FAULT);
	/* undrained: backup again, as after any fault */
	vrrp_state_fault(&sm, m + 5 * S, false, &out);
	acts(&out, VRRP_ACT_BECOME_BACKUP, 150, END);

	/* adverts go on during the grace */
	c.resign_grace = 2 * S;
	m = master_from_t0(&sm, c);
	vrrp_state_drain(&sm, m + S / 2, &out);
	acts(&out, VRRP_ACT_QUIESCE, 150, END);
	assert_int_equal(out.deadline, m + S);
	vrrp_state_timer(&sm, m + S, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 150, END);
	assert_int_equal(out.deadline, m + 2 * S); /* the next advert, then the end */
	vrrp_state_timer(&sm, m + 2 * S, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 150, END);
	assert_int_equal(out.deadline, m + S / 2 + 2 * S);
	vrrp_state_timer(&sm, m + S / 2 + 2 * S, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 0, VRRP_ACT_BECOME_FAULT, 150, END);
	c.resign_grace = g;

	/* drain called off during the grace: UNQUIESCE, still master */
	m = master_from_t0(&sm, c);
	vrrp_state_drain(&sm, m, &out);
	vrrp_state_fault(&sm, m + g / 2, false, &out);
	acts(&out, VRRP_ACT_UNQUIESCE, 150, END);
	assert_int_equal(sm.state, VRRP_STATE_MASTER);
	assert_int_equal(out.deadline, m + S); /* the next advert, no resign */
	vrrp_state_timer(&sm, m + g, &out);
	acts(&out, END);
	/* and drained again later: a new grace */
	vrrp_state_drain(&sm, m + 3 * S / 2, &out);
	acts(&out, VRRP_ACT_QUIESCE, 150, END);

	/* another fault during the grace: the VIP goes at once */
	m = master_from_t0(&sm, c);
	vrrp_state_drain(&sm, m, &out);
	vrrp_state_fault(&sm, m + g / 2, true, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 0, VRRP_ACT_BECOME_FAULT, 150, END);
	vrrp_state_timer(&sm, m + g, &out);
	acts(&out, END);

	/* a higher priority announcing itself (preempt_handover): quiesce,
	 * then step down with priority 0; its adverts meanwhile change
	 * nothing */
	m = master_from_t0(&sm, c);
	vrrp_state_advert(&sm, m + 10 * MS, 200, 100, A2, A1, &out);
	acts(&out, VRRP_ACT_QUIESCE, 150, END);
	assert_int_equal(sm.state, VRRP_STATE_MASTER);
	vrrp_state_advert(&sm, m + 100 * MS, 200, 100, A2, A1, &out);
	acts(&out, END);
	assert_int_equal(out.deadline, m + 10 * MS + g);
	vrrp_state_timer(&sm, m + 10 * MS + g, &out);
	acts(&out, VRRP_ACT_BECOME_BACKUP, 150, VRRP_ACT_SEND_ADVERT, 0, END);
	assert_int_equal(sm.state, VRRP_STATE_BACKUP);
	assert_int_equal(sm.master_priority, 200);
	/* its Master_Down_Timer runs from the step-down */
	assert_int_equal(out.deadline, m + 10 * MS + g + sm.master_down_int);

	/* drained while stepping down: FAULT at the same end */
	m = master_from_t0(&sm, c);
	vrrp_state_advert(&sm, m + 10 * MS, 200, 100, A2, A1, &out);
	vrrp_state_drain(&sm, m + 20 * MS, &out);
	acts(&out, END);
	vrrp_state_timer(&sm, m + 10 * MS + g, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 0, VRRP_ACT_BECOME_FAULT, 150, END);

	/* stopped during the grace: priority 0 at once */
	m = master_from_t0(&sm, c);
	vrrp_state_drain(&sm, m, &out);
	vrrp_state_stop(&sm, m + MS, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 0, VRRP_ACT_BECOME_INIT, 150, END);
	assert_int_equal(vrrp_state_deadline(&sm), VRRP_NEVER);

	/* without preempt_handover a higher priority holds the VIP already:
	 * no grace */
	c.preempt_handover = false;
	m = master_from_t0(&sm, c);
	vrrp_state_advert(&sm, m + 10 * MS, 200, 100, A2, A1, &out);
	acts(&out, VRRP_ACT_BECOME_BACKUP, 150, END);
	/* a backup drained: FAULT at once, nothing to quiesce */
	backup_at_t0(&sm, c);
	vrrp_state_drain(&sm, T0 + S, &out);
	acts(&out, VRRP_ACT_BECOME_FAULT, 150, END);
	/* no grace configured: keepalived's way */
	c.resign_grace = 0;
	m = master_from_t0(&sm, c);
	vrrp_state_drain(&sm, m, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, 0, VRRP_ACT_BECOME_FAULT, 150, END);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resign_grace),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
