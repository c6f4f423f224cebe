/* The flags of etcd, kube-apiserver, kube-controller-manager and
 * kube-scheduler on one host: one table row per flag, in the order they
 * are written, each for the etcd release lines that have it; and the
 * Kubernetes versions cpha knows (k8s_versions.def). See flags.h and
 * docs/render.md for what was dropped and why. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flags.h"
#include "render.h"

/* A flag's value, made from the model; may add to *attrs. Returns 0 or
 * -ENOMEM. */
typedef int (*value_fn)(
	const struct cp_cluster *c, const struct cp_host *h, struct cpha_buf *b, unsigned *attrs);

struct row {
	enum flags_role role;
	const char *name;
	const char *text; /* a fixed value, or NULL: fn makes it */
	value_fn fn;
	const char *param; /* ocf:cpha:etcd's parameter for it */
	unsigned attrs;
};

/* etcd's flags that not every release line has: in 3.<since> up to before
 * 3.<until> (0: no bound). The others are in 3.4, 3.5 and 3.6. */
static const struct {
	const char *name;
	unsigned since, until;
} etcd_lines[] = {
	{ "logger", 0, 5 },
	{ "experimental-initial-corrupt-check", 0, 6 },
	{ "experimental-watch-progress-notify-interval", 0, 6 },
	{ "feature-gates", 6, 0 },
	{ "watch-progress-notify-interval", 6, 0 },
};

static bool etcd_has(const char *name, unsigned minor)
{
	for (size_t i = 0; i < sizeof(etcd_lines) / sizeof(etcd_lines[0]); i++)
		if (!strcmp(etcd_lines[i].name, name))
			return (!etcd_lines[i].since || minor >= etcd_lines[i].since) &&
			       (!etcd_lines[i].until || minor < etcd_lines[i].until);
	return true;
}

int flags_url(struct cpha_buf *b, const char *scheme, const char *host, unsigned port)
{
	bool v6 = strchr(host, ':') != NULL;

	return cpha_buf_printf(
		b, "%s://%s%s%s:%u", scheme, v6 ? "[" : "", host, v6 ? "]" : "", port);
}

/* Comma-separated list of a NULL-terminated vector. */
static int join(struct cpha_buf *b, char *const *v)
{
	int r = 0;

	for (size_t i = 0; v && v[i] && !r; i++)
		r = cpha_buf_printf(b, "%s%s", i ? "," : "", v[i]);
	return r;
}

/* ---- etcd ---- */

static int v_name(
	const struct cp_cluster *c, const struct cp_host *h, struct cpha_buf *b, unsigned *attrs)
{
	(void)c;
	(void)attrs;
	return cpha_buf_puts(b, h->name);
}

static int v_data_dir(
	const struct cp_cluster *c, const struct cp_host *h, struct cpha_buf *b, unsigned *attrs)
{
	(void)h;
	(void)attrs;
	return cpha_buf_puts(b, c->etcd_data_dir);
}

static int v_listen_client(
	const struct cp_cluster *c, const struct cp_host *h, struct cpha_buf *b, unsigned *attrs)
{
	int r = flags_url(b, "https", h->address, FLAGS_ETCD_CLIENT_PORT);

	(void)c;
	(void)attrs;
	/* local clients (etcdctl on the host, a static-pod apiserver) need not
	 * know the member's address */
	return r ? r : cpha_buf_printf(b, ",https://127.0.0.1:%u", FLAGS_ETCD_CLIENT_PORT);
}

static int v_client_url(
	const struct cp_cluster *c, const struct cp_host *h, struct cpha_buf *b, unsigned *attrs)
{
	(void)c;
	(void)attrs;
	return flags_url(b, "https", h->address, FLAGS_ETCD_CLIENT_PORT);
}

