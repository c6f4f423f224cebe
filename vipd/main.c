/* vipd: VRRP (v3, and v2 for keepalived's defaults) floating-VIP daemon
 * reading keepalived's configuration language. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "admin.h"
#include "cfg.h"
#include "duration.h"
#include "event.h"
#include "garp.h"
#include "log.h"
#include "metrics.h"
#include "webcfg.h"
#include "vipd.h"

#define VIPD_DEFAULT_CONFIG "/etc/vipd/vipd.conf"
#define VIPD_DEFAULT_SOCKET "/run/vipd/admin.sock"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: vipd [-f FILE] [-i ID] [-c] [-q] [-d] [-v]\n"
		"  -f FILE  configuration file, keepalived's language (default " VIPD_DEFAULT_CONFIG
		")\n"
		"  -i ID    config id for keepalived's '@ID' lines (default: the host name up\n"
		"           to its first '.')\n"
		"  -c       check the configuration, print every error and warning, exit 0 or 1\n"
		"  -q       quiet: with -c, print nothing when the file is valid\n"
		"  -d       debug logging\n"
		"  -v       print the version\n"
		"Signals: SIGHUP reloads (unchanged instances keep their state), SIGTERM and\n"
		"SIGINT stop (a master sends priority 0 so a backup takes over at once).\n");
}

static void print_msgs(char **m, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		fprintf(stderr, "%s\n", m[i]);
}

static int check_config(const char *path, int quiet)
{
	struct cpha_msgs errs = { 0 };
	struct vipd_config *c = NULL;

	if (vipd_cfg_load(path, &c, &errs) < 0) {
		cpha_msgs_print(errs.errs, errs.nerrs, stderr);
		fprintf(stderr, "%s: configuration has %zu error%s\n", path, errs.nerrs,
			errs.nerrs == 1 ? "" : "s");
		cpha_msgs_free(&errs);
		return 1;
	}
	print_msgs(c->notices, c->nnotices);
	if (!quiet)
		printf("Configuration file is valid\n");
	vipd_cfg_free(c);
	return 0;
}

static void on_nl(void *userdata, enum vipd_nl_event ev, int ifindex, bool up,
	const struct cpha_addr *addr, unsigned prefixlen)
{
	(void)prefixlen;
	inst_netlink_event(userdata, ev, ifindex, up, addr);
}

static void admin_cb(void *userdata, const struct cpha_admin_peer *peer, const char *line,
	struct cpha_buf *reply)
{
	(void)peer;
	vipd_stats_command(userdata, line, reply);
}

static void metrics_cb(void *userdata, struct cpha_buf *body)
{
	vipd_stats_prometheus(userdata, body);
}

static void open_interfaces(struct vipd *d)
{
	const char *path =
		d->cfg->global.admin_socket ? d->cfg->global.admin_socket : VIPD_DEFAULT_SOCKET;
	char a[CPHA_ADDR_STRLEN];
	int r;

	if (d->admin && strcmp(d->admin_path, path) != 0) {
		cpha_admin_close(d->admin);
		d->admin = NULL;
		free(d->admin_path);
		d->admin_path = NULL;
	}
	if (!d->admin) {
		r = cpha_admin_open(d->e, path, 0600, admin_cb, d, (struct cpha_admin **)&d->admin);
		if (r < 0)
			log_err("admin socket %s: %s", path, strerror(-r));
		else
			d->admin_path = strdup(path);
	}
	if (d->metrics) {
		cpha_metrics_close(d->metrics);
		d->metrics = NULL;
	}
	if (d->cfg->global.metrics_set) {
		r = cpha_metrics_listen(d->e, &d->cfg->global.metrics, metrics_cb, d,
			(struct cpha_metrics **)&d->metrics);
		if (r == 0)
			r = cpha_metrics_set_web(d->metrics, d->cfg->global.metrics_web);
		if (r < 0) {
			log_err("metrics %s: %s",
				cpha_addr_format(&d->cfg->global.metrics, a, sizeof(a)),
				strerror(-r));
			cpha_metrics_close(d->metrics); /* never without its authentication */
			d->metrics = NULL;
		} else {
			cpha_metrics_set_status(d->metrics, vipd_status_json, d);
		}
	}
}

/* Start every instance of d->cfg; reuse the running ones in keep (by name,
 * same VRRP settings). */
