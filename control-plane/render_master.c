/* The files of the master hosts (and of hosts that run only etcd): how
 * each process of the control plane is started, for the manager the
 * description names, and the kubeconfigs.
 *
 *   systemd       /etc/systemd/system/{etcd,kube-apiserver,
 *                 kube-controller-manager,kube-scheduler}.service
 *   pacemaker     /etc/kubernetes/{apiserver,controller-manager,scheduler}.env,
 *                 read by the ocf:cpha:kube-* agents; etcd's flags are
 *                 ocf:cpha:etcd's parameters (the pcs script's), so nothing
 *   static-pods   /etc/kubernetes/manifests/NAME.yaml; a host that runs only
 *                 etcd has no kubelet and gets etcd.service
 *
 * and on every master the controller-manager's, the scheduler's, the
 * admin's and the super-admin's kubeconfig, plus the admin's and the
 * super-admin's as DIR/cluster/admin.conf and super-admin.conf; with static
 * pods, each master's kubelet configuration and kubeconfig; and
 * DIR/cluster/bootstrap-rbac.yaml, the bindings kubeadm makes at init.
 * The flags themselves come from flags.c. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <arpa/inet.h>

#include "flags.h"
#include "render.h"
#include "token.h"

#define UNIT_DIR     "/etc/systemd/system"
#define MANIFEST_DIR "/etc/kubernetes/manifests"
#define ENV_DIR      "/etc/kubernetes"

/* The first lines of every file: say where it comes from (no date, no
 * path: the same description gives the same bytes). */
#define MADE_BY "Made by `cpha render` from the cluster description: change that, not this file."

/* How each process is run, by manager. */
struct role_info {
	enum flags_role role;
	const char *unit;        /* systemd unit name */
	const char *description; /* its Description= */
	const char *doc;         /* its Documentation= */
	bool notify;             /* Type=notify (etcd, kube-apiserver call sd_notify) */
	const char *env_file;    /* pacemaker: the agent's envfile */
	const char *env_var;     /* the agent's envvar (resource-agents/kube_*.c) */
	const char *agent;       /* the OCF agent reading it */
	const char *cpu;         /* static pods: CPU request (kubeadm's) */
	const char *memory;      /* static pods: memory request, or NULL */
};

static const struct role_info roles[] = {
	[FLAGS_ETCD] = { FLAGS_ETCD, "etcd.service", "etcd", "https://etcd.io/docs/", true, NULL,
		NULL, "ocf:cpha:etcd", "100m", "100Mi" },
	[FLAGS_APISERVER] = { FLAGS_APISERVER, "kube-apiserver.service", "Kubernetes API Server",
		"https://kubernetes.io/docs/reference/command-line-tools-reference/kube-apiserver/",
		true, ENV_DIR "/apiserver.env", "KUBE_APISERVER_ARGS", "ocf:cpha:kube-apiserver",
		"250m", NULL },
	[FLAGS_CONTROLLER_MANAGER] = { FLAGS_CONTROLLER_MANAGER, "kube-controller-manager.service",
		"Kubernetes Controller Manager",
		"https://kubernetes.io/docs/reference/command-line-tools-reference/"
		"kube-controller-manager/",
		false, ENV_DIR "/controller-manager.env", "KUBE_CONTROLLER_MANAGER_ARGS",
		"ocf:cpha:kube-controller-manager", "200m", NULL },
	[FLAGS_SCHEDULER] = { FLAGS_SCHEDULER, "kube-scheduler.service", "Kubernetes Scheduler",
		"https://kubernetes.io/docs/reference/command-line-tools-reference/kube-scheduler/",
		false, ENV_DIR "/scheduler.env", "KUBE_SCHEDULER_ARGS", "ocf:cpha:kube-scheduler",
		"100m", NULL },
};

/* One render_masters() run. */
struct rm {
	const struct cp_cluster *c;
	struct render_set *s;
	struct cpha_msgs *d;
	int err; /* -ENOMEM once an append failed: reported once, at the end */
};

