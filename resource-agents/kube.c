/* The kube-* agents' shared code: command line, daemon, probes, actions. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "kube.h"

#define KUBE_ENV_PATH "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#define KUBE_TRIES    3 /* live probes before the monitor calls it failed */

static const char *str_or(const char *s, const char *dflt)
{
	return s && *s ? s : dflt;
}

/* Pid, state and log file names. */
static int set_paths(struct kube *k)
{
	const char *dir = ocf_get(k->c, "piddir");

	if (asprintf(&k->pidfile, "%s/%s.pid", dir, k->c->state_name) < 0)
		k->pidfile = NULL;
	if (asprintf(&k->statefile, "%s/%s.argv", dir, k->c->state_name) < 0)
		k->statefile = NULL;
	k->logfile = strdup(ocf_get(k->c, "logfile"));
	if (!k->pidfile || !k->statefile || !k->logfile)
		return -ENOMEM;
	return 0;
}

/* The flags of the environment file, if there is one. */
static int load_envfile(struct kube *k)
{
	const char *path = ocf_get(k->c, "envfile");
	const char *var = ocf_get(k->c, "envvar");
	const char *why, *value;
	unsigned line;
	int r;

	if (!path || !*path)
		return PCMK_OCF_OK;
	r = ocf_envfile_load(path, &k->env, &line, &why);
	if (r == -ENOMEM)
		return ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
	if (r < 0 && why)
		return ocf_fail(PCMK_OCF_INVALID_PARAM, "envfile %s:%u: %s", path, line, why);
	if (r < 0)
		return ocf_fail(PCMK_OCF_NOT_INSTALLED, "envfile %s: %s", path, strerror(-r));
	value = ocf_kv_get(&k->env, var);
	if (!value)
		return ocf_fail(PCMK_OCF_INVALID_PARAM, "envfile %s does not set %s", path, var);
	r = ocf_split_words(value, &k->file_args, &why);
	if (r == -EINVAL)
		return ocf_fail(PCMK_OCF_INVALID_PARAM, "envfile %s: %s: %s", path, var, why);
	return r < 0 ? ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory") : PCMK_OCF_OK;
}

/* argv and the daemon's environment from the parameters. */
static int load_params(struct kube *k)
{
	const char *why, *tmp;
	size_t i;
	int rc, r;

	k->binary = ocf_get(k->c, "binary");
	if (!k->binary || k->binary[0] != '/')
		return ocf_fail(PCMK_OCF_NOT_CONFIGURED, "binary=%s is not an absolute path",
			str_or(k->binary, ""));
	rc = load_envfile(k);
	if (rc != PCMK_OCF_OK)
		return rc;
	r = ocf_split_words(ocf_get(k->c, "args"), &k->cib_args, &why);
	if (r == -EINVAL)
		return ocf_fail(PCMK_OCF_NOT_CONFIGURED, "args: %s", why);
	r = r < 0 ? r : ocf_strv_push(&k->argv, k->binary);
	for (i = 0; r == 0 && i < k->file_args.n; i++)
		r = ocf_strv_push(&k->argv, k->file_args.v[i]);
	for (i = 0; r == 0 && i < k->cib_args.n; i++)
		r = ocf_strv_push(&k->argv, k->cib_args.v[i]);
	r = r < 0 ? r : ocf_strv_push(&k->envp, KUBE_ENV_PATH);
	tmp = ocf_env(k->c, "TMPDIR");
	if (r == 0 && tmp && *tmp) {
		char *kv;

		if (asprintf(&kv, "TMPDIR=%s", tmp) < 0) {
			r = -ENOMEM;
		} else {
			r = ocf_strv_push(&k->envp, kv);
			free(kv);
		}
	}
	for (i = 0; r == 0 && i < k->env.n; i++) {
		char *kv;

		if (asprintf(&kv, "%s=%s", k->env.v[i].key, k->env.v[i].value) < 0)
			r = -ENOMEM;
		else {
			r = ocf_strv_push(&k->envp, kv);
			free(kv);
		}
	}
	if (r < 0)
		return ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
	if (k->spec->adjust) {
		rc = k->spec->adjust(k);
		if (rc != PCMK_OCF_OK)
			return rc;
	}
	k->loaded = true;
	return PCMK_OCF_OK;
}

