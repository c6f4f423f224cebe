/* `cpha status`: the live availability matrix of a cluster. A snapshot of
 * what every source said (status_collect.c, all the I/O), judged by pure
 * code (status_check.c: per-host states, per-role notes, cross-checks,
 * the worst state), shown as text or JSON (status_show.c). */
#ifndef CPHA_STATUS_H
#define CPHA_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "cluster.h"

#define ST_NAME         64
#define ST_TEXT         200
#define ST_MAX_HOSTS    16 /* of each kind */
#define ST_MAX_SERVERS  16 /* servers of lbd's apiserver backend */
#define ST_MAX_PENDING  16
#define ST_MAX_PROBLEMS 64
#define ST_MAX_PCMK     32 /* Pacemaker resources on one node */
#define ST_MAX_CERTS    64 /* certificates in the PKI directory */

/* Worst first is the exit status: 0 healthy, 1 degraded, 2 down. */
enum st_level {
	ST_HEALTHY = 0,
	ST_DEGRADED = 1,
	ST_DOWN = 2,
};

/* What became of asking one source. */
enum st_reach {
	ST_NOT_ASKED = 0, /* not asked (not expected there) */
	ST_ANSWERED,      /* answered, and the answer was read */
	ST_REFUSED,       /* nothing listens: the daemon is not running */
	ST_UNREACHABLE,   /* no answer (timeout, TLS, HTTP error, unreadable answer) */
};

/* One etcd member: POST /v3/maintenance/status, GET /health and POST
 * /v3/cluster/member/list (the member list as this member knows it). */
struct st_etcd {
	char host[ST_NAME];
	enum st_reach reach;
	char error[ST_TEXT];
	bool healthy;              /* /health said "true" */
	uint64_t id;               /* its member ID */
	uint64_t leader;           /* the leader it sees; 0: none */
	uint64_t term;             /* raft term */
	bool listed;               /* its member list was read */
	unsigned voting, learners; /* in that list: voting members, learners */
	/* that list's members by name (etcd's --name, the host's); one added
	 * but not started yet has none and is named by its peer URL */
	size_t nmembers;
	struct st_member {
		char name[ST_NAME];
		bool learner;
	} member[ST_MAX_HOSTS];
};

/* One apiserver's /readyz and /version, asked directly. */
struct st_api {
	char host[ST_NAME];
	long readyz; /* HTTP status; 0: no answer */
	bool refused;
	char error[ST_TEXT];
	char version[ST_NAME]; /* /version's gitVersion, "v1.36.4"; "" unknown */
};

/* A leader-election Lease in kube-system. */
struct st_lease {
	char name[ST_NAME]; /* kube-controller-manager, kube-scheduler */
	enum st_reach reach;
	bool found; /* the Lease exists (404: nobody ever led) */
	char holder[ST_TEXT];
	long transitions;
	double renew_age;  /* seconds since renewTime; < 0 unknown */
	long duration;     /* leaseDurationSeconds */
	char via[ST_NAME]; /* "VIP" or the apiserver's host that answered */
	char error[ST_TEXT];
};

struct st_lbd_server {
	char name[ST_NAME];
	char state[16]; /* UP, DOWN, MAINT, DRAIN */
	char check[ST_TEXT];
};

/* A load-balancer host: lbd's and vipd's /status (HAProxy's /healthz). */
struct st_lb {
	char host[ST_NAME];
	enum st_reach lbd; /* ST_NOT_ASKED: HAProxy, or no lbd */
	char lbd_error[ST_TEXT];
	struct st_lbd_server servers[ST_MAX_SERVERS];
	size_t nservers;
	enum st_reach monitor; /* HAProxy's monitor frontend; ST_NOT_ASKED with lbd */
	long healthz;          /* its /healthz status: 200 an apiserver up, 503 none */
	char monitor_error[ST_TEXT];
	enum st_reach vipd; /* ST_NOT_ASKED: keepalived or Pacemaker holds the VIP */
	char vipd_error[ST_TEXT];
	char vrrp[16]; /* MASTER, BACKUP, FAULT, INIT */
	int priority, effective_priority;
	bool vip_present;  /* the VIP is on its interface now */
	bool vip2_present; /* and the second VIP of a dual-stack cluster */
	bool drained;      /* its drain track failing: `cpha drain` of this host */
	long hold_ms;      /* vrrp_startup_delay left: no master before it ends */
};

