#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <linux/close_range.h>
#include <unistd.h>

#include "buf.h"
#include "event.h"
#include "spawn.h"

#define SPAWN_DRAIN_USEC 200000ULL /* after exit, how long a grandchild may hold our pipes */
#define SPAWN_GROUPS_MAX 256       /* supplementary groups kept for a user */

extern char **environ;

struct spawn_stream {
	int fd;
	sd_event_source *src;
	struct cpha_buf buf;
	int truncated;
};

struct cpha_spawn {
	sd_event *e;
	pid_t pid;
	cpha_spawn_done_fn done;
	void *userdata;
	size_t output_max;
	sd_event_source *child, *timer, *drain;
	struct spawn_stream out, err;
	int in_fd;
	sd_event_source *in_src;
	char *in_text; /* our copy of the stdin text */
	size_t in_len, in_off;
	int exited, exit_code, signo, timed_out;
};

struct spawn_cred {
	int set;
	uid_t uid;
	gid_t gid;
	gid_t groups[SPAWN_GROUPS_MAX];
	int ngroups;
};

static void stream_close(struct spawn_stream *st)
{
	st->src = sd_event_source_disable_unref(st->src);
	if (st->fd != -1)
		close(st->fd);
	st->fd = -1;
}

static void stdin_close(struct cpha_spawn *s)
{
	s->in_src = sd_event_source_disable_unref(s->in_src);
	if (s->in_fd != -1)
		close(s->in_fd);
	s->in_fd = -1;
}

static void spawn_free(struct cpha_spawn *s)
{
	stream_close(&s->out);
	stream_close(&s->err);
	stdin_close(s);
	sd_event_source_disable_unref(s->child);
	sd_event_source_disable_unref(s->timer);
	sd_event_source_disable_unref(s->drain);
	cpha_buf_free(&s->out.buf);
	cpha_buf_free(&s->err.buf);
	free(s->in_text);
	sd_event_unref(s->e);
	free(s);
}

static void spawn_finish(struct cpha_spawn *s)
{
	struct cpha_spawn_result r = { 0 };

	r.pid = s->pid;
	r.exited = s->signo == 0;
	r.exit_code = s->exit_code;
	r.signo = s->signo;
	r.timed_out = s->timed_out;
	r.out = s->out.buf.data ? s->out.buf.data : "";
	r.out_len = s->out.buf.len;
	r.out_truncated = s->out.truncated;
	r.err = s->err.buf.data ? s->err.buf.data : "";
	r.err_len = s->err.buf.len;
	r.err_truncated = s->err.truncated;
	if (s->done)
		s->done(s->userdata, &r);
	spawn_free(s);
}

static void maybe_finish(struct cpha_spawn *s)
{
	if (s->exited && s->out.fd == -1 && s->err.fd == -1)
		spawn_finish(s);
}

static int on_output(sd_event_source *src, int fd, uint32_t revents, void *userdata)
{
	struct cpha_spawn *s = userdata;
	struct spawn_stream *st = src == s->out.src ? &s->out : &s->err;
	char chunk[4096];
	ssize_t n;
	size_t keep;

	(void)fd;
	(void)revents;
	for (;;) {
		n = read(st->fd, chunk, sizeof(chunk));
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return 0;
		if (n <= 0)
			break;
		keep = (size_t)n;
		if (st->buf.len + keep > s->output_max) {
			keep = s->output_max - st->buf.len;
			st->truncated = 1;
		}
		if (keep && cpha_buf_append(&st->buf, chunk, keep) < 0)
			st->truncated = 1;
	}
	stream_close(st);
	maybe_finish(s);
	return 0;
}

