#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "vrrp_state.h"

#define CENTISEC 10000ull /* microseconds in a centisecond */

static uint64_t add(uint64_t t, uint64_t d)
{
	return t > VRRP_NEVER - d ? VRRP_NEVER : t + d;
}

/* Where Master_Down_Timer counts from: now, or the end of the start-up
 * hold (vrrp_startup_delay) while it lasts. */
static uint64_t base(const struct vrrp_sm *sm, uint64_t now)
{
	return now < sm->cfg.hold_until ? sm->cfg.hold_until : now;
}

static size_t addr_len(const struct vrrp_sm *sm)
{
	return sm->cfg.family == AF_INET6 ? 16 : 4;
}

static bool owner(const struct vrrp_sm *sm)
{
	return sm->cfg.priority == 255;
}

/* RFC 9568 §6.1 (v3), RFC 3768 §6.1 (v2); arithmetic in vrrp_state.h */
static void recompute(struct vrrp_sm *sm)
{
	uint64_t base = sm->cfg.version == 2 ? VRRP_USEC : sm->master_adver_int;

	if (sm->cfg.version == 2)
		sm->master_adver_int = sm->cfg.adver_int;
	sm->skew_time = (uint64_t)(256 - sm->priority) * base / 256;
	sm->master_down_int = 3 * sm->master_adver_int + sm->skew_time;
}

static void emit(
	struct vrrp_out *out, enum vrrp_action_type type, int priority, enum vrrp_sm_state from)
{
	if (out->n < VRRP_ACTIONS_MAX) {
		out->act[out->n].type = type;
		out->act[out->n].priority = priority;
		out->act[out->n].from = from;
		out->n++;
	}
}

static void begin(struct vrrp_out *out)
{
	out->n = 0;
}

static void deadline_of(const struct vrrp_sm *sm, struct vrrp_out *out)
{
	out->deadline = vrrp_state_deadline(sm);
}

/* RFC 9568 §6.4.1 (owner) and §6.4.2 (Master_Down_Timer fires): send an
 * ADVERTISEMENT, announce the addresses, Adver_Timer to
 * Advertisement_Interval. */
static void to_master(struct vrrp_sm *sm, uint64_t now, struct vrrp_out *out)
{
	enum vrrp_sm_state from = sm->state;

	emit(out, VRRP_ACT_SEND_ADVERT, sm->priority, from);
	emit(out, VRRP_ACT_BECOME_MASTER, sm->priority, from);
	sm->state = VRRP_STATE_MASTER;
	sm->master_down_timer = VRRP_NEVER;
	sm->adver_timer = add(now, sm->cfg.adver_int);
	sm->master_seen = false;
	sm->want_master = false;
	sm->lower_heard = sm->handover = sm->resigned = false;
	sm->resigning = false;
}

/* RFC 9568 §6.4.1: Master_Adver_Interval to Advertisement_Interval,
 * Master_Down_Timer to Master_Down_Interval. */
static void to_backup_fresh(struct vrrp_sm *sm, uint64_t now, struct vrrp_out *out)
{
	enum vrrp_sm_state from = sm->state;

	sm->master_adver_int = sm->cfg.adver_int;
	recompute(sm);
	sm->state = VRRP_STATE_BACKUP;
	sm->adver_timer = VRRP_NEVER;
	sm->master_down_timer = add(base(sm, now), sm->master_down_int);
	sm->master_seen = false;
	sm->want_master = false;
	sm->lower_heard = sm->handover = sm->resigned = false;
	emit(out, VRRP_ACT_BECOME_BACKUP, sm->priority, from);
}

/* Start-up and the end of FAULT: the owner takes over at once (RFC 9568
 * §6.4.1) unless the start-up hold lasts, when it waits for its end;
 * anyone else is backup for Master_Down_Interval after now or the hold. */
static void to_first_state(struct vrrp_sm *sm, uint64_t now, struct vrrp_out *out)
{
	if (owner(sm) && now >= sm->cfg.hold_until) {
		to_master(sm, now, out);
	} else {
		to_backup_fresh(sm, now, out);
		if (owner(sm))
			sm->master_down_timer = sm->cfg.hold_until;
	}
}

/* Into INIT (stopped) or FAULT: a master sends priority 0 first (RFC 9568
 * §6.4.3 for a shutdown; keepalived for a fault), and the timers stop. */
