/* `cpha render` for the HA layer: corosync.conf and fenced.conf of every
 * host of the two corosync clusters (the masters; the load-balancer hosts
 * when they are apart), and, when Pacemaker manages the masters, the pcs
 * script and the CIB it makes (render_pcs.c). Everything but the CIB is
 * pure text from the model. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"
#include "render.h"
#include "render_ha.h"
#include "render_text.h"
#include "run.h"

#define put render_text_put

/* totem token in ms: corosync 3's default, a LAN with headroom for a busy
 * host (shorter tokens fence hosts that only stalled) */
#define HA_TOKEN_MS             3000u
#define HA_TOKEN_COEFFICIENT_MS 650u /* corosync's default, per node beyond two */

enum ha_tier ha_tier_of(const struct cp_cluster *c, const struct cp_host *h)
{
	if (h->roles & CP_ROLE_MASTER)
		return HA_TIER_MASTERS;
	/* fencing.load_balancers: none: no corosync, no fenced */
	if ((h->roles & CP_ROLE_LB) && !c->lbs_unfenced)
		return HA_TIER_LBS;
	return HA_TIER_NONE;
}

size_t ha_tier_count(const struct cp_cluster *c, enum ha_tier t)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nhosts; i++)
		if (ha_tier_of(c, &c->hosts[i]) == t && t != HA_TIER_NONE)
			n++;
	return n;
}

const struct cp_host *ha_tier_host(const struct cp_cluster *c, enum ha_tier t, size_t i)
{
	for (size_t k = 0; k < c->nhosts; k++)
		if (ha_tier_of(c, &c->hosts[k]) == t && t != HA_TIER_NONE && !i--)
			return &c->hosts[k];
	return NULL;
}

bool ha_tier_holds_vip(const struct cp_cluster *c, enum ha_tier t)
{
	return t == (c->lb_on_masters ? HA_TIER_MASTERS : HA_TIER_LBS);
}

bool ha_tier_fence_via_pacemaker(const struct cp_cluster *c, enum ha_tier t)
{
	return t == HA_TIER_MASTERS && c->manager == CP_MGR_PACEMAKER;
}

static const char *tier_suffix(enum ha_tier t)
{
	return t == HA_TIER_MASTERS ? "masters" : "lb";
}

static unsigned tier_role(enum ha_tier t)
{
	return t == HA_TIER_MASTERS ? CP_ROLE_MASTER : CP_ROLE_LB;
}

bool ha_tier_qdevice(const struct cp_cluster *c, enum ha_tier t)
{
	return t != HA_TIER_NONE && cluster_qdevice_serves(c, tier_role(t));
}

/* quorum.device of corosync-qdevice(8), model net. ffsplit gives one vote
 * (votes: 1 whatever the node count); lms needs corosync's default, one
 * less than the nodes' votes, so it is left out. */
static void corosync_qdevice(const struct cp_cluster *c, enum ha_tier t, struct cpha_buf *b)
{
	const struct cp_qdevice *q = &c->qdevice;
	char a[CPHA_ADDR_STRLEN], tie[16], vip[CPHA_ADDR_STRLEN];

	put(b,
		"    # corosync-qdevice asks corosync-qnetd on %s%s%s%s: in a split only the\n"
		"    # side it gives its vote keeps quorum (and fences); no fence race\n"
		"    device {\n"
		"        model: net\n",
		render_text_addr(&q->addr, a, sizeof(a)), q->host ? " (" : "",
		q->host ? q->host : "", q->host ? ")" : "");
	if (q->algorithm == CP_QD_FFSPLIT)
		put(b, "        votes: 1\n");
	put(b,
		"        net {\n"
		"            host: %s\n"
		"            port: %u\n"
		"            algorithm: %s\n"
		"            tie_breaker: %s\n"
		"            tls: %s\n"
		"        }\n",
		a, q->port, cluster_qd_algorithm_name(q->algorithm),
		cluster_qd_tie_text(q, tie, sizeof(tie)), cluster_qd_tls_name(q->tls));
	if (!ha_tier_holds_vip(c, t)) {
		put(b, "    }\n");
		return;
	}
	/* an even split that both sides' devices report goes to the side
	 * whose heuristics pass (corosync-qdevice(8), ffsplit's score): the
	 * VIP holder's, as the fence race would have it, not the tie-breaker's
	 * (which would move the VIP for nothing) */
	put(b,
		"        # an even split: the side holding the VIP wins (qnetd's score\n"
		"        # counts heuristics before the tie-breaker)\n"
		"        heuristics {\n"
		"            mode: sync\n"
		"            exec_holds_vip: /bin/sh -c \"ip -o addr show | grep -qF ' %s/'\"\n"
		"        }\n"
		"    }\n",
		render_text_addr(&c->vip, vip, sizeof(vip)));
}