static int on_stdin(sd_event_source *src, int fd, uint32_t revents, void *userdata)
{
	struct cpha_spawn *s = userdata;
	ssize_t n;

	(void)src;
	(void)revents;
	while (s->in_off < s->in_len) {
		n = write(fd, s->in_text + s->in_off, s->in_len - s->in_off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return 0;
		if (n == -1)
			break; /* EPIPE: the child does not read its input */
		s->in_off += (size_t)n;
	}
	stdin_close(s);
	return 0;
}

static int on_drain(sd_event_source *src, uint64_t usec, void *userdata)
{
	struct cpha_spawn *s = userdata;

	(void)src;
	(void)usec;
	/* a process left in the group still holds the pipes */
	kill(-s->pid, SIGKILL);
	stream_close(&s->out);
	stream_close(&s->err);
	maybe_finish(s);
	return 0;
}

static int on_child(sd_event_source *src, const siginfo_t *si, void *userdata)
{
	struct cpha_spawn *s = userdata;

	(void)src;
	s->exited = 1;
	if (si->si_code == CLD_EXITED)
		s->exit_code = si->si_status;
	else
		s->signo = si->si_status; /* CLD_KILLED or CLD_DUMPED */
	s->timer = sd_event_source_disable_unref(s->timer);
	stdin_close(s);
	if (s->out.fd != -1 || s->err.fd != -1)
		sd_event_add_time_relative(
			s->e, &s->drain, CLOCK_MONOTONIC, SPAWN_DRAIN_USEC, 0, on_drain, s);
	maybe_finish(s);
	return 0;
}

static int on_timeout(sd_event_source *src, uint64_t usec, void *userdata)
{
	struct cpha_spawn *s = userdata;

	(void)src;
	(void)usec;
	s->timed_out = 1;
	kill(-s->pid, SIGKILL);
	return 0;
}

static int lookup_group(const char *group, gid_t *gid)
{
	struct group gr, *res = NULL;
	char buf[4096], *end;
	unsigned long v;
	int r;

	r = getgrnam_r(group, &gr, buf, sizeof(buf), &res);
	if (r == 0 && res) {
		*gid = gr.gr_gid;
		return 0;
	}
	errno = 0;
	v = strtoul(group, &end, 10);
	if (group[0] >= '0' && group[0] <= '9' && !*end && !errno && v < (gid_t)-1) {
		*gid = (gid_t)v;
		return 0;
	}
	return r ? -r : -ESRCH;
}

static int lookup_user(const struct cpha_spawn_opts *o, struct spawn_cred *c)
{
	const char *user = o->user;
	struct passwd pw, *res = NULL;
	char buf[4096];
	int r;

	r = getpwnam_r(user, &pw, buf, sizeof(buf), &res);
	if (r)
		return -r;
	if (!res)
		return -ESRCH;
	c->set = 1;
	c->uid = pw.pw_uid;
	c->gid = pw.pw_gid;
	if (o->group) {
		r = lookup_group(o->group, &c->gid);
		if (r < 0)
			return r;
	}
	c->ngroups = SPAWN_GROUPS_MAX;
	if (o->only_primary) {
		c->groups[0] = c->gid;
		c->ngroups = 1;
	} else if (getgrouplist(user, c->gid, c->groups, &c->ngroups) == -1) {
		c->ngroups = 0;
	}
	return 0;
}

/* In the child between fork and exec: only async-signal-safe calls. */
static void __attribute__((noreturn)) child_exec(const struct cpha_spawn_opts *o,
	const struct spawn_cred *cred, int in_rd, int out_wr, int err_wr, int errpipe)
{
	int e, nul;

	setpgid(0, 0);
	cpha_event_reset_signals();
	nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (in_rd == -1)
		in_rd = nul;
	if (dup2(in_rd, 0) == -1 || dup2(out_wr, 1) == -1 || dup2(err_wr, 2) == -1)
		goto fail;
	close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
	if (cred->set) {
		if (setgroups((size_t)cred->ngroups, cred->groups) == -1 ||
			setgid(cred->gid) == -1 || setuid(cred->uid) == -1)
			goto fail;
	}
	execvpe(o->argv[0], (char *const *)o->argv, o->envp ? (char *const *)o->envp : environ);
fail:
	e = errno;
	while (write(errpipe, &e, sizeof(e)) == -1 && errno == EINTR)
		;
	_exit(127);
}

int cpha_spawn(sd_event *e, const struct cpha_spawn_opts *o, cpha_spawn_done_fn done,
	void *userdata, struct cpha_spawn **out)
{
	int in[2] = { -1, -1 }, so[2] = { -1, -1 }, se[2] = { -1, -1 }, ep[2] = { -1, -1 };
	struct spawn_cred cred = { 0 };
	struct cpha_spawn *s;
	sigset_t chld;
	ssize_t n;
	int r, child_errno = 0;

	if (!o->argv || !o->argv[0])
		return -EINVAL;
	if (o->user) {
		r = lookup_user(o, &cred);
		if (r < 0)
			return r;
	}
	/* sd-event child sources need SIGCHLD blocked */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &chld, NULL);

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->e = sd_event_ref(e);
	s->done = done;
	s->userdata = userdata;
	s->output_max = o->output_max ? o->output_max : CPHA_SPAWN_OUTPUT_MAX;
	s->out.fd = s->err.fd = s->in_fd = -1;
	if (o->stdin_text) {
		/* the caller's text must not have to outlive this call */
		s->in_len = o->stdin_len ? o->stdin_len : strlen(o->stdin_text);
		s->in_text = malloc(s->in_len ? s->in_len : 1);
		if (!s->in_text) {
			r = -ENOMEM;
			goto fail;
		}
		memcpy(s->in_text, o->stdin_text, s->in_len);
	}

	if ((o->stdin_text && pipe2(in, O_CLOEXEC) == -1) || pipe2(so, O_CLOEXEC) == -1 ||
		pipe2(se, O_CLOEXEC) == -1 || pipe2(ep, O_CLOEXEC) == -1) {
		r = -errno;
		goto fail;
	}
	s->pid = fork();
	if (s->pid == -1) {
		r = -errno;
		goto fail;
	}
	if (s->pid == 0)
		child_exec(o, &cred, in[0], so[1], se[1], ep[1]);

	/* also set in the parent, so a kill of the group never races the child */
	setpgid(s->pid, s->pid);
	close(ep[1]);
	ep[1] = -1;
	do
		n = read(ep[0], &child_errno, sizeof(child_errno));
	while (n == -1 && errno == EINTR);
	if (n == sizeof(child_errno)) {
		waitpid(s->pid, NULL, 0);
		r = -child_errno;
		goto fail;
	}

	s->out.fd = so[0];
	s->err.fd = se[0];
	so[0] = se[0] = -1;
	fcntl(s->out.fd, F_SETFL, O_NONBLOCK);
	fcntl(s->err.fd, F_SETFL, O_NONBLOCK);
	r = sd_event_add_child(e, &s->child, s->pid, WEXITED, on_child, s);
	if (r >= 0)
		r = sd_event_add_io(e, &s->out.src, s->out.fd, EPOLLIN, on_output, s);
	if (r >= 0)
		r = sd_event_add_io(e, &s->err.src, s->err.fd, EPOLLIN, on_output, s);
	if (r >= 0 && o->timeout_usec)
		r = sd_event_add_time_relative(
			e, &s->timer, CLOCK_MONOTONIC, o->timeout_usec, 0, on_timeout, s);
	if (r >= 0 && o->stdin_text) {
		s->in_fd = in[1];
		in[1] = -1;
		fcntl(s->in_fd, F_SETFL, O_NONBLOCK);
		r = sd_event_add_io(e, &s->in_src, s->in_fd, EPOLLOUT, on_stdin, s);
	}
	if (r < 0) {
		kill(-s->pid, SIGKILL);
		s->child = sd_event_source_disable_unref(s->child);
		waitpid(s->pid, NULL, 0);
		goto fail;
	}
	if (out)
		*out = s;
	r = 0;
	goto close_pipes;
fail:
	if (s)
		spawn_free(s);
close_pipes:
	if (in[0] != -1)
		close(in[0]);
	if (in[1] != -1)
		close(in[1]);
	if (so[0] != -1)
		close(so[0]);
	if (so[1] != -1)
		close(so[1]);
	if (se[0] != -1)
		close(se[0]);
	if (se[1] != -1)
		close(se[1]);
	if (ep[0] != -1)
		close(ep[0]);
	if (ep[1] != -1)
		close(ep[1]);
	return r;
}

