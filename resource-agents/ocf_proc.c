/* Detached daemons, pid files, process matching, stop, commands. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "log.h"
#include "ocf_proc.h"
#include "spawn.h"

static void sleep_usec(uint64_t usec)
{
	struct timespec ts = { .tv_sec = (time_t)(usec / 1000000ULL),
		.tv_nsec = (long)(usec % 1000000ULL) * 1000L };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

static int read_small(const char *path, char *buf, size_t len, size_t *got)
{
	ssize_t n;
	size_t off = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd == -1)
		return -errno;
	while (off + 1 < len) {
		n = read(fd, buf + off, len - 1 - off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	close(fd);
	buf[off] = '\0';
	*got = off;
	return 0;
}

int ocf_pidfile_read(const char *path, pid_t *pid)
{
	char buf[64], *end;
	size_t got;
	long v;
	int r = read_small(path, buf, sizeof(buf), &got);

	if (r < 0)
		return r;
	errno = 0;
	v = strtol(buf, &end, 10);
	while (*end == '\n' || *end == ' ' || *end == '\r')
		end++;
	if (errno || end == buf || *end || v <= 1 || v > INT_MAX)
		return -EINVAL;
	*pid = (pid_t)v;
	return 0;
}

int ocf_pidfile_write(const char *path, pid_t pid)
{
	char buf[32];
	int len = snprintf(buf, sizeof(buf), "%d\n", (int)pid);

	return cpha_write_file_atomic(path, buf, (size_t)len, 0644, (uid_t)-1, (gid_t)-1);
}

bool ocf_pid_alive(pid_t pid)
{
	char path[64], buf[512], *paren;
	size_t got;

	if (pid <= 0 || (kill(pid, 0) == -1 && errno == ESRCH))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_small(path, buf, sizeof(buf), &got) < 0)
		return false;
	/* "pid (comm) S ...": comm may hold spaces and parentheses */
	paren = strrchr(buf, ')');
	if (!paren || paren[1] != ' ')
		return true;
	return paren[2] != 'Z' && paren[2] != 'X';
}

static bool same_file(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];

	if (strcmp(a, b) == 0)
		return true;
	if (!realpath(a, ra) || !realpath(b, rb))
		return false;
	return strcmp(ra, rb) == 0;
}

bool ocf_pid_runs(pid_t pid, const char *binary)
{
	char path[64], exe[PATH_MAX], cmd[8192];
	const char *deleted = " (deleted)";
	size_t got = 0, dl = strlen(deleted), off;
	ssize_t n;
	int i;

	if (!binary || !ocf_pid_alive(pid))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		if ((size_t)n > dl && strcmp(exe + n - dl, deleted) == 0)
			exe[n - dl] = '\0';
		if (same_file(exe, binary))
			return true;
	}
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	/* while the process is between two execs (env starting an
	 * interpreter), its command line reads empty for a moment: a monitor
	 * must not call that "not running" */
	for (i = 0; i < 20; i++) {
		if (read_small(path, cmd, sizeof(cmd), &got) == 0 && got > 0)
			break;
		if (!ocf_pid_alive(pid))
			return false;
		usleep(1000);
	}
	if (got == 0)
		return false;
	/* argv[0..2]: "python3 /usr/bin/kube-apiserver ...", or "/usr/bin/env python3 SCRIPT"
	 * for the moment env has not exec'd the interpreter yet; the exe link
	 * changes at each exec too, so it is read again here */
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		if (same_file(exe, binary))
			return true;
	}
	for (i = 0, off = 0; i < 3 && off < got; i++) {
		if (cmd[off] && same_file(cmd + off, binary))
			return true;
		off += strlen(cmd + off) + 1;
	}
	return false;
}

int ocf_mkdir_p(const char *path, mode_t mode)
{
	char buf[PATH_MAX], *p;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) == -1 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, mode) == -1 && errno != EEXIST)
		return -errno;
	return 0;
}

int ocf_state_read(const char *path, struct ocf_strv *argv)
{
	char buf[65536];
	size_t got, off;
	int r = read_small(path, buf, sizeof(buf), &got);

	if (r < 0)
		return r;
	for (off = 0; off < got; off += strlen(buf + off) + 1) {
		r = ocf_strv_push(argv, buf + off);
		if (r < 0)
			return r;
	}
	return 0;
}

