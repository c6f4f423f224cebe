/* cpha lab: median, bootstrap interval and verdicts. Pure. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_sample.h"

static const char *const verdict_names[] = {
	[LAB_VERDICT_CLEARLY_MET] = "clearly met",
	[LAB_VERDICT_MET] = "met",
	[LAB_VERDICT_WITHIN_NOISE] = "within noise",
	[LAB_VERDICT_NOT_MET] = "not met",
	[LAB_VERDICT_CLEARLY_NOT_MET] = "clearly not met",
};

const char *lab_verdict_name(enum lab_verdict v)
{
	return (unsigned)v <= LAB_VERDICT_CLEARLY_NOT_MET ? verdict_names[v] : "not met";
}

/* splitmix64 (Steele, Lea, Flood: "Fast splittable pseudorandom number
 * generators", OOPSLA 2014) */
uint64_t lab_sample_next(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double lab_sample_median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

int lab_sample_stats(const double *v, size_t n, struct lab_sample *s)
{
	double *one = NULL, *med = NULL;
	uint64_t x = LAB_SAMPLE_SEED;
	int rc = -ENOMEM;

	memset(s, 0, sizeof(*s));
	s->n = n;
	if (!n)
		return 0;
	one = malloc(n * sizeof(*one));
	med = malloc(LAB_SAMPLE_B * sizeof(*med));
	if (!one || !med)
		goto out;
	memcpy(one, v, n * sizeof(*one));
	s->median = lab_sample_median(one, n);
	s->min = one[0];
	s->max = one[n - 1];
	for (size_t b = 0; b < LAB_SAMPLE_B; b++) {
		for (size_t i = 0; i < n; i++)
			/* the high 32 bits scaled to [0, n): no modulo bias to speak of */
			one[i] = v[((lab_sample_next(&x) >> 32) * (uint64_t)n) >> 32];
		med[b] = lab_sample_median(one, n);
	}
	qsort(med, LAB_SAMPLE_B, sizeof(*med), cmp_double);
	s->lo = med[LAB_SAMPLE_CUT];
	s->hi = med[LAB_SAMPLE_B - 1 - LAB_SAMPLE_CUT];
	rc = 0;
out:
	free(one);
	free(med);
	return rc;
}

/* "NAME 17 [15, 20] (n 3)" */
static int side_text(char *buf, size_t len, const char *name, const struct lab_sample *s)
{
	return snprintf(
		buf, len, "%s %.10g [%.10g, %.10g] (n %zu)", name, s->median, s->lo, s->hi, s->n);
}

enum lab_verdict lab_sample_compare(const struct lab_sample *a, const struct lab_sample *b,
	double r, const char *aname, const char *bname, char *why, size_t len)
{
	char ta[160], tb[160];
	double d = fabs(a->median - b->median);

	if (!a->n || !b->n) {
		snprintf(why, len, "not measured: no valid run of %s", !a->n ? aname : bname);
		return LAB_VERDICT_NOT_MET;
	}
	side_text(ta, sizeof(ta), aname, a);
	side_text(tb, sizeof(tb), bname, b);
	if (d <= r) {
		snprintf(why, len,
			"%s vs %s: the medians differ by %.10g, not more than the "
			"resolution %.10g",
			ta, tb, d, r);
		return LAB_VERDICT_WITHIN_NOISE;
	}
	if (a->n >= 3 && b->n >= 3 && (a->hi < b->lo || a->lo > b->hi)) {
		snprintf(why, len, "%s vs %s: the intervals do not overlap", ta, tb);
		return a->hi < b->lo ? LAB_VERDICT_CLEARLY_MET : LAB_VERDICT_CLEARLY_NOT_MET;
	}
	if (a->median < b->lo || b->median > a->hi) {
		snprintf(why, len, "%s vs %s: %s's median lies %s", ta, tb,
			a->median < b->lo ? aname : bname,
			a->median < b->lo ? "below the other's interval"
					  : "above the other's interval");
		return LAB_VERDICT_MET;
	}
	if (a->median > b->hi || b->median < a->lo) {
		snprintf(why, len, "%s vs %s: %s's median lies %s", ta, tb,
			a->median > b->hi ? aname : bname,
			a->median > b->hi ? "above the other's interval"
					  : "below the other's interval");
		return LAB_VERDICT_NOT_MET;
	}
	snprintf(why, len, "%s vs %s: each median lies within the other's interval", ta, tb);
	return LAB_VERDICT_WITHIN_NOISE;
}

enum lab_verdict lab_sample_all(
	size_t n, size_t satisfied, const char *name, const char *what, char *why, size_t len)
{
	if (!n) {
		snprintf(why, len, "not measured: no valid run of %s", name);
		return LAB_VERDICT_NOT_MET;
	}
	snprintf(why, len, "%s in %zu of %zu valid runs of %s", what, satisfied, n, name);
	return satisfied == n ? LAB_VERDICT_MET : LAB_VERDICT_NOT_MET;
}
