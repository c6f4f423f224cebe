/* fenced's power-check: is a silent VIP holder powered off? The admin
 * command starts a read of the node's fence devices (power.c); its answer
 * goes to the history, to "show json" (which vipd's track_fenced polls)
 * and, when it is off, to decide.c (a victim waiting on
 * priority_delay_vip waits no more). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "duration.h"
#include "fenced.h"
#include "log.h"

static void on_power_done(void *ud, enum fenced_power st, const char *msg)
{
	struct fenced_nd *n = ud;
	struct fenced *d = n->d;
	struct decide_out out;

	n->prun = NULL;
	n->power = st;
	n->power_at = cpha_now_usec(CLOCK_REALTIME);
	snprintf(n->power_msg, sizeof(n->power_msg), "%s", msg);
	fenced_history(d, n->name, "power", d->st.our_id, 0, 0, st != FENCED_POWER_UNKNOWN,
		"%s (%s)", fenced_power_name(st), msg);
	if (st != FENCED_POWER_OFF) {
		cpha_log(st == FENCED_POWER_ON ? LOG_INFO : LOG_WARNING, "power-check %s: %s (%s)",
			n->name, fenced_power_name(st), msg);
		return;
	}
	/* off: whatever it said about the VIP, it holds nothing now, and a
	 * victim waiting on priority_delay_vip waits no more */
	log_notice("power-check %s: off (%s)%s%s", n->name, msg,
		n->vip ? ": it no longer counts as the VIP holder" : "",
		d->nodes[n->idx].vip_delayed ? "; priority_delay_vip no longer applies" : "");
	if (n->vip) {
		n->vip = false;
		decide_vip(&d->st, fenced_vip_holder(d));
	}
	decide_power_off(&d->st, cpha_now_usec(CLOCK_MONOTONIC), n->idx, &out);
	fenced_apply(d, &out);
}

int fenced_power_check_node(
	struct fenced *d, const char *node, char *started, size_t slen, char *why, size_t whylen)
{
	struct fenced_nd *n = NULL;
	size_t i;
	int r;

	for (i = 0; i < d->nnodes; i++) {
		if (node ? strcmp(d->nd[i].name, node) == 0
			 : d->nd[i].vip && d->nodes[i].cfg.id != d->st.our_id) {
			n = &d->nd[i];
			break;
		}
	}
	if (!n) {
		if (node)
			snprintf(why, whylen, "no node '%s' in corosync's nodelist", node);
		else
			snprintf(
				why, whylen, "no other node holds the VIP, as far as fenced knows");
		return -ENOENT;
	}
	if (d->nodes[i].cfg.id == d->st.our_id) {
		snprintf(why, whylen, "%s is this node", n->name);
		return -EINVAL;
	}
	if (d->cfg->global.via == FENCED_VIA_PACEMAKER) {
		snprintf(why, whylen, "fence_via pacemaker: fenced runs no agent of its own");
		return -EOPNOTSUPP;
	}
	snprintf(started, slen, "%s", n->name);
	if (n->prun)
		return 0; /* one check at a time: the running one answers */
	n->power = FENCED_POWER_CHECKING;
	/* a quick read, bounded by its own timeout: agent_timeout bounds
	 * fencing actions, and a takeover waits for this one */
	r = fenced_power_check(d->e, d->cfg, n->cfg, d->cfg->global.power_check_timeout,
		on_power_done, n, &n->prun, why, whylen);
	if (r < 0)
		n->power = FENCED_POWER_UNKNOWN;
	return r;
}
