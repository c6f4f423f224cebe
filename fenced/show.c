/* fenced's admin socket ("show", "show json", "ack NODE") and metrics. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "fenced.h"
#include "metrics.h"

static uint64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
}

static void iso(uint64_t wall_us, char *buf, size_t len)
{
	time_t t = (time_t)(wall_us / 1000000);
	struct tm tm;

	gmtime_r(&t, &tm);
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03uZ", tm.tm_year + 1900, tm.tm_mon + 1,
		tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (unsigned)(wall_us / 1000 % 1000));
}

/* Seconds from now to a monotonic deadline (negative: past). */
static double in_secs(uint64_t at)
{
	uint64_t now = mono();

	return at >= now ? (double)(at - now) / 1e6 : -(double)(now - at) / 1e6;
}

static const char *state_name(const struct fenced *d, size_t i)
{
	if (d->nodes[i].state == DECIDE_OK)
		return d->nodes[i].member ? "member" : d->nodes[i].fenced_at ? "fenced" : "out";
	return decide_node_state_name(d->nodes[i].state);
}

static json_t *node_json(struct fenced *d, size_t i)
{
	const struct decide_node *n = &d->nodes[i];
	json_t *j = json_pack("{s:s,s:I,s:b,s:s,s:b,s:i}", "name", d->nd[i].name, "id",
		(json_int_t)n->cfg.id, "member", n->member, "state", state_name(d, i), "vip",
		d->nd[i].vip, "levels", (int)n->cfg.nlevels);
	char b[32];

	if (n->state != DECIDE_OK) {
		json_object_set_new(j, "fencer",
			json_string(fenced_node_name(d, decide_fencer(&d->st, i), b, sizeof(b))));
		json_object_set_new(j, "delay", json_real((double)n->delay / 1e6));
		json_object_set_new(j, "rounds", json_integer(n->rounds));
		if (n->state == DECIDE_VICTIM)
			json_object_set_new(j, "due_in", json_real(in_secs(n->due)));
		if (n->state == DECIDE_FENCING && d->nd[i].cfg)
			json_object_set_new(
				j, "level", json_integer(d->nd[i].cfg->levels[n->level].number));
		/* with a quorum device, a victim also waits for votequorum to
		 * settle the ring that lost it (decide.h) */
		if (!d->quorate || n->vq_unsettled)
			json_object_set_new(j, "waiting_for", json_string("quorum"));
	}
	if (d->nd[i].power != FENCED_POWER_UNKNOWN || d->nd[i].power_at) {
		json_object_set_new(j, "power", json_string(fenced_power_name(d->nd[i].power)));
		if (d->nd[i].power_at) {
			char t[64];

			iso(d->nd[i].power_at, t, sizeof(t));
			json_object_set_new(j, "power_checked", json_string(t));
			json_object_set_new(j, "power_said", json_string(d->nd[i].power_msg));
		}
	}
	if (n->fenced_at)
		json_object_set_new(j, "fenced_by",
			json_string(n->fenced_by ? fenced_node_name(d, n->fenced_by, b, sizeof(b))
						 : "watchdog"));
	return j;
}

static json_t *hist_json(struct fenced *d, const struct fenced_hist *h)
{
	char t[64], b[32];

	iso(h->wall, t, sizeof(t));
	return json_pack("{s:s,s:s,s:s,s:s,s:i,s:f,s:b,s:s}", "time", t, "node", h->node, "event",
		h->event, "by", h->by ? fenced_node_name(d, h->by, b, sizeof(b)) : "", "level",
		h->level, "delay", (double)h->delay / 1e6, "ok", h->ok, "detail", h->detail);
}

/* The quorum device, when corosync.conf has one: asked now. false when
 * there is none or corosync does not answer. */
static bool qdevice_now(struct fenced *d, struct fenced_cs_qdevice *q)
{
	return d->qcfg.qdevice && d->cs && fenced_cs_qdevice_now(d->cs, q) == 0;
}

