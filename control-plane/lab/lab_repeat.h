/* cpha lab: the attempts at one scenario of a stack's run taken together:
 * which ones count, which one stands for them, the sample of a metric.
 * Pure. Attempts are grouped by name within a run (a run is one stack). */
#ifndef CPHA_LAB_REPEAT_H
#define CPHA_LAB_REPEAT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "lab_sample.h"
#include "lab_stats.h"

/* Whether attempt s counts in the statistics: valid and started. */
bool lab_repeat_valid(const struct lab_scenario *s);

/* Whether r->scen[j] is the first attempt of its name: iterating over j and
 * keeping these gives each scenario once, in the order of first appearance. */
bool lab_repeat_first(const struct lab_run *r, size_t j);

/* The attempts of name in r (NULL r: none); *nvalid (when not NULL) gets
 * how many of them are valid. */
size_t lab_repeat_count(const struct lab_run *r, const char *name, size_t *nvalid);

/* The repeat round of r->scen[j]: the one given, else its rank among the
 * attempts of its name (1 for the first). */
int lab_repeat_round(const struct lab_run *r, size_t j);

/* The attempt that stands for name in r: the valid one whose failed count
 * is the lower median of the valid ones (the earliest of those with that
 * count); with none valid the last attempt; NULL when there is none. */
const struct lab_scenario *lab_repeat_representative(const struct lab_run *r, const char *name);

/* The value of metric in attempt s: "failed", "max_gap_ms" (whole ms, as
 * report.json has it), "watches_restored_ms" (whole ms of
 * restored_stat_ms: 0 when none broke, a lower bound when some never came
 * back), a dual-stack attempt's "ipv6_failed" and "ipv6_max_gap_ms" (the
 * IPv6 prober's, alike) or a number in its timings. Returns false when s
 * has no such number. */
bool lab_repeat_value(const struct lab_scenario *s, const char *metric, double *v);

/* The statistics of metric over the valid attempts of name in r (NULL r:
 * none). Returns 0 or -ENOMEM. */
int lab_repeat_stats(
	const struct lab_run *r, const char *name, const char *metric, struct lab_sample *st);

/* The failed requests of the valid attempts of name in r by cause and by
 * phase, added to causes[] and phases[]. */
void lab_repeat_sums(const struct lab_run *r, const char *name, long causes[LAB_NCAUSES],
	long phases[LAB_NPHASES]);

/* The names of the timings with a number in any valid attempt of name in
 * r, in the order they first appear, appended to the array names. Returns
 * 0 or -ENOMEM. */
int lab_repeat_timing_names(const struct lab_run *r, const char *name, json_t *names);

#endif