static void to_idle(struct vrrp_sm *sm, enum vrrp_sm_state to, struct vrrp_out *out)
{
	enum vrrp_sm_state from = sm->state;

	if (from == VRRP_STATE_MASTER)
		emit(out, VRRP_ACT_SEND_ADVERT, 0, from);
	emit(out, to == VRRP_STATE_INIT ? VRRP_ACT_BECOME_INIT : VRRP_ACT_BECOME_FAULT,
		sm->priority, from);
	sm->state = to;
	sm->adver_timer = VRRP_NEVER;
	sm->master_down_timer = VRRP_NEVER;
	sm->master_seen = false;
	sm->want_master = false;
	sm->resigning = false;
}

int vrrp_state_init(struct vrrp_sm *sm, const struct vrrp_sm_config *cfg)
{
	if (cfg->version != 2 && cfg->version != 3)
		return -EINVAL;
	if (cfg->family != AF_INET && cfg->family != AF_INET6)
		return -EINVAL;
	if (cfg->version == 2 && cfg->family != AF_INET)
		return -EINVAL;
	if (cfg->priority < 1 || cfg->priority > 255)
		return -EINVAL;
	if (cfg->version == 3 && (cfg->adver_int < CENTISEC || cfg->adver_int > 4095 * CENTISEC ||
					 cfg->adver_int % CENTISEC))
		return -EINVAL;
	if (cfg->version == 2 && (cfg->adver_int < VRRP_USEC || cfg->adver_int > 255 * VRRP_USEC ||
					 cfg->adver_int % VRRP_USEC))
		return -EINVAL;
	if (cfg->preempt_delay > 1000 * VRRP_USEC)
		return -EINVAL;
	memset(sm, 0, sizeof(*sm));
	sm->cfg = *cfg;
	sm->state = VRRP_STATE_INIT;
	sm->priority = cfg->priority;
	sm->master_adver_int = cfg->adver_int;
	recompute(sm);
	sm->adver_timer = VRRP_NEVER;
	sm->master_down_timer = VRRP_NEVER;
	return 0;
}

void vrrp_state_start(struct vrrp_sm *sm, uint64_t now, struct vrrp_out *out)
{
	begin(out);
	if (sm->state == VRRP_STATE_INIT) {
		/* keepalived's preempt_delay counts from start-up too */
		sm->preempt_armed = sm->cfg.preempt_delay > 0;
		sm->preempt_until = add(now, sm->cfg.preempt_delay);
		if (sm->faulted) {
			sm->state = VRRP_STATE_FAULT;
			emit(out, VRRP_ACT_BECOME_FAULT, sm->priority, VRRP_STATE_INIT);
		} else {
			to_first_state(sm, now, out);
		}
	}
	deadline_of(sm, out);
}

void vrrp_state_stop(struct vrrp_sm *sm, uint64_t now, struct vrrp_out *out)
{
	enum vrrp_sm_state from = sm->state;

	(void)now;
	begin(out);
	if (from != VRRP_STATE_INIT)
		to_idle(sm, VRRP_STATE_INIT, out);
	deadline_of(sm, out);
}

/* keepalived's preempt_delay: a lower-priority master is followed (as with
 * nopreempt) until preempt_delay after start-up or after its first advert
 * seen, then preempted. */
static bool preempt_delayed(struct vrrp_sm *sm, uint64_t now)
{
	if (!sm->cfg.preempt_delay)
		return false;
	if (!sm->preempt_armed) {
		sm->preempt_armed = true;
		sm->preempt_until = add(now, sm->cfg.preempt_delay);
	}
	return now < sm->preempt_until;
}

/* RFC 9568 §6.4.2 */
static void backup_advert(
	struct vrrp_sm *sm, uint64_t now, int priority, unsigned adver_int, const uint8_t *src)
{
	if (priority == 0) {
		/* preempt_handover: the master we announced ourselves to
		 * resigned (it stepped down): nobody else contends, at once */
		sm->master_down_timer = add(base(sm, now), sm->handover ? 0 : sm->skew_time);
		/* alive, and it gives its addresses up as it says so */
		sm->resigned = true;
		sm->lower_heard = false;
		return;
	}
	if (!sm->cfg.preempt || priority >= sm->priority || preempt_delayed(sm, now)) {
		sm->lower_heard = sm->handover = sm->resigned = false;
		if (priority >= sm->priority)
			sm->preempt_armed = false; /* keepalived: "stop preempt delay" */
		if (sm->cfg.version == 3)
			sm->master_adver_int = adver_int * CENTISEC;
		recompute(sm);
		sm->master_down_timer = add(base(sm, now), sm->master_down_int);
		sm->master_seen = true;
		sm->want_master = false; /* keepalived: wantstate back to BACKUP */
		sm->master_priority = priority;
		memcpy(sm->master_addr, src, addr_len(sm));
	}
	/* else: preempting a lower priority, discard (the timer runs on) */
	else {
		sm->lower_heard = true;
		sm->lower_heard_at = now;
		sm->lower_priority = priority;
		sm->lower_adver_int =
			sm->cfg.version == 3 ? adver_int * CENTISEC : sm->cfg.adver_int;
	}
}

