/* cpha lab: median, bootstrap interval and verdicts (lab_sample.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "lab_sample.h"

/* The properties every interval has. */
static void check_props(const double *v, size_t n)
{
	struct lab_sample a, b;

	assert_int_equal(lab_sample_stats(v, n, &a), 0);
	assert_int_equal(a.n, n);
	assert_true(a.lo <= a.median && a.median <= a.hi);
	assert_true(a.lo >= a.min && a.hi <= a.max);
	assert_true(a.min <= a.max);
	/* the same on every call */
	assert_int_equal(lab_sample_stats(v, n, &b), 0);
	assert_memory_equal(&a, &b, sizeof(a));
}

static void test_median(void **state)
{
	double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 }, one[] = { 7 };

	(void)state;
	assert_true(lab_sample_median(odd, 3) == 3);
	assert_true(lab_sample_median(even, 4) == 2.5); /* the mean of 2 and 3 */
	assert_true(lab_sample_median(one, 1) == 7);
}

static void test_stats_small(void **state)
{
	const double one[] = { 42 }, same[] = { 9, 9, 9, 9 };
	struct lab_sample s;

	(void)state;
	/* n = 0: no statistics */
	assert_int_equal(lab_sample_stats(NULL, 0, &s), 0);
	assert_int_equal(s.n, 0);
	/* n = 1: [x, x] */
	assert_int_equal(lab_sample_stats(one, 1, &s), 0);
	assert_true(s.median == 42 && s.lo == 42 && s.hi == 42 && s.min == 42 && s.max == 42);
	/* identical values: a degenerate interval */
	assert_int_equal(lab_sample_stats(same, 4, &s), 0);
	assert_true(s.median == 9 && s.lo == 9 && s.hi == 9);
}

/* Known inputs, the values this implementation gives (and must keep
 * giving: the interval is part of the report). */
