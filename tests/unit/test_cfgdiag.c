#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cfgdiag.h"

/* file:line with two files; loc 0 is the first file without a line;
 * messages come out sorted by place. */
static void test_cfgdiag_places(void **state)
{
	struct cpha_cfgdiag d = { 0 };
	char **out = NULL;
	size_t nout = 0, i;

	(void)state;
	assert_int_equal(cpha_cfgdiag_file(&d, "main.conf"), 0);
	assert_int_equal(cpha_cfgdiag_file(&d, "/etc/x/inc.conf"), 1);
	cpha_cfgdiag_err(&d, CPHA_CFGDIAG_LOC(1, 3), "'%s' is unknown", "frob");
	cpha_cfgdiag_err(&d, CPHA_CFGDIAG_LOC(0, 12), "bad value %d", 7);
	cpha_cfgdiag_err(&d, 0, "cannot read: %s", "No such file");
	cpha_cfgdiag_notice(&d, CPHA_CFGDIAG_LOC(5, 2), "no such file index");
	assert_int_equal(d.nerrs, 3);
	assert_int_equal(d.nnotices, 1);
	assert_string_equal(d.notv[0].text, "?:2: no such file index");
	assert_false(d.stop);

	assert_int_equal(cpha_cfgdiag_take(d.errv, &d.nerrs, &out, &nout), 0);
	assert_int_equal(d.nerrs, 0);
	assert_int_equal(nout, 3);
	assert_string_equal(out[0], "main.conf: cannot read: No such file");
	assert_string_equal(out[1], "main.conf:12: bad value 7");
	assert_string_equal(out[2], "/etc/x/inc.conf:3: 'frob' is unknown");
	for (i = 0; i < nout; i++)
		free(out[i]);
	free(out);
	cpha_cfgdiag_free(&d);
}

/* After max_errors, one more error says so and nothing else is added. */
static void test_cfgdiag_cap(void **state)
{
	struct cpha_cfgdiag d = { .max_errors = 3 };
	unsigned i;

	(void)state;
	assert_int_equal(cpha_cfgdiag_file(&d, "f"), 0);
	for (i = 1; i <= 10; i++)
		cpha_cfgdiag_err(&d, i, "error %u", i);
	cpha_cfgdiag_notice(&d, 11, "ignored once stopped");
	assert_true(d.stop);
	assert_int_equal(d.nerrs, 4);
	assert_int_equal(d.nnotices, 0);
	assert_string_equal(d.errv[2].text, "f:3: error 3");
	assert_string_equal(d.errv[3].text, "f:4: too many errors; stopped here");
	cpha_cfgdiag_free(&d);
}

/* Running out of memory is an error and stops the parse. */
static void test_cfgdiag_oom(void **state)
{
	struct cpha_cfgdiag d = { .max_errors = 100 };
	int *arr = NULL;
	size_t n = 0;
	char *s;

	(void)state;
	assert_int_equal(cpha_cfgdiag_file(&d, "f"), 0);
	s = cpha_cfgdiag_strdup(&d, "x");
	assert_string_equal(s, "x");
	free(s);
	assert_non_null(cpha_cfgdiag_push(&d, &arr, &n, sizeof(*arr)));
	assert_int_equal(n, 1);
	free(arr);
	assert_false(d.stop);
	cpha_cfgdiag_oom(&d);
	assert_true(d.stop);
	assert_int_equal(d.nerrs, 1);
	assert_string_equal(d.errv[0].text, "f: out of memory");
	cpha_cfgdiag_err(&d, 2, "after the stop");
	assert_int_equal(d.nerrs, 1);
	cpha_cfgdiag_free(&d);
}

struct row {
	struct cpha_cfgkw kw;
	int value;
};

#define CAP_FE (1u << 0)
#define CAP_BE (1u << 1)

static void test_cfgkw_find(void **state)
{
	static const struct row table[] = {
		{ { "bind", CAP_FE }, 1 },
		{ { "balance", CAP_BE }, 2 },
		{ { "mode", CAP_FE | CAP_BE }, 3 },
	};
	const void *row;

	(void)state;
	assert_int_equal(cpha_cfgkw_find(table, 3, sizeof(table[0]), "mode", CAP_FE, &row), 0);
	assert_ptr_equal(row, &table[2]);
	assert_int_equal(((const struct row *)row)->value, 3);
	assert_int_equal(cpha_cfgkw_find(table, 3, sizeof(table[0]), "balance", CAP_BE, &row), 0);
	assert_ptr_equal(row, &table[1]);
	assert_int_equal(
		cpha_cfgkw_find(table, 3, sizeof(table[0]), "balance", CAP_FE, &row), -EPERM);
	assert_ptr_equal(row, &table[1]);
	assert_int_equal(
		cpha_cfgkw_find(table, 3, sizeof(table[0]), "balanc", CAP_BE, &row), -ENOENT);
	assert_null(row);
}

/* A row ending in '*' takes every keyword with its prefix; an exact row
 * before it wins. */
static void test_cfgkw_prefix(void **state)
{
	static const struct row table[] = {
		{ { "ssl-default-server-ciphers", CAP_FE }, 1 },
		{ { "ssl-default-server-*", CAP_FE }, 2 },
		{ { "x*", CAP_BE }, 3 },
	};
	const void *row;

	(void)state;
	assert_int_equal(cpha_cfgkw_find(table, 3, sizeof(table[0]), "ssl-default-server-ciphers",
				 CAP_FE, &row),
		0);
	assert_ptr_equal(row, &table[0]);
	assert_int_equal(cpha_cfgkw_find(table, 3, sizeof(table[0]), "ssl-default-server-sigalgs",
				 CAP_FE, &row),
		0);
	assert_ptr_equal(row, &table[1]);
	assert_int_equal(
		cpha_cfgkw_find(table, 3, sizeof(table[0]), "ssl-default-server-", CAP_FE, &row),
		0);
	assert_int_equal(
		cpha_cfgkw_find(table, 3, sizeof(table[0]), "ssl-default-server", CAP_FE, &row),
		-ENOENT);
	assert_int_equal(cpha_cfgkw_find(table, 3, sizeof(table[0]), "xyz", CAP_FE, &row), -EPERM);
	assert_ptr_equal(row, &table[2]);
	assert_int_equal(
		cpha_cfgkw_find(table, 3, sizeof(table[0]), "ssl-default-server-*x", CAP_FE, &row),
		0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cfgdiag_places),
		cmocka_unit_test(test_cfgdiag_cap),
		cmocka_unit_test(test_cfgdiag_oom),
		cmocka_unit_test(test_cfgkw_find),
		cmocka_unit_test(test_cfgkw_prefix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
