#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "buf.h"
#include "fileio.h"

static char dir[] = "/tmp/test_fileio.XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static char *in_dir(const char *name)
{
	static char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return p;
}

/* Entries of the directory besides "." and "..". */
static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void read_back(const char *path, const char *want, size_t len)
{
	struct cpha_buf b = { 0 };

	assert_int_equal(cpha_buf_read_file(&b, path, 0, 0), 0);
	assert_int_equal(b.len, len);
	assert_memory_equal(b.data, want, len);
	cpha_buf_free(&b);
}

static void test_write_all_writes_every_byte(void **state)
{
	size_t len = 3 * 1024 * 1024 + 7;
	char *data = malloc(len);
	int fd;

	(void)state;
	assert_non_null(data);
	for (size_t i = 0; i < len; i++)
		data[i] = (char)(i * 31 + 7);
	fd = open(in_dir("all"), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(cpha_write_all(fd, data, len), 0);
	assert_int_equal(cpha_write_all(fd, data, 0), 0);
	close(fd);
	read_back(in_dir("all"), data, len);
	unlink(in_dir("all"));
	/* a closed descriptor: the error, not a loop */
	assert_int_equal(cpha_write_all(fd, "x", 1), -EBADF);
	free(data);
}

static void test_atomic_creates_with_the_exact_mode(void **state)
{
	struct stat st;
	mode_t old = umask(077);

	(void)state;
	assert_int_equal(cpha_write_file_atomic(in_dir("a.prom"), "one\n", 4, 0644,
				 (uid_t)-1, (gid_t)-1),
		0);
	umask(old);
	read_back(in_dir("a.prom"), "one\n", 4);
	assert_int_equal(stat(in_dir("a.prom"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(entries(), 1); /* no temporary file left */
	unlink(in_dir("a.prom"));
}

static void test_atomic_replaces_and_keeps_no_temporary(void **state)
{
	struct stat st;

	(void)state;
	for (int i = 0; i < 10; i++) {
		char text[32];
		int n = snprintf(text, sizeof(text), "round %d\n", i);

		assert_int_equal(cpha_write_file_atomic(in_dir("b"), text, (size_t)n, 0600,
					 (uid_t)-1, (gid_t)-1),
			0);
		read_back(in_dir("b"), text, (size_t)n);
	}
	assert_int_equal(stat(in_dir("b"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(entries(), 1);
	/* empty data: an empty file */
	assert_int_equal(
		cpha_write_file_atomic(in_dir("b"), "", 0, 0600, (uid_t)-1, (gid_t)-1), 0);
	read_back(in_dir("b"), "", 0);
	unlink(in_dir("b"));
}

static void test_atomic_owner(void **state)
{
	struct stat st;

	(void)state;
	if (geteuid() != 0)
		skip(); /* chown to another user needs root */
	assert_int_equal(
		cpha_write_file_atomic(in_dir("c"), "x", 1, 04750, 1, 2), 0);
	assert_int_equal(stat(in_dir("c"), &st), 0);
	assert_int_equal(st.st_uid, 1);
	assert_int_equal(st.st_gid, 2);
	assert_int_equal(st.st_mode & 07777, 04750); /* set after the chown */
	unlink(in_dir("c"));
}

static void test_atomic_failure_leaves_the_old_file(void **state)
{
	char sub[PATH_MAX], path[PATH_MAX + 8], lng[PATH_MAX + 64];

	(void)state;
	/* a missing directory: nothing made */
	assert_int_equal(cpha_write_file_atomic(in_dir("no/such"), "x", 1, 0644, (uid_t)-1,
				 (gid_t)-1),
		-ENOENT);
	/* over a non-empty directory: the rename fails, the temporary goes */
	snprintf(sub, sizeof(sub), "%s", in_dir("d"));
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(path, sizeof(path), "%s/keep", sub);
	assert_int_equal(
		cpha_write_file_atomic(path, "kept", 4, 0644, (uid_t)-1, (gid_t)-1), 0);
	int r = cpha_write_file_atomic(sub, "x", 1, 0644, (uid_t)-1, (gid_t)-1);
	assert_true(r == -EISDIR || r == -ENOTEMPTY || r == -EEXIST);
	assert_int_equal(entries(), 1);
	read_back(path, "kept", 4);
	/* a trailing slash names no file */
	snprintf(path, sizeof(path), "%s/", sub);
	assert_int_equal(
		cpha_write_file_atomic(path, "x", 1, 0644, (uid_t)-1, (gid_t)-1), -EISDIR);
	/* too long for a temporary name beside it */
	memset(lng, 'n', sizeof(lng) - 1);
	lng[sizeof(lng) - 1] = '\0';
	lng[0] = '/';
	assert_int_equal(cpha_write_file_atomic(lng, "x", 1, 0644, (uid_t)-1, (gid_t)-1),
		-ENAMETOOLONG);
}

static void test_atomic_relative_path(void **state)
{
	char cwd[PATH_MAX];

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	assert_int_equal(
		cpha_write_file_atomic("rel", "here", 4, 0644, (uid_t)-1, (gid_t)-1), 0);
	assert_int_equal(chdir(cwd), 0);
	read_back(in_dir("rel"), "here", 4);
	unlink(in_dir("rel"));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_dir_names(void **state)
{
	char sub[PATH_MAX], **names = NULL;
	int dfd;

	(void)state;
	snprintf(sub, sizeof(sub), "%s", in_dir("names"));
	assert_int_equal(mkdir(sub, 0700), 0);
	dfd = open(sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(dfd >= 0);
	/* empty: no name, a NULL-terminated array all the same */
	assert_int_equal(cpha_dir_names(dfd, &names), 0);
	assert_non_null(names);
	assert_null(names[0]);
	cpha_names_free(names);
	assert_int_equal(
		cpha_write_file_atomic(in_dir("names/b"), "1", 1, 0600, (uid_t)-1, (gid_t)-1), 0);
	assert_int_equal(
		cpha_write_file_atomic(in_dir("names/a"), "2", 1, 0600, (uid_t)-1, (gid_t)-1), 0);
	assert_int_equal(mkdir(in_dir("names/c"), 0700), 0);
	/* twice: dfd stays usable */
	for (int round = 0; round < 2; round++) {
		assert_int_equal(cpha_dir_names(dfd, &names), 3);
		qsort(names, 3, sizeof(*names), cmp_str);
		assert_string_equal(names[0], "a");
		assert_string_equal(names[1], "b");
		assert_string_equal(names[2], "c");
		assert_null(names[3]);
		cpha_names_free(names);
	}
	close(dfd);
	assert_int_equal(cpha_dir_names(-1, &names), -1);
	assert_int_equal(errno, EBADF);
	assert_null(names);
	unlink(in_dir("names/a"));
	unlink(in_dir("names/b"));
	rmdir(in_dir("names/c"));
	rmdir(sub);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_all_writes_every_byte),
		cmocka_unit_test(test_atomic_creates_with_the_exact_mode),
		cmocka_unit_test(test_atomic_replaces_and_keeps_no_temporary),
		cmocka_unit_test(test_atomic_owner),
		cmocka_unit_test(test_atomic_failure_leaves_the_old_file),
		cmocka_unit_test(test_atomic_relative_path),
		cmocka_unit_test(test_dir_names),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
