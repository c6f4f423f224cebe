#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <cmocka.h>

#include "buf.h"

static void test_append_and_printf(void **state)
{
	struct cpha_buf b = { 0 };

	(void)state;
	assert_int_equal(cpha_buf_puts(&b, "show "), 0);
	assert_int_equal(cpha_buf_printf(&b, "%s %d", "info", 42), 0);
	assert_string_equal(b.data, "show info 42");
	assert_int_equal(b.len, strlen("show info 42"));
	cpha_buf_free(&b);
	assert_null(b.data);
	assert_int_equal(b.len, 0);
}

static void test_grows_past_initial_capacity(void **state)
{
	struct cpha_buf b = { 0 };
	int i;

	(void)state;
	for (i = 0; i < 10000; i++)
		assert_int_equal(cpha_buf_append(&b, "0123456789", 10), 0);
	assert_int_equal(b.len, 100000);
	assert_true(b.cap > b.len);
	assert_int_equal(b.data[b.len], '\0');
	assert_memory_equal(b.data + 99990, "0123456789", 10);
	cpha_buf_free(&b);
}

static void test_consume_and_reset(void **state)
{
	struct cpha_buf b = { 0 };

	(void)state;
	cpha_buf_puts(&b, "abcdef");
	cpha_buf_consume(&b, 2);
	assert_string_equal(b.data, "cdef");
	cpha_buf_consume(&b, 100);
	assert_int_equal(b.len, 0);
	assert_string_equal(b.data, "");
	cpha_buf_puts(&b, "x");
	cpha_buf_reset(&b);
	assert_int_equal(b.len, 0);
	cpha_buf_free(&b);
}

/* A file read whole, appended; an empty one is "" not NULL; the limit and
 * O_NOFOLLOW are kept. */
static void test_read_file(void **state)
{
	char dir[] = "/tmp/cpha-buf-XXXXXX", path[64], link[64], big[40000];
	struct cpha_buf b = { 0 };
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/f", dir);
	snprintf(link, sizeof(link), "%s/l", dir);
	assert_int_equal(cpha_buf_read_file(&b, path, 0, 0), -ENOENT);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(cpha_buf_read_file(&b, path, 0, 0), 0);
	assert_non_null(b.data);
	assert_string_equal(b.data, "");
	memset(big, 'x', sizeof(big));
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(big, 1, sizeof(big), f), sizeof(big));
	fclose(f);
	assert_int_equal(cpha_buf_puts(&b, "head:"), 0);
	assert_int_equal(cpha_buf_read_file(&b, path, 0, sizeof(big)), 0);
	assert_int_equal(b.len, 5 + sizeof(big));
	assert_int_equal(b.data[b.len], '\0');
	cpha_buf_reset(&b);
	assert_int_equal(cpha_buf_read_file(&b, path, 0, sizeof(big) - 1), -EFBIG);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(cpha_buf_read_file(&b, link, O_NOFOLLOW, 0), -ELOOP);
	unlink(link);
	unlink(path);
	rmdir(dir);
	cpha_buf_free(&b);
}

static void test_steal(void **state)
{
	struct cpha_buf b = { 0 };
	char *s;

	(void)state;
	s = cpha_buf_steal(&b); /* empty buffer still gives a string */
	assert_non_null(s);
	assert_string_equal(s, "");
	free(s);
	cpha_buf_puts(&b, "kept");
	s = cpha_buf_steal(&b);
	assert_string_equal(s, "kept");
	assert_null(b.data);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_append_and_printf),
		cmocka_unit_test(test_grows_past_initial_capacity),
		cmocka_unit_test(test_consume_and_reset),
		cmocka_unit_test(test_steal),
		cmocka_unit_test(test_read_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
