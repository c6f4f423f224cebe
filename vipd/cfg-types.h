/* vipd's configuration as parsed from keepalived's language. Types only;
 * the parser is cfg.h. Times are in microseconds. */
#ifndef VIPD_CFG_TYPES_H
#define VIPD_CFG_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "addr.h"
#include "vrrp_hmac.h"

#define VIPD_WEIGHT_MAX 253 /* keepalived's bound on tracking weights */

/* vrrp_script NAME { ... } */
struct vipd_script {
	char *name;
	char *command;       /* "script": a command line (split with the lexer's quoting) */
	uint64_t interval;   /* default 1 s */
	uint64_t timeout;    /* default: interval */
	int weight;          /* -253..253; 0: a failure puts the instance in FAULT */
	bool weight_reverse; /* "weight N reverse" */
	unsigned rise;       /* default 1 */
	unsigned fall;       /* default 1 */
	char *user, *group;  /* "user USER [GROUP]"; NULL: global script_user */
	bool init_fail;      /* "init_fail": starts in the failed state */
	unsigned line;
};

/* vrrp_track_file NAME { file PATH; weight N; init_file [VALUE] [overwrite] } */
struct vipd_track_file_def {
	char *name;
	char *path;
	int weight;          /* default 1: the file's number times this */
	bool weight_reverse; /* "weight N reverse" */
	bool init_file;
	int init_value;
	bool init_overwrite;
	unsigned line;
};

/* How a vrrp_track_process compares the parameters of a command line. */
enum vipd_param_match {
	VIPD_PARAM_NONE,    /* the name alone */
	VIPD_PARAM_EXACT,   /* these parameters, no more */
	VIPD_PARAM_INITIAL, /* these first; the last may be the start of a longer one */
	VIPD_PARAM_PARTIAL, /* these first, maybe more */
};

/* vrrp_track_process NAME { process PATH [ARGS...]; ... }: how many
 * processes match, checked against [quorum, quorum_max]. */
struct vipd_track_process_def {
	char *name;
	char *process; /* /proc/PID/comm, or argv[0] with full_command */
	char *params;  /* the ARGS, each ending in NUL; NULL: none given */
	size_t params_len;
	enum vipd_param_match param_match;
	bool full_command; /* match /proc/PID/cmdline, not comm */
	int weight;        /* -254..254; 0: no quorum puts the instance in FAULT */
	bool weight_reverse;
	unsigned quorum;          /* default 1 */
	unsigned quorum_max;      /* default UINT_MAX */
	uint64_t fork_delay;      /* wait this long before counting a gained quorum */
	uint64_t terminate_delay; /* and before counting a lost one */
	unsigned line;
};

/* One entry of track_script / track_interface / track_file / track_lbd in
 * an instance or sync group. weight_set false: the definition's weight
 * (scripts, files) or none (interfaces: FAULT when down). */
struct vipd_track {
	char *name; /* script, interface, or track file name; lbd: backend */
	int weight;
	bool weight_set;
	bool weight_reverse;
	unsigned line;
	/* track_lbd only (vipd extension):
	 *   track_lbd { /run/lbd/admin.sock apiservers 2 [weight N] } */
	char *lbd_socket;
	unsigned lbd_min_up; /* healthy servers needed in the backend */
	bool process;        /* track_process: name is a vrrp_track_process */
	bool bfd;            /* track_bfd: name is a bfd_instance */
};

/* bfd_instance NAME { ... }: a BFD session (RFC 5880, single hop RFC 5881)
 * with keepalived 2.2's keywords and defaults. Intervals in microseconds. */
struct vipd_bfd_def {
	char *name;                /* up to 31 characters, as keepalived */
	struct cpha_addr neighbor; /* neighbor_ip / neighbour_ip */
	struct cpha_addr source;   /* source_ip; unset: the kernel's choice */
	bool source_set;
	uint32_t min_rx;  /* default 10 ms */
	uint32_t min_tx;  /* default 10 ms */
	uint32_t idle_tx; /* default 1 s (at least 1 s) */
	unsigned mult;    /* default 5 */
	bool passive;
	int ttl;      /* sent; default 255 (IPv4) or 64 (IPv6), as keepalived */
	int max_hops; /* received TTL may be this much below ttl; default 0; -1 or 255: any */
	int weight;   /* track_bfd's default weight; 0: a session down puts the instance in FAULT */
	bool weight_reverse;
	bool vrrp; /* false: "checker" alone was given: not for VRRP instances */
	unsigned line;
};

