/* vipd's run-time objects: the daemon, its instances and their tracking.
 * Types and the functions the daemon's files share. */
#ifndef VIPD_VIPD_H
#define VIPD_VIPD_H

#include <stdbool.h>
#include <stdint.h>

#include <systemd/sd-event.h>

#include "buf.h"
#include "cfg-types.h"
#include "fenced_gate.h"
#include "bfd_session.h"
#include "netlink.h"
#include "tcp_reset.h"
#include "vrrp_hmac.h"
#include "vrrp_net.h"
#include "vrrp_packet.h"
#include "vrrp_state.h"

struct cpha_admin_req;

#define VIPD_MAX_PEERS_SEEN 16 /* senders whose checksum form we remember */

struct vipd;
struct cpha_spawn;
struct cpha_admin_req;
struct vipd_inst;

/* A running vrrp_script: shared by every instance that tracks it. */
struct vipd_script_rt {
	struct vipd *d;
	char *name;
	const struct vipd_script *cfg;
	char **argv;
	bool ok;         /* current result after rise/fall */
	unsigned streak; /* consecutive results against the current state */
	bool disabled;   /* refused by enable_script_security */
	sd_event_source *timer;
	struct cpha_spawn *running;
	uint64_t runs, failures;
};

/* Where one instance's tracking stands. */
struct vipd_track_state {
	struct vipd_inst *in;
	const struct vipd_track *cfg;
	struct cpha_admin_req *lbd_req; /* track_lbd: a question out to lbd */
	struct vipd_script_rt *script;  /* track_script */
	int ifindex;                    /* track_interface */
	bool up;                        /* interface up / lbd healthy */
	unsigned lbd_unanswered;        /* track_lbd: questions unanswered in a row */
	long file_value;                /* track_file */
};

/* A bfd_instance at run time (bfd.c): its session, and the socket it sends
 * from (RFC 5881 §4: one source port for the whole session). */
struct vipd_bfd_rt {
	struct vipd *d;
	char *name;
	struct vipd_bfd_def def; /* a copy (name: the one above): outlives a reload */
	struct bfd_session s;
	int fd; /* sends: bound to source_ip and a port in 49152..65535 */
	sd_event_source *timer;
	uint64_t pkts_in, pkts_out, pkts_bad;
	uint64_t changed_at; /* monotonic us: last state change */
	enum bfd_diag last_down_diag;
};

struct vipd_peer_seen {
	struct cpha_addr addr;
	enum vrrp_csum csum;
	uint64_t adverts;
};

/* track_fenced at run time (fenced_link.c): the gate's state, its timer,
 * and the questions out to fenced. */
struct vipd_fenced {
	bool on; /* the instance tracks fenced */
	struct fg_state g;
	sd_event_source *timer;                      /* the gate's deadline */
	struct cpha_admin_req *poll_req, *power_req; /* show json, power-check: out */
	char power_why[96];                          /* what made us ask for power, for the log */
};

