/* cpha lab: the attempts at a scenario taken together. Pure. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lab_repeat.h"
#include "lab_sample.h"
#include "lab_stats.h"

/* Whether s is an attempt of name. */
static bool is(const struct lab_scenario *s, const char *name)
{
	return s->name && name && !strcmp(s->name, name);
}

bool lab_repeat_valid(const struct lab_scenario *s)
{
	return !s->invalid && !s->not_started;
}

bool lab_repeat_first(const struct lab_run *r, size_t j)
{
	for (size_t i = 0; i < j; i++)
		if (is(&r->scen[i], r->scen[j].name))
			return false;
	return true;
}

size_t lab_repeat_count(const struct lab_run *r, const char *name, size_t *nvalid)
{
	size_t n = 0, v = 0;

	for (size_t j = 0; r && j < r->nscen; j++)
		if (is(&r->scen[j], name)) {
			n++;
			v += lab_repeat_valid(&r->scen[j]);
		}
	if (nvalid)
		*nvalid = v;
	return n;
}

int lab_repeat_round(const struct lab_run *r, size_t j)
{
	int k = 0;

	if (r->scen[j].repeat > 0)
		return r->scen[j].repeat;
	for (size_t i = 0; i <= j; i++)
		k += is(&r->scen[i], r->scen[j].name);
	return k;
}

const struct lab_scenario *lab_repeat_representative(const struct lab_run *r, const char *name)
{
	const struct lab_scenario *last = NULL;
	size_t nvalid;

	lab_repeat_count(r, name, &nvalid);
	for (size_t j = 0; r && j < r->nscen; j++) {
		const struct lab_scenario *s = &r->scen[j];
		size_t below = 0, upto = 0;

		if (!is(s, name))
			continue;
		last = s;
		if (!lab_repeat_valid(s))
			continue;
		/* s holds the lower median, sorted[(nvalid - 1) / 2], when that
		 * rank falls among the values equal to its own */
		for (size_t i = 0; i < r->nscen; i++)
			if (is(&r->scen[i], name) && lab_repeat_valid(&r->scen[i])) {
				below += r->scen[i].st.failed < s->st.failed;
				upto += r->scen[i].st.failed <= s->st.failed;
			}
		if (below <= (nvalid - 1) / 2 && (nvalid - 1) / 2 < upto)
			return s;
	}
	return last;
}

bool lab_repeat_value(const struct lab_scenario *s, const char *metric, double *v)
{
	json_t *t;

	if (!strcmp(metric, "failed")) {
		*v = (double)s->st.failed;
		return true;
	}
	if (!strcmp(metric, "max_gap_ms")) {
		*v = (double)llround(s->st.max_gap_ms);
		return true;
	}
	if (!strcmp(metric, "watches_restored_ms")) {
		*v = (double)llround(s->st.restored_stat_ms);
		return true;
	}
	if (!strcmp(metric, "ipv6_failed") || !strcmp(metric, "ipv6_max_gap_ms")) {
		if (!s->has_v6)
			return false;
		*v = !strcmp(metric, "ipv6_failed") ? (double)s->st6.failed
						    : (double)llround(s->st6.max_gap_ms);
		return true;
	}
	t = json_object_get(s->timings, metric);
	if (!json_is_number(t))
		return false;
	*v = json_number_value(t);
	return true;
}

int lab_repeat_stats(
	const struct lab_run *r, const char *name, const char *metric, struct lab_sample *st)
{
	size_t n = 0, nvalid;
	double *v;
	int rc;

	lab_repeat_count(r, name, &nvalid);
	v = malloc((nvalid ? nvalid : 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t j = 0; r && j < r->nscen; j++)
		if (is(&r->scen[j], name) && lab_repeat_valid(&r->scen[j]) &&
			lab_repeat_value(&r->scen[j], metric, &v[n]))
			n++;
	rc = lab_sample_stats(v, n, st);
	free(v);
	return rc;
}

void lab_repeat_sums(const struct lab_run *r, const char *name, long causes[LAB_NCAUSES],
	long phases[LAB_NPHASES])
{
	for (size_t j = 0; r && j < r->nscen; j++) {
		const struct lab_scenario *s = &r->scen[j];

		if (!is(s, name) || !lab_repeat_valid(s))
			continue;
		for (int k = 0; k < LAB_NCAUSES; k++)
			causes[k] += s->st.causes[k];
		for (int k = 0; k < LAB_NPHASES; k++)
			phases[k] += s->st.phases[k];
	}
}

int lab_repeat_timing_names(const struct lab_run *r, const char *name, json_t *names)
{
	for (size_t j = 0; r && j < r->nscen; j++) {
		const struct lab_scenario *s = &r->scen[j];
		const char *key;
		json_t *v, *n;
		size_t i;
		bool seen;

		if (!is(s, name) || !lab_repeat_valid(s) || !json_is_object(s->timings))
			continue;
		json_object_foreach(s->timings, key, v)
		{
			if (!json_is_number(v))
				continue;
			seen = false;
			json_array_foreach(names, i, n) seen |= !strcmp(json_string_value(n), key);
			if (!seen && json_array_append_new(names, json_string(key)) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}
