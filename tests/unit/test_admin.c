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

/* ---- cpha_admin_query_async ---- */

struct areply {
	int called; /* times fn ran: never more than once */
	int r;
	char *reply;
};

static void on_areply(void *ud, int r, char *reply)
{
	struct areply *a = ud;

	a->called++;
	a->r = r;
	a->reply = reply;
}

/* Run the loop until fn ran or max_usec passed; then a few more turns, in
 * which fn must not run again. Returns the time it took to answer. */
static uint64_t await_reply(sd_event *e, struct areply *a, uint64_t max_usec)
{
	uint64_t t0 = cpha_now_usec(CLOCK_MONOTONIC), t;
	int i;

	while (!a->called && cpha_now_usec(CLOCK_MONOTONIC) < t0 + max_usec)
		assert_true(sd_event_run(e, 50000) >= 0);
	t = cpha_now_usec(CLOCK_MONOTONIC) - t0;
	for (i = 0; i < 3; i++)
		assert_true(sd_event_run(e, 20000) >= 0);
	assert_int_equal(a->called, 1);
	return t;
}

/* Turn the loop for about usec, answering whatever comes. */
static void spin(sd_event *e, uint64_t usec)
{
	uint64_t end = cpha_now_usec(CLOCK_MONOTONIC) + usec;

	while (cpha_now_usec(CLOCK_MONOTONIC) < end)
		assert_true(sd_event_run(e, 20000) >= 0);
}

/* A socket that listens but never accepts: connects succeed (the backlog),
 * nobody reads or answers. */
