/* The fenced daemon: corosync's view in (corosync.c), decisions in the
 * middle (decide.c), carried out by run.c (agent runs, agent.c) and CPG
 * broadcasts out.
 *
 * Messages in the group, one line each, in the group's agreed order:
 *   FENCED <id> <by> <how>        node id was fenced by member by; how is
 *                                 agent, watchdog or ack
 *   ATTEMPT <id> <level> <ok|failed> <text>
 *                                 the fencer's run of a level ended
 *   VIP <0|1>                     the sender holds the VIP (1) or not
 *   SKIPPED <id> <by>             member by, which was to fence node id,
 *                                 spared it (merged back): all drop it
 * Every member records FENCED and ATTEMPT lines in its history when they
 * are delivered, so all histories agree. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "admin.h"
#include "event.h"
#include "fenced.h"
#include "log.h"
#include "metrics.h"
#include "webcfg.h"

/* What corosync says of each node now, for the start-up victims rule
 * (decide.h: cs_member): before every decision that may fence one. */
static void cs_members(struct fenced *d)
{
	size_t i;

	for (i = 0; i < d->nnodes; i++)
		d->nodes[i].cs_member = d->cs && d->nodes[i].cfg.id != d->st.our_id &&
					fenced_cs_member_now(d->cs, d->nodes[i].cfg.id);
}

static int on_timer(sd_event_source *s, uint64_t usec, void *ud)
{
	struct fenced *d = ud;
	struct decide_out out;

	(void)s;
	(void)usec;
	cs_members(d);
	decide_timer(&d->st, fenced_mono(), &out);
	fenced_apply(d, &out);
	return 0;
}

/* ---- what corosync says ---- */

/* Node i was seen alive (it joined, or spoke): an earlier "off" of the
 * power-check is stale, and a read still running is cancelled. */
static void power_forget(struct fenced *d, size_t i, const char *why)
{
	struct fenced_nd *n = &d->nd[i];

	if (n->prun) {
		fenced_power_cancel(n->prun);
		n->prun = NULL;
	}
	if (n->power == FENCED_POWER_OFF)
		log_notice("%s: %s, so its power is on again", n->name, why);
	n->power = FENCED_POWER_UNKNOWN;
}

static void set_quorum(struct fenced *d, bool quorate);

static void on_confchg(void *ud, const struct fenced_cs_member *members, size_t nmembers,
	const struct decide_left *left, size_t nleft, const struct fenced_cs_member *joined,
	size_t njoined)
{
	static const char *const why[] = { "left cleanly", "node down", "fenced process down" };
	struct fenced *d = ud;
	struct decide_joined j[128];
	enum decide_node_state was[128];
	uint32_t ids[128];
	struct decide_out out;
	size_t k, i, nj = 0;
	char b[32];
	int q;

	for (k = 0; k < nleft; k++) {
		i = decide_find(&d->st, left[k].id);
		if (i == (size_t)-1)
			continue;
		log_notice("%s left the fence domain: %s",
			fenced_node_name(d, left[k].id, b, sizeof(b)), why[left[k].reason]);
		/* a member that leaves no longer holds the VIP as far as we know,
		 * but a victim keeps the flag it had: the race rule needs it */
		if (left[k].reason == DECIDE_LEFT_CLEAN)
			d->nd[i].vip = false;
	}
	/* clean: a fenced process we have not seen before (the host or the
	 * daemon restarted); the same pid coming back is a merge after a
	 * partition: it kept its old state. */
	for (k = 0; k < njoined && nj < 128; k++) {
		i = decide_find(&d->st, joined[k].id);
		j[nj].id = joined[k].id;
		j[nj].clean = i != (size_t)-1 && d->nd[i].pid != joined[k].pid;
		nj++;
		if (i != (size_t)-1)
			power_forget(d, i, "it joined the fence domain");
		if (i != (size_t)-1)
			log_notice("%s joined the fence domain%s",
				fenced_node_name(d, joined[k].id, b, sizeof(b)),
				d->nd[i].pid && d->nd[i].pid == joined[k].pid
					? " again with its old state (a merge)"
					: "");
	}
	for (k = 0; k < nmembers && k < 128; k++) {
		ids[k] = members[k].id;
		i = decide_find(&d->st, members[k].id);
		if (i != (size_t)-1)
			d->nd[i].pid = members[k].pid;
	}
	/* a member that joined learns who holds the VIP from the holder */
	if (njoined && d->self_vip)
		fenced_send_line(d, "VIP 1");
	d->nmembers = (uint32_t)(nmembers < 128 ? nmembers : 128);
	/* the quorum of this membership. Lost, it is learnt before the change
	 * decides anything: never after the victims it forbids fencing.
	 * Gained, it is learnt after: a victim that merges back with it is a
	 * member again when its turn is looked at, and its fence is averted
	 * (decide.h), where quorum first would fence it as still away. */
	q = fenced_cs_quorate_now(d->cs);
	if (q == 0 && d->quorate)
		set_quorum(d, false);
	for (i = 0; i < d->nnodes; i++)
		was[i] = d->nodes[i].state;
	cs_members(d);
	decide_membership(&d->st, fenced_mono(), ids, d->nmembers, left, nleft, j, nj, &out);
	for (i = 0; i < d->nnodes; i++) {
		struct decide_node *fn = &d->nodes[i];
		uint32_t by;

		if (was[i] != DECIDE_OK || fn->state == DECIDE_OK)
			continue;
		by = decide_fencer(&d->st, i);
		d->nd[i].victim_since = fenced_wall();
		log_warn("%s failed: to be fenced in %.1f s by %s%s", d->nd[i].name,
			(double)fn->delay / 1e6, fenced_node_name(d, by, b, sizeof(b)),
			d->quorate || q > 0 ? "" : ", once this partition is quorate");
		fenced_history(d, d->nd[i].name, "victim", by, 0, fn->delay, true,
			"failed; fenced in %.1f s by %s", (double)fn->delay / 1e6,
			fenced_node_name(d, by, b, sizeof(b)));
	}
	for (k = 0; k < njoined; k++) {
		i = decide_find(&d->st, joined[k].id);
		if (i != (size_t)-1 && d->nodes[i].state == DECIDE_OK)
			fenced_unfence(d, i);
	}
	fenced_apply(d, &out);
	if (q > 0 && !d->quorate)
		set_quorum(d, true);
	cpha_notify_status("%s, %u members", d->quorate ? "quorate" : "not quorate", d->nmembers);
}

