/* Running fence-agents: see agent.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "spawn.h"

#define SECRET_MAX 4096
#define SECRETS    16 /* secret values masked per run */

static const char *const sbin_dirs[] = { "/usr/sbin/", "/sbin/", "/usr/local/sbin/" };

/* Read a secret file: its content without one trailing newline. */
static int read_secret(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd, e;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	e = errno;
	close(fd);
	if (n < 0)
		return -e;
	if ((size_t)n == len - 1)
		return -EFBIG;
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	if (strchr(buf, '\n'))
		return -EINVAL; /* one line: stdin is line-oriented */
	return 0;
}

static bool overridden(const struct fenced_use *use, const char *key)
{
	size_t i;

	for (i = 0; use && i < use->nparams; i++)
		if (strcmp(use->params[i].key, key) == 0)
			return true;
	return false;
}

static int put_params(const struct fenced_param *p, size_t n, const struct fenced_use *skip_if,
	struct cpha_buf *out, char *why, size_t whylen)
{
	char secret[SECRET_MAX];
	size_t i;
	int r;

	for (i = 0; i < n; i++) {
		if (skip_if && overridden(skip_if, p[i].key))
			continue;
		if (!p[i].from_file) {
			r = cpha_buf_printf(out, "%s=%s\n", p[i].key, p[i].value);
		} else {
			r = read_secret(p[i].value, secret, sizeof(secret));
			if (r < 0) {
				snprintf(why, whylen, "%s_file %s: %s", p[i].key, p[i].value,
					r == -EINVAL  ? "more than one line"
					: r == -EFBIG ? "too long"
						      : strerror(-r));
				return r;
			}
			r = cpha_buf_printf(out, "%s=%s\n", p[i].key, secret);
			explicit_bzero(secret, sizeof(secret));
		}
		if (r < 0) {
			snprintf(why, whylen, "out of memory");
			return r;
		}
	}
	return 0;
}

int fenced_agent_input(const struct fenced_device *dv, const struct fenced_use *use,
	const char *action, struct cpha_buf *out, char *why, size_t whylen)
{
	int r;

	r = cpha_buf_printf(out, "action=%s\n", action);
	if (r < 0) {
		snprintf(why, whylen, "out of memory");
		return r;
	}
	r = put_params(dv->params, dv->nparams, use, out, why, whylen);
	if (r == 0 && use)
		r = put_params(use->params, use->nparams, NULL, out, why, whylen);
	return r;
}

struct fenced_agent_run {
	struct cpha_spawn *spawn;
	fenced_agent_done_fn done;
	void *ud;
	char *secrets[SECRETS]; /* the values to mask in messages */
	size_t nsecrets;
};

static void run_free(struct fenced_agent_run *run)
{
	size_t i;

	for (i = 0; i < run->nsecrets; i++) {
		explicit_bzero(run->secrets[i], strlen(run->secrets[i]));
		free(run->secrets[i]);
	}
	free(run);
}