static void test_stats_known(void **state)
{
	const double three[] = { 20, 17, 18 };
	const double two[] = { 10, 30 };
	const double ten[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	const double five[] = { 36, 59, 41, 38, 120 };
	const double seven[] = { 100, 110, 120, 130, 140, 150, 1000 };
	double twenty[20];
	struct lab_sample s;

	(void)state;
	for (int i = 0; i < 20; i++)
		twenty[i] = i + 1;
	assert_int_equal(lab_sample_stats(three, 3, &s), 0);
	assert_true(s.median == 18 && s.min == 17 && s.max == 20);
	assert_true(s.lo == 17 && s.hi == 20);
	assert_int_equal(lab_sample_stats(two, 2, &s), 0);
	assert_true(s.median == 20 && s.min == 10 && s.max == 30);
	assert_true(s.lo == 10 && s.hi == 30);
	assert_int_equal(lab_sample_stats(ten, 10, &s), 0);
	assert_true(s.median == 5.5);
	assert_true(s.lo == 3 && s.hi == 8);
	assert_int_equal(lab_sample_stats(five, 5, &s), 0);
	assert_true(s.median == 41);
	assert_true(s.lo == 36 && s.hi == 120);
	/* larger samples: the interval lies inside the range */
	assert_int_equal(lab_sample_stats(seven, 7, &s), 0);
	assert_true(s.median == 130 && s.lo == 110 && s.hi == 150 && s.max == 1000);
	assert_int_equal(lab_sample_stats(twenty, 20, &s), 0);
	assert_true(s.median == 10.5 && s.lo == 6.5 && s.hi == 14.5);
	check_props(seven, 7);
	check_props(twenty, 20);
	check_props(three, 3);
	check_props(two, 2);
	check_props(ten, 10);
	check_props(five, 5);
}

/* The generator is splitmix64: its first outputs for seed 0 are the
 * published ones. */
static void test_generator(void **state)
{
	uint64_t x = 0;

	(void)state;
	assert_true(lab_sample_next(&x) == 0xe220a8397b1dcdafULL);
	assert_true(lab_sample_next(&x) == 0x6e789e6aa1b965f4ULL);
}

/* A sample with chosen figures. */
static struct lab_sample smp(size_t n, double median, double lo, double hi)
{
	return (struct lab_sample){
		.n = n, .median = median, .lo = lo, .hi = hi, .min = lo, .max = hi
	};
}

static enum lab_verdict cmp(struct lab_sample a, struct lab_sample b, double r, char *why)
{
	return lab_sample_compare(&a, &b, r, "cpha", "peer", why, 400);
}

/* Rule 1: a side without a valid run. */
static void test_verdict_unmeasured(void **state)
{
	char why[400];

	(void)state;
	assert_int_equal(cmp(smp(0, 0, 0, 0), smp(3, 5, 4, 6), 3, why), LAB_VERDICT_NOT_MET);
	assert_string_equal(why, "not measured: no valid run of cpha");
	assert_int_equal(cmp(smp(3, 5, 4, 6), smp(0, 0, 0, 0), 3, why), LAB_VERDICT_NOT_MET);
	assert_string_equal(why, "not measured: no valid run of peer");
	assert_int_equal(cmp(smp(0, 0, 0, 0), smp(0, 0, 0, 0), 3, why), LAB_VERDICT_NOT_MET);
}

/* Rule 2: a difference of the resolution or less is noise, even when the
 * intervals are apart. */
static void test_verdict_resolution(void **state)
{
	char why[400];

	(void)state;
	assert_int_equal(
		cmp(smp(3, 10, 10, 10), smp(3, 13, 13, 13), 3, why), LAB_VERDICT_WITHIN_NOISE);
	assert_non_null(strstr(why, "resolution 3"));
	assert_int_equal(
		cmp(smp(3, 13, 13, 13), smp(3, 10, 10, 10), 3, why), LAB_VERDICT_WITHIN_NOISE);
	/* r + 1: beyond the noise, intervals apart */
	assert_int_equal(
		cmp(smp(3, 10, 10, 10), smp(3, 14, 14, 14), 3, why), LAB_VERDICT_CLEARLY_MET);
	assert_int_equal(
		cmp(smp(3, 14, 14, 14), smp(3, 10, 10, 10), 3, why), LAB_VERDICT_CLEARLY_NOT_MET);
	assert_int_equal(cmp(smp(3, 1000, 900, 1100), smp(3, 1100, 1000, 1200), 100, why),
		LAB_VERDICT_WITHIN_NOISE);
	/* r + 1 with intervals that overlap: rule 4 or 5 */
	assert_int_equal(
		cmp(smp(3, 1000, 900, 1100), smp(3, 1101, 1000, 1200), 100, why), LAB_VERDICT_MET);
	assert_int_equal(cmp(smp(3, 1000, 900, 1150), smp(3, 1101, 950, 1200), 100, why),
		LAB_VERDICT_WITHIN_NOISE);
}

/* Rule 3 against rule 4: clearly needs n >= 3 on both sides and intervals
 * that do not touch. */
static void test_verdict_clearly(void **state)
{
	char why[400];

	(void)state;
	assert_int_equal(
		cmp(smp(3, 10, 8, 13), smp(3, 20, 14, 24), 3, why), LAB_VERDICT_CLEARLY_MET);
	assert_non_null(strstr(why, "do not overlap"));
	/* touching intervals overlap: rule 4 */
	assert_int_equal(cmp(smp(3, 10, 8, 14), smp(3, 20, 14, 24), 3, why), LAB_VERDICT_MET);
	assert_int_equal(cmp(smp(3, 20, 14, 24), smp(3, 10, 8, 14), 3, why), LAB_VERDICT_NOT_MET);
	/* n 2 against 3: not clearly */
	assert_int_equal(cmp(smp(2, 10, 8, 13), smp(3, 20, 14, 24), 3, why), LAB_VERDICT_MET);
	assert_int_equal(cmp(smp(3, 10, 8, 13), smp(2, 20, 14, 24), 3, why), LAB_VERDICT_MET);
	assert_int_equal(cmp(smp(3, 20, 14, 24), smp(2, 10, 8, 13), 3, why), LAB_VERDICT_NOT_MET);
	assert_int_equal(
		cmp(smp(3, 20, 14, 24), smp(3, 10, 8, 13), 3, why), LAB_VERDICT_CLEARLY_NOT_MET);
}

/* Rule 4 by each of its conditions, and rule 5. */
static void test_verdict_medians(void **state)
{
	char why[400];

	(void)state;
	/* a's median below b's interval */
	assert_int_equal(cmp(smp(3, 10, 5, 20), smp(3, 16, 12, 30), 3, why), LAB_VERDICT_MET);
	assert_non_null(strstr(why, "cpha's median lies below"));
	/* b's median above a's interval (a's median inside b's) */
	assert_int_equal(cmp(smp(3, 10, 5, 12), smp(3, 14, 8, 20), 3, why), LAB_VERDICT_MET);
	assert_non_null(strstr(why, "peer's median lies above"));
	/* a's median above b's interval */
	assert_int_equal(cmp(smp(3, 16, 12, 30), smp(3, 10, 5, 14), 3, why), LAB_VERDICT_NOT_MET);
	/* b's median below a's interval */
	assert_int_equal(cmp(smp(3, 14, 12, 20), smp(3, 10, 5, 16), 3, why), LAB_VERDICT_NOT_MET);
	assert_non_null(strstr(why, "peer's median lies below"));
	/* each median inside the other's interval */
	assert_int_equal(
		cmp(smp(3, 10, 5, 16), smp(3, 14, 8, 20), 3, why), LAB_VERDICT_WITHIN_NOISE);
	assert_non_null(strstr(why, "within the other's interval"));
	/* a median on the other's bound is inside */
	assert_int_equal(
		cmp(smp(3, 10, 5, 14), smp(3, 14, 10, 20), 3, why), LAB_VERDICT_WITHIN_NOISE);
}

/* n = 1 on both sides: degenerate intervals, never clearly. */
static void test_verdict_single(void **state)
{
	char why[400];

	(void)state;
	assert_int_equal(cmp(smp(1, 10, 10, 10), smp(1, 14, 14, 14), 3, why), LAB_VERDICT_MET);
	assert_int_equal(cmp(smp(1, 14, 14, 14), smp(1, 10, 10, 10), 3, why), LAB_VERDICT_NOT_MET);
	assert_int_equal(
		cmp(smp(1, 10, 10, 10), smp(1, 13, 13, 13), 3, why), LAB_VERDICT_WITHIN_NOISE);
	assert_int_equal(cmp(smp(1, 0, 0, 0), smp(1, 0, 0, 0), 100, why), LAB_VERDICT_WITHIN_NOISE);
}

/* Bootstrapped samples end to end. */
static void test_verdict_samples(void **state)
{
	const double a[] = { 36, 38, 41 }, b[] = { 59, 61, 64 }, c[] = { 37, 40, 39 };
	struct lab_sample sa, sb, sc;
	char why[400];

	(void)state;
	assert_int_equal(lab_sample_stats(a, 3, &sa), 0);
	assert_int_equal(lab_sample_stats(b, 3, &sb), 0);
	assert_int_equal(lab_sample_stats(c, 3, &sc), 0);
	assert_int_equal(lab_sample_compare(&sa, &sb, 3, "cpha", "peer", why, sizeof(why)),
		LAB_VERDICT_CLEARLY_MET);
	assert_string_equal(why, "cpha 38 [36, 41] (n 3) vs peer 61 [59, 64] (n 3): the "
				 "intervals do not overlap");
	assert_int_equal(lab_sample_compare(&sb, &sa, 3, "cpha", "peer", why, sizeof(why)),
		LAB_VERDICT_CLEARLY_NOT_MET);
	assert_int_equal(lab_sample_compare(&sa, &sc, 3, "cpha", "peer", why, sizeof(why)),
		LAB_VERDICT_WITHIN_NOISE);
}

static void test_verdict_all(void **state)
{
	char why[200];

	(void)state;
	assert_int_equal(lab_sample_all(0, 0, "cpha", "0 failed requests", why, sizeof(why)),
		LAB_VERDICT_NOT_MET);
	assert_string_equal(why, "not measured: no valid run of cpha");
	assert_int_equal(lab_sample_all(3, 3, "cpha", "0 failed requests", why, sizeof(why)),
		LAB_VERDICT_MET);
	assert_string_equal(why, "0 failed requests in 3 of 3 valid runs of cpha");
	assert_int_equal(lab_sample_all(3, 2, "cpha", "0 failed requests", why, sizeof(why)),
		LAB_VERDICT_NOT_MET);
	assert_int_equal(lab_sample_all(1, 1, "cpha", "x", why, sizeof(why)), LAB_VERDICT_MET);
}

static void test_verdict_names(void **state)
{
	(void)state;
	assert_string_equal(lab_verdict_name(LAB_VERDICT_CLEARLY_MET), "clearly met");
	assert_string_equal(lab_verdict_name(LAB_VERDICT_MET), "met");
	assert_string_equal(lab_verdict_name(LAB_VERDICT_WITHIN_NOISE), "within noise");
	assert_string_equal(lab_verdict_name(LAB_VERDICT_NOT_MET), "not met");
	assert_string_equal(lab_verdict_name(LAB_VERDICT_CLEARLY_NOT_MET), "clearly not met");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median),
		cmocka_unit_test(test_stats_small),
		cmocka_unit_test(test_stats_known),
		cmocka_unit_test(test_generator),
		cmocka_unit_test(test_verdict_unmeasured),
		cmocka_unit_test(test_verdict_resolution),
		cmocka_unit_test(test_verdict_clearly),
		cmocka_unit_test(test_verdict_medians),
		cmocka_unit_test(test_verdict_single),
		cmocka_unit_test(test_verdict_samples),
		cmocka_unit_test(test_verdict_all),
		cmocka_unit_test(test_verdict_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