struct st_pending {
	char node[ST_NAME];
	char state[16];
	double due_in; /* seconds to its deadline; < 0: past it */
	bool overdue;  /* fenced: still pending past its delay and a round of its levels */
	bool failed;   /* fenced: its last round of levels failed */
};

/* One host's fenced /status. */
struct st_fence {
	char host[ST_NAME];
	enum st_reach reach;
	char error[ST_TEXT];
	bool quorate;
	unsigned members;
	struct st_pending pending[ST_MAX_PENDING];
	size_t npending;
	char last[ST_TEXT]; /* the last fence result, "" none */
	/* the quorum device, on a host of the cluster the description gives
	 * one (qdevice:): what fenced's /status says of it */
	bool qdevice_expected;
	bool qdevice_reported; /* /status has it: corosync.conf has a device */
	bool qdevice_alive, qdevice_vote;
};

/* Pacemaker's view of one node (crm_mon --output-as=xml). */
struct st_pcmk_node {
	char name[ST_NAME];
	bool online;
	unsigned started, failed; /* resources active on it, failed on it */
};

/* A certificate of the PKI directory (*.pem holding one, keys skipped). */
struct st_cert {
	char file[ST_TEXT]; /* relative to the PKI directory */
	int64_t not_after;  /* notAfter, unix seconds */
};

/* The etcd snapshots of etcd.snapshot.dir on this host: read when the
 * description has etcd.snapshot and the directory is here (an etcd
 * member; elsewhere it is not looked for). */
struct st_snaps {
	bool read;            /* the directory is on this host (or unreadable) */
	char dir[ST_TEXT];    /* etcd.snapshot.dir */
	unsigned count;       /* snapshots in it (snapshot_keep.h's names) */
	char newest[ST_NAME]; /* the newest one's name; "": none */
	int64_t newest_time;  /* its time, unix seconds */
	int64_t newest_age;   /* seconds when it was read */
	uint64_t every_sec;   /* etcd.snapshot.every */
	char error[ST_TEXT];  /* the directory could not be read; "" */
};

struct st_snapshot {
	/* from the description */
	char cluster[ST_NAME];
	char vip[ST_NAME];
	char vip2[ST_NAME]; /* a dual-stack cluster's second VIP; "": none */
	bool leader_elect;
	bool fencing_configured; /* fencing devices or a watchdog described */
	char qdevice[ST_NAME];   /* qdevice.address as written; "": none */
	bool lb_lbd, vip_vipd;
	unsigned k8s_minor; /* kubernetes.version's: the flags are rendered for 1.<minor> */
	/* the daemons' /status listen on loopback (monitoring.listen): only
	 * this host's were asked, the others' are ST_NOT_ASKED */
	bool mon_local_only;

	struct st_etcd etcd[ST_MAX_HOSTS];
	size_t netcd;
	struct st_api api[ST_MAX_HOSTS];
	size_t napi;
	long vip_readyz; /* /readyz through the VIP; 0: no answer */
	char vip_error[ST_TEXT];
	long vip2_readyz; /* the same through the second VIP */
	char vip2_error[ST_TEXT];
	struct st_lease leases[2];
	size_t nleases;
	struct st_lb lbs[ST_MAX_HOSTS];
	size_t nlbs;
	struct st_fence fence[ST_MAX_HOSTS];
	size_t nfence;
	bool pcmk; /* crm_mon answered */
	struct st_pcmk_node pcmk_nodes[ST_MAX_HOSTS];
	size_t npcmk;
	struct st_cert certs[ST_MAX_CERTS]; /* sorted by file */
	size_t ncerts;
	char cert_error[ST_TEXT]; /* the first .pem that could not be read; "" */
	struct st_snaps snaps;
};

struct st_problem {
	enum st_level level;
	char role[16];
	char text[ST_TEXT + 120];
};

struct st_problems {
	struct st_problem v[ST_MAX_PROBLEMS];
	size_t n;
};

/* Per host: running, stopped, failed or unknown (judged). */
enum st_host_state {
	ST_HOST_UNKNOWN,
	ST_HOST_RUNNING,
	ST_HOST_STOPPED,
	ST_HOST_FAILED,
};