static void deliver_fenced(struct fenced *d, uint32_t from, const char *msg)
{
	uint32_t id = 0, by = 0;
	char how[16] = "", b2[32];
	struct decide_out out;
	size_t i;

	if (sscanf(msg, "FENCED %" SCNu32 " %" SCNu32 " %15s", &id, &by, how) != 3 ||
		(i = decide_find(&d->st, id)) == (size_t)-1)
		return;
	if ((d->nd[i].run || d->nd[i].pcmk_busy) && by != d->st.our_id) {
		log_notice("fencing %s: %s reports it fenced; our agent is stopped", d->nd[i].name,
			fenced_node_name(d, from, b2, sizeof(b2)));
		fenced_cancel_run(d, &d->nd[i]);
	}
	decide_remote_fenced(&d->st, fenced_mono(), id, by, &out);
	d->nodes[i].fenced_by = by;
	d->nd[i].vip = false;
	d->nd[i].victim_since = 0;
	d->nd[i].fenced++;
	d->fenced++;
	if (strcmp(how, "ack") == 0)
		d->acks++;
	cpha_log(strcmp(how, "ack") == 0 ? LOG_WARNING : LOG_NOTICE, "%s fenced by %s (%s)",
		d->nd[i].name, fenced_node_name(d, by, b2, sizeof(b2)), how);
	fenced_history(d, d->nd[i].name, strcmp(how, "ack") == 0 ? "ack" : "fenced", by, 0, 0, true,
		"%s", how);
	fenced_apply(d, &out);
}

/* "SKIPPED ID BY": BY, the member that fences ID, spared it (it merged back
 * while BY had no quorum). */
static void deliver_skipped(struct fenced *d, const char *msg)
{
	uint32_t id = 0, by = 0;
	struct decide_out out;

	if (sscanf(msg, "SKIPPED %" SCNu32 " %" SCNu32, &id, &by) != 2 || by == d->st.our_id)
		return;
	decide_remote_skipped(&d->st, fenced_mono(), id, by, &out);
	fenced_apply(d, &out);
}