/* preempt_handover, when Master_Down_Timer fires: true when the backup
 * announces itself (again) to a master it still hears instead of taking
 * over now. */
static bool handing_over(struct vrrp_sm *sm, uint64_t now, struct vrrp_out *out)
{
	if (!sm->cfg.preempt_handover || !sm->lower_heard)
		return false;
	if (sm->handover && sm->lower_heard_at < sm->handover_sent) {
		/* silent since our advert: it stepped down */
		sm->lower_heard = sm->handover = false;
		return false;
	}
	if (!sm->handover && now - sm->lower_heard_at >= sm->master_down_int) {
		sm->lower_heard = false; /* not heard for long: gone, not alive */
		return false;
	}
	sm->handover_rounds = sm->handover ? sm->handover_rounds + 1 : 1;
	sm->handover = true;
	sm->resigned = false;
	sm->handover_sent = now;
	emit(out, VRRP_ACT_SEND_ADVERT, sm->priority, sm->state);
	sm->master_down_timer = add(now, add(sm->lower_adver_int, sm->skew_time));
	return true;
}

/* A master steps down for the higher priority that advertised (RFC 9568
 * §6.4.3). */
static void step_down(struct vrrp_sm *sm, uint64_t now, int priority, unsigned adver_int,
	const uint8_t *src, struct vrrp_out *out)
{
	if (sm->cfg.version == 3)
		sm->master_adver_int = adver_int * CENTISEC;
	recompute(sm);
	sm->adver_timer = VRRP_NEVER;
	sm->master_down_timer = add(base(sm, now), sm->master_down_int);
	sm->state = VRRP_STATE_BACKUP;
	sm->master_seen = true;
	sm->master_priority = priority;
	sm->resigning = false;
	memcpy(sm->master_addr, src, addr_len(sm));
	emit(out, VRRP_ACT_BECOME_BACKUP, sm->priority, VRRP_STATE_MASTER);
	/* preempt_handover: say so once the addresses are gone, and the
	 * backup that preempts us takes over at once instead of after our
	 * silence */
	if (sm->cfg.preempt_handover)
		emit(out, VRRP_ACT_SEND_ADVERT, 0, VRRP_STATE_MASTER);
}

/* resign_grace: quiesce now, give the VIP up at now + resign_grace. */
static void resign(struct vrrp_sm *sm, uint64_t now, struct vrrp_out *out)
{
	if (sm->resigning)
		return;
	sm->resigning = true;
	sm->resign_at = add(now, sm->cfg.resign_grace);
	emit(out, VRRP_ACT_QUIESCE, sm->priority, VRRP_STATE_MASTER);
}

/* RFC 9568 §6.4.3 */
static void master_advert(struct vrrp_sm *sm, uint64_t now, int priority, unsigned adver_int,
	const uint8_t *src, const uint8_t *ours, struct vrrp_out *out)
{
	int cmp;

	if (priority == 0) {
		emit(out, VRRP_ACT_SEND_ADVERT, sm->priority, sm->state);
		sm->adver_timer = add(now, sm->cfg.adver_int);
		return;
	}
	/* unsigned integers in network order compare as their bytes do */
	cmp = memcmp(src, ours, addr_len(sm));
	if (priority > sm->priority || (priority == sm->priority && cmp > 0)) {
		/* preempt_handover: the higher priority waits for our
		 * priority 0 before it takes the VIP; quiesce first */
		if (sm->cfg.preempt_handover && sm->cfg.resign_grace) {
			if (!sm->resigning) {
				sm->resign_fault = false;
				sm->resign_priority = priority;
				sm->resign_adver_int = adver_int;
				memcpy(sm->resign_src, src, addr_len(sm));
			}
			resign(sm, now, out);
			return;
		}
		step_down(sm, now, priority, adver_int, src, out);
	}
	/* else: lower priority (or our own address), discard and keep
	 * advertising on schedule; keepalived answers at once unless
	 * lower_prio_no_advert, the RFC does not */
}

