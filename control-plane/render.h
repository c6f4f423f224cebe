/* `cpha render`: every file of the cluster, made in memory from the model
 * (deterministic: the same description gives the same bytes), then checked
 * by each file's own checker and written under DIR/HOST/<path as installed>
 * and DIR/cluster/.
 *
 * Each render_*.c module adds files to a set; render.c orders, checks and
 * writes them. */
#ifndef CPHA_RENDER_H
#define CPHA_RENDER_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "cluster.h"

/* Which checker a file goes through before render succeeds. */
enum render_check {
	RENDER_CHECK_NONE,
	RENDER_CHECK_LBD,        /* lbd -c -f FILE */
	RENDER_CHECK_HAPROXY,    /* haproxy -c -f FILE */
	RENDER_CHECK_VIPD,       /* vipd -c -f FILE */
	RENDER_CHECK_KEEPALIVED, /* keepalived -t -f FILE, with no warning */
	RENDER_CHECK_FENCED,     /* fenced -c -f FILE [-C corosync.conf of the host] */
	RENDER_CHECK_CIB,        /* crm_verify -x FILE */
	RENDER_CHECK_YAML,       /* parses as YAML (kubeconfigs, static pods) */
};

struct render_file {
	char *host;    /* host name, or NULL for DIR/cluster/ */
	char *path;    /* absolute path as installed ("/etc/lbd/lbd.cfg"); for
			* cluster-wide files a relative name ("pcs-commands.sh") */
	unsigned mode; /* 0644, 0600, 0755 */
	enum render_check check;
	struct cpha_buf text;
};

/* A file the set would hold but does not: what makes it is not installed. */
struct render_skip {
	char *host; /* as in render_file */
	char *path;
	char *why; /* "cibadmin not found (install pacemaker-cli-utils to make it)" */
};

struct render_set {
	struct render_file *v;
	size_t n;
	/* Set before render_all(): a file made by running a tool (cib.xml: cibadmin,
	 * pcs) is left out and listed in skipped[] when the tool is not installed,
	 * instead of being an error (render --no-check; check, which compares the
	 * hosts' files only). */
	bool tools_optional;
	struct render_skip *skipped;
	size_t nskipped;
};

/* Add a file (host NULL for cluster-wide); returns its buffer to fill,
 * valid until the next render_add() (which may move every buffer). */
struct cpha_buf *render_add(struct render_set *s, const char *host, const char *path, unsigned mode,
	enum render_check check);

/* Record that host's file at path was not made, and why. */
void render_skip(struct render_set *s, const char *host, const char *path, const char *why);

/* The file of host at path, or NULL. */
struct render_file *render_find(struct render_set *s, const char *host, const char *path);

void render_set_free(struct render_set *s);

/* Where installed files live: shared by render and check. */
#define RENDER_PKI_K8S          "/etc/kubernetes/pki"
#define RENDER_PKI_ETCD         "/etc/etcd/pki"
/* etcd's files (the classic names), shared by the flags and the pcs script */
#define RENDER_ETCD_CA          RENDER_PKI_ETCD "/ca.pem"
#define RENDER_ETCD_SERVER_CERT RENDER_PKI_ETCD "/etcd-server.pem"
#define RENDER_ETCD_SERVER_KEY  RENDER_PKI_ETCD "/etcd-server-key.pem"
#define RENDER_ETCD_CLIENT_CERT RENDER_PKI_ETCD "/etcd-client.pem"
#define RENDER_ETCD_CLIENT_KEY  RENDER_PKI_ETCD "/etcd-client-key.pem"
#define RENDER_KCM_DIR          "/var/lib/kube-controller-manager"
#define RENDER_SCHED_DIR        "/var/lib/kube-scheduler"
#define RENDER_ADMIN_CONFIG     "/etc/kubernetes/admin.conf"

/* system:masters, the break-glass credentials */
#define RENDER_SUPER_ADMIN_CONFIG "/etc/kubernetes/super-admin.conf"
/* static pods: the kubelet of each master (kubeadm's paths) */
#define RENDER_KUBELET_CONFIG     "/var/lib/kubelet/config.yaml"
#define RENDER_KUBELET_KUBECONFIG "/etc/kubernetes/kubelet.conf"
/* where node-HOST.pem and its key are installed, as kubelet-client*.pem */
#define RENDER_KUBELET_PKI        "/var/lib/kubelet/pki"
/* cluster-wide: the RBAC bindings kubeadm makes at init, applied once with
 * super-admin.conf */
#define RENDER_BOOTSTRAP_RBAC     "bootstrap-rbac.yaml"

/* The modules: each adds its files for the whole cluster. They return 0,
 * or -1 after adding an error to d. */
int render_masters(const struct cp_cluster *c, struct render_set *s, struct cpha_msgs *d);
int render_lb(const struct cp_cluster *c, struct render_set *s, struct cpha_msgs *d);
int render_ha(const struct cp_cluster *c, struct render_set *s, struct cpha_msgs *d);
/* monitoring.prometheus (render_prom.c), after the others */
int render_prom(const struct cp_cluster *c, struct render_set *s, struct cpha_msgs *d);

/* Everything, in a stable order. */
int render_all(const struct cp_cluster *c, struct render_set *s, struct cpha_msgs *d);

/* Stage the files (of one host and the cluster-wide ones when host is
 * given) under dir, run each checker when check, and move them into place
 * only when every check passed. Prints what went wrong; returns 0 or -1. */
int render_write(const struct render_set *s, const char *dir, const char *host, bool check);

#endif