static int v_peer_url(
	const struct cp_cluster *c, const struct cp_host *h, struct cpha_buf *b, unsigned *attrs)
{
	(void)c;
	(void)attrs;
	return flags_url(b, "https", h->address, FLAGS_ETCD_PEER_PORT);
}

static int v_token(
	const struct cp_cluster *c, const struct cp_host *h, struct cpha_buf *b, unsigned *attrs)
{
	(void)h;
	(void)attrs;
	return cpha_buf_puts(b, c->etcd_token);
}

/* Every member, in the order of etcd.hosts. */
static int v_initial_cluster(
	const struct cp_cluster *c, const struct cp_host *h, struct cpha_buf *b, unsigned *attrs)
{
	int r = 0;

	(void)h;
	(void)attrs;
	for (size_t i = 0; i < c->netcd && !r; i++) {
		const struct cp_host *m = &c->hosts[c->etcd[i]];
		r = cpha_buf_printf(b, "%s%s=", i ? "," : "", m->name);
		r = r ? r : flags_url(b, "https", m->address, FLAGS_ETCD_PEER_PORT);
	}
	return r;
}

static int v_metrics_url(
	const struct cp_cluster *c, const struct cp_host *h, struct cpha_buf *b, unsigned *attrs)
{
	char a[CPHA_ADDR_STRLEN];
	int r;

	(void)attrs;
	r = cpha_buf_printf(b, "http://127.0.0.1:%u", FLAGS_ETCD_METRICS_PORT);
	if (r || !c->mon.prom.on)
		return r;
	/* for a Prometheus on another host: where the daemons' /metrics
	 * listen; HTTPS with monitoring.tls (etcd then asks for a client
	 * certificate of its CA, as on its client port) */
	if (c->mon.listen == CP_MON_ADDRESS)
		cpha_addr_format(&c->mon.addr, a, sizeof(a));
	else
		snprintf(a, sizeof(a), "%s", h->address);
	r = cpha_buf_puts(b, ",");
	return r ? r
		 : flags_url(b, c->mon.cert_file ? "https" : "http", a, FLAGS_ETCD_METRICS_PORT);
}

/* ---- kube-apiserver ---- */

static int v_admission(
	const struct cp_cluster *c, const struct cp_host *h, struct cpha_buf *b, unsigned *attrs)
{
	(void)h;
	(void)attrs;
	return join(b, c->admission);
}

static int v_etcd_servers(
	const struct cp_cluster *c, const struct cp_host *h, struct cpha_buf *b, unsigned *attrs)
{
	int r = 0;

	(void)h;
	(void)attrs;
	for (size_t i = 0; i < c->netcd && !r; i++) {
		r = i ? cpha_buf_puts(b, ",") : 0;
		r = r ? r
		      : flags_url(b, "https", c->hosts[c->etcd[i]].address, FLAGS_ETCD_CLIENT_PORT);
	}
	return r;
}

static int v_address(
	const struct cp_cluster *c, const struct cp_host *h, struct cpha_buf *b, unsigned *attrs)
{
	(void)c;
	(void)attrs;
	return cpha_buf_puts(b, h->address);
}

/* With the load balancer on the masters, it binds VIP:api_port there:
 * the apiserver takes only its own address with the same port. */
static int v_apiserver_bind(
	const struct cp_cluster *c, const struct cp_host *h, struct cpha_buf *b, unsigned *attrs)
{
	if (!c->lb_on_masters)
		return cpha_buf_puts(b, "0.0.0.0");
	*attrs |= FLAG_HOST;
	return cpha_buf_puts(b, h->address);
}

static int v_api_port(
	const struct cp_cluster *c, const struct cp_host *h, struct cpha_buf *b, unsigned *attrs)
{
	(void)h;
	(void)attrs;
	return cpha_buf_printf(b, "%u", c->api_port);
}

static int v_service_cidr(
	const struct cp_cluster *c, const struct cp_host *h, struct cpha_buf *b, unsigned *attrs)
{
	(void)h;
	(void)attrs;
	return cpha_buf_puts(b, c->service_cidr);
}