static void out(struct rm *m, struct cpha_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void out(struct rm *m, struct cpha_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (cpha_buf_vprintf(b, fmt, ap) < 0)
		m->err = -ENOMEM;
	va_end(ap);
}

/* ---- YAML ---- */

/* A scalar no YAML reader takes for anything but this string when it is
 * written unquoted: letters, digits and "-_./=,:@", not starting like a
 * number (digits: versions and addresses are quoted too), not ending in
 * ':', no reserved word. */
static bool yaml_plain(const char *s)
{
	static const char *const words[] = { "true", "false", "yes", "no", "on", "off", "null", "y",
		"n", NULL };

	if (!*s || (*s >= '0' && *s <= '9') || *s == '.' || *s == '+')
		return false;
	if (*s == '-' && (!s[1] || (s[1] >= '0' && s[1] <= '9') || s[1] == '.'))
		return false;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			    (*p >= '0' && *p <= '9') || strchr("-_./=,:@", *p)))
			return false;
	if (s[strlen(s) - 1] == ':')
		return false;
	for (size_t i = 0; words[i]; i++)
		if (!strcasecmp(s, words[i]))
			return false;
	return true;
}

/* s as a YAML scalar: plain when that is safe, else double-quoted. */
static void yaml_str(struct rm *m, struct cpha_buf *b, const char *s)
{
	if (yaml_plain(s)) {
		out(m, b, "%s", s);
		return;
	}
	out(m, b, "\"");
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			out(m, b, "\\%c", *p);
		else if (*p < ' ' || *p == 0x7f)
			out(m, b, "\\x%02x", *p);
		else
			out(m, b, "%c", *p);
	}
	out(m, b, "\"");
}

/* "KEY: VALUE" and a newline, at an indentation. */
static void yaml_kv(struct rm *m, struct cpha_buf *b, int indent, const char *key, const char *v)
{
	out(m, b, "%*s%s: ", indent, "", key);
	yaml_str(m, b, v);
	out(m, b, "\n");
}

/* ---- kubeconfigs ---- */

struct kubeconfig {
	const char *path;
	const char *user;    /* the certificate's CN */
	const char *context; /* "USER@CLUSTER"; NULL: "default" (as hand-written kubeconfigs name it) */
	const char *cert, *key;
};

static const struct kubeconfig kcm_kubeconfig = { RENDER_KCM_DIR "/kubeconfig",
	"system:kube-controller-manager", NULL, RENDER_KCM_DIR "/pki/controller-manager.pem",
	RENDER_KCM_DIR "/pki/controller-manager-key.pem" };
static const struct kubeconfig sched_kubeconfig = { RENDER_SCHED_DIR "/kubeconfig",
	"system:kube-scheduler", NULL, RENDER_SCHED_DIR "/pki/scheduler.pem",
	RENDER_SCHED_DIR "/pki/scheduler-key.pem" };
static const struct kubeconfig admin_kubeconfig = { RENDER_ADMIN_CONFIG, "admin", "admin",
	RENDER_PKI_K8S "/admin.pem", RENDER_PKI_K8S "/admin-key.pem" };
static const struct kubeconfig super_admin_kubeconfig = { RENDER_SUPER_ADMIN_CONFIG, "super-admin",
	"super-admin", RENDER_PKI_K8S "/super-admin.pem", RENDER_PKI_K8S "/super-admin-key.pem" };

/* A kubeconfig of host at path (host NULL: the cluster-wide copy) that
 * talks to https://API_NAME:PORT, the VIP the load balancers hold. */
