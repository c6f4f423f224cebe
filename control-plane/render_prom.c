/* `cpha render`, the monitoring server's part (monitoring.prometheus):
 *
 *   cluster/prometheus/prometheus.yml   scrape jobs for every lbd, vipd and
 *                                       fenced, etcd, the apiservers and the
 *                                       textfiles of cpha status and check
 *   cluster/prometheus/cpha-rules.yml   the alert rules (as shipped in
 *                                       /usr/share/cpha)
 *   cluster/grafana/cpha-dashboard.json the dashboard (likewise)
 *   cluster/prometheus/cpha-status-textfile.{service,timer}
 *                                       `cpha status --textfile` every 30 s,
 *                                       on the Prometheus host
 *   HOST:/etc/systemd/system/cpha-check-textfile.{service,timer}
 *                                       `cpha check --textfile` every 5 min
 *   HOST:/etc/default/prometheus-haproxy-exporter, and its web
 *   configuration               where HAProxy is the load balancer:
 *                                       the community's exporter, on the
 *                                       stats socket, scraped as "haproxy"
 *
 * Which daemons a host runs is read from the files the other modules made
 * (render_all calls this one last). Pure: text from the model. */
#include <stdio.h>
#include <string.h>

#include "flags.h"
#include "render_ha.h"
#include "render_text.h"

/* monitoring/cpha-rules.yml and monitoring/cpha-dashboard.json, compiled in */
extern const char cpha_rules_yml[];
extern const char cpha_dashboard_json[];

#define put render_text_put

#define PROM_DIR           "prometheus/"
#define CHECK_UNIT         "/etc/systemd/system/cpha-check-textfile"
#define STATUS_UNIT        PROM_DIR "cpha-status-textfile"
#define NODE_EXPORTER_PORT 9100 /* prometheus-node-exporter's default */

/* The web configuration the daemons' listeners ask for, from the scraper's
 * side: HTTPS verified with cpha's CA, and the basic-auth password. */
static void daemon_auth(const struct cp_cluster *c, struct cpha_buf *b)
{
	const char *dir = c->mon.prom.dir;

	if (c->mon.cert_file)
		put(b,
			"    scheme: https\n"
			"    tls_config:\n"
			"      ca_file: %s/pki/ca.pem\n",
			dir);
	if (c->mon.user)
		put(b,
			"    basic_auth:\n"
			"      username: %s\n"
			"      password_file: %s/metrics-password\n",
			c->mon.user, dir);
}

/* One static target of host h on port, labelled with the host's name. */
static void target(
	const struct cp_cluster *c, const struct cp_host *h, unsigned port, struct cpha_buf *b)
{
	struct cpha_addr a;
	char hp[CPHA_ADDR_STRLEN + 8];

	if (!render_mon_reach(c, h, false, &a))
		a = h->addr;
	put(b,
		"      - targets: ['%s']\n"
		"        labels: {host: %s}\n",
		render_text_hostport(&a, port, hp, sizeof(hp)), h->name);
}

/* A job of the cpha daemons: every host that has the daemon's file. */
static void daemon_job(const struct cp_cluster *c, struct render_set *s, const char *job,
	const char *conf, unsigned port, struct cpha_buf *b)
{
	bool any = false;

	for (size_t i = 0; i < c->nhosts; i++)
		any |= render_find(s, c->hosts[i].name, conf) != NULL;
	if (!any)
		return;
	put(b, "  - job_name: %s\n", job);
	daemon_auth(c, b);
	put(b, "    static_configs:\n");
	for (size_t i = 0; i < c->nhosts; i++)
		if (render_find(s, c->hosts[i].name, conf))
			target(c, &c->hosts[i], port, b);
}

