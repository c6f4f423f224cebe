#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <systemd/sd-event.h>

#include "admin.h"
#include "duration.h"
#include "reqserv_test.h"

struct query {
	const char *path, *cmd;
	char *reply;
	int r;
	int done; /* set by the client thread, read by the loop */
};

static void handle(
	void *ud, const struct cpha_admin_peer *peer, const char *line, struct cpha_buf *reply)
{
	(void)ud;
	(void)peer;
	if (strcmp(line, "show info") == 0)
		cpha_buf_puts(reply, "Name: test\nUptime_sec: 1\n");
	else if (strcmp(line, "big") == 0)
		for (int i = 0; i < 20000; i++)
			cpha_buf_printf(reply, "%05d\n", i);
	else
		cpha_buf_printf(reply, "Unknown command: '%s'\n", line);
}

static void *client(void *arg)
{
	struct query *q = arg;

	q->r = cpha_admin_query(q->path, q->cmd, 5000000, &q->reply);
	__atomic_store_n(&q->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* Run one query from a thread while the loop serves it. */
static void run_query(sd_event *e, struct query *q)
{
	pthread_t t;
	int i;

	q->done = 0;
	assert_int_equal(pthread_create(&t, NULL, client, q), 0);
	for (i = 0; i < 200 && !__atomic_load_n(&q->done, __ATOMIC_SEQ_CST); i++)
		assert_true(sd_event_run(e, 50000) >= 0);
	pthread_join(t, NULL);
	assert_true(q->done);
}

static void test_roundtrip_and_permissions(void **state)
{
	char dir[] = "/tmp/cpha-test-admin-XXXXXX", path[256];
	struct cpha_admin *a = NULL;
	struct query q = { 0 };
	struct stat st;
	sd_event *e;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/run/admin.sock", dir); /* parent is created */
	assert_int_equal(sd_event_new(&e), 0);
	assert_int_equal(cpha_admin_open(e, path, 0, handle, NULL, &a), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);

	q.path = path;
	q.cmd = "show info";
	run_query(e, &q);
	assert_int_equal(q.r, 0);
	assert_string_equal(q.reply, "Name: test\nUptime_sec: 1\n");
	free(q.reply);

	q.cmd = "frobnicate";
	run_query(e, &q);
	assert_string_equal(q.reply, "Unknown command: 'frobnicate'\n");
	free(q.reply);

	q.cmd = "big"; /* a reply larger than the socket buffers */
	run_query(e, &q);
	assert_int_equal(q.r, 0);
	assert_int_equal(strlen(q.reply), 20000 * 6);
	assert_memory_equal(q.reply + 19999 * 6, "19999\n", 6);
	free(q.reply);

	/* a second server on the same live socket is refused */
	struct cpha_admin *b = NULL;
	assert_int_equal(cpha_admin_open(e, path, 0, handle, NULL, &b), -EADDRINUSE);

	cpha_admin_close(a);
	assert_int_equal(stat(path, &st), -1); /* removed on close */
	sd_event_unref(e);
	snprintf(path, sizeof(path), "%s/run", dir);
	rmdir(path);
	rmdir(dir);
}

static void test_stale_socket_replaced_other_file_refused(void **state)
{
	char dir[] = "/tmp/cpha-test-admin-XXXXXX", path[256];
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct cpha_admin *a = NULL;
	sd_event *e;
	int fd;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/admin.sock", dir);
	strcpy(sun.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	close(fd); /* a socket file nobody listens on: a crashed daemon's */
	assert_int_equal(sd_event_new(&e), 0);
	assert_int_equal(cpha_admin_open(e, path, 0660, handle, NULL, &a), 0);
	cpha_admin_close(a);

	f = fopen(path, "w");
	fputs("not a socket", f);
	fclose(f);
	assert_int_equal(cpha_admin_open(e, path, 0, handle, NULL, &a), -EEXIST);
	unlink(path);
	rmdir(dir);
	sd_event_unref(e);
}

static void test_query_errors(void **state)
{
	char *reply = (char *)1;

	(void)state;
	assert_int_equal(
		cpha_admin_query("/tmp/cpha-test-no-such.sock", "show", 100000, &reply), -ENOENT);
	assert_null(reply);
}

/* Hundreds of idle and byte-at-a-time clients that reconnect as soon as
 * they are dropped, as an attacker would: a real command still answers,
 * within a second, every time over ~10 s. */
static void test_idle_clients_do_not_block(void **state)
{
	char dir[] = "/tmp/cpha-test-admin-XXXXXX", path[256];
	struct flood f = { .path = path, .byte = 's' };
	struct cpha_admin *a = NULL;
	struct query q = { 0 };
	uint64_t t0, now;
	sd_event *e;
	int round;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/admin.sock", dir);
	assert_int_equal(sd_event_new(&e), 0);
	assert_int_equal(cpha_admin_open(e, path, 0, handle, NULL, &a), 0);
	flood_start(e, &f);
	q.path = path;
	q.cmd = "show info";
	for (round = 0; round < 10; round++) {
		flood_second(e, &f);
		t0 = cpha_now_usec(CLOCK_MONOTONIC);
		run_query(e, &q);
		now = cpha_now_usec(CLOCK_MONOTONIC);
		assert_int_equal(q.r, 0);
		assert_string_equal(q.reply, "Name: test\nUptime_sec: 1\n");
		free(q.reply);
		if (now - t0 >= 1000000) {
			print_error("round %d: the command took %llu us\n", round,
				(unsigned long long)(now - t0));
			fail();
		}
	}
	/* the flood was there: clients were dropped and came back */
	assert_true(f.reconnects > NIDLE);
	flood_stop(&f);
	cpha_admin_close(a);
	sd_event_unref(e);
	rmdir(dir);
}

/* A client that says nothing is dropped after about two seconds. */
static void test_idle_client_dropped(void **state)
{
	char dir[] = "/tmp/cpha-test-admin-XXXXXX", path[256];
	struct cpha_admin *a = NULL;
	uint64_t t0, t;
	sd_event *e;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/admin.sock", dir);
	assert_int_equal(sd_event_new(&e), 0);
	assert_int_equal(cpha_admin_open(e, path, 0, handle, NULL, &a), 0);
	fd = connect_unix(path);
	assert_true(fd >= 0);
	t0 = cpha_now_usec(CLOCK_MONOTONIC);
	while (!closed(fd) && cpha_now_usec(CLOCK_MONOTONIC) < t0 + 6000000)
		assert_true(sd_event_run(e, 50000) >= 0);
	t = cpha_now_usec(CLOCK_MONOTONIC) - t0;
	assert_true(closed(fd));
	assert_true(t >= CPHA_ADMIN_REQUEST_USEC - 100000);
	assert_true(t < CPHA_ADMIN_REQUEST_USEC + 2000000);
	close(fd);
	cpha_admin_close(a);
	sd_event_unref(e);
	rmdir(dir);
}

/* A reload's narrower mode and new owner reach the live socket, which
 * keeps answering. */
static void test_set_access(void **state)
{
	char dir[] = "/tmp/cpha-test-admin-XXXXXX", path[256];
	struct cpha_admin *a = NULL;
	struct query q = { 0 };
	struct stat st;
	sd_event *e;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/admin.sock", dir);
	assert_int_equal(sd_event_new(&e), 0);
	assert_int_equal(cpha_admin_open(e, path, 0666, handle, NULL, &a), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0666);
	assert_int_equal(cpha_admin_set_access(a, 0600, (uid_t)-1, (gid_t)-1), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	if (geteuid() == 0) {
		assert_int_equal(cpha_admin_set_access(a, 0660, 65534, 65534), 0);
		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(st.st_mode & 0777, 0660);
		assert_int_equal(st.st_uid, 65534);
		assert_int_equal(st.st_gid, 65534);
	}
	q.path = path;
	q.cmd = "show info";
	run_query(e, &q);
	assert_int_equal(q.r, 0);
	assert_string_equal(q.reply, "Name: test\nUptime_sec: 1\n");
	free(q.reply);
	cpha_admin_close(a);
	sd_event_unref(e);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_and_permissions),
		cmocka_unit_test(test_stale_socket_replaced_other_file_refused),
		cmocka_unit_test(test_query_errors),
		cmocka_unit_test(test_idle_clients_do_not_block),
		cmocka_unit_test(test_idle_client_dropped),
		cmocka_unit_test(test_set_access),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