struct vipd_vip {
	struct cpha_addr addr; /* no port */
	unsigned prefixlen;    /* default 32 or 128 */
	char *dev;             /* NULL: the instance's interface */
	char *label;           /* IPv4 label, e.g. eth0:vip */
	unsigned line;
};

enum vipd_auth {
	VIPD_AUTH_NONE,
	VIPD_AUTH_PASS, /* VRRPv2 simple text password (no security, RFC 3768) */
};

enum vipd_init_state {
	VIPD_INIT_BACKUP,
	VIPD_INIT_MASTER, /* "state MASTER": only a hint, as in keepalived */
};

/* Who a command runs as, keepalived's "USER [GROUP]": GROUP instead of
 * USER's primary group; ":GROUP" or ":" also with USER's supplementary
 * groups. user NULL: global script_user's, else as vipd runs. */
struct vipd_runas {
	char *user, *group;
};

/* Slots of notify_as[]: notify_master, _backup, _fault, _stop, notify. */
enum {
	VIPD_NOTIFY_MASTER,
	VIPD_NOTIFY_BACKUP,
	VIPD_NOTIFY_FAULT,
	VIPD_NOTIFY_STOP,
	VIPD_NOTIFY_ANY,
	VIPD_NOTIFY_N
};

struct vipd_instance {
	char *name;
	unsigned line;
	enum vipd_init_state state;
	char *interface;
	unsigned vrid;       /* 1..255 */
	unsigned priority;   /* 1..255, default 100 */
	uint64_t advert_int; /* default 1 s; v3: centiseconds 0.01..40.95; v2: whole seconds */
	int version;         /* 2 or 3; default global vrrp_version */
	int family;          /* AF_INET or AF_INET6: from the VIPs (all the same) */
	bool nopreempt;
	uint64_t preempt_delay;       /* 0..1000 s */
	bool preempt_handover;        /* vipd: preempt a live master by handover */
	bool unicast;                 /* unicast_peer given */
	struct cpha_addr unicast_src; /* unset: the interface's primary address */
	bool unicast_src_set;
	/* mcast_dst_ip: this instance's group, over global_defs'
	 * vrrp_mcast_group4/6 */
	struct cpha_addr mcast_dst;
	bool mcast_dst_set;
	struct cpha_addr *peers;
	size_t npeers;
	enum vipd_auth auth;
	char auth_pass[9];      /* up to 8 characters, NUL-padded */
	bool v3_checksum_as_v2; /* VRRPv3 over IPv4 without the pseudo-header
				 * (keepalived's option; RFC 9568's reading) */
	/* auth_hmac { ... } (keepalived 2.4.3): an HMAC-SHA256 trailer on
	 * adverts (vrrp_hmac.h). hmac.keys is hmac_keys, hmac.nkeys their count. */
	bool auth_hmac;
	struct vrrp_hmac_cfg hmac;
	struct vrrp_hmac_key *hmac_keys;
	struct vipd_vip *vips;
	size_t nvips;
	struct vipd_track *track_script, *track_interface, *track_file, *track_lbd;
	size_t ntrack_script, ntrack_interface, ntrack_file, ntrack_lbd;
	struct vipd_track *track_process;
	size_t ntrack_process;
	struct vipd_track *track_bfd; /* keepalived: up is fine, down counts as a failure */
	size_t ntrack_bfd;
	bool dont_track_primary; /* the interface going down is no FAULT */
	/* track_fenced [SOCKET]: fenced's admin socket; NULL: not tracked.
	 * No MASTER while fenced says the partition has no quorum; no takeover
	 * while a node is waiting to be fenced. */
	char *fenced_socket;
#define VIPD_FENCED_SOCKET "/run/fenced/admin.sock"
	char *notify_master, *notify_backup, *notify_fault, *notify_stop, *notify;
	struct vipd_runas notify_as[VIPD_NOTIFY_N];
	uint64_t garp_master_delay;          /* default 5 s: second burst after becoming master */
	unsigned garp_master_repeat;         /* default 5: packets per burst */
	uint64_t garp_master_refresh;        /* 0: none; else re-announce this often */
	unsigned garp_master_refresh_repeat; /* default 1 */
	uint64_t garp_interval;              /* between the packets of a burst; default 0 */
	char *sync_group;                    /* set when a vrrp_sync_group lists it */
};

