/* The VRRP state machine of one virtual router: RFC 9568 §6 (VRRPv3), with
 * RFC 3768 §6 timing for VRRPv2. Pure: no I/O and no clock. The daemon
 * passes the time (monotonic microseconds) into every call and gets back
 * what to do (struct vrrp_out: actions in order, then the next deadline at
 * which to call vrrp_state_timer()).
 *
 * RFC 9568 renamed Master to Active (Active_Adver_Interval,
 * Active_Down_Timer, ...); the names here keep "master", as keepalived and
 * RFC 3768 do.
 *
 * Arithmetic, in microseconds with truncating division, as keepalived's
 * VRRP_TIMER_SKEW:
 *   v3: Skew_Time = ((256 - Priority) * Master_Adver_Interval) / 256
 *   v2: Skew_Time = ((256 - Priority) * 1 s) / 256
 *   Master_Down_Interval = 3 * Master_Adver_Interval + Skew_Time
 * (v2: Master_Adver_Interval is the configured Advertisement_Interval).
 * Priority 100 at 1 s gives Skew_Time 609375 us and Master_Down_Interval
 * 3.609375 s in both versions. RFC 9568 §6.1 counts Master_Adver_Interval
 * in centiseconds but does not round Skew_Time, and rounding it to whole
 * centiseconds would make us time out up to 10 ms away from keepalived
 * peers, so nothing is rounded. Priority is the effective priority (after
 * tracking weights), as in keepalived.
 *
 * keepalived's "state MASTER" is not an input. keepalived 2.2.7 documents
 * and does (captured, tests/vipd-vectors/README.md) this: below priority
 * 255, MASTER starts exactly like BACKUP and becomes master only when
 * Master_Down_Interval passes without an advertisement of higher or equal
 * priority (a lower-priority master's adverts are discarded, so it takes
 * over after Master_Down_Interval). At 255 keepalived goes master at once
 * only with "state MASTER"; "state BACKUP" at 255 waited Master_Down_Interval
 * (3.004 s). Here priority 255 always starts as master at once (RFC 9568
 * §6.4.1). */
#ifndef VIPD_VRRP_STATE_H
#define VIPD_VRRP_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VRRP_NEVER UINT64_MAX /* a deadline that never comes */
#define VRRP_USEC  1000000ull /* microseconds in a second */

enum vrrp_sm_state {
	VRRP_STATE_INIT,   /* not started, or stopped (RFC 9568 §6.4.1) */
	VRRP_STATE_BACKUP, /* RFC 9568 §6.4.2 */
	VRRP_STATE_MASTER, /* RFC 9568 §6.4.3 ("Active") */
	VRRP_STATE_FAULT,  /* keepalived's FAULT: a tracked object failed */
};

struct vrrp_sm_config {
	int version;  /* 2 or 3 */
	int family;   /* AF_INET or AF_INET6: the length of primary addresses */
	int priority; /* configured, 1..255; 255 owns the addresses */
	/* Advertisement_Interval in us: v3 a multiple of 10 ms up to
	 * 40.95 s; v2 whole seconds up to 255 s */
	uint64_t adver_int;
	bool preempt;           /* false: keepalived's nopreempt */
	uint64_t preempt_delay; /* us, up to 1000 s; 0: none */
	/* vipd extension (preempt_handover): a backup that preempts a
	 * master it still hears first sends its advertisement and takes the
	 * VIP only once that master has fallen silent (it steps down when it
	 * hears a higher priority), sending again each time it hears it; off,
	 * as RFC 9568 and keepalived, the backup takes over at once and the
	 * master keeps the VIP too until our advertisement reaches it: one
	 * advertisement lost on the way, and the VIP is on two hosts for an
	 * interval, or for as long as the loss lasts when it is one-way.
	 * A master with it that steps down for a higher priority sends
	 * priority 0 first, and a backup handing over that hears it takes
	 * over at once: no silence to wait for between two vipd */
	bool preempt_handover;
	/* vipd extension (vipd_quiesce): a master that gives the VIP up on
	 * purpose quiesces first (VRRP_ACT_QUIESCE: the load balancer stops
	 * taking new connections to it, the ones in flight finish) and
	 * gives it up this many us later: when the operator drains it
	 * (vrrp_state_drain) and, with preempt_handover, when a higher
	 * priority announces itself (the peer waits for our priority 0).
	 * 0: at once, as keepalived. */
	uint64_t resign_grace;
	/* A member of a sync group: when Master_Down_Timer fires it asks
	 * (VRRP_ACT_WANT_MASTER) instead of taking over, and the daemon moves
	 * the whole group with vrrp_state_goto_master() once every member
	 * wants to (keepalived's vrrp_sync_can_goto_master) */
	bool sync;
	/* keepalived's vrrp_startup_delay: nobody becomes master before this
	 * time (monotonic us; 0: no delay). Master_Down_Timer counts from it,
	 * the owner waits for it; adverts are heard meanwhile. */
	uint64_t hold_until;
};