struct vipd_inst {
	struct vipd *d;
	struct vipd_instance *cfg; /* in d->cfg */
	char *name;
	int ifindex;
	struct vrrp_sock sock;
	sd_event_source *io, *timer, *garp_timer, *refresh_timer;
	struct cpha_addr src;   /* our primary address (or unicast_src_ip) */
	struct cpha_addr group; /* multicast destination */
	uint8_t vip_bytes[VRRP_MAX_ADDRS * 16];
	unsigned nvip_bytes;
	struct vrrp_sm sm;
	bool running;
	bool fault; /* fault condition given to the state machine */
	bool fault_self;
	/* fault_self only because a weight-0 track_file says so (the
	 * operator's drain): the VIP leaves after vipd_quiesce */
	bool fault_planned;
	/* vipd_quiesce: questions out to lbd (quiesce, unquiesce), and
	 * whether the VIPs are quiesced */
	struct cpha_admin_req *quiet_req, *open_req;
	bool quiesced;
	bool src_ready; /* our source address is usable (not tentative) */ /* this instance's own
									      tracking says fault */
	int priority;                                                      /* effective */
	struct vipd_track_state *tracks;
	size_t ntracks;
	unsigned garp_left; /* packets left in the current burst */
	bool garp_second;   /* the garp_master_delay burst is still to come */
	/* counters */
	uint64_t adverts_sent, adverts_received, transitions, became_master;
	/* as keepalived counts them: advertisements made (one however many
	 * unicast peers it goes to), priority 0 ones made and received, and
	 * times MASTER was left */
	uint64_t adverts_made, pri_zero_sent, pri_zero_received, released_master;
	uint64_t bad[VRRP_DROP_MAX];
	uint64_t unknown_peer, vip_restored;
	uint64_t other_group; /* multicast adverts to another group, dropped */
	uint64_t last_change; /* CLOCK_REALTIME usec */
	struct vipd_peer_seen peers[VIPD_MAX_PEERS_SEEN];
	size_t npeers_seen;
	struct vipd_sync *sync;
	uint64_t last_lower_advert_at; /* monotonic us: last advert of a lower priority */
	struct vipd_fenced fenced;     /* track_fenced */
	/* auth_hmac (instance_hmac.c): the last sequence sent, the replay
	 * state of each unicast peer (cfg->peers' order) and of multicast
	 * senders, the outcome of each trailer check, and the adverts
	 * accepted without a trailer (permissive, receive-only: while it
	 * grows, a peer still sends unsigned, and enforce would drop it) */
	uint64_t hmac_seq;
	struct vrrp_hmac_replay *hmac_peer;
	struct vrrp_hmac_mcast hmac_mcast;
	uint64_t hmac_result[VRRP_HMAC_RESULT_MAX];
	uint64_t hmac_unsigned;
	/* vipd_reset_connections, the VIP handed to a live backup: the
	 * connections given up with it, whose clients are nudged once it has
	 * moved (tcp_reset.h), and the rounds of nudges sent */
	struct vipd_tcp_conn *gone;
	size_t ngone;
	unsigned nudges;
	sd_event_source *nudge_timer;
};

#define VIPD_SOLE_PEERS_MAX 16 /* unicast peers looked at by the sole-backup rule */

/* A vrrp_sync_group at run time: its tracking applies to every member, and
 * a FAULT of one member is a FAULT of all, so the group's addresses never
 * split between hosts because one member failed. */
struct vipd_sync {
	const struct vipd_sync_group *cfg;
	struct vipd_inst **members;
	size_t n;
	bool propagating;  /* the group is moving its members: they do not react */
	const char *state; /* "MASTER", "BACKUP", "FAULT", "STOP"; NULL: not known yet */
	uint64_t transitions;
};

/* A notify fifo at run time (notify.c). */
struct vipd_fifo {
	struct vipd *d;
	unsigned which; /* 0 notify_fifo, 1 vrrp_notify_fifo */
	char *path;
	int fd; /* -1: none */
	bool created;
	struct cpha_spawn *script;
	uint64_t lost; /* lines the full pipe did not take */
};

/* Calls up to an instance and its sync group from the parts below them
 * (tracking, fenced's gate, BFD), and from an instance to its group. main.c
 * sets them to inst_track_changed, inst_apply, sync_member_changed and
 * sync_group_changed; the parts below call only through them, so that no
 * two files of vipd call each other. */
struct vipd_upcalls {
	void (*track_changed)(struct vipd_inst *in);
	void (*apply)(struct vipd_inst *in, const struct vrrp_out *out);
	void (*member_changed)(struct vipd_inst *in, const struct vrrp_out *out);
	void (*group_changed)(struct vipd_sync *sy);
};

struct vipd {
	sd_event *e;
	struct vipd_upcalls up;
	struct vipd_config *cfg;
	const char *config_path;
	struct vipd_nl *nl;
	struct vipd_inst **inst;
	size_t ninst;
	struct vipd_script_rt **scripts;
	size_t nscripts;
	struct vipd_sync *syncs;
	size_t nsyncs;
	sd_event_source *track_timer; /* files and lbd, every second */
	void *admin, *metrics;
	char *admin_path;
	uint64_t started;
	uint64_t reloads;
	bool stopping;
	struct vipd_fifo fifo[2];
	uint64_t hold_until;         /* vrrp_startup_delay: no master before (monotonic us) */
	sd_event_source *exit_timer; /* stopping: waits for the fifo scripts */
	/* bfd.c: the sessions, and the sockets every session receives on
	 * (UDP 3784, one per family) */
	struct vipd_bfd_rt **bfds;
	size_t nbfds;
	int bfd_rx_fd[2]; /* IPv4, IPv6; -1: none */
	sd_event_source *bfd_rx_io[2];
	uint64_t bfd_rx_unmatched; /* valid packets for no session of ours */
	uint64_t bfd_rng;          /* xorshift state for the tx jitter */
};