static void kubeconfig(struct rm *m, const char *host, const char *path, const struct kubeconfig *k)
{
	const struct cp_cluster *c = m->c;
	struct cpha_buf *b = render_add(m->s, host, path, 0600, RENDER_CHECK_YAML);
	struct cpha_buf server = { 0 }, ctx = { 0 };

	if (flags_url(&server, "https", c->api_name, c->api_port) < 0)
		m->err = -ENOMEM;
	if (k->context)
		out(m, &ctx, "%s@%s", k->context, c->name);
	else
		out(m, &ctx, "default");
	if (m->err)
		goto out;
	out(m, b, "# %s\n", MADE_BY);
	out(m, b, "apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n");
	yaml_kv(m, b, 4, "certificate-authority", RENDER_PKI_K8S "/ca.pem");
	yaml_kv(m, b, 4, "server", server.data);
	yaml_kv(m, b, 2, "name", c->name);
	out(m, b, "contexts:\n- context:\n");
	yaml_kv(m, b, 4, "cluster", c->name);
	yaml_kv(m, b, 4, "user", k->user);
	yaml_kv(m, b, 2, "name", ctx.data);
	yaml_kv(m, b, 0, "current-context", ctx.data);
	out(m, b, "preferences: {}\nusers:\n");
	yaml_kv(m, b, 0, "- name", k->user);
	out(m, b, "  user:\n");
	yaml_kv(m, b, 4, "client-certificate", k->cert);
	yaml_kv(m, b, 4, "client-key", k->key);
out:
	cpha_buf_free(&server);
	cpha_buf_free(&ctx);
}

/* ---- systemd ---- */

static void systemd_unit(
	struct rm *m, const struct cp_host *h, const struct role_info *ri, const struct cp_flags *f)
{
	const struct cp_cluster *c = m->c;
	char path[128];
	struct cpha_buf *b;

	snprintf(path, sizeof(path), UNIT_DIR "/%s", ri->unit);
	b = render_add(m->s, h->name, path, 0644, RENDER_CHECK_NONE);
	out(m, b, "# %s of cluster %s on %s.\n# %s\n", flags_program(ri->role), c->name, h->name,
		MADE_BY);
	out(m, b, "[Unit]\nDescription=%s\nDocumentation=%s\n", ri->description, ri->doc);
	/* etcd and the apiserver bind the host's own address: it must be up */
	out(m, b, "Wants=network-online.target\nAfter=network-online.target");
	if (ri->role == FLAGS_APISERVER && (h->roles & CP_ROLE_ETCD))
		out(m, b, " etcd.service");
	if (ri->role == FLAGS_CONTROLLER_MANAGER || ri->role == FLAGS_SCHEDULER)
		out(m, b, " kube-apiserver.service");
	out(m, b, "\n\n[Service]\n");
	if (ri->notify)
		out(m, b, "Type=notify\n");
	out(m, b, "ExecStart=%s/%s", c->bin_dir, flags_program(ri->role));
	for (size_t i = 0; i < f->n; i++) {
		out(m, b, " \\\n  ");
		if (flags_format(&f->v[i], b) < 0)
			m->err = -ENOMEM;
	}
	out(m, b, "\nRestart=on-failure\nRestartSec=5\nLimitNOFILE=65536\n");
	out(m, b, "\n[Install]\nWantedBy=multi-user.target\n");
}

/* ---- pacemaker ---- */

/* The EnvironmentFile= the agent reads (resource-agents/kube.h): one
 * variable, its words continued over lines inside double quotes. The
 * values need no escaping (flags_build() refuses what would). */
static void env_file(
	struct rm *m, const struct cp_host *h, const struct role_info *ri, const struct cp_flags *f)
{
	struct cpha_buf *b = render_add(m->s, h->name, ri->env_file, 0644, RENDER_CHECK_NONE);

	out(m, b, "# %s on %s: the flags %s starts it with\n# (envfile=%s envvar=%s).\n# %s\n",
		flags_program(ri->role), h->name, ri->agent, ri->env_file, ri->env_var, MADE_BY);
	out(m, b, "%s=\"", ri->env_var);
	for (size_t i = 0; i < f->n; i++) {
		if (i)
			out(m, b, " \\\n  ");
		if (flags_format(&f->v[i], b) < 0)
			m->err = -ENOMEM;
	}
	out(m, b, "\"\n");
}