static int v_node_port_range(
	const struct cp_cluster *c, const struct cp_host *h, struct cpha_buf *b, unsigned *attrs)
{
	(void)h;
	(void)attrs;
	return cpha_buf_puts(b, c->node_port_range);
}

/* The issuer of service-account tokens, also their audience: the in-cluster
 * name of the API (what kubeadm uses). */
static int v_issuer(
	const struct cp_cluster *c, const struct cp_host *h, struct cpha_buf *b, unsigned *attrs)
{
	(void)h;
	(void)attrs;
	return cpha_buf_printf(b, "https://kubernetes.default.svc.%s", c->domain);
}

static int v_authorization(
	const struct cp_cluster *c, const struct cp_host *h, struct cpha_buf *b, unsigned *attrs)
{
	(void)h;
	(void)attrs;
	return join(b, c->authorization);
}

/* ---- kube-controller-manager, kube-scheduler ---- */

static int v_cluster_cidr(
	const struct cp_cluster *c, const struct cp_host *h, struct cpha_buf *b, unsigned *attrs)
{
	(void)h;
	(void)attrs;
	return cpha_buf_puts(b, c->cluster_cidr);
}

static int v_cluster_name(
	const struct cp_cluster *c, const struct cp_host *h, struct cpha_buf *b, unsigned *attrs)
{
	(void)h;
	(void)attrs;
	return cpha_buf_puts(b, c->name);
}

static int v_leader_elect(
	const struct cp_cluster *c, const struct cp_host *h, struct cpha_buf *b, unsigned *attrs)
{
	(void)h;
	(void)attrs;
	return cpha_buf_puts(b, c->leader_elect ? "true" : "false");
}

#define KCM_KUBECONFIG   RENDER_KCM_DIR "/kubeconfig"
#define SCHED_KUBECONFIG RENDER_SCHED_DIR "/kubeconfig"

