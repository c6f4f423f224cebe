/* cpha lab: the prober's event lines and the statistics of a scenario's
 * window. Pure. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lab_stats.h"

static const struct {
	const char *name;
	enum lab_ev_kind kind;
} ev_kinds[] = {
	{ "start", LAB_EV_START },
	{ "readyz", LAB_EV_REQ },
	{ "lease_get", LAB_EV_REQ },
	{ "lease_put", LAB_EV_REQ },
	{ "lost_write", LAB_EV_LOST },
	{ "watch_break", LAB_EV_BREAK },
	{ "watch_open", LAB_EV_OPEN },
	{ "stop", LAB_EV_STOP },
};

/* The optional fields of a request line that say how it failed. Returns 0
 * or -EINVAL with why. */
static int parse_failure(json_t *o, struct lab_event *ev, char *why, size_t whylen)
{
	static const char *const ints[] = { "code", "curl", "errno" };
	static const char *const bools[] = { "connected", "tls", "not_sent" };
	json_t *v;
	const char *err;

	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		v = json_object_get(o, ints[i]);
		if (v && (!json_is_integer(v) || json_integer_value(v) < 0 ||
				 json_integer_value(v) > 100000)) {
			snprintf(
				why, whylen, "\"%s\" must be an integer from 0 to 100000", ints[i]);
			return -EINVAL;
		}
	}
	for (size_t i = 0; i < sizeof(bools) / sizeof(bools[0]); i++) {
		v = json_object_get(o, bools[i]);
		if (v && !json_is_boolean(v)) {
			snprintf(why, whylen, "\"%s\" must be a boolean", bools[i]);
			return -EINVAL;
		}
	}
	v = json_object_get(o, "ms");
	if (v && (!json_is_number(v) || json_number_value(v) < 0)) {
		snprintf(why, whylen, "\"ms\" must be a number >= 0");
		return -EINVAL;
	}
	ev->ms = v ? json_number_value(v) : 0;
	for (const char *const *k = (const char *const[]){ "err", "reason", NULL }; *k; k++) {
		v = json_object_get(o, *k);
		if (v && !json_is_string(v)) {
			snprintf(why, whylen, "\"%s\" must be a string", *k);
			return -EINVAL;
		}
	}
	ev->code = (int)json_integer_value(json_object_get(o, "code"));
	v = json_object_get(o, "curl");
	ev->curl = v ? (int)json_integer_value(v) : -1;
	ev->os_errno = (int)json_integer_value(json_object_get(o, "errno"));
	v = json_object_get(o, "connected");
	ev->connected = v ? json_is_true(v) : -1;
	v = json_object_get(o, "tls");
	ev->tls = v ? json_is_true(v) : -1;
	err = json_string_value(json_object_get(o, "err"));
	/* a prober that did not write not_sent said so in the text */
	ev->not_sent = json_is_true(json_object_get(o, "not_sent")) ||
		       (err && !strncmp(err, "not sent: ", 10));
	if (!ev->ok) {
		const struct lab_cause_facts f = { .code = ev->code,
			.curl = ev->curl,
			.os_errno = ev->os_errno,
			.connected = ev->connected,
			.tls = ev->tls,
			.err = err };

		ev->cause = lab_cause_classify(&f);
	}
	return 0;
}

int lab_event_parse(const char *line, struct lab_event *ev, char *why, size_t whylen)
{
	json_error_t jerr;
	json_t *o = json_loads(line, JSON_REJECT_DUPLICATES, &jerr);
	json_t *t, *k, *v;
	const char *ks;
	int rc = -EINVAL;

	memset(ev, 0, sizeof(*ev));
	ev->curl = -1;
	ev->connected = ev->tls = -1;
	if (!o) {
		snprintf(why, whylen, "column %d: %s", jerr.column, jerr.text);
		return -EINVAL;
	}
	t = json_object_get(o, "t");
	k = json_object_get(o, "k");
	if (!json_is_object(o) || !json_is_number(t) || !json_is_string(k)) {
		snprintf(why, whylen, "an event needs a number \"t\" and a string \"k\"");
		goto out;
	}
	ev->t = json_number_value(t);
	ev->kind = LAB_EV_OTHER;
	ks = json_string_value(k);
	for (size_t i = 0; i < sizeof(ev_kinds) / sizeof(ev_kinds[0]); i++)
		if (!strcmp(ks, ev_kinds[i].name))
			ev->kind = ev_kinds[i].kind;
	ev->n = 1;
	switch (ev->kind) {
	case LAB_EV_START:
		v = json_object_get(o, "watches");
		ev->watches = json_is_integer(v) ? (int)json_integer_value(v) : 0;
		break;
	case LAB_EV_REQ:
		v = json_object_get(o, "ok");
		if (!json_is_boolean(v)) {
			snprintf(why, whylen, "\"%s\" needs a boolean \"ok\"", ks);
			goto out;
		}
		ev->ok = json_is_true(v);
		v = json_object_get(o, "n");
		if (v && (!json_is_integer(v) || json_integer_value(v) < 1 ||
				 json_integer_value(v) > 1000)) {
			snprintf(why, whylen, "\"n\" must be an integer from 1 to 1000");
			goto out;
		}
		if (v)
			ev->n = (int)json_integer_value(v);
		if (parse_failure(o, ev, why, whylen) < 0)
			goto out;
		break;
	case LAB_EV_BREAK:
	case LAB_EV_OPEN:
		v = json_object_get(o, "w");
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
			json_integer_value(v) > 100000) {
			snprintf(why, whylen, "\"%s\" needs the watch's index \"w\"", ks);
			goto out;
		}
		ev->w = (int)json_integer_value(v);
		break;
	default:
		break;
	}
	rc = 0;
