/* cpha lab: the goal table and its verdicts. Pure. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_goals.h"
#include "lab_repeat.h"
#include "lab_sample.h"
#include "lab_stats.h"

enum goal_kind {
	GOAL_ZERO,     /* absolute: 0 of metric in every valid cpha run */
	GOAL_TRUE,     /* absolute: the invariant metric true in every valid cpha run */
	GOAL_AT_MOST,  /* absolute: metric's median at most the row's bound */
	GOAL_NO_WORSE, /* comparative: metric no worse than the peer's */
	GOAL_RATIO,    /* comparative: metric at most the row's factor times the peer's */
	GOAL_FASTER,   /* comparative: metric (a time) shorter than the peer's */
};

static const struct goal_row {
	const char *scenario;
	const char *metric;
	enum goal_kind kind;
	const char *words; /* the metric in words */
	double bound;      /* GOAL_AT_MOST: the bound; GOAL_RATIO: the factor */
} goal_rows[LAB_NGOALS] = {
	{ "apiserver-rolling-restart", "failed", GOAL_ZERO, "failed requests", 0 },
	{ "reload-under-load", "failed", GOAL_ZERO, "failed requests", 0 },
	{ "lb-poweroff", "failed", GOAL_RATIO, "failed requests", 0.25 },
	{ "lb-poweroff", "max_gap_ms", GOAL_NO_WORSE, "max gap", 0 },
	{ "lb-poweroff", "vip_serving_ms", GOAL_AT_MOST, "first request served (ms)", 500 },
	{ "master-poweroff", "failed", GOAL_RATIO, "failed requests", 0.5 },
	{ "master-poweroff", "max_gap_ms", GOAL_AT_MOST, "max gap (ms)", 150 },
	{ "master-poweroff", "lb_avoidable_failed", GOAL_ZERO,
		"failed requests attributable to the load balancer", 0 },
	{ "lb-poweroff", "vip_after_fence", GOAL_TRUE, "vip_after_fence", 0 },
	{ "lb-hang", "vip_after_fence", GOAL_TRUE, "vip_after_fence", 0 },
	{ "lb-hang", "serving_after_fence_ms", GOAL_AT_MOST,
		"first request served after the fence (ms)", 500 },
	{ "lb-hang", "two_vip_ms", GOAL_ZERO, "ms with the VIP on two hosts", 0 },
	{ "master-poweroff", "watches_restored_ms", GOAL_FASTER, "watches restored", 0 },
	{ "apiserver-rolling-restart", "watches_restored_ms", GOAL_FASTER, "watches restored", 0 },
	/* the client host's Prometheus raised what the scenario must, and
	 * nothing it may not (alerts.py: EXPECTED) */
	{ "apiserver-rolling-restart", "alerts_as_expected", GOAL_TRUE, "alerts as expected", 0 },
	{ "reload-under-load", "alerts_as_expected", GOAL_TRUE, "alerts as expected", 0 },
	{ "lb-poweroff", "alerts_as_expected", GOAL_TRUE, "alerts as expected", 0 },
	{ "lb-daemon-down", "alerts_as_expected", GOAL_TRUE, "alerts as expected", 0 },
	{ "lb-daemon-down", "failed", GOAL_ZERO, "failed requests", 0 },
	{ "steady", "alerts_as_expected", GOAL_TRUE, "alerts as expected", 0 },
	{ "steady", "failed", GOAL_ZERO, "failed requests", 0 },
	{ "lb-hang", "alerts_as_expected", GOAL_TRUE, "alerts as expected", 0 },
	{ "master-poweroff", "alerts_as_expected", GOAL_TRUE, "alerts as expected", 0 },
	{ "lb-partition", "alerts_as_expected", GOAL_TRUE, "alerts as expected", 0 },
	{ "lb-isolated", "alerts_as_expected", GOAL_TRUE, "alerts as expected", 0 },
	{ "lb-isolated", "reachable_host_kept", GOAL_TRUE,
		"the LB host the clients reach was not fenced", 0 },
	{ "lb-isolated", "max_gap_ms", GOAL_NO_WORSE, "max gap", 0 },
	{ "master-partition", "alerts_as_expected", GOAL_TRUE, "alerts as expected", 0 },
	{ "etcd-data-loss", "alerts_as_expected", GOAL_TRUE, "alerts as expected", 0 },
	{ "master-rebuild", "alerts_as_expected", GOAL_TRUE, "alerts as expected", 0 },
	/* every certificate renewed and rolled out, docs/runbook.md's way */
	{ "cert-rotation", "failed", GOAL_ZERO, "failed requests", 0 },
	{ "cert-rotation", "watches_restored_ms", GOAL_AT_MOST, "watches restored (ms)", 1000 },
	{ "cert-rotation", "alerts_as_expected", GOAL_TRUE, "alerts as expected", 0 },
	{ "lb-upgrade", "failed", GOAL_ZERO, "failed requests", 0 },
	{ "lb-upgrade", "watches_restored_ms", GOAL_AT_MOST, "watches restored (ms)", 1000 },
	{ "lb-upgrade", "alerts_as_expected", GOAL_TRUE, "alerts as expected", 0 },
	/* a restore from the last snapshot loses at most what came after it */
	{ "etcd-quorum-loss", "lost_only_after_snapshot", GOAL_TRUE,
		"no acknowledged write from before the snapshot lost", 0 },
	{ "etcd-quorum-loss", "alerts_as_expected", GOAL_TRUE, "alerts as expected", 0 },
	/* one minor up, apiservers first, then the controllers */
	{ "k8s-minor-upgrade", "failed", GOAL_ZERO, "failed requests", 0 },
	{ "k8s-minor-upgrade", "one_controller_manager", GOAL_TRUE,
		"never two controller-managers running", 0 },
	{ "k8s-minor-upgrade", "alerts_as_expected", GOAL_TRUE, "alerts as expected", 0 },
	/* 3 masters to 5 and back: etcd, Pacemaker and the load balancers
	 * end with exactly the description's masters */
	{ "master-add", "failed", GOAL_ZERO, "failed requests", 0 },
	{ "master-add", "etcd_members_are_the_masters", GOAL_TRUE,
		"etcd's voting members are the masters, no learner left", 0 },
	{ "master-add", "pacemaker_nodes_are_the_masters", GOAL_TRUE,
		"Pacemaker's nodes are the masters", 0 },
	{ "master-add", "lbs_serve_every_master", GOAL_TRUE,
		"every LB host has every master's apiserver UP", 0 },
	{ "master-add", "one_learner_at_a_time", GOAL_TRUE,
		"the new members joined as learners one at a time", 0 },
	{ "master-add", "alerts_as_expected", GOAL_TRUE, "alerts as expected", 0 },
	{ "master-remove", "failed", GOAL_ZERO, "failed requests", 0 },
	{ "master-remove", "etcd_members_are_the_masters", GOAL_TRUE,
		"etcd's voting members are the masters, no learner left", 0 },
	{ "master-remove", "pacemaker_nodes_are_the_masters", GOAL_TRUE,
		"Pacemaker's nodes are the masters", 0 },
	{ "master-remove", "lbs_serve_every_master", GOAL_TRUE,
		"every LB host has every master's apiserver UP", 0 },
	{ "master-remove", "certificates_name_no_removed_master", GOAL_TRUE,
		"no certificate names a removed master", 0 },
	{ "master-remove", "alerts_as_expected", GOAL_TRUE, "alerts as expected", 0 },
};

