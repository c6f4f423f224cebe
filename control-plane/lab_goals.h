/* cpha lab: the lab's goals judged on the valid runs of the cpha stack and
 * of its peer (the first other stack). Pure.
 *
 * A goal is a row of a table: a scenario, a metric and a kind.
 *  - absolute, "0 failed requests" or "an invariant true": met when every
 *    valid cpha run satisfies it and there is at least one, else not met
 *    (lab_sample_all());
 *  - comparative, "no worse than" or "faster than" the peer, lower is
 *    better: lab_sample_compare() on the two samples with the metric's
 *    resolution (lab_goal_resolution()).
 * The goals: apiserver-rolling-restart and reload-under-load 0 failed
 * requests; lb-poweroff and master-poweroff failed requests and max gap no
 * worse than the peer; lb-poweroff vip_after_fence true; master-poweroff
 * and apiserver-rolling-restart watches restored faster than the peer. */
#ifndef CPHA_LAB_GOALS_H
#define CPHA_LAB_GOALS_H

#include <stdbool.h>

#include "lab_sample.h"
#include "lab_stats.h"

#define LAB_NGOALS 9 /* rows of the goal table */

struct lab_goal {
	char what[160];       /* the goal in words */
	const char *scenario; /* static */
	const char *metric;   /* static: "failed", "max_gap_ms", an invariant... */
	bool comparative;     /* against the peer; else absolute */
	enum lab_verdict verdict;
	char why[480];
	struct lab_sample cpha, peer; /* the samples judged; peer when comparative.
				       * For an invariant: 1 (true) and 0 (false)
				       * of the valid runs that judged it */
};

/* The smallest difference of metric that is not noise: failed 3 (one tick
 * of the prober is 3 requests), a time in ms (*_ms) 100, anything else 0. */
double lab_goal_resolution(const char *metric);

/* Judge every goal on m into g[LAB_NGOALS]. Returns 0 or -ENOMEM. */
int lab_goals(const struct lab_model *m, struct lab_goal g[LAB_NGOALS]);

#endif