/* monitor and stop look at what runs: the command line saved at start. */
static int load_saved(struct kube *k)
{
	size_t i;
	int r;

	if (ocf_state_read(k->statefile, &k->argv) < 0 || k->argv.n == 0) {
		ocf_strv_free(&k->argv);
		k->binary = ocf_get(k->c, "binary");
		return ocf_strv_push(&k->argv, str_or(k->binary, "/"));
	}
	k->binary = k->argv.v[0];
	for (i = 1, r = 0; r == 0 && i < k->argv.n; i++)
		r = ocf_strv_push(&k->cib_args, k->argv.v[i]);
	return r;
}

/* Where and how the probes connect. */
static int set_probe(struct kube *k)
{
	const char *bind = NULL, *v;
	unsigned long port = k->spec->default_port;
	bool ff;

	if (ocf_is_set(k->c, "port")) {
		if (ocf_get_uint(k->c, "port", 65535, &port) < 0 || port == 0)
			return ocf_fail(PCMK_OCF_NOT_CONFIGURED, "port=%s is not a port number",
				ocf_get(k->c, "port"));
	} else if (kube_flag(k, "secure-port", false, &v, &ff)) {
		char *end;

		errno = 0;
		port = strtoul(v, &end, 10);
		if (errno || *end || port == 0 || port > 65535)
			return ocf_fail(
				kube_flag_rc(ff), "--secure-port=%s is not a port number", v);
	}
	k->probe.port = (unsigned)port;
	if (ocf_is_set(k->c, "address"))
		k->probe.address = ocf_get(k->c, "address");
	else if (kube_flag(k, "bind-address", false, &bind, &ff) && *bind &&
		 strcmp(bind, "0.0.0.0") != 0 && strcmp(bind, "::") != 0)
		k->probe.address = bind;
	else
		k->probe.address = "127.0.0.1";
	k->probe.server_name = ocf_get(k->c, "server_name");
	k->probe.ca = ocf_get(k->c, "ca");
	k->probe.verify = k->probe.ca && *k->probe.ca;
	k->probe.cert = ocf_get(k->c, "cert");
	k->probe.key = ocf_get(k->c, "key");
	return PCMK_OCF_OK;
}

int kube_init(struct kube *k, struct ocf_ctx *c, const struct kube_spec *spec)
{
	const char *a = c->action_name;
	int rc;

	memset(k, 0, sizeof(*k));
	k->c = c;
	k->spec = spec;
	if (set_paths(k) < 0)
		return ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
	if (strcmp(a, "monitor") == 0 || strcmp(a, "stop") == 0) {
		if (load_saved(k) < 0)
			return ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
	} else {
		rc = load_params(k);
		if (rc != PCMK_OCF_OK)
			return rc;
	}
	k->d.binary = k->binary;
	k->d.argv = k->argv.v;
	k->d.envp = k->envp.v;
	k->d.pidfile = k->pidfile;
	k->d.statefile = k->statefile;
	k->d.logfile = k->logfile;
	return PCMK_OCF_OK;
}

void kube_free(struct kube *k)
{
	ocf_strv_free(&k->file_args);
	ocf_strv_free(&k->cib_args);
	ocf_strv_free(&k->argv);
	ocf_strv_free(&k->envp);
	ocf_kv_free(&k->env);
	free(k->pidfile);
	free(k->statefile);
	free(k->logfile);
}

int kube_flag(
	const struct kube *k, const char *name, bool boolean, const char **value, bool *from_file)
{
	size_t i;

	/* flags the agent added come last in argv, after cib_args */
	for (i = 1 + k->file_args.n + k->cib_args.n; k->loaded && i < k->argv.n; i++) {
		struct ocf_strv one = { .v = &k->argv.v[i], .n = 1 };

		if (ocf_flag_get(&one, 0, name, boolean, value)) {
			*from_file = false;
			return 1;
		}
	}
	if (ocf_flag_get(&k->cib_args, 0, name, boolean, value)) {
		*from_file = false;
		return 1;
	}
	if (ocf_flag_get(&k->file_args, 0, name, boolean, value)) {
		*from_file = true;
		return 1;
	}
	return 0;
}

