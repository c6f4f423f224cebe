/* `cpha install`, the decisions (install_plan.h): what one host needs,
 * from the model and the rendered files. No I/O. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "install_plan.h"
#include "pki.h"
#include "render_ha.h"

#define K8S   RENDER_PKI_K8S "/"
#define ETCD  RENDER_PKI_ETCD "/"
#define KCM   RENDER_KCM_DIR "/pki/"
#define SCHED RENDER_SCHED_DIR "/pki/"

#define M INSTALL_ON_MASTER
#define E INSTALL_ON_ETCD

/* What render does not make. The PKI files are where the rendered units,
 * manifests and kubeconfigs read them. A master gets the CA key and the
 * front-proxy CA key as kubeadm gives them to every control-plane node
 * (its "manual certificate distribution":
 * https://kubernetes.io/docs/setup/production-environment/tools/kubeadm/high-availability/).
 * The front-proxy CA's key stays in the PKI directory: nothing on a host
 * signs with it. */
const struct install_row install_table[] = {
	{ INSTALL_SRC_NONE, NULL, NULL, 0700, INSTALL_DIR, E },
	{ INSTALL_SRC_NONE, NULL, "/var/log/cpha", 0755, INSTALL_DIR, INSTALL_ON_ALL },
	{ INSTALL_SRC_DESC, NULL, "/etc/cpha/cluster.yaml", 0644, 0, INSTALL_ON_ALL },
	{ INSTALL_SRC_PKI, "ca.pem", K8S "ca.pem", 0644, 0, M },
	{ INSTALL_SRC_PKI, "ca-key.pem", K8S "ca-key.pem", 0600, 0, M },
	{ INSTALL_SRC_PKI, "apiserver.pem", K8S "apiserver.pem", 0644, 0, M },
	{ INSTALL_SRC_PKI, "apiserver-key.pem", K8S "apiserver-key.pem", 0600, 0, M },
	{ INSTALL_SRC_PKI, "sa.key", K8S "sa.key", 0600, 0, M },
	{ INSTALL_SRC_PKI, "sa.pub", K8S "sa.pub", 0644, 0, M },
	{ INSTALL_SRC_PKI, "kubelet-client.pem", K8S "kubelet-client.pem", 0644, 0, M },
	{ INSTALL_SRC_PKI, "kubelet-client-key.pem", K8S "kubelet-client-key.pem", 0600, 0, M },
	{ INSTALL_SRC_PKI, "admin.pem", K8S "admin.pem", 0644, 0, M },
	{ INSTALL_SRC_PKI, "admin-key.pem", K8S "admin-key.pem", 0600, 0, M },
	/* the break-glass credential of /etc/kubernetes/super-admin.conf, root's
	 * only, as kubeadm keeps it on its control-plane node */
	{ INSTALL_SRC_PKI, "super-admin.pem", K8S "super-admin.pem", 0644, 0, M },
	{ INSTALL_SRC_PKI, "super-admin-key.pem", K8S "super-admin-key.pem", 0600, 0, M },
	{ INSTALL_SRC_PKI, "front-proxy-ca.pem", K8S "front-proxy-ca.pem", 0644, 0, M },
	{ INSTALL_SRC_PKI, "front-proxy-client.pem", K8S "front-proxy-client.pem", 0644, 0, M },
	{ INSTALL_SRC_PKI, "front-proxy-client-key.pem", K8S "front-proxy-client-key.pem", 0600, 0,
		M },
	{ INSTALL_SRC_PKI, "ca.pem", RENDER_ETCD_CA, 0644, 0, M | E },
	{ INSTALL_SRC_PKI, "etcd-server.pem", RENDER_ETCD_SERVER_CERT, 0644, 0, E },
	{ INSTALL_SRC_PKI, "etcd-server-key.pem", RENDER_ETCD_SERVER_KEY, 0600, 0, E },
	/* the apiservers' client certificate, and cpha etcd snapshot's */
	{ INSTALL_SRC_PKI, "etcd-client.pem", RENDER_ETCD_CLIENT_CERT, 0644, 0,
		M | INSTALL_ON_SNAPSHOT },
	{ INSTALL_SRC_PKI, "etcd-client-key.pem", RENDER_ETCD_CLIENT_KEY, 0600, 0,
		M | INSTALL_ON_SNAPSHOT },
	{ INSTALL_SRC_PKI, "controller-manager.pem", KCM "controller-manager.pem", 0644, 0, M },
	{ INSTALL_SRC_PKI, "controller-manager-key.pem", KCM "controller-manager-key.pem", 0600, 0,
		M },
	{ INSTALL_SRC_PKI, "scheduler.pem", SCHED "scheduler.pem", 0644, 0, M },
	{ INSTALL_SRC_PKI, "scheduler-key.pem", SCHED "scheduler-key.pem", 0600, 0, M },
	/* a static-pods master's own kubelet: its client certificate, made for
	 * that master only ("%s": the host's name) */
	{ INSTALL_SRC_PKI, PKI_NODE_PREFIX "%s.pem", RENDER_KUBELET_PKI "/kubelet-client.pem", 0644,
		0, INSTALL_ON_KUBELET },
	{ INSTALL_SRC_PKI, PKI_NODE_PREFIX "%s-key.pem", RENDER_KUBELET_PKI "/kubelet-client-key.pem",
		0600, 0, INSTALL_ON_KUBELET },
	/* monitoring.tls: lbd's, vipd's and fenced's serving certificate for
	 * /metrics and /status, where the description puts it */
	{ INSTALL_SRC_PKI, "metrics.pem", "/etc/cpha/metrics.pem", 0644, INSTALL_MON_CERT,
		INSTALL_ON_METRICS },
	{ INSTALL_SRC_PKI, "metrics-key.pem", "/etc/cpha/metrics-key.pem", 0600, INSTALL_MON_KEY,
		INSTALL_ON_METRICS },
	/* the cluster CA where no master's copy is, so that cpha status and
	 * cpha drain on an LB host verify the other hosts' /status */
	{ INSTALL_SRC_PKI, "ca.pem", RENDER_MON_CA, 0644, 0, INSTALL_ON_METRICS },
	/* corosync reads it on every node of its cluster: corosync.conf(5) */
	{ INSTALL_SRC_PKI, "corosync-authkey", "/etc/corosync/authkey", 0400, 0,
		INSTALL_ON_COROSYNC },
};
const size_t install_table_n = sizeof(install_table) / sizeof(install_table[0]);

