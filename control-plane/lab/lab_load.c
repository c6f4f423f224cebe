/* cpha lab report: LAB.json into the model. Pure. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lab_cause.h"
#include "lab_load.h"
#include "lab_stats.h"

static int bad(char *why, size_t len, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Write the reason to why and return rc. */
static int bad(char *why, size_t len, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return rc;
}

/* "phases": [{"phase": NAME, "from": T, "to": T}, ...] of runs[i].scenarios[j]. */
static int load_phases(json_t *a, struct lab_scenario *x, size_t i, size_t j, char *why, size_t len)
{
	size_t k;
	json_t *p;

	if (!json_is_array(a))
		return bad(why, len, -EINVAL,
			"runs[%zu].scenarios[%zu]: \"phases\" must be an array", i, j);
	x->phases = calloc(json_array_size(a) + 1, sizeof(*x->phases));
	if (!x->phases)
		return bad(why, len, -ENOMEM, "out of memory");
	json_array_foreach(a, k, p)
	{
		struct lab_phase_span *sp = &x->phases[k];
		json_t *name = json_object_get(p, "phase"), *from = json_object_get(p, "from"),
		       *to = json_object_get(p, "to");

		if (!json_is_object(p) || !json_is_string(name) || !json_is_number(from) ||
			!json_is_number(to))
			return bad(why, len, -EINVAL,
				"runs[%zu].scenarios[%zu].phases[%zu]: needs a string \"phase\" "
				"and numbers \"from\" and \"to\"",
				i, j, k);
		if (lab_phase_parse(json_string_value(name), &sp->phase) < 0)
			return bad(why, len, -EINVAL,
				"runs[%zu].scenarios[%zu].phases[%zu]: unknown phase \"%s\" (one "
				"of before_detect, no_vip, dead_server, etcd_election)",
				i, j, k, json_string_value(name));
		sp->from = json_number_value(from);
		sp->to = json_number_value(to);
		if (sp->to < sp->from)
			return bad(why, len, -EINVAL,
				"runs[%zu].scenarios[%zu].phases[%zu]: \"to\" is before \"from\"",
				i, j, k);
		x->nphases = k + 1;
	}
	return 0;
}

/* The fields of one attempt, runs[i].scenarios[j]. */
static int load_scenario(
	json_t *s, struct lab_scenario *x, size_t i, size_t j, char *why, size_t len)
{
	json_t *st = json_object_get(s, "start"), *en = json_object_get(s, "end");
	json_t *v;
	int rc;

	x->name = json_string_value(json_object_get(s, "name"));
	if (!x->name || !json_is_number(st) || !json_is_number(en))
		return bad(why, len, -EINVAL,
			"runs[%zu].scenarios[%zu]: needs a string \"name\" and numbers \"start\" "
			"and \"end\"",
			i, j);
	x->start = json_number_value(st);
	x->end = json_number_value(en);
	if (x->end < x->start)
		return bad(why, len, -EINVAL,
			"runs[%zu].scenarios[%zu]: \"end\" is before \"start\"", i, j);
	v = json_object_get(s, "repeat");
	if (v && (!json_is_integer(v) || json_integer_value(v) < 1 ||
			 json_integer_value(v) > 1000000))
		return bad(why, len, -EINVAL,
			"runs[%zu].scenarios[%zu]: \"repeat\" must be an integer >= 1", i, j);
	x->repeat = v ? (int)json_integer_value(v) : 0;
	for (const char *const *k = (const char *const[]){ "valid", "started", NULL }; *k; k++) {
		v = json_object_get(s, *k);
		if (v && !json_is_boolean(v))
			return bad(why, len, -EINVAL,
				"runs[%zu].scenarios[%zu]: \"%s\" must be a boolean", i, j, *k);
	}
	x->invalid = json_is_false(json_object_get(s, "valid"));
	x->not_started = json_is_false(json_object_get(s, "started"));
	if (x->not_started && json_is_true(json_object_get(s, "valid")))
		return bad(why, len, -EINVAL,
			"runs[%zu].scenarios[%zu]: a scenario that never started cannot be valid",
			i, j);
	v = json_object_get(s, "invalid_reason");
	if (v && !json_is_string(v))
		return bad(why, len, -EINVAL,
			"runs[%zu].scenarios[%zu]: \"invalid_reason\" must be a string", i, j);
	x->invalid_reason = json_string_value(v);
	v = json_object_get(s, "t0");
	if (v && !json_is_number(v) && !json_is_null(v))
		return bad(why, len, -EINVAL,
			"runs[%zu].scenarios[%zu]: \"t0\" must be a number or null", i, j);
	x->has_t0 = json_is_number(v);
	x->t0 = json_number_value(v);
	v = json_object_get(s, "phases");
	if (v && (rc = load_phases(v, x, i, j, why, len)) < 0)
		return rc;
	x->invariants = json_object_get(s, "invariants");
	if (x->invariants && !json_is_object(x->invariants) && !json_is_null(x->invariants))
		return bad(why, len, -EINVAL,
			"runs[%zu].scenarios[%zu]: \"invariants\" must be an object", i, j);
	x->timings = json_object_get(s, "timings");
	if (x->timings && !json_is_object(x->timings))
		x->timings = NULL;
	x->marks = json_object_get(s, "marks");
	x->notes = json_object_get(s, "notes");
	return 0;
}

