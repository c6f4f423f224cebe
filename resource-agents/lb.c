/* The lbd and haproxy agents' shared code: check, start, monitor, reload. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "admin.h"
#include "buf.h"
#include "addr.h"
#include "lb.h"
#include "log.h"
#include "ocf_args.h"
#include "ocf_probe.h"

#define LB_ENV_PATH "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#define LB_TRIES    3 /* health checks before the monitor calls it failed */

struct lb_counts {
	unsigned long reloads; /* successful (lbd) or attempted (HAProxy) reloads */
	unsigned long failed;  /* HAProxy: failed reloads since the last success */
	bool known;
};

static int set_argv(struct lb *l, const char **why)
{
	const char *const *o;
	char sock[PATH_MAX + 16];
	int r;

	r = ocf_strv_push(&l->argv, l->binary);
	for (o = l->spec->start; r == 0 && *o; o++)
		r = ocf_strv_push(&l->argv, *o);
	if (r == 0)
		r = ocf_strv_push(&l->argv, "-f");
	if (r == 0)
		r = ocf_strv_push(&l->argv, l->config);
	if (r == 0 && l->master) {
		snprintf(sock, sizeof(sock), "%s,mode,600", l->master);
		r = ocf_strv_push(&l->argv, "-S");
		if (r == 0)
			r = ocf_strv_push(&l->argv, sock);
	}
	if (r == 0)
		r = ocf_split_words(ocf_get(l->c, "options"), &l->argv, why);
	return r;
}

/* The stats socket: the parameter, else the configuration's. */
static int set_socket(struct lb *l)
{
	char path[PATH_MAX];
	struct cpha_buf text = { 0 };

	if (ocf_is_set(l->c, "socket")) {
		l->socket = strdup(ocf_get(l->c, "socket"));
		return l->socket ? 0 : -ENOMEM;
	}
	/* a configuration that cannot be read names no socket: the daemon's
	 * own check will say why */
	if (cpha_buf_read_file(&text, l->config, 0, 1024 * 1024) == 0 &&
		ocf_hacfg_stats_socket(text.data, path, sizeof(path)) == 1)
		l->socket = strdup(path);
	cpha_buf_free(&text);
	return 0;
}

int lb_init(struct lb *l, struct ocf_ctx *c, const struct lb_spec *spec)
{
	const char *dir = ocf_get(c, "piddir"), *why = NULL;
	int r = 0;

	memset(l, 0, sizeof(*l));
	l->c = c;
	l->spec = spec;
	l->binary = ocf_get(c, "binary");
	l->config = ocf_get(c, "config");
	if (asprintf(&l->pidfile, "%s/%s.pid", dir, c->state_name) < 0)
		l->pidfile = NULL;
	if (asprintf(&l->statefile, "%s/%s.argv", dir, c->state_name) < 0)
		l->statefile = NULL;
	if (asprintf(&l->refused, "%s/%s.refused", dir, c->state_name) < 0)
		l->refused = NULL;
	if (spec->master_cli && asprintf(&l->master, "%s/%s.master.sock", dir, c->state_name) < 0)
		r = -ENOMEM;
	l->logfile = strdup(ocf_get(c, "logfile"));
	if (r < 0 || !l->pidfile || !l->statefile || !l->refused || !l->logfile)
		return ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
	r = set_socket(l);
	if (r == 0)
		r = ocf_strv_push(&l->envp, LB_ENV_PATH);
	if (r == 0 && ocf_state_read(l->statefile, &l->saved) < 0)
		ocf_strv_free(&l->saved);
	if (r == 0)
		r = set_argv(l, &why);
	if (r == -EINVAL)
		l->argv_error = why; /* monitor and stop go on; the others refuse */
	else if (r < 0)
		return ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
	l->d.binary = l->binary;
	l->d.argv = l->argv.v;
	l->d.envp = l->envp.v;
	l->d.pidfile = l->pidfile;
	l->d.statefile = l->statefile;
	l->d.logfile = l->logfile;
	return PCMK_OCF_OK;
}