/* corosync.conf: knet with encryption (the authkey is made once with
 * corosync-keygen and copied to every node of the cluster), votequorum
 * (with the quorum device when qdevice: serves the tier), syslog. */
static void corosync_conf(
	const struct cp_cluster *c, enum ha_tier t, const struct cp_host *self, struct cpha_buf *b)
{
	size_t n = ha_tier_count(c, t);
	unsigned token = HA_TOKEN_MS + (n > 2 ? (unsigned)(n - 2) * HA_TOKEN_COEFFICIENT_MS : 0);
	char a[CPHA_ADDR_STRLEN];

	put(b,
		"# %s on %s: the corosync cluster of the %s of cluster %s.\n"
		"# Rendered by `cpha render` from the cluster description: change that, not "
		"this file.\n"
		"# Every node needs the same /etc/corosync/authkey (`cpha pki` makes it:\n# "
		"corosync-authkey).\n\n",
		RENDER_COROSYNC_CONF, self->name,
		t == HA_TIER_MASTERS ? "masters" : "load-balancer hosts", c->name);
	put(b,
		"totem {\n"
		"    version: 2\n"
		"    cluster_name: %s-%s\n"
		"    transport: knet\n"
		"    crypto_cipher: aes256\n"
		"    crypto_hash: sha256\n"
		"    token: %u\n"
		"    token_coefficient: %u\n"
		"    # 1.2 x the token corosync uses with %zu node%s\n"
		"    consensus: %u\n"
		"}\n\n"
		"nodelist {\n",
		c->name, tier_suffix(t), HA_TOKEN_MS, HA_TOKEN_COEFFICIENT_MS, n, n == 1 ? "" : "s",
		(token * 6 + 4) / 5);
	for (size_t i = 0; i < n; i++) {
		const struct cp_host *h = ha_tier_host(c, t, i);
		put(b,
			"    node {\n"
			"        ring0_addr: %s\n"
			"        name: %s\n"
			"        nodeid: %u\n"
			"    }\n",
			render_text_addr(&h->addr, a, sizeof(a)), h->name, h->node_id);
	}
	put(b, "}\n\n"
	       "quorum {\n"
	       "    provider: corosync_votequorum\n");
	/* corosync refuses two_node with a quorum device */
	if (ha_tier_qdevice(c, t))
		corosync_qdevice(c, t, b);
	else if (n == 2)
		put(b, "    # each node keeps quorum alone (wait_for_all at start); the fence "
		       "race decides\n"
		       "    two_node: 1\n");
	put(b, "}\n\n"
	       "logging {\n"
	       "    to_logfile: no\n"
	       "    to_stderr: no\n"
	       "    to_syslog: yes\n"
	       "    syslog_facility: daemon\n"
	       "    timestamp: off\n"
	       "}\n");
}

/* The devices that fence a host, in the order of the description. */
static bool fences(const struct cp_fence_device *f, const struct cp_host *h)
{
	return !strcmp(f->host, h->name);
}

static void fenced_device(const struct cp_fence_device *f, struct cpha_buf *b)
{
	put(b, "fence_device %s {\n    agent %s\n", f->name, f->agent);
	for (size_t i = 0; i < f->nparams; i++)
		put(b, "    %s %s\n", f->params[i].key, f->params[i].value);
	put(b, "}\n");
}

/* The static delay before fencing host h, protecting the first node of a
 * two-node cluster in a fence race; 0 when none. With a quorum device
 * there is no race: the side without its vote has no quorum and fences
 * nobody. */
