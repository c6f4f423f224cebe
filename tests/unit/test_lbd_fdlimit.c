/* lbd's descriptor arithmetic (fdlimit.c) against what HAProxy 2.6 does
 * with the same file: the descriptors a maxconn needs (two a connection,
 * no pipes), the pipes that fit in what is left, and maxconn derived from
 * the limit when the file sets none. Figures from haproxy 2.6.12's
 * "show info" (Maxsock) under the same limits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fdlimit.h"

/* one bind line, two checked servers, nbthread 2 */
static const struct fdlimit_fixed two_workers = { .listeners = 2, .checks = 2, .nworkers = 2 };

static void test_maxsock_has_no_pipes(void **state)
{
	(void)state;
	/* 10 reserved, 2 listeners, 2 checks, 4 per worker, 2 a connection */
	assert_int_equal(fdlimit_maxsock(&two_workers, 0), 22);
	assert_int_equal(fdlimit_maxsock(&two_workers, 8000), 16022);
	/* HAProxy starts maxconn 8000, nbthread 2 under a hard limit of
	 * 20000 (its Maxsock: 16030); so must lbd */
	assert_true(fdlimit_maxsock(&two_workers, 8000) <= 20000);
	/* and maxconn 100 under 256 (HAProxy's Maxsock: 230) */
	assert_true(fdlimit_maxsock(&two_workers, 100) <= 256);
}

static void test_pipes_from_what_is_left(void **state)
{
	(void)state;
	assert_int_equal(fdlimit_maxpipes(8000), 2000);
	assert_int_equal(fdlimit_maxpipes(3), 3);
	/* all wanted pipes when the limit has room for them */
	assert_int_equal(fdlimit_pipes(&two_workers, 8000, 1048576), 2000);
	/* 20000 - 16022 = 3978 left: 1989 pipes */
	assert_int_equal(fdlimit_pipes(&two_workers, 8000, 20000), 1989);
	/* 256 - 222 = 34 left: 17 of 25 */
	assert_int_equal(fdlimit_pipes(&two_workers, 100, 256), 17);
	/* nothing left: none, and the sessions copy */
	assert_int_equal(fdlimit_pipes(&two_workers, 100, 222), 0);
	assert_int_equal(fdlimit_pipes(&two_workers, 100, 64), 0);
}

static void test_ideal_maxconn(void **state)
{
	(void)state;
	/* HAProxy without maxconn: (limit - fixed) / 2; under 1024 it took
	 * 497, under 20000 9985, under 256 113 (with its own fixed count) */
	assert_int_equal(fdlimit_ideal_maxconn(&two_workers, 1024), 501);
	assert_int_equal(fdlimit_ideal_maxconn(&two_workers, 20000), 9989);
	assert_int_equal(fdlimit_ideal_maxconn(&two_workers, 256), 117);
	/* what it gives fits the limit it was derived from */
	assert_true(fdlimit_maxsock(&two_workers, fdlimit_ideal_maxconn(&two_workers, 20000)) <=
		    20000);
	/* never below HAProxy's DEFAULT_MAXCONN */
	assert_int_equal(fdlimit_ideal_maxconn(&two_workers, 64), FDLIMIT_MIN_MAXCONN);
	assert_int_equal(fdlimit_ideal_maxconn(&two_workers, 10), FDLIMIT_MIN_MAXCONN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_maxsock_has_no_pipes),
		cmocka_unit_test(test_pipes_from_what_is_left),
		cmocka_unit_test(test_ideal_maxconn),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