void lb_free(struct lb *l)
{
	ocf_strv_free(&l->argv);
	ocf_strv_free(&l->saved);
	ocf_strv_free(&l->envp);
	free(l->socket);
	free(l->master);
	free(l->pidfile);
	free(l->statefile);
	free(l->refused);
	free(l->logfile);
}

/* ------------------------------------------------------------ checks -- */

/* The line of a check's output that explains the failure. */
static void check_reason(const struct cpha_run_result *res, char *buf, size_t len)
{
	const char *alert = strstr(res->err, "[ALERT]");

	if (!alert)
		alert = strstr(res->out, "[ALERT]");
	if (alert) {
		/* "[ALERT]    (1234) : config : parsing [f:13] : ..." */
		const char *rest = strstr(alert, ") : ");

		ocf_first_line(rest && rest < alert + 40 ? rest + 4 : alert, buf, len);
	} else
		ocf_first_line(res->err[0] ? res->err : res->out, buf, len);
	if (!buf[0])
		snprintf(buf, len, "exit status %d", res->exit_code);
}

/* "<binary> -c -f CONFIG": PCMK_OCF_OK or PCMK_OCF_INVALID_PARAM with why. */
static int check_config(struct lb *l, char *why, size_t len)
{
	const char *argv[16];
	struct cpha_run_result res;
	uint64_t t = ocf_left(l->c);
	size_t n = 0;
	int r, rc;

	argv[n++] = l->binary;
	for (const char *const *o = l->spec->check; *o && n < 12; o++)
		argv[n++] = *o;
	argv[n++] = "-f";
	argv[n++] = l->config;
	argv[n] = NULL;
	r = ocf_run(argv, t < 30000000ULL ? t : 30000000ULL, &res);
	if (r < 0) {
		snprintf(why, len, "cannot run %s: %s", l->binary, strerror(-r));
		return PCMK_OCF_NOT_INSTALLED;
	}
	rc = PCMK_OCF_OK;
	if (res.timed_out) {
		snprintf(why, len, "%s -c timed out", l->spec->name);
		rc = PCMK_OCF_UNKNOWN_ERROR;
	} else if (!res.exited || res.exit_code != 0) {
		check_reason(&res, why, len);
		rc = PCMK_OCF_INVALID_PARAM;
	}
	cpha_run_free(&res);
	return rc;
}

static int validate(struct lb *l)
{
	const char *why, *addr = ocf_get(l->c, "check_address");
	struct cpha_addr a;
	char reason[512];
	int rc, fd;

	if (!l->binary || l->binary[0] != '/')
		return ocf_fail(PCMK_OCF_NOT_CONFIGURED, "binary=%s is not an absolute path",
			l->binary ? l->binary : "");
	if (!l->config || l->config[0] != '/')
		return ocf_fail(PCMK_OCF_NOT_CONFIGURED, "config=%s is not an absolute path",
			l->config ? l->config : "");
	if (l->argv_error)
		return ocf_fail(PCMK_OCF_NOT_CONFIGURED, "options: %s", l->argv_error);
	if (access(l->binary, X_OK) == -1)
		return ocf_fail(
			PCMK_OCF_NOT_INSTALLED, "binary %s: %s", l->binary, strerror(errno));
	if (addr && *addr && cpha_parse_addr(addr, CPHA_ADDR_PORT_REQUIRED, &a, &why) < 0)
		return ocf_fail(PCMK_OCF_NOT_CONFIGURED, "check_address=%s: %s", addr, why);
	fd = open(l->config, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd == -1)
		return ocf_fail(
			PCMK_OCF_NOT_INSTALLED, "config %s: %s", l->config, strerror(errno));
	close(fd);
	rc = check_config(l, reason, sizeof(reason));
	if (rc != PCMK_OCF_OK)
		return ocf_fail(rc, "%s refuses %s: %s", l->spec->name, l->config, reason);
	return PCMK_OCF_OK;
}