static const struct row rows[] = {
	/* etcd: the classic hand-written unit; --debug=false gave way to --log-level (etcd
	 * 3.4's help: "--debug ... Will be deprecated in v3.5") and zap, the
	 * one logger both 3.4 and 3.5 take (3.5 deprecated capnslog). */
	{ FLAGS_ETCD, "name", NULL, v_name, NULL, FLAG_HOST | FLAG_AGENT },
	{ FLAGS_ETCD, "data-dir", NULL, v_data_dir, "data_dir", FLAG_AGENT },
	{ FLAGS_ETCD, "trusted-ca-file", RENDER_ETCD_CA, NULL, "trusted_ca_file", FLAG_AGENT },
	{ FLAGS_ETCD, "cert-file", RENDER_ETCD_SERVER_CERT, NULL, "cert_file", FLAG_AGENT },
	{ FLAGS_ETCD, "key-file", RENDER_ETCD_SERVER_KEY, NULL, "key_file", FLAG_AGENT },
	{ FLAGS_ETCD, "client-cert-auth", "true", NULL, "client_cert_auth", FLAG_AGENT },
	{ FLAGS_ETCD, "listen-client-urls", NULL, v_listen_client, NULL, FLAG_HOST | FLAG_AGENT },
	{ FLAGS_ETCD, "advertise-client-urls", NULL, v_client_url, NULL, FLAG_HOST | FLAG_AGENT },
	{ FLAGS_ETCD, "peer-client-cert-auth", "true", NULL, "peer_client_cert_auth", FLAG_AGENT },
	{ FLAGS_ETCD, "peer-trusted-ca-file", RENDER_ETCD_CA, NULL, "peer_trusted_ca_file",
		FLAG_AGENT },
	{ FLAGS_ETCD, "peer-cert-file", RENDER_ETCD_SERVER_CERT, NULL, "peer_cert_file",
		FLAG_AGENT },
	{ FLAGS_ETCD, "peer-key-file", RENDER_ETCD_SERVER_KEY, NULL, "peer_key_file", FLAG_AGENT },
	{ FLAGS_ETCD, "initial-advertise-peer-urls", NULL, v_peer_url, NULL,
		FLAG_HOST | FLAG_AGENT },
	{ FLAGS_ETCD, "listen-peer-urls", NULL, v_peer_url, NULL, FLAG_HOST | FLAG_AGENT },
	{ FLAGS_ETCD, "initial-cluster-token", NULL, v_token, "token", FLAG_AGENT },
	{ FLAGS_ETCD, "initial-cluster", NULL, v_initial_cluster, NULL, FLAG_AGENT },
	{ FLAGS_ETCD, "initial-cluster-state", "new", NULL, NULL, FLAG_AGENT },
	/* Debian 12's etcd 3.4 has pre-vote off: a member coming back from a
	 * restart deposed a healthy leader (docs/pacemaker.md); 3.5 and 3.6
	 * have it on by default and still take the flag */
	{ FLAGS_ETCD, "pre-vote", "true", NULL, NULL, FLAG_AGENT },
	/* plain HTTP /health for probes (client URLs want a certificate) */
	{ FLAGS_ETCD, "listen-metrics-urls", NULL, v_metrics_url, NULL, 0 },
	/* 3.4's default logger is capnslog, deprecated; zap is 3.5's default
	 * and 3.6's only one */
	{ FLAGS_ETCD, "logger", "zap", NULL, NULL, 0 },
	{ FLAGS_ETCD, "log-level", "info", NULL, NULL, 0 },
	/* what kubeadm gives etcd: check the data against the peers' before
	 * serving, and tell watchers of progress every 5 s (the apiserver's
	 * watch bookmarks); 3.6 renamed both (kubernetes/kubernetes#132838:
	 * the experimental names are deprecated in 3.6, gone in 3.7) */
	{ FLAGS_ETCD, "experimental-initial-corrupt-check", "true", NULL, NULL, 0 },
	{ FLAGS_ETCD, "experimental-watch-progress-notify-interval", "5s", NULL, NULL, 0 },
	{ FLAGS_ETCD, "feature-gates", "InitialCorruptCheck=true", NULL, NULL, 0 },
	{ FLAGS_ETCD, "watch-progress-notify-interval", "5s", NULL, NULL, 0 },

	/* kube-apiserver, in the classic unit's order; --admission-control became
	 * --enable-admission-plugins; --insecure-bind-address, --insecure-port
	 * and --enable-swagger-ui are gone */
	{ FLAGS_APISERVER, "enable-admission-plugins", NULL, v_admission, NULL, 0 },
	{ FLAGS_APISERVER, "etcd-servers", NULL, v_etcd_servers, NULL, 0 },
	{ FLAGS_APISERVER, "etcd-cafile", RENDER_ETCD_CA, NULL, NULL, 0 },
	{ FLAGS_APISERVER, "etcd-certfile", RENDER_ETCD_CLIENT_CERT, NULL, NULL, 0 },
	{ FLAGS_APISERVER, "etcd-keyfile", RENDER_ETCD_CLIENT_KEY, NULL, NULL, 0 },
	/* the classic unit's 0.0.0.0 would be published as the endpoint of the
	 * "kubernetes" service */
	{ FLAGS_APISERVER, "advertise-address", NULL, v_address, NULL, FLAG_HOST },
	{ FLAGS_APISERVER, "allow-privileged", "true", NULL, NULL, 0 },
	{ FLAGS_APISERVER, "bind-address", NULL, v_apiserver_bind, NULL, 0 },
	{ FLAGS_APISERVER, "secure-port", NULL, v_api_port, NULL, 0 },
	{ FLAGS_APISERVER, "service-cluster-ip-range", NULL, v_service_cidr, NULL, 0 },
	{ FLAGS_APISERVER, "service-node-port-range", NULL, v_node_port_range, NULL, 0 },
	{ FLAGS_APISERVER, "client-ca-file", RENDER_PKI_K8S "/ca.pem", NULL, NULL, 0 },
	{ FLAGS_APISERVER, "tls-cert-file", RENDER_PKI_K8S "/apiserver.pem", NULL, NULL, 0 },
	{ FLAGS_APISERVER, "tls-private-key-file", RENDER_PKI_K8S "/apiserver-key.pem", NULL, NULL,
		0 },
	/* bound service-account tokens (required since 1.20): the classic unit gave
	 * the private key as --service-account-key-file */
	{ FLAGS_APISERVER, "service-account-issuer", NULL, v_issuer, NULL, 0 },
	{ FLAGS_APISERVER, "service-account-key-file", RENDER_PKI_K8S "/sa.pub", NULL, NULL, 0 },
	{ FLAGS_APISERVER, "service-account-signing-key-file", RENDER_PKI_K8S "/sa.key", NULL, NULL,
		0 },
	{ FLAGS_APISERVER, "api-audiences", NULL, v_issuer, NULL, 0 },
	{ FLAGS_APISERVER, "kubelet-client-certificate", RENDER_PKI_K8S "/kubelet-client.pem", NULL,
		NULL, 0 },
	{ FLAGS_APISERVER, "kubelet-client-key", RENDER_PKI_K8S "/kubelet-client-key.pem", NULL,
		NULL, 0 },
	{ FLAGS_APISERVER, "endpoint-reconciler-type", "lease", NULL, NULL, 0 },
	/* on SIGTERM /readyz fails at once; the server goes on serving for
	 * this long, so that the load balancers (inter 2s, fall 2 x fastinter
	 * 1s) take it out before it closes its port, and no request that the
	 * LB sent it meanwhile is refused */
	{ FLAGS_APISERVER, "shutdown-delay-duration", "5s", NULL, NULL, 0 },
	{ FLAGS_APISERVER, "authorization-mode", NULL, v_authorization, NULL, 0 },
	/* workers join with bootstrap tokens (kubeadm join, TLS bootstrap);
	 * the aggregation layer's front proxy (kubectl top, metrics-server)
	 * authenticates to extension servers with the front-proxy client
	 * certificate and passes the user in these headers: kubeadm's values */
	{ FLAGS_APISERVER, "enable-bootstrap-token-auth", "true", NULL, NULL, 0 },
	{ FLAGS_APISERVER, "requestheader-client-ca-file", RENDER_PKI_K8S "/front-proxy-ca.pem",
		NULL, NULL, 0 },
	{ FLAGS_APISERVER, "requestheader-allowed-names", "front-proxy-client", NULL, NULL, 0 },
	{ FLAGS_APISERVER, "requestheader-extra-headers-prefix", "X-Remote-Extra-", NULL, NULL, 0 },
	{ FLAGS_APISERVER, "requestheader-group-headers", "X-Remote-Group", NULL, NULL, 0 },
	{ FLAGS_APISERVER, "requestheader-username-headers", "X-Remote-User", NULL, NULL, 0 },
	{ FLAGS_APISERVER, "proxy-client-cert-file", RENDER_PKI_K8S "/front-proxy-client.pem", NULL,
		NULL, 0 },
	{ FLAGS_APISERVER, "proxy-client-key-file", RENDER_PKI_K8S "/front-proxy-client-key.pem",
		NULL, NULL, 0 },
	{ FLAGS_APISERVER, "v", "2", NULL, NULL, 0 },

	/* kube-controller-manager: --address became --bind-address; the
	 * authentication/authorization kubeconfigs let it check who reads its
	 * secure port (/metrics) */
	{ FLAGS_CONTROLLER_MANAGER, "kubeconfig", KCM_KUBECONFIG, NULL, NULL, 0 },
	{ FLAGS_CONTROLLER_MANAGER, "authentication-kubeconfig", KCM_KUBECONFIG, NULL, NULL, 0 },
	{ FLAGS_CONTROLLER_MANAGER, "authorization-kubeconfig", KCM_KUBECONFIG, NULL, NULL, 0 },
	{ FLAGS_CONTROLLER_MANAGER, "bind-address", "127.0.0.1", NULL, NULL, 0 },
	/* who may read its secure port: kubeadm gives it both CAs */
	{ FLAGS_CONTROLLER_MANAGER, "client-ca-file", RENDER_PKI_K8S "/ca.pem", NULL, NULL, 0 },
	{ FLAGS_CONTROLLER_MANAGER, "requestheader-client-ca-file",
		RENDER_PKI_K8S "/front-proxy-ca.pem", NULL, NULL, 0 },
	{ FLAGS_CONTROLLER_MANAGER, "cluster-cidr", NULL, v_cluster_cidr, NULL, 0 },
	{ FLAGS_CONTROLLER_MANAGER, "cluster-name", NULL, v_cluster_name, NULL, 0 },
	/* the CA that signs the kubelets' certificates (TLS bootstrap) */
	{ FLAGS_CONTROLLER_MANAGER, "cluster-signing-cert-file", RENDER_PKI_K8S "/ca.pem", NULL,
		NULL, 0 },
	{ FLAGS_CONTROLLER_MANAGER, "cluster-signing-key-file", RENDER_PKI_K8S "/ca-key.pem", NULL,
		NULL, 0 },
	{ FLAGS_CONTROLLER_MANAGER, "leader-elect", NULL, v_leader_elect, NULL, 0 },
	{ FLAGS_CONTROLLER_MANAGER, "service-cluster-ip-range", NULL, v_service_cidr, NULL, 0 },
	{ FLAGS_CONTROLLER_MANAGER, "root-ca-file", RENDER_PKI_K8S "/ca.pem", NULL, NULL, 0 },
	{ FLAGS_CONTROLLER_MANAGER, "service-account-private-key-file", RENDER_PKI_K8S "/sa.key",
		NULL, NULL, 0 },
	{ FLAGS_CONTROLLER_MANAGER, "use-service-account-credentials", "true", NULL, NULL, 0 },
	/* two controllers that are off by default: bootstrapsigner signs the
	 * cluster-info ConfigMap with each bootstrap token (kubeadm join
	 * checks it), tokencleaner deletes expired tokens */
	{ FLAGS_CONTROLLER_MANAGER, "controllers", "*,bootstrapsigner,tokencleaner", NULL, NULL,
		0 },
	{ FLAGS_CONTROLLER_MANAGER, "v", "2", NULL, NULL, 0 },

	/* kube-scheduler: likewise */
	{ FLAGS_SCHEDULER, "kubeconfig", SCHED_KUBECONFIG, NULL, NULL, 0 },
	{ FLAGS_SCHEDULER, "authentication-kubeconfig", SCHED_KUBECONFIG, NULL, NULL, 0 },
	{ FLAGS_SCHEDULER, "authorization-kubeconfig", SCHED_KUBECONFIG, NULL, NULL, 0 },
	{ FLAGS_SCHEDULER, "bind-address", "127.0.0.1", NULL, NULL, 0 },
	{ FLAGS_SCHEDULER, "leader-elect", NULL, v_leader_elect, NULL, 0 },
	{ FLAGS_SCHEDULER, "v", "2", NULL, NULL, 0 },
};

