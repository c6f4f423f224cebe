/* lbd/resolution.c: what DNS answers and failures do to a server, over time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "resolution.h"

#define S 1000000ULL /* one second in usec */

static struct lbd_resolvers_cfg rc_default(void)
{
	struct lbd_resolvers_cfg rc;
	int i;

	memset(&rc, 0, sizeof(rc));
	rc.timeout_resolve = rc.timeout_retry = S;
	rc.retries = 3;
	for (i = 0; i < LBD_DNS_NSTATUS; i++)
		rc.hold[i] = 30 * S;
	rc.hold[LBD_DNS_VALID] = 10 * S;
	rc.hold[LBD_DNS_OBSOLETE] = 0;
	return rc;
}

static struct cpha_addr ip(const char *s)
{
	struct cpha_addr a;
	const char *why;

	assert_int_equal(cpha_parse_addr(s, CPHA_ADDR_PORT_NONE, &a, &why), 0);
	return a;
}

static const char *fmt(const struct cpha_addr *a)
{
	static char buf[CPHA_ADDR_STRLEN];

	return cpha_addr_format(a, buf, sizeof(buf));
}

static void test_keeps_address_in_answer(void **state)
{
	struct lbd_resolvers_cfg rc = rc_default();
	struct resolution_state st;
	struct cpha_addr cur = ip("198.18.0.11"), out;
	struct cpha_addr ans[2] = { ip("198.18.0.12"), ip("198.18.0.11") };
	uint64_t t;

	(void)state;
	resolution_init(&st, true, 0);
	/* round-robin DNS: every order of the same set keeps the address */
	for (t = 1; t <= 10; t++) {
		struct cpha_addr x = ans[0];

		ans[0] = ans[1];
		ans[1] = x;
		assert_int_equal(resolution_on_answer(&st, &rc, &cur, AF_INET, ans, 2, NULL, 0,
					 t * 10 * S, &out),
			RESOLUTION_KEEP);
		assert_int_equal(resolution_next(&st, &rc), 10 * S);
	}
}

static void test_moves_when_address_leaves(void **state)
{
	struct lbd_resolvers_cfg rc = rc_default();
	struct resolution_state st;
	struct cpha_addr cur = ip("198.18.0.11"), out;
	struct cpha_addr ans[3] = { ip("2001:db8::12"), ip("198.18.0.12"), ip("198.18.0.13") };
	struct cpha_addr taken[1] = { ip("198.18.0.12") };

	(void)state;
	resolution_init(&st, true, 0);
	/* IPv4 preferred; .12 belongs to another server of the backend */
	assert_int_equal(
		resolution_on_answer(&st, &rc, &cur, AF_INET, ans, 3, taken, 1, 5 * S, &out),
		RESOLUTION_CHANGE);
	assert_string_equal(fmt(&out), "198.18.0.13");
	/* HAProxy's default preference, IPv6 */
	resolution_init(&st, true, 0);
	assert_int_equal(
		resolution_on_answer(&st, &rc, &cur, AF_INET6, ans, 3, taken, 1, 5 * S, &out),
		RESOLUTION_CHANGE);
	assert_string_equal(fmt(&out), "2001:db8::12");
	/* every address taken: a shared one rather than none */
	resolution_init(&st, true, 0);
	assert_int_equal(
		resolution_on_answer(&st, &rc, &cur, AF_INET, &ans[1], 1, taken, 1, 5 * S, &out),
		RESOLUTION_CHANGE);
	assert_string_equal(fmt(&out), "198.18.0.12");
}