/* The loop's time (monotonic us), as every part of vipd reads it. */
static inline uint64_t vipd_now(const struct vipd *d)
{
	uint64_t t = 0;

	sd_event_now(d->e, CLOCK_MONOTONIC, &t);
	return t;
}

/* An address's bytes: 4 (IPv4) or 16 (IPv6), network order. */
static inline const uint8_t *vipd_addr_raw(const struct cpha_addr *a)
{
	if (a->ss.ss_family == AF_INET6)
		return (const uint8_t *)&((const struct sockaddr_in6 *)&a->ss)->sin6_addr;
	return (const uint8_t *)&((const struct sockaddr_in *)&a->ss)->sin_addr;
}

/* instance.c */
int inst_start(struct vipd *d, struct vipd_instance *cfg, struct vipd_inst **out);
void inst_stop(struct vipd_inst *in, bool graceful);
void inst_free(struct vipd_inst *in);
void inst_netlink_event(
	struct vipd *d, enum vipd_nl_event ev, int ifindex, bool up, const struct cpha_addr *a);
/* Do what the state machine asked (the sync group's moves use it too). */
void inst_apply(struct vipd_inst *in, const struct vrrp_out *out);
/* Tracking changed: recompute priority and fault, and tell the state machine. */
void inst_track_changed(struct vipd_inst *in);
/* vipd_quiesce for instance c: the grace (us) when it tracks an lbd, else 0. */
uint64_t inst_resign_grace(const struct vipd *d, const struct vipd_instance *c);
/* Ask the tracked lbd to quiesce the instance's VIPs (on) or to take new
 * connections to them again (off), without waiting (instance_quiet.c). */
void inst_quiet_ask(struct vipd_inst *in, bool on);
const char *inst_state_name(const struct vipd_inst *in);
/* Same VRRP settings (so a reload keeps the running state). */
bool inst_same_vrrp(const struct vipd_instance *a, const struct vipd_instance *b);

/* instance_hmac.c: auth_hmac around vrrp_hmac.h, with the clock and the
 * logs. inst_hmac_trailer() makes the trailer of the VRRP packet pkt (len
 * bytes, checksum not read) into out: 1 when one is to be sent, 0 when
 * none (no auth_hmac, or receive-only), -1 after logging. inst_hmac_drop()
 * checks a received packet whose last trailer_len bytes are its trailer
 * (peer: its index in cfg->peers, or -1 for multicast), counts and logs
 * the outcome, and says whether to drop it. */
int inst_hmac_trailer(struct vipd_inst *in, const uint8_t *pkt, size_t len, uint8_t *out);
bool inst_hmac_drop(struct vipd_inst *in, const uint8_t *pkt, size_t len, size_t trailer_len,
	const struct cpha_addr *src, int peer);

/* track.c */
int track_setup(struct vipd *d);
void track_teardown(struct vipd *d);
/* Tracking of an instance: attach (again after a reload), detach (the
 * questions out are dropped, the states freed). */
int track_attach(struct vipd_inst *in);
/* A reload that keeps the instance: its tracks from the new configuration,
 * those lbd tracks unchanged keeping their state (lbd is not asked again). */
int track_reattach(struct vipd_inst *in);
void track_detach(struct vipd_inst *in);
/* track_lbd: does lbd's "show stat json" reply (NULL: none) say backend
 * has at least min_up usable servers? (pure) */
bool track_lbd_healthy(const char *reply, const char *backend, unsigned min_up);
/* track_lbd: questions lbd leaves unanswered in a row before the backend
 * counts as unhealthy (an answer, or no lbd on the socket, counts at once) */
#define LBD_UNANSWERED_DOWN 3
bool track_lbd_step(bool up, unsigned *unanswered, int r, const char *reply, const char *backend,
	unsigned min_up);
/* Effective priority and fault from the tracking states (pure); planned
 * (may be NULL): the fault comes only from weight-0 track_files. */
void track_evaluate(const struct vipd_inst *in, int *priority, bool *fault, bool *planned);
void track_netlink_link(struct vipd *d, int ifindex, bool up);

/* fenced_link.c: track_fenced. Attach (again on a reload: what the gate
 * knows is kept) and detach; may this instance take over now (no fenced
 * tracked, or fenced allows it); its Master_Down_Timer fired outside a
 * sync group: take over if fenced allows it, else wait; the master's
 * advert was heard in BACKUP; a BFD session to address addr (4 or 16 bytes
 * by family) went from Up to Down (vipd extension): an instance that hears
 * its master there asks fenced for the master's power now. */
