/* cpha lab: statistics of a sample (one value per valid run of a
 * scenario) and the verdicts of the lab's goals. Pure: no I/O, and the
 * same input gives the same output on every machine.
 *
 * The interval is a 95% percentile bootstrap of the median: B = 2000
 * resamples of n values drawn with replacement, by splitmix64 seeded with
 * LAB_SAMPLE_SEED at every call; the B medians sorted ascending as
 * m[0..B-1], the interval is [m[50], m[1949]] (the 2.5th and 97.5th
 * percentiles: the 50 lowest and the 50 highest resampled medians are cut
 * off). n = 1 gives [x, x]; n = 0 gives no statistics. */
#ifndef CPHA_LAB_SAMPLE_H
#define CPHA_LAB_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#define LAB_SAMPLE_B    2000        /* bootstrap resamples */
#define LAB_SAMPLE_CUT  50          /* resampled medians cut at each end */
#define LAB_SAMPLE_SEED 0x63706861u /* "cpha": the generator's fixed seed */

/* Statistics of n values; with n 0 only n is meaningful. */
struct lab_sample {
	size_t n;
	double median; /* the middle value; the mean of the two middle ones for even n */
	double min, max;
	double lo, hi; /* the bootstrap interval of the median */
};

/* The statistics of v[0..n-1] (v is not changed). Returns 0 or -ENOMEM. */
int lab_sample_stats(const double *v, size_t n, struct lab_sample *s);

/* The median of v[0..n-1], n >= 1; v is sorted in place. */
double lab_sample_median(double *v, size_t n);

/* A goal's verdict. */
enum lab_verdict {
	LAB_VERDICT_CLEARLY_MET,
	LAB_VERDICT_MET,
	LAB_VERDICT_WITHIN_NOISE,
	LAB_VERDICT_NOT_MET,
	LAB_VERDICT_CLEARLY_NOT_MET,
};

/* "clearly met", "met", "within noise", "not met", "clearly not met". */
const char *lab_verdict_name(enum lab_verdict v);

/* The verdict of "a no worse than b", lower is better, r the metric's
 * resolution (a difference of r or less is noise), by the first rule that
 * applies:
 *  1. a side with no value (n 0): not met, why "not measured: no valid run
 *     of NAME";
 *  2. |median a - median b| <= r: within noise;
 *  3. both n >= 3 and the intervals apart: a.hi < b.lo clearly met,
 *     a.lo > b.hi clearly not met (intervals that touch overlap);
 *  4. a median outside the other side's interval: a.median < b.lo or
 *     b.median > a.hi met; a.median > b.hi or b.median < a.lo not met;
 *  5. within noise.
 * why (the figures and the rule) is written to why[len]; aname and bname
 * name the sides in it. */
enum lab_verdict lab_sample_compare(const struct lab_sample *a, const struct lab_sample *b,
	double r, const char *aname, const char *bname, char *why, size_t len);

/* The verdict of "every valid run of NAME satisfies it": met when n >= 1
 * and all n did, else not met (n 0: why "not measured: no valid run of
 * NAME"). what says what was required, for why. */
enum lab_verdict lab_sample_all(
	size_t n, size_t satisfied, const char *name, const char *what, char *why, size_t len);

/* splitmix64: the next value of the generator whose state is *x. */
uint64_t lab_sample_next(uint64_t *x);

#endif