static int start_instances(struct vipd *d, struct vipd_inst **keep, size_t nkeep)
{
	size_t i, j;
	int r, failed = 0;

	d->inst = calloc(d->cfg->ninstances ? d->cfg->ninstances : 1, sizeof(*d->inst));
	if (!d->inst)
		return -ENOMEM;
	for (i = 0; i < d->cfg->ninstances; i++) {
		struct vipd_instance *c = &d->cfg->instances[i];
		struct vipd_inst *in = NULL;

		for (j = 0; j < nkeep; j++)
			if (keep[j] && strcmp(keep[j]->name, c->name) == 0 &&
				inst_same_vrrp(keep[j]->cfg, c)) {
				in = keep[j];
				keep[j] = NULL;
				break;
			}
		if (in) {
			/* unchanged: keep the state, pick up new tracking */
			in->cfg = c;
			in->sm.cfg.resign_grace = inst_resign_grace(d, c);
			r = track_reattach(in);
			if (r < 0)
				return r;
			d->inst[d->ninst++] = in;
			inst_track_changed(in);
			log_notice("instance %s: kept in state %s across the reload", in->name,
				inst_state_name(in));
			continue;
		}
		r = inst_start(d, c, &in);
		if (r < 0) {
			failed++;
			continue;
		}
		d->inst[d->ninst++] = in;
	}
	return failed ? -EINVAL : 0;
}

static int on_exit_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct vipd *d = userdata;

	(void)s;
	(void)usec;
	log_warn("notify fifo scripts still running after 2 s: stopping them");
	sd_event_exit(d->e, 0);
	return 0;
}

static void on_stop(void *userdata, int signo)
{
	struct vipd *d = userdata;

	if (d->stopping)
		return;
	log_notice("stopping on signal %d", signo);
	cpha_notify_stopping();
	d->stopping = true;
	sync_stop_all(d);
	bfd_teardown(d, true); /* AdminDown to every neighbor */
	/* the fifo scripts read the STOP lines, then end of file */
	vipd_fifo_shutdown(d, true);
	if (vipd_fifo_scripts_running(d) &&
		sd_event_add_time_relative(d->e, &d->exit_timer, CLOCK_MONOTONIC,
			2 * CPHA_USEC_PER_SEC, 0, on_exit_timer, d) >= 0)
		return;
	sd_event_exit(d->e, 0);
}

/* vrrp_startup_delay and vrrp_delay_after_boot: the later end. */
static void startup_hold(struct vipd *d)
{
	const struct vipd_global *g = &d->cfg->global;
	uint64_t now = cpha_now_usec(CLOCK_MONOTONIC), boot = cpha_now_usec(CLOCK_BOOTTIME);
	uint64_t until = 0;

	if (g->startup_delay)
		until = now + g->startup_delay;
	if (g->delay_after_boot > boot && now + (g->delay_after_boot - boot) > until)
		until = now + (g->delay_after_boot - boot);
	d->hold_until = until;
	if (until)
		log_notice("no instance becomes master for %.3f s (%s)",
			(double)(until - now) / CPHA_USEC_PER_SEC,
			g->startup_delay && until == now + g->startup_delay
				? "vrrp_startup_delay"
				: "vrrp_delay_after_boot");
}

static void on_reload(void *userdata)
{
	struct vipd *d = userdata;
	struct cpha_msgs errs = { 0 };
	struct vipd_config *c = NULL, *old;
	struct vipd_inst **keep;
	size_t i, nkeep;
	char why[512];

	cpha_notify_reloading();
	if (vipd_cfg_load(d->config_path, &c, &errs) < 0) {
		for (i = 0; i < errs.nerrs; i++)
			log_err("%s", errs.errs[i].text);
		log_err("reload refused: the previous configuration stays");
		cpha_msgs_free(&errs);
		cpha_notify_ready("reload refused");
		return;
	}
	for (i = 0; i < c->nnotices; i++)
		log_notice("%s", c->notices[i]);
	/* the metrics listener's certificate: loaded to run, not by -c */
	if (cpha_webcfg_tls(c->global.metrics_web, why, sizeof(why)) < 0) {
		log_err("vipd_metrics_web_config: %s", why);
		log_err("reload refused: the previous configuration stays");
		vipd_cfg_free(c);
		cpha_notify_ready("reload refused");
		return;
	}
	keep = d->inst;
	nkeep = d->ninst;
	d->inst = NULL;
	d->ninst = 0;
	track_teardown(d);
	old = d->cfg;
	d->cfg = c;
	vipd_fifo_setup(d, old);
	if (track_setup(d) < 0)
		log_err("reload: tracking could not be set up");
	if (bfd_setup(d) < 0)
		log_err("reload: some BFD sessions did not start (see above)");
	sync_freeze(d);
	if (start_instances(d, keep, nkeep) < 0)
		log_err("reload: some instances did not start (see above)");
	if (sync_setup(d) < 0)
		log_err("reload: sync groups could not be set up");
	/* instances gone or changed: leave gracefully */
	for (i = 0; i < nkeep; i++)
		if (keep[i]) {
			inst_stop(keep[i], true);
			inst_free(keep[i]);
		}
	free(keep);
	vipd_cfg_free(old);
	if (d->cfg->global.fifo_states_on_reload)
		sync_write_states(d);
	open_interfaces(d);
	d->reloads++;
	log_notice("reloaded %s", d->config_path);
	cpha_notify_ready("reloaded");
}

