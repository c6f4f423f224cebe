/* fenced's runs: carrying out what decide.c asks for (fenced_apply): a
 * node's fence levels in turn through its agents or Pacemaker, the
 * outcome broadcast to the group, unfencing a node that comes back, and a
 * power-cycled node powered on again when the action is "off" then "on".
 * The state and corosync's side are in daemon.c. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fenced.h"
#include "log.h"

static const char *action_name(const struct fenced *d)
{
	return d->cfg->global.action == FENCED_ACTION_OFF ? "off" : "reboot";
}

/* What fenced's own agents are asked: a reboot is run as "off", and "on"
 * once the off has succeeded (power_back_on). The node is fenced when its
 * power is off: the survivors act on that (the VIP moves, resources
 * recover) without waiting for the agent to power it on again, which
 * takes fence_ipmilan another power_wait and status read. Pacemaker's
 * fencer splits a reboot the same way for a level of several devices. */
static const char *agent_action(const struct fenced *d)
{
	return d->cfg->global.action == FENCED_ACTION_OFF ? "off" : "off, then on";
}

static void on_level_done(void *ud, const struct fenced_agent_result *r);
static void power_back_on(struct fenced *d, size_t i, unsigned lvl);

/* How an attempt is named in the log: "level N", or the hand-off. */
static const char *via_pcmk(const struct fenced *d)
{
	return d->cfg->global.via == FENCED_VIA_PACEMAKER ? "pacemaker-fenced request " : "level ";
}

static unsigned level_number(const struct fenced_nd *n, unsigned lvl)
{
	return n->cfg && lvl < n->cfg->nlevels ? n->cfg->levels[lvl].number : lvl + 1;
}

static void on_pcmk_done(void *ud, bool ok, const char *msg)
{
	struct fenced_agent_result r = { .ok = ok, .exit_code = ok ? 0 : 1 };

	((struct fenced_nd *)ud)->pcmk_busy = false;
	snprintf(r.msg, sizeof(r.msg), "%s", msg);
	on_level_done(ud, &r);
}

/* Stop our run for node n, if any (another member fenced it, we stop). */
void fenced_cancel_run(struct fenced *d, struct fenced_nd *n)
{
	if (n->run) {
		fenced_level_cancel(n->run);
		n->run = NULL;
		n->unfencing = false;
	}
	if (n->pcmk_busy) {
		fenced_pcmk_forget(d->pcmk, n);
		n->pcmk_busy = false;
	}
}

/* fence_via pacemaker: a fence of n that Pacemaker completed after n was
 * lost, its own or an administrator's confirmation (stonith_admin
 * --confirm), is the fence we were about to ask for: counted as this
 * request's success, as pacemaker-fenced's tolerance counts a recent
 * fence. Without it, a node confirmed down by hand while the cluster had
 * no quorum would be fenced once quorum came back, in the middle of its
 * repair. true: done (on_level_done ran). */
static bool pcmk_done_since_lost(struct fenced *d, struct fenced_nd *n)
{
	struct fenced_agent_result r = { .ok = true };
	char msg[sizeof(r.msg) - 64];
	int rc;

	if (!d->pcmk || !n->victim_since)
		return false;
	rc = fenced_pcmk_fenced_since(d->pcmk, n->name, n->victim_since, msg, sizeof(msg));
	if (rc < 0)
		log_warn("fencing %s: %s; asking for the fence anyway", n->name, msg);
	if (rc <= 0)
		return false;
	log_warn("fencing %s: pacemaker-fenced's history has it fenced since it was lost (%s): "
		 "no new request",
		n->name, msg);
	snprintf(r.msg, sizeof(r.msg), "in pacemaker-fenced's history: %s", msg);
	on_level_done(n, &r);
	return true;
}

/* Run level index lvl of node i (decide.h said so), or with fence_via
 * pacemaker ask pacemaker-fenced. A level that cannot start counts as a
 * failed attempt. */
static void run_level(struct fenced *d, size_t i, unsigned lvl)
{
	struct fenced_nd *n = &d->nd[i];
	struct fenced_agent_result r = { 0 };
	struct decide_out out;
	int rc;

	n->run_level = lvl;
	n->run_started = fenced_mono();
	if (d->cfg->global.via == FENCED_VIA_PACEMAKER && pcmk_done_since_lost(d, n)) {
		return;
	} else if (d->cfg->global.via == FENCED_VIA_PACEMAKER) {
		log_notice(
			"fencing %s: asking pacemaker-fenced, action %s", n->name, action_name(d));
		if (!d->pcmk) {
			snprintf(r.msg, sizeof(r.msg), "no memory for the pacemaker-fenced client");
			rc = -ENOMEM;
		} else {
			rc = fenced_pcmk_fence(d->pcmk, n->name, action_name(d),
				(unsigned)(d->cfg->global.agent_timeout / 1000000), on_pcmk_done, n,
				r.msg, sizeof(r.msg));
		}
		n->pcmk_busy = rc == 0;
	} else {
		log_notice("fencing %s: level %u, action %s", n->name, level_number(n, lvl),
			agent_action(d));
		rc = fenced_level_run(
			d->e, d->cfg, &n->cfg->levels[lvl], "off", on_level_done, n, &n->run, &r);
	}
	if (rc < 0) {
		n->run = NULL;
		log_err("fencing %s: level %u cannot start: %s", n->name, level_number(n, lvl),
			r.msg);
		d->attempts_failed++;
		fenced_send_line(d, "ATTEMPT %" PRIu32 " %u failed 0.0s %s", d->nodes[i].cfg.id,
			level_number(n, lvl), r.msg);
		decide_result(&d->st, fenced_mono(), i, lvl, false, &out);
		fenced_apply(d, &out);
	}
}