#undef M
#undef E

int install_render(const struct cp_cluster *c, struct render_set *s, struct cpha_msgs *d)
{
	struct pcs_cmds p = { 0 };
	int rc = 0;

	if (render_masters(c, s, d) < 0)
		rc = -1;
	if (render_lb(c, s, d) < 0)
		rc = -1;
	if (render_ha_files(c, s, d) < 0)
		rc = -1;
	if (render_etcd_snapshot(c, s, d) < 0)
		rc = -1;
	/* the textfile timers of monitoring.prometheus */
	if (render_prom(c, s, d) < 0)
		rc = -1;
	if (c->manager == CP_MGR_PACEMAKER) {
		if (render_pcs_commands(c, &p, d) < 0)
			rc = -1;
		else
			render_pcs_script(c, &p,
				render_add(s, NULL, RENDER_PCS_SCRIPT, 0755, RENDER_CHECK_NONE));
		render_pcs_free(&p);
	}
	return rc;
}

bool install_holds_key(const char *text, size_t len)
{
	static const char *const marks[] = {
		"PRIVATE KEY-----", /* BEGIN PRIVATE KEY, BEGIN EC PRIVATE KEY, ... (RFC 7468) */
		"client-key-data:", /* a kubeconfig's embedded client key */
	};

	if (!text)
		return false;
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (memmem(text, len, marks[i], strlen(marks[i])))
			return true;
	return false;
}

/* The mask of INSTALL_ON_* host h has, given its rendered files. */
static unsigned host_on(
	const struct cp_cluster *c, const struct cp_host *h, const struct render_set *s)
{
	unsigned on = INSTALL_ON_ALL;

	if (h->roles & CP_ROLE_MASTER)
		on |= INSTALL_ON_MASTER;
	if (h->roles & CP_ROLE_ETCD)
		on |= INSTALL_ON_ETCD;
	/* render is the truth on who runs corosync */
	if (render_find((struct render_set *)s, h->name, RENDER_COROSYNC_CONF))
		on |= INSTALL_ON_COROSYNC;
	if (render_find((struct render_set *)s, h->name, RENDER_KUBELET_CONFIG))
		on |= INSTALL_ON_KUBELET;
	if (render_find((struct render_set *)s, h->name, RENDER_SNAPSHOT_UNIT ".service"))
		on |= INSTALL_ON_SNAPSHOT;
	if (c->mon.cert_file && (h->roles & (CP_ROLE_MASTER | CP_ROLE_LB)))
		on |= INSTALL_ON_METRICS;
	return on;
}