static void prometheus_yml(const struct cp_cluster *c, struct render_set *s, struct cpha_buf *b)
{
	const struct cp_prometheus *p = &c->mon.prom;
	const char *dir = p->dir;

	put(b,
		"# Prometheus for the cluster %s: every daemon of the HA control plane,\n"
		"# etcd and the apiservers, with cpha's alert rules.\n"
		"# Rendered by `cpha render` from the cluster description: change that, not\n"
		"# this file (or copy its scrape_configs into your own configuration).\n"
		"#\n"
		"# On the Prometheus host, %s holds (docs/monitoring.md):\n"
		"#   pki/              a copy of cpha pki's directory without the CA keys\n"
		"#                     (ca.pem, prometheus.pem and its key for the scrapes;\n"
		"#                     etcd-client and admin for cpha status)\n",
		c->name, dir);
	if (c->mon.user)
		put(b, "#   metrics-password  the password of monitoring.basic_auth\n");
	put(b,
		"# and cpha-rules.yml sits beside this file.\n"
		"global:\n"
		"  scrape_interval: %llus\n"
		"  evaluation_interval: %llus\n"
		"  external_labels:\n"
		"    cpha_cluster: %s\n"
		"rule_files:\n"
		"  - cpha-rules.yml\n",
		(unsigned long long)(p->scrape_usec / 1000000),
		(unsigned long long)(p->eval_usec / 1000000), c->name);
	if (p->alertmanagers && p->alertmanagers[0]) {
		put(b, "alerting:\n"
		       "  alertmanagers:\n"
		       "    - static_configs:\n"
		       "        - targets:\n");
		for (char **a = p->alertmanagers; *a; a++)
			put(b, "            - '%s'\n", *a);
	}
	put(b, "scrape_configs:\n");
	daemon_job(c, s, "cpha-lbd", RENDER_LBD_CFG, RENDER_LBD_METRICS_PORT, b);
	daemon_job(c, s, "cpha-vipd", RENDER_VIPD_CONF, RENDER_VIPD_METRICS_PORT, b);
	daemon_job(c, s, "cpha-fenced", RENDER_FENCED_CONF, RENDER_FENCED_METRICS_PORT, b);
	/* HAProxy in lbd's place: its exporter, behind the same web
	 * configuration as the daemons' (haproxy_exporter()) */
	daemon_job(c, s, "haproxy", RENDER_HAPROXY_CFG, RENDER_HAPROXY_EXPORTER_PORT, b);

	/* etcd's metrics listener (render_master: listen-metrics-urls); with
	 * TLS it asks for a client certificate of cpha's CA */
	put(b, "  - job_name: etcd\n");
	if (c->mon.cert_file)
		put(b,
			"    scheme: https\n"
			"    tls_config:\n"
			"      ca_file: %s/pki/ca.pem\n"
			"      cert_file: %s/pki/prometheus.pem\n"
			"      key_file: %s/pki/prometheus-key.pem\n",
			dir, dir, dir);
	put(b, "    static_configs:\n");
	for (size_t i = 0; i < c->netcd; i++)
		target(c, &c->hosts[c->etcd[i]], FLAGS_ETCD_METRICS_PORT, b);

	/* the apiservers' /metrics: the system:monitoring group may read it */
	put(b,
		"  - job_name: apiserver\n"
		"    scheme: https\n"
		"    tls_config:\n"
		"      ca_file: %s/pki/ca.pem\n"
		"      cert_file: %s/pki/prometheus.pem\n"
		"      key_file: %s/pki/prometheus-key.pem\n"
		"    static_configs:\n",
		dir, dir, dir);
	for (size_t i = 0; i < c->nhosts; i++) {
		const struct cp_host *h = &c->hosts[i];
		char hp[CPHA_ADDR_STRLEN + 8];

		if (!(h->roles & CP_ROLE_MASTER))
			continue;
		put(b,
			"      - targets: ['%s']\n"
			"        labels: {host: %s}\n",
			render_text_hostport(&h->addr, c->api_port, hp, sizeof(hp)), h->name);
	}

	/* the textfiles: cpha check on every host, cpha status here */
	put(b, "  - job_name: cpha-textfile\n"
	       "    params:\n"
	       "      collect[]: [textfile]  # node-exporter's other collectors are not ours\n"
	       "    static_configs:\n");
	for (size_t i = 0; i < c->nhosts; i++)
		if (render_find(s, c->hosts[i].name, CHECK_UNIT ".timer"))
			target(c, &c->hosts[i], NODE_EXPORTER_PORT, b);
	put(b,
		"      - targets: ['localhost:%u']\n"
		"        labels: {host: prometheus}\n",
		NODE_EXPORTER_PORT);
}

