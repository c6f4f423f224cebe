/* The masters' Pacemaker configuration (manager: pacemaker) as pcs
 * commands: made once as a list (pure), written as pcs-commands.sh, and
 * run offline with `pcs -f` against an empty CIB to make cib.xml, the CIB
 * those commands produce (docs/pacemaker.md explains each command). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "duration.h"
#include "fileio.h"
#include "flags.h"
#include "render.h"
#include "render_ha.h"
#include "render_text.h"
#include "run.h"

#define put render_text_put

/* ---- the commands (pure) ---- */

static struct pcs_cmd *cmd_new(struct pcs_cmds *p, const char *comment)
{
	struct pcs_cmd *v = realloc(p->v, (p->n + 1) * sizeof(*v)), *c;

	if (!v)
		cpha_oom();
	p->v = v;
	c = &p->v[p->n++];
	memset(c, 0, sizeof(*c));
	c->argv = calloc(1, sizeof(*c->argv));
	if (!c->argv || (comment && !(c->comment = strdup(comment))))
		cpha_oom();
	return c;
}

static void cmd_arg(struct pcs_cmd *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void cmd_arg(struct pcs_cmd *c, const char *fmt, ...)
{
	char **v = realloc(c->argv, (c->argc + 2) * sizeof(*v));
	va_list ap;
	int r;

	if (!v)
		cpha_oom();
	c->argv = v;
	va_start(ap, fmt);
	r = vasprintf(&c->argv[c->argc], fmt, ap);
	va_end(ap);
	if (r < 0)
		cpha_oom();
	c->argv[++c->argc] = NULL;
}

/* Several words at once, NULL-terminated. */
static void cmd_words(struct pcs_cmd *c, ...)
{
	va_list ap;
	const char *w;

	va_start(ap, c);
	while ((w = va_arg(ap, const char *)))
		cmd_arg(c, "%s", w);
	va_end(ap);
}

static void use_agent(struct pcs_cmds *p, struct pcs_cmd *c, const char *agent)
{
	c->flags |= PCS_CMD_OCF_CPHA;
	for (size_t i = 0; i < p->nagents; i++)
		if (!strcmp(p->cpha_agents[i], agent))
			return;
	char **v = realloc(p->cpha_agents, (p->nagents + 2) * sizeof(*v));
	if (!v)
		cpha_oom();
	p->cpha_agents = v;
	if (!(v[p->nagents++] = strdup(agent)))
		cpha_oom();
	v[p->nagents] = NULL;
}

/* A path a shell (fence-agents run password_script through popen) takes
 * as one word as it is. */
static bool plain_path(const char *s)
{
	if (s[0] != '/')
		return false;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+@",
			    *s))
			return false;
	return true;
}

/* A device parameter as Pacemaker gets it. fenced reads KEY_file itself;
 * pacemaker-fenced passes parameters as they are, so a password file
 * becomes the agents' own password_script (fence-agents' fencing.py:
 * --password-script, run through popen: the secret never enters the CIB
 * or a command line). Other KEY_file parameters pass unchanged: pcs
 * checks them against the agent's metadata (identity_file, ...). */
static int device_param(const struct cp_cluster *c, const struct cp_fence_device *f,
	const struct cp_param *pr, struct pcs_cmd *cmd, struct cpha_msgs *d)
{
	static const struct {
		const char *file, *script;
	} scripts[] = {
		{ "password_file", "password_script" },
		{ "passwd_file", "password_script" },
		{ "snmp_priv_passwd_file", "snmp_priv_passwd_script" },
	};

	for (size_t i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++) {
		if (strcmp(pr->key, scripts[i].file))
			continue;
		if (!plain_path(pr->value)) {
			cpha_msgs_err(d, c->file, pr->pos,
				"fencing.devices: %s: %s '%s': Pacemaker reads it through a "
				"shell (%s=/bin/cat PATH): give an absolute path of letters, "
				"digits and / . _ - + @",
				f->name, pr->key, pr->value, scripts[i].script);
			return -1;
		}
		cmd_arg(cmd, "%s=/bin/cat %s", scripts[i].script, pr->value);
		return 0;
	}
	if (!strcmp(pr->key, "community_file")) {
		cpha_msgs_err(d, c->file, pr->pos,
			"fencing.devices: %s: community_file: fence-agents have no script "
			"parameter for an SNMP community, and Pacemaker would keep it in the "
			"CIB; use SNMPv3 (snmp_priv_passwd_file) for devices Pacemaker runs",
			f->name);
		return -1;
	}
	cmd_arg(cmd, "%s=%s", pr->key, pr->value);
	return 0;
}