double lab_goal_resolution(const char *metric)
{
	size_t n = strlen(metric);

	if (!strcmp(metric, "failed"))
		return 3;
	if (n > 3 && !strcmp(metric + n - 3, "_ms"))
		return 100;
	return 0;
}

/* An absolute goal: the valid cpha runs, how many satisfy it, the sample;
 * for GOAL_ZERO the peer's sample too, shown beside it. */
static int goal_absolute(struct lab_goal *g, const struct goal_row *row, const struct lab_run *r,
	const struct lab_run *peer, const char *pname)
{
	size_t n = 0, ok = 0, nv = 0;
	double *v = malloc((r && r->nscen ? r->nscen : 1) * sizeof(*v));
	char what[160];
	int rc;

	if (!v)
		return -ENOMEM;
	for (size_t j = 0; r && j < r->nscen; j++) {
		const struct lab_scenario *s = &r->scen[j];
		int x;

		if (!s->name || strcmp(s->name, row->scenario) || !lab_repeat_valid(s))
			continue;
		n++;
		if (row->kind == GOAL_ZERO) {
			/* a run without the figure does not satisfy it */
			if (lab_repeat_value(s, row->metric, &v[nv]))
				ok += v[nv++] == 0;
		} else if ((x = lab_invariant(s, row->metric)) >= 0) {
			ok += x == 1;
			v[nv++] = x;
		}
	}
	rc = lab_sample_stats(v, nv, &g->cpha);
	free(v);
	if (rc < 0)
		return rc;
	if (row->kind == GOAL_ZERO)
		snprintf(what, sizeof(what), "0 %s", row->words);
	else
		snprintf(what, sizeof(what), "%s true", row->words);
	g->verdict = lab_sample_all(n, ok, "cpha", what, g->why, sizeof(g->why));
	if (row->kind == GOAL_ZERO && ok < n && g->cpha.n) {
		size_t len = strlen(g->why);

		snprintf(g->why + len, sizeof(g->why) - len, "; cpha: median %.10g [%.10g, %.10g]",
			g->cpha.median, g->cpha.lo, g->cpha.hi);
	}
	if (row->kind == GOAL_ZERO && peer) {
		size_t len = strlen(g->why);

		if (lab_repeat_stats(peer, row->scenario, row->metric, &g->peer) < 0)
			return -ENOMEM;
		if (g->peer.n)
			snprintf(g->why + len, sizeof(g->why) - len,
				"; %s: median %.10g [%.10g, %.10g] (n %zu)", pname, g->peer.median,
				g->peer.lo, g->peer.hi, g->peer.n);
	}
	return 0;
}