static int state_write(const char *path, char *const *argv)
{
	char buf[65536];
	size_t off = 0, len;

	for (; *argv; argv++) {
		len = strlen(*argv) + 1;
		if (off + len > sizeof(buf))
			return -E2BIG;
		memcpy(buf + off, *argv, len);
		off += len;
	}
	return cpha_write_file_atomic(path, buf, off, 0644, (uid_t)-1, (gid_t)-1);
}

/* ------------------------------------------------------------- start -- */

/* In the child: everything up to exec. Reports errno on the pipe. */
static void child_exec(const struct ocf_daemon *d, int errfd)
{
	struct sigaction sa = { .sa_handler = SIG_DFL };
	sigset_t all;
	int fd, sig, e;
	DIR *dir;
	struct dirent *de;

	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	for (sig = 1; sig < NSIG; sig++)
		sigaction(sig, &sa, NULL);
	if (setsid() == -1)
		goto fail;
	fd = open("/dev/null", O_RDONLY | O_NOCTTY);
	if (fd == -1 || dup2(fd, 0) == -1)
		goto fail;
	if (fd > 2)
		close(fd);
	fd = open(d->logfile ? d->logfile : "/dev/null",
		O_WRONLY | O_CREAT | O_APPEND | O_NOCTTY | O_CLOEXEC, 0640);
	if (fd == -1 || dup2(fd, 1) == -1 || dup2(fd, 2) == -1)
		goto fail;
	if (fd > 2)
		close(fd);
	/* close everything else but the error pipe (close-on-exec) */
	dir = opendir("/proc/self/fd");
	if (dir) {
		int dfd = dirfd(dir);

		while ((de = readdir(dir))) {
			fd = atoi(de->d_name);
			if (fd > 2 && fd != dfd && fd != errfd)
				close(fd);
		}
		closedir(dir);
	}
	umask(022);
	if (chdir("/") == -1)
		goto fail;
	execve(d->binary, d->argv, d->envp);
fail:
	e = errno;
	while (write(errfd, &e, sizeof(e)) == -1 && errno == EINTR)
		;
	_exit(127);
}

int ocf_daemon_start(const struct ocf_daemon *d, pid_t *pid)
{
	int pfd[2], e = 0, r;
	ssize_t n;
	pid_t child;

	if (pipe2(pfd, O_CLOEXEC) == -1)
		return -errno;
	child = fork();
	if (child == -1) {
		r = -errno;
		close(pfd[0]);
		close(pfd[1]);
		return r;
	}
	if (child == 0) {
		close(pfd[0]);
		child_exec(d, pfd[1]);
	}
	close(pfd[1]);
	do
		n = read(pfd[0], &e, sizeof(e));
	while (n == -1 && errno == EINTR);
	close(pfd[0]);
	if (n == (ssize_t)sizeof(e)) {
		/* exec failed: reap the child, report why */
		while (waitpid(child, NULL, 0) == -1 && errno == EINTR)
			;
		return -e;
	}
	r = ocf_pidfile_write(d->pidfile, child);
	if (r == 0 && d->statefile)
		r = state_write(d->statefile, d->argv);
	if (r < 0) {
		log_err("%s: %s; stopping the daemon just started (pid %d)", d->pidfile,
			strerror(-r), (int)child);
		kill(child, SIGKILL);
		while (waitpid(child, NULL, 0) == -1 && errno == EINTR)
			;
		unlink(d->pidfile);
		return r;
	}
	*pid = child;
	return 0;
}

int ocf_daemon_running(const struct ocf_daemon *d, pid_t *pid)
{
	struct ocf_strv saved = { 0 };
	const char *binary = d->binary;
	pid_t p;
	int running;

	if (ocf_pidfile_read(d->pidfile, &p) < 0)
		return 0;
	if (d->statefile && ocf_state_read(d->statefile, &saved) == 0 && saved.n > 0)
		binary = saved.v[0];
	running = ocf_pid_runs(p, binary) ? 1 : 0;
	if (!running && ocf_pid_alive(p))
		log_debug("pid file %s names pid %d, which does not run %s (a recycled pid)",
			d->pidfile, (int)p, binary);
	ocf_strv_free(&saved);
	if (running)
		*pid = p;
	return running;
}

int ocf_pid_wait_gone(pid_t pid, uint64_t until_usec, int *status)
{
	uint64_t delay = 20000;
	struct timespec ts;
	uint64_t now;
	pid_t w;
	int st;

	if (status)
		*status = -1;
	for (;;) {
		w = waitpid(pid, &st, WNOHANG);
		if (w == pid) {
			if (status)
				*status = st;
			return 0;
		}
		if (w == -1 && errno == ECHILD && !ocf_pid_alive(pid))
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
		if (now >= until_usec)
			return -ETIMEDOUT;
		sleep_usec(delay < until_usec - now ? delay : until_usec - now);
		if (delay < 200000)
			delay *= 2;
	}
}