static bool is_master(const struct cp_cluster *c, const char *name)
{
	const struct cp_host *h = cluster_host(c, name);
	return h && (h->roles & CP_ROLE_MASTER);
}

static int fencing_cmds(const struct cp_cluster *c, struct pcs_cmds *p, struct cpha_msgs *d)
{
	size_t nm = cluster_role_count(c, CP_ROLE_MASTER);
	char dur[32];
	bool first = true;
	int rc = 0;

	for (size_t i = 0; i < c->ndevices; i++) {
		const struct cp_fence_device *f = &c->devices[i];
		struct pcs_cmd *cmd;

		if (!is_master(c, f->host))
			continue;
		cmd = cmd_new(
			p, first ? "Fencing: one stonith device per BMC (or PDU) of a master; "
				   "the secrets stay in their files"
				 : NULL);
		first = false;
		cmd_words(cmd, "stonith", "create", f->name, f->agent, NULL);
		for (size_t k = 0; k < f->nparams; k++)
			if (device_param(c, f, &f->params[k], cmd, d) < 0)
				rc = -1;
		cmd_arg(cmd, "pcmk_host_list=%s", f->host);
		/* two masters: the first wins a fence race, as fenced's delay */
		if (nm == 2 && c->fence_delay_usec &&
			!strcmp(cluster_role_host(c, CP_ROLE_MASTER, 0)->name, f->host))
			cmd_arg(cmd, "pcmk_delay_base=%s",
				cpha_format_duration(c->fence_delay_usec, dur, sizeof(dur)));
		cmd_words(cmd, "op", "monitor", "interval=60s", NULL);
		cmd = cmd_new(p, NULL);
		cmd_words(cmd, "constraint", "location", f->name, "avoids", f->host, NULL);
	}
	first = true;
	for (size_t i = 0; i < c->nhosts; i++) {
		const struct cp_host *h = &c->hosts[i];
		if (!(h->roles & CP_ROLE_MASTER))
			continue;
		for (unsigned lvl = 1; lvl <= 9; lvl++) {
			struct pcs_cmd *cmd = NULL;
			for (size_t k = 0; k < c->ndevices; k++) {
				const struct cp_fence_device *f = &c->devices[k];
				if (strcmp(f->host, h->name) || f->level != lvl)
					continue;
				if (!cmd) {
					cmd = cmd_new(
						p, first ? "Fencing levels: tried in order; every "
							   "device of a level must succeed"
							 : NULL);
					first = false;
					cmd_words(cmd, "stonith", "level", "add", NULL);
					cmd_arg(cmd, "%u", lvl);
					cmd_arg(cmd, "%s", h->name);
				}
				cmd_arg(cmd, "%s", f->name);
			}
		}
	}
	return rc;
}

/* Where etcd runs relative to the masters. */
enum etcd_place { ETCD_ALL_MASTERS, ETCD_SOME_MASTERS, ETCD_EXTERNAL };

static int etcd_place(const struct cp_cluster *c, enum etcd_place *out, struct cpha_msgs *d)
{
	size_t on_masters = 0;

	for (size_t i = 0; i < c->netcd; i++)
		if (c->hosts[c->etcd[i]].roles & CP_ROLE_MASTER)
			on_masters++;
	if (on_masters && on_masters != c->netcd) {
		cpha_msgs_err(d, c->file, c->etcd_pos,
			"etcd.hosts: with manager: pacemaker the etcd members are all masters "
			"(Pacemaker runs them) or none (etcd is external): %zu of %zu are masters",
			on_masters, c->netcd);
		return -1;
	}
	*out = !on_masters                                           ? ETCD_EXTERNAL
	       : on_masters == cluster_role_count(c, CP_ROLE_MASTER) ? ETCD_ALL_MASTERS
								     : ETCD_SOME_MASTERS;
	return 0;
}

