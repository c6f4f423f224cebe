/* Helpers shared by the unit tests of the VRRP state machine
 * (test_vipd_state.c, test_vipd_state_master_gone.c): times in microseconds, every
 * test starting at T0. Include after cmocka.h. */
#ifndef VIPD_STATE_TEST_H
#define VIPD_STATE_TEST_H

#include <stdarg.h>
#include <stdint.h>
#include <sys/socket.h>

#include "vrrp_state.h"

#define S  VRRP_USEC
#define MS 1000ull
#define T0 (1000 * S) /* start-up time in every test */

static __attribute__((unused)) uint8_t A1[4] = { 198, 18, 0, 1 }; /* our primary address */
static __attribute__((unused)) uint8_t A2[4] = { 198, 18, 0, 2 }; /* a peer's, greater */
static __attribute__((unused)) uint8_t A0[4] = { 198, 18, 0, 0 }; /* a peer's, smaller */

static inline struct vrrp_sm_config cfg3(int prio)
{
	struct vrrp_sm_config c = { 0 };

	c.version = 3;
	c.family = AF_INET;
	c.priority = prio;
	c.adver_int = 1 * S;
	c.preempt = true;
	return c;
}

static inline void init(struct vrrp_sm *sm, struct vrrp_sm_config c)
{
	assert_int_equal(vrrp_state_init(sm, &c), 0);
}

/* Assert the actions of out: a list of (type, priority) pairs, then -1. */
static inline void acts(const struct vrrp_out *out, ...)
{
	va_list ap;
	unsigned i = 0;
	int t;

	va_start(ap, out);
	while ((t = va_arg(ap, int)) != -1) {
		int prio = va_arg(ap, int);

		assert_true(i < out->n);
		assert_string_equal(vrrp_state_action_name(out->act[i].type),
			vrrp_state_action_name((enum vrrp_action_type)t));
		assert_int_equal(out->act[i].priority, prio);
		i++;
	}
	va_end(ap);
	assert_int_equal(out->n, i);
}

#define END -1

/* A backup started at T0. */
static inline void backup_at_t0(struct vrrp_sm *sm, struct vrrp_sm_config c)
{
	struct vrrp_out out;

	init(sm, c);
	vrrp_state_start(sm, T0, &out);
	acts(&out, VRRP_ACT_BECOME_BACKUP, c.priority, END);
	assert_int_equal(out.act[0].from, VRRP_STATE_INIT);
	assert_int_equal(sm->state, VRRP_STATE_BACKUP);
}

/* A master: started at T0, timed out at T0 + Master_Down_Interval. */
static inline uint64_t master_from_t0(struct vrrp_sm *sm, struct vrrp_sm_config c)
{
	struct vrrp_out out;
	uint64_t t;

	backup_at_t0(sm, c);
	t = T0 + sm->master_down_int;
	vrrp_state_timer(sm, t, &out);
	acts(&out, VRRP_ACT_SEND_ADVERT, c.priority, VRRP_ACT_BECOME_MASTER, c.priority, END);
	assert_int_equal(sm->state, VRRP_STATE_MASTER);
	assert_int_equal(out.deadline, t + c.adver_int);
	return t;
}

#endif