static void on_level_done(void *ud, const struct fenced_agent_result *r)
{
	struct fenced_nd *n = ud;
	struct fenced *d = n->d;
	size_t i = n->idx;
	unsigned lvl = n->run_level, number = level_number(n, lvl);
	double secs = (double)(fenced_mono() - n->run_started) / 1e6;
	struct decide_out out;

	n->run = NULL; /* the run frees itself when this returns */
	d->attempt_seconds += secs;
	for (size_t b = 0; b < FENCED_BUCKETS; b++)
		if (b == FENCED_BUCKETS - 1 || secs <= fenced_bucket_le[b])
			d->attempt_buckets[b]++; /* cumulative, as Prometheus wants */
	if (r->ok) {
		d->attempts_ok++;
		log_notice(
			"fencing %s: %s%u succeeded in %.1f s", n->name, via_pcmk(d), number, secs);
	} else {
		if (r->timed_out)
			d->attempts_timeout++;
		else
			d->attempts_failed++;
		log_err("fencing %s: %s%u failed after %.1f s: %s", n->name, via_pcmk(d), number,
			secs, r->msg);
	}
	fenced_send_line(d, "ATTEMPT %" PRIu32 " %u %s %.1fs %s", d->nodes[i].cfg.id, number,
		r->ok ? "ok" : "failed", secs, r->ok ? "" : r->msg);
	decide_result(&d->st, fenced_mono(), i, lvl, r->ok, &out);
	fenced_apply(d, &out);
	if (r->ok && d->cfg->global.action == FENCED_ACTION_REBOOT &&
		d->cfg->global.via != FENCED_VIA_PACEMAKER && !n->run)
		power_back_on(d, i, lvl);
	if (d->reload_pending && !n->run && !n->pcmk_busy && d->reload)
		d->reload(d);
}

/* ---- unfencing: "on" for a fenced node that rejoins ---- */

static void on_unfence_done(void *ud, const struct fenced_agent_result *r)
{
	struct fenced_nd *n = ud;

	n->run = NULL;
	if (r->ok)
		log_notice("unfenced %s (level %u, action on)", n->name, n->cfg->levels[0].number);
	else
		log_err("unfencing %s failed: %s", n->name, r->msg);
	fenced_history(n->d, n->name, "unfence", n->d->st.our_id, (int)n->cfg->levels[0].number, 0,
		r->ok, "%s", r->ok ? "on" : r->msg);
	if (n->d->reload_pending && n->d->reload)
		n->d->reload(n->d);
}

/* fence_action reboot, second half: the level that turned node i off
 * turns it on. Its failure leaves the node off, which is safe: logged and
 * in the history, not a failed fence. A new fence of the node cancels it
 * (apply, DECIDE_ACT_FENCE). */
static void on_power_on_done(void *ud, const struct fenced_agent_result *r)
{
	struct fenced_nd *n = ud;

	n->run = NULL;
	n->unfencing = false;
	if (r->ok)
		log_notice("fencing %s: powered on again (level %u, action on)", n->name,
			level_number(n, n->run_level));
	else
		log_err("fencing %s: powering it on again failed: %s; it stays off", n->name,
			r->msg);
	fenced_history(n->d, n->name, "power-on", n->d->st.our_id,
		(int)level_number(n, n->run_level), 0, r->ok, "%s", r->ok ? "on" : r->msg);
	if (n->d->reload_pending && n->d->reload)
		n->d->reload(n->d);
}

static void power_back_on(struct fenced *d, size_t i, unsigned lvl)
{
	struct fenced_nd *n = &d->nd[i];
	struct fenced_agent_result r;

	n->run_level = lvl;
	n->unfencing = true;
	if (fenced_level_run(d->e, d->cfg, &n->cfg->levels[lvl], "on", on_power_on_done, n, &n->run,
		    &r) < 0) {
		n->run = NULL;
		n->unfencing = false;
		log_err("fencing %s: cannot power it on again: %s; it stays off", n->name, r.msg);
	}
}

/* Node i rejoined after it was fenced: with unfence, the lowest-id member
 * other than it turns its first level's devices on. */