/* ------------------------------------------------------------ health -- */

static uint64_t attempt_timeout(const struct lb *l)
{
	uint64_t left = ocf_left(l->c);

	return left < 3000000ULL ? (left ? left : 1) : 3000000ULL;
}

/* Reload counters from "show info" (lbd) or the master CLI (HAProxy). */
static int counts(struct lb *l, struct lb_counts *out)
{
	char *reply = NULL;
	const char *p;
	int r;

	memset(out, 0, sizeof(*out));
	if (l->master) {
		/* the master CLI keeps a connection open until "quit" */
		r = cpha_admin_query(l->master, "show proc;quit", attempt_timeout(l), &reply);
		/* "<pid>  master  <reloads> [failed: <n>]  <uptime>  <version>" */
		p = r == 0 ? strstr(reply, " master ") : NULL;
		if (p && sscanf(p, " master %lu [failed: %lu]", &out->reloads, &out->failed) == 2)
			out->known = true;
	} else if (l->socket) {
		r = cpha_admin_query(l->socket, "show info", attempt_timeout(l), &reply);
		p = r == 0 ? strstr(reply, "Reloads: ") : NULL;
		if (p && sscanf(p, "Reloads: %lu", &out->reloads) == 1)
			out->known = true;
	}
	free(reply);
	return out->known ? 0 : -ENOENT;
}

/* One round of checks of a running daemon. 0, or -1 with detail. */
static int health(struct lb *l, char *detail, size_t len)
{
	const char *addr = ocf_get(l->c, "check_address"), *why;
	char *reply = NULL, name[64];
	int r;

	if (l->master) {
		r = cpha_admin_query(l->master, "show proc;quit", attempt_timeout(l), &reply);
		if (r < 0) {
			snprintf(detail, len, "master CLI %s: %s", l->master, strerror(-r));
			return -1;
		}
		/* the line after "# workers" is a current worker: "<pid>  worker ..." */
		const char *w = strstr(reply, "# workers\n");
		bool ok = w && w[10] >= '0' && w[10] <= '9';

		free(reply);
		if (!ok) {
			snprintf(detail, len, "the master has no current worker");
			return -1;
		}
	}
	if (l->socket) {
		r = cpha_admin_query(l->socket, "show info", attempt_timeout(l), &reply);
		snprintf(name, sizeof(name), "Name: %s", l->spec->info_name);
		if (r < 0 || !strstr(reply, name)) {
			snprintf(detail, len, "stats socket %s: %s", l->socket,
				r < 0 ? strerror(-r) : "unexpected answer to show info");
			free(reply);
			return -1;
		}
		free(reply);
	}
	if (addr && *addr) {
		r = ocf_tcp_probe(addr, attempt_timeout(l), &why);
		if (r < 0) {
			snprintf(detail, len, "connect %s: %s", addr, why ? why : strerror(-r));
			return -1;
		}
	}
	return 0;
}

/* Until healthy, dead or out of budget. */
static int wait_ready(struct lb *l, pid_t pid)
{
	char detail[512] = "not checked yet", last[512];
	int st;

	for (;;) {
		if (!ocf_pid_alive(pid)) {
			ocf_pid_wait_gone(pid, ocf_now(), &st);
			ocf_tail_line(l->logfile, l->log_start, last, sizeof(last));
			unlink(l->pidfile);
			if (st != -1 && WIFEXITED(st))
				return ocf_fail(PCMK_OCF_UNKNOWN_ERROR,
					"%s exited with status %d during start: %s", l->spec->name,
					WEXITSTATUS(st), last[0] ? last : "(empty log)");
			return ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "%s died during start: %s",
				l->spec->name, last[0] ? last : "(empty log)");
		}
		if (health(l, detail, sizeof(detail)) == 0) {
			log_info("%s is running (pid %d)", l->spec->name, (int)pid);
			return PCMK_OCF_OK;
		}
		if (!ocf_sleep(l->c, 200000))
			return ocf_fail(PCMK_OCF_UNKNOWN_ERROR,
				"%s not ready within the start timeout: %s", l->spec->name, detail);
	}
}