static void deliver_attempt(struct fenced *d, uint32_t from, const char *msg)
{
	uint32_t id = 0;
	unsigned level = 0;
	char res[16] = "", secs[16] = "";
	int off = 0;
	size_t i;

	if (sscanf(msg, "ATTEMPT %" SCNu32 " %u %15s %15s %n", &id, &level, res, secs, &off) < 4 ||
		(i = decide_find(&d->st, id)) == (size_t)-1)
		return;
	fenced_history(d, d->nd[i].name, "attempt", from, (int)level, 0, strcmp(res, "ok") == 0,
		"%s in %s%s%s", res, secs, off && msg[off] ? ": " : "", off ? msg + off : "");
}

uint32_t fenced_vip_holder(const struct fenced *d)
{
	size_t i;

	for (i = 0; i < d->nnodes; i++)
		if (d->nd[i].vip)
			return d->nodes[i].cfg.id;
	return 0;
}

static void on_deliver(void *ud, uint32_t from, const char *data, size_t len)
{
	struct fenced *d = ud;
	char msg[512];
	size_t i;

	if (!len || len >= sizeof(msg))
		return;
	memcpy(msg, data, len);
	msg[len] = '\0';
	if (strncmp(msg, "FENCED ", 7) == 0) {
		deliver_fenced(d, from, msg);
	} else if (strncmp(msg, "ATTEMPT ", 8) == 0) {
		deliver_attempt(d, from, msg);
	} else if (strncmp(msg, "SKIPPED ", 8) == 0) {
		deliver_skipped(d, msg);
	} else if (strncmp(msg, "VIP ", 4) == 0) {
		i = decide_find(&d->st, from);
		if (i == (size_t)-1)
			return;
		if (d->nd[i].power == FENCED_POWER_OFF)
			power_forget(d, i, "it spoke");
		d->nd[i].vip = msg[4] == '1';
		decide_vip(&d->st, fenced_vip_holder(d));
	}
}

static void set_quorum(struct fenced *d, bool quorate)
{
	struct decide_out out;
	int r;

	if (quorate != d->quorate)
		log_notice("the partition is %s", quorate ? "quorate" : "NOT quorate: no fencing");
	d->quorate = quorate;
	if (d->wd && (r = fenced_wd_set(d->wd, quorate)) < 0)
		log_err("watchdog %s: %s", d->cfg->watchdog.device, strerror(-r));
	/* quorum gained in a two_node cluster means the other node arrived:
	 * its corosync membership must be known before its fenced's CPG join */
	cs_members(d);
	decide_quorum(&d->st, fenced_mono(), quorate, &out);
	fenced_apply(d, &out);
	cpha_notify_status("%s, %u members", d->quorate ? "quorate" : "not quorate", d->nmembers);
}

static void on_quorum(void *ud, bool quorate, const uint32_t *members, size_t nmembers)
{
	struct fenced *d = ud;
	int q;

	/* sent at the end of a membership change: it settles the victims
	 * it no longer counts (decide.h, with a quorum device) */
	decide_vq_members(&d->st, members, nmembers);
	/* a notification may be older than what a configuration change
	 * already asked for: ask again */
	q = d->cs ? fenced_cs_quorate_now(d->cs) : -1;
	set_quorum(d, q >= 0 ? q != 0 : quorate);
}

static void on_lost(void *ud, const char *why)
{
	struct fenced *d = ud;

	/* Without corosync there is no membership and no quorum: stop petting
	 * the watchdog (an armed one resets the node, as SBD does) and exit,
	 * for the service manager to start us again after corosync. */
	log_err("lost corosync (%s): stopping", why);
	d->quorate = false;
	if (d->wd)
		fenced_wd_set(d->wd, false);
	sd_event_exit(d->e, 1);
}

static const struct fenced_cs_ops cs_ops = {
	.confchg = on_confchg,
	.deliver = on_deliver,
	.quorum = on_quorum,
	.lost = on_lost,
};

/* ---- the VIP: ask the local vipd, tell the group when it changes ---- */

/* a vipd that does not answer in this keeps what we said of it */
#define VIPD_QUERY_USEC 500000ULL

static void set_self_vip(struct fenced *d, bool holds);

/* The local vipd's "show json": does any instance hold the VIP? */
static void on_vip_reply(void *ud, int r, char *reply)
{
	struct fenced *d = ud;
	json_t *j, *insts, *in;
	size_t k;
	bool holds = false;

	d->vip_req = NULL;
	if (r < 0) {
		free(reply);
		return; /* it did not answer: what we said stays */
	}
	j = json_loads(reply, 0, NULL);
	free(reply);
	insts = j ? json_object_get(j, "instances") : NULL;
	json_array_foreach(insts, k, in)
	{
		const char *st = json_string_value(json_object_get(in, "state"));

		if (st && strcmp(st, "MASTER") == 0)
			holds = true;
	}
	json_decref(j);
	set_self_vip(d, holds);
}