static const char *qdevice_state(const struct fenced_cs_qdevice *q)
{
	return q->cast_vote ? "casts its vote"
	       : q->alive   ? "alive, no vote (qnetd gave it to the other side, or is not reached)"
	       : q->registered ? "registered, NOT alive"
			       : "NOT registered (corosync-qdevice not running)";
}

static void show_json(struct fenced *d, struct cpha_buf *reply)
{
	json_t *root, *nodes = json_array(), *hist = json_array(), *pending = json_array(),
		      *members = json_array();
	uint64_t k, first = d->nhist > FENCED_HISTORY ? d->nhist - FENCED_HISTORY : 0, now = mono();
	char *s, b[32];
	size_t i;

	for (i = 0; i < d->nnodes; i++) {
		json_array_append_new(nodes, node_json(d, i));
		if (d->nodes[i].member)
			json_array_append_new(members, json_string(d->nd[i].name));
		if (d->nodes[i].state != DECIDE_OK)
			json_array_append_new(
				pending, json_pack("{s:s,s:s,s:f,s:I,s:b,s:b}", "node",
						 d->nd[i].name, "state", state_name(d, i), "due_in",
						 d->nodes[i].state == DECIDE_VICTIM && d->quorate &&
								 !d->nodes[i].vq_unsettled
							 ? in_secs(d->nodes[i].due)
							 : 0.0,
						 "rounds", (json_int_t)d->nodes[i].rounds,
						 "overdue", now >= decide_overdue_at(&d->st, i),
						 "failed", decide_failed(&d->st, i)));
	}
	for (k = first; k < d->nhist; k++)
		json_array_append_new(hist, hist_json(d, &d->hist[k % FENCED_HISTORY]));
	root = json_pack("{s:s,s:I,s:b,s:o,s:o,s:o,s:o}", "node",
		fenced_node_name(d, d->st.our_id, b, sizeof(b)), "id", (json_int_t)d->st.our_id,
		"quorate", d->quorate, "members", members, "nodes", nodes, "pending", pending,
		"history", hist);
	if (d->wd)
		json_object_set_new(root, "watchdog",
			json_pack("{s:s,s:b,s:b,s:I}", "device", d->cfg->watchdog.device, "armed",
				fenced_wd_armed(d->wd), "petting", fenced_wd_petting(d->wd), "pets",
				(json_int_t)fenced_wd_pets(d->wd)));
	if (d->qcfg.qdevice) {
		struct fenced_cs_qdevice q;

		json_object_set_new(root, "qdevice",
			qdevice_now(d, &q)
				? json_pack("{s:s,s:b,s:b,s:b,s:i}", "name", q.name, "registered",
					  q.registered, "alive", q.alive, "cast_vote", q.cast_vote,
					  "votes", (int)q.votes)
				: json_null());
	}
	s = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	if (s) {
		cpha_buf_puts(reply, s);
		cpha_buf_puts(reply, "\n");
		free(s);
	}
}