void fenced_link_attach(struct vipd_inst *in);
void fenced_link_detach(struct vipd_inst *in);
bool fenced_link_allows(const struct vipd_inst *in);
void fenced_link_try_master(struct vipd_inst *in);
void fenced_link_master_heard(struct vipd_inst *in);
void fenced_link_bfd_down(struct vipd *d, int family, const uint8_t *addr, const char *session);

/* bfd.c: start the configured sessions (on reload: a session of the same
 * name and settings keeps running), stop them all, and show them. A
 * session's change from Up to Down tells fenced_link.c
 * (fenced_link_bfd_down()). */
int bfd_setup(struct vipd *d);
void bfd_teardown(struct vipd *d, bool reload);
struct json_t;
struct json_t *bfd_json(const struct vipd *d);
void bfd_show(const struct vipd *d, struct cpha_buf *reply);
/* vipd_bfd_* metrics (nothing when no session is configured) */
void bfd_prometheus(const struct vipd *d, struct cpha_buf *out);
/* The session whose neighbor is addr (4 or 16 bytes by family), or NULL. */
const struct vipd_bfd_rt *bfd_find_neighbor(const struct vipd *d, int family, const uint8_t *addr);

/* Is the session NAME Up? (false when there is none) */
bool bfd_up(const struct vipd *d, const char *name);

/* sync.c: link the running instances of d to their sync groups (after
 * starting them, and after a reload: a group of the same name keeps its
 * state). sync_member_changed() is called by an instance after its actions:
 * the group follows keepalived's rules (all members master or none; a
 * member leaving MASTER takes the others to BACKUP; a fault takes them all)
 * and runs its notify commands when its state changes. sync_stop_all()
 * stops every instance, then says STOP for every group. */
int sync_setup(struct vipd *d);
void sync_teardown(struct vipd *d);
/* A reload: the groups stop reacting until sync_setup() replaces them. */
void sync_freeze(struct vipd *d);
void sync_member_changed(struct vipd_inst *in, const struct vrrp_out *out);
void sync_stop_all(struct vipd *d);
/* Members moved while the group was propagating: tell its state. */
void sync_group_changed(struct vipd_sync *sy);
/* Write every instance's and group's state to the fifos (on reload). */
void sync_write_states(struct vipd *d);

/* notify.c: a notify command (type NULL: no arguments added), and the
 * fifos: opened at start, reopened on reload when changed (old: the
 * previous configuration), written, closed at stop (keep_scripts: the
 * scripts may read what is left). */
void vipd_notify_run(struct vipd *d, const char *who, const char *cmd, const struct vipd_runas *as,
	const char *type, const char *name, const char *state, int prio);
/* A state change of an instance or group (type "INSTANCE" or "GROUP"):
 * its notify_<state> command (cmds and as in VIPD_NOTIFY_* order), the
 * generic notify with TYPE NAME STATE PRIO, and the fifos' line. */
void vipd_notify_state(struct vipd *d, const char *who, char *const cmds[VIPD_NOTIFY_N],
	const struct vipd_runas *as, const char *type, const char *name, const char *state,
	int prio);
void vipd_fifo_setup(struct vipd *d, const struct vipd_config *old);
void vipd_fifo_write(
	struct vipd *d, const char *type, const char *name, const char *state, int prio);
bool vipd_fifo_scripts_running(const struct vipd *d);
void vipd_fifo_shutdown(struct vipd *d, bool keep_scripts);

/* stats.c */
void vipd_stats_command(struct vipd *d, const char *line, struct cpha_buf *reply);
void vipd_stats_prometheus(struct vipd *d, struct cpha_buf *out);
/* The metric names of the keepalived exporter most used with keepalived
 * (https://github.com/mehdy/keepalived-exporter, formerly
 * cafebazaar/keepalived-exporter), same labels and values
 * (stats_keepalived.c). */
void stats_keepalived_prometheus(struct vipd *d, struct cpha_buf *out);
/* A virtual address as keepalived writes it (and the exporter's ip_address
 * label): the address, then "/N" unless N is 32 (IPv4) or 128 (IPv6).
 * Returns buf. */
const char *stats_keepalived_ip_address(const struct vipd_vip *v, char *buf, size_t len);

/* GET /status (status_json.c): version, pid, config_sha256 and per instance
 * its state, priorities, interface, tracks and whether each virtual address
 * is on its interface now (the kernel's addresses at request time). No
 * authentication data. A cpha_status_fn on a struct vipd. */
void vipd_status_json(void *d, struct cpha_buf *out);

#endif
