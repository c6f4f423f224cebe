/* Pid files, process matching, detached daemons, stop, commands. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "ocf_proc.h"

static char dir[64];
static char *const env[] = { "PATH=/usr/bin:/bin", NULL };

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/cpha-test-ocf-proc-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static char *path_in(const char *name)
{
	static char p[4][PATH_MAX];
	static int i;

	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s", dir, name);
	return p[i];
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static char *sleep_bin(void)
{
	static char p[PATH_MAX];

	assert_non_null(realpath("/bin/sleep", p));
	return p;
}

static void test_pidfile(void **state)
{
	pid_t pid = 0;

	(void)state;
	assert_int_equal(ocf_pidfile_read(path_in("none.pid"), &pid), -ENOENT);
	assert_int_equal(ocf_pidfile_write(path_in("a.pid"), 4242), 0);
	assert_int_equal(ocf_pidfile_read(path_in("a.pid"), &pid), 0);
	assert_int_equal(pid, 4242);
	write_file(path_in("bad.pid"), "12ab\n", 0644);
	assert_int_equal(ocf_pidfile_read(path_in("bad.pid"), &pid), -EINVAL);
	write_file(path_in("empty.pid"), "", 0644);
	assert_int_equal(ocf_pidfile_read(path_in("empty.pid"), &pid), -EINVAL);
	write_file(path_in("one.pid"), "1\n", 0644); /* init is never ours */
	assert_int_equal(ocf_pidfile_read(path_in("one.pid"), &pid), -EINVAL);
	write_file(path_in("neg.pid"), "-5\n", 0644);
	assert_int_equal(ocf_pidfile_read(path_in("neg.pid"), &pid), -EINVAL);
}

static void test_alive_and_zombie(void **state)
{
	pid_t child;
	int st;

	(void)state;
	assert_true(ocf_pid_alive(getpid()));
	child = fork();
	assert_true(child >= 0);
	if (child == 0)
		_exit(0);
	/* not reaped yet: a zombie is not alive */
	while (ocf_pid_alive(child))
		usleep(1000);
	assert_int_equal(waitpid(child, &st, 0), child);
	assert_false(ocf_pid_alive(child));
	assert_false(ocf_pid_alive(0));
	assert_false(ocf_pid_alive(-1));
}

static void test_start_match_stop(void **state)
{
	char *argv[] = { sleep_bin(), "30", NULL };
	struct ocf_daemon d = { .binary = argv[0],
		.argv = argv,
		.envp = env,
		.pidfile = path_in("sleep.pid"),
		.statefile = path_in("sleep.argv"),
		.logfile = path_in("sleep.log") };
	struct ocf_strv saved = { 0 };
	pid_t pid = 0, p2 = 0, read_pid = 0;
	uint64_t t0;

	(void)state;
	assert_int_equal(ocf_daemon_start(&d, &pid), 0);
	assert_true(pid > 0);
	assert_int_equal(getsid(pid), pid); /* its own session and group */
	assert_int_equal(getpgid(pid), pid);
	assert_int_equal(ocf_pidfile_read(d.pidfile, &read_pid), 0);
	assert_int_equal(read_pid, pid);
	assert_int_equal(ocf_state_read(d.statefile, &saved), 0);
	assert_int_equal(saved.n, 2);
	assert_string_equal(saved.v[1], "30");
	ocf_strv_free(&saved);

	assert_true(ocf_pid_runs(pid, argv[0]));
	assert_true(ocf_pid_runs(pid, "/bin/sleep")); /* through realpath */
	assert_false(ocf_pid_runs(pid, "/bin/true"));
	assert_false(ocf_pid_runs(getpid(), argv[0]));
	assert_int_equal(ocf_daemon_running(&d, &p2), 1);
	assert_int_equal(p2, pid);

	t0 = ocf_now();
	assert_int_equal(ocf_daemon_stop(&d, SIGTERM, t0 + 5000000, t0 + 6000000), 0);
	assert_true(ocf_now() - t0 < 2000000);
	assert_false(ocf_pid_alive(pid));
	assert_int_equal(access(d.pidfile, F_OK), -1);
	assert_int_equal(access(d.statefile, F_OK), -1);
	assert_int_equal(ocf_daemon_running(&d, &p2), 0);
	/* stopping a stopped daemon succeeds */
	assert_int_equal(ocf_daemon_stop(&d, SIGTERM, t0 + 5000000, t0 + 6000000), 0);
}

