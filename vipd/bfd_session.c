/* The BFD session state machine: RFC 5880 §6 (see bfd_session.h). */
#include <errno.h>
#include <string.h>

#include "bfd_session.h"

static uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* bfd.DesiredMinTxInterval for the current state (§6.8.3) */
static uint32_t desired_tx_for(const struct bfd_session *s)
{
	if (s->state == BFD_STATE_UP)
		return s->cfg.min_tx;
	return s->cfg.idle_tx > BFD_SLOW_TX_MIN ? s->cfg.idle_tx : BFD_SLOW_TX_MIN;
}

/* The periodic transmit interval with its jitter (§6.8.7) */
static uint64_t tx_interval(const struct bfd_session *s, uint32_t rnd)
{
	uint64_t base = max64(s->desired_tx, s->remote_min_rx);
	unsigned pct = s->cfg.mult == 1 ? 75 + rnd % 16 : 75 + rnd % 26;

	return base * pct / 100;
}

/* May periodic packets go out now (§6.8.7)? */
static bool may_send(const struct bfd_session *s)
{
	if (s->state == BFD_STATE_ADMIN_DOWN && s->remote_disc == 0)
		return false;
	if (s->remote_min_rx == 0)
		return false;
	if (s->cfg.passive && s->remote_disc == 0)
		return false;
	return true;
}

static void build(const struct bfd_session *s, struct bfd_pkt *p, unsigned flags)
{
	memset(p, 0, sizeof(*p));
	p->diag = s->diag;
	p->state = s->state;
	/* §6.8.7: never P and F together; our own poll waits for the next packet */
	p->flags = flags | (s->polling && !(flags & BFD_FLAG_FINAL) ? BFD_FLAG_POLL : 0);
	p->detect_mult = s->cfg.mult;
	p->my_disc = s->cfg.my_disc;
	p->your_disc = s->remote_disc;
	p->desired_min_tx = s->desired_tx;
	p->required_min_rx = s->cfg.min_rx;
	p->required_min_echo_rx = 0; /* no echo (§6.8.9) */
}

static void send_now(
	struct bfd_session *s, uint64_t now, uint32_t rnd, unsigned flags, struct bfd_out *out)
{
	uint64_t next;

	build(s, &out->pkt, flags);
	out->send = true;
	next = may_send(s) ? now + tx_interval(s, rnd) : BFD_NEVER;
	/* a Final is sent "without respect to the transmission timer"
	 * (§6.8.7): it does not move the periodic schedule, unless the
	 * interval shrank (going Up) and the next packet is now too far */
	if (!(flags & BFD_FLAG_FINAL) || s->tx_timer == BFD_NEVER || next < s->tx_timer)
		s->tx_timer = next;
}

static void set_state(
	struct bfd_session *s, enum bfd_state to, enum bfd_diag diag, struct bfd_out *out)
{
	uint32_t old_tx = s->desired_tx;

	if (to == s->state)
		return;
	if (!out->changed)
		out->from = s->state;
	out->changed = true;
	out->to = to;
	if (to == BFD_STATE_UP)
		s->up_count++;
	if (to == BFD_STATE_DOWN && (s->state == BFD_STATE_UP || s->state == BFD_STATE_INIT))
		s->down_count++;
	s->state = to;
	s->diag = diag;
	s->desired_tx = desired_tx_for(s);
	/* §6.8.3: a change of DesiredMinTxInterval while Up needs a Poll
	 * Sequence; leaving Up ends any (nothing to negotiate while slow) */
	s->polling = to == BFD_STATE_UP && s->desired_tx != old_tx;
	if (to != BFD_STATE_UP && to != BFD_STATE_INIT)
		s->detect_timer = BFD_NEVER;
}

static void deadline_of(const struct bfd_session *s, struct bfd_out *out)
{
	out->deadline = bfd_session_deadline(s);
}

int bfd_session_init(struct bfd_session *s, const struct bfd_session_config *cfg)
{
	if (!cfg->min_tx || !cfg->mult || cfg->mult > 255 || !cfg->my_disc)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	s->state = BFD_STATE_ADMIN_DOWN;
	s->remote_state = BFD_STATE_DOWN;
	s->remote_min_rx = 1; /* §6.8.1: initialised to 1 */
	s->desired_tx = desired_tx_for(s);
	s->tx_timer = BFD_NEVER;
	s->detect_timer = BFD_NEVER;
	return 0;
}

void bfd_session_start(struct bfd_session *s, uint64_t now, uint32_t rnd, struct bfd_out *out)
{
	memset(out, 0, sizeof(*out));
	if (s->state == BFD_STATE_ADMIN_DOWN) {
		set_state(s, BFD_STATE_DOWN, BFD_DIAG_NONE, out);
		if (may_send(s))
			send_now(s, now, rnd, 0, out);
	}
	deadline_of(s, out);
}