/* ----------------------------------------------------------- actions -- */

static int mkdir_parent(const char *path, mode_t mode)
{
	char dir[PATH_MAX], *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	return ocf_mkdir_p(dir, mode);
}

static int start(struct lb *l)
{
	pid_t pid;
	int rc, r;

	rc = validate(l);
	if (rc != PCMK_OCF_OK)
		return rc;
	if (ocf_daemon_running(&l->d, &pid)) {
		log_info("%s already running (pid %d)", l->spec->name, (int)pid);
		return wait_ready(l, pid);
	}
	r = ocf_mkdir_p(ocf_get(l->c, "piddir"), 0755);
	if (r == 0)
		r = mkdir_parent(l->logfile, 0750);
	if (r < 0)
		return ocf_fail(PCMK_OCF_INSUFFICIENT_PRIV, "piddir or logfile directory: %s",
			strerror(-r));
	l->log_start = ocf_file_size(l->logfile);
	r = ocf_daemon_start(&l->d, &pid);
	if (r == -ENOENT || r == -EACCES || r == -ENOEXEC)
		return ocf_fail(
			PCMK_OCF_NOT_INSTALLED, "cannot run %s: %s", l->binary, strerror(-r));
	if (r < 0)
		return ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "starting %s: %s", l->binary, strerror(-r));
	unlink(l->refused);
	log_info("started %s (pid %d), log %s", l->spec->name, (int)pid, l->logfile);
	return wait_ready(l, pid);
}

/* SIGTERM (a hard stop for both: sessions are closed), SIGKILL with a
 * tenth of the budget (1 to 5 s) left. */
static int stop_until(struct lb *l, uint64_t deadline)
{
	uint64_t now = ocf_now(), left = deadline > now ? deadline - now : 0, reserve;

	reserve = ocf_kill_reserve_usec(left);
	if (ocf_daemon_stop(&l->d, SIGTERM, now + left - reserve, now + left) < 0)
		return ocf_fail(
			PCMK_OCF_UNKNOWN_ERROR, "%s still running after SIGKILL", l->spec->name);
	unlink(l->refused);
	if (l->master)
		unlink(l->master);
	return PCMK_OCF_OK;
}

static int stop(struct lb *l)
{
	return stop_until(l, ocf_now() + ocf_left(l->c));
}

static int monitor(struct lb *l)
{
	char detail[512] = "", why[512];
	pid_t pid;
	int i, fd;
	ssize_t n;

	if (!ocf_daemon_running(&l->d, &pid))
		return PCMK_OCF_NOT_RUNNING;
	for (i = 0; i < LB_TRIES; i++) {
		if (health(l, detail, sizeof(detail)) == 0)
			break;
		log_info("check %d/%d: %s", i + 1, LB_TRIES, detail);
		/* a reload in progress (HAProxy's master re-executing) is transient */
		if (i + 1 == LB_TRIES || !ocf_sleep(l->c, 1000000)) {
			if (!ocf_pid_alive(pid))
				return PCMK_OCF_NOT_RUNNING;
			return ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "%s (pid %d): %s", l->spec->name,
				(int)pid, detail);
		}
	}
	fd = open(l->refused, O_RDONLY | O_CLOEXEC);
	if (fd == -1)
		return PCMK_OCF_OK;
	n = read(fd, why, sizeof(why) - 1);
	close(fd);
	why[n > 0 ? n : 0] = '\0';
	/* running, but the file on disk would not start it again */
	return ocf_degraded("%s runs its previous configuration: the last reload was refused: %s",
		l->spec->name, why);
}

/* A reload the daemon refused: it keeps running the previous configuration
 * (lbd and HAProxy both do), so the resource is still sound; the monitor
 * reports it degraded until a reload or start succeeds. A failure here
 * would make Pacemaker restart it with the bad file, which fails: an
 * outage caused by a typo. */