/* A pid file naming a live process that is not ours (a recycled pid). */
static void test_recycled_pid(void **state)
{
	char *argv[] = { sleep_bin(), "30", NULL };
	struct ocf_daemon d = { .binary = argv[0],
		.argv = argv,
		.envp = env,
		.pidfile = path_in("recycled.pid"),
		.logfile = NULL };
	uint64_t t0 = ocf_now();
	pid_t p;

	(void)state;
	assert_int_equal(ocf_pidfile_write(d.pidfile, getpid()), 0);
	assert_int_equal(ocf_daemon_running(&d, &p), 0);
	/* and stop must not signal it: we are still here afterwards */
	assert_int_equal(ocf_daemon_stop(&d, SIGKILL, t0 + 1000000, t0 + 2000000), 0);
	assert_true(ocf_pid_alive(getpid()));
	assert_int_equal(access(d.pidfile, F_OK), -1);
}

/* A script run by an interpreter is matched by its path in argv. */
static void test_script_match(void **state)
{
	char *script = path_in("daemon.sh");
	char *argv[] = { script, NULL };
	struct ocf_daemon d = { .binary = script,
		.argv = argv,
		.envp = env,
		.pidfile = path_in("script.pid"),
		.statefile = path_in("script.argv"),
		.logfile = path_in("script.log") };
	char line[256];
	uint64_t t0;
	pid_t pid, p;
	int i;

	(void)state;
	write_file(script,
		"#!/usr/bin/env sh\necho started on stdout\necho oops >&2\n"
		/* not a plain last command: dash would exec it and the
		 * process would no longer be the script */
		"while :; do sleep 1; done\n",
		0755);
	assert_int_equal(ocf_daemon_start(&d, &pid), 0);
	/* env runs sh: wait for the interpreter to be in place */
	for (i = 0; i < 200 && !ocf_daemon_running(&d, &p); i++)
		usleep(10000);
	assert_int_equal(ocf_daemon_running(&d, &p), 1);
	assert_int_equal(p, pid);
	for (i = 0; i < 200; i++) {
		ocf_tail_line(d.logfile, 0, line, sizeof(line));
		if (strcmp(line, "oops") == 0)
			break;
		usleep(10000);
	}
	assert_string_equal(line, "oops"); /* stderr goes to the log too */
	t0 = ocf_now();
	assert_int_equal(ocf_daemon_stop(&d, SIGTERM, t0 + 3000000, t0 + 5000000), 0);
	/* the shell's sleep child was in its process group and is gone too */
	assert_false(ocf_pgrp_alive(pid));
}

/* SIGTERM ignored: SIGKILL at kill_at, within the deadline. */
static void test_stop_escalates(void **state)
{
	char *argv[] = { "/bin/sh", "-c", "trap '' TERM; sleep 30 & wait; sleep 30", NULL };
	struct ocf_daemon d = { .binary = "/bin/sh",
		.argv = argv,
		.envp = env,
		.pidfile = path_in("stubborn.pid"),
		.logfile = path_in("stubborn.log") };
	uint64_t t0, dt;
	pid_t pid;

	(void)state;
	assert_int_equal(ocf_daemon_start(&d, &pid), 0);
	usleep(100000);
	t0 = ocf_now();
	assert_int_equal(ocf_daemon_stop(&d, SIGTERM, t0 + 400000, t0 + 3000000), 0);
	dt = ocf_now() - t0;
	assert_true(dt >= 400000);
	assert_true(dt < 3000000);
	assert_false(ocf_pid_alive(pid));
	assert_false(ocf_pgrp_alive(pid)); /* the background sleep too */
}

