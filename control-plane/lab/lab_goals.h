/* cpha lab: the lab's goals judged on the valid runs of the cpha stack and
 * of its peer (the first other stack). Pure.
 *
 * A goal is a row of a table: a scenario, a metric, a kind and a number.
 *  - absolute, "0 of the metric" or "an invariant true": met when every
 *    valid cpha run satisfies it and there is at least one, else not met
 *    (lab_sample_all()); a run without the metric does not satisfy "0".
 *    For "0" the peer's sample is judged on nothing, only shown in why;
 *  - absolute, "the median at most a bound": lab_sample_compare() of
 *    cpha's sample against the bound taken as a sample of as many runs,
 *    every value the bound, with the metric's resolution;
 *  - comparative, "no worse than" or "faster than" the peer, lower is
 *    better: lab_sample_compare() on the two samples with the metric's
 *    resolution (lab_goal_resolution());
 *  - comparative, "at most a factor times the peer's": the same against
 *    the peer's sample with every figure (median, min, max, interval)
 *    multiplied by the factor: the bootstrap interval of the median of
 *    scaled values is the scaled interval.
 * The goals: apiserver-rolling-restart and reload-under-load 0 failed
 * requests; lb-poweroff failed requests at most 0.25 x the peer's, max gap
 * no worse than the peer, the first request served after the fault within
 * 500 ms; master-poweroff failed requests at most 0.5 x the peer's, max
 * gap at most 150 ms, 0 failed requests the load balancer could have
 * avoided (lb_avoidable_failed); lb-poweroff and lb-hang vip_after_fence
 * true; lb-hang serving within 500 ms of the fence and 0 ms with the VIP
 * on two hosts (the peer's shown); master-poweroff and
 * apiserver-rolling-restart watches restored faster than the peer;
 * cert-rotation and lb-upgrade 0 failed requests and watches restored
 * within 1 s; etcd-quorum-loss no acknowledged write lost from before the
 * snapshot it restores (lost_only_after_snapshot true); k8s-minor-upgrade
 * 0 failed requests and never two controller-managers running. */
#ifndef CPHA_LAB_GOALS_H
#define CPHA_LAB_GOALS_H

#include <stdbool.h>

#include "lab_sample.h"
#include "lab_stats.h"

#define LAB_NGOALS 53 /* rows of the goal table */

struct lab_goal {
	char what[160];       /* the goal in words */
	const char *scenario; /* static */
	const char *metric;   /* static: "failed", "max_gap_ms", an invariant... */
	bool comparative;     /* against the peer; else absolute (a bound, 0, true) */
	bool ran;             /* some stack attempted the scenario; else nothing is judged */
	enum lab_verdict verdict;
	char why[480];
	struct lab_sample cpha, peer; /* the samples judged; peer when comparative,
				       * or shown beside "0" goals. For an
				       * invariant: 1 (true) and 0 (false) of the
				       * valid runs that judged it */
};

/* The smallest difference of metric that is not noise: failed 3 (one tick
 * of the prober is 3 requests), a time in ms (*_ms) 100, anything else 0. */
double lab_goal_resolution(const char *metric);

/* Judge every goal on m into g[LAB_NGOALS]. Returns 0 or -ENOMEM. */
int lab_goals(const struct lab_model *m, struct lab_goal g[LAB_NGOALS]);

#endif