/* The peer's sample scaled by factor: the bootstrap interval of the median
 * scales with its values, so "at most factor times the peer's" is judged
 * as "no worse than" this sample. */
static struct lab_sample sample_scaled(const struct lab_sample *s, double factor)
{
	struct lab_sample x = *s;

	x.median *= factor;
	x.min *= factor;
	x.max *= factor;
	x.lo *= factor;
	x.hi *= factor;
	return x;
}

/* A bound as a sample of as many runs as cpha's, every value the bound:
 * "at most the bound" is judged as "no worse than" it. */
static struct lab_sample sample_bound(double bound, size_t n)
{
	return (struct lab_sample){
		.n = n, .median = bound, .min = bound, .max = bound, .lo = bound, .hi = bound
	};
}

/* Did any stack attempt scenario? */
static bool attempted(const struct lab_model *m, const char *scenario)
{
	for (size_t i = 0; i < m->nruns; i++)
		for (size_t j = 0; j < m->runs[i].nscen; j++)
			if (m->runs[i].scen[j].name && !strcmp(m->runs[i].scen[j].name, scenario))
				return true;
	return false;
}

int lab_goals(const struct lab_model *m, struct lab_goal g[LAB_NGOALS])
{
	const struct lab_run *cpha = lab_find_run(m, "cpha");
	const struct lab_run *peer = lab_peer_run(m);
	const char *pname = peer && peer->stack ? peer->stack : "the peer stack";

	memset(g, 0, LAB_NGOALS * sizeof(*g));
	for (size_t i = 0; i < LAB_NGOALS; i++) {
		const struct goal_row *row = &goal_rows[i];

		g[i].scenario = row->scenario;
		g[i].metric = row->metric;
		g[i].ran = attempted(m, row->scenario);
		switch (row->kind) {
		case GOAL_ZERO:
			snprintf(g[i].what, sizeof(g[i].what), "%s: 0 %s (cpha)", row->scenario,
				row->words);
			break;
		case GOAL_TRUE:
			snprintf(g[i].what, sizeof(g[i].what),
				"%s: %s true in every valid cpha run", row->scenario, row->words);
			break;
		case GOAL_AT_MOST:
			snprintf(g[i].what, sizeof(g[i].what),
				"%s: %s at most %.10g (cpha, median)", row->scenario, row->words,
				row->bound);
			break;
		case GOAL_NO_WORSE:
			snprintf(g[i].what, sizeof(g[i].what), "%s: %s no worse than %s",
				row->scenario, row->words, pname);
			break;
		case GOAL_RATIO:
			snprintf(g[i].what, sizeof(g[i].what), "%s: %s at most %.10g x %s's",
				row->scenario, row->words, row->bound, pname);
			break;
		case GOAL_FASTER:
			snprintf(g[i].what, sizeof(g[i].what), "%s: %s faster than %s",
				row->scenario, row->words, pname);
			break;
		}
		if (row->kind == GOAL_ZERO || row->kind == GOAL_TRUE) {
			if (goal_absolute(&g[i], row, cpha, peer, pname) < 0)
				return -ENOMEM;
			continue;
		}
		if (row->kind == GOAL_AT_MOST) {
			struct lab_sample b;
			char bname[64];

			if (lab_repeat_stats(cpha, row->scenario, row->metric, &g[i].cpha) < 0)
				return -ENOMEM;
			b = sample_bound(row->bound, g[i].cpha.n);
			snprintf(bname, sizeof(bname), "the bound");
			g[i].verdict =
				lab_sample_compare(&g[i].cpha, &b, lab_goal_resolution(row->metric),
					"cpha", bname, g[i].why, sizeof(g[i].why));
			continue;
		}
		g[i].comparative = true;
		if (lab_repeat_stats(cpha, row->scenario, row->metric, &g[i].cpha) < 0 ||
			lab_repeat_stats(peer, row->scenario, row->metric, &g[i].peer) < 0)
			return -ENOMEM;
		if (row->kind == GOAL_RATIO) {
			struct lab_sample b = sample_scaled(&g[i].peer, row->bound);
			char bname[200];

			snprintf(bname, sizeof(bname), "%.10g x %s", row->bound, pname);
			g[i].verdict = lab_sample_compare(&g[i].cpha, &b,
				lab_goal_resolution(row->metric), "cpha",
				g[i].peer.n ? bname : pname, g[i].why, sizeof(g[i].why));
			continue;
		}
		g[i].verdict =
			lab_sample_compare(&g[i].cpha, &g[i].peer, lab_goal_resolution(row->metric),
				"cpha", pname, g[i].why, sizeof(g[i].why));
	}
	return 0;
}