static void show_text(struct fenced *d, struct cpha_buf *reply)
{
	uint64_t k, first = d->nhist > FENCED_HISTORY ? d->nhist - FENCED_HISTORY : 0;
	char b[32], t[64];
	size_t i;

	cpha_buf_printf(reply, "node %s (id %" PRIu32 "), %s, %u members\n",
		fenced_node_name(d, d->st.our_id, b, sizeof(b)), d->st.our_id,
		d->quorate ? "quorate" : "NOT quorate", d->nmembers);
	if (d->wd)
		cpha_buf_printf(reply, "watchdog %s: %s\n", d->cfg->watchdog.device,
			fenced_wd_petting(d->wd) ? "petted"
			: fenced_wd_armed(d->wd) ? "armed, NOT petted"
						 : "not armed yet");
	if (d->qcfg.qdevice) {
		struct fenced_cs_qdevice q;

		if (qdevice_now(d, &q))
			cpha_buf_printf(reply, "quorum device %s (%u vote%s): %s\n", q.name,
				q.votes, q.votes == 1 ? "" : "s", qdevice_state(&q));
		else
			cpha_buf_puts(reply, "quorum device: corosync does not answer\n");
	}
	cpha_buf_puts(reply, "nodes:\n");
	for (i = 0; i < d->nnodes; i++) {
		const struct decide_node *n = &d->nodes[i];

		cpha_buf_printf(reply, "  %-16s id %-4" PRIu32 " %-8s levels %u%s", d->nd[i].name,
			n->cfg.id, state_name(d, i), n->cfg.nlevels, d->nd[i].vip ? " vip" : "");
		if (d->nd[i].power != FENCED_POWER_UNKNOWN)
			cpha_buf_printf(reply, "  power %s", fenced_power_name(d->nd[i].power));
		if (n->state == DECIDE_VICTIM)
			cpha_buf_printf(reply, "  due in %.1f s%s, fencer %s, round %u",
				in_secs(n->due),
				d->quorate && !n->vq_unsettled ? "" : " (waits for quorum)",
				fenced_node_name(d, decide_fencer(&d->st, i), b, sizeof(b)),
				n->rounds + 1);
		else if (n->state == DECIDE_FENCING)
			cpha_buf_printf(reply, "  level %u running",
				d->nd[i].cfg ? d->nd[i].cfg->levels[n->level].number : 0);
		cpha_buf_puts(reply, "\n");
	}
	cpha_buf_puts(reply, "history:\n");
	for (k = first; k < d->nhist; k++) {
		const struct fenced_hist *h = &d->hist[k % FENCED_HISTORY];

		iso(h->wall, t, sizeof(t));
		cpha_buf_printf(reply, "  %s %-10s %-10s", t, h->node, h->event);
		if (h->by)
			cpha_buf_printf(reply, " by %s", fenced_node_name(d, h->by, b, sizeof(b)));
		if (h->level)
			cpha_buf_printf(reply, " level %d", h->level);
		cpha_buf_printf(reply, " %s\n", h->detail);
	}
}

void fenced_command(struct fenced *d, uid_t uid, const char *line, struct cpha_buf *reply)
{
	char why[300];

	if (strcmp(line, "show json") == 0) {
		show_json(d, reply);
	} else if (strcmp(line, "show") == 0 || line[0] == '\0') {
		show_text(d, reply);
	} else if (strncmp(line, "ack ", 4) == 0 && line[4]) {
		if (fenced_ack(d, line + 4, uid, why, sizeof(why)) < 0)
			cpha_buf_printf(reply, "error: %s\n", why);
		else
			cpha_buf_printf(reply, "ok: %s acknowledged as fenced\n", line + 4);
	} else if (strcmp(line, "power-check") == 0 || strncmp(line, "power-check ", 12) == 0) {
		char who[256];

		if (fenced_power_check_node(
			    d, line[11] ? line + 12 : NULL, who, sizeof(who), why, sizeof(why)) < 0)
			cpha_buf_printf(reply, "error: %s\n", why);
		else
			cpha_buf_printf(reply,
				"ok: reading the power state of %s (show json: power)\n", who);
	} else {
		cpha_buf_printf(reply,
			"error: unknown command '%.64s' (show, show json, ack NODE, power-check "
			"[NODE])\n",
			line);
	}
}

