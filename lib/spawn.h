/* Running a child process from an event loop: track scripts, notify
 * scripts, fence agents, daemons' -c checks. */
#ifndef CPHA_SPAWN_H
#define CPHA_SPAWN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <systemd/sd-event.h>

#define CPHA_SPAWN_OUTPUT_MAX (64u * 1024) /* default cap per captured stream */

struct cpha_spawn_opts {
	const char *const *argv; /* argv[0] is a path, or a name looked up in PATH */
	const char *const *envp; /* NULL: inherit this process's environment */
	const char *stdin_text;  /* written to the child's stdin; NULL: /dev/null */
	size_t stdin_len;        /* bytes of stdin_text; 0: strlen(stdin_text) */
	uint64_t timeout_usec;   /* 0: none; else the process group is killed then */
	const char *user;        /* run as this user (and its groups); NULL: as we are */
	const char *group;       /* with user: this primary group (name or number)
				  * instead of the user's */
	int only_primary;        /* with user: no supplementary groups */
	size_t output_max;       /* bytes kept of stdout and of stderr; 0: default */
};

struct cpha_spawn_result {
	pid_t pid;
	int exited; /* the child called exit(): exit_code is valid */
	int exit_code;
	int signo;       /* the child was killed by this signal, else 0 */
	int timed_out;   /* the timeout fired and the group was killed */
	const char *out; /* captured stdout, NUL-terminated */
	size_t out_len;
	int out_truncated; /* more than output_max bytes were written */
	const char *err;   /* captured stderr, NUL-terminated */
	size_t err_len;
	int err_truncated;
};

/* Called once, from the event loop, when the child has exited and its output
 * is read. The result and the handle are freed when it returns. A NULL
 * done runs the child and reaps it with nobody told (notify scripts). */
typedef void (*cpha_spawn_done_fn)(void *userdata, const struct cpha_spawn_result *r);

struct cpha_spawn;

/* Start argv in its own process group with the signal mask and dispositions
 * reset, every fd but 0-2 closed, stdout and stderr captured. Returns 0
 * (and the handle in *out when out is not NULL), or a negative errno when
 * the program could not be started at all (-ENOENT, -EACCES, unknown user
 * -ESRCH), in which case done is never called. */
int cpha_spawn(sd_event *e, const struct cpha_spawn_opts *o, cpha_spawn_done_fn done,
	void *userdata, struct cpha_spawn **out);

/* The child's process id (also its process group id). */
pid_t cpha_spawn_pid(const struct cpha_spawn *s);

/* Kill the child's process group with SIGKILL, reap the child and free the
 * handle without calling done (shutdown, reload). */
void cpha_spawn_cancel(struct cpha_spawn *s);

/* What cpha_run() gives back; out and err are owned (cpha_run_free). */
struct cpha_run_result {
	int exited, exit_code, signo, timed_out;
	char *out, *err;
};

/* Run a child to its end on a private event loop (for commands, not
 * daemons): the same options and limits as cpha_spawn(). Returns 0 with res
 * filled (whatever the child's status), or a negative errno when it could
 * not be started. */
int cpha_run(const struct cpha_spawn_opts *o, struct cpha_run_result *res);

void cpha_run_free(struct cpha_run_result *res);

#endif
