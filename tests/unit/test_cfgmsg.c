#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cfgmsg.h"

static void test_format(void **state)
{
	char *s;

	(void)state;
	s = cpha_cfgmsg_format("lbd.cfg", 12, "'%s' is not supported", "acl");
	assert_string_equal(s, "lbd.cfg:12: 'acl' is not supported");
	free(s);
	s = cpha_cfgmsg_format("lbd.cfg", 0, "no such file");
	assert_string_equal(s, "lbd.cfg: no such file");
	free(s);
}

struct item {
	int a;
	char b[20];
};

static void test_array_push(void **state)
{
	struct item *arr = NULL, *it;
	size_t n = 0;
	int i;

	(void)state;
	for (i = 0; i < 100; i++) {
		it = cpha_array_push(&arr, &n, sizeof(*arr));
		assert_non_null(it);
		assert_int_equal(it->a, 0); /* zeroed */
		assert_int_equal(it->b[19], 0);
		it->a = i;
	}
	assert_int_equal(n, 100);
	for (i = 0; i < 100; i++)
		assert_int_equal(arr[i].a, i);
	free(arr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_array_push),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