static void set_self_vip(struct fenced *d, bool holds)
{
	if (holds != d->self_vip) {
		d->self_vip = holds;
		log_info("this node %s the VIP", holds ? "holds" : "no longer holds");
		fenced_send_line(d, "VIP %d", holds);
	}
}

static int on_vip_timer(sd_event_source *s, uint64_t usec, void *ud)
{
	struct fenced *d = ud;
	const char *path =
		d->cfg->global.vip_socket ? d->cfg->global.vip_socket : FENCED_DEFAULT_VIP_SOCKET;

	(void)usec;
	cpha_timer_rearm(s, 1000000);
	if (d->vip_req)
		return 0; /* the last question is still out */
	if (access(path, F_OK) != 0) {
		set_self_vip(d, false); /* no vipd here, or it stopped (and removed its socket) */
		return 0;
	}
	/* not a blocking query: vipd with track_fenced asks us at any time,
	 * and two loops each waiting for the other answer neither */
	if (cpha_admin_query_async(
		    d->e, path, "show json", VIPD_QUERY_USEC, on_vip_reply, d, &d->vip_req) < 0)
		d->vip_req = NULL;
	return 0;
}

/* ---- ack, start, stop, reload ---- */

int fenced_ack(struct fenced *d, const char *node, uid_t uid, char *why, size_t whylen)
{
	size_t i;

	for (i = 0; i < d->nnodes; i++)
		if (strcmp(d->nd[i].name, node) == 0)
			break;
	if (i == d->nnodes) {
		snprintf(why, whylen, "no node '%s' in corosync's nodelist", node);
		return -ENOENT;
	}
	if (d->nodes[i].state == DECIDE_OK) {
		snprintf(why, whylen, "%s is not waiting to be fenced", node);
		return -EALREADY;
	}
	log_warn("%s acknowledged as fenced by the administrator (uid %u): fencing ends", node,
		(unsigned)uid);
	fenced_send_line(d, "FENCED %" PRIu32 " %" PRIu32 " ack", d->nodes[i].cfg.id, d->st.our_id);
	return 0;
}