int vrrp_state_advert(struct vrrp_sm *sm, uint64_t now, int priority, unsigned adver_int,
	const uint8_t *src, const uint8_t *ours, struct vrrp_out *out)
{
	begin(out);
	if (priority < 0 || priority > 255 ||
		(sm->cfg.version == 3 && (adver_int == 0 || adver_int > 4095))) {
		deadline_of(sm, out);
		return -EINVAL;
	}
	if (sm->state == VRRP_STATE_BACKUP)
		backup_advert(sm, now, priority, adver_int, src);
	else if (sm->state == VRRP_STATE_MASTER)
		master_advert(sm, now, priority, adver_int, src, ours, out);
	deadline_of(sm, out);
	return 0;
}

void vrrp_state_timer(struct vrrp_sm *sm, uint64_t now, struct vrrp_out *out)
{
	begin(out);
	if (sm->state == VRRP_STATE_MASTER && sm->resigning && now >= sm->resign_at) {
		/* resign_grace over: the VIP goes */
		if (sm->resign_fault)
			to_idle(sm, VRRP_STATE_FAULT, out);
		else
			step_down(sm, now, sm->resign_priority, sm->resign_adver_int,
				sm->resign_src, out);
	} else if (sm->state == VRRP_STATE_MASTER && now >= sm->adver_timer) {
		/* RFC 9568 §6.4.3: Adver_Timer fires */
		emit(out, VRRP_ACT_SEND_ADVERT, sm->priority, sm->state);
		sm->adver_timer = add(now, sm->cfg.adver_int);
	} else if (sm->state == VRRP_STATE_BACKUP && now >= sm->master_down_timer) {
		/* RFC 9568 §6.4.2: Master_Down_Timer fires */
		if (handing_over(sm, now, out)) {
			/* the master we preempt has not stepped down yet */
		} else if (sm->cfg.sync) {
			/* keepalived: the group goes master only when every
			 * member wants to; ask, and ask again after another
			 * Master_Down_Interval */
			sm->want_master = true;
			sm->master_down_timer = add(now, sm->master_down_int);
			emit(out, VRRP_ACT_WANT_MASTER, sm->priority, sm->state);
		} else {
			to_master(sm, now, out);
		}
	}
	deadline_of(sm, out);
}

void vrrp_state_master_gone(struct vrrp_sm *sm, uint64_t now, struct vrrp_out *out)
{
	uint64_t at;

	begin(out);
	if (sm->state == VRRP_STATE_BACKUP) {
		sm->lower_heard = sm->handover = false; /* proven gone */
		at = add(base(sm, now), sm->skew_time);
		if (at < sm->master_down_timer)
			sm->master_down_timer = at;
	}
	deadline_of(sm, out);
}

void vrrp_state_master_gone_sole(struct vrrp_sm *sm, uint64_t now, struct vrrp_out *out)
{
	uint64_t at;

	if (sm->state == VRRP_STATE_BACKUP) {
		sm->lower_heard = sm->handover = false; /* proven gone */
		at = base(sm, now);
		if (at < sm->master_down_timer)
			sm->master_down_timer = at;
	}
	vrrp_state_timer(sm, now, out);
}

bool vrrp_state_master_at(const struct vrrp_sm *sm, int family, const uint8_t *addr)
{
	return sm->state == VRRP_STATE_BACKUP && !sm->want_master && sm->master_seen &&
	       sm->cfg.family == family && memcmp(sm->master_addr, addr, addr_len(sm)) == 0;
}

bool vrrp_sole_backup(int family, bool unicast, const uint8_t *peers, size_t npeers,
	const uint8_t *ours, const uint8_t *master)
{
	size_t i, alen = family == AF_INET6 ? 16 : 4;
	bool master_listed = false;

	if (!unicast || !npeers)
		return false;
	for (i = 0; i < npeers; i++) {
		const uint8_t *p = peers + i * alen;

		if (memcmp(p, master, alen) == 0)
			master_listed = true;
		else if (memcmp(p, ours, alen) != 0)
			return false; /* another router that may contend */
	}
	return master_listed;
}

void vrrp_state_goto_master(struct vrrp_sm *sm, uint64_t now, struct vrrp_out *out)
{
	begin(out);
	if (sm->state == VRRP_STATE_BACKUP)
		to_master(sm, now, out);
	deadline_of(sm, out);
}

