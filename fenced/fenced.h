/* The fenced daemon: corosync's view in, decisions (decide.h) in the
 * middle, fence-agents runs and CPG broadcasts out. */
#ifndef FENCED_FENCED_H
#define FENCED_FENCED_H

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "admin.h"
#include "agent.h"
#include "buf.h"
#include "cfg.h"
#include "corosync.h"
#include "decide.h"
#include "pcmk.h"
#include "power.h"
#include "watchdog.h"

#define FENCED_DEFAULT_SOCKET     "/run/fenced/admin.sock"
#define FENCED_DEFAULT_VIP_SOCKET "/run/vipd/admin.sock"
#define FENCED_HISTORY            256 /* entries kept (a ring) */

/* One line of the history: what happened to a node, who decided it. */
struct fenced_hist {
	uint64_t wall;  /* CLOCK_REALTIME, us */
	char node[64];  /* the victim */
	char event[16]; /* victim, deferred, attempt, fenced, all-failed, skipped, ack... */
	uint32_t by;    /* the member that decided or acted (0: none) */
	int level;      /* the level number (attempts), else 0 */
	uint64_t delay; /* victim: the delay applied, us */
	bool ok;        /* attempt: its result */
	char detail[200];
};

/* What fenced keeps per node of the nodelist, beside decide.h's decide_node. */
struct fenced;
struct fenced_nd {
	struct fenced *d;
	size_t idx; /* in nodes[] and nd[] */
	char name[256];
	const struct fenced_node *cfg; /* its fence_node; NULL: none (watchdog only) */
	uint32_t pid;                  /* its fenced's pid in the group (0: none yet) */
	bool vip;                      /* it said it holds the VIP */
	struct fenced_level_run *run;  /* our run of one of its levels */
	bool pcmk_busy;                /* fence_via pacemaker: a request is out */
	bool unfencing;                /* run is an unfence ("on"), not a fencing */
	unsigned run_level;            /* index into cfg->levels */
	uint64_t run_started;          /* monotonic us */
	uint64_t victim_since;         /* wall us, for show */
	uint64_t fenced;               /* times the domain fenced it, acks included */
	/* power-check: its power state as its fence devices last said */
	struct fenced_power_run *prun; /* a check runs */
	enum fenced_power power;
	uint64_t power_at;   /* wall us of the answer (0: none) */
	char power_msg[200]; /* which device said so, or why none could */
};

struct fenced {
	sd_event *e;
	const char *config_path;
	struct fenced_config *cfg;
	struct fenced_cs *cs;
	sd_event_source *timer, *vip_timer, *exit_timer;
	struct cpha_admin_req *vip_req; /* "show json" to the local vipd, out */
	struct decide_state st;
	struct decide_node *nodes; /* corosync's nodelist, by id */
	struct fenced_nd *nd;
	size_t nnodes;
	struct fenced_cs_quorum_cfg qcfg;
	bool quorate, stopping, reload_pending, self_vip;
	/* fenced_reload, which waits while a fence runs (reload_pending):
	 * run.c calls it when the run ends */
	void (*reload)(struct fenced *d);
	uint32_t nmembers;
	struct fenced_wd *wd;
	struct fenced_pcmk *pcmk; /* fence_via pacemaker */
	void *admin, *metrics;
	char *admin_path;
	struct fenced_hist hist[FENCED_HISTORY];
	uint64_t nhist; /* entries ever written; the ring holds the last ones */
	/* counters for metrics */
	uint64_t attempts_ok, attempts_failed, attempts_timeout, fenced, acks, skipped;
	uint64_t fence_failures; /* rounds in which every level failed (DECIDE_ACT_ALL_FAILED) */
	double attempt_seconds;
#define FENCED_BUCKETS 7 /* attempt duration: 1, 2, 5, 10, 30, 60 s, +Inf */
	uint64_t attempt_buckets[FENCED_BUCKETS];
};

/* the upper bounds of the attempt-duration buckets (the last is +Inf) */
static const double fenced_bucket_le[FENCED_BUCKETS - 1] = { 1, 2, 5, 10, 30, 60 };

/* daemon.c */
int fenced_start(struct fenced *d, char *why, size_t whylen);
void fenced_stop(struct fenced *d);
void fenced_reload(struct fenced *d);
/* The admin command "power-check [NODE]" (NULL: the other node that holds
 * the VIP): start reading NODE's power state from its fence devices (see
 * power.h). 0 with the node's name in started, or a negative errno with
 * why. */
int fenced_power_check_node(
	struct fenced *d, const char *node, char *started, size_t slen, char *why, size_t whylen);
/* The admin command "ack NODE": 0, or a negative errno with why. */
int fenced_ack(struct fenced *d, const char *node, uid_t uid, char *why, size_t whylen);
void fenced_history(struct fenced *d, const char *node, const char *event, uint32_t by, int level,
	uint64_t delay, bool ok, const char *fmt, ...) __attribute__((format(printf, 8, 9)));
const char *fenced_node_name(const struct fenced *d, uint32_t id, char *buf, size_t len);
/* group.c: the monotonic and wall clocks in microseconds; one line to
 * every member of the group (a failure is logged); the timer set to
 * decide.c's next deadline (DECIDE_NEVER: off). */
uint64_t fenced_mono(void);
uint64_t fenced_wall(void);
void fenced_send_line(struct fenced *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fenced_rearm(struct fenced *d, uint64_t deadline);

/* run.c: carry out what decide.c asked for, and arm its next deadline. */
void fenced_apply(struct fenced *d, struct decide_out *out);
/* Stop this member's run for node n, if any (another member fenced it). */
void fenced_cancel_run(struct fenced *d, struct fenced_nd *n);
/* Node i rejoined after it was fenced: with unfence, the lowest-id member
 * other than it turns its first level's devices on. */
void fenced_unfence(struct fenced *d, size_t i);
/* The id of the member that holds the VIP, as fenced knows it; 0: none. */
uint32_t fenced_vip_holder(const struct fenced *d);

/* show.c: the admin socket and metrics */
void fenced_command(struct fenced *d, uid_t uid, const char *line, struct cpha_buf *reply);
void fenced_prometheus(struct fenced *d, struct cpha_buf *body);

/* GET /status (status_json.c): version, pid, config_sha256, quorum,
 * members, pending victims with their deadlines and the last results, from
 * "show json" without the agents' output. A cpha_status_fn on a struct
 * fenced. */
void fenced_status_json(void *d, struct cpha_buf *out);

#endif
