/* fenced: fencing on corosync membership through fence-agents.
 *
 *   fenced [-f FILE] [-d]          the daemon (foreground; systemd runs it)
 *   fenced [-f FILE] -c [-q]       check the configuration and the agents
 *   fenced [-f FILE] show [json]   ask the running daemon
 *   fenced [-f FILE] ack NODE      tell it NODE is off (manual override) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "admin.h"
#include "cfg.h"
#include "cfgdiag.h"
#include "corosync.h"
#include "event.h"
#include "fenced.h"
#include "log.h"
#include "metrics.h"
#include "webcfg.h"

#define FENCED_DEFAULT_CONFIG   "/etc/fenced/fenced.conf"
#define COROSYNC_DEFAULT_CONFIG "/etc/corosync/corosync.conf"

static void usage(FILE *f)
{
	fprintf(f, "usage: fenced [-f FILE] [-d]            run the daemon\n"
		   "       fenced [-f FILE] -c [-q] [-C FILE] check the configuration\n"
		   "       fenced [-f FILE] show [json]       the running daemon's state\n"
		   "       fenced [-f FILE] ack NODE          NODE is off: end its fencing\n"
		   "       fenced [-f FILE] power-check [NODE] read NODE's power (default: the\n"
		   "                                          other VIP holder) from its devices\n"
		   "       fenced -v\n"
		   "  -f FILE  configuration (default " FENCED_DEFAULT_CONFIG ")\n"
		   "  -c       check the configuration and every agent's parameters against its\n"
		   "           metadata (AGENT -o metadata); print every error and warning as\n"
		   "           file:line: text; exit 0 or 1. Nothing is fenced.\n"
		   "  -C FILE  with -c, corosync's configuration for the quorum rules (default\n"
		   "           " COROSYNC_DEFAULT_CONFIG ", skipped when absent)\n"
		   "  -q       with -c, print nothing when the file is valid\n"
		   "  -d       debug logging\n"
		   "  -v       print the version\n"
		   "Signals: SIGHUP reloads the configuration, SIGTERM stops (leaving the fence\n"
		   "domain cleanly, so the other members do not fence this node).\n");
}

/* The watchdog-only rule of -c: in a two-node cluster without a quorum
 * device both halves keep quorum, so a node with no fence_node would never
 * reset. */
static size_t check_quorum_rules(const struct fenced_config *c, const char *cs_conf)
{
	struct fenced_cs_quorum_cfg q;
	char **names = NULL;
	size_t n = 0, i, nerr = 0;
	int r;

	r = fenced_cs_conf_read(cs_conf, &q, &names, &n);
	if (r < 0)
		return 0;
	for (i = 0; i < n; i++) {
		if (c->watchdog.set && q.two_node && !q.qdevice && !fenced_cfg_node(c, names[i])) {
			fprintf(stderr,
				"%s:%u: node %s would be fenced by its watchdog only, in a "
				"two-node "
				"cluster without a quorum device (%s): both halves keep quorum in "
				"a split and neither resets; give it a fence_node\n",
				c->files[CPHA_CFGDIAG_LOC_FILE(c->watchdog.line)],
				CPHA_CFGDIAG_LOC_LINE(c->watchdog.line), names[i], cs_conf);
			nerr++;
		}
		free(names[i]);
	}
	free(names);
	return nerr;
}

static int check(const char *path, const char *cs_conf, int quiet)
{
	struct cpha_msgs errs = { 0 };
	struct fenced_config *c = NULL;
	size_t i, nerr;

	if (fenced_cfg_load(path, &c, &errs) < 0) {
		cpha_msgs_print(errs.errs, errs.nerrs, stderr);
		fprintf(stderr, "%s: configuration has %zu error%s\n", path, errs.nerrs,
			errs.nerrs == 1 ? "" : "s");
		cpha_msgs_free(&errs);
		return 1;
	}
	nerr = fenced_cfg_check_agents(c, fenced_agent_meta_run, NULL, &errs);
	cpha_msgs_print(errs.errs, errs.nerrs, stderr);
	for (i = 0; i < c->nnotices; i++)
		fprintf(stderr, "%s\n", c->notices[i]);
	nerr += check_quorum_rules(c, cs_conf);
	cpha_msgs_free(&errs);
	fenced_cfg_free(c);
	if (nerr) {
		fprintf(stderr, "%s: configuration has %zu error%s\n", path, nerr,
			nerr == 1 ? "" : "s");
		return 1;
	}
	if (!quiet)
		printf("Configuration file is valid\n");
	return 0;
}