static void etcd_cmds(const struct cp_cluster *c, enum etcd_place where, struct pcs_cmds *p)
{
	struct pcs_cmd *cmd = cmd_new(p, "etcd: one member per master in node_map, bootstrapped "
					 "and replaced by the agent");
	struct cpha_buf map = { 0 };
	char a[CPHA_ADDR_STRLEN];

	for (size_t i = 0; i < c->netcd; i++) {
		const struct cp_host *h = &c->hosts[c->etcd[i]];
		put(&map, "%s%s=%s", i ? " " : "", h->name,
			render_text_addr(&h->addr, a, sizeof(a)));
	}
	use_agent(p, cmd, "etcd");
	cmd_words(cmd, "resource", "create", "etcd", "ocf:cpha:etcd", NULL);
	cmd_arg(cmd, "node_map=%s", map.data);
	cmd_arg(cmd, "data_dir=%s", c->etcd_data_dir);
	cmd_arg(cmd, "token=%s", c->etcd_token);
	cmd_arg(cmd, "binary=%s/etcd", c->bin_dir);
	/* monitoring.prometheus: etcd's metrics on each member's address */
	if (c->mon.prom.on)
		cmd_arg(cmd, "metrics_port=%u", FLAGS_ETCD_METRICS_PORT);
	cmd_words(cmd, "trusted_ca_file=" RENDER_ETCD_CA, "cert_file=" RENDER_ETCD_SERVER_CERT,
		"key_file=" RENDER_ETCD_SERVER_KEY, "peer_trusted_ca_file=" RENDER_ETCD_CA,
		"peer_cert_file=" RENDER_ETCD_SERVER_CERT, "peer_key_file=" RENDER_ETCD_SERVER_KEY,
		"agent_cert=" RENDER_ETCD_CLIENT_CERT, "agent_key=" RENDER_ETCD_CLIENT_KEY, "op",
		"start", "timeout=120s", "op", "stop", "timeout=60s", "op", "monitor",
		"interval=10s", "timeout=30s", "op", "notify", "timeout=10s", "op", "reload",
		"timeout=120s", "clone", "interleave=true", "notify=true", NULL);
	cmd_arg(cmd, "clone-max=%zu", c->netcd);
	cmd_words(cmd, "clone-node-max=1", "--no-default-ops", NULL);
	cpha_buf_free(&map);
	if (where == ETCD_SOME_MASTERS)
		for (size_t i = 0; i < c->nhosts; i++)
			if ((c->hosts[i].roles & CP_ROLE_MASTER) &&
				!(c->hosts[i].roles & CP_ROLE_ETCD)) {
				cmd = cmd_new(p, NULL);
				cmd_words(cmd, "constraint", "location", "etcd-clone", "avoids",
					c->hosts[i].name, NULL);
			}
}

/* A single-instance controller after and with an apiserver. */
static void controller_cmds(const struct cp_cluster *c, struct pcs_cmds *p, const char *id,
	const char *agent, const char *program, const char *env, const char *comment)
{
	struct pcs_cmd *cmd = cmd_new(p, comment);

	use_agent(p, cmd, agent);
	cmd_words(cmd, "resource", "create", id, NULL);
	cmd_arg(cmd, "ocf:cpha:%s", agent);
	cmd_arg(cmd, "binary=%s/%s", c->bin_dir, program);
	cmd_arg(cmd, "envfile=%s", env);
	if (!c->leader_elect)
		cmd_arg(cmd, "leader_elect=false");
	cmd_words(cmd, "op", "start", "timeout=90s", "op", "stop", "timeout=60s", "op", "monitor",
		"interval=10s", "timeout=30s", "--disabled", "--no-default-ops", NULL);
	cmd = cmd_new(p, NULL);
	cmd_words(
		cmd, "constraint", "order", "start", "apiserver-clone", "then", "start", id, NULL);
	cmd = cmd_new(p, NULL);
	cmd_words(cmd, "constraint", "colocation", "add", id, "with", "apiserver-clone", "INFINITY",
		NULL);
}

