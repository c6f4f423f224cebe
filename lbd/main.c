/* lbd: health-checking L4 TCP load balancer reading HAProxy's language. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "duration.h"
#include "admin.h"
#include "cfg.h"
#include "check.h"
#include "check_http.h"
#include "cli.h"
#include "event.h"
#include "fdlimit.h"
#include "http.h"
#include "log.h"
#include "metrics.h"
#include "webcfg.h"
#include "privdrop.h"
#include "resolver.h"
#include "runtime.h"
#include "server.h"
#include "server_ctl.h"
#include "server_state.h"
#include "stats.h"
#include "status_json.h"
#include "worker.h"

#define LBD_DEFAULT_CONFIG "/etc/lbd/lbd.cfg"
#define HOUSEKEEPING_USEC  200000ULL /* soft-stop and hard-stop-after bookkeeping */

struct lbd_main {
	struct lbd_runtime rt;
	const char *config;
	unsigned cfg_flags; /* LBD_CFG_*: -W */
	bool soft_stopping;
	uint64_t hard_stop_at; /* CLOCK_MONOTONIC usec; 0 = none */
	sd_event_source *housekeeping;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: lbd [-f FILE] [-c] [-q] [-db] [-D] [-W|-Ws] [-p PIDFILE] [-d] [-v]\n"
		"  -f FILE     configuration file (default " LBD_DEFAULT_CONFIG ")\n"
		"  -c          check the configuration, print every error, exit 0 or 1\n"
		"  -q          quiet: with -c, print nothing when the file is valid\n"
		"  -db         stay in the foreground even if 'daemon' is set\n"
		"  -D          go to the background (as 'daemon' in global)\n"
		"  -W, -Ws     HAProxy's master-worker mode: lbd stays one process, and reads\n"
		"              program sections (as 'master-worker' in global)\n"
		"  -p PIDFILE  write the process id there\n"
		"  -d          debug logging\n"
		"  -v          print the version\n"
		"Signals: SIGHUP reloads, SIGUSR1 stops gracefully (hard-stop-after bounds it),\n"
		"SIGTERM/SIGINT stop at once.\n");
}

static void print_errors(const char *path, struct cpha_msgs *errs)
{
	cpha_msgs_print(errs->errs, errs->nerrs, stderr);
	fprintf(stderr, "%s: configuration has %zu error%s\n", path, errs->nerrs,
		errs->nerrs == 1 ? "" : "s");
}

/* -c: print notices and errors as file:line: message; exit status 0 or 1. */
static int check_config(const char *path, unsigned flags, int quiet)
{
	struct cpha_msgs errs = { 0 };
	struct lbd_config *c = NULL;
	size_t i;

	if (lbd_cfg_load_flags(path, flags, &c, &errs) < 0) {
		print_errors(path, &errs);
		cpha_msgs_free(&errs);
		return 1;
	}
	for (i = 0; i < c->nnotices; i++)
		fprintf(stderr, "%s\n", c->notices[i]);
	if (!quiet)
		printf("Configuration file is valid\n");
	lbd_cfg_free(c);
	return 0;
}

/* The metrics listener's certificate (metrics-web-config), loaded before a
 * configuration runs and not by -c, which may check it where the
 * certificate is not installed (cpha render does). */
static int metrics_tls(struct lbd_config *c)
{
	char err[512];

	if (cpha_webcfg_tls(c->global.metrics_web, err, sizeof(err)) == 0)
		return 0;
	log_err("metrics-web-config: %s", err);
	return -1;
}

static void admin_cb(void *userdata, const struct cpha_admin_peer *peer, const char *line,
	struct cpha_buf *reply)
{
	cli_command(userdata, peer, line, reply);
}

static void metrics_cb(void *userdata, struct cpha_buf *body)
{
	lbd_stats_prometheus(userdata, body);
}

/* Open, move or close the admin socket and metrics listener to match the
 * configuration. */