/* ---- static pods ---- */

struct volume {
	const char *name, *path;
	bool ro;
	const char *type; /* hostPath type */
};

struct probe {
	const char *path;
	unsigned initial, period, timeout, failures; /* seconds, seconds, seconds, count */
};

/* How the kubelet checks a pod: kubeadm's settings. */
struct pod_checks {
	const char *scheme, *host;
	unsigned port;
	struct probe live, ready, startup; /* ready.path NULL: no readiness probe */
};

static void probe(struct rm *m, struct cpha_buf *b, const char *kind, const struct pod_checks *pc,
	const struct probe *p)
{
	out(m, b, "    %s:\n      httpGet:\n", kind);
	yaml_kv(m, b, 8, "host", pc->host);
	yaml_kv(m, b, 8, "path", p->path);
	out(m, b, "        port: %u\n        scheme: %s\n", pc->port, pc->scheme);
	if (p->initial)
		out(m, b, "      initialDelaySeconds: %u\n", p->initial);
	out(m, b, "      periodSeconds: %u\n      timeoutSeconds: %u\n      failureThreshold: %u\n",
		p->period, p->timeout, p->failures);
}

static void pod_manifest(
	struct rm *m, const struct cp_host *h, const struct role_info *ri, const struct cp_flags *f)
{
	const struct cp_cluster *c = m->c;
	const char *prog = flags_program(ri->role);
	struct volume vols[2];
	struct pod_checks pc = { "HTTPS", "127.0.0.1", 0, { NULL, 10, 10, 15, 8 },
		{ NULL, 0, 1, 15, 3 }, { NULL, 10, 10, 15, 24 } };
	char path[128], release[32], *image = NULL;
	struct cpha_buf *b;
	size_t nvols = 0;