/* An IPaddr2 resource for a VIP, created stopped. */
static void ipaddr2_cmd(const struct cp_cluster *c, struct pcs_cmds *p, const char *why,
	const char *name, const struct cpha_addr *addr, unsigned prefix)
{
	struct pcs_cmd *cmd = cmd_new(p, why);
	char a[CPHA_ADDR_STRLEN];

	cmd_words(cmd, "resource", "create", name, "ocf:heartbeat:IPaddr2", NULL);
	cmd_arg(cmd, "ip=%s", render_text_addr(addr, a, sizeof(a)));
	cmd_arg(cmd, "cidr_netmask=%u", prefix);
	cmd_arg(cmd, "nic=%s", c->interface);
	cmd_words(cmd, "op", "start", "timeout=20s", "op", "stop", "timeout=20s", "op", "monitor",
		"interval=10s", "timeout=20s", "--disabled", "--no-default-ops", NULL);
}

/* The Pacemaker resource of a dual-stack cluster's second VIP. */
static const char *vip2_name(const struct cp_cluster *c)
{
	return cpha_addr_family(&c->vip2) == AF_INET6 ? "vip6" : "vip4";
}

static void lb_cmds(const struct cp_cluster *c, struct pcs_cmds *p)
{
	bool haproxy = c->lb == CP_LB_HAPROXY;
	const char *agent = haproxy ? "haproxy" : "lbd";
	struct pcs_cmd *cmd =
		cmd_new(p, haproxy ? "HAProxy on every master, in front of the "
				     "apiservers"
				   : "lbd on every master, in front of the apiservers");

	use_agent(p, cmd, agent);
	cmd_words(cmd, "resource", "create", agent, NULL);
	cmd_arg(cmd, "ocf:cpha:%s", agent);
	cmd_arg(cmd, "config=%s", haproxy ? RENDER_HAPROXY_CFG : RENDER_LBD_CFG);
	cmd_words(cmd, "op", "start", "timeout=30s", "op", "stop", "timeout=30s", "op", "monitor",
		"interval=10s", "timeout=20s", "op", "reload", "timeout=30s", "clone",
		"interleave=true", NULL);
	cmd_arg(cmd, "clone-max=%zu", cluster_role_count(c, CP_ROLE_MASTER));
	cmd_words(cmd, "clone-node-max=1", "--no-default-ops", NULL);
	if (c->vipd != CP_VIP_PACEMAKER)
		return;
	ipaddr2_cmd(c, p, "The VIP: on one master whose load balancer runs", "vip", &c->vip,
		c->vip_prefix);
	cmd = cmd_new(p, NULL);
	cmd_arg(cmd, "constraint");
	cmd_words(cmd, "order", "start", NULL);
	cmd_arg(cmd, "%s-clone", agent);
	cmd_words(cmd, "then", "start", "vip", NULL);
	cmd = cmd_new(p, NULL);
	cmd_words(cmd, "constraint", "colocation", "add", "vip", "with", NULL);
	cmd_arg(cmd, "%s-clone", agent);
	cmd_arg(cmd, "INFINITY");
	if (!c->has_vip2)
		return;
	/* the other family's VIP goes where the first one is */
	ipaddr2_cmd(c, p, "The other family's VIP (dual stack): always with the first",
		vip2_name(c), &c->vip2, c->vip2_prefix);
	cmd = cmd_new(p, NULL);
	cmd_words(cmd, "constraint", "order", "start", "vip", "then", "start", vip2_name(c), NULL);
	cmd = cmd_new(p, NULL);
	cmd_words(cmd, "constraint", "colocation", "add", vip2_name(c), "with", "vip", "INFINITY",
		NULL);
}

