/* track_fenced's decisions, pure: no I/O, no clock of its own (vipd
 * extension, no keepalived equivalent). A VRRP instance that tracks fenced
 * takes the VIP over only when fenced allows it; this module says when.
 * The daemon feeds in fenced's answers ("show json", "power-check"), the
 * master's adverts and BFD session losses, the instance's VRRP state (struct
 * fg_vrrp, filled anew at each call) and the time (monotonic microseconds);
 * it gets back what to do (struct fg_out: actions, then the deadline at which
 * to call fg_timer()).
 *
 * The rules:
 * - A backup may take over when fenced answers, its partition is quorate,
 *   nobody waits to be fenced and no other node holds the VIP as fenced
 *   knows it. Preempting a master it still hears (one of a lower priority)
 *   needs only an answering, quorate fenced: that master is alive and steps
 *   down when it hears us. With preempt_handover the daemon says preempting
 *   only once that master resigned (priority 0): a handover ended by
 *   silence is judged as any silence.
 * - fenced is asked every poll_usec; while a takeover waits on it, every
 *   held_usec, and every fast_usec while a power read is out or a fence it
 *   waits for is about to end.
 * - A takeover held, then allowed, waits Skew_Time from the moment it was
 *   allowed (RFC 9568 staggers backups by priority, so the best one's advert
 *   reaches the others first), or nothing when the old master was this
 *   backup's only peer.
 * - A master silent for 1.5 x its advert interval, or whose BFD session went
 *   down, has its power read by fenced: once per silence, one request at a
 *   time. Read off, the master is gone as after a priority 0 advert
 *   (MASTER_GONE: takeover after Skew_Time; MASTER_GONE_SOLE: at once when
 *   it was the only peer), if fenced allows a takeover. A takeover held on
 *   a pending fence or another holder asks once for the holder's power too:
 *   off ends the fence's delay.
 * - An advert from the master ends the silence: a power read not yet
 *   answered is forgotten. */
#ifndef VIPD_FENCED_GATE_H
#define VIPD_FENCED_GATE_H

#include <stdbool.h>
#include <stdint.h>

#define FG_NEVER    UINT64_MAX
#define FG_MAX_OUT  8
#define FG_NODE_MAX 64

/* A node's power as fenced reports it. */
enum fg_power {
	FG_POWER_UNKNOWN,  /* not listed, or a state vipd does not know */
	FG_POWER_CHECKING, /* fenced reads it now */
	FG_POWER_ON,
	FG_POWER_OFF,
};

/* fenced's "show json", as read. */
struct fg_answer {
	bool known;        /* it answered, in the expected form */
	bool quorate;      /* its partition has quorum */
	unsigned pending;  /* nodes waiting to be fenced */
	bool other_holder; /* another node holds the VIP */
	/* the node whose power was asked (fg_state.power_node) is listed, and
	 * its power */
	bool power_listed;
	enum fg_power power;
};

/* The instance as the gate needs it, filled by the caller at each call. */
struct fg_vrrp {
	bool backup;      /* in BACKUP */
	bool want_master; /* its Master_Down_Timer fired: it would take over */
	bool preempting;  /* an advert of a lower priority within Master_Down_Interval
			   * (preempt_handover: and that master resigned), or the
			   * master resigned (priority 0) */
	bool sole_backup; /* the master is its only peer (unicast): nobody to stagger against */
	uint64_t skew;    /* Skew_Time, us */
	uint64_t silence; /* 1.5 x Master_Adver_Interval, us */
};

enum fg_why {
	FG_WHY_NO_ANSWER,
	FG_WHY_NO_QUORUM,
	FG_WHY_PENDING,
	FG_WHY_OTHER_HOLDER,
};

enum fg_ask {
	FG_ASK_SILENCE, /* the master fell silent */
	FG_ASK_BFD,     /* its BFD session went down */
	FG_ASK_HELD,    /* a takeover is held on its fence or its holding the VIP */
};

