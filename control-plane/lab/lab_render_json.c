/* cpha lab report: report.json from the model. Pure. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "lab_cause.h"
#include "lab_goals.h"
#include "lab_render.h"
#include "lab_repeat.h"
#include "lab_sample.h"
#include "lab_stats.h"

json_t *lab_render_invariants(const struct lab_scenario *s)
{
	json_t *o = json_object();
	const char *name;
	json_t *v;
	int b;

	if (!o)
		return NULL;
	if (json_is_object(s->invariants))
		json_object_foreach(s->invariants, name, v)
		{
			b = lab_invariant(s, name);
			if (b >= 0)
				json_object_set_new(o, name, json_boolean(b));
		}
	b = lab_invariant(s, "no_lost_write");
	if (b >= 0)
		json_object_set_new(o, "no_lost_write", json_boolean(b));
	return o;
}

/* A number as an integer when it is one: counts and whole milliseconds
 * read as they were written. */
static json_t *number(double x)
{
	if (x == floor(x) && fabs(x) < 9e15)
		return json_integer((json_int_t)x);
	return json_real(x);
}

json_t *lab_render_sample(const struct lab_sample *s)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	json_object_set_new(o, "n", json_integer((json_int_t)s->n));
	json_object_set_new(o, "median", s->n ? number(s->median) : json_null());
	json_object_set_new(o, "min", s->n ? number(s->min) : json_null());
	json_object_set_new(o, "max", s->n ? number(s->max) : json_null());
	json_object_set_new(
		o, "ci95", s->n ? json_pack("[oo]", number(s->lo), number(s->hi)) : json_null());
	return o;
}

/* {CAUSE: count} and {PHASE: count}, every key present. */
static json_t *causes_json(const long causes[LAB_NCAUSES])
{
	json_t *o = json_object();

	for (int k = 0; o && k < LAB_NCAUSES; k++)
		json_object_set_new(o, lab_cause_name((enum lab_cause)k), json_integer(causes[k]));
	return o;
}

static json_t *phases_json(const long phases[LAB_NPHASES])
{
	json_t *o = json_object();

	for (int k = 0; o && k < LAB_NPHASES; k++)
		json_object_set_new(o, lab_phase_name((enum lab_phase)k), json_integer(phases[k]));
	return o;
}

/* A dual-stack attempt's "ipv6": the IPv6 prober's window. */
static json_t *family_json(const struct lab_window *w)
{
	return json_pack("{sIsIsIsisIso}", "requests", (json_int_t)w->requests, "failed",
		(json_int_t)w->failed, "max_gap_ms", (json_int_t)llround(w->max_gap_ms), "watches",
		w->watches, "watches_broken", (json_int_t)w->watches_broken, "availability",
		w->availability < 0 ? json_null() : json_real(w->availability));
}

/* One attempt's figures: the fields report.json has always had, and a
 * dual-stack run's "ipv6". */
static json_t *scenario_json(const struct lab_scenario *s)
{
	const struct lab_window *w = &s->st;
	json_t *o = json_object(), *notes;

	if (!o)
		return NULL;
	json_object_set_new(o, "name", json_string(s->name ? s->name : ""));
	json_object_set_new(o, "requests", json_integer(w->requests));
	json_object_set_new(o, "failed", json_integer(w->failed));
	json_object_set_new(o, "max_gap_ms", json_integer((json_int_t)llround(w->max_gap_ms)));
	json_object_set_new(o, "watches", json_integer(w->watches));
	json_object_set_new(o, "watches_broken", json_integer(w->watches_broken));
	json_object_set_new(o, "watches_restored_ms",
		w->watches_restored_ms < 0
			? json_null()
			: json_integer((json_int_t)llround(w->watches_restored_ms)));
	json_object_set_new(
		o, "availability", w->availability < 0 ? json_null() : json_real(w->availability));
	json_object_set_new(o, "invariants", lab_render_invariants(s));
	if (s->has_v6)
		json_object_set_new(o, "ipv6", family_json(&s->st6));
	if (s->timings)
		json_object_set(o, "timings", s->timings);
	if (s->marks)
		json_object_set(o, "marks", s->marks);
	notes = json_is_array(s->notes) ? json_copy(s->notes) : json_array();
	/* the shape of report.json is fixed: what has no key of its own is a note */
	if (w->never_restored)
		json_array_append_new(notes,
			json_sprintf("%d of the watches that broke had not reopened by the end: "
				     "the statistics count %.0f ms for watches_restored_ms (to the "
				     "end), a lower bound",
				w->never_restored, w->restored_stat_ms));
	if (w->lost_writes)
		json_array_append_new(
			notes, json_sprintf("the prober saw %ld lost committed write%s",
				       w->lost_writes, w->lost_writes == 1 ? "" : "s"));
	if (json_array_size(notes) || s->notes)
		json_object_set_new(o, "notes", notes);
	else
		json_decref(notes);
	return o;
}