static int plan_action(struct install_plan *p, enum install_src src, const char *source,
	const char *dest, unsigned mode, unsigned flags)
{
	struct install_action *v = realloc(p->v, (p->n + 1) * sizeof(*v)), *a;

	if (!v)
		return -ENOMEM;
	p->v = v;
	a = &p->v[p->n];
	memset(a, 0, sizeof(*a));
	a->src = src;
	a->source = source ? strdup(source) : NULL;
	a->dest = strdup(dest);
	a->mode = mode;
	a->flags = flags;
	if ((source && !a->source) || !a->dest) {
		free(a->source);
		free(a->dest);
		return -ENOMEM;
	}
	p->n++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_secret(struct install_plan *p, const char *path)
{
	char **v;

	for (size_t i = 0; i < p->nsecrets; i++)
		if (!strcmp(p->secrets[i], path))
			return 0;
	v = realloc(p->secrets, (p->nsecrets + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->secrets = v;
	p->secrets[p->nsecrets] = strdup(path);
	if (!p->secrets[p->nsecrets])
		return -ENOMEM;
	p->nsecrets++;
	return 0;
}

/* True when text holds path as a whole word (not a prefix of a longer
 * path: /etc/cpha/secrets/ipmi-m1 in .../ipmi-m10). */
static bool mentions(const struct cpha_buf *t, const char *path)
{
	size_t n = strlen(path);
	const char *at = t->data, *end = t->data + t->len;

	while (at && at < end) {
		const char *hit = memmem(at, (size_t)(end - at), path, n);
		if (!hit)
			return false;
		if (hit + n == end || !strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
					      "0123456789._-/",
					      hit[n]))
			return true;
		at = hit + 1;
	}
	return false;
}

/* The secret files (fence device parameters KEY_file) that the texts the
 * host reads name. The pcs script counts on a Pacemaker node: the fencer
 * of any node may run any device. */
static int find_secrets(const struct cp_cluster *c, const struct cp_host *h,
	const struct render_set *s, struct install_plan *p)
{
	bool pcmk = ha_tier_fence_via_pacemaker(c, ha_tier_of(c, h));

	for (size_t i = 0; i < c->ndevices; i++) {
		const struct cp_fence_device *dev = &c->devices[i];
		for (size_t k = 0; k < dev->nparams; k++) {
			const struct cp_param *pr = &dev->params[k];
			size_t kl = strlen(pr->key);
			bool used = false;

			if (kl < 5 || strcmp(pr->key + kl - 5, "_file") || pr->value[0] != '/')
				continue;
			for (size_t f = 0; f < s->n && !used; f++) {
				const struct render_file *rf = &s->v[f];
				if (rf->host ? strcmp(rf->host, h->name)
					     : !(pcmk && !strcmp(rf->path, RENDER_PCS_SCRIPT)))
					continue;
				used = mentions(&rf->text, pr->value);
			}
			if (used && add_secret(p, pr->value) < 0)
				return -ENOMEM;
		}
	}
	if (p->nsecrets > 1) /* no array at all when there is none */
		qsort(p->secrets, p->nsecrets, sizeof(*p->secrets), cmp_str);
	return 0;
}

const char *install_source_name(
	const struct install_row *r, const char *host, char *buf, size_t len)
{
	const char *at = r->source ? strstr(r->source, "%s") : NULL;
	int n;

	if (!at)
		return r->source;
	n = snprintf(buf, len, "%.*s%s%s", (int)(at - r->source), r->source, host, at + 2);
	return n < 0 || (size_t)n >= len ? NULL : buf;
}

static int add_row(const struct cp_cluster *c, const struct cp_host *h,
	const struct install_row *r, struct install_plan *p)
{
	char name[256];
	const char *source = install_source_name(r, h->name, name, sizeof(name));

	if (r->source && !source)
		return -ENAMETOOLONG;
	const char *dest = r->dest ? r->dest : c->etcd_data_dir;

	if ((r->flags & INSTALL_MON_CERT) && c->mon.cert_file)
		dest = c->mon.cert_file;
	if ((r->flags & INSTALL_MON_KEY) && c->mon.key_file)
		dest = c->mon.key_file;
	return plan_action(
		p, r->src, source, dest, r->mode, r->flags & ~(INSTALL_MON_CERT | INSTALL_MON_KEY));
}

int install_plan_build(const struct cp_cluster *c, const struct cp_host *h,
	const struct render_set *s, struct install_plan *p)
{
	unsigned on = host_on(c, h, s);
	int r = -ENOMEM;

	memset(p, 0, sizeof(*p));
	p->host = strdup(h->name);
	if (!p->host)
		goto fail;
	/* directories and the description first: nothing else is in them */
	for (size_t i = 0; i < install_table_n; i++)
		if (install_table[i].src != INSTALL_SRC_PKI && (install_table[i].on & on) &&
			add_row(c, h, &install_table[i], p) < 0)
			goto fail;
	for (size_t i = 0; i < s->n; i++) {
		const struct render_file *f = &s->v[i];
		unsigned mode = f->mode;
		bool key;

		if (!f->host || strcmp(f->host, h->name) || f->path[0] != '/')
			continue;
		key = install_holds_key(f->text.data, f->text.len);
		if (key)
			mode &= 0700; /* owner only: root reads it */
		if (plan_action(p, INSTALL_SRC_RENDER, f->path + 1, f->path, mode, 0) < 0)
			goto fail;
		p->v[p->n - 1].private_key = key;
	}
	for (size_t i = 0; i < install_table_n; i++)
		if (install_table[i].src == INSTALL_SRC_PKI && (install_table[i].on & on) &&
			add_row(c, h, &install_table[i], p) < 0)
			goto fail;
	r = find_secrets(c, h, s, p);
	if (r < 0)
		goto fail;
	return 0;
fail:
	install_plan_free(p);
	return r;
}

void install_plan_free(struct install_plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].source);
		free(p->v[i].dest);
		free(p->v[i].owner);
	}
	for (size_t i = 0; i < p->nsecrets; i++)
		free(p->secrets[i]);
	free(p->secrets);
	free(p->v);
	free(p->host);
	memset(p, 0, sizeof(*p));
}