/* "show", "show json", "ack NODE", "power-check [NODE]": ask the daemon
 * over its socket. */
static int client(const char *path, const char *cmd)
{
	struct cpha_msgs errs = { 0 };
	struct fenced_config *c = NULL;
	char *reply = NULL;
	const char *sock = FENCED_DEFAULT_SOCKET;
	int r;

	if (fenced_cfg_load(path, &c, &errs) == 0 && c->global.admin_socket)
		sock = c->global.admin_socket;
	r = cpha_admin_query(sock, cmd, 10000000, &reply);
	cpha_msgs_free(&errs);
	if (r < 0) {
		fprintf(stderr, "fenced: %s: %s\n", sock, strerror(-r));
		fenced_cfg_free(c);
		return 1;
	}
	fenced_cfg_free(c);
	fputs(reply, stdout);
	r = strncmp(reply, "error:", 6) == 0;
	free(reply);
	return r;
}

/* Secret files are a warning at -c (written later, by another hand) and an
 * error at start-up: fencing would fail when it is needed. */
static size_t unreadable_secrets(const struct fenced_config *c)
{
	size_t i, k, l, u, n = 0;

	for (i = 0; i < c->ndevices; i++)
		for (k = 0; k < c->devices[i].nparams; k++) {
			const struct fenced_param *p = &c->devices[i].params[k];

			if (p->from_file && access(p->value, R_OK) != 0) {
				log_err("%s:%u: %s_file %s: %s",
					c->files[CPHA_CFGDIAG_LOC_FILE(p->line)],
					CPHA_CFGDIAG_LOC_LINE(p->line), p->key, p->value,
					strerror(errno));
				n++;
			}
		}
	for (i = 0; i < c->nnodes; i++)
		for (l = 0; l < c->nodes[i].nlevels; l++)
			for (u = 0; u < c->nodes[i].levels[l].nuses; u++)
				for (k = 0; k < c->nodes[i].levels[l].uses[u].nparams; k++) {
					const struct fenced_param *p =
						&c->nodes[i].levels[l].uses[u].params[k];

					if (p->from_file && access(p->value, R_OK) != 0) {
						log_err("%s_file %s: %s", p->key, p->value,
							strerror(errno));
						n++;
					}
				}
	return n;
}

static void admin_cb(
	void *ud, const struct cpha_admin_peer *peer, const char *line, struct cpha_buf *reply)
{
	fenced_command(ud, peer->uid, line, reply);
}

static void metrics_cb(void *ud, struct cpha_buf *body)
{
	fenced_prometheus(ud, body);
}

static void on_stop(void *ud, int signo)
{
	struct fenced *d = ud;

	log_notice("signal %d: stopping", signo);
	sd_event_exit(d->e, 0);
}

static void on_reload(void *ud)
{
	fenced_reload(ud);
}