void fenced_prometheus(struct fenced *d, struct cpha_buf *b)
{
	size_t i, pending = 0, overdue = 0, failed = 0;
	uint64_t now = mono();

	for (i = 0; i < d->nnodes; i++) {
		pending += d->nodes[i].state != DECIDE_OK;
		overdue += now >= decide_overdue_at(&d->st, i);
		failed += decide_failed(&d->st, i);
	}
	cpha_prom_family(b, "fenced_quorate", "gauge", "1 when this partition has quorum");
	cpha_prom_sample(b, "fenced_quorate", d->quorate ? 1 : 0, NULL);
	if (d->qcfg.qdevice) {
		struct fenced_cs_qdevice q;
		bool known = qdevice_now(d, &q);

		cpha_prom_family(b, "fenced_qdevice_vote", "gauge",
			"1 when the quorum device gives this node its vote (corosync.conf has a "
			"quorum device)");
		cpha_prom_sample(b, "fenced_qdevice_vote", known && q.cast_vote ? 1 : 0, NULL);
	}
	cpha_prom_family(b, "fenced_members", "gauge", "members of the fence domain");
	cpha_prom_sample(b, "fenced_members", d->nmembers, NULL);
	cpha_prom_family(b, "fenced_pending", "gauge", "nodes waiting to be fenced");
	cpha_prom_sample(b, "fenced_pending", (double)pending, NULL);
	cpha_prom_family(b, "fenced_pending_overdue", "gauge",
		"nodes whose fence is pending past its delay and one round of its levels");
	cpha_prom_sample(b, "fenced_pending_overdue", (double)overdue, NULL);
	cpha_prom_family(b, "fenced_failed", "gauge",
		"nodes whose last round of levels failed and that are still not fenced");
	cpha_prom_sample(b, "fenced_failed", (double)failed, NULL);
	cpha_prom_family(b, "fenced_fence_failures_total", "counter",
		"fences that failed as a whole: every level failed or timed out");
	cpha_prom_sample(b, "fenced_fence_failures_total", (double)d->fence_failures, NULL);
	cpha_prom_family(
		b, "fenced_attempts_total", "counter", "level runs by this node, by result");
	cpha_prom_sample(b, "fenced_attempts_total", (double)d->attempts_ok, "result", "ok", NULL);
	cpha_prom_sample(
		b, "fenced_attempts_total", (double)d->attempts_failed, "result", "failed", NULL);
	cpha_prom_sample(
		b, "fenced_attempts_total", (double)d->attempts_timeout, "result", "timeout", NULL);
	cpha_prom_family(b, "fenced_attempt_duration_seconds", "histogram",
		"how long each fence level run (or pacemaker-fenced request) took");
	for (i = 0; i < FENCED_BUCKETS; i++) {
		char le[16];

		if (i == FENCED_BUCKETS - 1)
			snprintf(le, sizeof(le), "+Inf");
		else
			snprintf(le, sizeof(le), "%g", fenced_bucket_le[i]);
		cpha_prom_sample(b, "fenced_attempt_duration_seconds_bucket",
			(double)d->attempt_buckets[i], "le", le, NULL);
	}
	cpha_prom_sample(b, "fenced_attempt_duration_seconds_sum", d->attempt_seconds, NULL);
	cpha_prom_sample(b, "fenced_attempt_duration_seconds_count",
		(double)d->attempt_buckets[FENCED_BUCKETS - 1], NULL);
	cpha_prom_family(b, "fenced_fenced_total", "counter",
		"nodes fenced in the domain (any member's outcome, acks included)");
	cpha_prom_sample(b, "fenced_fenced_total", (double)d->fenced, NULL);
	cpha_prom_family(b, "fenced_node_fenced_total", "counter",
		"times the domain fenced each node (acks included), as this member saw it");
	for (i = 0; i < d->nnodes; i++)
		if (d->nd[i].name[0])
			cpha_prom_sample(b, "fenced_node_fenced_total", (double)d->nd[i].fenced,
				"node", d->nd[i].name, NULL);
	cpha_prom_family(b, "fenced_acks_total", "counter", "manual acknowledgements");
	cpha_prom_sample(b, "fenced_acks_total", (double)d->acks, NULL);
	cpha_prom_family(b, "fenced_skipped_total", "counter",
		"victims that rejoined clean before being fenced");
	cpha_prom_sample(b, "fenced_skipped_total", (double)d->skipped, NULL);
	if (d->wd) {
		cpha_prom_family(
			b, "fenced_watchdog_petting", "gauge", "1 while the watchdog is petted");
		cpha_prom_sample(b, "fenced_watchdog_petting", fenced_wd_petting(d->wd), NULL);
	}
}
