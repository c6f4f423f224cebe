/* Processes of an agent: daemons started detached with a pid file, the
 * check that a pid file still names our process (a recycled pid is not
 * ours), stop with SIGTERM then SIGKILL inside the budget, state files,
 * and short commands (lbd -c, haproxy -c) run to completion. */
#ifndef CPHA_OCF_PROC_H
#define CPHA_OCF_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ocf.h"
#include "spawn.h"

/* Read a pid file ("1234\n"). Returns 0, -ENOENT, -EINVAL (not a pid) or
 * another -errno. */
int ocf_pidfile_read(const char *path, pid_t *pid);

/* Write a pid file atomically (temporary file, then rename). */
int ocf_pidfile_write(const char *path, pid_t pid);

/* True when pid exists and is not a zombie. */
bool ocf_pid_alive(pid_t pid);

/* True when pid is alive and runs binary: /proc/PID/exe is binary (also
 * after the file was replaced: " (deleted)"), or one of argv[0..2] is (a
 * script run by an interpreter, also through /usr/bin/env). Paths are
 * compared as given and after realpath(). */
bool ocf_pid_runs(pid_t pid, const char *binary);

/* True when a process of process group pgid is alive (zombies, which
 * kill(-pgid, 0) still finds until init reaps them, do not count). */
bool ocf_pgrp_alive(pid_t pgid);

/* A daemon as an agent runs it. */
struct ocf_daemon {
	const char *binary;    /* absolute path; what ocf_pid_runs() matches */
	char *const *argv;     /* argv[0] is binary */
	char *const *envp;     /* the daemon's whole environment */
	const char *pidfile;   /* written by ocf_daemon_start() */
	const char *statefile; /* argv saved here (NUL-separated), or NULL */
	const char *logfile;   /* stdout and stderr appended here; NULL: /dev/null */
};

/* Start d detached: fork, setsid (own session and process group), stdin
 * from /dev/null, stdout and stderr to the log file, every other fd closed,
 * signals reset, cwd /, umask 022, then exec. The agent's exit does not
 * touch it. The pid file (and state file) are written before returning.
 * Returns 0 and *pid, or -errno (exec's errno when the program could not
 * be run: -ENOENT, -EACCES...). */
int ocf_daemon_start(const struct ocf_daemon *d, pid_t *pid);

/* The running daemon named by d's pid file, matched against the binary
 * saved in the state file when there is one (what was started), else
 * d->binary. Returns 1 (and *pid), 0 when not running. */
int ocf_daemon_running(const struct ocf_daemon *d, pid_t *pid);

/* Wait until pid has exited, at most until the monotonic time until_usec.
 * For our own child (start), also reaps it and stores its wait status in
 * *status when status is not NULL (else -1 there). Returns 0 when gone,
 * -ETIMEDOUT. */
int ocf_pid_wait_gone(pid_t pid, uint64_t until_usec, int *status);

/* Stop the daemon of d: sig (SIGTERM) to it, wait until kill_at_usec, then
 * SIGKILL to its process group, wait until deadline_usec. Whatever is left
 * in its process group after it exits is killed too. The pid and state
 * files are removed once it is gone. Returns 0 (also when it was not
 * running), -ETIMEDOUT when it outlived SIGKILL. */
int ocf_daemon_stop(
	const struct ocf_daemon *d, int sig, uint64_t kill_at_usec, uint64_t deadline_usec);

/* The argv saved in a state file. Returns 0, -ENOENT or -errno. */
int ocf_state_read(const char *path, struct ocf_strv *argv);

/* Last non-empty line of a text file written after byte offset from (at
 * most len - 1 bytes of it), or "": what a daemon said since it started. */
void ocf_tail_line(const char *path, off_t from, char *buf, size_t len);

/* The end of a text file written after byte offset from, at most len - 1
 * bytes of it, whole lines (a line cut by the limit is left out), or "". */
void ocf_tail_text(const char *path, off_t from, char *buf, size_t len);

/* Size of a file, 0 when it is missing. */
off_t ocf_file_size(const char *path);

/* Create a directory and its parents with mode. Returns 0 or -errno. */
int ocf_mkdir_p(const char *path, mode_t mode);

/* A command run to completion. */
/* Run argv (own process group, output captured) and wait, killing it at
 * timeout_usec. Returns 0 with *res filled, or -errno when it could not be
 * started (-ENOENT, -EACCES). Free res with cpha_run_free(). */
int ocf_run(const char *const *argv, uint64_t timeout_usec, struct cpha_run_result *res);

/* First line of text that says something (for an exit reason), into buf. */
void ocf_first_line(const char *text, char *buf, size_t len);

#endif