int kube_add_flag(struct kube *k, const char *flag)
{
	return ocf_strv_push(&k->argv, flag);
}

int kube_flag_rc(bool from_file)
{
	return from_file ? PCMK_OCF_INVALID_PARAM : PCMK_OCF_NOT_CONFIGURED;
}

int kube_check_file(const char *flag, const char *path)
{
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd == -1)
		return ocf_fail(PCMK_OCF_NOT_INSTALLED, "%s %s: %s", flag, path, strerror(errno));
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(fd);
		return ocf_fail(PCMK_OCF_NOT_INSTALLED, "%s %s: not a regular file", flag, path);
	}
	close(fd);
	return PCMK_OCF_OK;
}

int kube_adjust_leader_elect(struct kube *k)
{
	const char *v;
	bool on = true, ff, set;

	if (ocf_get_bool(k->c, "leader_elect", &on) == -EINVAL)
		return PCMK_OCF_NOT_CONFIGURED;
	if (kube_flag(k, "leader-elect", true, &v, &ff)) {
		if (ocf_parse_bool(v, &set) == 0 && set != on)
			log_notice("--leader-elect=%s in the flags overrides leader_elect=%s", v,
				on ? "true" : "false");
		return PCMK_OCF_OK;
	}
	if (kube_add_flag(k, on ? "--leader-elect=true" : "--leader-elect=false") < 0)
		return ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
	return PCMK_OCF_OK;
}

/* -------------------------------------------------------------- probes -- */

/* One GET of path; fills detail with what an operator wants to read. */
static int probe(
	struct kube *k, const char *path, uint64_t timeout, long *status, char *detail, size_t len)
{
	struct ocf_http_res res;
	struct ocf_http_req req = k->probe;
	char failed[256] = "";
	const char *p;
	int r;

	req.path = path;
	req.timeout_usec = timeout;
	r = ocf_http_get(&req, &res);
	*status = res.status;
	if (r < 0) {
		snprintf(detail, len, "%s: %s", path, res.error);
		return r;
	}
	/* the failed checks of a verbose health answer: "[-]etcd failed: ..." */
	for (p = strstr(res.body, "[-]"); p; p = strstr(p + 3, "[-]")) {
		size_t n = strcspn(p + 3, " :\n");

		snprintf(failed + strlen(failed), sizeof(failed) - strlen(failed), "%s%.*s",
			failed[0] ? "," : "", (int)n, p + 3);
	}
	if (res.status == 200)
		snprintf(detail, len, "%s: ok", path);
	else if (failed[0])
		snprintf(detail, len, "%s: HTTP %ld, failed checks: %s", path, res.status, failed);
	else
		snprintf(detail, len, "%s: HTTP %ld", path, res.status);
	return 0;
}

static uint64_t attempt_timeout(const struct kube *k)
{
	uint64_t left = ocf_left(k->c);

	return left < 5000000ULL ? (left ? left : 1) : 5000000ULL;
}

static bool auth_refused(long status)
{
	return status == 401 || status == 403;
}

/* ------------------------------------------------------------- actions -- */

int kube_validate(struct kube *k)
{
	static const char *const probe_files[] = { "ca", "cert", "key" };
	size_t i;
	int rc;

	if (access(k->binary, X_OK) == -1)
		return ocf_fail(
			PCMK_OCF_NOT_INSTALLED, "binary %s: %s", k->binary, strerror(errno));
	rc = set_probe(k);
	if (rc != PCMK_OCF_OK)
		return rc;
	for (i = 0; i < sizeof(probe_files) / sizeof(probe_files[0]); i++) {
		const char *f = ocf_get(k->c, probe_files[i]);

		if (f && *f) {
			rc = kube_check_file(probe_files[i], f);
			if (rc != PCMK_OCF_OK)
				return rc;
		}
	}
	if (ocf_is_set(k->c, "key") && !ocf_is_set(k->c, "cert"))
		return ocf_fail(PCMK_OCF_NOT_CONFIGURED, "key is set but cert is not");
	return k->spec->validate ? k->spec->validate(k) : PCMK_OCF_OK;
}