/* A value every writer carries as one word, unquoted. */
static const char *bad_char(const char *v)
{
	for (const char *p = v; *p; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f ||
			strchr("\"'\\$%`;", *p))
			return p;
	return NULL;
}

bool flags_plain_word(const char *s)
{
	return *s && !bad_char(s);
}

static const char *const programs[] = {
	[FLAGS_ETCD] = "etcd",
	[FLAGS_APISERVER] = "kube-apiserver",
	[FLAGS_CONTROLLER_MANAGER] = "kube-controller-manager",
	[FLAGS_SCHEDULER] = "kube-scheduler",
};

const char *flags_program(enum flags_role role)
{
	return programs[role];
}

int flags_build(const struct cp_cluster *c, const struct cp_host *h, enum flags_role role,
	struct cp_flags *out, struct cpha_msgs *d)
{
	struct cpha_buf b = { 0 };
	int rc = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]) && !rc; i++) {
		const struct row *w = &rows[i];
		struct cp_flag *v, *f;
		unsigned attrs = w->attrs;
		const char *bad;

		if (w->role != role)
			continue;
		if (role == FLAGS_ETCD && !etcd_has(w->name, c->etcd_minor))
			continue;
		cpha_buf_reset(&b);
		rc = w->text ? cpha_buf_puts(&b, w->text) : w->fn(c, h, &b, &attrs);
		if (rc)
			break;
		bad = b.len ? bad_char(b.data) : "";
		if (bad) {
			cpha_msgs_err(d, c->file, (struct cpha_pos){ 0, 0 },
				"%s on %s: --%s=%s: %s", programs[role], h->name, w->name,
				b.len ? b.data : "",
				b.len ? "a blank, quote, '\\', '$', '%', '`' or ';' cannot go into "
					"a command line unquoted; change it in the description"
				      : "the value is empty");
			rc = -EINVAL;
			break;
		}
		v = realloc(out->v, (out->n + 1) * sizeof(*v));
		if (!v) {
			rc = -ENOMEM;
			break;
		}
		out->v = v;
		f = &out->v[out->n];
		f->name = strdup(w->name);
		f->value = cpha_buf_steal(&b);
		f->param = w->param;
		f->attrs = attrs;
		out->n++;
		if (!f->name || !f->value)
			rc = -ENOMEM;
	}
	cpha_buf_free(&b);
	if (rc)
		flags_free(out);
	return rc;
}