static void apply_interfaces(struct lbd_main *m)
{
	struct lbd_runtime *rt = &m->rt;
	const struct lbd_global *g = &rt->cfg->global;
	char a[CPHA_ADDR_STRLEN];
	int r;

	http_apply(rt); /* stats page, monitor-uri, prometheus-exporter (mode http) */
	if (rt->admin && (!g->stats.path || strcmp(g->stats.path, rt->admin_path) != 0)) {
		cpha_admin_close(rt->admin);
		rt->admin = NULL;
		free(rt->admin_path);
		rt->admin_path = NULL;
	}
	if (rt->admin) {
		struct stat st;

		/* same path: the socket stays, its mode and owner follow the file */
		if (lstat(g->stats.path, &st) == 0 && (st.st_mode & 07777) != g->stats.mode)
			log_notice("stats socket %s: mode %04o (was %04o)", g->stats.path,
				(unsigned)g->stats.mode, (unsigned)(st.st_mode & 07777));
		r = cpha_admin_set_access(rt->admin, g->stats.mode, g->stats.uid, g->stats.gid);
		if (r < 0)
			/* privileges dropped, a chroot hiding the path, the file
			 * removed: the socket keeps serving as it was */
			log_err("%s:%u: stats socket %s: cannot change its mode or owner: %s",
				rt->cfg->file, g->stats.line, g->stats.path, strerror(-r));
	}
	if (!rt->admin && g->stats.path) {
		r = cpha_admin_open(rt->e, g->stats.path, g->stats.mode, admin_cb, rt,
			(struct cpha_admin **)&rt->admin);
		if (r == 0)
			r = cpha_admin_set_access(
				rt->admin, g->stats.mode, g->stats.uid, g->stats.gid);
		if (r < 0) {
			log_err("%s:%u: stats socket %s: %s", rt->cfg->file, g->stats.line,
				g->stats.path, strerror(-r));
			cpha_admin_close(rt->admin);
			rt->admin = NULL;
		} else {
			rt->admin_path = strdup(g->stats.path);
		}
	}
	if (rt->metrics) {
		const struct cpha_addr *cur = cpha_metrics_addr(rt->metrics);

		if (g->metrics_set && cpha_addr_equal(cur, &g->metrics))
			goto web;
		cpha_metrics_close(rt->metrics);
		rt->metrics = NULL;
	}
	if (g->metrics_set) {
		r = cpha_metrics_listen(
			rt->e, &g->metrics, metrics_cb, rt, (struct cpha_metrics **)&rt->metrics);
		if (r < 0) {
			log_err("metrics-bind %s: %s", cpha_addr_format(&g->metrics, a, sizeof(a)),
				strerror(-r));
			return;
		}
		cpha_metrics_set_status(rt->metrics, status_json, rt);
	}
web:
	/* no listener without its authentication: on failure it closes */
	if (rt->metrics && cpha_metrics_set_web(rt->metrics, g->metrics_web) < 0) {
		log_err("metrics-bind %s: metrics-web-config: out of memory; not serving",
			cpha_addr_format(&g->metrics, a, sizeof(a)));
		cpha_metrics_close(rt->metrics);
		rt->metrics = NULL;
	}
}

static void hard_stop(struct lbd_main *m)
{
	unsigned i;

	for (i = 0; i < m->rt.nworkers; i++)
		worker_post(&m->rt.workers[i], LBD_MSG_HARD_STOP, NULL, NULL, 0);
	sd_event_exit(m->rt.e, 0);
}

static void on_stop(void *userdata, int signo)
{
	struct lbd_main *m = userdata;

	log_notice("stopping on signal %d: closing %u sessions", signo, atomic_load(&m->rt.cur));
	cpha_notify_stopping();
	hard_stop(m);
}

static int on_soft_stop(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	struct lbd_main *m = userdata;
	unsigned i;

	(void)s;
	(void)si;
	if (m->soft_stopping)
		return 0;
	m->soft_stopping = true;
	cpha_notify_stopping();
	log_notice("soft stop: no new connections; waiting for %u sessions%s",
		atomic_load(&m->rt.cur),
		m->rt.cfg->global.hard_stop_after ? " (bounded by hard-stop-after)" : "");
	if (m->rt.cfg->global.hard_stop_after)
		m->hard_stop_at = lbd_now() + m->rt.cfg->global.hard_stop_after;
	for (i = 0; i < m->rt.nworkers; i++)
		worker_post(&m->rt.workers[i], LBD_MSG_SOFT_STOP, NULL, NULL, 0);
	return 0;
}