static uint64_t first_node_delay(
	const struct cp_cluster *c, enum ha_tier t, const struct cp_host *h)
{
	if (ha_tier_qdevice(c, t) || ha_tier_count(c, t) != 2 || ha_tier_host(c, t, 0) != h)
		return 0;
	return c->fence_delay_usec;
}

static void fenced_node(const struct cp_cluster *c, enum ha_tier t, const struct cp_host *h,
	bool levels, struct cpha_buf *b)
{
	uint64_t delay = first_node_delay(c, t, h);
	/* the VIP holder's edge in a fence race; with a quorum device the
	 * device picks the side that fences, and a delay would only keep the
	 * VIP away longer from the side that won */
	bool vip = ha_tier_holds_vip(c, t) && c->vipd == CP_VIP_VIPD && c->priority_delay_usec &&
		   !ha_tier_qdevice(c, t);
	bool any = false;
	char dur[32];

	for (unsigned lvl = 1; levels && lvl <= 9; lvl++) {
		bool open = false;
		for (size_t i = 0; i < c->ndevices; i++) {
			const struct cp_fence_device *f = &c->devices[i];
			if (!fences(f, h) || f->level != lvl)
				continue;
			if (!any)
				put(b, "\nfence_node %s {\n", h->name);
			if (!open)
				put(b, "    level %u {\n", lvl);
			put(b, "        %s\n", f->name);
			any = open = true;
		}
		if (open)
			put(b, "    }\n");
	}
	if (!any && !delay && !vip)
		return;
	/* no device and no watchdog: nothing can fence it (cpha plan warns);
	 * a fence_node with only delays would be refused by fenced -c */
	if (!any && levels && !c->watchdog_device)
		return;
	if (!any)
		put(b, "\nfence_node %s {\n", h->name);
	if (delay)
		put(b, "    delay %s\n", cpha_format_duration(delay, dur, sizeof(dur)));
	if (vip)
		put(b, "    priority_delay_vip %s\n",
			cpha_format_duration(c->priority_delay_usec, dur, sizeof(dur)));
	put(b, "}\n");
}

/* fenced.conf of one host of tier t: every node's levels (the same on all
 * hosts of the tier: any member may be the one that fences). */
static int fenced_conf(const struct cp_cluster *c, enum ha_tier t, const struct cp_host *self,
	struct cpha_buf *b, struct cpha_msgs *d)
{
	bool pcmk = ha_tier_fence_via_pacemaker(c, t);
	bool vipd = ha_tier_holds_vip(c, t) && c->vipd == CP_VIP_VIPD;
	size_t n = ha_tier_count(c, t);
	char dur[32];