void bfd_session_stop(struct bfd_session *s, uint64_t now, struct bfd_out *out)
{
	memset(out, 0, sizeof(*out));
	(void)now;
	if (s->state != BFD_STATE_ADMIN_DOWN) {
		set_state(s, BFD_STATE_ADMIN_DOWN, BFD_DIAG_ADMIN_DOWN, out);
		build(s, &out->pkt, 0);
		out->send = s->remote_disc != 0 || !s->cfg.passive;
	}
	s->tx_timer = BFD_NEVER;
	s->detect_timer = BFD_NEVER;
	deadline_of(s, out);
}

int bfd_session_receive(struct bfd_session *s, uint64_t now, const struct bfd_pkt *p, uint32_t rnd,
	struct bfd_out *out)
{
	enum bfd_state before;
	bool had_remote;

	memset(out, 0, sizeof(*out));
	/* §6.8.6: the session selection checks */
	if ((p->your_disc != 0 && p->your_disc != s->cfg.my_disc) ||
		(p->your_disc == 0 && p->state != BFD_STATE_DOWN &&
			p->state != BFD_STATE_ADMIN_DOWN)) {
		deadline_of(s, out);
		return -1;
	}
	had_remote = s->remote_disc != 0;
	before = s->state;
	s->remote_disc = p->my_disc;
	s->remote_state = p->state;
	s->remote_mult = p->detect_mult;
	s->remote_min_rx = p->required_min_rx;
	s->remote_desired_tx = p->desired_min_tx;
	s->last_rx = now;
	/* §6.8.6: F ends our Poll Sequence */
	if ((p->flags & BFD_FLAG_FINAL) && s->polling)
		s->polling = false;
	/* §6.8.4: the detection time, and the timer restarted by this packet */
	s->detect_time = (uint64_t)p->detect_mult * max64(s->cfg.min_rx, p->desired_min_tx);
	if (s->state == BFD_STATE_ADMIN_DOWN) {
		deadline_of(s, out);
		return 0; /* §6.8.6: AdminDown: discard (after noting the remote) */
	}
	if (p->state == BFD_STATE_ADMIN_DOWN) {
		if (s->state != BFD_STATE_DOWN)
			set_state(s, BFD_STATE_DOWN, BFD_DIAG_NEIGHBOR_DOWN, out);
	} else if (s->state == BFD_STATE_DOWN) {
		if (p->state == BFD_STATE_DOWN)
			set_state(s, BFD_STATE_INIT, BFD_DIAG_NONE, out);
		else if (p->state == BFD_STATE_INIT)
			set_state(s, BFD_STATE_UP, BFD_DIAG_NONE, out);
	} else if (s->state == BFD_STATE_INIT) {
		if (p->state == BFD_STATE_INIT || p->state == BFD_STATE_UP)
			set_state(s, BFD_STATE_UP, BFD_DIAG_NONE, out);
	} else if (s->state == BFD_STATE_UP) {
		if (p->state == BFD_STATE_DOWN)
			set_state(s, BFD_STATE_DOWN, BFD_DIAG_NEIGHBOR_DOWN, out);
	}
	if (s->state == BFD_STATE_INIT || s->state == BFD_STATE_UP)
		s->detect_timer = s->detect_time ? now + s->detect_time : BFD_NEVER;
	if (p->flags & BFD_FLAG_POLL)
		send_now(s, now, rnd, BFD_FLAG_FINAL, out); /* §6.8.7 */
	else if (s->state != before || (!had_remote && may_send(s) && s->tx_timer == BFD_NEVER))
		send_now(s, now, rnd, 0, out);
	else if (!may_send(s))
		s->tx_timer = BFD_NEVER;
	else if (s->tx_timer == BFD_NEVER)
		s->tx_timer = now + tx_interval(s, rnd);
	deadline_of(s, out);
	return 0;
}

void bfd_session_timer(struct bfd_session *s, uint64_t now, uint32_t rnd, struct bfd_out *out)
{
	memset(out, 0, sizeof(*out));
	if (s->detect_timer != BFD_NEVER && now >= s->detect_timer) {
		/* §6.8.4: the remote fell silent */
		s->detect_timer = BFD_NEVER;
		s->remote_disc = 0;
		s->remote_min_rx = 1;
		set_state(s, BFD_STATE_DOWN, BFD_DIAG_TIME_EXPIRED, out);
		if (may_send(s))
			send_now(s, now, rnd, 0, out);
		else
			s->tx_timer = BFD_NEVER;
	}
	if (s->tx_timer != BFD_NEVER && now >= s->tx_timer) {
		if (may_send(s))
			send_now(s, now, rnd, 0, out);
		else
			s->tx_timer = BFD_NEVER;
	}
	deadline_of(s, out);
}

uint64_t bfd_session_deadline(const struct bfd_session *s)
{
	return s->tx_timer < s->detect_timer ? s->tx_timer : s->detect_timer;
}