int render_pcs_commands(const struct cp_cluster *c, struct pcs_cmds *p, struct cpha_msgs *d)
{
	size_t nm = cluster_role_count(c, CP_ROLE_MASTER);
	enum etcd_place where;
	struct pcs_cmd *cmd;
	int rc = 0;

	memset(p, 0, sizeof(*p));
	if (etcd_place(c, &where, d) < 0)
		return -1;
	cmd = cmd_new(p, "Cluster properties: no resource runs unfenced; a partition without "
			 "quorum stops its resources");
	cmd_words(cmd, "property", "set", "stonith-enabled=true", "no-quorum-policy=stop",
		"stonith-timeout=60s", NULL);
	cmd = cmd_new(p, "Resources stay where they run when a node comes back");
	cmd_words(cmd, "resource", "defaults", "update", "resource-stickiness=100", NULL);
	if (fencing_cmds(c, p, d) < 0)
		rc = -1;
	if (where != ETCD_EXTERNAL)
		etcd_cmds(c, where, p);

	cmd = cmd_new(p, "kube-apiserver: one per master, after and with etcd");
	use_agent(p, cmd, "kube-apiserver");
	cmd_words(cmd, "resource", "create", "apiserver", "ocf:cpha:kube-apiserver", NULL);
	cmd_arg(cmd, "binary=%s/kube-apiserver", c->bin_dir);
	cmd_words(
		cmd, "envfile=/etc/kubernetes/apiserver.env", "ca=" RENDER_PKI_K8S "/ca.pem", NULL);
	cmd_arg(cmd, "server_name=%s", c->api_name);
	cmd_words(cmd, "op", "start", "timeout=120s", "op", "stop", "timeout=120s", "op", "monitor",
		"interval=10s", "timeout=30s", "clone", "interleave=true", NULL);
	cmd_arg(cmd, "clone-max=%zu", nm);
	cmd_words(cmd, "clone-node-max=1", "--disabled", "--no-default-ops", NULL);
	if (where == ETCD_ALL_MASTERS) {
		cmd = cmd_new(p, NULL);
		cmd_words(cmd, "constraint", "order", "start", "etcd-clone", "then", "start",
			"apiserver-clone", NULL);
		cmd = cmd_new(p, NULL);
		cmd_words(cmd, "constraint", "colocation", "add", "apiserver-clone", "with",
			"etcd-clone", "INFINITY", NULL);
	} else if (where == ETCD_SOME_MASTERS) {
		/* an apiserver may run where no member does: start after etcd, no more */
		cmd = cmd_new(p, NULL);
		cmd_words(cmd, "constraint", "order", "start", "etcd-clone", "then", "start",
			"apiserver-clone", "kind=Optional", NULL);
	}
	controller_cmds(c, p, "kcm", "kube-controller-manager", "kube-controller-manager",
		"/etc/kubernetes/controller-manager.env",
		"kube-controller-manager: one instance, after and with an apiserver");
	controller_cmds(c, p, "scheduler", "kube-scheduler", "kube-scheduler",
		"/etc/kubernetes/scheduler.env",
		"kube-scheduler: one instance, after and with an apiserver");
	if (c->lb_on_masters)
		lb_cmds(c, p);
	cmd = cmd_new(p, "Created stopped, so that nothing started before its order and colocation "
			 "were in place: start them");
	cmd_words(cmd, "resource", "enable", "apiserver-clone", "kcm", "scheduler", NULL);
	if (c->lb_on_masters && c->vipd == CP_VIP_PACEMAKER) {
		cmd_arg(cmd, "vip");
		if (c->has_vip2)
			cmd_arg(cmd, "%s", vip2_name(c));
	}
	return rc;
}

void render_pcs_free(struct pcs_cmds *p)
{
	for (size_t i = 0; i < p->n; i++) {
		for (size_t k = 0; k < p->v[i].argc; k++)
			free(p->v[i].argv[k]);
		free(p->v[i].argv);
		free(p->v[i].comment);
	}
	free(p->v);
	for (size_t i = 0; i < p->nagents; i++)
		free(p->cpha_agents[i]);
	free(p->cpha_agents);
	memset(p, 0, sizeof(*p));
}