void flags_free(struct cp_flags *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].value);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

const struct cp_flag *flags_find(const struct cp_flags *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name))
			return &l->v[i];
	return NULL;
}

int flags_format(const struct cp_flag *f, struct cpha_buf *b)
{
	return cpha_buf_printf(b, "--%s=%s", f->name, f->value);
}

char *flags_k8s_release(const struct cp_cluster *c, char *buf, size_t len)
{
	const struct flags_k8s_minor *m = flags_k8s_minor(c->k8s_minor);
	unsigned patch = c->k8s_patch_set ? c->k8s_patch : m ? m->patch : 0;

	snprintf(buf, len, "v1.%u.%u", c->k8s_minor, patch);
	return buf;
}

/* ---- the Kubernetes versions (k8s_versions.def) ---- */

static const struct flags_k8s_minor k8s_minors[] = {
#define K8S_MINOR(minor, eol, patch) { minor, eol, patch },
#define K8S_DEFAULT(minor)
#define K8S_FLAG(role, name, kind, since, until)
#include "k8s_versions.def"
#undef K8S_MINOR
#undef K8S_DEFAULT
#undef K8S_FLAG
};

static const unsigned k8s_default[] = {
#define K8S_MINOR(minor, eol, patch)
#define K8S_DEFAULT(minor) minor,
#define K8S_FLAG(role, name, kind, since, until)
#include "k8s_versions.def"
#undef K8S_MINOR
#undef K8S_DEFAULT
#undef K8S_FLAG
};