/* Directory part of path, created with mode. */
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

/* After the daemon is started: wait for ready_path within the budget. */
static int wait_ready(struct kube *k, pid_t pid)
{
	const char *path = str_or(k->spec->ready_path, k->spec->live_path);
	char detail[512] = "no answer yet", last[512];
	long status;
	int st;

	for (;;) {
		if (!ocf_pid_alive(pid)) {
			ocf_pid_wait_gone(pid, ocf_now(), &st);
			ocf_tail_line(k->logfile, k->log_start, last, sizeof(last));
			unlink(k->pidfile);
			if (st != -1 && WIFEXITED(st))
				return ocf_fail(PCMK_OCF_UNKNOWN_ERROR,
					"%s exited with status %d during start: %s",
					k->spec->component, WEXITSTATUS(st),
					str_or(last, "(empty log)"));
			return ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "%s died during start: %s",
				k->spec->component, str_or(last, "(empty log)"));
		}
		if (probe(k, path, attempt_timeout(k), &status, detail, sizeof(detail)) == 0 &&
			status == 200) {
			log_info("%s is ready (pid %d, %s:%u%s)", k->spec->component, (int)pid,
				k->probe.address, k->probe.port, path);
			return PCMK_OCF_OK;
		}
		log_debug("not ready yet: %s", detail);
		if (!ocf_sleep(k->c, 500000))
			return ocf_fail(PCMK_OCF_UNKNOWN_ERROR,
				"%s not ready within the start timeout (%s%s)", k->spec->component,
				detail,
				auth_refused(status)
					? "; anonymous probes refused: set cert and key"
					: "");
	}
}

int kube_start(struct kube *k)
{
	pid_t pid;
	int rc, r;

	rc = kube_validate(k);
	if (rc != PCMK_OCF_OK)
		return rc;
	if (ocf_daemon_running(&k->d, &pid)) {
		log_info("%s already running (pid %d)", k->spec->component, (int)pid);
		return wait_ready(k, pid);
	}
	r = ocf_mkdir_p(ocf_get(k->c, "piddir"), 0755);
	if (r < 0)
		return ocf_fail(PCMK_OCF_INSUFFICIENT_PRIV, "piddir %s: %s",
			ocf_get(k->c, "piddir"), strerror(-r));
	r = mkdir_parent(k->logfile, 0750);
	if (r < 0)
		return ocf_fail(
			PCMK_OCF_INSUFFICIENT_PRIV, "logfile %s: %s", k->logfile, strerror(-r));
	k->log_start = ocf_file_size(k->logfile);
	r = ocf_daemon_start(&k->d, &pid);
	if (r == -ENOENT || r == -EACCES || r == -ENOEXEC)
		return ocf_fail(
			PCMK_OCF_NOT_INSTALLED, "cannot run %s: %s", k->binary, strerror(-r));
	if (r < 0)
		return ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "starting %s: %s", k->binary, strerror(-r));
	log_info("started %s (pid %d), log %s", k->spec->component, (int)pid, k->logfile);
	return wait_ready(k, pid);
}

/* A Go duration ("70s", "1m30s", "500ms"); 0 when it does not parse. */
static uint64_t go_duration_usec(const char *s)
{
	static const struct {
		const char *unit;
		double usec;
	} units[] = { { "ns", 0.001 }, { "us", 1 }, { "µs", 1 }, { "ms", 1000 }, { "s", 1e6 },
		{ "m", 60e6 }, { "h", 3600e6 } };
	double total = 0, v;
	char *end;
	size_t i, best;

	while (s && *s) {
		v = strtod(s, &end);
		if (end == s || v < 0)
			return 0;
		s = end;
		best = SIZE_MAX;
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			size_t n = strlen(units[i].unit);

			/* longest match: "ms" before "m" */
			if (strncmp(s, units[i].unit, n) == 0 &&
				(best == SIZE_MAX || n > strlen(units[best].unit)))
				best = i;
		}
		if (best == SIZE_MAX)
			return 0;
		total += v * units[best].usec;
		s += strlen(units[best].unit);
	}
	return (uint64_t)total;
}