/* An element of "repeats": r->scen[j] with how it ran. */
static json_t *repeat_json(const struct lab_run *r, size_t j)
{
	const struct lab_scenario *s = &r->scen[j];
	json_t *o = json_object(), *fig = scenario_json(s);

	if (!o || !fig) {
		json_decref(o);
		json_decref(fig);
		return NULL;
	}
	json_object_set_new(o, "repeat", json_integer(lab_repeat_round(r, j)));
	json_object_set_new(o, "valid", json_boolean(lab_repeat_valid(s)));
	json_object_set_new(o, "started", json_boolean(!s->not_started));
	if (!lab_repeat_valid(s))
		json_object_set_new(o, "invalid_reason",
			json_string(s->invalid_reason ? s->invalid_reason
				    : s->not_started  ? "not started"
						      : "no reason given"));
	json_object_set_new(o, "start", json_real(s->start));
	json_object_set_new(o, "end", json_real(s->end));
	json_object_set_new(o, "t0", s->has_t0 ? json_real(s->t0) : json_null());
	json_object_update(o, fig);
	json_decref(fig);
	json_object_set_new(o, "causes", causes_json(s->st.causes));
	json_object_set_new(o, "phases", phases_json(s->st.phases));
	return o;
}

/* {METRIC: sample} over the valid attempts of name. NULL: out of memory. */
static json_t *stats_json(const struct lab_run *r, const char *name)
{
	static const char *const fixed[] = { "failed", "max_gap_ms", "watches_restored_ms",
		"ipv6_failed", "ipv6_max_gap_ms" };
	json_t *o = json_object(), *names = json_array(), *v;
	struct lab_sample st;
	size_t i;
	int rc = -ENOMEM;

	if (!o || !names)
		goto out;
	/* the IPv6 prober's only in a dual-stack run */
	for (i = 0; i < (r->events6_path ? 5 : 3); i++)
		json_array_append_new(names, json_string(fixed[i]));
	if (lab_repeat_timing_names(r, name, names) < 0)
		goto out;
	json_array_foreach(names, i, v)
	{
		const char *metric = json_string_value(v);

		if (json_object_get(o, metric))
			continue; /* a timing named like a fixed metric */
		if (lab_repeat_stats(r, name, metric, &st) < 0 ||
			json_object_set_new(o, metric, lab_render_sample(&st)) < 0)
			goto out;
	}
	rc = 0;
out:
	json_decref(names);
	if (rc < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The entry of scenario name in r->scen: its representative's figures, its
 * attempts, their statistics. */
static json_t *group_json(const struct lab_run *r, const char *name)
{
	const struct lab_scenario *rep = lab_repeat_representative(r, name);
	json_t *o = scenario_json(rep), *reps = json_array(), *st = stats_json(r, name);
	long causes[LAB_NCAUSES] = { 0 }, phases[LAB_NPHASES] = { 0 };
	size_t n, nvalid;

	if (!o || !reps || !st) {
		json_decref(o);
		json_decref(reps);
		json_decref(st);
		return NULL;
	}
	for (size_t j = 0; j < r->nscen; j++)
		if (r->scen[j].name && !strcmp(r->scen[j].name, name))
			json_array_append_new(reps, repeat_json(r, j));
	n = lab_repeat_count(r, name, &nvalid);
	lab_repeat_sums(r, name, causes, phases);
	json_object_set_new(o, "valid_runs", json_integer((json_int_t)nvalid));
	json_object_set_new(o, "invalid_runs", json_integer((json_int_t)(n - nvalid)));
	json_object_set_new(o, "stats", st);
	json_object_set_new(o, "causes", causes_json(causes));
	json_object_set_new(o, "phases", phases_json(phases));
	json_object_set_new(o, "repeats", reps);
	return o;
}

/* "goals": [{goal, scenario, metric, verdict, why, cpha, peer}]. */
static json_t *goals_json(const struct lab_model *m)
{
	struct lab_goal g[LAB_NGOALS];
	json_t *a = json_array();

	if (!a || lab_goals(m, g) < 0) {
		json_decref(a);
		return NULL;
	}
	for (int i = 0; i < LAB_NGOALS; i++) {
		json_t *o = json_pack("{sssssssssssb}", "goal", g[i].what, "scenario",
			g[i].scenario, "metric", g[i].metric, "verdict",
			lab_verdict_name(g[i].verdict), "why", g[i].why, "ran", g[i].ran);

		if (!o) {
			json_decref(a);
			return NULL;
		}
		json_object_set_new(o, "cpha", lab_render_sample(&g[i].cpha));
		/* a "0" goal shows the peer's figure beside cpha's */
		if (g[i].comparative || g[i].peer.n)
			json_object_set_new(o, "peer", lab_render_sample(&g[i].peer));
		json_array_append_new(a, o);
	}
	return a;
}

json_t *lab_render_json(const struct lab_model *m)
{
	json_t *top = json_object(), *runs = json_array(), *goals = goals_json(m);

	if (!top || !runs || !goals)
		goto fail;
	for (size_t i = 0; i < m->nruns; i++) {
		const struct lab_run *r = &m->runs[i];
		json_t *run = json_object(), *sc = json_array();

		if (!run || !sc) {
			json_decref(run);
			json_decref(sc);
			goto fail;
		}
		json_object_set_new(run, "stack", json_string(r->stack ? r->stack : ""));
		for (size_t j = 0; j < r->nscen; j++) {
			json_t *g;

			if (!r->scen[j].name || !lab_repeat_first(r, j))
				continue;
			g = group_json(r, r->scen[j].name);
			if (!g || json_array_append_new(sc, g) < 0) {
				json_decref(run);
				json_decref(sc);
				goto fail;
			}
		}
		json_object_set_new(run, "scenarios", sc);
		json_array_append_new(runs, run);
	}
	json_object_set_new(top, "runs", runs);
	json_object_set_new(top, "goals", goals);
	if (m->lab)
		json_object_set(top, "lab", m->lab);
	return top;
fail:
	json_decref(top);
	json_decref(runs);
	json_decref(goals);
	return NULL;
}