static const struct flags_k8s_flag k8s_flags[] = {
#define K8S_MINOR(minor, eol, patch)
#define K8S_DEFAULT(minor)
#define K8S_FLAG(role, name, kind, since, until) { role, name, kind, since, until },
#include "k8s_versions.def"
#undef K8S_MINOR
#undef K8S_DEFAULT
#undef K8S_FLAG
};

_Static_assert(sizeof(k8s_default) == sizeof(unsigned), "k8s_versions.def: one K8S_DEFAULT");

const struct flags_k8s_minor *flags_k8s_minors(size_t *n)
{
	*n = sizeof(k8s_minors) / sizeof(k8s_minors[0]);
	return k8s_minors;
}

const struct flags_k8s_minor *flags_k8s_minor(unsigned minor)
{
	for (size_t i = 0; i < sizeof(k8s_minors) / sizeof(k8s_minors[0]); i++)
		if (k8s_minors[i].minor == minor)
			return &k8s_minors[i];
	return NULL;
}

unsigned flags_k8s_default_minor(void)
{
	return k8s_default[0];
}

/* A decimal number without sign or leading zero ("0" itself is one);
 * advances *s. */
static int number(const char **s, unsigned *out)
{
	const char *p = *s;
	unsigned long v = 0;

	if (*p < '0' || *p > '9' || (p[0] == '0' && p[1] >= '0' && p[1] <= '9'))
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (unsigned long)(*p - '0');
		if (v > 100000)
			return -EINVAL;
	}
	*out = (unsigned)v;
	*s = p;
	return 0;
}

