/* `cpha install`, the decisions: which files and directories one host
 * needs, where they go, with which mode, from the cluster model and the
 * files `cpha render` makes for the host. No I/O: install.c checks the
 * sources and the destinations and acts.
 *
 * The rules:
 * - every file render makes for the host goes to the same path, with its
 *   rendered mode; a file that holds a private key is never readable by
 *   group or others, whatever its rendered mode;
 * - the PKI files go where the host's roles read them (install_table[]:
 *   masters, etcd members, corosync members), keys 0600, certificates
 *   0644, the corosync authkey 0400;
 * - the description goes to /etc/cpha/cluster.yaml on every host;
 * - directories: the etcd data directory 0700 on etcd members,
 *   /var/log/cpha (the OCF agents' logs) on every host;
 * - secrets (BMC passwords, SNMP communities) are never installed: the
 *   plan lists the ones under /etc/cpha/secrets/ that the host's
 *   configuration reads, so that the operator is told which to write. */
#ifndef CPHA_INSTALL_PLAN_H
#define CPHA_INSTALL_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "cluster.h"
#include "render.h"

/* Where an action's source is. */
enum install_src {
	INSTALL_SRC_NONE,   /* a directory: nothing to copy */
	INSTALL_SRC_RENDER, /* relative to OUT/<host>/ (render --out OUT) */
	INSTALL_SRC_PKI,    /* relative to the PKI directory (pki --dir DIR) */
	INSTALL_SRC_DESC,   /* the description given with -f */
};

/* Flags of an action (install_action.flags). */
#define INSTALL_OPTIONAL (1u << 0) /* a missing source is skipped with a warning */
#define INSTALL_DIR      (1u << 1) /* a directory, not a file */
#define INSTALL_MON_CERT (1u << 2) /* dest: monitoring.tls's cert_file (default in dest) */
#define INSTALL_MON_KEY  (1u << 3) /* dest: monitoring.tls's key_file (default in dest) */

/* Hosts a row of install_table[] is for (install_row.on). */
#define INSTALL_ON_MASTER   (1u << 0) /* masters */
#define INSTALL_ON_ETCD     (1u << 1) /* etcd members */
#define INSTALL_ON_COROSYNC (1u << 2) /* hosts render gives a corosync.conf */
#define INSTALL_ON_ALL      (1u << 3) /* every host */
#define INSTALL_ON_KUBELET  (1u << 4) /* hosts render gives a kubelet configuration */
#define INSTALL_ON_METRICS  (1u << 5) /* masters and LB hosts, with monitoring.tls */
#define INSTALL_ON_SNAPSHOT (1u << 6) /* hosts render gives the etcd snapshot timer */

/* One row of the table of what render does not make. */
struct install_row {
	enum install_src src;
	const char *source; /* a name in the PKI directory; NULL for the others */
	const char *dest;   /* absolute; NULL: the etcd data directory (etcd.data_dir) */
	unsigned mode;
	unsigned flags; /* INSTALL_OPTIONAL, INSTALL_DIR */
	unsigned on;    /* INSTALL_ON_*: the host needs it when it has any of these */
};

/* The table, in the order the actions are made; install_table_n rows. */
extern const struct install_row install_table[];
extern const size_t install_table_n;

struct install_action {
	enum install_src src;
	char *source; /* relative to OUT/<host>/ or the PKI directory; NULL otherwise */
	char *dest;   /* absolute path on the host */
	unsigned mode;
	char *owner; /* a user name to chown to (its group too), or NULL: as created */
	unsigned flags;
	bool private_key; /* rendered: the text holds a private key (mode made private) */
};

struct install_plan {
	char *host;
	struct install_action *v;
	size_t n;
	/* /etc/cpha/secrets/... paths the host's configuration reads, sorted,
	 * once each */
	char **secrets;
	size_t nsecrets;
};

/* The files render makes with no I/O (no pcs, no checker): every host's
 * own files (the masters', the load balancers', corosync.conf and
 * fenced.conf) and, under manager: pacemaker, the cluster-wide pcs script,
 * whose fence devices read secrets on every master. Returns 0, or -1 after
 * adding an error to d. */
int install_render(const struct cp_cluster *c, struct render_set *s, struct cpha_msgs *d);

/* The actions for host h from the rendered files s (install_render(),
 * or a test's own), in order: directories, the description, rendered
 * files, the PKI table's rows. Returns 0, or -ENOMEM. */
int install_plan_build(const struct cp_cluster *c, const struct cp_host *h,
	const struct render_set *s, struct install_plan *p);

void install_plan_free(struct install_plan *p);

/* The action that puts dest, or NULL. */
const struct install_action *install_plan_find(const struct install_plan *p, const char *dest);

/* True when text holds a private key: a PEM private key block or a
 * kubeconfig's client-key-data. */
bool install_holds_key(const char *text, size_t len);

/* install_table[] as a Markdown table (docs/runbook.md shows it; a unit
 * test keeps the two the same). */
void install_table_markdown(struct cpha_buf *b);

/* The PKI directory's name of r's source for host: "node-%s.pem" is the
 * host's own file, node-HOST.pem; any other source is itself. Returns buf
 * or r->source, or NULL when the name does not fit in len. */
const char *install_source_name(
	const struct install_row *r, const char *host, char *buf, size_t len);

#endif