/* ---- the script (pure) ---- */

/* A word as sh reads it back: bare when safe, else in single quotes. */
static void sh_word(struct cpha_buf *b, const char *w)
{
	bool bare = *w != 0;

	for (const char *s = w; *s && bare; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    "_@%+=:,./-",
			    *s))
			bare = false;
	if (bare) {
		put(b, "%s", w);
		return;
	}
	put(b, "'");
	for (const char *s = w; *s; s++)
		if (*s == '\'')
			put(b, "'\\''");
		else
			put(b, "%c", *s);
	put(b, "'");
}

void render_pcs_script(const struct cp_cluster *c, const struct pcs_cmds *p, struct cpha_buf *b)
{
	put(b,
		"#!/bin/sh\n"
		"# %s: the Pacemaker configuration of the masters of cluster %s (",
		RENDER_PCS_SCRIPT, c->name);
	for (size_t i = 0, k = 0; i < c->nhosts; i++)
		if (c->hosts[i].roles & CP_ROLE_MASTER)
			put(b, "%s%s", k++ ? " " : "", c->hosts[i].name);
	put(b,
		").\n"
		"# Rendered by `cpha render` from the cluster description: change that, not "
		"this file.\n"
		"# Run it once on one master, when corosync and Pacemaker run on all of them\n"
		"# and the ocf:cpha agents are installed:\n"
		"#     sh %s\n"
		"# Offline, into a CIB file (how cpha render makes cib.xml):\n"
		"#     PCS=\"pcs -f cib.xml\" sh %s\n"
		"# No secret is on these lines: fence agents read them from files.\n"
		"set -eu\n"
		"PCS=${PCS:-pcs}\n",
		RENDER_PCS_SCRIPT, RENDER_PCS_SCRIPT);
	for (size_t i = 0; i < p->n; i++) {
		const struct pcs_cmd *cmd = &p->v[i];
		if (cmd->comment)
			put(b, "\n# %s\n", cmd->comment);
		size_t col = 4;
		put(b, "$PCS");
		for (size_t k = 0; k < cmd->argc; k++) {
			struct cpha_buf w = { 0 };
			bool group = !strcmp(cmd->argv[k], "op") || !strcmp(cmd->argv[k], "clone");

			sh_word(&w, cmd->argv[k]);
			/* continued past 96 columns, and before each operation
			 * and the clone options */
			if (k > 2 && (group || col + 1 + w.len > 96)) {
				put(b, " \\\n   ");
				col = 3;
			}
			put(b, " %s", w.data);
			col += 1 + w.len;
			cpha_buf_free(&w);
		}
		put(b, "\n");
	}
}

/* ---- the CIB (runs cibadmin and pcs) ---- */

const struct render_tool *render_pcs_cib_missing(bool (*have)(const char *tool))
{
	/* crm_resource (agent_installed()) is optional: without it the agents
	 * count as absent, and pacemaker-cli-utils ships it with cibadmin */
	static const struct render_tool tools[] = {
		{ "cibadmin", "pacemaker-cli-utils" },
		{ "pcs", "pcs" },
	};

	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		if (!have(tools[i].name))
			return &tools[i];
	return NULL;
}

static int read_file(const char *path, struct cpha_buf *out)
{
	int r = cpha_buf_read_file(out, path, 0, 0);

	if (r == -ENOMEM)
		cpha_oom();
	return r;
}

/* Write text to path (a file of our temporary directory), whole. */
static int write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600), r;

	if (fd == -1)
		return -errno;
	r = cpha_write_all(fd, text, strlen(text));
	if (close(fd) == -1 && !r)
		r = -errno;
	return r;
}

/* Run argv; 0 when it exited 0, else -1 with its output in d. */
static int run_tool(const struct cp_cluster *c, const char *const *argv, const char *what,
	struct cpha_run_result *res, struct cpha_msgs *d)
{
	bool missing = false;