static void on_reload(void *userdata)
{
	struct lbd_main *m = userdata;
	struct cpha_msgs errs = { 0 };
	struct lbd_config *c = NULL;
	unsigned maxpipes;
	size_t i;
	int r;

	cpha_notify_reloading();
	if (lbd_cfg_load_flags(m->config, m->cfg_flags, &c, &errs) < 0) {
		for (i = 0; i < errs.nerrs; i++)
			log_err("%s", errs.errs[i].text);
		log_err("reload refused: %zu error%s; still running the previous configuration",
			errs.nerrs, errs.nerrs == 1 ? "" : "s");
		cpha_msgs_free(&errs);
		cpha_notify_ready("reload refused");
		return;
	}
	for (i = 0; i < c->nnotices; i++)
		log_notice("%s", c->notices[i]);
	if (metrics_tls(c) < 0) {
		log_err("reload refused: still running the previous configuration");
		lbd_cfg_free(c);
		cpha_notify_ready("reload refused");
		return;
	}
	privdrop_reload_notice(&m->rt.cfg->global, &c->global, m->config);
	if (fdlimit_apply(c, m->rt.nworkers, true, &maxpipes) < 0) {
		log_err("reload refused: the descriptor limit is too low (strict-limits); still "
			"running the previous configuration");
		lbd_cfg_free(c);
		cpha_notify_ready("reload refused");
		return;
	}
	/* the states as they are, should the reload be followed by a restart */
	server_state_save(&m->rt, "before a reload");
	r = runtime_apply(&m->rt, c);
	if (r < 0) {
		log_err("reload refused: %s; still running the previous configuration",
			strerror(-r));
		lbd_cfg_free(c);
		cpha_notify_ready("reload refused");
		return;
	}
	resolver_apply(&m->rt); /* servers re-resolved at run time */
	/* states are carried in-process: the file is not read again, only
	 * the directories of new file names are opened */
	server_state_prepare(&m->rt);
	atomic_store(&m->rt.maxpipes, maxpipes);
	m->rt.reloads++;
	apply_interfaces(m);
	log_notice("reloaded %s (reload %llu); established sessions carried over", m->config,
		(unsigned long long)m->rt.reloads);
	cpha_notify_ready("reloaded");
}

static int on_housekeeping(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct lbd_main *m = userdata;
	struct lbd_runtime *rt = &m->rt;
	uint64_t now = lbd_now();
	size_t i;

	(void)usec;
	if (m->soft_stopping &&
		(atomic_load(&rt->cur) == 0 || (m->hard_stop_at && now >= m->hard_stop_at))) {
		if (atomic_load(&rt->cur))
			log_notice("hard-stop-after reached: closing %u sessions",
				atomic_load(&rt->cur));
		hard_stop(m);
		return 0;
	}
	for (i = 0; i < rt->ndoomed;) {
		if (now < rt->doomed_at[i]) {
			i++;
			continue;
		}
		/* a server removed by a reload: its last sessions end now */
		server_cut_sessions(rt, rt->doomed[i], "KD", false);
		server_unref(rt->doomed[i]);
		rt->doomed[i] = rt->doomed[rt->ndoomed - 1];
		rt->doomed_at[i] = rt->doomed_at[rt->ndoomed - 1];
		rt->ndoomed--;
	}
	sd_event_source_set_time_relative(s, HOUSEKEEPING_USEC);
	return 0;
}

static int daemonize(void)
{
	pid_t pid = fork();
	int fd;

	if (pid == -1)
		return -1;
	if (pid > 0)
		_exit(0);
	if (setsid() == -1)
		return -1;
	pid = fork();
	if (pid == -1)
		return -1;
	if (pid > 0)
		_exit(0);
	if (chdir("/") == -1)
		return -1;
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		close(fd);
	}
	return 0;
}

static int write_pidfile(const char *path)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return -1;
	fprintf(f, "%d\n", (int)getpid());
	return fclose(f);
}