	switch (ri->role) {
	case FLAGS_ETCD:
		vols[nvols++] = (struct volume){ "etcd-data", c->etcd_data_dir, false,
			"DirectoryOrCreate" };
		vols[nvols++] = (struct volume){ "etcd-certs", RENDER_PKI_ETCD, true, "Directory" };
		pc.scheme = "HTTP";
		pc.port = FLAGS_ETCD_METRICS_PORT;
		pc.live.path = "/health?exclude=NOSPACE&serializable=true";
		pc.startup.path = "/health?serializable=false";
		break;
	case FLAGS_APISERVER:
		vols[nvols++] = (struct volume){ "k8s-certs", RENDER_PKI_K8S, true, "Directory" };
		vols[nvols++] = (struct volume){ "etcd-certs", RENDER_PKI_ETCD, true, "Directory" };
		/* the address it binds when the load balancer shares the host */
		pc.host = h->address;
		pc.port = c->api_port;
		pc.live.path = "/livez";
		pc.ready.path = "/readyz";
		pc.startup.path = "/livez";
		break;
	case FLAGS_CONTROLLER_MANAGER:
		vols[nvols++] = (struct volume){ "k8s-certs", RENDER_PKI_K8S, true, "Directory" };
		vols[nvols++] = (struct volume){ "kubeconfig", RENDER_KCM_DIR, true, "Directory" };
		pc.port = FLAGS_KCM_PORT;
		pc.live.path = pc.startup.path = "/healthz";
		break;
	case FLAGS_SCHEDULER:
		vols[nvols++] =
			(struct volume){ "kubeconfig", RENDER_SCHED_DIR, true, "Directory" };
		pc.port = FLAGS_SCHED_PORT;
		pc.live.path = pc.startup.path = "/healthz";
		break;
	}
	if (ri->role == FLAGS_ETCD)
		image = strdup(c->etcd_image);
	else if (asprintf(&image, "%s/%s:%s", c->image_repository, prog,
			 flags_k8s_release(c, release, sizeof(release))) < 0)
		image = NULL;
	if (!image) {
		m->err = -ENOMEM;
		return;
	}
	snprintf(path, sizeof(path), MANIFEST_DIR "/%s.yaml", prog);
	b = render_add(m->s, h->name, path, 0600, RENDER_CHECK_YAML);
	out(m, b, "# %s of cluster %s on %s, run by the kubelet.\n# %s\n", prog, c->name, h->name,
		MADE_BY);
	out(m, b, "apiVersion: v1\nkind: Pod\nmetadata:\n");
	yaml_kv(m, b, 2, "name", prog);
	out(m, b, "  namespace: kube-system\n  labels:\n");
	yaml_kv(m, b, 4, "component", prog);
	out(m, b,
		"    tier: control-plane\nspec:\n  hostNetwork: true\n"
		"  priorityClassName: system-node-critical\n"
		"  securityContext:\n    seccompProfile:\n      type: RuntimeDefault\n"
		"  containers:\n");
	yaml_kv(m, b, 0, "  - name", prog);
	yaml_kv(m, b, 4, "image", image);
	out(m, b, "    imagePullPolicy: IfNotPresent\n    command:\n");
	out(m, b, "    - ");
	yaml_str(m, b, prog);
	out(m, b, "\n");
	for (size_t i = 0; i < f->n; i++) {
		struct cpha_buf w = { 0 };
		if (flags_format(&f->v[i], &w) < 0) {
			m->err = -ENOMEM;
			break;
		}
		out(m, b, "    - ");
		yaml_str(m, b, w.data);
		out(m, b, "\n");
		cpha_buf_free(&w);
	}
	out(m, b, "    resources:\n      requests:\n        cpu: %s\n", ri->cpu);
	if (ri->memory)
		out(m, b, "        memory: %s\n", ri->memory);
	probe(m, b, "livenessProbe", &pc, &pc.live);
	if (pc.ready.path)
		probe(m, b, "readinessProbe", &pc, &pc.ready);
	probe(m, b, "startupProbe", &pc, &pc.startup);
	out(m, b, "    volumeMounts:\n");
	for (size_t i = 0; i < nvols; i++) {
		yaml_kv(m, b, 4, "- name", vols[i].name);
		yaml_kv(m, b, 6, "mountPath", vols[i].path);
		if (vols[i].ro)
			out(m, b, "      readOnly: true\n");
	}
	out(m, b, "  volumes:\n");
	for (size_t i = 0; i < nvols; i++) {
		yaml_kv(m, b, 2, "- name", vols[i].name);
		out(m, b, "    hostPath:\n");
		yaml_kv(m, b, 6, "path", vols[i].path);
		out(m, b, "      type: %s\n", vols[i].type);
	}
	free(image);
}

/* ---- the kubelet of a master (static pods) ---- */

/* The tenth address of service_cidr, where kubeadm puts the cluster DNS
 * service (10.96.0.10 for 10.96.0.0/12). */
static int dns_service_ip(const struct cp_cluster *c, char *buf, size_t len)
{
	unsigned char a[16];
	int fam;

	if (cluster_first_service_ip(c, buf, len) < 0)
		return -EINVAL;
	fam = strchr(buf, ':') ? AF_INET6 : AF_INET;
	if (inet_pton(fam, buf, a) != 1)
		return -EINVAL;
	for (int i = (fam == AF_INET ? 4 : 16) - 1, add = 9; i >= 0 && add; i--) {
		add += a[i];
		a[i] = (unsigned char)(add & 0xff);
		add >>= 8;
	}
	return inet_ntop(fam, a, buf, (socklen_t)len) ? 0 : -EINVAL;
}

/* KubeletConfiguration as kubeadm writes it
 * (https://kubernetes.io/docs/reference/config-api/kubelet-config.v1beta1/):
 * clients authenticated by the cluster CA or a token the apiserver
 * reviews, every request authorized by the apiserver (webhook), the
 * static pods from the manifests directory, the systemd cgroup driver,
 * the client certificate renewed through the CSR API. */
