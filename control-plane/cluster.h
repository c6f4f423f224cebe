/* The cluster description (/etc/cpha/cluster.yaml) as cpha reads it: every
 * value with the place it was written, so that plan, pki and render can say
 * "file:line:column: what is wrong". Defaults are filled in by
 * cluster_load() (desc.c); cluster_free() releases everything.
 *
 * Hosts live in one array (masters first, then load-balancer hosts, then
 * external etcd hosts); roles say what each runs. */
#ifndef CPHA_CLUSTER_H
#define CPHA_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "addr.h"
#include "cfgdiag.h"

/* Roles a host plays (cp_host.roles). */
#define CP_ROLE_MASTER (1u << 0) /* apiserver, controller-manager, scheduler */
#define CP_ROLE_LB     (1u << 1) /* load balancer + VIP */
#define CP_ROLE_ETCD   (1u << 2) /* an etcd member */

enum cp_lb { CP_LB_LBD, CP_LB_HAPROXY };
enum cp_vip { CP_VIP_VIPD, CP_VIP_KEEPALIVED, CP_VIP_PACEMAKER };
enum cp_mgr { CP_MGR_PACEMAKER, CP_MGR_SYSTEMD, CP_MGR_STATIC_PODS };

/* One key: value of a fence device's params. */
struct cp_param {
	char *key, *value;
	struct cpha_pos pos;
};

struct cp_fence_device {
	char *name;
	char *agent;    /* fence_ipmilan, ... */
	char *host;     /* the host it fences */
	unsigned level; /* 1 = tried first; devices of one host on one level must all succeed */
	struct cp_param *params;
	size_t nparams;
	struct cpha_pos pos, name_pos, host_pos, agent_pos;
};

struct cp_host {
	char *name;
	struct cpha_addr addr; /* no port */
	char *address;         /* as written */
	char *zone;            /* failure domain (rack, room); NULL when not given */
	unsigned roles;        /* CP_ROLE_* */
	unsigned node_id;      /* corosync nodeid: given, or the position in its corosync cluster */
	unsigned priority;     /* VRRP priority on LB hosts (given, or 150 - 10 x index) */
	struct cpha_pos pos, name_pos, addr_pos;
	struct cpha_pos priority_pos; /* 0/0 when the priority is the default */
};

/* monitoring: where the daemons (lbd, vipd, fenced) serve /metrics and
 * /status, and who may read them (desc_monitoring.c). */
enum cp_mon_listen {
	CP_MON_LOOPBACK, /* 127.0.0.1, or ::1 on a host with an IPv6 address (default) */
	CP_MON_HOST,     /* each host's own address */
	CP_MON_ADDRESS,  /* the address given, on every host (0.0.0.0, ::) */
};

struct cp_monitoring {
	enum cp_mon_listen listen;
	struct cpha_addr addr;      /* CP_MON_ADDRESS; no port */
	char *cert_file, *key_file; /* tls: the serving certificate on each host; NULL: HTTP */
	char *user, *password_hash; /* basic_auth: the user and its bcrypt hash; NULL: none */
	char *password_file;        /* basic_auth: the password, for cpha status; NULL: none */
	struct cpha_pos pos;
	/* prometheus: the server that scrapes every daemon (render_prom.c) */
	struct cp_prometheus {
		bool on;              /* monitoring.prometheus is given */
		uint64_t scrape_usec; /* scrape_interval (default 15 s) */
		uint64_t eval_usec;   /* evaluation_interval (default: scrape_interval) */
		char **alertmanagers; /* HOST:PORT each, NULL-terminated; NULL: none */
		char *dir;            /* its credentials on the Prometheus host */
		char *textfile_dir;   /* node-exporter's textfile directory on each host */
		struct cpha_pos pos;
	} prom;
};

/* qdevice: corosync's quorum device (corosync-qdevice, model net) for the
 * corosync cluster of the hosts that hold the VIP, with corosync-qnetd on
 * another host (desc_qdevice.c). */
enum cp_qd_algorithm { CP_QD_FFSPLIT, CP_QD_LMS };
enum cp_qd_tie { CP_QD_TIE_LOWEST, CP_QD_TIE_HIGHEST, CP_QD_TIE_NODE };
enum cp_qd_tls { CP_QD_TLS_ON, CP_QD_TLS_OFF, CP_QD_TLS_REQUIRED };