/* The nodelist with each node's fence_node. */
static int load_nodes(struct fenced *d, char *why, size_t whylen)
{
	struct fenced_cs_node *cn = NULL;
	size_t n = 0, i, k;
	int r;

	r = fenced_cs_nodelist(d->cs, &cn, &n, &d->qcfg, why, whylen);
	if (r < 0)
		return r;
	d->nodes = calloc(n, sizeof(*d->nodes));
	d->nd = calloc(n, sizeof(*d->nd));
	if (!d->nodes || !d->nd) {
		free(cn);
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	d->nnodes = n;
	for (i = 0; i < n; i++) {
		d->nd[i].d = d;
		d->nd[i].idx = i;
		snprintf(d->nd[i].name, sizeof(d->nd[i].name), "%s", cn[i].name);
		d->nodes[i].cfg.id = cn[i].id;
	}
	free(cn);
	for (k = 0; k < d->cfg->nnodes; k++) {
		for (i = 0; i < n; i++)
			if (strcmp(d->nd[i].name, d->cfg->nodes[k].name) == 0)
				break;
		if (i == n)
			log_warn("%s: fence_node %s is not in corosync's nodelist", d->cfg->file,
				d->cfg->nodes[k].name);
	}
	return 0;
}

/* Copy the configuration's per-node settings into the decisions' nodes. */
static void node_settings(struct fenced *d)
{
	size_t i;

	for (i = 0; i < d->nnodes; i++) {
		const struct fenced_node *c = fenced_cfg_node(d->cfg, d->nd[i].name);
		struct decide_node_cfg *fc = &d->nodes[i].cfg;

		d->nd[i].cfg = c;
		fc->delay = c ? c->delay : 0;
		fc->delay_max = c ? c->delay_max : 0;
		fc->priority_delay_vip = c ? c->priority_delay_vip : 0;
		fc->nlevels = c ? (unsigned)c->nlevels : 0;
		fc->round_timeout = 0;
		if (d->cfg->global.via == FENCED_VIA_PACEMAKER) {
			fc->nlevels = 1; /* Pacemaker's topology has the levels */
			fc->round_timeout = d->cfg->global.agent_timeout; /* one request */
			continue;
		}
		/* a level runs its devices one after the other, "off" each */
		for (size_t l = 0; c && l < c->nlevels; l++)
			fc->round_timeout += c->levels[l].nuses * d->cfg->global.agent_timeout;
		if (!c && !d->cfg->watchdog.set)
			log_warn("%s has no fence_node and there is no watchdog: it cannot be "
				 "fenced; only 'fenced ack %s' ends its wait",
				d->nd[i].name, d->nd[i].name);
	}
}

static void decide_config(const struct fenced *d, struct decide_config *fc)
{
	memset(fc, 0, sizeof(*fc));
	fc->post_join_delay = d->cfg->global.post_join_delay;
	fc->post_fail_delay = d->cfg->global.post_fail_delay;
	fc->retry_interval = d->cfg->global.retry_interval;
	fc->watchdog_timeout = d->cfg->watchdog.set ? d->cfg->watchdog.timeout : 0;
	fc->clean_start = d->cfg->global.clean_start;
}

int fenced_start(struct fenced *d, char *why, size_t whylen)
{
	struct decide_config fc;
	uint64_t seed;
	size_t i;
	int r;

	d->reload = fenced_reload;
	r = fenced_cs_open(d->e, &cs_ops, d, &d->cs, why, whylen);
	if (r < 0)
		return r;
	r = load_nodes(d, why, whylen);
	if (r < 0)
		return r;
	if (decide_find(&(struct decide_state){ .nodes = d->nodes, .nnodes = d->nnodes },
		    fenced_cs_our_id(d->cs)) == (size_t)-1) {
		snprintf(why, whylen, "our node id %u is not in corosync's nodelist",
			fenced_cs_our_id(d->cs));
		return -ENOENT;
	}
	if (d->nnodes > 128) {
		snprintf(why, whylen, "corosync's nodelist has %zu nodes; fenced takes 128",
			d->nnodes);
		return -E2BIG;
	}
	node_settings(d);
	if (d->cfg->watchdog.set && d->qcfg.two_node && !d->qcfg.qdevice)
		for (i = 0; i < d->nnodes; i++)
			if (!d->nd[i].cfg) {
				snprintf(why, whylen,
					"%s is fenced by its watchdog only, in a two-node cluster "
					"without a quorum device: both halves keep quorum in a "
					"split, so neither resets; give it a fence_node or "
					"corosync a quorum device",
					d->nd[i].name);
				return -EINVAL;
			}
	if (d->cfg->watchdog.set) {
		r = fenced_wd_new(d->e, d->cfg->watchdog.device, d->cfg->watchdog.timeout, &d->wd);
		if (r < 0)
			return r;
	}
	if (d->cfg->global.via == FENCED_VIA_PACEMAKER) {
		char pwhy[256];

		/* pacemaker-fenced may come up after us: asked again per request */
		if (fenced_pcmk_open(d->e, &d->pcmk, pwhy, sizeof(pwhy)) < 0)
			log_warn("%s; asked again when a node must be fenced", pwhy);
		else
			log_notice("fencing is handed to pacemaker-fenced");
	}
	decide_config(d, &fc);
	seed = fenced_wall() ^ ((uint64_t)getpid() << 32) ^ fenced_cs_our_id(d->cs);
	decide_init(&d->st, &fc, d->nodes, d->nnodes, fenced_cs_our_id(d->cs), fenced_mono(), seed);
	r = sd_event_add_time(d->e, &d->timer, CLOCK_MONOTONIC, DECIDE_NEVER, 10000, on_timer, d);
	if (r >= 0)
		r = sd_event_add_time_relative(
			d->e, &d->vip_timer, CLOCK_MONOTONIC, 0, 100000, on_vip_timer, d);
	if (r < 0) {
		snprintf(why, whylen, "event loop: %s", strerror(-r));
		return r;
	}
	fenced_rearm(d, decide_deadline(&d->st));
	log_notice("fenced %s started: node %s (id %u), %zu nodes in corosync's nodelist, "
		   "post_join_delay %.1f s",
		CPHA_VERSION, d->nd[decide_find(&d->st, d->st.our_id)].name, d->st.our_id,
		d->nnodes, (double)fc.post_join_delay / 1e6);
	return 0;
}

void fenced_stop(struct fenced *d)
{
	size_t i;

	for (i = 0; i < d->nnodes; i++)
		if (d->nd[i].run || d->nd[i].pcmk_busy) {
			log_warn("stopping while %s %s: its agent is stopped",
				d->nd[i].unfencing ? "unfencing" : "fencing", d->nd[i].name);
			fenced_cancel_run(d, &d->nd[i]);
		}
	for (i = 0; i < d->nnodes; i++)
		fenced_power_cancel(d->nd[i].prun);
	fenced_pcmk_close(d->pcmk);
	d->pcmk = NULL;
	/* a clean stop of a healthy node: leave the group (the others do not
	 * fence us) and disarm the watchdog */
	fenced_cs_close(d->cs);
	d->cs = NULL;
	fenced_wd_free(d->wd, d->quorate);
	d->wd = NULL;
	sd_event_source_disable_unref(d->timer);
	sd_event_source_disable_unref(d->vip_timer);
	d->timer = d->vip_timer = NULL;
	cpha_admin_req_cancel(d->vip_req);
	d->vip_req = NULL;
	free(d->nodes);
	free(d->nd);
	d->nodes = NULL;
	d->nd = NULL;
	d->nnodes = 0;
}

/* corosync's quorum section, read again: corosync-cfgtool -R may have
 * added or removed a quorum device since fenced started. */
static void quorum_cfg_follow(struct fenced *d)
{
	struct fenced_cs_quorum_cfg q;

	if (!d->cs || fenced_cs_quorum_cfg(d->cs, &q) < 0)
		return;
	if (q.qdevice != d->qcfg.qdevice || q.two_node != d->qcfg.two_node)
		log_notice("corosync's quorum section changed: %s, %s (was %s, %s)",
			q.qdevice ? "a quorum device" : "no quorum device",
			q.two_node ? "two_node" : "no two_node",
			d->qcfg.qdevice ? "a quorum device" : "no quorum device",
			d->qcfg.two_node ? "two_node" : "no two_node");
	d->qcfg = q;
}

void fenced_reload(struct fenced *d)
{
	struct cpha_msgs errs = { 0 };
	struct fenced_config *c = NULL;
	struct decide_config fc;
	char why[512];
	size_t i;

	for (i = 0; i < d->nnodes; i++)
		if (d->nd[i].run || d->nd[i].pcmk_busy) {
			log_notice("reload waits: fencing %s is in progress", d->nd[i].name);
			d->reload_pending = true;
			return;
		}
	d->reload_pending = false;
	cpha_notify_reloading();
	if (fenced_cfg_load(d->config_path, &c, &errs) < 0 ||
		fenced_cfg_check_agents(c, fenced_agent_meta_run, NULL, &errs) > 0) {
		for (i = 0; i < errs.nerrs; i++)
			log_err("%s", errs.errs[i].text);
		log_err("reload refused: the running configuration stays");
		cpha_msgs_free(&errs);
		fenced_cfg_free(c);
		cpha_notify_ready("reload refused");
		return;
	}
	cpha_msgs_free(&errs);
	for (i = 0; i < c->nnotices; i++)
		log_notice("%s", c->notices[i]);
	/* the metrics listener's certificate: loaded to run, not by -c */
	if (cpha_webcfg_tls(c->global.metrics_web, why, sizeof(why)) < 0) {
		log_err("fenced_metrics_web_config: %s", why);
		log_err("reload refused: the running configuration stays");
		fenced_cfg_free(c);
		cpha_notify_ready("reload refused");
		return;
	}
	for (i = 0; i < d->nnodes; i++)
		if (d->nd[i].prun) {
			/* it reads devices of the configuration that goes */
			fenced_power_cancel(d->nd[i].prun);
			d->nd[i].prun = NULL;
			d->nd[i].power = FENCED_POWER_UNKNOWN;
		}
	/* the metrics listener stays where it is; its authentication follows */
	if (d->metrics && cpha_metrics_set_web(d->metrics, c->global.metrics_web) < 0) {
		log_err("metrics: out of memory: no longer serving");
		cpha_metrics_close(d->metrics);
		d->metrics = NULL;
	}
	fenced_cfg_free(d->cfg);
	d->cfg = c;
	node_settings(d);
	quorum_cfg_follow(d);
	decide_config(d, &fc);
	d->st.cfg = fc; /* victims keep their deadlines; new ones use the new delays */
	log_notice("configuration reloaded");
	cpha_notify_ready("reloaded");
}