static void kubelet_config(struct rm *m, const struct cp_host *h)
{
	const struct cp_cluster *c = m->c;
	struct cpha_buf *b =
		render_add(m->s, h->name, RENDER_KUBELET_CONFIG, 0644, RENDER_CHECK_YAML);
	char dns[INET6_ADDRSTRLEN];

	if (dns_service_ip(c, dns, sizeof(dns)) < 0) {
		m->err = -EINVAL;
		return;
	}
	out(m, b, "# The kubelet of %s (cluster %s).\n# %s\n", h->name, c->name, MADE_BY);
	out(m, b,
		"apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
		"authentication:\n  anonymous:\n    enabled: false\n"
		"  webhook:\n    cacheTTL: 0s\n    enabled: true\n  x509:\n");
	yaml_kv(m, b, 4, "clientCAFile", RENDER_PKI_K8S "/ca.pem");
	out(m, b,
		"authorization:\n  mode: Webhook\n  webhook:\n"
		"    cacheAuthorizedTTL: 0s\n    cacheUnauthorizedTTL: 0s\n"
		"cgroupDriver: systemd\nclusterDNS:\n- ");
	yaml_str(m, b, dns);
	out(m, b, "\n");
	yaml_kv(m, b, 0, "clusterDomain", c->domain);
	out(m, b,
		"healthzBindAddress: \"127.0.0.1\"\nhealthzPort: 10248\n"
		"rotateCertificates: true\n"
		"# the serving certificate is the kubelet's own, self-signed, as kubeadm\n"
		"# leaves it: no controller approves kubelet-serving requests\n"
		"serverTLSBootstrap: false\n");
	yaml_kv(m, b, 0, "staticPodPath", MANIFEST_DIR);
}

/* The kubelet's kubeconfig: the node's own client certificate (node-HOST
 * of cpha pki), renewed by the kubelet itself (rotateCertificates). */
static void kubelet_kubeconfig(struct rm *m, const struct cp_host *h)
{
	char user[300];
	struct kubeconfig k = { RENDER_KUBELET_KUBECONFIG, user, NULL,
		RENDER_KUBELET_PKI "/kubelet-client.pem",
		RENDER_KUBELET_PKI "/kubelet-client-key.pem" };

	snprintf(user, sizeof(user), "system:node:%s", h->name);
	kubeconfig(m, h->name, k.path, &k);
}

/* ---- RBAC: what kubeadm binds at init ---- */

static void binding(struct rm *m, struct cpha_buf *b, const char *name, const char *role,
	const char *group, const char *why)
{
	out(m, b, "---\n# %s\n", why);
	out(m, b,
		"apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n");
	yaml_kv(m, b, 2, "name", name);
	out(m, b, "roleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n");
	yaml_kv(m, b, 2, "name", role);
	out(m, b, "subjects:\n- apiGroup: rbac.authorization.k8s.io\n  kind: Group\n");
	yaml_kv(m, b, 2, "name", group);
}

/* https://kubernetes.io/docs/reference/access-authn-authz/kubelet-tls-bootstrapping/ */
static void bootstrap_rbac(struct rm *m)
{
	struct cpha_buf *b = render_add(m->s, NULL, RENDER_BOOTSTRAP_RBAC, 0644, RENDER_CHECK_YAML);

	out(m, b,
		"# The RBAC bindings of cluster %s that kubeadm makes at init: apply once,\n"
		"# with the break-glass credentials:\n"
		"#   kubectl --kubeconfig super-admin.conf apply -f " RENDER_BOOTSTRAP_RBAC "\n"
		"# %s\n",
		m->c->name, MADE_BY);
	binding(m, b, "kubeadm:cluster-admins", "cluster-admin", "kubeadm:cluster-admins",
		"admin.conf's group is cluster-admin through this binding (which can be "
		"removed, unlike system:masters)");
	binding(m, b, "cpha:kubelet-bootstrap", "system:node-bootstrapper", TOKEN_GROUP,
		"a joining kubelet, with a token of cpha token create, may ask for its "
		"certificate");
	binding(m, b, "cpha:node-autoapprove-bootstrap",
		"system:certificates.k8s.io:certificatesigningrequests:nodeclient", TOKEN_GROUP,
		"and the controller-manager approves that request");
	binding(m, b, "cpha:node-autoapprove-certificate-rotation",
		"system:certificates.k8s.io:certificatesigningrequests:selfnodeclient",
		"system:nodes", "a node's renewal of its own client certificate is approved too");
}

