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
	GOAL_NO_WORSE, /* comparative: metric no worse than the peer's */
	GOAL_FASTER,   /* comparative: metric (a time) shorter than the peer's */
};

static const struct goal_row {
	const char *scenario;
	const char *metric;
	enum goal_kind kind;
	const char *words; /* the metric in words */
} goal_rows[LAB_NGOALS] = {
	{ "apiserver-rolling-restart", "failed", GOAL_ZERO, "failed requests" },
	{ "reload-under-load", "failed", GOAL_ZERO, "failed requests" },
	{ "lb-poweroff", "failed", GOAL_NO_WORSE, "failed requests" },
	{ "lb-poweroff", "max_gap_ms", GOAL_NO_WORSE, "max gap" },
	{ "master-poweroff", "failed", GOAL_NO_WORSE, "failed requests" },
	{ "master-poweroff", "max_gap_ms", GOAL_NO_WORSE, "max gap" },
	{ "lb-poweroff", "vip_after_fence", GOAL_TRUE, "vip_after_fence" },
	{ "master-poweroff", "watches_restored_ms", GOAL_FASTER, "watches restored" },
	{ "apiserver-rolling-restart", "watches_restored_ms", GOAL_FASTER, "watches restored" },
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

/* An absolute goal: the valid cpha runs, how many satisfy it, the sample. */
static int goal_absolute(struct lab_goal *g, const struct goal_row *row, const struct lab_run *r)
{
	size_t n = 0, ok = 0, nv = 0;
	double *v = malloc((r && r->nscen ? r->nscen : 1) * sizeof(*v));
	char what[80];
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
			ok += s->st.failed == 0;
			lab_repeat_value(s, row->metric, &v[nv++]);
		} else if ((x = lab_invariant(s, row->metric)) >= 0) {
			ok += x == 1;
			v[nv++] = x;
		}
	}
	rc = lab_sample_stats(v, nv, &g->cpha);
	free(v);
	if (row->kind == GOAL_ZERO)
		snprintf(what, sizeof(what), "0 %s", row->words);
	else
		snprintf(what, sizeof(what), "%s true", row->words);
	g->verdict = lab_sample_all(n, ok, "cpha", what, g->why, sizeof(g->why));
	return rc;
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
		switch (row->kind) {
		case GOAL_ZERO:
			snprintf(g[i].what, sizeof(g[i].what), "%s: 0 %s (cpha)", row->scenario,
				row->words);
			break;
		case GOAL_TRUE:
			snprintf(g[i].what, sizeof(g[i].what),
				"%s: %s true in every valid cpha run", row->scenario, row->words);
			break;
		case GOAL_NO_WORSE:
			snprintf(g[i].what, sizeof(g[i].what), "%s: %s no worse than %s",
				row->scenario, row->words, pname);
			break;
		case GOAL_FASTER:
			snprintf(g[i].what, sizeof(g[i].what), "%s: %s faster than %s",
				row->scenario, row->words, pname);
			break;
		}
		if (row->kind == GOAL_ZERO || row->kind == GOAL_TRUE) {
			if (goal_absolute(&g[i], row, cpha) < 0)
				return -ENOMEM;
			continue;
		}
		g[i].comparative = true;
		if (lab_repeat_stats(cpha, row->scenario, row->metric, &g[i].cpha) < 0 ||
			lab_repeat_stats(peer, row->scenario, row->metric, &g[i].peer) < 0)
			return -ENOMEM;
		g[i].verdict =
			lab_sample_compare(&g[i].cpha, &g[i].peer, lab_goal_resolution(row->metric),
				"cpha", pname, g[i].why, sizeof(g[i].why));
	}
	return 0;
}