static void test_hold_obsolete(void **state)
{
	struct lbd_resolvers_cfg rc = rc_default();
	struct resolution_state st;
	struct cpha_addr cur = ip("198.18.0.11"), out, ans = ip("198.18.0.12");

	(void)state;
	rc.hold[LBD_DNS_OBSOLETE] = 3 * S;
	resolution_init(&st, true, 0);
	assert_int_equal(resolution_on_answer(&st, &rc, &cur, AF_INET, &ans, 1, NULL, 0, S, &out),
		RESOLUTION_KEEP);
	assert_int_equal(
		resolution_on_answer(&st, &rc, &cur, AF_INET, &ans, 1, NULL, 0, 3 * S, &out),
		RESOLUTION_KEEP);
	assert_int_equal(
		resolution_on_answer(&st, &rc, &cur, AF_INET, &ans, 1, NULL, 0, 4 * S, &out),
		RESOLUTION_CHANGE);
	assert_string_equal(fmt(&out), "198.18.0.12");
}

static void test_errors_hold_then_maint(void **state)
{
	struct lbd_resolvers_cfg rc = rc_default();
	struct resolution_state st;
	struct cpha_addr cur = ip("198.18.0.11"), out;
	uint64_t t;

	(void)state;
	rc.hold[LBD_DNS_NX] = 5 * S;
	rc.hold[LBD_DNS_TIMEOUT] = 8 * S;
	resolution_init(&st, true, 0);
	assert_int_equal(
		resolution_on_answer(&st, &rc, &cur, AF_INET, &cur, 1, NULL, 0, 10 * S, &out),
		RESOLUTION_KEEP);
	/* NX kept for 'hold nx' after the last valid answer, then maintenance */
	for (t = 11; t < 15; t++) {
		assert_int_equal(resolution_on_error(&st, &rc, LBD_DNS_NX, t * S), RESOLUTION_KEEP);
		assert_int_equal(resolution_next(&st, &rc), S); /* timeout resolve */
	}
	assert_int_equal(resolution_on_error(&st, &rc, LBD_DNS_NX, 15 * S), RESOLUTION_MAINT);
	assert_true(st.maint);
	assert_int_equal(resolution_on_error(&st, &rc, LBD_DNS_NX, 16 * S), RESOLUTION_KEEP);
	/* back with the same address: out of maintenance */
	assert_int_equal(
		resolution_on_answer(&st, &rc, &cur, AF_INET, &cur, 1, NULL, 0, 20 * S, &out),
		RESOLUTION_CHANGE);
	assert_false(st.maint);
	assert_string_equal(fmt(&out), "198.18.0.11");
	/* timeouts have their own hold */
	assert_int_equal(resolution_on_error(&st, &rc, LBD_DNS_TIMEOUT, 27 * S), RESOLUTION_KEEP);
	assert_int_equal(resolution_on_error(&st, &rc, LBD_DNS_TIMEOUT, 28 * S), RESOLUTION_MAINT);
	/* an empty answer counts as "other" */
	resolution_init(&st, true, 0);
	assert_int_equal(
		resolution_on_answer(&st, &rc, &cur, AF_INET, NULL, 0, NULL, 0, 31 * S, &out),
		RESOLUTION_MAINT);
	assert_int_equal(st.last, LBD_DNS_OTHER);
}

static void test_no_address_at_start(void **state)
{
	struct lbd_resolvers_cfg rc = rc_default();
	struct resolution_state st;
	struct cpha_addr out, ans = ip("2001:db8::11");

	(void)state;
	resolution_init(&st, false, 0); /* init-addr none */
	assert_true(st.maint);
	assert_int_equal(resolution_on_error(&st, &rc, LBD_DNS_NX, S), RESOLUTION_KEEP);
	assert_int_equal(
		resolution_on_answer(&st, &rc, NULL, AF_INET, &ans, 1, NULL, 0, 2 * S, &out),
		RESOLUTION_CHANGE);
	assert_string_equal(fmt(&out), "2001:db8::11");
	assert_true(st.has_addr);
	assert_false(st.maint);
	assert_string_equal(resolution_status_name(LBD_DNS_REFUSED), "refused");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keeps_address_in_answer),
		cmocka_unit_test(test_moves_when_address_leaves),
		cmocka_unit_test(test_hold_obsolete),
		cmocka_unit_test(test_errors_hold_then_maint),
		cmocka_unit_test(test_no_address_at_start),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