static int daemon_run(const char *path)
{
	static struct fenced d;
	struct cpha_event_ops ops = { .stop = on_stop, .reload = on_reload };
	struct cpha_msgs errs = { 0 };
	const char *sock;
	char why[512];
	size_t i;
	int r;

	cpha_log_open("fenced", getenv("JOURNAL_STREAM") ? CPHA_LOG_AUTO : CPHA_LOG_STDERR);
	d.config_path = path;
	if (fenced_cfg_load(path, &d.cfg, &errs) < 0 ||
		fenced_cfg_check_agents(d.cfg, fenced_agent_meta_run, NULL, &errs) > 0) {
		for (i = 0; i < errs.nerrs; i++)
			log_err("%s", errs.errs[i].text);
		log_err("%s: not started", path);
		cpha_msgs_free(&errs);
		fenced_cfg_free(d.cfg);
		return 1;
	}
	cpha_msgs_free(&errs);
	for (i = 0; i < d.cfg->nnotices; i++)
		log_notice("%s", d.cfg->notices[i]);
	if (unreadable_secrets(d.cfg)) {
		log_err("%s: not started: a secret file cannot be read", path);
		fenced_cfg_free(d.cfg);
		return 1;
	}
	/* the metrics listener's certificate: loaded to run, not by -c */
	if (cpha_webcfg_tls(d.cfg->global.metrics_web, why, sizeof(why)) < 0) {
		log_err("fenced_metrics_web_config: %s", why);
		log_err("%s: not started", path);
		fenced_cfg_free(d.cfg);
		return 1;
	}
	r = sd_event_default(&d.e);
	if (r >= 0)
		r = cpha_event_setup(d.e, &ops, &d);
	if (r < 0) {
		log_err("cannot start: %s", strerror(-r));
		return 1;
	}
	r = fenced_start(&d, why, sizeof(why));
	if (r < 0) {
		log_err("cannot start: %s", why);
		fenced_stop(&d);
		fenced_cfg_free(d.cfg);
		return 1;
	}
	sock = d.cfg->global.admin_socket ? d.cfg->global.admin_socket : FENCED_DEFAULT_SOCKET;
	r = cpha_admin_open(d.e, sock, 0600, admin_cb, &d, (struct cpha_admin **)&d.admin);
	if (r < 0)
		log_err("admin socket %s: %s", sock, strerror(-r));
	if (d.cfg->global.metrics_set) {
		r = cpha_metrics_listen(d.e, &d.cfg->global.metrics, metrics_cb, &d,
			(struct cpha_metrics **)&d.metrics);
		if (r == 0)
			r = cpha_metrics_set_web(d.metrics, d.cfg->global.metrics_web);
		if (r < 0) {
			log_err("metrics: %s", strerror(-r));
			cpha_metrics_close(d.metrics); /* never without its authentication */
			d.metrics = NULL;
		} else {
			cpha_metrics_set_status(d.metrics, fenced_status_json, &d);
		}
	}
	cpha_notify_ready("running");
	r = sd_event_loop(d.e);
	cpha_notify_stopping();
	fenced_stop(&d);
	cpha_admin_close(d.admin);
	cpha_metrics_close(d.metrics);
	fenced_cfg_free(d.cfg);
	sd_event_unref(d.e);
	log_notice("stopped");
	return r != 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *path = FENCED_DEFAULT_CONFIG, *cs_conf = COROSYNC_DEFAULT_CONFIG;
	char cmd[600];
	int i, chk = 0, quiet = 0;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-f") == 0 && i + 1 < argc) {
			path = argv[++i];
		} else if (strcmp(argv[i], "-C") == 0 && i + 1 < argc) {
			cs_conf = argv[++i];
		} else if (strcmp(argv[i], "-c") == 0) {
			chk = 1;
		} else if (strcmp(argv[i], "-q") == 0) {
			quiet = 1;
		} else if (strcmp(argv[i], "-d") == 0) {
			cpha_log_set_level(LOG_DEBUG);
		} else if (strcmp(argv[i], "-v") == 0) {
			printf("fenced (cpha) " CPHA_VERSION "\n");
			return 0;
		} else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			return 0;
		} else if (strcmp(argv[i], "show") == 0 && i + 2 >= argc) {
			snprintf(cmd, sizeof(cmd), "show%s%s", i + 1 < argc ? " " : "",
				i + 1 < argc ? argv[i + 1] : "");
			return client(path, cmd);
		} else if (strcmp(argv[i], "power-check") == 0 && i + 2 >= argc) {
			snprintf(cmd, sizeof(cmd), "power-check%s%.500s", i + 1 < argc ? " " : "",
				i + 1 < argc ? argv[i + 1] : "");
			return client(path, cmd);
		} else if (strcmp(argv[i], "ack") == 0 && i + 2 == argc) {
			snprintf(cmd, sizeof(cmd), "ack %.500s", argv[i + 1]);
			return client(path, cmd);
		} else {
			fprintf(stderr, "fenced: unknown argument '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		}
	}
	if (chk)
		return check(path, cs_conf, quiet);
	return daemon_run(path);
}