	if (run_capture(argv, res, &missing) < 0) {
		cpha_msgs_err(d, c->file, (struct cpha_pos){ 0, 0 },
			"cluster:%s: %s is %s, and cib.xml is made with it (offline)", RENDER_CIB,
			argv[0], missing ? "not installed" : "not runnable");
		return -1;
	}
	if (res->exited && res->exit_code == 0)
		return 0;
	cpha_msgs_err(d, c->file, (struct cpha_pos){ 0, 0 },
		"cluster:%s: %s failed (exit %d):\n%s%s", RENDER_CIB, what,
		res->exited ? res->exit_code : -1, res->out, res->err);
	cpha_run_free(res);
	return -1;
}

/* An empty CIB with the masters as nodes, as a running cluster has them
 * (node id = corosync nodeid, uname = name): `pcs stonith level add`
 * refuses a node it does not know. */
static int empty_cib(const struct cp_cluster *c, const char *path, struct cpha_msgs *d)
{
	static const char *const argv[] = { "cibadmin", "--empty", NULL };
	struct cpha_run_result res;
	struct cpha_buf b = { 0 };
	const char *at;
	int rc;

	if (run_tool(c, argv, "cibadmin --empty", &res, d) < 0)
		return -1;
	at = strstr(res.out, "<nodes/>");
	if (!at) {
		cpha_msgs_err(d, c->file, (struct cpha_pos){ 0, 0 },
			"cluster:%s: cibadmin --empty printed no <nodes/>:\n%s", RENDER_CIB,
			res.out);
		cpha_run_free(&res);
		return -1;
	}
	put(&b, "%.*s<nodes>", (int)(at - res.out), res.out);
	for (size_t i = 0; i < c->nhosts; i++)
		if (c->hosts[i].roles & CP_ROLE_MASTER)
			put(&b, "<node id=\"%u\" uname=\"%s\"/>", c->hosts[i].node_id,
				c->hosts[i].name);
	put(&b, "</nodes>%s", at + strlen("<nodes/>"));
	cpha_run_free(&res);
	rc = write_text(path, b.data);
	if (rc < 0)
		cpha_msgs_err(d, c->file, (struct cpha_pos){ 0, 0 }, "cluster:%s: %s: %s",
			RENDER_CIB, path, strerror(-rc));
	cpha_buf_free(&b);
	return rc < 0 ? -1 : 0;
}

/* Is ocf:cpha:AGENT installed where pcs looks for it? */
static bool agent_installed(const char *agent)
{
	char *spec = NULL;
	const char *argv[] = { "crm_resource", "--show-metadata", NULL, NULL };
	struct cpha_run_result res;
	bool ok;

	if (asprintf(&spec, "ocf:cpha:%s", agent) < 0)
		cpha_oom();
	argv[2] = spec;
	ok = run_capture(argv, &res, NULL) == 0;
	if (ok) {
		ok = res.exited && res.exit_code == 0;
		cpha_run_free(&res);
	}
	free(spec);
	return ok;
}

/* Times and counters a CIB carries that say when, not what, are dropped
 * from the <cib> element so that one description gives one file; the
 * nodes empty_cib() added go too: a cluster makes them, not the commands. */
static void normalise(struct cpha_buf *cib)
{
	char *n0 = strstr(cib->data, "<nodes>"), *n1 = n0 ? strstr(n0, "</nodes>") : NULL;

	if (n0 && n1) {
		char *after = n1 + strlen("</nodes>");
		memcpy(n0, "<nodes/>", 8);
		memmove(n0 + 8, after, cib->len - (size_t)(after - cib->data) + 1);
		cib->len -= (size_t)(after - (n0 + 8));
	}
	static const char *const drop[] = { "cib-last-written", "update-origin", "update-client",
		"update-user", "have-quorum", "dc-uuid", "execution-date" };
	char *tag = strstr(cib->data, "<cib "), *end;

	if (!tag || !(end = strchr(tag, '>')))
		return;
	for (size_t i = 0; i < sizeof(drop) / sizeof(drop[0]); i++) {
		char key[64];
		char *at, *q;

		snprintf(key, sizeof(key), " %s=\"", drop[i]);
		at = strstr(tag, key);
		if (!at || at > end || !(q = strchr(at + strlen(key), '"')) || q > end)
			continue;
		q++;
		memmove(at, q, cib->len - (size_t)(q - cib->data) + 1);
		cib->len -= (size_t)(q - at);
		end -= q - at;
	}
}