int kube_stop(struct kube *k)
{
	uint64_t now = ocf_now(), left = ocf_left(k->c), reserve, delay;
	const char *v;
	bool ff;
	pid_t pid;

	/* keep a tenth of the budget (1 to 5 s) for SIGKILL and its wait */
	reserve = ocf_kill_reserve_usec(left);
	if (ocf_daemon_running(&k->d, &pid) &&
		kube_flag(k, "shutdown-delay-duration", false, &v, &ff)) {
		delay = go_duration_usec(v);
		if (delay + 1000000ULL > left - reserve)
			log_warn("--shutdown-delay-duration=%s does not fit in the stop budget "
				 "(%llus): "
				 "raise the stop timeout or %s is killed before it drains",
				v, (unsigned long long)((left - reserve) / 1000000ULL),
				k->spec->component);
	}
	if (ocf_daemon_stop(&k->d, SIGTERM, now + left - reserve, now + left) < 0)
		return ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "%s still running after SIGKILL",
			k->spec->component);
	return PCMK_OCF_OK;
}

int kube_monitor(struct kube *k)
{
	const char *ready = k->spec->ready_path;
	char detail[512] = "";
	long status = 0;
	int i, r = -1, rc;
	pid_t pid;

	if (!ocf_daemon_running(&k->d, &pid))
		return PCMK_OCF_NOT_RUNNING;
	rc = set_probe(k);
	if (rc != PCMK_OCF_OK)
		return rc;
	/* a slow answer is not a dead process: retry within the budget */
	for (i = 0; i < KUBE_TRIES; i++) {
		r = probe(
			k, k->spec->live_path, attempt_timeout(k), &status, detail, sizeof(detail));
		if (r == 0 && (status == 200 || auth_refused(status)))
			break;
		log_info("probe %d/%d: %s", i + 1, KUBE_TRIES, detail);
		if (i + 1 < KUBE_TRIES && !ocf_sleep(k->c, 1000000))
			break;
	}
	if (r < 0 || (status != 200 && !auth_refused(status))) {
		if (!ocf_pid_alive(pid))
			return PCMK_OCF_NOT_RUNNING;
		return ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "%s (pid %d) is not live: %s",
			k->spec->component, (int)pid, detail);
	}
	if (auth_refused(status))
		log_warn("%s answers, but refuses the anonymous probe (HTTP %ld): set cert and key "
			 "to see its health",
			k->spec->component, status);
	if (!ready || strcmp(ready, k->spec->live_path) == 0 || auth_refused(status))
		return PCMK_OCF_OK;
	/* live but not ready (etcd unreachable, shutting down, starting): the
	 * process is sound and a restart would not help; load balancers
	 * already take it out through /readyz. Pacemaker counts 190 as
	 * running ("degraded"), never as a failure. */
	r = probe(k, ready, attempt_timeout(k), &status, detail, sizeof(detail));
	if (r == 0 && (status == 200 || auth_refused(status)))
		return PCMK_OCF_OK;
	return ocf_degraded(
		"%s (pid %d) is live but not ready: %s", k->spec->component, (int)pid, detail);
}

/* ---------------------------------------------------- action entries -- */

typedef int (*kube_fn)(struct kube *k);

static int run(struct ocf_ctx *c, kube_fn fn)
{
	struct kube k;
	int rc = kube_init(&k, c, c->agent->data);

	if (rc == PCMK_OCF_OK)
		rc = fn(&k);
	kube_free(&k);
	return rc;
}

int kube_action_start(struct ocf_ctx *c)
{
	return run(c, kube_start);
}

int kube_action_stop(struct ocf_ctx *c)
{
	return run(c, kube_stop);
}

int kube_action_monitor(struct ocf_ctx *c)
{
	return run(c, kube_monitor);
}

int kube_action_validate(struct ocf_ctx *c)
{
	return run(c, kube_validate);
}