/* A oneshot service and the timer that starts it every period. */
static void timer_units(struct render_set *s, const char *host, const char *stem, const char *what,
	const char *exec, const char *period)
{
	char path[256];
	struct cpha_buf *b;

	snprintf(path, sizeof(path), "%s.service", stem);
	b = render_add(s, host, path, 0644, RENDER_CHECK_NONE);
	put(b,
		"# Rendered by `cpha render` from the cluster description.\n"
		"[Unit]\n"
		"Description=%s, for Prometheus (node-exporter's textfile collector)\n"
		"Documentation=man:cpha(1)\n"
		"\n"
		"[Service]\n"
		"Type=oneshot\n"
		"ExecStart=%s\n"
		"# drift, or a degraded cluster, is an answer: the metrics say it\n"
		"SuccessExitStatus=1 2\n",
		what, exec);
	snprintf(path, sizeof(path), "%s.timer", stem);
	b = render_add(s, host, path, 0644, RENDER_CHECK_NONE);
	put(b,
		"# Rendered by `cpha render` from the cluster description.\n"
		"[Unit]\n"
		"Description=%s, every %s\n"
		"Documentation=man:cpha(1)\n"
		"\n"
		"[Timer]\n"
		"OnActiveSec=10s\n"
		"OnUnitActiveSec=%s\n"
		"AccuracySec=1s\n"
		"\n"
		"[Install]\n"
		"WantedBy=timers.target\n",
		what, period, period);
}

/* prometheus-haproxy-exporter on an LB host of HAProxy: it reads the
 * read-only stats socket (render_lb.c) and serves haproxy_* metrics on the
 * host's monitoring address, with the daemons' TLS and basic auth. It runs
 * as the user prometheus, who must read the socket (group haproxy) and the
 * metrics key (docs/monitoring.md, "HAProxy and keepalived"). */
static void haproxy_exporter(const struct cp_cluster *c, const struct cp_host *h,
	struct render_set *s)
{
	char a[CPHA_ADDR_STRLEN + 8];
	bool web = render_mon_web(c);
	struct cpha_buf *b;

	/* the web configuration first: render_add may move the buffers of the
	 * files added before it */
	if (web)
		render_mon_web_file(c, h, "prometheus-haproxy-exporter",
			render_add(s, h->name, RENDER_HAPROXY_EXPORTER_WEB, 0640,
				RENDER_CHECK_YAML));
	b = render_add(s, h->name, RENDER_HAPROXY_EXPORTER_ARGS, 0644, RENDER_CHECK_NONE);
	put(b,
		"# prometheus-haproxy-exporter on %s: HAProxy's read-only stats socket,\n"
		"# served where Prometheus scrapes the job haproxy.\n"
		"# Rendered by `cpha render` from the cluster description: change that, not "
		"this file.\n"
		"ARGS=\"--haproxy.scrape-uri=unix:" RENDER_HAPROXY_STATS_SOCKET
		" --web.listen-address=%s%s\"\n",
		h->name, render_mon_bind(c, h, RENDER_HAPROXY_EXPORTER_PORT, a, sizeof(a)),
		web ? " --web.config.file=" RENDER_HAPROXY_EXPORTER_WEB : "");
}

int render_prom(const struct cp_cluster *c, struct render_set *s, struct cpha_msgs *d)
{
	const struct cp_prometheus *p = &c->mon.prom;
	char exec[1024];

	(void)d;
	if (!p->on)
		return 0;
	for (size_t i = 0; i < c->nhosts; i++) {
		const struct cp_host *h = &c->hosts[i];

		if (!(h->roles & (CP_ROLE_MASTER | CP_ROLE_LB)))
			continue;
		snprintf(exec, sizeof(exec),
			"/usr/bin/cpha -f /etc/cpha/cluster.yaml check --host %s --textfile "
			"%s/cpha-check.prom",
			h->name, p->textfile_dir);
		timer_units(
			s, h->name, CHECK_UNIT, "cpha check of this host's files", exec, "5min");
		if (render_find(s, h->name, RENDER_HAPROXY_CFG))
			haproxy_exporter(c, h, s);
	}
	snprintf(exec, sizeof(exec),
		"/usr/bin/cpha -f /etc/cpha/cluster.yaml status --pki %s/pki --quiet --textfile "
		"%s/cpha-status.prom",
		p->dir, p->textfile_dir);
	timer_units(s, NULL, STATUS_UNIT, "cpha status of the cluster", exec, "30s");

	prometheus_yml(
		c, s, render_add(s, NULL, PROM_DIR "prometheus.yml", 0644, RENDER_CHECK_YAML));
	put(render_add(s, NULL, PROM_DIR "cpha-rules.yml", 0644, RENDER_CHECK_YAML), "%s",
		cpha_rules_yml);
	put(render_add(s, NULL, "grafana/cpha-dashboard.json", 0644, RENDER_CHECK_NONE), "%s",
		cpha_dashboard_json);
	return 0;
}
