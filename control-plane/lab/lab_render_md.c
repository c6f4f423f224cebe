/* cpha lab report: report.md from the model. Pure. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "buf.h"
#include "lab_cause.h"
#include "lab_goals.h"
#include "lab_render.h"
#include "lab_repeat.h"
#include "lab_sample.h"
#include "lab_stats.h"

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

/* A figure: whole numbers without decimals. */
static void md_num(struct cpha_buf *b, double x)
{
	if (x == floor(x))
		cpha_buf_printf(b, "%.0f", x);
	else
		cpha_buf_printf(b, "%.1f", x);
}

/* "median [lo, hi] (min–max)"; — when there is no valid run. */
static void md_sample(struct cpha_buf *b, const struct lab_sample *s)
{
	if (!s->n) {
		cpha_buf_puts(b, "—");
		return;
	}
	md_num(b, s->median);
	cpha_buf_puts(b, " [");
	md_num(b, s->lo);
	cpha_buf_puts(b, ", ");
	md_num(b, s->hi);
	cpha_buf_puts(b, "] (");
	md_num(b, s->min);
	cpha_buf_puts(b, "–");
	md_num(b, s->max);
	cpha_buf_puts(b, ")");
}

/* The statistics of metric for name in r as a cell. Returns 0 or -ENOMEM. */
static int md_metric(struct cpha_buf *b, const struct lab_run *r, const char *name,
	const char *metric, bool median_only)
{
	struct lab_sample st;

	if (lab_repeat_stats(r, name, metric, &st) < 0)
		return -ENOMEM;
	if (median_only && st.n)
		md_num(b, st.median);
	else
		md_sample(b, &st);
	return 0;
}

/* Whether r->scen[j] is the first attempt of its name in the whole model:
 * iterating over the runs and keeping these gives every scenario name once. */
static bool first_in_model(const struct lab_model *m, size_t i, size_t j)
{
	const char *name = m->runs[i].scen[j].name;

	if (!name || !lab_repeat_first(&m->runs[i], j))
		return false;
	for (size_t k = 0; k < i; k++)
		if (lab_repeat_count(&m->runs[k], name, NULL))
			return false;
	return true;
}

/* A dual-stack run's figures per address family: the IPv4 prober's and
 * the IPv6 prober's, side by side. Returns 0 or -ENOMEM. */
static int md_families(struct cpha_buf *b, const struct lab_run *r)
{
	static const char *const metrics[] = { "failed", "max_gap_ms", "ipv6_failed",
		"ipv6_max_gap_ms" };

	cpha_buf_printf(b,
		"Per address family (dual stack: a second prober through the IPv6 "
		"VIP, events `%s`):\n\n",
		r->events6_path);
	cpha_buf_puts(b, "| scenario | IPv4 failed | IPv4 max gap ms | IPv6 failed | IPv6 max "
			 "gap ms |\n|---|---|---|---|---|\n");
	for (size_t j = 0; j < r->nscen; j++) {
		const char *name = r->scen[j].name;

		if (!name || !lab_repeat_first(r, j))
			continue;
		cpha_buf_puts(b, "| ");
		md_cell(b, name);
		for (size_t k = 0; k < sizeof(metrics) / sizeof(metrics[0]); k++) {
			cpha_buf_puts(b, " | ");
			if (md_metric(b, r, name, metrics[k], false) < 0)
				return -ENOMEM;
		}
		cpha_buf_puts(b, " |\n");
	}
	cpha_buf_puts(b, "\n");
	return 0;
}