static int mute_listener(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	strcpy(sun.sun_path, path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	assert_int_equal(listen(fd, 16), 0);
	return fd;
}

/* The server and the asking client in one loop: the whole reply comes
 * through fn, from the loop, never from inside the call, also when it is
 * many times the client's 4096-byte reads and the socket buffers. The
 * blocking query cannot do this: its loop would not run to answer it. */
static void test_async_same_loop(void **state)
{
	char dir[] = "/tmp/cpha-test-admin-XXXXXX", path[256], *reply = NULL, line[8];
	struct cpha_admin_req *req = NULL;
	struct cpha_admin *a = NULL;
	struct areply got = { 0 };
	uint64_t t0;
	sd_event *e;
	int i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/admin.sock", dir);
	assert_int_equal(sd_event_new(&e), 0);
	assert_int_equal(cpha_admin_open(e, path, 0, handle, NULL, &a), 0);

	/* what the async query exists for: blocking, the answer never comes */
	assert_int_equal(cpha_admin_query(path, "show info", 200000, &reply), -ETIMEDOUT);
	assert_null(reply);
	spin(e, 100000); /* let the server drop that client */

	t0 = cpha_now_usec(CLOCK_MONOTONIC);
	assert_int_equal(
		cpha_admin_query_async(e, path, "show info", 5000000, on_areply, &got, &req), 0);
	assert_true(cpha_now_usec(CLOCK_MONOTONIC) - t0 < 1000000); /* it did not wait */
	assert_non_null(req);
	assert_int_equal(got.called, 0); /* only from the loop */
	await_reply(e, &got, 5000000);
	assert_true(cpha_now_usec(CLOCK_MONOTONIC) - t0 < 1000000);
	assert_int_equal(got.r, 0);
	assert_non_null(got.reply);
	assert_string_equal(got.reply, "Name: test\nUptime_sec: 1\n");
	free(got.reply);

	memset(&got, 0, sizeof(got));
	assert_int_equal(
		cpha_admin_query_async(e, path, "frobnicate", 5000000, on_areply, &got, &req), 0);
	await_reply(e, &got, 5000000);
	assert_int_equal(got.r, 0);
	assert_string_equal(got.reply, "Unknown command: 'frobnicate'\n");
	free(got.reply);

	memset(&got, 0, sizeof(got));
	assert_int_equal(cpha_admin_query_async(e, path, "big", 5000000, on_areply, &got, &req), 0);
	await_reply(e, &got, 5000000);
	assert_int_equal(got.r, 0);
	assert_non_null(got.reply);
	assert_int_equal(strlen(got.reply), 20000 * 6);
	for (i = 0; i < 20000; i++) { /* every line, in order: no chunk lost or doubled */
		snprintf(line, sizeof(line), "%05d\n", i);
		if (memcmp(got.reply + i * 6, line, 6) != 0) {
			print_error("line %d: '%.6s'\n", i, got.reply + i * 6);
			fail();
		}
	}
	free(got.reply);

	cpha_admin_close(a);
	sd_event_unref(e);
	rmdir(dir);
}

struct peer {
	const char *name;        /* what its server answers */
	const char *own, *other; /* socket paths */
	pthread_barrier_t *ready;
	int *answered; /* shared: how many of the two got their reply */
	struct areply got;
	int open_r, query_r;
};

static void handle_name(
	void *ud, const struct cpha_admin_peer *p, const char *line, struct cpha_buf *reply)
{
	(void)p;
	cpha_buf_printf(reply, "%s answers '%s'\n", (const char *)ud, line);
}

static void on_peer_reply(void *ud, int r, char *reply)
{
	struct peer *p = ud;

	on_areply(&p->got, r, reply);
	__atomic_add_fetch(p->answered, 1, __ATOMIC_SEQ_CST);
}

/* One daemon: its own loop and server; asks the other at the same moment
 * the other asks it, then serves until both have their answer. */
static void *peer_main(void *arg)
{
	struct peer *p = arg;
	struct cpha_admin_req *req = NULL;
	struct cpha_admin *a = NULL;
	uint64_t end;
	sd_event *e = NULL;

	if (sd_event_new(&e) < 0)
		return NULL;
	p->open_r = cpha_admin_open(e, p->own, 0, handle_name, (void *)p->name, &a);
	pthread_barrier_wait(p->ready); /* both listen */
	if (p->open_r == 0)
		p->query_r =
			cpha_admin_query_async(e, p->other, "who", 3000000, on_peer_reply, p, &req);
	end = cpha_now_usec(CLOCK_MONOTONIC) + 5000000;
	while (__atomic_load_n(p->answered, __ATOMIC_SEQ_CST) < 2 &&
		cpha_now_usec(CLOCK_MONOTONIC) < end)
		sd_event_run(e, 20000);
	pthread_barrier_wait(p->ready); /* neither stops serving early */
	if (!p->got.called)
		cpha_admin_req_cancel(req);
	cpha_admin_close(a);
	sd_event_unref(e);
	return NULL;
}

/* Two loops that ask each other at the same moment (fenced asks vipd
 * while vipd asks fenced) both get their answer, at once: with blocking
 * queries each would wait out its timeout. */
static void test_async_ask_each_other(void **state)
{
	char dir[] = "/tmp/cpha-test-admin-XXXXXX", pa[256], pb[256];
	pthread_barrier_t ready;
	int answered = 0;
	struct peer a = { .name = "A", .own = pa, .other = pb, .ready = &ready };
	struct peer b = { .name = "B", .own = pb, .other = pa, .ready = &ready };
	uint64_t t0, t;
	pthread_t ta, tb;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(pa, sizeof(pa), "%s/a.sock", dir);
	snprintf(pb, sizeof(pb), "%s/b.sock", dir);
	a.answered = b.answered = &answered;
	assert_int_equal(pthread_barrier_init(&ready, NULL, 2), 0);
	t0 = cpha_now_usec(CLOCK_MONOTONIC);
	assert_int_equal(pthread_create(&ta, NULL, peer_main, &a), 0);
	assert_int_equal(pthread_create(&tb, NULL, peer_main, &b), 0);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	t = cpha_now_usec(CLOCK_MONOTONIC) - t0;
	pthread_barrier_destroy(&ready);
	assert_int_equal(a.open_r, 0);
	assert_int_equal(b.open_r, 0);
	assert_int_equal(a.query_r, 0);
	assert_int_equal(b.query_r, 0);
	assert_int_equal(a.got.called, 1);
	assert_int_equal(b.got.called, 1);
	assert_int_equal(a.got.r, 0);
	assert_int_equal(b.got.r, 0);
	assert_string_equal(a.got.reply, "B answers 'who'\n");
	assert_string_equal(b.got.reply, "A answers 'who'\n");
	free(a.got.reply);
	free(b.got.reply);
	assert_true(t < 2000000); /* well before the 3 s timeout */
	rmdir(dir);
}

/* A server that never answers: -ETIMEDOUT and no reply after about the
 * timeout, also when part of a reply came (no partial reply as success). */
static void test_async_timeout(void **state)
{
	char dir[] = "/tmp/cpha-test-admin-XXXXXX", path[256], buf[64];
	struct cpha_admin_req *req = NULL;
	struct areply got = { 0 };
	sd_event *e;
	uint64_t t;
	int lfd, cfd;
	ssize_t n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/mute.sock", dir);
	assert_int_equal(sd_event_new(&e), 0);
	lfd = mute_listener(path);

	assert_int_equal(
		cpha_admin_query_async(e, path, "show info", 300000, on_areply, &got, &req), 0);
	assert_non_null(req);
	t = await_reply(e, &got, 3000000);
	assert_int_equal(got.r, -ETIMEDOUT);
	assert_null(got.reply);
	assert_true(t >= 290000);
	assert_true(t < 1000000);

	/* the server reads the line and sends half a reply, then nothing */
	memset(&got, 0, sizeof(got));
	assert_int_equal(
		cpha_admin_query_async(e, path, "show info", 300000, on_areply, &got, &req), 0);
	spin(e, 10000);
	cfd = accept(lfd, NULL, NULL); /* the first client is still in the backlog */
	assert_true(cfd >= 0);
	close(cfd);
	cfd = accept(lfd, NULL, NULL);
	assert_true(cfd >= 0);
	n = recv(cfd, buf, sizeof(buf) - 1, 0);
	assert_int_equal(n, (ssize_t)strlen("show info\n")); /* the line and its newline */
	buf[n] = '\0';
	assert_string_equal(buf, "show info\n");
	assert_int_equal(send(cfd, "Name: te", 8, MSG_NOSIGNAL), 8);
	t = await_reply(e, &got, 3000000);
	assert_int_equal(got.r, -ETIMEDOUT);
	assert_null(got.reply);
	assert_true(t < 1000000);
	close(cfd);

	close(lfd);
	unlink(path);
	sd_event_unref(e);
	rmdir(dir);
}

/* What cannot be asked fails in the call: a negative errno, no request,
 * and fn never runs. */
static void test_async_errors(void **state)
{
	char dir[] = "/tmp/cpha-test-admin-XXXXXX", path[256], longpath[200];
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct cpha_admin_req *req = (struct cpha_admin_req *)1;
	struct areply got = { 0 };
	sd_event *e;
	int fd;

	(void)state;
	assert_int_equal(sd_event_new(&e), 0);
	assert_int_equal(cpha_admin_query_async(e, "/tmp/cpha-test-no-such.sock", "show", 100000,
				 on_areply, &got, &req),
		-ENOENT);
	assert_null(req);

	memset(longpath, 'x', sizeof(longpath) - 1);
	longpath[0] = '/';
	longpath[sizeof(longpath) - 1] = '\0';
	req = (struct cpha_admin_req *)1;
	assert_int_equal(cpha_admin_query_async(e, longpath, "show", 100000, on_areply, &got, &req),
		-ENAMETOOLONG);
	assert_null(req);

	/* a socket file nobody listens on (a daemon that died) */
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/dead.sock", dir);
	strcpy(sun.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	close(fd);
	req = (struct cpha_admin_req *)1;
	assert_int_equal(cpha_admin_query_async(e, path, "show", 100000, on_areply, &got, &req),
		-ECONNREFUSED);
	assert_null(req);

	spin(e, 300000); /* past every timeout asked for */
	assert_int_equal(got.called, 0);
	unlink(path);
	rmdir(dir);
	sd_event_unref(e);
}

/* A request cancelled before its reply: fn never runs, whether the reply
 * would have come from the server, was already waiting in the socket, or
 * the timeout would have fired; nothing leaks. */
static void test_async_cancel(void **state)
{
	char dir[] = "/tmp/cpha-test-admin-XXXXXX", path[256], mute[256];
	struct cpha_admin_req *req = NULL;
	struct cpha_admin *a = NULL;
	struct areply got = { 0 };
	sd_event *e;
	int lfd, cfd;
	char c;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/admin.sock", dir);
	snprintf(mute, sizeof(mute), "%s/mute.sock", dir);
	assert_int_equal(sd_event_new(&e), 0);
	assert_int_equal(cpha_admin_open(e, path, 0, handle, NULL, &a), 0);
	cpha_admin_req_cancel(NULL);

	/* the server would answer in this loop */
	assert_int_equal(cpha_admin_query_async(e, path, "big", 5000000, on_areply, &got, &req), 0);
	cpha_admin_req_cancel(req);
	spin(e, 300000);
	assert_int_equal(got.called, 0);

	/* part of a reply read, then cancelled (what was read is freed) */
	lfd = mute_listener(mute);
	assert_int_equal(
		cpha_admin_query_async(e, mute, "show info", 5000000, on_areply, &got, &req), 0);
	cfd = accept(lfd, NULL, NULL);
	assert_true(cfd >= 0);
	assert_int_equal(send(cfd, "Name: te", 8, MSG_NOSIGNAL), 8);
	spin(e, 100000);
	assert_int_equal(recv(cfd, &c, 1, MSG_PEEK | MSG_DONTWAIT), 1); /* the line came */
	cpha_admin_req_cancel(req);
	spin(e, 100000);
	assert_int_equal(got.called, 0);
	assert_true(closed(cfd)); /* the request's socket is closed */
	close(cfd);

	/* the whole reply already in the socket: still not delivered */
	assert_int_equal(
		cpha_admin_query_async(e, mute, "show info", 5000000, on_areply, &got, &req), 0);
	cfd = accept(lfd, NULL, NULL);
	assert_true(cfd >= 0);
	assert_int_equal(send(cfd, "done\n", 5, MSG_NOSIGNAL), 5);
	close(cfd);
	cpha_admin_req_cancel(req);
	spin(e, 100000);
	assert_int_equal(got.called, 0);

	/* the timeout would have fired */
	assert_int_equal(
		cpha_admin_query_async(e, mute, "show info", 100000, on_areply, &got, &req), 0);
	cpha_admin_req_cancel(req);
	spin(e, 300000);
	assert_int_equal(got.called, 0);

	/* the server still answers the next one */
	assert_int_equal(
		cpha_admin_query_async(e, path, "show info", 5000000, on_areply, &got, &req), 0);
	await_reply(e, &got, 5000000);
	assert_int_equal(got.r, 0);
	assert_string_equal(got.reply, "Name: test\nUptime_sec: 1\n");
	free(got.reply);

	close(lfd);
	unlink(mute);
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
		cmocka_unit_test(test_async_same_loop),
		cmocka_unit_test(test_async_ask_each_other),
		cmocka_unit_test(test_async_timeout),
		cmocka_unit_test(test_async_errors),
		cmocka_unit_test(test_async_cancel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
