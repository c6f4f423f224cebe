/* The command-line flags of the control-plane processes of one host, made
 * from the model as lists, so that every writer puts the same flags where
 * it needs them: systemd units and static pods (render_master.c), the
 * environment files the kube OCF agents read, a pcs script whose etcd agent
 * takes most of etcd's flags as its own parameters.
 *
 * The flags are made for the Kubernetes minor version of the model, from a
 * table of the minors cpha knows (k8s_versions.def: end of life, a published
 * patch, the flags that differ between them), and for the etcd release
 * line of the model (3.4, 3.5 or 3.6). Flags that current Kubernetes
 * removed are not made at all (docs/render.md lists them and what replaced
 * them). Pure: no I/O. */
#ifndef CPHA_FLAGS_H
#define CPHA_FLAGS_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "cluster.h"

/* The processes of the control plane. */
enum flags_role {
	FLAGS_ETCD,
	FLAGS_APISERVER,
	FLAGS_CONTROLLER_MANAGER,
	FLAGS_SCHEDULER,
};

/* What a flag is besides its text (cp_flag.attrs). */
#define FLAG_HOST (1u << 0) /* its value differs from host to host */
#define FLAG_AGENT                                                                                 \
	(1u << 1) /* ocf:cpha:etcd makes it itself (from param when set, else from                 \
		   * node_map and the node name): not for the agent's args */

struct cp_flag {
	char *name;        /* without the dashes: "etcd-servers" */
	char *value;       /* never NULL */
	const char *param; /* the ocf:cpha:etcd parameter that carries it, or NULL */
	unsigned attrs;    /* FLAG_* */
};

struct cp_flags {
	struct cp_flag *v;
	size_t n;
};

/* The flags of role on host h (an etcd member for FLAGS_ETCD, a master for
 * the others), in a fixed order; etcd's for the release line
 * c->etcd_minor. Every value is checked to be one word
 * that a systemd ExecStart= line, an EnvironmentFile= and YAML carry
 * unchanged without quoting (no blank, quote, backslash, '$', '%', '`',
 * ';' or control character): otherwise an error naming the flag is added
 * to d. Returns 0, -EINVAL (d says why) or -ENOMEM; *out is empty on
 * error. */
int flags_build(const struct cp_cluster *c, const struct cp_host *h, enum flags_role role,
	struct cp_flags *out, struct cpha_msgs *d);

void flags_free(struct cp_flags *l);

/* The flag called name, or NULL. */
const struct cp_flag *flags_find(const struct cp_flags *l, const char *name);

/* Append "--name=value". Returns 0 or -ENOMEM. */
int flags_format(const struct cp_flag *f, struct cpha_buf *b);

/* True when s is one word that an ExecStart= line, an EnvironmentFile=
 * value and a YAML plain or quoted scalar all carry unchanged without
 * escaping (the rule flags_build() holds every value to). */
bool flags_plain_word(const char *s);

/* The program of a role: "etcd", "kube-apiserver", ... */
const char *flags_program(enum flags_role role);

/* The release cpha runs for the model's version (static-pod images):
 * "v1.36.4" into buf: the patch the description names, else the table's
 * patch of the minor. Returns buf. */
char *flags_k8s_release(const struct cp_cluster *c, char *buf, size_t len);

/* ---- the Kubernetes versions cpha knows (k8s_versions.def) ---- */

/* One Kubernetes minor version. */
struct flags_k8s_minor {
	unsigned minor;  /* 1.<minor> */
	const char *eol; /* upstream end of life, "YYYY-MM-DD" */
	unsigned patch;  /* a published patch release: images when none is named */
};

/* A flag of kube-apiserver, kube-controller-manager or kube-scheduler that
 * cpha renders, or that differs between the minors of the table. */
struct flags_k8s_flag {
	enum flags_role role;
	const char *name;
	const char *kind;      /* how its value parses: "str", "bool", "int", "duration" */
	unsigned since, until; /* in 1.<since> (0: every minor) up to before 1.<until> (0: still) */
};

/* The minors, oldest first; *n is their count. */
const struct flags_k8s_minor *flags_k8s_minors(size_t *n);

/* The row of 1.<minor>, or NULL when the table does not know it. */
const struct flags_k8s_minor *flags_k8s_minor(unsigned minor);

/* The minor a description that names none gets. */
unsigned flags_k8s_default_minor(void);

/* Parse "1.Y", "1.Y.Z" or "v1.Y.Z" (what kubectl version and image tags
 * say). Returns 0 with *minor, *patch (0 when not written) and *has_patch
 * set, or -EINVAL. Does not look at the table. */
int flags_k8s_parse(const char *s, unsigned *minor, unsigned *patch, bool *has_patch);

/* "1.33, 1.34, ..." into buf, the minors the table knows. Returns buf. */
char *flags_k8s_known(char *buf, size_t len);

/* The flag rows; *n is their count. */
const struct flags_k8s_flag *flags_k8s_flags(size_t *n);

/* True when program role of 1.<minor> has --name by the table (a flag the
 * table has no row for: false). */
bool flags_k8s_has(enum flags_role role, unsigned minor, const char *name);

/* True when 1.<m->minor> is past its upstream end of life on today
 * ("YYYY-MM-DD"): the end-of-life day itself is still supported. */
bool flags_k8s_past_eol(const struct flags_k8s_minor *m, const char *today);

/* ---- etcd release lines (etcd.version) ---- */

#define FLAGS_ETCD_MINOR_MIN     4 /* 3.4: Debian 12's etcd-server (3.4.23) */
#define FLAGS_ETCD_MINOR_MAX     6 /* 3.6 */
#define FLAGS_ETCD_MINOR_DEFAULT 4

/* The static-pod image of etcd 3.<minor> when kubernetes.etcd_image does
 * not name one. */
const char *flags_etcd_image(unsigned minor);

/* "https://HOST:PORT", HOST in brackets when it is an IPv6 address.
 * Returns 0 or -ENOMEM. */
int flags_url(struct cpha_buf *b, const char *scheme, const char *host, unsigned port);

/* The ports the control plane listens on besides the apiserver's
 * (c->api_port). */
#define FLAGS_ETCD_CLIENT_PORT  2379
#define FLAGS_ETCD_PEER_PORT    2380
#define FLAGS_ETCD_METRICS_PORT 2381  /* plain HTTP on 127.0.0.1: /health and /metrics */
#define FLAGS_KCM_PORT          10257 /* kube-controller-manager's secure port (default) */
#define FLAGS_SCHED_PORT        10259 /* kube-scheduler's secure port (default) */

#endif