struct vipd_sync_group {
	char *name;
	char **members; /* instance names */
	size_t nmembers;
	struct vipd_track *track_script, *track_interface, *track_file, *track_process;
	size_t ntrack_script, ntrack_interface, ntrack_file, ntrack_process;
	struct vipd_track *track_bfd;
	size_t ntrack_bfd;
	char *notify_master, *notify_backup, *notify_fault, *notify_stop, *notify;
	struct vipd_runas notify_as[VIPD_NOTIFY_N];
	unsigned line;
};

/* notify_fifo / vrrp_notify_fifo PATH [USER [GROUP]] and their _script. */
struct vipd_fifo_cfg {
	char *path;   /* NULL: none */
	char *user;   /* owner of a fifo vipd creates; NULL: as vipd runs */
	char *group;  /* its group; NULL: the user's */
	char *script; /* run at start with the fifo's path as last argument */
	struct vipd_runas script_as;
};

struct vipd_global {
	char *router_id;
	int vrrp_version; /* default 2, as keepalived */
	char *script_user, *script_group;
	bool enable_script_security;
	uint64_t vrrp_garp_master_refresh;
	int max_auto_priority; /* accepted (scheduling priority); -1: not set */
	char *admin_socket; /* vipd extension "vipd_admin_socket PATH"; default /run/vipd/admin.sock
			     */
	struct cpha_addr metrics; /* vipd extension "vipd_metrics_bind ADDR:PORT" */
	bool metrics_set;
	struct cpha_webcfg *metrics_web; /* "vipd_metrics_web_config FILE" (webcfg.h) */
	unsigned metrics_web_loc;        /* where it was given (a cfgdiag loc); 0: not */
	bool strict;                     /* vrrp_strict */
	/* vrrp_mcast_group4 / vrrp_mcast_group6: the groups multicast instances
	 * send to and receive on; default 224.0.0.18 and ff02::12 */
	struct cpha_addr mcast4, mcast6;
	/* notify_fifo and vrrp_notify_fifo: both get every instance and group
	 * line, keepalived's 'INSTANCE "VI_1" MASTER 100' */
	struct vipd_fifo_cfg fifo[2];
	bool fifo_states_on_reload;   /* fifo_write_vrrp_states_on_reload */
	bool notify_priority_changes; /* vrrp_notify_priority_changes */
	/* vrrp_startup_delay and vrrp_delay_after_boot (since boot, from
	 * CLOCK_BOOTTIME): no instance becomes master before the later */
	uint64_t startup_delay, delay_after_boot;
	/* vipd extension "vipd_reset_connections [BOOL]": an instance that
	 * gives up its addresses resets the TCP connections on them
	 * (tcp_reset.h) */
	bool reset_connections;
	/* vipd extension "vipd_quiesce SECS": a master that gives the VIP up
	 * on purpose asks lbd (its track_lbd socket) to quiesce it for this
	 * long first (vrrp_state.h's resign_grace); 0: not */
	uint64_t quiesce;
	unsigned quiesce_loc; /* where it was given (a cfgdiag loc); 0: not */
};

struct vipd_config {
	char *file;
	char digest[65]; /* SHA-256 of the main file's bytes as loaded (hex) */
	struct vipd_global global;
	struct vipd_script *scripts;
	size_t nscripts;
	struct vipd_track_file_def *track_files;
	size_t ntrack_files;
	struct vipd_track_process_def *track_processes;
	size_t ntrack_processes;
	struct vipd_bfd_def *bfds;
	size_t nbfds;
	struct vipd_instance *instances;
	size_t ninstances;
	struct vipd_sync_group *groups;
	size_t ngroups;
	char **notices; /* accepted-but-ignored and warnings, "file:line: text" */
	size_t nnotices;
};

#endif