struct vrrp_sm {
	struct vrrp_sm_config cfg;
	enum vrrp_sm_state state;
	int priority;               /* effective: after tracking weights */
	bool faulted;               /* the fault condition holds */
	uint64_t master_adver_int;  /* us: the master's interval (v3), ours before */
	uint64_t skew_time;         /* us */
	uint64_t master_down_int;   /* us */
	uint64_t adver_timer;       /* MASTER: when to send; else VRRP_NEVER */
	uint64_t master_down_timer; /* BACKUP: when to take over; else VRRP_NEVER */
	bool preempt_armed;         /* preempt_delay is running... */
	uint64_t preempt_until;     /* ...and lower-priority masters are followed until then */
	bool want_master;           /* sync: Master_Down_Timer fired, waiting for the group */
	bool master_seen;           /* a master's advert was accepted in BACKUP */
	/* preempt_handover: the last advert of a lower priority discarded
	 * while preempting (lower_heard), with its interval, and the handover
	 * under way (our advert sent at handover_sent, waiting for silence) */
	bool lower_heard;
	uint64_t lower_heard_at;
	uint64_t lower_adver_int;
	int lower_priority;
	bool handover;
	uint64_t handover_sent;
	unsigned handover_rounds; /* advertisements sent in this handover */
	/* the master resigned (priority 0: it stepped down for our handover,
	 * or left for FAULT or a stop): it is alive and holds no address. A
	 * handover that ended in silence instead may have lost our advert and
	 * its own: the master may still hold them, and a takeover is then no
	 * more certain than after any silence (track_fenced) */
	bool resigned;
	int master_priority;     /* its priority */
	uint8_t master_addr[16]; /* its primary address */
	/* resign_grace: a master quiescing before it gives the VIP up at
	 * resign_at, to FAULT (resign_fault) or to the higher priority whose
	 * advert is kept here (to BACKUP) */
	bool resigning;
	bool resign_fault;
	uint64_t resign_at;
	int resign_priority;
	unsigned resign_adver_int;
	uint8_t resign_src[16];
};

enum vrrp_action_type {
	VRRP_ACT_SEND_ADVERT,   /* send an ADVERTISEMENT with .priority */
	VRRP_ACT_BECOME_MASTER, /* add the VIPs, send gratuitous ARP / unsolicited NA */
	VRRP_ACT_BECOME_BACKUP, /* remove the VIPs if held */
	VRRP_ACT_BECOME_FAULT,  /* remove the VIPs if held */
	VRRP_ACT_BECOME_INIT,   /* stopped: remove the VIPs if held */
	VRRP_ACT_WANT_MASTER,   /* sync: this member would take over; ask the group */
	VRRP_ACT_QUIESCE,       /* resign_grace: no new connections to the VIPs from now */
	VRRP_ACT_UNQUIESCE,     /* resign_grace: the resignation was called off; take them again */
};

struct vrrp_action {
	enum vrrp_action_type type;
	int priority;            /* SEND_ADVERT: 0..255 */
	enum vrrp_sm_state from; /* BECOME_*: the state left */
};

#define VRRP_ACTIONS_MAX 4 /* more than any one call produces */

/* What a call asks the daemon to do: the actions in order, then the time at
 * which to call vrrp_state_timer() (VRRP_NEVER: no timer). */
struct vrrp_out {
	struct vrrp_action act[VRRP_ACTIONS_MAX];
	unsigned n;
	uint64_t deadline;
};

/* Check cfg and set sm up in INIT with the configured priority. Returns 0,
 * or -EINVAL for a version, family, priority, interval or preempt_delay out
 * of range. */
int vrrp_state_init(struct vrrp_sm *sm, const struct vrrp_sm_config *cfg);

/* Startup event (RFC 9568 §6.4.1): the owner (priority 255) becomes master
 * and advertises at once; anyone else becomes backup with Master_Down_Timer
 * at now + Master_Down_Interval (and preempt_delay starts). With
 * cfg.hold_until ahead, everyone starts as backup: the owner's timer is
 * hold_until, anyone else's hold_until + Master_Down_Interval. With the fault
 * condition set, goes to FAULT instead. No-op unless in INIT. */
void vrrp_state_start(struct vrrp_sm *sm, uint64_t now, struct vrrp_out *out);

/* Shutdown event: back to INIT; a master first sends priority 0 (RFC 9568
 * §6.4.3) so a backup takes over after Skew_Time. */
void vrrp_state_stop(struct vrrp_sm *sm, uint64_t now, struct vrrp_out *out);

/* A valid ADVERTISEMENT for this virtual router (vrrp_packet_decode() said
 * VRRP_OK): its priority, its interval field (v3 centiseconds; not used for
 * v2), the sender's primary address and ours (4 or 16 bytes, network order,
 * by cfg.family). Returns 0, or -EINVAL for a priority above 255 or a v3
 * interval of 0 or above 4095 (nothing changes then). Ignored in INIT and
 * FAULT. */
int vrrp_state_advert(struct vrrp_sm *sm, uint64_t now, int priority, unsigned adver_int,
	const uint8_t *src, const uint8_t *ours, struct vrrp_out *out);