out:
	json_decref(o);
	return rc;
}

int lab_events_add(struct lab_events *e, const struct lab_event *ev)
{
	if (e->n == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 256;
		struct lab_event *v = realloc(e->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		e->v = v;
		e->cap = cap;
	}
	e->v[e->n++] = *ev;
	return 0;
}

void lab_events_free(struct lab_events *e)
{
	free(e->v);
	memset(e, 0, sizeof(*e));
}

double lab_events_t0(const struct lab_events *e)
{
	double t0 = 0;

	for (size_t i = 0; i < e->n; i++)
		if (i == 0 || e->v[i].t < t0)
			t0 = e->v[i].t;
	return t0;
}

/* Per-watch state while walking a window. */
struct watch_state {
	int w;
	bool broken;
};

static struct watch_state *watch_find(struct watch_state **ws, size_t *n, int w)
{
	struct watch_state *v;

	for (size_t i = 0; i < *n; i++)
		if ((*ws)[i].w == w)
			return &(*ws)[i];
	v = realloc(*ws, (*n + 1) * sizeof(*v));
	if (!v)
		return NULL;
	*ws = v;
	v[*n] = (struct watch_state){ .w = w };
	return &v[(*n)++];
}

void lab_window_stats_phases(const struct lab_events *e, double start, double end,
	const struct lab_phase_span *spans, size_t nspans, struct lab_window *w)
{
	struct watch_state *ws = NULL;
	size_t nws = 0;
	double last_ok = start, episode = -1;
	int broken_now = 0;

	memset(w, 0, sizeof(*w));
	w->watches_restored_ms = -1;
	w->availability = -1;
	for (size_t i = 0; i < e->n; i++) {
		const struct lab_event *ev = &e->v[i];
		struct watch_state *s;

		if (ev->kind == LAB_EV_START && !w->watches)
			w->watches = ev->watches;
		if (ev->t < start || ev->t > end)
			continue;
		switch (ev->kind) {
		case LAB_EV_REQ:
			w->requests += ev->n;
			if (!ev->ok) {
				w->failed += ev->n;
				w->causes[(unsigned)ev->cause < LAB_NCAUSES ? ev->cause
									    : LAB_CAUSE_OTHER] +=
					ev->n;
				w->phases[lab_phase_of(
					ev->t, ev->ms, ev->not_sent, spans, nspans)] += ev->n;
				break;
			}
			if ((ev->t - last_ok) * 1000.0 > w->max_gap_ms)
				w->max_gap_ms = (ev->t - last_ok) * 1000.0;
			if (ev->t > last_ok)
				last_ok = ev->t;
			break;
		case LAB_EV_LOST:
			w->lost_writes++;
			break;
		case LAB_EV_BREAK:
			w->watches_broken++;
			s = watch_find(&ws, &nws, ev->w);
			if (s && !s->broken) {
				s->broken = true;
				if (broken_now++ == 0)
					episode = ev->t; /* every watch was open until now */
			}
			break;
		case LAB_EV_OPEN:
			s = watch_find(&ws, &nws, ev->w);
			if (s && s->broken) {
				s->broken = false;
				if (--broken_now == 0 &&
					(ev->t - episode) * 1000.0 > w->watches_restored_ms)
					w->watches_restored_ms = (ev->t - episode) * 1000.0;
			}
			break;
		default:
			break;
		}
	}
	if ((end - last_ok) * 1000.0 > w->max_gap_ms)
		w->max_gap_ms = (end - last_ok) * 1000.0;
	if (w->requests)
		w->availability =
			round(100000.0 * (double)(w->requests - w->failed) / (double)w->requests) /
			1000.0;
	w->never_restored = broken_now;
	w->restored_stat_ms = w->watches_restored_ms < 0 ? 0 : w->watches_restored_ms;
	if (broken_now && (end - episode) * 1000.0 > w->restored_stat_ms)
		w->restored_stat_ms = (end - episode) * 1000.0;
	free(ws);
}

void lab_window_stats(const struct lab_events *e, double start, double end, struct lab_window *w)
{
	lab_window_stats_phases(e, start, end, NULL, 0, w);
}

void lab_scenario_stats(const struct lab_events *e, struct lab_scenario *s)
{
	lab_window_stats_phases(e, s->start, s->end, s->phases, s->nphases, &s->st);
}

void lab_scenario_stats6(const struct lab_events *e6, struct lab_scenario *s)
{
	lab_window_stats(e6, s->start, s->end, &s->st6);
	s->has_v6 = true;
}

int lab_invariant(const struct lab_scenario *s, const char *name)
{
	json_t *v = s->invariants ? json_object_get(s->invariants, name) : NULL;

	if (!strcmp(name, "no_lost_write")) {
		/* a restore from a snapshot loses what came after it by design:
		 * the scenario's own invariant judges the loss */
		if (s->invariants && json_object_get(s->invariants, "lost_only_after_snapshot"))
			return -1;
		if (s->st.lost_writes || (s->has_v6 && s->st6.lost_writes))
			return 0;
		if (!json_is_boolean(v))
			return 1;
	}
	return json_is_boolean(v) ? json_is_true(v) : -1;
}

const struct lab_run *lab_find_run(const struct lab_model *m, const char *stack)
{
	for (size_t i = 0; i < m->nruns; i++)
		if (m->runs[i].stack && !strcmp(m->runs[i].stack, stack))
			return &m->runs[i];
	return NULL;
}

const struct lab_run *lab_peer_run(const struct lab_model *m)
{
	for (size_t i = 0; i < m->nruns; i++)
		if (m->runs[i].stack && strcmp(m->runs[i].stack, "cpha"))
			return &m->runs[i];
	return NULL;
}
