/* Quorum sizing: majority, tolerance, the odd/even decision, URL lists. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ocf_urls.h"
#include "quorum.h"

static void test_majority_and_tolerance(void **state)
{
	static const unsigned majority[] = { 0, 1, 2, 2, 3, 3, 4, 4 };
	static const unsigned tolerance[] = { 0, 0, 0, 1, 1, 2, 2, 3 };
	unsigned n;

	(void)state;
	for (n = 0; n < 8; n++) {
		assert_int_equal(cpha_quorum_majority(n), majority[n]);
		assert_int_equal(cpha_quorum_tolerance(n), tolerance[n]);
	}
	/* 2n members tolerate what 2n-1 do */
	for (n = 1; n < 50; n++)
		assert_int_equal(cpha_quorum_tolerance(2 * n), cpha_quorum_tolerance(2 * n - 1));
}

static void test_odd_even_decision(void **state)
{
	char why[256];

	(void)state;
	assert_int_equal(cpha_quorum_check(1, false, why, sizeof(why)), 0);
	assert_int_equal(cpha_quorum_check(3, false, why, sizeof(why)), 0);
	assert_int_equal(cpha_quorum_check(5, false, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	assert_int_equal(cpha_quorum_check(0, true, why, sizeof(why)), -EINVAL);
	assert_int_equal(cpha_quorum_check(2, false, why, sizeof(why)), -EDOM);
	assert_non_null(strstr(why, "2 members tolerate 0 failures"));
	assert_int_equal(cpha_quorum_check(4, false, why, sizeof(why)), -EDOM);
	assert_non_null(strstr(why, "4 members tolerate 1 failure, no more than 3 do"));
	assert_non_null(strstr(why, "need 3 for a majority"));
	assert_non_null(strstr(why, "2n+1"));
	assert_non_null(strstr(why, "3 or 5"));
	assert_int_equal(cpha_quorum_check(4, true, why, sizeof(why)), 0);
	assert_int_equal(cpha_quorum_check(6, false, why, sizeof(why)), -EDOM);
}

static void test_url_lists(void **state)
{
	const char *why = NULL;
	unsigned n = 99;

	(void)state;
	assert_int_equal(ocf_url_list_count("https://198.18.0.11:2379", &n, &why), 0);
	assert_int_equal(n, 1);
	assert_int_equal(
		ocf_url_list_count("https://a:2379,https://b:2379, https://c:2379 ", &n, &why), 0);
	assert_int_equal(n, 3);
	assert_int_equal(ocf_url_list_count("https://a:2379,https://b:2379,https://c:2379,"
					    "https://d:2379",
				 &n, &why),
		0);
	assert_int_equal(n, 4);
	assert_int_equal(ocf_url_list_count("https://a:2379,,https://b:2379", &n, &why), -EINVAL);
	assert_string_equal(why, "empty entry in the list");
	assert_int_equal(ocf_url_list_count("https://a:2379,", &n, &why), -EINVAL);
	assert_int_equal(ocf_url_list_count("", &n, &why), -EINVAL);
	assert_int_equal(ocf_url_list_count(NULL, &n, &why), -EINVAL);
	/* a member twice would make 3 look like 4 (or 2 look like 3) */
	assert_int_equal(
		ocf_url_list_count("https://a:2379,https://b:2379, https://a:2379", &n, &why),
		-EINVAL);
	assert_string_equal(why, "an entry is listed twice");
	/* a prefix is not a duplicate */
	assert_int_equal(ocf_url_list_count("https://a:2379,https://a:23790", &n, &why), 0);
	assert_int_equal(n, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_majority_and_tolerance),
		cmocka_unit_test(test_odd_even_decision),
		cmocka_unit_test(test_url_lists),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