struct cp_qdevice {
	bool on;               /* qdevice: is given */
	char *address;         /* as written: an address or a host's name */
	struct cpha_addr addr; /* where corosync-qnetd listens (no port) */
	const char *host;      /* the host of the description it names; NULL: none */
	enum cp_qd_algorithm algorithm;
	enum cp_qd_tie tie_breaker;
	unsigned tie_node; /* CP_QD_TIE_NODE: that node id */
	unsigned port;     /* 5403 */
	enum cp_qd_tls tls;
	struct cpha_pos pos, address_pos, algorithm_pos, tie_pos;
};

struct cp_cluster {
	char *file; /* as given to cluster_load() */

	/* cluster: */
	char *name, *domain;
	struct cpha_pos name_pos;

	/* api: */
	char *api_name;
	struct cpha_addr vip;
	unsigned vip_prefix;
	char *vip_text; /* as written, "10.10.10.2/24" */
	/* a dual-stack cluster's second VIP, of the other family (the hosts'
	 * family is the first one's): vip: [10.10.10.2/24, 2001:db8:10::2/64] */
	bool has_vip2;
	struct cpha_addr vip2;
	unsigned vip2_prefix;
	char *vip2_text;
	struct cpha_pos vip2_pos;
	unsigned api_port;
	char *interface;
	unsigned vrid;     /* 1..255 */
	bool vrid_derived; /* not written: derived from the cluster name */
	struct cpha_pos vip_pos, vrid_pos;

	/* kubernetes: */
	char *k8s_version;  /* as written: "1.36", "1.36.4" or "v1.36.4" */
	unsigned k8s_minor; /* 1.<k8s_minor>: one flags.h's table knows; the flags rendered
			     * are the ones it accepts */
	unsigned k8s_patch; /* when k8s_patch_set */
	bool k8s_patch_set;
	struct cpha_pos k8s_version_pos; /* line 0: not written */
	char *service_cidr, *cluster_cidr, *node_port_range;
	char **admission, **authorization; /* NULL-terminated */
	bool leader_elect;
	char *bin_dir;                  /* where the kube-* and etcd binaries are (/usr/bin) */
	char *image_repository;         /* static pods: registry.k8s.io */
	char *etcd_image;               /* static pods: registry.k8s.io/etcd:3.5.x-0 */
	struct cpha_pos etcd_image_pos; /* line 0: the default of etcd.version */
	struct cpha_pos service_cidr_pos, cluster_cidr_pos;
	struct cpha_pos admission_pos; /* 0/0: the default list */
	struct cpha_pos interface_pos;

	/* hosts (masters, then LB hosts, then external etcd hosts) */
	struct cp_host *hosts;
	size_t nhosts;
	size_t nmasters, nlbs; /* counts by role */
	bool lb_on_masters;    /* load_balancers: left out */
	struct cpha_pos masters_pos, lbs_pos;

	/* etcd: */
	size_t *etcd; /* indexes into hosts of the members, in order */
	size_t netcd;
	char *etcd_token;
	char *etcd_data_dir;
	unsigned etcd_minor; /* etcd.version 3.<etcd_minor>: 4, 5 or 6 */
	struct cpha_pos etcd_pos;
	/* etcd.snapshot: cpha etcd snapshot's defaults, and its timer on each
	 * member when given (desc.c; the defaults are snapshot_keep.h's) */
	struct cp_etcd_snapshot {
		bool on;             /* etcd.snapshot is given: render the timer */
		uint64_t every_usec; /* the timer's period (default 30 min) */
		unsigned keep;       /* snapshots kept (default 8) */
		char *dir;           /* where they are (default /var/lib/etcd-snapshots) */
		struct cpha_pos pos;
	} snap;

	/* components: */
	enum cp_lb lb;
	enum cp_vip vipd;
	enum cp_mgr manager;
	struct cpha_pos components_pos;

	/* fencing: */
	struct cp_fence_device *devices;
	size_t ndevices;
	uint64_t fence_delay_usec; /* static delay for the first node of a two-node cluster */
	bool fence_delay_set;
	uint64_t priority_delay_usec; /* the VIP holder's edge in a fence race (LB tier) */
	bool priority_delay_set;
	struct cpha_pos fence_delay_pos, priority_delay_pos;
	char *watchdog_device; /* NULL: none */
	uint64_t watchdog_timeout_usec;
	struct cpha_pos fencing_pos;
	/* fencing.load_balancers: none: the LB hosts run no corosync and no
	 * fenced, the VIP daemon alone decides (kubeadm's HA guide) */
	bool lbs_unfenced;
	struct cpha_pos lbs_unfenced_pos;