bool ocf_pgrp_alive(pid_t pgid)
{
	char path[64], buf[512], *p, state;
	struct dirent *de;
	bool found = false;
	size_t got;
	long grp;
	DIR *d;

	if (pgid <= 0 || kill(-pgid, 0) == -1)
		return false;
	d = opendir("/proc");
	if (!d)
		return true;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%.20s/stat", de->d_name);
		if (read_small(path, buf, sizeof(buf), &got) < 0)
			continue;
		/* "pid (comm) state ppid pgrp ..." */
		p = strrchr(buf, ')');
		if (p && sscanf(p + 1, " %c %*d %ld", &state, &grp) == 2 && grp == pgid &&
			state != 'Z' && state != 'X')
			found = true;
	}
	closedir(d);
	return found;
}

/* Kill what is left of a process group whose leader is gone. The group id
 * cannot be reused while members exist, so this never hits a stranger. */
static void kill_group_leftovers(pid_t pgid, uint64_t until_usec)
{
	if (!ocf_pgrp_alive(pgid))
		return;
	log_warn("process group %d outlived its leader; killing it", (int)pgid);
	kill(-pgid, SIGKILL);
	while (ocf_pgrp_alive(pgid) && ocf_now() < until_usec)
		sleep_usec(20000);
}

int ocf_daemon_stop(
	const struct ocf_daemon *d, int sig, uint64_t kill_at_usec, uint64_t deadline_usec)
{
	pid_t pid;
	int r;

	if (!ocf_daemon_running(d, &pid))
		goto gone;
	log_info("stopping pid %d with %s", (int)pid, sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
	if (kill(pid, sig) == -1 && errno != ESRCH)
		return -errno;
	r = ocf_pid_wait_gone(pid, kill_at_usec, NULL);
	if (r < 0) {
		log_warn("pid %d still running at the end of the stop budget; SIGKILL", (int)pid);
		if (getpgid(pid) == pid)
			kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		r = ocf_pid_wait_gone(pid, deadline_usec, NULL);
		if (r < 0)
			return r;
	}
	if (getpgid(pid) == -1)
		kill_group_leftovers(pid, deadline_usec);
gone:
	unlink(d->pidfile);
	if (d->statefile)
		unlink(d->statefile);
	return 0;
}

off_t ocf_file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : 0;
}

void ocf_tail_text(const char *path, off_t from, char *buf, size_t len)
{
	off_t size, at;
	ssize_t n;
	char *nl;
	int fd;

	if (len)
		buf[0] = '\0';
	if (len < 2)
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd == -1)
		return;
	size = lseek(fd, 0, SEEK_END);
	at = size > (off_t)len - 1 ? size - (off_t)len + 1 : 0;
	if (at < from)
		at = from;
	n = at < size ? pread(fd, buf, (size_t)(size - at), at) : 0;
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	/* cut inside a line: drop its tail end, keep whole lines */
	if (at > from && at > 0 && (nl = strchr(buf, '\n')) && nl[1])
		memmove(buf, nl + 1, strlen(nl + 1) + 1);
}

void ocf_tail_line(const char *path, off_t from, char *buf, size_t len)
{
	char chunk[4096], *end, *start;

	buf[0] = '\0';
	ocf_tail_text(path, from, chunk, sizeof(chunk));
	end = chunk + strlen(chunk);
	while (end > chunk && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
		*--end = '\0';
	start = strrchr(chunk, '\n');
	start = start ? start + 1 : chunk;
	snprintf(buf, len, "%s", start);
}

void ocf_first_line(const char *text, char *buf, size_t len)
{
	size_t n;

	buf[0] = '\0';
	while (text && *text) {
		text += strspn(text, " \t\r\n");
		n = strcspn(text, "\r\n");
		if (n) {
			snprintf(buf, len, "%.*s", (int)n, text);
			return;
		}
	}
}

/* --------------------------------------------------------------- run -- */

int ocf_run(const char *const *argv, uint64_t timeout_usec, struct cpha_run_result *res)
{
	struct cpha_spawn_opts o = { .argv = argv,
		.timeout_usec = timeout_usec ? timeout_usec : 1 };

	return cpha_run(&o, res);
}