void vrrp_state_goto_backup(struct vrrp_sm *sm, uint64_t now, struct vrrp_out *out)
{
	begin(out);
	if (sm->state == VRRP_STATE_MASTER) {
		sm->state = VRRP_STATE_BACKUP;
		sm->resigning = false;
		sm->adver_timer = VRRP_NEVER;
		sm->master_down_timer = add(base(sm, now), sm->master_down_int);
		sm->master_seen = false;
		sm->want_master = false;
		emit(out, VRRP_ACT_BECOME_BACKUP, sm->priority, VRRP_STATE_MASTER);
	}
	deadline_of(sm, out);
}

void vrrp_state_set_sync(struct vrrp_sm *sm, bool sync)
{
	sm->cfg.sync = sync;
	if (!sync)
		sm->want_master = false;
}

void vrrp_state_set_priority(struct vrrp_sm *sm, uint64_t now, int priority, struct vrrp_out *out)
{
	(void)now;
	begin(out);
	if (owner(sm))
		priority = 255;
	else if (priority < 1)
		priority = 1;
	else if (priority > 254)
		priority = 254;
	if (priority != sm->priority) {
		sm->priority = priority;
		recompute(sm);
	}
	deadline_of(sm, out);
}

void vrrp_state_fault(struct vrrp_sm *sm, uint64_t now, bool fault, struct vrrp_out *out)
{
	enum vrrp_sm_state from = sm->state;

	begin(out);
	if (fault && sm->resigning) {
		/* a fault while quiescing: no grace for it */
		sm->faulted = true;
		to_idle(sm, VRRP_STATE_FAULT, out);
		deadline_of(sm, out);
		return;
	}
	if (fault == sm->faulted) {
		deadline_of(sm, out);
		return;
	}
	sm->faulted = fault;
	if (!fault && from == VRRP_STATE_MASTER) {
		/* a drain called off while quiescing (vrrp_state_drain) */
		if (sm->resigning && sm->resign_fault) {
			sm->resigning = false;
			emit(out, VRRP_ACT_UNQUIESCE, sm->priority, from);
		}
	} else if (fault && (from == VRRP_STATE_MASTER || from == VRRP_STATE_BACKUP)) {
		to_idle(sm, VRRP_STATE_FAULT, out);
	} else if (!fault && from == VRRP_STATE_FAULT) {
		to_first_state(sm, now, out);
		if (sm->state == VRRP_STATE_BACKUP)
			sm->preempt_armed = false; /* keepalived clears preempt_time here */
	}
	deadline_of(sm, out);
}

void vrrp_state_drain(struct vrrp_sm *sm, uint64_t now, struct vrrp_out *out)
{
	if (sm->state != VRRP_STATE_MASTER || !sm->cfg.resign_grace || sm->faulted) {
		vrrp_state_fault(sm, now, true, out);
		return;
	}
	begin(out);
	sm->faulted = true;
	sm->resign_fault = true; /* a step-down under way ends in FAULT too */
	resign(sm, now, out);
	deadline_of(sm, out);
}

unsigned vrrp_state_adver_field(const struct vrrp_sm *sm)
{
	if (sm->cfg.version == 2)
		return (unsigned)(sm->cfg.adver_int / VRRP_USEC);
	return (unsigned)(sm->cfg.adver_int / CENTISEC);
}

uint64_t vrrp_state_deadline(const struct vrrp_sm *sm)
{
	uint64_t t =
		sm->adver_timer < sm->master_down_timer ? sm->adver_timer : sm->master_down_timer;

	return sm->resigning && sm->resign_at < t ? sm->resign_at : t;
}

const char *vrrp_state_name(enum vrrp_sm_state s)
{
	switch (s) {
	case VRRP_STATE_INIT:
		return "INIT";
	case VRRP_STATE_BACKUP:
		return "BACKUP";
	case VRRP_STATE_MASTER:
		return "MASTER";
	case VRRP_STATE_FAULT:
		return "FAULT";
	}
	return "UNKNOWN";
}

const char *vrrp_state_action_name(enum vrrp_action_type t)
{
	switch (t) {
	case VRRP_ACT_SEND_ADVERT:
		return "send_advert";
	case VRRP_ACT_BECOME_MASTER:
		return "become_master";
	case VRRP_ACT_BECOME_BACKUP:
		return "become_backup";
	case VRRP_ACT_BECOME_FAULT:
		return "become_fault";
	case VRRP_ACT_BECOME_INIT:
		return "become_init";
	case VRRP_ACT_WANT_MASTER:
		return "want_master";
	case VRRP_ACT_QUIESCE:
		return "quiesce";
	case VRRP_ACT_UNQUIESCE:
		return "unquiesce";
	}
	return "unknown";
}
