/* cpha lab report: report.json and report.md from the model. Pure. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "buf.h"
#include "lab_render.h"
#include "lab_stats.h"

static const char *const timing_names[] = { "detect_ms", "fence_ms", "vip_move_ms", "serve_ms" };

/* The invariant names a scenario reports: the orchestrator's, then
 * no_lost_write when it did not name it. */
static json_t *scenario_invariants(const struct lab_scenario *s)
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
	json_object_set_new(o, "no_lost_write", json_boolean(lab_invariant(s, "no_lost_write")));
	return o;
}

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
	json_object_set_new(o, "invariants", scenario_invariants(s));
	if (s->timings)
		json_object_set(o, "timings", s->timings);
	if (s->marks)
		json_object_set(o, "marks", s->marks);
	notes = json_is_array(s->notes) ? json_copy(s->notes) : json_array();
	/* the shape of report.json is fixed: what has no key of its own is a note */
	if (w->never_restored)
		json_array_append_new(notes,
			json_sprintf("%d of the watches that broke had not reopened by the end",
				w->never_restored));
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

json_t *lab_render_json(const struct lab_model *m)
{
	json_t *top = json_object(), *runs = json_array();

	if (!top || !runs) {
		json_decref(top);
		json_decref(runs);
		return NULL;
	}
	for (size_t i = 0; i < m->nruns; i++) {
		const struct lab_run *r = &m->runs[i];
		json_t *run = json_object(), *sc = json_array();

		json_object_set_new(run, "stack", json_string(r->stack ? r->stack : ""));
		for (size_t j = 0; j < r->nscen; j++)
			json_array_append_new(sc, scenario_json(&r->scen[j]));
		json_object_set_new(run, "scenarios", sc);
		json_array_append_new(runs, run);
	}
	json_object_set_new(top, "runs", runs);
	if (m->lab)
		json_object_set(top, "lab", m->lab);
	return top;
}

/* Markdown table cell text: '|' and newlines would break the row. */
static void md_cell(struct cpha_buf *b, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|')
			cpha_buf_puts(b, "\\|");
		else if (*s == '\n' || *s == '\r')
			cpha_buf_puts(b, " ");
		else
			cpha_buf_append(b, s, 1);
	}
}