int lab_model_load(json_t *doc, struct lab_model *m, char *why, size_t len)
{
	json_t *runs = json_object_get(doc, "runs");
	size_t i, j;
	json_t *run;
	int rc;

	if (!json_is_object(doc))
		return bad(why, len, -EINVAL, "the top level must be an object");
	m->lab = json_object_get(doc, "lab");
	if (m->lab && !json_is_object(m->lab))
		return bad(why, len, -EINVAL, "\"lab\" must be an object");
	if (!json_is_array(runs))
		return bad(why, len, -EINVAL, "\"runs\" must be an array");
	m->runs = calloc(json_array_size(runs) + 1, sizeof(*m->runs));
	if (!m->runs)
		return bad(why, len, -ENOMEM, "out of memory");
	json_array_foreach(runs, i, run)
	{
		struct lab_run *r = &m->runs[i];
		json_t *sc = json_object_get(run, "scenarios"), *s;

		m->nruns = i + 1;
		r->stack = json_string_value(json_object_get(run, "stack"));
		r->events_path = json_string_value(json_object_get(run, "events"));
		if (!r->stack || !r->events_path)
			return bad(why, len, -EINVAL,
				"runs[%zu]: \"stack\" and \"events\" must be strings", i);
		r->events6_path = json_string_value(json_object_get(run, "events_v6"));
		if (json_object_get(run, "events_v6") && !r->events6_path)
			return bad(why, len, -EINVAL,
				"runs[%zu]: \"events_v6\" must be a string (the IPv6 prober's "
				"events)",
				i);
		if (!json_is_array(sc))
			return bad(
				why, len, -EINVAL, "runs[%zu]: \"scenarios\" must be an array", i);
		r->scen = calloc(json_array_size(sc) + 1, sizeof(*r->scen));
		if (!r->scen)
			return bad(why, len, -ENOMEM, "out of memory");
		json_array_foreach(sc, j, s)
		{
			r->nscen = j + 1;
			rc = load_scenario(s, &r->scen[j], i, j, why, len);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

void lab_model_free(struct lab_model *m)
{
	for (size_t i = 0; i < m->nruns; i++) {
		lab_events_free(&m->runs[i].ev);
		lab_events_free(&m->runs[i].ev6);
		for (size_t j = 0; j < m->runs[i].nscen; j++)
			free(m->runs[i].scen[j].phases);
		free(m->runs[i].scen);
	}
	free(m->runs);
	memset(m, 0, sizeof(*m));
}