/* ---- the hosts ---- */

/* The files of one role on h under the cluster's manager. */
static int render_role(struct rm *m, const struct cp_host *h, enum flags_role role)
{
	const struct role_info *ri = &roles[role];
	struct cp_flags f;
	int r;

	r = flags_build(m->c, h, role, &f, m->d);
	if (r == -ENOMEM)
		m->err = r;
	if (r < 0)
		return -1;
	switch (m->c->manager) {
	case CP_MGR_SYSTEMD:
		systemd_unit(m, h, ri, &f);
		break;
	case CP_MGR_PACEMAKER:
		if (ri->env_file)
			env_file(m, h, ri, &f);
		break;
	case CP_MGR_STATIC_PODS:
		/* no kubelet on a host that runs only etcd ("RPM-based
		 * etcd is still supported on etcd hosts that are not also
		 * masters") */
		if (h->roles & CP_ROLE_MASTER)
			pod_manifest(m, h, ri, &f);
		else
			systemd_unit(m, h, ri, &f);
		break;
	}
	flags_free(&f);
	return 0;
}

int render_masters(const struct cp_cluster *c, struct render_set *s, struct cpha_msgs *d)
{
	struct rm m = { c, s, d, 0 };
	int rc = 0;

	if (c->manager != CP_MGR_PACEMAKER && !flags_plain_word(c->bin_dir)) {
		cpha_msgs_err(d, c->file, (struct cpha_pos){ 0, 0 },
			"kubernetes.bin_dir: '%s' cannot go into an ExecStart= line unquoted",
			c->bin_dir);
		return -1;
	}
	for (size_t i = 0; i < c->nhosts; i++) {
		const struct cp_host *h = &c->hosts[i];
		bool master = h->roles & CP_ROLE_MASTER;

		/* ocf:cpha:etcd takes etcd's flags as its parameters */
		if ((h->roles & CP_ROLE_ETCD) && c->manager != CP_MGR_PACEMAKER &&
			render_role(&m, h, FLAGS_ETCD) < 0)
			rc = -1;
		if (!master)
			continue;
		for (enum flags_role r = FLAGS_APISERVER; r <= FLAGS_SCHEDULER; r++)
			if (render_role(&m, h, r) < 0)
				rc = -1;
		kubeconfig(&m, h->name, kcm_kubeconfig.path, &kcm_kubeconfig);
		kubeconfig(&m, h->name, sched_kubeconfig.path, &sched_kubeconfig);
		kubeconfig(&m, h->name, admin_kubeconfig.path, &admin_kubeconfig);
		kubeconfig(&m, h->name, super_admin_kubeconfig.path, &super_admin_kubeconfig);
		if (c->manager == CP_MGR_STATIC_PODS) {
			kubelet_config(&m, h);
			kubelet_kubeconfig(&m, h);
		}
	}
	kubeconfig(&m, NULL, "admin.conf", &admin_kubeconfig);
	kubeconfig(&m, NULL, "super-admin.conf", &super_admin_kubeconfig);
	bootstrap_rbac(&m);
	if (m.err) {
		cpha_msgs_err(d, c->file, (struct cpha_pos){ 0, 0 }, "render masters: %s",
			strerror(-m.err));
		rc = -1;
	}
	return rc;
}