void fenced_unfence(struct fenced *d, size_t i)
{
	struct fenced_nd *n = &d->nd[i];
	struct fenced_agent_result r;
	uint32_t lowest = 0;
	size_t k;
	int on;

	if (!n->cfg || !n->cfg->nlevels || !d->nodes[i].fenced_at || n->run ||
		d->cfg->global.via == FENCED_VIA_PACEMAKER)
		return; /* Pacemaker unfences by itself */
	on = n->cfg->unfence >= 0 ? n->cfg->unfence : d->cfg->global.unfence;
	if (!on)
		return;
	for (k = 0; k < d->nnodes; k++)
		if (k != i && d->nodes[k].member && (!lowest || d->nodes[k].cfg.id < lowest))
			lowest = d->nodes[k].cfg.id;
	if (lowest != d->st.our_id)
		return;
	n->run_level = 0;
	n->run_started = fenced_mono();
	n->unfencing = true;
	if (fenced_level_run(
		    d->e, d->cfg, &n->cfg->levels[0], "on", on_unfence_done, n, &n->run, &r) < 0) {
		n->run = NULL;
		n->unfencing = false;
		log_err("unfencing %s cannot start: %s", n->name, r.msg);
	}
}

/* ---- the actions decide.c asks for ---- */

void fenced_apply(struct fenced *d, struct decide_out *out)
{
	char b[32];
	unsigned k;

	for (k = 0; k < out->n; k++) {
		const struct decide_action *a = &out->act[k];
		struct fenced_nd *n = &d->nd[a->node];
		struct decide_node *fn = &d->nodes[a->node];

		switch (a->type) {
		case DECIDE_ACT_FENCE:
			fenced_cancel_run(d, n); /* unfencing it: fencing comes first */
			run_level(d, a->node, a->level);
			break;
		case DECIDE_ACT_FENCED:
			/* by 0: a node without a device, reset by its watchdog by now */
			fenced_send_line(d, "FENCED %" PRIu32 " %" PRIu32 " %s", fn->cfg.id,
				d->st.our_id,
				!a->by                                       ? "watchdog"
				: d->cfg->global.via == FENCED_VIA_PACEMAKER ? "pacemaker"
									     : "agent");
			break;
		case DECIDE_ACT_ALL_FAILED:
			d->fence_failures++;
			cpha_log(LOG_CRIT,
				"fencing %s: every level failed (round %u); retrying in %.1f s; "
				"'fenced ack %s' once you know it is off",
				n->name, fn->rounds, (double)d->cfg->global.retry_interval / 1e6,
				n->name);
			fenced_history(d, n->name, "all-failed", d->st.our_id, 0, 0, false,
				"round %u failed; next round in %.1f s", fn->rounds,
				(double)d->cfg->global.retry_interval / 1e6);
			break;
		case DECIDE_ACT_SKIPPED: {
			/* the log line and the history's reason, by enum decide_skip */
			static const char *const why[][2] = {
				[DECIDE_SKIP_REJOINED_CLEAN] = { "rejoined clean (its fenced "
								 "restarted) before being "
								 "fenced: not fenced",
					"rejoined clean before fencing" },
				[DECIDE_SKIP_MERGED_QUORATE] = { "merged back from the quorate "
								 "side of a partition this "
								 "node was cut from (no quorum "
								 "here since it left): not "
								 "fenced by this node",
					"merged back from the quorate side" },
				[DECIDE_SKIP_SPARED] = { "merged back and spared by the member "
							 "that fences it: not fenced",
					"spared by the member that fences it" },
				[DECIDE_SKIP_AVERTED] = { "is back in corosync's membership and "
							  "the fence domain at its turn "
							  "(post_fail_delay): fence averted",
					"back before its turn: averted" },
				[DECIDE_SKIP_CS_MEMBER] = { "is a corosync member (up, its fenced "
							    "not in the domain yet): no start-up "
							    "fencing",
					"a corosync member: no start-up fencing" },
			};
			unsigned w = a->level < sizeof(why) / sizeof(why[0])
					     ? a->level
					     : DECIDE_SKIP_REJOINED_CLEAN;

			log_notice("%s %s", n->name, why[w][0]);
			fenced_history(d, n->name, "skipped", w == DECIDE_SKIP_SPARED ? a->by : 0,
				0, 0, true, "%s", why[w][1]);
			d->skipped++;
			/* ours to fence and spared: the others drop it too */
			if ((w == DECIDE_SKIP_MERGED_QUORATE || w == DECIDE_SKIP_AVERTED) &&
				a->by == d->st.our_id)
				fenced_send_line(d, "SKIPPED %" PRIu32 " %" PRIu32,
					d->nodes[a->node].cfg.id, d->st.our_id);
			break;
		}
		case DECIDE_ACT_DEFER:
			log_notice("%s is due to be fenced; %s fences it (lowest id with complete "
				   "state)",
				n->name, fenced_node_name(d, a->by, b, sizeof(b)));
			fenced_history(d, n->name, "deferred", a->by, 0, fn->delay, true,
				"fenced by %s", fenced_node_name(d, a->by, b, sizeof(b)));
			break;
		}
	}
	fenced_rearm(d, out->deadline);
}