int main(int argc, char **argv)
{
	static struct vipd d;
	struct cpha_event_ops ops = { .stop = on_stop, .reload = on_reload };
	struct cpha_msgs errs = { 0 };
	int i, check = 0, quiet = 0, r;
	char why[512];
	size_t k;

	d.config_path = VIPD_DEFAULT_CONFIG;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-f") == 0 && i + 1 < argc)
			d.config_path = argv[++i];
		else if ((strcmp(argv[i], "-i") == 0 || strcmp(argv[i], "--config-id") == 0) &&
			 i + 1 < argc)
			vipd_cfg_set_config_id(argv[++i]);
		else if (strcmp(argv[i], "-c") == 0)
			check = 1;
		else if (strcmp(argv[i], "-q") == 0)
			quiet = 1;
		else if (strcmp(argv[i], "-d") == 0)
			cpha_log_set_level(LOG_DEBUG);
		else if (strcmp(argv[i], "-v") == 0) {
			printf("vipd (cpha) " CPHA_VERSION "\n");
			return 0;
		} else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "vipd: unknown argument '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		}
	}
	if (check)
		return check_config(d.config_path, quiet);

	cpha_log_open("vipd", getenv("JOURNAL_STREAM") ? CPHA_LOG_AUTO : CPHA_LOG_STDERR);
	if (vipd_cfg_load(d.config_path, &d.cfg, &errs) < 0) {
		cpha_msgs_print(errs.errs, errs.nerrs, stderr);
		cpha_msgs_free(&errs);
		return 1;
	}
	for (k = 0; k < d.cfg->nnotices; k++)
		log_notice("%s", d.cfg->notices[k]);
	if (cpha_webcfg_tls(d.cfg->global.metrics_web, why, sizeof(why)) < 0) {
		log_err("vipd_metrics_web_config: %s", why);
		vipd_cfg_free(d.cfg);
		return 1;
	}
	d.up.track_changed = inst_track_changed;
	d.up.apply = inst_apply;
	d.up.member_changed = sync_member_changed;
	d.up.group_changed = sync_group_changed;
	r = sd_event_default(&d.e);
	if (r >= 0)
		r = cpha_event_setup(d.e, &ops, &d);
	if (r >= 0)
		r = vipd_nl_open(d.e, on_nl, &d, &d.nl);
	if (r >= 0)
		r = track_setup(&d);
	if (r >= 0)
		r = bfd_setup(&d);
	if (r < 0) {
		log_err("cannot start: %s", strerror(-r));
		return 1;
	}
	vipd_fifo_setup(&d, NULL);
	startup_hold(&d);
	if (start_instances(&d, NULL, 0) < 0) {
		log_err("cannot start every instance; stopping");
		for (k = 0; k < d.ninst; k++)
			inst_stop(d.inst[k], true);
		vipd_fifo_shutdown(&d, false);
		return 1;
	}
	if (sync_setup(&d) < 0) {
		log_err("cannot set up sync groups");
		vipd_fifo_shutdown(&d, false);
		return 1;
	}
	open_interfaces(&d);
	log_notice("vipd %s started: %zu instances", CPHA_VERSION, d.ninst);
	cpha_notify_ready("running");
	r = sd_event_loop(d.e);
	for (k = 0; k < d.ninst; k++)
		inst_free(d.inst[k]);
	sync_teardown(&d);
	vipd_fifo_shutdown(&d, false);
	sd_event_source_disable_unref(d.exit_timer);
	free(d.inst);
	bfd_teardown(&d, false);
	track_teardown(&d);
	cpha_admin_close(d.admin);
	cpha_metrics_close(d.metrics);
	free(d.admin_path);
	vipd_nl_close(d.nl);
	garp_close();
	vipd_cfg_free(d.cfg);
	sd_event_unref(d.e);
	log_notice("stopped");
	return r < 0 ? 1 : 0;
}