static int md_run(struct cpha_buf *b, const struct lab_run *r)
{
	json_t *timings = json_array();
	size_t i;
	json_t *v;
	int rc = -ENOMEM;

	if (!timings)
		return -ENOMEM;
	for (size_t j = 0; j < r->nscen; j++)
		if (r->scen[j].name && lab_repeat_first(r, j) &&
			lab_repeat_timing_names(r, r->scen[j].name, timings) < 0)
			goto out;
	cpha_buf_puts(b, "## Stack: ");
	md_cell(b, r->stack);
	cpha_buf_printf(b, "\n\nEvents: `%s`\n\n", r->events_path ? r->events_path : "?");
	cpha_buf_puts(b, "Over the valid runs: median [95% interval of the median] (min–max); "
			 "timings: medians.\n\n");
	cpha_buf_puts(b, "| scenario | valid/attempts | failed | max gap ms | watches restored ms");
	json_array_foreach(timings, i, v)
	{
		cpha_buf_puts(b, " | ");
		md_cell(b, json_string_value(v));
	}
	cpha_buf_puts(b, " |\n|---|---|---|---|---");
	for (i = 0; i < json_array_size(timings); i++)
		cpha_buf_puts(b, "|---");
	cpha_buf_puts(b, "|\n");
	for (size_t j = 0; j < r->nscen; j++) {
		const char *name = r->scen[j].name;
		size_t n, nvalid;

		if (!name || !lab_repeat_first(r, j))
			continue;
		n = lab_repeat_count(r, name, &nvalid);
		cpha_buf_puts(b, "| ");
		md_cell(b, name);
		cpha_buf_printf(b, " | %zu/%zu | ", nvalid, n);
		if (md_metric(b, r, name, "failed", false) < 0)
			goto out;
		cpha_buf_puts(b, " | ");
		if (md_metric(b, r, name, "max_gap_ms", false) < 0)
			goto out;
		cpha_buf_puts(b, " | ");
		if (md_metric(b, r, name, "watches_restored_ms", false) < 0)
			goto out;
		json_array_foreach(timings, i, v)
		{
			cpha_buf_puts(b, " | ");
			if (md_metric(b, r, name, json_string_value(v), true) < 0)
				goto out;
		}
		cpha_buf_puts(b, " |\n");
	}
	if (!r->nscen)
		cpha_buf_puts(b, "| (no scenarios) |||||\n");
	cpha_buf_puts(b, "\n");
	rc = r->events6_path ? md_families(b, r) : 0;
out:
	json_decref(timings);
	return rc;
}

/* "Failed requests by cause" (by_phase false) or "by phase": one row per
 * scenario and stack, summed over the valid runs. */
static void md_breakdown(struct cpha_buf *b, const struct lab_model *m, bool by_phase)
{
	int ncol = by_phase ? LAB_NPHASES : LAB_NCAUSES, rows = 0;

	cpha_buf_printf(
		b, "## Failed requests by %s\n\n| scenario | stack", by_phase ? "phase" : "cause");
	for (int k = 0; k < ncol; k++)
		cpha_buf_printf(b, " | %s",
			by_phase ? lab_phase_name((enum lab_phase)k)
				 : lab_cause_name((enum lab_cause)k));
	cpha_buf_puts(b, " |\n|---|---");
	for (int k = 0; k < ncol; k++)
		cpha_buf_puts(b, "|---");
	cpha_buf_puts(b, "|\n");
	for (size_t i = 0; i < m->nruns; i++)
		for (size_t j = 0; j < m->runs[i].nscen; j++) {
			const char *name = m->runs[i].scen[j].name;

			if (!first_in_model(m, i, j))
				continue;
			for (size_t k = 0; k < m->nruns; k++) {
				long causes[LAB_NCAUSES] = { 0 }, phases[LAB_NPHASES] = { 0 };
				const long *c = by_phase ? phases : causes;

				if (!lab_repeat_count(&m->runs[k], name, NULL))
					continue;
				lab_repeat_sums(&m->runs[k], name, causes, phases);
				cpha_buf_puts(b, "| ");
				md_cell(b, name);
				cpha_buf_puts(b, " | ");
				md_cell(b, m->runs[k].stack);
				for (int x = 0; x < ncol; x++)
					cpha_buf_printf(b, " | %ld", c[x]);
				cpha_buf_puts(b, " |\n");
				rows++;
			}
		}
	if (!rows)
		cpha_buf_puts(b, "| (no scenarios) ||\n");
	cpha_buf_puts(b, "\n");
}