/* Run command i of p on the CIB file at path. */
static int run_pcs(const struct cp_cluster *c, const struct pcs_cmd *cmd, const char *path,
	bool force, struct cpha_msgs *d)
{
	const char **argv = calloc(cmd->argc + 5, sizeof(*argv));
	struct cpha_buf what = { 0 };
	struct cpha_run_result res;
	size_t n = 0;
	int r;

	if (!argv)
		cpha_oom();
	argv[n++] = "pcs";
	argv[n++] = "-f";
	argv[n++] = path;
	put(&what, "pcs");
	for (size_t k = 0; k < cmd->argc; k++) {
		argv[n++] = cmd->argv[k];
		put(&what, " ");
		sh_word(&what, cmd->argv[k]);
	}
	if (force)
		argv[n++] = "--force";
	argv[n] = NULL;
	r = run_tool(c, argv, what.data, &res, d);
	if (r == 0)
		cpha_run_free(&res);
	cpha_buf_free(&what);
	free(argv);
	return r;
}

/* Does cmd create a resource of an agent that is not installed here? */
static bool needs_force(const struct pcs_cmds *p, const struct pcs_cmd *cmd, const bool *absent)
{
	if (!(cmd->flags & PCS_CMD_OCF_CPHA))
		return false;
	for (size_t w = 0; w < cmd->argc; w++)
		for (size_t k = 0; k < p->nagents; k++)
			if (absent[k] && !strncmp(cmd->argv[w], "ocf:cpha:", 9) &&
				!strcmp(cmd->argv[w] + 9, p->cpha_agents[k]))
				return true;
	return false;
}

int render_pcs_cib(const struct cp_cluster *c, const struct pcs_cmds *p, struct cpha_buf *out,
	struct cpha_msgs *d)
{
	const char *tmp = getenv("TMPDIR");
	bool *absent = calloc(p->nagents + 1, sizeof(*absent));
	char *dir = NULL, *path = NULL;
	int rc = -1, r;

	if (!absent || asprintf(&dir, "%s/cpha-cib.XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0)
		cpha_oom();
	if (!mkdtemp(dir)) {
		cpha_msgs_err(d, c->file, (struct cpha_pos){ 0, 0 }, "cluster:%s: mkdtemp %s: %s",
			RENDER_CIB, dir, strerror(errno));
		free(dir);
		free(absent);
		return -1;
	}
	if (asprintf(&path, "%s/cib.xml", dir) < 0)
		cpha_oom();
	if (empty_cib(c, path, d) < 0)
		goto out;
	/* pcs checks a resource's parameters against its agent's metadata; an
	 * agent not installed here is created with --force (the script, run
	 * where the agents are, does not force) */
	for (size_t i = 0; i < p->nagents; i++)
		if (!agent_installed(p->cpha_agents[i])) {
			absent[i] = true;
			fprintf(stderr,
				"cpha render: ocf:cpha:%s is not installed here: pcs could not "
				"check its parameters for %s\n",
				p->cpha_agents[i], RENDER_CIB);
		}
	for (size_t i = 0; i < p->n; i++)
		if (run_pcs(c, &p->v[i], path, needs_force(p, &p->v[i], absent), d) < 0)
			goto out;
	r = read_file(path, out);
	if (r < 0) {
		cpha_msgs_err(d, c->file, (struct cpha_pos){ 0, 0 }, "cluster:%s: %s: %s",
			RENDER_CIB, path, strerror(-r));
		goto out;
	}
	normalise(out);
	rc = 0;
out:
	unlink(path);
	if (rmdir(dir) == -1)
		fprintf(stderr, "cpha render: %s: %s (left behind)\n", dir, strerror(errno));
	free(path);
	free(dir);
	free(absent);
	return rc;
}