int main(int argc, char **argv)
{
	static struct lbd_main m;
	struct cpha_event_ops ops = { .stop = on_stop, .reload = on_reload };
	struct cpha_msgs errs = { 0 };
	struct lbd_config *cfg = NULL;
	const char *pidfile = NULL;
	char *cfg_pidfile = NULL;
	int i, check = 0, quiet = 0, foreground = 0, background = 0, debug = 0, r;
	long ncpu;
	unsigned n, maxpipes;
	sigset_t usr1;

	m.config = LBD_DEFAULT_CONFIG;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "-f") == 0 && i + 1 < argc)
			m.config = argv[++i];
		else if (strcmp(a, "-p") == 0 && i + 1 < argc)
			pidfile = argv[++i];
		else if (strcmp(a, "-c") == 0)
			check = 1;
		else if (strcmp(a, "-q") == 0)
			quiet = 1;
		else if (strcmp(a, "-db") == 0)
			foreground = 1;
		else if (strcmp(a, "-D") == 0)
			background = 1;
		else if (strcmp(a, "-d") == 0)
			debug = 1;
		else if (strcmp(a, "-W") == 0 || strcmp(a, "-Ws") == 0)
			m.cfg_flags |= LBD_CFG_MASTER_WORKER;
		else if (strcmp(a, "-v") == 0 || strcmp(a, "-vv") == 0) {
			printf("lbd (cpha) " CPHA_VERSION "\n");
			return 0;
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "lbd: unknown argument '%s'\n", a);
			usage(stderr);
			return 2;
		}
	}
	if (check)
		return check_config(m.config, m.cfg_flags, quiet);

	cpha_log_open("lbd", getenv("JOURNAL_STREAM") ? CPHA_LOG_AUTO : CPHA_LOG_STDERR);
	if (debug)
		cpha_log_set_level(LOG_DEBUG);
	if (lbd_cfg_load_flags(m.config, m.cfg_flags, &cfg, &errs) < 0) {
		print_errors(m.config, &errs);
		cpha_msgs_free(&errs);
		return 1;
	}
	for (i = 0; i < (int)cfg->nnotices; i++)
		log_notice("%s", cfg->notices[i]);
	if (metrics_tls(cfg) < 0) {
		lbd_cfg_free(cfg);
		return 1;
	}
	if ((cfg->global.daemon || background) && !foreground && !getenv("NOTIFY_SOCKET")) {
		if (daemonize() < 0) {
			log_err("cannot go to the background: %m");
			return 1;
		}
	}
	/* -p wins over the global 'pidfile', as in HAProxy */
	if (!pidfile && cfg->global.pidfile)
		pidfile = cfg_pidfile = strdup(cfg->global.pidfile);
	if (pidfile && write_pidfile(pidfile) < 0)
		log_warn("pid file %s: %m", pidfile);

	struct lbd_runtime *rt = &m.rt;

	rt->started = cpha_now_usec(CLOCK_REALTIME);
	r = sd_event_default(&rt->e);
	if (r >= 0)
		r = cpha_event_setup(rt->e, &ops, &m);
	if (r >= 0) {
		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		pthread_sigmask(SIG_BLOCK, &usr1, NULL);
		r = sd_event_add_signal(rt->e, NULL, SIGUSR1, on_soft_stop, &m);
	}
	if (r >= 0)
		r = check_http_init(rt);
	if (r >= 0)
		r = server_observe_init(rt);
	if (r < 0) {
		log_err("cannot set up the event loop: %s", strerror(-r));
		return 1;
	}
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	n = cfg->global.nbthread ? cfg->global.nbthread : (ncpu > 0 ? (unsigned)ncpu : 1);
	if (n > LBD_MAX_THREADS)
		n = LBD_MAX_THREADS;
	/* descriptors for maxconn, as HAProxy counts them (fdlimit.c) */
	if (fdlimit_apply(cfg, n, false, &maxpipes) < 0)
		return 1;
	rt->workers = calloc(n, sizeof(*rt->workers));
	if (!rt->workers)
		return 1;
	for (rt->nworkers = 0; rt->nworkers < n; rt->nworkers++) {
		r = worker_init(&rt->workers[rt->nworkers], rt, rt->nworkers);
		if (r < 0) {
			log_err("cannot create worker %u: %s", rt->nworkers, strerror(-r));
			return 1;
		}
	}
	r = runtime_apply(rt, cfg);
	if (r < 0) {
		log_err("cannot start: %s", strerror(-r));
		return 1;
	}
	server_state_load(rt); /* before DNS: init-addr last */
	if (resolver_apply(rt) < 0)
		return 1;
	atomic_store(&rt->maxpipes, maxpipes);
	apply_interfaces(&m);
	/* the state files' directories, while a chroot does not hide them */
	server_state_prepare(rt);
	if (privdrop_apply(rt->cfg, m.config) < 0) /* chroot, user, group */
		return 1;
	for (i = 0; i < (int)rt->nworkers; i++) {
		r = worker_start(&rt->workers[i]);
		if (r < 0) {
			log_err("cannot start worker %d: %s", i, strerror(-r));
			return 1;
		}
	}
	sd_event_add_time_relative(rt->e, &m.housekeeping, CLOCK_MONOTONIC, HOUSEKEEPING_USEC,
		10000, on_housekeeping, &m);
	sd_event_source_set_enabled(m.housekeeping, SD_EVENT_ON);
	log_notice("lbd %s started: %zu frontends, %zu backends, %u threads", CPHA_VERSION,
		rt->cfg->nfrontends, rt->cfg->nbackends, rt->nworkers);
	cpha_notify_ready("running");

	r = sd_event_loop(rt->e);

	for (i = 0; i < (int)rt->nworkers; i++)
		worker_join(&rt->workers[i]);
	server_state_save(rt, "stopping");
	server_state_close();
	cpha_admin_close(rt->admin);
	cpha_metrics_close(rt->metrics);
	http_close_all();
	free(rt->admin_path);
	sd_event_source_disable_unref(m.housekeeping);
	resolver_free(rt);
	server_observe_close(rt);
	runtime_free(rt);
	check_http_shutdown(rt);
	free(rt->workers);
	sd_event_unref(rt->e);
	if (pidfile)
		unlink(pidfile);
	free(cfg_pidfile);
	log_notice("stopped");
	return r < 0 ? 1 : 0;
}