static void md_value(struct cpha_buf *b, const json_t *v)
{
	if (json_is_integer(v))
		cpha_buf_printf(b, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		cpha_buf_printf(b, "%.0f", json_real_value(v));
	else if (json_is_string(v))
		md_cell(b, json_string_value(v));
	else if (json_is_boolean(v))
		cpha_buf_puts(b, json_is_true(v) ? "true" : "false");
	else
		cpha_buf_puts(b, "—");
}

static void md_restored(struct cpha_buf *b, const struct lab_scenario *s)
{
	if (!s)
		cpha_buf_puts(b, "—");
	else if (s->st.never_restored)
		cpha_buf_printf(b, "%d never restored", s->st.never_restored);
	else if (s->st.watches_restored_ms < 0)
		cpha_buf_puts(b, "none broke");
	else
		cpha_buf_printf(b, "%.0f ms", s->st.watches_restored_ms);
}

/* "name true, name —" for every invariant the orchestrator named (null: —)
 * and no_lost_write. */
static void md_invariants(struct cpha_buf *b, const struct lab_scenario *s)
{
	const char *name;
	json_t *v;
	int n = 0, x;

	if (json_is_object(s->invariants))
		json_object_foreach(s->invariants, name, v)
		{
			if (!strcmp(name, "no_lost_write"))
				continue;
			x = lab_invariant(s, name);
			cpha_buf_puts(b, n++ ? ", " : "");
			md_cell(b, name);
			cpha_buf_puts(b, x < 0 ? " —" : x ? " true" : " **false**");
		}
	cpha_buf_printf(b, "%sno_lost_write %s", n ? ", " : "",
		lab_invariant(s, "no_lost_write") ? "true" : "**false**");
}

static void md_binaries(struct cpha_buf *b, const struct lab_model *m)
{
	json_t *bins = m->lab ? json_object_get(m->lab, "binaries") : NULL;
	const char *name;
	json_t *v;

	json_t *hosts = m->lab ? json_object_get(m->lab, "hosts") : NULL, *h;
	size_t i;

	cpha_buf_puts(b, "## What ran\n\n");
	if (json_array_size(hosts)) {
		cpha_buf_puts(b, "Hosts:");
		json_array_foreach(hosts, i, h)
		{
			cpha_buf_puts(b, i ? ", " : " ");
			md_value(b, json_is_object(h) ? json_object_get(h, "name") : h);
		}
		cpha_buf_puts(b, "\n\n");
	}
	if (!json_is_object(bins) || !json_object_size(bins)) {
		cpha_buf_puts(b, "The lab description names no binaries.\n\n");
		return;
	}
	cpha_buf_puts(b, "| component | binary |\n|---|---|\n");
	json_object_foreach(bins, name, v)
	{
		const char *s = json_is_string(v) ? json_string_value(v) : NULL;

		cpha_buf_puts(b, "| ");
		md_cell(b, name);
		cpha_buf_puts(b, " | ");
		md_value(b, v);
		/* a stand-in is a lab simulator, never mistaken for the real thing */
		if (s && strstr(s, "stand-in") && !strstr(s, "simulator"))
			cpha_buf_puts(b, " (lab simulator)");
		cpha_buf_puts(b, " |\n");
	}
	cpha_buf_puts(b, "\n");
}

static void md_run(struct cpha_buf *b, const struct lab_run *r)
{
	cpha_buf_puts(b, "## Stack: ");
	md_cell(b, r->stack);
	cpha_buf_printf(b, "\n\nEvents: `%s`\n\n", r->events_path ? r->events_path : "?");
	cpha_buf_puts(b, "| scenario | requests | failed | availability % | max gap ms | "
			 "watches | broken | restored | lost writes");
	for (size_t i = 0; i < sizeof(timing_names) / sizeof(timing_names[0]); i++)
		cpha_buf_printf(b, " | %s", timing_names[i]);
	cpha_buf_puts(
		b, " | invariants |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (size_t j = 0; j < r->nscen; j++) {
		const struct lab_scenario *s = &r->scen[j];

		cpha_buf_puts(b, "| ");
		md_cell(b, s->name);
		cpha_buf_printf(b, " | %ld | %ld | ", s->st.requests, s->st.failed);
		if (s->st.availability < 0)
			cpha_buf_puts(b, "—");
		else
			cpha_buf_printf(b, "%.3f", s->st.availability);
		cpha_buf_printf(b, " | %.0f | %d | %ld | ", s->st.max_gap_ms, s->st.watches,
			s->st.watches_broken);
		md_restored(b, s);
		cpha_buf_printf(b, " | %ld", s->st.lost_writes);
		for (size_t i = 0; i < sizeof(timing_names) / sizeof(timing_names[0]); i++) {
			cpha_buf_puts(b, " | ");
			md_value(b,
				s->timings ? json_object_get(s->timings, timing_names[i]) : NULL);
		}
		cpha_buf_puts(b, " | ");
		md_invariants(b, s);
		cpha_buf_puts(b, " |\n");
	}
	if (!r->nscen)
		cpha_buf_puts(b, "| (no scenarios) ||||||||||||||\n");
	cpha_buf_puts(b, "\n");
}

/* scenario | cpha | peer, for failed, max gap and watches restored. */
static void md_side_by_side(struct cpha_buf *b, const struct lab_model *m)
{
	const struct lab_run *a = lab_find_run(m, "cpha"), *p = lab_peer_run(m);
	const char *pname = p && p->stack ? p->stack : "haproxy+keepalived";
	const struct lab_run *order[2] = { a, p };

	cpha_buf_puts(b, "## Side by side\n\n| scenario | measure | cpha | ");
	md_cell(b, pname);
	cpha_buf_puts(b, " |\n|---|---|---|---|\n");
	for (int k = 0; k < 2; k++) {
		const struct lab_run *r = order[k];

		for (size_t j = 0; r && j < r->nscen; j++) {
			const char *name = r->scen[j].name;
			const struct lab_scenario *sa, *sp;

			/* each name once: from cpha, then the peer's own extras */
			if (k == 1 && lab_find_scenario(a, name))
				continue;
			sa = lab_find_scenario(a, name);
			sp = lab_find_scenario(p, name);
			for (int row = 0; row < 3; row++) {
				const struct lab_scenario *two[2] = { sa, sp };

				cpha_buf_puts(b, "| ");
				md_cell(b, name);
				cpha_buf_puts(b, row == 0   ? " | failed"
						 : row == 1 ? " | max gap ms"
							    : " | watches restored");
				for (int c = 0; c < 2; c++) {
					const struct lab_scenario *s = two[c];

					cpha_buf_puts(b, " | ");
					if (!s)
						cpha_buf_puts(b, "—");
					else if (row == 0)
						cpha_buf_printf(b, "%ld of %ld", s->st.failed,
							s->st.requests);
					else if (row == 1)
						cpha_buf_printf(b, "%.0f", s->st.max_gap_ms);
					else
						md_restored(b, s);
				}
				cpha_buf_puts(b, " |\n");
			}
		}
	}
	cpha_buf_puts(b, "\n");
}

static void md_failed_invariants(struct cpha_buf *b, const struct lab_model *m)
{
	int n = 0;

	cpha_buf_puts(b, "## Failed invariants\n\n");
	for (size_t i = 0; i < m->nruns; i++) {
		const struct lab_run *r = &m->runs[i];

		for (size_t j = 0; j < r->nscen; j++) {
			json_t *inv = scenario_invariants(&r->scen[j]);
			const char *name;
			json_t *v;

			json_object_foreach(inv, name, v)
			{
				if (!json_is_false(v))
					continue;
				cpha_buf_puts(b, "- ");
				md_cell(b, r->stack);
				cpha_buf_puts(b, " / ");
				md_cell(b, r->scen[j].name);
				cpha_buf_printf(b, ": **%s** is false", name);
				if (!strcmp(name, "no_lost_write") && r->scen[j].st.lost_writes)
					cpha_buf_printf(b, " (the prober saw %ld lost write%s)",
						r->scen[j].st.lost_writes,
						r->scen[j].st.lost_writes == 1 ? "" : "s");
				cpha_buf_puts(b, "\n");
				n++;
			}
			json_decref(inv);
		}
	}
	if (!n)
		cpha_buf_puts(b, "None: every invariant that was judged held.\n");
	cpha_buf_puts(b, "\n");
}

static void md_goals(struct cpha_buf *b, const struct lab_model *m)
{
	static const char *const state[] = { "met", "NOT met", "not measured" };
	struct lab_goal g[LAB_NGOALS];

	lab_goals(m, g);
	cpha_buf_puts(b, "## Goals\n\n| goal | result | why |\n|---|---|---|\n");
	for (int i = 0; i < LAB_NGOALS; i++) {
		cpha_buf_puts(b, "| ");
		md_cell(b, g[i].what);
		cpha_buf_printf(b, " | %s | ", state[g[i].state]);
		md_cell(b, g[i].why);
		cpha_buf_puts(b, " |\n");
	}
	cpha_buf_puts(b, "\n");
}

static void md_notes(struct cpha_buf *b, const struct lab_model *m)
{
	int n = 0;

	for (size_t i = 0; i < m->nruns; i++)
		for (size_t j = 0; j < m->runs[i].nscen; j++) {
			const struct lab_scenario *s = &m->runs[i].scen[j];
			size_t k;
			json_t *v;

			if (!json_is_array(s->notes) && !json_is_array(s->marks))
				continue;
			if (!n++)
				cpha_buf_puts(b, "## Marks and notes\n\n");
			cpha_buf_puts(b, "- ");
			md_cell(b, m->runs[i].stack);
			cpha_buf_puts(b, " / ");
			md_cell(b, s->name);
			cpha_buf_puts(b, ":");
			json_array_foreach(s->marks, k, v)
			{
				json_t *t = json_object_get(v, "t");

				cpha_buf_printf(b, " [+%.1f s] ",
					json_is_number(t) ? json_number_value(t) - s->start : 0.0);
				md_value(b, json_object_get(v, "what"));
				cpha_buf_puts(b, ";");
			}
			json_array_foreach(s->notes, k, v)
			{
				cpha_buf_puts(b, " ");
				md_value(b, v);
				cpha_buf_puts(b, ";");
			}
			cpha_buf_puts(b, "\n");
		}
	if (n)
		cpha_buf_puts(b, "\n");
}

int lab_render_md(const struct lab_model *m, struct cpha_buf *out)
{
	struct cpha_buf b = { 0 };
	int rc;

	cpha_buf_puts(&b, "# cpha lab report\n\n");
	md_binaries(&b, m);
	for (size_t i = 0; i < m->nruns; i++)
		md_run(&b, &m->runs[i]);
	md_side_by_side(&b, m);
	md_failed_invariants(&b, m);
	md_goals(&b, m);
	md_notes(&b, m);
	cpha_buf_puts(&b, "Timeline: [timeline.svg](timeline.svg)\n");
	/* cpha_buf keeps appending after a failed append: check once */
	if (!b.data) {
		cpha_buf_free(&b);
		return -ENOMEM;
	}
	rc = cpha_buf_append(out, b.data, b.len);
	cpha_buf_free(&b);
	return rc;
}