/* The last non-empty line of text, with the run's secrets masked. */
static void last_line(const struct fenced_agent_run *run, const char *text, char *out, size_t len)
{
	const char *end, *start;
	char line[512], *hit;
	size_t i, n;

	out[0] = '\0';
	if (!text)
		return;
	end = text + strlen(text);
	while (end > text && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	for (start = end; start > text && start[-1] != '\n'; start--)
		;
	n = (size_t)(end - start) < sizeof(line) - 1 ? (size_t)(end - start) : sizeof(line) - 1;
	memcpy(line, start, n);
	line[n] = '\0';
	for (i = 0; i < run->nsecrets; i++) {
		size_t sl = strlen(run->secrets[i]);

		while (sl && (hit = strstr(line, run->secrets[i])) != NULL) {
			memmove(hit + 3, hit + sl, strlen(hit + sl) + 1);
			memcpy(hit, "***", 3);
		}
	}
	snprintf(out, len, "%.*s", (int)(len - 1), line);
}

static void on_agent(void *ud, const struct cpha_spawn_result *sr)
{
	struct fenced_agent_run *run = ud;
	struct fenced_agent_result r = { 0 };
	char line[200];

	r.exit_code = sr->exited ? sr->exit_code : -1;
	r.ok = sr->exited && sr->exit_code == 0;
	r.timed_out = sr->timed_out;
	last_line(run, sr->err && sr->err[0] ? sr->err : sr->out, line, sizeof(line));
	if (r.timed_out)
		snprintf(r.msg, sizeof(r.msg), "killed at the timeout%s%s", line[0] ? ": " : "",
			line);
	else if (!sr->exited)
		snprintf(r.msg, sizeof(r.msg), "killed by signal %d", sr->signo);
	else
		snprintf(r.msg, sizeof(r.msg), "exit status %d%s%s", sr->exit_code,
			line[0] ? ": " : "", line);
	run->spawn = NULL;
	run->done(run->ud, &r);
	run_free(run);
}

static void keep_secrets(struct fenced_agent_run *run, const struct fenced_param *p, size_t n)
{
	char secret[SECRET_MAX];
	size_t i;

	for (i = 0; i < n && run->nsecrets < SECRETS; i++)
		if (p[i].from_file && read_secret(p[i].value, secret, sizeof(secret)) == 0) {
			if (secret[0])
				run->secrets[run->nsecrets++] = strdup(secret);
			if (run->nsecrets && !run->secrets[run->nsecrets - 1])
				run->nsecrets--;
			explicit_bzero(secret, sizeof(secret));
		}
}

int fenced_agent_run(sd_event *e, const struct fenced_device *dv, const struct fenced_use *use,
	const char *action, uint64_t timeout, fenced_agent_done_fn done, void *ud,
	struct fenced_agent_run **out, struct fenced_agent_result *r)
{
	const char *argv[2] = { dv->agent, NULL };
	struct cpha_spawn_opts o = { .argv = argv, .timeout_usec = timeout };
	struct fenced_agent_run *run;
	struct cpha_buf in = { 0 };
	char path[512];
	size_t i;
	int rc;

	memset(r, 0, sizeof(*r));
	r->exit_code = -1;
	if (dv->agent[0] != '/') {
		for (i = 0; i < sizeof(sbin_dirs) / sizeof(sbin_dirs[0]); i++) {
			snprintf(path, sizeof(path), "%s%s", sbin_dirs[i], dv->agent);
			if (access(path, X_OK) == 0) {
				argv[0] = path;
				break;
			}
		}
	}
	rc = fenced_agent_input(dv, use, action, &in, r->msg, sizeof(r->msg));
	run = rc == 0 ? calloc(1, sizeof(*run)) : NULL;
	if (rc == 0 && !run) {
		rc = -ENOMEM;
		snprintf(r->msg, sizeof(r->msg), "out of memory");
	}
	if (rc == 0) {
		run->done = done;
		run->ud = ud;
		keep_secrets(run, dv->params, dv->nparams);
		if (use)
			keep_secrets(run, use->params, use->nparams);
		o.stdin_text = in.data;
		o.stdin_len = in.len;
		rc = cpha_spawn(e, &o, on_agent, run, &run->spawn);
		if (rc < 0) {
			snprintf(r->msg, sizeof(r->msg), "%s: %s", dv->agent,
				rc == -ENOENT ? "not installed" : strerror(-rc));
			run_free(run);
			run = NULL;
		}
	}
	if (in.data)
		explicit_bzero(in.data, in.cap);
	cpha_buf_free(&in);
	if (out)
		*out = run;
	return rc;
}

void fenced_agent_cancel(struct fenced_agent_run *run)
{
	if (!run)
		return;
	if (run->spawn)
		cpha_spawn_cancel(run->spawn);
	run_free(run);
}

/* ---- a level ---- */

struct fenced_level_run {
	sd_event *e;
	const struct fenced_config *c;
	const struct fenced_level *lv;
	bool split;     /* reboot as all off, then all on */
	unsigned phase; /* split: 0 off, 1 on */
	size_t next;    /* the device running or to run */
	const char *action;
	struct fenced_agent_run *cur;
	fenced_agent_done_fn done;
	void *ud;
};

static int level_step(struct fenced_level_run *lr, struct fenced_agent_result *r);

static void on_level_agent(void *ud, const struct fenced_agent_result *ar)
{
	struct fenced_level_run *lr = ud;
	const struct fenced_use *u = &lr->lv->uses[lr->next];
	struct fenced_agent_result r = *ar;

	lr->cur = NULL;
	if (!ar->ok) {
		snprintf(r.msg, sizeof(r.msg), "%.40s (%.60s %s): %.140s",
			lr->c->devices[u->device].name, lr->c->devices[u->device].agent,
			lr->split ? (lr->phase ? "on" : "off") : lr->action, ar->msg);
		lr->done(lr->ud, &r);
		free(lr);
		return;
	}
	lr->next++;
	if (lr->next == lr->lv->nuses && lr->split && lr->phase == 0) {
		lr->phase = 1;
		lr->next = 0;
	}
	if (lr->next == lr->lv->nuses) {
		lr->done(lr->ud, &r);
		free(lr);
		return;
	}
	if (level_step(lr, &r) < 0) {
		lr->done(lr->ud, &r);
		free(lr);
	}
}

static int level_step(struct fenced_level_run *lr, struct fenced_agent_result *r)
{
	const struct fenced_use *u = &lr->lv->uses[lr->next];
	const char *action = lr->split ? (lr->phase ? "on" : "off") : lr->action;

	return fenced_agent_run(lr->e, &lr->c->devices[u->device], u, action,
		lr->c->global.agent_timeout, on_level_agent, lr, &lr->cur, r);
}

int fenced_level_run(sd_event *e, const struct fenced_config *c, const struct fenced_level *lv,
	const char *action, fenced_agent_done_fn done, void *ud, struct fenced_level_run **out,
	struct fenced_agent_result *r)
{
	struct fenced_level_run *lr = calloc(1, sizeof(*lr));
	int rc;

	memset(r, 0, sizeof(*r));
	if (!lr || !lv->nuses) {
		free(lr);
		snprintf(r->msg, sizeof(r->msg), lr ? "the level has no device" : "out of memory");
		return lr ? -EINVAL : -ENOMEM;
	}
	lr->e = e;
	lr->c = c;
	lr->lv = lv;
	lr->action = action;
	lr->split = strcmp(action, "reboot") == 0 && lv->nuses > 1;
	lr->done = done;
	lr->ud = ud;
	rc = level_step(lr, r);
	if (rc < 0) {
		free(lr);
		lr = NULL;
	}
	if (out)
		*out = lr;
	return rc;
}

void fenced_level_cancel(struct fenced_level_run *lr)
{
	if (!lr)
		return;
	fenced_agent_cancel(lr->cur);
	free(lr);
}
