#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cfgdiag.h"
#include "cfgmsg.h"

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

/* A message handed back: its place, and the form of its text by what is
 * known of the place. */
static void test_msgs_add(void **state)
{
	struct cpha_msgs m = { 0 };

	(void)state;
	cpha_msgs_err(&m, "c.yaml", (struct cpha_pos){ 3, 7 }, "bad %s", "value");
	cpha_msgs_err(&m, "c.yaml", (struct cpha_pos){ 4, 0 }, "no column");
	cpha_msgs_err(&m, "c.yaml", (struct cpha_pos){ 0, 0 }, "the file");
	cpha_msgs_warn(&m, "c.yaml", (struct cpha_pos){ 4, 1 }, "odd %d", 1);
	assert_int_equal(
		cpha_msgs_add(&m, true, "c.yaml", (struct cpha_pos){ 0, 0 }, "default"), 0);
	assert_int_equal(cpha_msgs_cannot_read(&m, "x.conf", "No such file or directory"), -1);
	assert_int_equal(m.nerrs, 4);
	assert_int_equal(m.nwarns, 2);
	assert_string_equal(m.errs[0].text, "c.yaml:3:7: bad value");
	assert_int_equal(m.errs[0].pos.line, 3);
	assert_int_equal(m.errs[0].pos.col, 7);
	assert_string_equal(m.errs[1].text, "c.yaml:4: no column");
	assert_string_equal(m.errs[2].text, "c.yaml: the file");
	assert_string_equal(m.errs[3].text, "x.conf: cannot read: No such file or directory");
	assert_string_equal(m.warns[0].text, "c.yaml:4:1: warning: odd 1");
	assert_string_equal(m.warns[1].text, "c.yaml: warning: default");
	cpha_msgs_free(&m);
	assert_int_equal(m.nerrs + m.nwarns, 0);
	assert_null(m.errs);
}

/* A collector's errors handed back sorted, with their lines. */
static void test_msgs_take(void **state)
{
	struct cpha_cfgdiag d = { 0 };
	struct cpha_msgs m = { 0 };

	(void)state;
	assert_int_equal(cpha_cfgdiag_file(&d, "main.conf"), 0);
	cpha_msgs_cannot_read(&m, "other.conf", "why");
	cpha_cfgdiag_err(&d, CPHA_CFGDIAG_LOC(0, 9), "later");
	cpha_cfgdiag_err(&d, CPHA_CFGDIAG_LOC(0, 2), "sooner");
	assert_int_equal(cpha_cfgdiag_take_errs(&d, &m), 0);
	assert_int_equal(d.nerrs, 0);
	assert_int_equal(m.nerrs, 3);
	assert_string_equal(m.errs[1].text, "main.conf:2: sooner");
	assert_int_equal(m.errs[1].pos.line, 2);
	assert_int_equal(m.errs[1].pos.col, 0);
	assert_string_equal(m.errs[2].text, "main.conf:9: later");
	cpha_msgs_free(&m);
	cpha_cfgdiag_free(&d);
}

/* cpha_oom() says so and exits 70. */
static void test_oom_exit(void **state)
{
	int st = 0;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid != -1);
	if (pid == 0) {
		close(STDERR_FILENO); /* the message is not what is tested */
		cpha_oom();
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 70);
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
		cmocka_unit_test(test_msgs_add),
		cmocka_unit_test(test_msgs_take),
		cmocka_unit_test(test_oom_exit),
		cmocka_unit_test(test_cfgkw_find),
		cmocka_unit_test(test_cfgkw_prefix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
