#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <systemd/sd-event.h>

#include "event.h"
#include "spawn.h"

struct outcome {
	int called;
	int exited, exit_code, signo, timed_out, out_truncated;
	char out[8192], err[1024];
	size_t out_len;
};

static void done(void *ud, const struct cpha_spawn_result *r)
{
	struct outcome *o = ud;

	o->called++;
	o->exited = r->exited;
	o->exit_code = r->exit_code;
	o->signo = r->signo;
	o->timed_out = r->timed_out;
	o->out_truncated = r->out_truncated;
	o->out_len = r->out_len;
	snprintf(o->out, sizeof(o->out), "%s", r->out);
	snprintf(o->err, sizeof(o->err), "%s", r->err);
}

static sd_event *loop_new(void)
{
	sd_event *e = NULL;

	assert_int_equal(sd_event_new(&e), 0);
	assert_int_equal(cpha_event_setup(e, NULL, NULL), 0);
	return e;
}

/* Run the loop until the child is done, at most 10 s. */
static void run_until_done(sd_event *e, struct outcome *o)
{
	int i;

	for (i = 0; i < 1000 && !o->called; i++)
		assert_true(sd_event_run(e, 10000) >= 0);
	assert_int_equal(o->called, 1);
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_exit_status_and_output(void **state)
{
	const char *argv[] = { "/bin/sh", "-c", "echo out; echo err >&2; exit 3", NULL };
	struct cpha_spawn_opts o = { .argv = argv };
	struct outcome oc = { 0 };
	sd_event *e = loop_new();

	(void)state;
	assert_int_equal(cpha_spawn(e, &o, done, &oc, NULL), 0);
	run_until_done(e, &oc);
	assert_true(oc.exited);
	assert_int_equal(oc.exit_code, 3);
	assert_string_equal(oc.out, "out\n");
	assert_string_equal(oc.err, "err\n");
	sd_event_unref(e);
}

static void test_env_and_stdin(void **state)
{
	const char *argv[] = { "sh", "-c",
		"read a; read b; echo \"$FENCE_PORT:$a:$b\"; "
		"test -z \"$HOME\"",
		NULL };
	const char *envp[] = { "PATH=/usr/bin:/bin", "FENCE_PORT=m1", NULL };
	struct cpha_spawn_opts o = {
		.argv = argv, .envp = envp, .stdin_text = "action=off\nplug=m1\n"
	};
	struct outcome oc = { 0 };
	sd_event *e = loop_new();

	(void)state;
	setenv("PATH", "/usr/bin:/bin", 1); /* argv[0] is looked up in PATH */
	assert_int_equal(cpha_spawn(e, &o, done, &oc, NULL), 0);
	run_until_done(e, &oc);
	assert_string_equal(oc.out, "m1:action=off:plug=m1\n");
	assert_int_equal(oc.exit_code, 0); /* HOME was not inherited */
	sd_event_unref(e);
}

static void test_timeout_kills_group(void **state)
{
	char pidfile[] = "/tmp/cpha-test-spawn-XXXXXX", cmd[256];
	const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	struct cpha_spawn_opts o = { .argv = argv, .timeout_usec = 300000 };
	struct outcome oc = { 0 };
	sd_event *e = loop_new();
	double t0;
	FILE *f;
	int fd, grandchild = 0;

	(void)state;
	fd = mkstemp(pidfile);
	close(fd);
	/* a grandchild in the same group, holding our stdout */
	snprintf(cmd, sizeof(cmd), "sleep 30 & echo $! > %s; wait", pidfile);
	t0 = mono();
	assert_int_equal(cpha_spawn(e, &o, done, &oc, NULL), 0);
	run_until_done(e, &oc);
	assert_true(mono() - t0 < 5.0);
	assert_true(oc.timed_out);
	assert_false(oc.exited);
	assert_int_equal(oc.signo, SIGKILL);
	f = fopen(pidfile, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%d", &grandchild), 1);
	fclose(f);
	unlink(pidfile);
	usleep(100000);
	/* the grandchild died with the group (it may linger as a zombie of init) */
	if (kill(grandchild, 0) == 0) {
		char path[64], st = 0;

		snprintf(path, sizeof(path), "/proc/%d/stat", grandchild);
		f = fopen(path, "r");
		if (f) {
			assert_int_equal(fscanf(f, "%*d %*s %c", &st), 1);
			fclose(f);
			assert_int_equal(st, 'Z');
		}
	}
	sd_event_unref(e);
}

static void test_output_capped(void **state)
{
	const char *argv[] = { "/bin/sh", "-c", "head -c 100000 /dev/zero | tr '\\0' x", NULL };
	struct cpha_spawn_opts o = { .argv = argv, .output_max = 1000 };
	struct outcome oc = { 0 };
	sd_event *e = loop_new();

	(void)state;
	assert_int_equal(cpha_spawn(e, &o, done, &oc, NULL), 0);
	run_until_done(e, &oc);
	assert_int_equal(oc.out_len, 1000);
	assert_true(oc.out_truncated);
	assert_int_equal(oc.exit_code, 0); /* the child was not blocked by a full pipe */
	sd_event_unref(e);
}

static void test_exec_failure_is_synchronous(void **state)
{
	const char *argv[] = { "/nonexistent/fence_nothing", NULL };
	char plain[] = "/tmp/cpha-test-noexec-XXXXXX";
	const char *noperm[] = { plain, NULL };
	struct cpha_spawn_opts o = { .argv = argv };
	struct outcome oc = { 0 };
	sd_event *e = loop_new();
	int fd;

	(void)state;
	fd = mkstemp(plain); /* mode 0600: not executable, even for root */
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(cpha_spawn(e, &o, done, &oc, NULL), -ENOENT);
	o.argv = noperm;
	assert_int_equal(cpha_spawn(e, &o, done, &oc, NULL), -EACCES);
	unlink(plain);
	o.argv = argv;
	o.user = "no-such-user-cpha";
	assert_int_equal(cpha_spawn(e, &o, done, &oc, NULL), -ESRCH);
	assert_int_equal(oc.called, 0);
	sd_event_unref(e);
}

static void test_runs_as_user(void **state)
{
	const char *argv[] = { "/usr/bin/id", "-u", NULL };
	struct cpha_spawn_opts o = { .argv = argv, .user = "nobody" };
	struct outcome oc = { 0 };
	sd_event *e = loop_new();

	(void)state;
	if (geteuid() != 0) {
		printf("skipped: running as another user needs root\n");
		sd_event_unref(e);
		skip();
	}
	assert_int_equal(cpha_spawn(e, &o, done, &oc, NULL), 0);
	run_until_done(e, &oc);
	assert_string_equal(oc.out, "65534\n");
	sd_event_unref(e);
}

/* keepalived's "user USER GROUP": the primary group given, by name or
 * number, and (only_primary) no supplementary groups */
static void test_runs_as_user_and_group(void **state)
{
	const char *argv[] = { "/bin/sh", "-c", "id -u; id -g; id -G", NULL };
	struct cpha_spawn_opts o = { .argv = argv, .user = "nobody", .group = "daemon" };
	struct outcome oc = { 0 };
	struct outcome oc2 = { 0 };
	sd_event *e = loop_new();

	(void)state;
	if (geteuid() != 0) {
		printf("skipped: running as another user needs root\n");
		sd_event_unref(e);
		skip();
	}
	o.only_primary = 1;
	assert_int_equal(cpha_spawn(e, &o, done, &oc, NULL), 0);
	run_until_done(e, &oc);
	assert_string_equal(oc.out, "65534\n1\n1\n");
	o.group = "12345";
	assert_int_equal(cpha_spawn(e, &o, done, &oc2, NULL), 0);
	run_until_done(e, &oc2);
	assert_string_equal(oc2.out, "65534\n12345\n12345\n");
	o.group = "no-such-group-cpha";
	assert_int_equal(cpha_spawn(e, &o, done, &oc2, NULL), -ESRCH);
	sd_event_unref(e);
}

static void test_signal_mask_reset_and_fds_closed(void **state)
{
	/* SigBlk of the child must be empty although the parent blocks signals,
	 * and no fd above 2 may leak into it */
	const char *argv[] = { "/bin/sh", "-c",
		"grep SigBlk /proc/self/status; ls /proc/self/fd | wc -l", NULL };
	struct cpha_spawn_opts o = { .argv = argv };
	struct outcome oc = { 0 };
	sd_event *e = loop_new();
	int leak = open("/dev/null", O_RDONLY); /* not close-on-exec */

	(void)state;
	assert_int_equal(cpha_spawn(e, &o, done, &oc, NULL), 0);
	run_until_done(e, &oc);
	assert_non_null(strstr(oc.out, "SigBlk:\t0000000000000000\n"));
	/* 0, 1, 2 and the fd ls opens to list the directory */
	assert_non_null(strstr(oc.out, "\n4\n"));
	close(leak);
	sd_event_unref(e);
}

static void test_cancel(void **state)
{
	const char *argv[] = { "/bin/sleep", "30", NULL };
	struct cpha_spawn_opts o = { .argv = argv };
	struct outcome oc = { 0 };
	struct cpha_spawn *s = NULL;
	sd_event *e = loop_new();
	pid_t pid;

	(void)state;
	assert_int_equal(cpha_spawn(e, &o, done, &oc, &s), 0);
	pid = cpha_spawn_pid(s);
	assert_true(pid > 0);
	assert_int_equal(kill(pid, 0), 0);
	cpha_spawn_cancel(s);
	assert_int_equal(kill(pid, 0), -1); /* reaped, gone */
	assert_int_equal(oc.called, 0);
	sd_event_unref(e);
}

static void test_fire_and_forget(void **state)
{
	char path[] = "/tmp/cpha-test-spawn-ff-XXXXXX", cmd[128];
	const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	struct cpha_spawn_opts o = { .argv = argv };
	struct cpha_spawn *s = NULL;
	sd_event *e = loop_new();
	pid_t pid;
	int fd, i;

	(void)state;
	fd = mkstemp(path);
	close(fd);
	unlink(path);
	snprintf(cmd, sizeof(cmd), "echo done > %s", path);
	assert_int_equal(cpha_spawn(e, &o, NULL, NULL, &s), 0);
	pid = cpha_spawn_pid(s);
	for (i = 0; i < 500 && (access(path, F_OK) != 0 || kill(pid, 0) == 0); i++)
		assert_true(sd_event_run(e, 10000) >= 0);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(kill(pid, 0), -1); /* reaped by the loop, not a zombie */
	/* the handle goes once its pipes have closed too: let the loop finish
	 * what it has (it holds a reference to e until then) */
	for (i = 0; i < 50 && sd_event_run(e, 20000) > 0; i++)
		;
	unlink(path);
	sd_event_unref(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_status_and_output),
		cmocka_unit_test(test_env_and_stdin),
		cmocka_unit_test(test_timeout_kills_group),
		cmocka_unit_test(test_output_capped),
		cmocka_unit_test(test_exec_failure_is_synchronous),
		cmocka_unit_test(test_runs_as_user),
		cmocka_unit_test(test_runs_as_user_and_group),
		cmocka_unit_test(test_signal_mask_reset_and_fds_closed),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_fire_and_forget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