/* Every attempt that does not count, and why. */
static void md_attempts(struct cpha_buf *b, const struct lab_model *m)
{
	size_t all = 0, n = 0;

	cpha_buf_puts(b, "## Runs\n\n");
	for (size_t i = 0; i < m->nruns; i++)
		for (size_t j = 0; j < m->runs[i].nscen; j++) {
			const struct lab_scenario *s = &m->runs[i].scen[j];

			all++;
			if (lab_repeat_valid(s))
				continue;
			n++;
			cpha_buf_puts(b, "- ");
			md_cell(b, m->runs[i].stack);
			cpha_buf_puts(b, " / ");
			md_cell(b, s->name);
			cpha_buf_printf(b, ", repeat %d: %s: ", lab_repeat_round(&m->runs[i], j),
				s->not_started ? "not started" : "invalid");
			md_cell(b, s->invalid_reason ? s->invalid_reason : "no reason given");
			cpha_buf_puts(b, "\n");
		}
	if (!n)
		cpha_buf_printf(
			b, "Every attempt counts: %zu valid, none invalid or not started.\n", all);
	else
		cpha_buf_printf(
			b, "\n%zu of %zu attempts do not count in the statistics.\n", n, all);
	cpha_buf_puts(b, "\n");
}

/* scenario | measure | cpha | peer, for failed, max gap and watches restored. */
static int md_side_by_side(struct cpha_buf *b, const struct lab_model *m)
{
	static const char *const metrics[] = { "failed", "max_gap_ms", "watches_restored_ms" };
	const struct lab_run *a = lab_find_run(m, "cpha"), *p = lab_peer_run(m);
	const char *pname = p && p->stack ? p->stack : "haproxy+keepalived";
	const struct lab_run *order[2] = { a, p };

	cpha_buf_puts(b, "## Side by side\n\nMedian [95% interval of the median] (min–max) over "
			 "the valid runs.\n\n| scenario | measure | cpha | ");
	md_cell(b, pname);
	cpha_buf_puts(b, " |\n|---|---|---|---|\n");
	for (int k = 0; k < 2; k++) {
		const struct lab_run *r = order[k];

		for (size_t j = 0; r && j < r->nscen; j++) {
			const char *name = r->scen[j].name;

			/* each name once: from cpha, then the peer's own extras */
			if (!name || !lab_repeat_first(r, j) ||
				(k == 1 && lab_repeat_count(a, name, NULL)))
				continue;
			for (size_t x = 0; x < sizeof(metrics) / sizeof(metrics[0]); x++) {
				cpha_buf_puts(b, "| ");
				md_cell(b, name);
				cpha_buf_printf(b, " | %s", metrics[x]);
				for (int c = 0; c < 2; c++) {
					cpha_buf_puts(b, " | ");
					if (md_metric(b, order[c], name, metrics[x], false) < 0)
						return -ENOMEM;
				}
				cpha_buf_puts(b, " |\n");
			}
		}
	}
	cpha_buf_puts(b, "\n");
	return 0;
}