static int refused(struct lb *l, const char *why)
{
	int fd;

	log_err("reload refused, still running the previous configuration: %s", why);
	fd = open(l->refused, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd != -1) {
		if (write(fd, why, strlen(why)) == -1)
			log_warn("%s: %m", l->refused);
		close(fd);
	}
	return PCMK_OCF_OK;
}

static int reload(struct lb *l)
{
	struct lb_counts before, after;
	char why[512], last[512];
	uint64_t end;
	pid_t pid;
	int rc;

	if (!ocf_daemon_running(&l->d, &pid))
		return PCMK_OCF_NOT_RUNNING;
	if (l->argv_error)
		return ocf_fail(PCMK_OCF_NOT_CONFIGURED, "options: %s", l->argv_error);
	if (l->saved.n && !ocf_strv_equal(&l->saved, &l->argv)) {
		/* binary, config path or options changed: only a restart applies them */
		log_notice("the command line changed; restarting %s", l->spec->name);
		rc = validate(l);
		if (rc != PCMK_OCF_OK)
			return rc;
		rc = stop_until(l, ocf_now() + ocf_left(l->c) / 2);
		return rc == PCMK_OCF_OK ? start(l) : rc;
	}
	if (access(l->binary, X_OK) == -1) {
		snprintf(why, sizeof(why), "binary %s: %s", l->binary, strerror(errno));
		return refused(l, why);
	}
	rc = check_config(l, why, sizeof(why));
	if (rc == PCMK_OCF_INVALID_PARAM)
		return refused(l, why);
	if (rc != PCMK_OCF_OK)
		return ocf_fail(rc, "%s", why);
	counts(l, &before);
	l->log_start = ocf_file_size(l->logfile);
	log_info("reloading %s (pid %d) with %s", l->spec->name, (int)pid,
		sigabbrev_np(l->spec->reload_signal));
	if (kill(pid, l->spec->reload_signal) == -1)
		return ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "kill %d: %s", (int)pid, strerror(errno));
	if (!before.known) {
		log_notice("no socket to confirm the reload with; signal sent");
		unlink(l->refused);
		return PCMK_OCF_OK;
	}
	/* confirmed by the reload counter */
	end = ocf_now() + ocf_left(l->c);
	while (ocf_now() < end) {
		if (counts(l, &after) == 0 && after.reloads > before.reloads) {
			if (after.failed) {
				ocf_tail_line(l->logfile, l->log_start, last, sizeof(last));
				return refused(l, last);
			}
			log_notice("%s reloaded (reload %lu), listening sockets kept",
				l->spec->name, after.reloads);
			unlink(l->refused);
			return PCMK_OCF_OK;
		}
		if (!ocf_pid_alive(pid))
			return ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "%s exited during the reload",
				l->spec->name);
		ocf_sleep(l->c, 100000);
	}
	ocf_tail_line(l->logfile, l->log_start, last, sizeof(last));
	return refused(l, last[0] ? last : "the reload was not confirmed in time");
}

/* ---------------------------------------------------- action entries -- */

typedef int (*lb_fn)(struct lb *l);

static int run(struct ocf_ctx *c, lb_fn fn)
{
	struct lb l;
	int rc = lb_init(&l, c, c->agent->data);

	if (rc == PCMK_OCF_OK)
		rc = fn(&l);
	lb_free(&l);
	return rc;
}

int lb_action_start(struct ocf_ctx *c)
{
	return run(c, start);
}

int lb_action_stop(struct ocf_ctx *c)
{
	return run(c, stop);
}

int lb_action_monitor(struct ocf_ctx *c)
{
	return run(c, monitor);
}

int lb_action_reload(struct ocf_ctx *c)
{
	return run(c, reload);
}

int lb_action_validate(struct ocf_ctx *c)
{
	return run(c, validate);
}