pid_t cpha_spawn_pid(const struct cpha_spawn *s)
{
	return s->pid;
}

void cpha_spawn_cancel(struct cpha_spawn *s)
{
	if (!s)
		return;
	if (!s->exited) {
		kill(-s->pid, SIGKILL);
		s->child = sd_event_source_disable_unref(s->child);
		while (waitpid(s->pid, NULL, 0) == -1 && errno == EINTR)
			;
	}
	spawn_free(s);
}

struct run_state {
	bool done;
	struct cpha_run_result *res;
	int err;
};

static void run_done(void *userdata, const struct cpha_spawn_result *r)
{
	struct run_state *st = userdata;

	st->done = true;
	st->res->exited = r->exited;
	st->res->exit_code = r->exit_code;
	st->res->signo = r->signo;
	st->res->timed_out = r->timed_out;
	st->res->out = strdup(r->out ? r->out : "");
	st->res->err = strdup(r->err ? r->err : "");
	if (!st->res->out || !st->res->err)
		st->err = -ENOMEM;
}

int cpha_run(const struct cpha_spawn_opts *o, struct cpha_run_result *res)
{
	struct run_state st = { .res = res };
	sd_event *e = NULL;
	int r;

	memset(res, 0, sizeof(*res));
	r = sd_event_new(&e);
	if (r < 0)
		return r;
	r = cpha_spawn(e, o, run_done, &st, NULL);
	while (r == 0 && !st.done) {
		r = sd_event_run(e, UINT64_MAX);
		if (r > 0)
			r = 0;
	}
	sd_event_unref(e);
	if (r == 0)
		r = st.err;
	if (r < 0)
		cpha_run_free(res);
	return r;
}

void cpha_run_free(struct cpha_run_result *res)
{
	free(res->out);
	free(res->err);
	res->out = res->err = NULL;
}