struct st_host {
	char name[ST_NAME];
	const char *roles; /* "master+etcd", "lb" */
	enum st_host_state state;
	char why[ST_TEXT];
};

/* A row of the role table. */
struct st_role {
	const char *role, *style;
	enum st_level level;
	/* what the table shows: the level's name, "unknown" for a part cpha
	 * status cannot read (HAProxy, keepalived), "n/a" for one not in use */
	const char *state;
	char notes[ST_TEXT * 2];
};

#define ST_NROLES 7

struct st_report {
	struct st_host hosts[ST_MAX_HOSTS * 2];
	size_t nhosts;
	struct st_role roles[ST_NROLES];
	struct st_problems problems;
	enum st_level worst;
};

/* status_check.c, pure: judge a snapshot. Every cross-check that fires adds
 * a problem line; the worst state is the worst problem's. */
void status_check(const struct st_snapshot *s, struct st_report *r);

/* status_pcmk.c, pure: read crm_mon --output-as=xml into s->pcmk_nodes
 * (nodes, online, resources running, failed resources on each). */
void status_parse_crm_mon(const char *xml, struct st_snapshot *s);

/* status_check.c, pure: the member list of the first etcd member that gave
 * one (voting members and learners); false when none did. */
bool status_etcd_members(const struct st_snapshot *s, unsigned *voting, unsigned *learners);

/* The member whose member list status_etcd_members() reads, or NULL. */
const struct st_etcd *status_etcd_lister(const struct st_snapshot *s);

/* status_check.c, pure: the members whose /health said true. */
unsigned status_etcd_healthy(const struct st_snapshot *s);

/* status_check.c, pure: the certificate that expires first; NULL when no
 * certificate was read. */
const struct st_cert *status_cert_earliest(const struct st_snapshot *s);

const char *status_level_name(enum st_level l);
const char *status_host_state_name(enum st_host_state s);

/* status_collect.c: ask every source of cluster c, each within timeout.
 * pki: the directory `cpha pki` wrote (ca.pem, etcd-client, admin), or
 * NULL for the files as installed on a master (the two directories below). */
void status_collect(
	const struct cp_cluster *c, const char *pki, uint64_t timeout_usec, struct st_snapshot *s);
/* The same for the LB hosts alone (s->lbs): their lbd or HAProxy and vipd. */
void status_collect_lbs(
	const struct cp_cluster *c, const char *pki, uint64_t timeout_usec, struct st_snapshot *s);

/* status_certs.c: read the notAfter of every certificate under the PKI
 * directory (pki; NULL: the two directories as installed on a master)
 * into s->certs, sorted by file name. Keys and other PEM files are skipped. */
void status_collect_certs(const char *pki, struct st_snapshot *s);

/* status_snaps.c: the snapshots of c's etcd.snapshot.dir on this host
 * into s->snaps, at unix time now; nothing when etcd.snapshot is not
 * described or the directory is not here. */
void status_collect_snaps(const struct cp_cluster *c, int64_t now, struct st_snapshot *s);

/* status_check.c, pure: whether the snapshots read are overdue: none, or
 * the newest older than twice etcd.snapshot.every (the timer missed a run
 * and then another). */
bool status_snaps_overdue(const struct st_snaps *n);

/* status_textfile.c, pure: the snapshot and its judgement as the cpha_*
 * series of node-exporter's textfile collector (Prometheus text format,
 * HELP and TYPE lines), written at unix time now. Unknown values (a Lease
 * not read, no etcd member list) have no sample. */
void status_textfile(
	const struct st_snapshot *s, const struct st_report *r, double now, struct cpha_buf *b);

/* status_show.c: the report as text, or as one JSON object (hosts, roles,
 * problems, worst). */
void status_show_text(const struct st_snapshot *s, const struct st_report *r, struct cpha_buf *b);
void status_show_json(const struct st_snapshot *s, const struct st_report *r, struct cpha_buf *b);

#define STATUS_INSTALLED_K8S_PKI  "/etc/kubernetes/pki" /* ca.pem, admin.pem, admin-key.pem */
#define STATUS_INSTALLED_ETCD_PKI "/etc/etcd/pki"       /* etcd-client.pem and its key */

#endif