int flags_k8s_parse(const char *s, unsigned *minor, unsigned *patch, bool *has_patch)
{
	unsigned major, mi, pa = 0;
	bool hp = false;

	if (*s == 'v') {
		s++;
		/* "v1.36" is not a release name: the v goes with a patch */
		if (!strchr(s, '.') || strchr(s, '.') == strrchr(s, '.'))
			return -EINVAL;
	}
	if (number(&s, &major) || major != 1 || *s++ != '.' || number(&s, &mi))
		return -EINVAL;
	if (*s == '.') {
		s++;
		if (number(&s, &pa))
			return -EINVAL;
		hp = true;
	}
	if (*s)
		return -EINVAL;
	*minor = mi;
	*patch = pa;
	*has_patch = hp;
	return 0;
}

char *flags_k8s_known(char *buf, size_t len)
{
	size_t off = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < sizeof(k8s_minors) / sizeof(k8s_minors[0]) && off < len; i++) {
		int w = snprintf(
			buf + off, len - off, "%s1.%u", i ? ", " : "", k8s_minors[i].minor);
		if (w < 0)
			break;
		off += (size_t)w;
	}
	return buf;
}

const struct flags_k8s_flag *flags_k8s_flags(size_t *n)
{
	*n = sizeof(k8s_flags) / sizeof(k8s_flags[0]);
	return k8s_flags;
}

bool flags_k8s_has(enum flags_role role, unsigned minor, const char *name)
{
	for (size_t i = 0; i < sizeof(k8s_flags) / sizeof(k8s_flags[0]); i++) {
		const struct flags_k8s_flag *f = &k8s_flags[i];

		if (f->role == role && !strcmp(f->name, name))
			return (!f->since || minor >= f->since) && (!f->until || minor < f->until);
	}
	return false;
}

bool flags_k8s_past_eol(const struct flags_k8s_minor *m, const char *today)
{
	/* both are YYYY-MM-DD: their order is the dates' */
	return strcmp(today, m->eol) > 0;
}

/* ---- etcd ---- */

const char *flags_etcd_image(unsigned minor)
{
	/* registry.k8s.io's tags: 3.4.13-0 is the last 3.4 one kubeadm used
	 * (Kubernetes 1.19 to 1.21); 3.5.24-0 and 3.6.6-0 are kubeadm's for
	 * the two control-plane versions it supported in November 2025 */
	switch (minor) {
	case 4:
		return "registry.k8s.io/etcd:3.4.13-0";
	case 5:
		return "registry.k8s.io/etcd:3.5.24-0";
	default:
		return "registry.k8s.io/etcd:3.6.6-0";
	}
}