	/* pki: */
	unsigned ca_days, cert_days;
	unsigned renew_days; /* `cpha pki renew` re-issues what expires within this */

	struct cp_monitoring mon;  /* monitoring: */
	struct cp_qdevice qdevice; /* qdevice: */
};

/* Read and check FILE. Returns 0 with *out set, or -1 with the reasons in
 * d->errs (syntax, unknown keys, bad values, references to unknown hosts).
 * Design rules that need the whole picture are plan's (plan.c). */
int cluster_load(const char *file, struct cp_cluster **out, struct cpha_msgs *d);

void cluster_free(struct cp_cluster *c);

/* Lookup by name; NULL when none. */
struct cp_host *cluster_host(const struct cp_cluster *c, const char *name);

/* The i-th host with role r (0-based), or NULL. */
struct cp_host *cluster_role_host(const struct cp_cluster *c, unsigned r, size_t i);

/* Hosts with role r. */
size_t cluster_role_count(const struct cp_cluster *c, unsigned r);

/* The hosts that run the load balancer and VIP: the LB hosts, or the masters
 * when load_balancers is left out. */
size_t cluster_lb_count(const struct cp_cluster *c);
struct cp_host *cluster_lb_host(const struct cp_cluster *c, size_t i);

/* Whether the quorum device serves the corosync cluster of tier-mates of
 * host role r: the LB hosts' cluster when they are apart, the masters'
 * when the load balancer runs on them. */
bool cluster_qdevice_serves(const struct cp_cluster *c, unsigned role);

/* Names for the enums as written in the description. */
const char *cluster_lb_name(enum cp_lb v);
const char *cluster_vip_name(enum cp_vip v);
const char *cluster_mgr_name(enum cp_mgr v);
const char *cluster_qd_algorithm_name(enum cp_qd_algorithm v);
const char *cluster_qd_tls_name(enum cp_qd_tls v);
/* tie_breaker as corosync.conf takes it: "lowest", "highest" or the id */
const char *cluster_qd_tie_text(const struct cp_qdevice *q, char *buf, size_t len);

/* The network address of service_cidr plus one (10.32.0.1 for 10.32.0.0/16,
 * whatever host bits the text has): the in-cluster "kubernetes" service IP,
 * as kube-apiserver allocates it. Returns 0 or -EINVAL. */
int cluster_first_service_ip(const struct cp_cluster *c, char *buf, size_t len);

/* A network (or one address, prefix 32/128) as bytes, for the checks that
 * compare networks: host bits, size, overlap. */
struct cp_net {
	int family;          /* AF_INET or AF_INET6 */
	unsigned char a[16]; /* network byte order; IPv4 uses the first 4 */
	unsigned prefix;
};

/* "address/prefix" (or a bare address) into n, host bits kept as written.
 * Returns 0 or -EINVAL with *why set. */
int cp_net_parse(const char *s, struct cp_net *n, const char **why);

/* An address with a prefix length (prefix 32/128: the address alone). */
void cp_net_of_addr(const struct cpha_addr *a, unsigned prefix, struct cp_net *n);

/* Clear the host bits of n; true when some were set. */
bool cp_net_mask(struct cp_net *n);

/* Bits after the prefix (16 for an IPv4 /16). */
unsigned cp_net_host_bits(const struct cp_net *n);

/* True when x and y share an address (one contains the other). */
bool cp_net_overlap(const struct cp_net *x, const struct cp_net *y);

/* "10.32.0.0/16", or the bare address when with_prefix is false. Returns buf
 * (INET6_ADDRSTRLEN + 5 bytes is enough). */
char *cp_net_format(const struct cp_net *n, bool with_prefix, char *buf, size_t len);

/* Whether Linux would take name as an interface name (the kernel's
 * dev_valid_name(): not empty, shorter than IFNAMSIZ (16) bytes, not "." or
 * "..", no '/', ':' or white space). On false *why says which rule. */
bool cluster_ifname_valid(const char *name, const char **why);

/* kube-apiserver refuses a --service-cluster-ip-range with more host bits
 * than this (an IPv4 prefix shorter than /12, IPv6 shorter than /108). */
#define CP_SERVICE_CIDR_MAX_HOST_BITS 20

/* The VRID derived from a cluster name (1..255): stable, and spread so that
 * two clusters on one segment rarely share it. */
unsigned cluster_derive_vrid(const char *name);

#endif