/* The deadline from the last vrrp_out came (or passed): a master
 * advertises, a backup takes over. Calls before the deadline do nothing.
 * With cfg.preempt_handover, a backup that heard a lower-priority master
 * within Master_Down_Interval sends its advertisement (SEND_ADVERT in
 * BACKUP) instead, and takes over once that master's interval and
 * Skew_Time pass without an advert from it; heard again, it sends again. */
void vrrp_state_timer(struct vrrp_sm *sm, uint64_t now, struct vrrp_out *out);

/* Sync groups: the daemon moves a BACKUP member to MASTER (the group
 * goes master: every member wants to) or a MASTER member to BACKUP (another
 * member left MASTER), as keepalived's vrrp_sync_master / vrrp_sync_backup.
 * Going to backup sends no priority 0: the member's peer is still master.
 * No-op in any other state. */
void vrrp_state_goto_master(struct vrrp_sm *sm, uint64_t now, struct vrrp_out *out);
void vrrp_state_goto_backup(struct vrrp_sm *sm, uint64_t now, struct vrrp_out *out);

/* The master is known to be gone (vipd: fenced read its power state off):
 * in BACKUP, as a priority 0 ADVERTISEMENT does (RFC 9568 §6.4.2),
 * Master_Down_Timer to Skew_Time, if that is sooner, so the best backup
 * still takes over first. No-op in any other state. */
void vrrp_state_master_gone(struct vrrp_sm *sm, uint64_t now, struct vrrp_out *out);

/* vipd extension: as vrrp_state_master_gone() without Skew_Time, for a
 * backup no other backup can contend with (vrrp_sole_backup()):
 * Master_Down_Timer fires now (or at the end of the start-up hold). */
void vrrp_state_master_gone_sole(struct vrrp_sm *sm, uint64_t now, struct vrrp_out *out);

/* May a backup whose master was proven gone skip Skew_Time? Skew_Time
 * (RFC 9568 §6.1) staggers the backups that would all take over, so the
 * best one's advert reaches the others first. A unicast instance talks
 * only to its listed peers (npeers addresses of alen bytes by family, in
 * peers): when every peer but ourselves is the master that is gone, no
 * other backup can hear of the master's death or contend, so the wait is
 * for nobody. Multicast (unicast false): never. */
bool vrrp_sole_backup(int family, bool unicast, const uint8_t *peers, size_t npeers,
	const uint8_t *ours, const uint8_t *master);

/* vipd extension: a BFD session to addr (4 or 16 bytes by family) left Up.
 * Is it this backup's master, so that the master may be gone? True in
 * BACKUP, not already taking over, with an accepted advert whose sender is
 * addr. */
bool vrrp_state_master_at(const struct vrrp_sm *sm, int family, const uint8_t *addr);

/* Membership of a sync group changed (a reload): sets cfg.sync. */
void vrrp_state_set_sync(struct vrrp_sm *sm, bool sync);

/* Tracking changed the priority: base + weights, as keepalived clamped to
 * 1..254; the owner (configured 255) stays 255. Takes effect in the next
 * advertisement and the next timer computed; nothing is sent now. */
void vrrp_state_set_priority(struct vrrp_sm *sm, uint64_t now, int priority, struct vrrp_out *out);

/* The fault condition (a tracked interface down, a weight-0 script failing)
 * starts (fault true) or ends. Entering FAULT, a master sends priority 0 and
 * gives up the VIPs, a backup stops its timer. Leaving FAULT, the owner
 * becomes master at once and anyone else backup with Master_Down_Interval
 * (keepalived's vrrp_state_leave_fault). No-op when nothing changes. */
void vrrp_state_fault(struct vrrp_sm *sm, uint64_t now, bool fault, struct vrrp_out *out);

/* vipd extension: the fault condition starts because the operator asked
 * for it (a weight-0 track_file: `cpha drain`). As vrrp_state_fault(true),
 * except that a master with cfg.resign_grace first quiesces: QUIESCE now,
 * adverts on schedule, and priority 0 and FAULT at now + resign_grace
 * (vrrp_state_timer). Before then, vrrp_state_fault(false) calls it off
 * (UNQUIESCE, still master) and vrrp_state_fault(true) (another fault)
 * ends it at once. */
void vrrp_state_drain(struct vrrp_sm *sm, uint64_t now, struct vrrp_out *out);

/* The interval field for our advertisements: centiseconds (v3) or seconds (v2). */
unsigned vrrp_state_adver_field(const struct vrrp_sm *sm);

/* The earliest pending deadline, or VRRP_NEVER. */
uint64_t vrrp_state_deadline(const struct vrrp_sm *sm);

/* "INIT", "BACKUP", "MASTER", "FAULT" */
const char *vrrp_state_name(enum vrrp_sm_state s);

/* "send_advert", "become_master", "become_backup", "become_fault", "become_init",
 * "want_master", "quiesce", "unquiesce" */
const char *vrrp_state_action_name(enum vrrp_action_type t);

#endif