static void md_failed_invariants(struct cpha_buf *b, const struct lab_model *m)
{
	int n = 0;

	cpha_buf_puts(b, "## Failed invariants across valid runs\n\n");
	for (size_t i = 0; i < m->nruns; i++) {
		const struct lab_run *r = &m->runs[i];

		for (size_t j = 0; j < r->nscen; j++) {
			const struct lab_scenario *s = &r->scen[j];
			json_t *inv;
			const char *name;
			json_t *v;

			if (!lab_repeat_valid(s))
				continue;
			inv = lab_render_invariants(s);
			json_object_foreach(inv, name, v)
			{
				if (!json_is_false(v))
					continue;
				cpha_buf_puts(b, "- ");
				md_cell(b, r->stack);
				cpha_buf_puts(b, " / ");
				md_cell(b, s->name);
				cpha_buf_printf(b, ", repeat %d: **%s** is false",
					lab_repeat_round(r, j), name);
				if (!strcmp(name, "no_lost_write") && s->st.lost_writes)
					cpha_buf_printf(b, " (the prober saw %ld lost write%s)",
						s->st.lost_writes,
						s->st.lost_writes == 1 ? "" : "s");
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

static int md_goals(struct cpha_buf *b, const struct lab_model *m)
{
	struct lab_goal g[LAB_NGOALS];

	if (lab_goals(m, g) < 0)
		return -ENOMEM;
	int skipped = 0;

	cpha_buf_puts(b, "## Goals\n\n| goal | verdict | why |\n|---|---|---|\n");
	for (int i = 0; i < LAB_NGOALS; i++) {
		if (!g[i].ran)
			continue;
		cpha_buf_puts(b, "| ");
		md_cell(b, g[i].what);
		cpha_buf_printf(b, " | %s | ", lab_verdict_name(g[i].verdict));
		md_cell(b, g[i].why);
		cpha_buf_puts(b, " |\n");
	}
	/* a scenario not in these runs: its goals are not judged, not failed */
	for (int i = 0; i < LAB_NGOALS; i++) {
		bool first = true;

		if (g[i].ran)
			continue;
		for (int j = 0; j < i; j++)
			first &= g[j].ran || strcmp(g[j].scenario, g[i].scenario) != 0;
		if (!first)
			continue;
		cpha_buf_printf(b, "%s`%s`", skipped++ ? ", " : "\nNot run here, so not judged: ",
			g[i].scenario);
	}
	cpha_buf_puts(b, skipped ? ".\n\n" : "\n");
	return 0;
}

static void md_notes(struct cpha_buf *b, const struct lab_model *m)
{
	int n = 0;

	for (size_t i = 0; i < m->nruns; i++)
		for (size_t j = 0; j < m->runs[i].nscen; j++) {
			const struct lab_scenario *s = &m->runs[i].scen[j];
			size_t k;
			json_t *v;

			if (!json_is_array(s->notes) && !json_is_array(s->marks) &&
				!s->st.never_restored)
				continue;
			if (!n++)
				cpha_buf_puts(b, "## Marks and notes\n\n");
			cpha_buf_puts(b, "- ");
			md_cell(b, m->runs[i].stack);
			cpha_buf_puts(b, " / ");
			md_cell(b, s->name);
			cpha_buf_printf(b, ", repeat %d:", lab_repeat_round(&m->runs[i], j));
			json_array_foreach(s->marks, k, v)
			{
				json_t *t = json_object_get(v, "t");

				cpha_buf_printf(b, " [+%.1f s] ",
					json_is_number(t) ? json_number_value(t) - s->start : 0.0);
				md_value(b, json_object_get(v, "what"));
				cpha_buf_puts(b, ";");
			}
			if (s->st.never_restored)
				cpha_buf_printf(b,
					" %d watch%s had not reopened by the end (watches restored "
					"counts %.0f ms, to the end: a lower bound);",
					s->st.never_restored, s->st.never_restored == 1 ? "" : "es",
					s->st.restored_stat_ms);
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
	int rc = -ENOMEM;

	cpha_buf_puts(&b, "# cpha lab report\n\n");
	md_binaries(&b, m);
	for (size_t i = 0; i < m->nruns; i++)
		if (md_run(&b, &m->runs[i]) < 0)
			goto out;
	md_breakdown(&b, m, false);
	md_breakdown(&b, m, true);
	md_attempts(&b, m);
	if (md_side_by_side(&b, m) < 0)
		goto out;
	md_failed_invariants(&b, m);
	if (md_goals(&b, m) < 0)
		goto out;
	md_notes(&b, m);
	cpha_buf_puts(&b, "Timeline: [timeline.svg](timeline.svg)\n");
	/* cpha_buf keeps appending after a failed append: check once */
	if (b.data)
		rc = cpha_buf_append(out, b.data, b.len);
out:
	cpha_buf_free(&b);
	return rc;
}