enum fg_action_type {
	FG_ACT_POLL,             /* ask fenced "show json"; answer with fg_answer() */
	FG_ACT_ASK_POWER,        /* ask fenced "power-check" (.ask); answer with fg_power_asked() */
	FG_ACT_CHANGED,          /* answers or quorum changed: the tracking changed */
	FG_ACT_PENDING,          /* the number waiting to be fenced changed (.pending) */
	FG_ACT_HELD,             /* a takeover now waits on fenced (.why) */
	FG_ACT_OPEN,             /* fenced let go of a held takeover: taking over */
	FG_ACT_GOTO_MASTER,      /* take over now */
	FG_ACT_MASTER_GONE,      /* .node read off: gone, as after a priority 0 advert */
	FG_ACT_MASTER_GONE_SOLE, /* .node read off and it was the only peer: take over now */
	FG_ACT_POWER_READ,       /* .node's power read (.power), no takeover from it */
	FG_ACT_SPEAKS,           /* the master whose power was asked speaks again */
};

struct fg_action {
	enum fg_action_type type;
	enum fg_why why;
	enum fg_ask ask;
	enum fg_power power;
	unsigned pending;
	char node[FG_NODE_MAX];
};

struct fg_out {
	struct fg_action act[FG_MAX_OUT];
	unsigned n;
	uint64_t deadline; /* call fg_timer() then; FG_NEVER: no timer */
};

struct fg_config {
	uint64_t poll_usec; /* fenced asked this often */
	uint64_t held_usec; /* while a takeover waits on it */
	uint64_t fast_usec; /* while a power read is out, or a fence is about to end */
};

struct fg_state {
	struct fg_config cfg;
	/* fenced's last answer */
	bool known, quorate, other_holder;
	unsigned pending;
	/* the takeover */
	bool held;        /* a takeover waits on fenced (said once) */
	bool asked_held;  /* the holder's power asked while held */
	uint64_t open_at; /* held, then allowed: when (Skew_Time counts from it); 0: not */
	/* the master's power */
	uint64_t silence_at; /* when the master's silence asks for its power; FG_NEVER: not armed */
	char power_node[FG_NODE_MAX]; /* the node fenced reads ("": none asked this silence) */
	enum fg_power power;          /* what fenced said of it */
	bool asking;                  /* a power-check is out */
	/* polling */
	bool polling;       /* a show json is out */
	uint64_t next_poll; /* when to ask again */
};

/* Set up; the first poll is due at once. */
void fg_init(struct fg_state *st, const struct fg_config *cfg, uint64_t now);

/* May the instance take over now? */
bool fg_allows(const struct fg_state *st, const struct fg_vrrp *v);

/* fenced answered "show json" (known false: it did not, or not readably). */
void fg_answer(struct fg_state *st, const struct fg_answer *a, const struct fg_vrrp *v,
	uint64_t now, struct fg_out *out);

/* fenced answered "power-check": node is the node whose power it reads, NULL
 * when it did not answer or cannot read one. */
void fg_power_asked(struct fg_state *st, const char *node, const struct fg_vrrp *v, uint64_t now,
	struct fg_out *out);

/* The instance wants to take over (its Master_Down_Timer fired), or its
 * state changed: take over if fenced allows it, else wait. */
void fg_try_master(struct fg_state *st, const struct fg_vrrp *v, uint64_t now, struct fg_out *out);

/* The master's advert was heard in BACKUP: the silence starts again. */
void fg_master_heard(
	struct fg_state *st, const struct fg_vrrp *v, uint64_t now, struct fg_out *out);

/* The BFD session to the master went down. */
void fg_bfd_down(struct fg_state *st, const struct fg_vrrp *v, uint64_t now, struct fg_out *out);

/* The deadline came. */
void fg_timer(struct fg_state *st, const struct fg_vrrp *v, uint64_t now, struct fg_out *out);

/* Read fenced's "show json" reply (NULL: none) into a: the power of
 * power_node ("" or NULL: none asked), and another holder being any node
 * but fenced's own marked as holding the VIP. */
void fg_answer_read(const char *reply, const char *power_node, struct fg_answer *a);

const char *fg_power_name(enum fg_power p);
enum fg_power fg_power_parse(const char *s);

#endif