const struct install_action *install_plan_find(const struct install_plan *p, const char *dest)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].dest, dest))
			return &p->v[i];
	return NULL;
}

static const char *on_text(unsigned on)
{
	if (on & INSTALL_ON_ALL)
		return "every host";
	if (on == (INSTALL_ON_MASTER | INSTALL_ON_ETCD))
		return "masters, etcd members";
	if (on == (INSTALL_ON_MASTER | INSTALL_ON_SNAPSHOT))
		return "masters (and etcd members, with `etcd.snapshot`)";
	if (on == INSTALL_ON_MASTER)
		return "masters";
	if (on == INSTALL_ON_ETCD)
		return "etcd members";
	if (on == INSTALL_ON_COROSYNC)
		return "corosync members (masters; LB hosts)";
	if (on == INSTALL_ON_KUBELET)
		return "that master only, with static pods";
	if (on == INSTALL_ON_METRICS)
		return "masters and LB hosts, with `monitoring.tls`";
	return "?";
}

void install_table_markdown(struct cpha_buf *b)
{
	cpha_buf_puts(b, "| from | to | mode | on |\n|---|---|---|---|\n");
	for (size_t i = 0; i < install_table_n; i++) {
		const struct install_row *r = &install_table[i];
		char from[128];

		switch (r->src) {
		case INSTALL_SRC_PKI:
			if (strstr(r->source, "%s")) {
				/* "node-%s.pem": shown as node-HOST.pem */
				int at = (int)(strstr(r->source, "%s") - r->source);
				snprintf(from, sizeof(from), "`PKIDIR/%.*sHOST%s`", at, r->source,
					r->source + at + 2);
			} else {
				snprintf(from, sizeof(from), "`PKIDIR/%s`", r->source);
			}
			break;
		case INSTALL_SRC_DESC:
			snprintf(from, sizeof(from), "the description (`-f`)");
			break;
		default:
			snprintf(from, sizeof(from), "(directory)");
			break;
		}
		cpha_buf_printf(b, "| %s | `%s`%s | %04o | %s%s |\n", from,
			r->dest ? r->dest : "/var/lib/etcd",
			!r->dest                        ? " (`etcd.data_dir`)"
			: r->flags & INSTALL_MON_CERT ? " (`monitoring.tls.cert_file`)"
			: r->flags & INSTALL_MON_KEY  ? " (`monitoring.tls.key_file`)"
						      : "",
			r->mode, on_text(r->on),
			r->flags & INSTALL_OPTIONAL ? " (skipped with a warning when absent)" : "");
	}
}