	put(b, "! %s on %s: fencing in the corosync cluster %s-%s (", RENDER_FENCED_CONF,
		self->name, c->name, tier_suffix(t));
	for (size_t i = 0; i < n; i++)
		put(b, "%s%s", i ? " " : "", ha_tier_host(c, t, i)->name);
	put(b, ").\n"
	       "! Rendered by `cpha render` from the cluster description: change that, not "
	       "this file.\n"
	       "! Secrets stay in the files the KEY_file parameters name.\n\n");
	/* post_fail_delay: a ring that breaks for a moment (packet loss)
	 * merges back within a second, and fenced averts the fence of a node
	 * back in both memberships when its turn comes; with 0, it powered
	 * off a master that had been out of the membership for 0.24 s */
	put(b, "global_defs {\n"
	       "    post_join_delay 6s\n"
	       "    post_fail_delay 1s\n"
	       "    fence_action reboot\n"
	       "    agent_timeout 60s\n"
	       "    power_check_timeout 5s\n"
	       "    retry_interval 10s\n");
	if (pcmk)
		put(b, "    ! Pacemaker runs on these hosts: one cluster, one fencer\n"
		       "    fence_via pacemaker\n");
	put(b, "    fenced_admin_socket " RENDER_FENCED_SOCKET "\n");
	if (vipd)
		put(b,
			"    ! who holds the VIP, for %s\n"
			"    vip_admin_socket " RENDER_VIPD_SOCKET "\n",
			ha_tier_qdevice(c, t)
				? "fenced's status (the quorum device decides a split)"
				: "priority_delay_vip");
	render_mon_lines(c, self, "fenced_metrics_bind", "fenced_metrics_web_config",
		RENDER_FENCED_METRICS_PORT, "!", b);
	put(b, "}\n");
	if (!pcmk)
		for (size_t i = 0; i < c->ndevices; i++) {
			const struct cp_host *h = cluster_host(c, c->devices[i].host);
			if (h && ha_tier_of(c, h) == t) {
				put(b, "\n");
				fenced_device(&c->devices[i], b);
			}
		}
	if (pcmk)
		put(b, "\n! Pacemaker's stonith devices and levels fence (pcs-commands.sh); "
		       "fenced asks it.\n");
	for (size_t i = 0; i < n; i++)
		fenced_node(c, t, ha_tier_host(c, t, i), !pcmk, b);
	if (c->watchdog_device) {
		uint64_t s = (c->watchdog_timeout_usec + 999999) / 1000000;
		if (c->watchdog_timeout_usec % 1000000 || s < 1 || s > 255) {
			cpha_msgs_err(d, c->file, c->fencing_pos,
				"fencing.watchdog_timeout: %s: the watchdog takes whole seconds "
				"from 1s to 255s",
				cpha_format_duration(c->watchdog_timeout_usec, dur, sizeof(dur)));
			return -1;
		}
		put(b,
			"\n! self-fencing on quorum loss, or when fenced hangs\n"
			"watchdog {\n"
			"    device %s\n"
			"    timeout %s\n"
			"}\n",
			c->watchdog_device,
			cpha_format_duration(c->watchdog_timeout_usec, dur, sizeof(dur)));
	}
	return 0;
}

int render_ha_files(const struct cp_cluster *c, struct render_set *s, struct cpha_msgs *d)
{
	int rc = 0;

	for (size_t i = 0; i < c->nhosts; i++) {
		const struct cp_host *h = &c->hosts[i];
		enum ha_tier t = ha_tier_of(c, h);

		if (t == HA_TIER_NONE)
			continue;
		corosync_conf(c, t, h,
			render_add(s, h->name, RENDER_COROSYNC_CONF, 0644, RENDER_CHECK_NONE));
		if (fenced_conf(c, t, h,
			    render_add(s, h->name, RENDER_FENCED_CONF, 0644, RENDER_CHECK_FENCED),
			    d) < 0)
			rc = -1;
		if (render_mon_web(c))
			render_mon_web_file(c, h, "fenced",
				render_add(s, h->name, RENDER_FENCED_WEB, 0600, RENDER_CHECK_YAML));
	}
	return rc;
}

static bool installed(const char *tool)
{
	char *p = run_which(tool);

	free(p);
	return p != NULL;
}

int render_ha(const struct cp_cluster *c, struct render_set *s, struct cpha_msgs *d)
{
	struct pcs_cmds p = { 0 };
	const struct render_tool *t;
	char *why = NULL;
	int rc = render_ha_files(c, s, d);

	if (c->manager != CP_MGR_PACEMAKER)
		return rc;
	if (render_pcs_commands(c, &p, d) < 0) {
		render_pcs_free(&p);
		return -1;
	}
	render_pcs_script(c, &p, render_add(s, NULL, RENDER_PCS_SCRIPT, 0755, RENDER_CHECK_NONE));
	if (s->hosts_only) {
		render_pcs_free(&p);
		return rc;
	}
	t = rc == 0 ? render_pcs_cib_missing(installed) : NULL;
	if (t && asprintf(&why, "%s not found (install %s to make it)", t->name, t->package) < 0)
		cpha_oom();
	if (t && s->tools_optional) {
		render_skip(s, NULL, RENDER_CIB, why);
	} else if (t) {
		cpha_msgs_err(d, c->file, (struct cpha_pos){ 0, 0 },
			"cluster:%s: %s; --no-check writes the other files without it", RENDER_CIB,
			why);
		rc = -1;
	} else if (rc == 0 &&
		   render_pcs_cib(
			   c, &p, render_add(s, NULL, RENDER_CIB, 0644, RENDER_CHECK_CIB), d) < 0) {
		rc = -1;
	}
	free(why);
	render_pcs_free(&p);
	return rc;
}