/* The daemon outlives the process that started it. */
static void test_survives_agent(void **state)
{
	char *argv[] = { sleep_bin(), "30", NULL };
	struct ocf_daemon d = { .binary = argv[0],
		.argv = argv,
		.envp = env,
		.pidfile = path_in("survivor.pid"),
		.logfile = path_in("survivor.log") };
	uint64_t t0;
	pid_t agent, pid = 0;
	int st;

	(void)state;
	agent = fork();
	assert_true(agent >= 0);
	if (agent == 0) {
		pid_t p;

		_exit(ocf_daemon_start(&d, &p) == 0 ? 0 : 1);
	}
	assert_int_equal(waitpid(agent, &st, 0), agent);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(ocf_pidfile_read(d.pidfile, &pid), 0);
	usleep(50000);
	assert_true(ocf_pid_runs(pid, argv[0]));
	t0 = ocf_now();
	assert_int_equal(ocf_daemon_stop(&d, SIGTERM, t0 + 3000000, t0 + 5000000), 0);
	assert_false(ocf_pid_alive(pid));
}

static void test_exec_failure(void **state)
{
	char *argv[] = { "/nonexistent/daemon", NULL };
	struct ocf_daemon d = { .binary = argv[0],
		.argv = argv,
		.envp = env,
		.pidfile = path_in("missing.pid"),
		.logfile = path_in("missing.log") };
	pid_t pid;

	(void)state;
	assert_int_equal(ocf_daemon_start(&d, &pid), -ENOENT);
	assert_int_equal(access(d.pidfile, F_OK), -1);
}

static void test_run(void **state)
{
	const char *ok[] = { "/bin/sh", "-c", "echo out; echo err >&2; exit 3", NULL };
	const char *slow[] = { "/bin/sleep", "10", NULL };
	const char *missing[] = { "/nonexistent/x", NULL };
	struct cpha_run_result r;
	char line[64];
	uint64_t t0;

	(void)state;
	assert_int_equal(ocf_run(ok, 5000000, &r), 0);
	assert_true(r.exited);
	assert_int_equal(r.exit_code, 3);
	assert_string_equal(r.out, "out\n");
	assert_string_equal(r.err, "err\n");
	ocf_first_line(r.err, line, sizeof(line));
	assert_string_equal(line, "err");
	cpha_run_free(&r);

	t0 = ocf_now();
	assert_int_equal(ocf_run(slow, 200000, &r), 0);
	assert_true(r.timed_out);
	assert_true(ocf_now() - t0 < 3000000);
	cpha_run_free(&r);

	assert_int_equal(ocf_run(missing, 1000000, &r), -ENOENT);

	ocf_first_line("\n\n  \nsecond\nthird", line, sizeof(line));
	assert_string_equal(line, "second");
	ocf_first_line("", line, sizeof(line));
	assert_string_equal(line, "");
}

static void test_tail_and_mkdir(void **state)
{
	char line[64];
	struct stat st;

	(void)state;
	write_file(path_in("log"), "first\nsecond\nlast line\n\n", 0644);
	ocf_tail_line(path_in("log"), 0, line, sizeof(line));
	assert_string_equal(line, "last line");
	assert_int_equal(ocf_file_size(path_in("log")), 24);
	/* nothing written since the offset: no stale line from an earlier run */
	ocf_tail_line(path_in("log"), 24, line, sizeof(line));
	assert_string_equal(line, "");
	ocf_tail_line(path_in("log"), 6, line, sizeof(line));
	assert_string_equal(line, "last line");
	ocf_tail_line(path_in("nolog"), 0, line, sizeof(line));
	assert_string_equal(line, "");
	assert_int_equal(ocf_file_size(path_in("nolog")), 0);
	assert_int_equal(ocf_mkdir_p(path_in("a/b/c"), 0750), 0);
	assert_int_equal(stat(path_in("a/b/c"), &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(ocf_mkdir_p(path_in("a/b/c"), 0750), 0); /* again: fine */
	write_file(path_in("file"), "x", 0644);
	assert_int_equal(ocf_mkdir_p(path_in("file/sub"), 0750), -ENOTDIR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pidfile),
		cmocka_unit_test(test_alive_and_zombie),
		cmocka_unit_test(test_start_match_stop),
		cmocka_unit_test(test_recycled_pid),
		cmocka_unit_test(test_script_match),
		cmocka_unit_test(test_stop_escalates),
		cmocka_unit_test(test_survives_agent),
		cmocka_unit_test(test_exec_failure),
		cmocka_unit_test(test_run),
		cmocka_unit_test(test_tail_and_mkdir),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
