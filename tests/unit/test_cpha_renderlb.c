/* cpha render for the LB hosts and the HA layer (render_lb.c, render_ha.c,
 * render_pcs.c): the text of every file, from the fixtures in
 * tests/fixtures/cpha and small variants written here. The CIB, which
 * needs pcs, is integration.cpha_render_checkers's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cluster.h"
#include "cpha.h"
#include "render.h"
#include "render_ha.h"
#include "renderlb_test.h"

/* The shipped sample, tests/samples/cluster.yaml, from tests/fixtures/cpha/ */
#define SAMPLE "../../samples/cluster.yaml"

/* Two hosts' files are the same but for the header and the host's own
 * address (where the daemons' /metrics and /status listen). */
static void same_but_host(const char *a, const char *addr_a, const char *b, const char *addr_b)
{
	struct cpha_buf x = { 0 };
	size_t lb = strlen(addr_b);
	const char *p;

	for (p = body(b); *p;) {
		if (strncmp(p, addr_b, lb) == 0) {
			cpha_buf_puts(&x, addr_a);
			p += lb;
		} else {
			cpha_buf_append(&x, p++, 1);
		}
	}
	assert_string_equal(body(a), x.data);
	cpha_buf_free(&x);
}

/* ---- render_lb: the sample (lbd + vipd on two LB hosts) ---- */

static void test_sample_lbd(void **state)
{
	struct cp_cluster *c = load_fixture(SAMPLE);
	struct render_set s = { 0 };
	struct cpha_msgs d = { 0 };
	const char *t;

	(void)state;
	assert_int_equal(render_lb(c, &s, &d), 0);
	assert_int_equal(d.nerrs, 0);
	/* two LB hosts, two files each; nothing for the masters */
	assert_int_equal(s.n, 4);
	assert_null(render_find(&s, "kubem00", "/etc/lbd/lbd.cfg"));
	assert_null(render_find(&s, "lb00", "/etc/sysctl.d/60-cpha-lb.conf"));
	assert_int_equal(render_find(&s, "lb00", "/etc/lbd/lbd.cfg")->check, RENDER_CHECK_LBD);
	assert_int_equal(render_find(&s, "lb01", "/etc/vipd/vipd.conf")->check, RENDER_CHECK_VIPD);

	t = text_of(&s, "lb00", "/etc/lbd/lbd.cfg");
	has(t, "\nglobal\n    log stdout format raw local0\n"
	       "    stats socket /run/lbd/admin.sock mode 600 level admin\n");
	/* /metrics and /status on loopback: no monitoring: in the description */
	has(t, "    metrics-bind 127.0.0.1:9120\n");
	lacks(t, "metrics-web-config");
	assert_null(render_find(&s, "lb00", "/etc/lbd/metrics-web.yml"));
	/* the classic listen section, improved */
	has(t, "\nlisten apiserver\n    bind :6443\n    mode tcp\n    option tcplog\n"
	       "    balance roundrobin\n    option httpchk\n    http-check connect ssl\n"
	       "    http-check send meth GET uri /readyz\n    http-check expect status 200\n");
	has(t, "    default-server check verify none inter 2s fastinter 1s downinter 5s rise 2 "
	       "fall 2 slowstart 60s maxconn 1000 maxqueue 256 weight 100 on-marked-down "
	       "shutdown-sessions shutdown-sessions-spread 10s\n");
	/* a powered-off master: hedged around at once, down after 3 connects */
	has(t, "    hedge 100ms\n    default-server observe layer4 error-limit 3 on-error "
	       "mark-down\n    server kubem00 ");
	has(t, "    server kubem00 10.10.10.80:6443\n    server kubem01 10.10.10.81:6443\n"
	       "    server kubem02 10.10.10.82:6443\n\n");
	assert_int_equal(count(t, "    server "), 3);
	lacks(t, "server lb0"); /* an LB host is no server */
	has(t, "\nfrontend monitor\n    bind 127.0.0.1:8404\n    bind 10.10.10.3:8404\n"
	       "    mode http\n    no log\n"
	       "    monitor-uri /healthz\n    monitor fail if { nbsrv(apiserver) lt 1 }\n"
	       "    http-request use-service prometheus-exporter if { path /metrics }\n");
	/* tcplog only where traffic is: the monitor frontend logs nothing */
	assert_int_equal(count(t, "option tcplog"), 1);
	/* the same on both hosts but for the header and the host's address */
	same_but_host(t, "10.10.10.3", text_of(&s, "lb01", "/etc/lbd/lbd.cfg"), "10.10.10.4");

	t = text_of(&s, "lb00", "/etc/vipd/vipd.conf");
	has(t, "global_defs {\n    router_id lb00\n    vrrp_version 3\n");
	has(t, "    vrrp_startup_delay 15\n    vipd_admin_socket /run/vipd/admin.sock\n");
	has(t, "    vipd_metrics_bind 127.0.0.1:9121\n");
	has(t, "    vipd_reset_connections\n");
	has(t, "    vipd_quiesce 0.3\n}\n");
	has(t, "vrrp_instance apiserver {\n    state BACKUP\n    interface eth0\n");
	has(t, "    priority 150\n    advert_int 1\n    unicast_src_ip 10.10.10.3\n"
	       "    unicast_peer {\n        10.10.10.4\n    }\n");
	has(t, "    virtual_ipaddress {\n        10.10.10.2/24 dev eth0\n    }\n");
	/* 150 - 51 = 99: below the peer's 140 and below 100 */
	has(t, "    track_lbd {\n        /run/lbd/admin.sock apiserver 1 weight -51\n    }\n");
	has(t, "    track_fenced /run/fenced/admin.sock\n}\n");
	/* cpha drain lb00: the file's value puts the instance in FAULT */
	has(t, "track_file lb_drain {\n    file /var/lib/cpha/lb-drain\n}\n");
	has(t, "    track_file {\n        lb_drain weight 0\n    }\n");
	has(t, "`cpha drain lb00` writes 1 here");
	/* vipd preempts: it resets the connections on a VIP it gives up */
	lacks(t, "nopreempt");
	lacks(t, "authentication {");
	lacks(t, "auth_pass");
	lacks(t, "vrrp_script"); /* vipd reads lbd's socket itself */
	{
		char vrid[64];
		snprintf(vrid, sizeof(vrid), "    virtual_router_id %u\n",
			cluster_derive_vrid("kubernetes"));
		has(t, vrid);
	}
	/* a BFD session to the other LB host (vipd extension: its drop asks
	 * fenced for the holder's power at once), and no track_bfd, which
	 * would put a backup in FAULT when the master dies */
	has(t, "bfd_instance lb01 {\n    neighbor_ip 10.10.10.4\n    source_ip 10.10.10.3\n"
	       "    min_rx 50\n    min_tx 50\n    idle_tx 1000\n    multiplier 3\n}\n");
	assert_int_equal(count(t, "bfd_instance "), 1);
	lacks(t, "track_bfd");
	assert_true(strstr(t, "bfd_instance") < strstr(t, "vrrp_instance"));
	t = text_of(&s, "lb01", "/etc/vipd/vipd.conf");
	has(t, "bfd_instance lb00 {\n    neighbor_ip 10.10.10.3\n    source_ip 10.10.10.4\n");
	has(t, "    router_id lb01\n");
	has(t, "    priority 140\n    advert_int 1\n    unicast_src_ip 10.10.10.4\n"
	       "    unicast_peer {\n        10.10.10.3\n    }\n");
	render_set_free(&s);
	cpha_msgs_free(&d);
	cluster_free(c);
}

/* ---- render_lb: five masters with HAProxy and keepalived ---- */

static void test_five_haproxy(void **state)
{
	struct cp_cluster *c = load_fixture("five-haproxy.yaml");
	struct render_set s = { 0 };
	struct cpha_msgs d = { 0 };
	const char *t;

	(void)state;
	assert_int_equal(render_lb(c, &s, &d), 0);
	assert_int_equal(s.n, 15); /* five hosts: haproxy.cfg, keepalived.conf, sysctl */
	assert_int_equal(render_find(&s, "kubem03", "/etc/haproxy/haproxy.cfg")->check,
		RENDER_CHECK_HAPROXY);
	assert_int_equal(render_find(&s, "kubem04", "/etc/keepalived/keepalived.conf")->check,
		RENDER_CHECK_KEEPALIVED);
	assert_null(render_find(&s, "kubem00", "/etc/lbd/lbd.cfg"));

	t = text_of(&s, "kubem00", "/etc/haproxy/haproxy.cfg");
	/* lbd's own hedge, and the passive health lbd's file sets, stay out */
	lacks(t, "hedge");
	lacks(t, "observe");
	/* the apiserver has 6443 on the master's address: the VIP only */
	has(t, "\nlisten apiserver\n    bind 198.18.0.10:6443\n");
	lacks(t, "bind :6443");
	assert_int_equal(count(t, "    server kubem0"), 5);
	has(t, "    server kubem04 198.18.0.15:6443\n");
	has(t, "    stats socket /run/haproxy/admin.sock mode 660 level admin\n");
	has(t, "    chroot /var/lib/haproxy\n    user haproxy\n    group haproxy\n");
	lacks(t, "shutdown-sessions-spread"); /* lbd's, HAProxy refuses it */
	lacks(t, "/run/lbd");

	t = text_of(&s, "kubem00", "/etc/sysctl.d/60-cpha-lb.conf");
	has(t, "\nnet.ipv4.ip_nonlocal_bind = 1\n");

	t = text_of(&s, "kubem02", "/etc/keepalived/keepalived.conf");
	has(t, "    router_id kubem02\n    vrrp_version 3\n");
	has(t, "    vrrp_startup_delay 15\n    script_user root\n"
	       "    enable_script_security\n}\n");
	lacks(t, "vipd_");
	lacks(t, "track_fenced"); /* vipd's */
	lacks(t, "bfd_instance"); /* vipd's use of it; keepalived's stays as it was */
	lacks(t, "track_lbd");
	/* keepalived drains the same way (track_file, keepalived.conf(5)) */
	has(t, "track_file lb_drain {\n    file /var/lib/cpha/lb-drain\n}\n");
	has(t, "    track_file {\n        lb_drain weight 0\n    }\n");
	has(t, "vrrp_script lb_healthy {\n    script \"/bin/bash -c 'c() { exec "
	       "3<>/dev/tcp/127.0.0.1/8404 && echo GET /healthz HTTP/1.0 >&3 && echo >&3 && "
	       "head -c 12 <&3 | grep -q HTTP/1.[01].200; }; c || { sleep 0.5; c; }'\"\n");
	/* no quote or dollar inside the command: keepalived and vipd split it alike */
	{
		const char *sc = strstr(t, "script \"") + 8, *end = strchr(sc, '\n');
		for (const char *p = sc; p < end - 1; p++)
			assert_true(*p != '"' && *p != '$' && *p != '\\');
	}
	/* no weight: a failing check puts the instance in FAULT (keepalived's
	 * default weight 0), since under nopreempt a lower priority would keep
	 * the VIP on a host whose HAProxy has no apiserver */
	has(t, "    rise 2\n    fall 2\n");
	/* in the script and in track_script; the drain file's weight 0 is FAULT */
	assert_int_equal(count(t, " weight "), 1);
	has(t, "lb_drain weight 0\n");
	/* keepalived applies init_fail again at every reload: with no weight
	 * that would be FAULT, the VIP dropped at each reload */
	lacks(t, "    init_fail\n");
	has(t, "    virtual_router_id 42\n    priority 130\n    advert_int 1\n");
	/* no failback: keepalived cannot reset the connections on the VIP */
	has(t, "    nopreempt\n    unicast_src_ip 198.18.0.13\n");
	assert_int_equal(count(t, "nopreempt\n"), 1);
	has(t, "vrrp_instance apiserver {\n    state BACKUP\n"); /* nopreempt needs it */
	lacks(t, "state MASTER");
	has(t, "    unicast_src_ip 198.18.0.13\n    unicast_peer {\n        198.18.0.11\n"
	       "        198.18.0.12\n        198.18.0.14\n        198.18.0.15\n    }\n");
	has(t, "    track_script {\n        lb_healthy\n    }\n");
	render_set_free(&s);
	cpha_msgs_free(&d);
	cluster_free(c);
}

/* vipd in front of HAProxy: a track script (HAProxy's socket is not
 * lbd's), and track_fenced. */
static void test_vipd_haproxy(void **state)
{
	struct cp_cluster *c =
		load_variant(SAMPLE, NULL, "load_balancer: lbd ", "load_balancer: haproxy ", NULL);
	struct render_set s = { 0 };
	struct cpha_msgs d = { 0 };
	const char *t;

	(void)state;
	assert_int_equal(render_lb(c, &s, &d), 0);
	t = text_of(&s, "lb00", "/etc/vipd/vipd.conf");
	has(t, "    script_user root\n    enable_script_security\n");
	has(t, "vrrp_script lb_healthy {\n");
	/* vipd keeps the weight and preempts (it resets the connections on a
	 * VIP it gives up): only keepalived's instance goes to FAULT */
	has(t, "    fall 2\n    weight -51\n    ! failing until it has succeeded rise times\n"
	       "    init_fail\n}\n");
	lacks(t, "nopreempt");
	has(t, "    track_script {\n        lb_healthy\n    }\n");
	has(t, "    track_fenced /run/fenced/admin.sock\n");
	lacks(t, "track_lbd");
	/* apart from the masters: every address */
	has(text_of(&s, "lb00", "/etc/haproxy/haproxy.cfg"), "\n    bind :6443\n");
	render_set_free(&s);
	cpha_msgs_free(&d);
	cluster_free(c);
}

/* The VIP by Pacemaker: no VRRP file at all. */
static void test_vip_pacemaker(void **state)
{
	struct cp_cluster *c =
		load_variant("five-haproxy.yaml", NULL, "  vip: keepalived\n  manager: systemd\n",
			"  vip: pacemaker\n  manager: pacemaker\n", NULL);
	struct render_set s = { 0 };
	struct cpha_msgs d = { 0 };

	(void)state;
	assert_int_equal(render_lb(c, &s, &d), 0);
	assert_int_equal(s.n, 10);
	for (size_t i = 0; i < s.n; i++) {
		assert_string_not_equal(s.v[i].path, "/etc/keepalived/keepalived.conf");
		assert_string_not_equal(s.v[i].path, "/etc/vipd/vipd.conf");
	}
	render_set_free(&s);
	cpha_msgs_free(&d);
	cluster_free(c);
}

/* ---- render_ha_files: corosync.conf and fenced.conf ---- */

static void test_sample_corosync(void **state)
{
	struct cp_cluster *c = load_fixture(SAMPLE);
	struct render_set s = { 0 };
	struct cpha_msgs d = { 0 };
	const char *t;

	(void)state;
	assert_int_equal(render_ha_files(c, &s, &d), 0);
	assert_int_equal(s.n, 10); /* five hosts: corosync.conf, fenced.conf */

	t = text_of(&s, "kubem01", "/etc/corosync/corosync.conf");
	has(t, "totem {\n    version: 2\n    cluster_name: kubernetes-masters\n"
	       "    transport: knet\n    crypto_cipher: aes256\n    crypto_hash: sha256\n"
	       "    token: 3000\n    token_coefficient: 650\n");
	/* 1.2 x (3000 + 650) */
	has(t, "    consensus: 4380\n}\n");
	has(t, "nodelist {\n    node {\n        ring0_addr: 10.10.10.80\n        name: kubem00\n"
	       "        nodeid: 1\n    }\n    node {\n        ring0_addr: 10.10.10.81\n"
	       "        name: kubem01\n        nodeid: 2\n    }\n    node {\n"
	       "        ring0_addr: 10.10.10.82\n        name: kubem02\n        nodeid: 3\n"
	       "    }\n}\n");
	has(t, "quorum {\n    provider: corosync_votequorum\n}\n");
	has(t, "logging {\n    to_logfile: no\n    to_stderr: no\n    to_syslog: yes\n");
	lacks(t, "two_node");
	lacks(t, "lb00");
	assert_string_equal(body(t), body(text_of(&s, "kubem00", "/etc/corosync/corosync.conf")));

	t = text_of(&s, "lb01", "/etc/corosync/corosync.conf");
	has(t, "    cluster_name: kubernetes-lb\n");
	has(t, "    consensus: 3600\n");
	has(t, "    node {\n        ring0_addr: 10.10.10.3\n        name: lb00\n"
	       "        nodeid: 1\n    }\n    node {\n        ring0_addr: 10.10.10.4\n"
	       "        name: lb01\n        nodeid: 2\n    }\n}\n");
	has(t, "    two_node: 1\n}\n");
	lacks(t, "kubem");
	render_set_free(&s);
	cpha_msgs_free(&d);
	cluster_free(c);
}

static void test_sample_fenced(void **state)
{
	struct cp_cluster *c = load_fixture(SAMPLE);
	struct render_set s = { 0 };
	struct cpha_msgs d = { 0 };
	const char *t;

	(void)state;
	assert_int_equal(render_ha_files(c, &s, &d), 0);
	assert_int_equal(
		render_find(&s, "lb00", "/etc/fenced/fenced.conf")->check, RENDER_CHECK_FENCED);

	/* the masters: Pacemaker fences, fenced asks it */
	t = text_of(&s, "kubem00", "/etc/fenced/fenced.conf");
	has(t, "    fence_via pacemaker\n");
	lacks(t, "fence_device");
	lacks(t, "fence_node");
	lacks(t, "priority_delay_vip");
	lacks(t, "vip_admin_socket"); /* the VIP is on the LB hosts */

	/* the LB hosts: their own devices, the VIP holder's edge */
	t = text_of(&s, "lb00", "/etc/fenced/fenced.conf");
	lacks(t, "fence_via");
	has(t, "    vip_admin_socket /run/vipd/admin.sock\n");
	/* vipd's power-check of a silent VIP holder: bounded on its own */
	has(t, "    agent_timeout 60s\n    power_check_timeout 5s\n");
	has(t, "\nfence_device ipmi-lb00 {\n    agent fence_ipmilan\n    ip 10.10.20.3\n"
	       "    username admin\n    password_file /etc/cpha/secrets/ipmi-lb00\n"
	       "    lanplus 1\n}\n");
	has(t, "\nfence_device ipmi-lb01 {\n");
	lacks(t, "ipmi-kubem");
	has(t, "\nfence_node lb00 {\n    level 1 {\n        ipmi-lb00\n    }\n"
	       "    priority_delay_vip 5s\n}\n");
	has(t, "\nfence_node lb01 {\n    level 1 {\n        ipmi-lb01\n    }\n"
	       "    priority_delay_vip 5s\n}\n");
	lacks(t, "    delay "); /* no fencing.delay in the sample */
	lacks(t, "watchdog");
	has(t, "    fenced_metrics_bind 127.0.0.1:9122\n}\n");
	same_but_host(
		t, "10.10.10.3", text_of(&s, "lb01", "/etc/fenced/fenced.conf"), "10.10.10.4");
	render_set_free(&s);
	cpha_msgs_free(&d);
	cluster_free(c);
}

/* monitoring: listen on each host's address with basic auth and TLS: every
 * daemon names its web configuration, written beside it in exporter-
 * toolkit's format (0600); an explicit address is the same on each host. */
static void test_monitoring(void **state)
{
	static const char mon[] =
		"monitoring:\n"
		"  listen: host\n"
		"  tls: {cert_file: /etc/cpha/m.pem, key_file: /etc/cpha/m-key.pem}\n"
		"  basic_auth:\n"
		"    user: prometheus\n"
		"    password_hash: $2y$10$mDwo.lAisC94iLAyP81MCesa29IzH37oigHC/42V2pdJlUprsJPze\n"
		"    password_file: /etc/cpha/secrets/metrics\n";
	struct cp_cluster *c = load_variant(SAMPLE, mon, NULL);
	struct render_set s = { 0 };
	struct cpha_msgs d = { 0 };
	const char *t;

	(void)state;
	assert_int_equal(render_lb(c, &s, &d), 0);
	assert_int_equal(render_ha_files(c, &s, &d), 0);
	assert_int_equal(d.nerrs, 0);
	t = text_of(&s, "lb00", "/etc/lbd/lbd.cfg");
	has(t, "    metrics-bind 10.10.10.3:9120\n"
	       "    # who may read them (basic auth, TLS), beside this file\n"
	       "    metrics-web-config metrics-web.yml\n");
	t = text_of(&s, "lb01", "/etc/vipd/vipd.conf");
	has(t, "    vipd_metrics_bind 10.10.10.4:9121\n");
	has(t, "    vipd_metrics_web_config metrics-web.yml\n");
	t = text_of(&s, "lb00", "/etc/fenced/fenced.conf");
	has(t, "    fenced_metrics_bind 10.10.10.3:9122\n");
	has(t, "    fenced_metrics_web_config metrics-web.yml\n");
	for (const char *const *p = (const char *const[]){ "/etc/lbd/metrics-web.yml",
		     "/etc/vipd/metrics-web.yml", "/etc/fenced/metrics-web.yml", NULL };
		*p; p++) {
		struct render_file *f = render_find(&s, "lb01", *p);

		assert_non_null(f);
		assert_int_equal(f->mode, 0600);
		assert_int_equal(f->check, RENDER_CHECK_YAML);
		has(f->text.data, "\ntls_server_config:\n"
				  "  cert_file: '/etc/cpha/m.pem'\n"
				  "  key_file: '/etc/cpha/m-key.pem'\n"
				  "basic_auth_users:\n"
				  "  prometheus: '$2y$10$mDwo.lAisC94iLAyP81MCesa29IzH37oigHC/"
				  "42V2pdJlUprsJPze'\n");
	}
	render_set_free(&s);
	cluster_free(c);

	c = load_variant(SAMPLE, "monitoring: {listen: '::'}\n", NULL);
	memset(&s, 0, sizeof(s));
	assert_int_equal(render_lb(c, &s, &d), 0);
	has(text_of(&s, "lb01", "/etc/lbd/lbd.cfg"), "    metrics-bind [::]:9120\n");
	assert_null(render_find(&s, "lb01", "/etc/lbd/metrics-web.yml"));
	render_set_free(&s);
	cpha_msgs_free(&d);
	cluster_free(c);
}

/* monitoring.prometheus: a scrape job per daemon with the hosts that run
 * it, TLS and basic auth as the listeners ask, etcd and the apiservers
 * with the scraper's certificate, the textfile timers, the rules and the
 * dashboard; etcd's metrics on each member's address. */
static void test_prometheus(void **state)
{
	static const char mon[] =
		"monitoring:\n"
		"  listen: host\n"
		"  tls: true\n"
		"  basic_auth:\n"
		"    user: prometheus\n"
		"    password_hash: $2y$10$mDwo.lAisC94iLAyP81MCesa29IzH37oigHC/42V2pdJlUprsJPze\n"
		"  prometheus: {scrape_interval: 30s, alertmanagers: ['am:9093']}\n";
	struct cp_cluster *c = load_variant(SAMPLE, mon, NULL);
	struct render_set s = { 0 };
	struct cpha_msgs d = { 0 };
	struct pcs_cmds p;
	struct cpha_buf b = { 0 };
	const char *t;

	(void)state;
	assert_int_equal(render_masters(c, &s, &d), 0);
	assert_int_equal(render_lb(c, &s, &d), 0);
	assert_int_equal(render_ha_files(c, &s, &d), 0);
	assert_int_equal(render_prom(c, &s, &d), 0);
	assert_int_equal(d.nerrs, 0);
	t = text_of(&s, NULL, "prometheus/prometheus.yml");
	assert_int_equal(
		render_find(&s, NULL, "prometheus/prometheus.yml")->check, RENDER_CHECK_YAML);
	has(t, "global:\n  scrape_interval: 30s\n  evaluation_interval: 30s\n");
	has(t, "rule_files:\n  - cpha-rules.yml\n");
	has(t, "        - targets:\n            - 'am:9093'\n");
	has(t, "  - job_name: cpha-lbd\n"
	       "    scheme: https\n"
	       "    tls_config:\n"
	       "      ca_file: /etc/prometheus/cpha/pki/ca.pem\n"
	       "    basic_auth:\n"
	       "      username: prometheus\n"
	       "      password_file: /etc/prometheus/cpha/metrics-password\n"
	       "    static_configs:\n"
	       "      - targets: ['10.10.10.3:9120']\n"
	       "        labels: {host: lb00}\n"
	       "      - targets: ['10.10.10.4:9120']\n"
	       "        labels: {host: lb01}\n"
	       "  - job_name: cpha-vipd\n");
	/* fenced everywhere: on the masters it asks Pacemaker to fence */
	assert_int_equal(count(t, ":9122']"), 5);
	assert_int_equal(count(t, ":9121']"), 2);
	has(t, "  - job_name: etcd\n    scheme: https\n");
	has(t, "      cert_file: /etc/prometheus/cpha/pki/prometheus.pem\n");
	has(t, "      - targets: ['10.10.10.80:2381']\n        labels: {host: kubem00}\n");
	has(t, "  - job_name: apiserver\n");
	has(t, "      - targets: ['10.10.10.82:6443']\n        labels: {host: kubem02}\n");
	has(t, "    params:\n      collect[]: [textfile]");
	assert_int_equal(count(t, ":9100']"), 6); /* 3 masters, 2 LB hosts, the Prometheus host */
	has(t, "      - targets: ['localhost:9100']\n        labels: {host: prometheus}\n");
	t = text_of(&s, "lb01", "/etc/systemd/system/cpha-check-textfile.service");
	has(t, "ExecStart=/usr/bin/cpha -f /etc/cpha/cluster.yaml check --host lb01 --textfile "
	       "/var/lib/prometheus/node-exporter/cpha-check.prom\n");
	has(text_of(&s, "lb01", "/etc/systemd/system/cpha-check-textfile.timer"),
		"OnUnitActiveSec=5min\n");
	t = text_of(&s, NULL, "prometheus/cpha-status-textfile.service");
	has(t, "status --pki /etc/prometheus/cpha/pki --quiet --textfile "
	       "/var/lib/prometheus/node-exporter/cpha-status.prom\n");
	has(text_of(&s, NULL, "prometheus/cpha-rules.yml"), "groups:");
	assert_non_null(render_find(&s, NULL, "grafana/cpha-dashboard.json"));
	render_set_free(&s);

	/* etcd under Pacemaker: its agent opens the metrics listener */
	assert_int_equal(render_pcs_commands(c, &p, &d), 0);
	render_pcs_script(c, &p, &b);
	has(b.data, " metrics_port=2381 ");
	render_pcs_free(&p);
	cpha_buf_free(&b);
	cpha_msgs_free(&d);
	cluster_free(c);

	/* without monitoring.prometheus: none of it */
	c = load_fixture(SAMPLE);
	memset(&s, 0, sizeof(s));
	assert_int_equal(render_prom(c, &s, &d), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(render_pcs_commands(c, &p, &d), 0);
	memset(&b, 0, sizeof(b));
	render_pcs_script(c, &p, &b);
	lacks(b.data, "metrics_port");
	render_pcs_free(&p);
	cpha_buf_free(&b);
	cluster_free(c);

	/* HAProxy in lbd's place: its exporter on a read-only stats socket,
	 * behind the daemons' TLS and basic auth, scraped as "haproxy" */
	c = load_variant(SAMPLE, mon, "load_balancer: lbd ", "load_balancer: haproxy ", NULL);
	memset(&s, 0, sizeof(s));
	assert_int_equal(render_lb(c, &s, &d), 0);
	assert_int_equal(render_ha_files(c, &s, &d), 0);
	assert_int_equal(render_prom(c, &s, &d), 0);
	assert_int_equal(d.nerrs, 0);
	has(text_of(&s, "lb01", "/etc/haproxy/haproxy.cfg"),
		"    stats socket /run/haproxy/stats.sock mode 660 group haproxy level user\n");
	t = text_of(&s, "lb01", "/etc/default/prometheus-haproxy-exporter");
	has(t, "ARGS=\"--haproxy.scrape-uri=unix:/run/haproxy/stats.sock "
	       "--web.listen-address=10.10.10.4:9101 "
	       "--web.config.file=/etc/haproxy/exporter-metrics-web.yml\"\n");
	has(text_of(&s, "lb01", "/etc/haproxy/exporter-metrics-web.yml"), "basic_auth_users:\n");
	assert_null(render_find(&s, "kubem00", "/etc/default/prometheus-haproxy-exporter"));
	t = text_of(&s, NULL, "prometheus/prometheus.yml");
	has(t, "  - job_name: haproxy\n"
	       "    scheme: https\n");
	has(t, "      - targets: ['10.10.10.3:9101']\n"
	       "        labels: {host: lb00}\n"
	       "      - targets: ['10.10.10.4:9101']\n"
	       "        labels: {host: lb01}\n");
	lacks(t, "job_name: cpha-lbd");
	render_set_free(&s);
	cpha_msgs_free(&d);
	cluster_free(c);
}

/* Where cpha status reaches a host's listener, for each monitoring.listen:
 * loopback only from that host itself. */
static void test_monitoring_reach(void **state)
{
	static const struct {
		const char *mon; /* appended to the sample */
		bool local;
		const char *want; /* NULL: not reachable from here */
	} cases[] = {
		{ "", false, NULL },
		{ "", true, "127.0.0.1" },
		{ "monitoring: {listen: host}\n", false, "10.10.10.4" },
		{ "monitoring: {listen: 0.0.0.0}\n", false, "10.10.10.4" },
		{ "monitoring: {listen: 10.99.0.1}\n", false, "10.99.0.1" },
		{ "monitoring: {listen: 127.0.0.2}\n", false, NULL },
		{ "monitoring: {listen: 127.0.0.2}\n", true, "127.0.0.2" },
	};
	char buf[CPHA_ADDR_STRLEN];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cp_cluster *c = load_variant(SAMPLE, cases[i].mon, NULL);
		struct cpha_addr a;
		bool ok = render_mon_reach(c, cluster_host(c, "lb01"), cases[i].local, &a);

		if (ok != (cases[i].want != NULL) ||
			(ok && strcmp(cpha_addr_format(&a, buf, sizeof(buf)), cases[i].want)))
			fail_msg("case %zu: want %s, got %s", i,
				cases[i].want ? cases[i].want : "-", ok ? buf : "-");
		cluster_free(c);
	}
}

static void test_five_fenced(void **state)
{
	struct cp_cluster *c = load_fixture("five-haproxy.yaml");
	struct render_set s = { 0 };
	struct cpha_msgs d = { 0 };
	const char *t;

	(void)state;
	assert_int_equal(render_ha_files(c, &s, &d), 0);
	t = text_of(&s, "kubem04", "/etc/fenced/fenced.conf");
	lacks(t, "fence_via");          /* manager systemd: fenced runs the agents */
	lacks(t, "priority_delay_vip"); /* keepalived tells fenced nothing */
	has(t, "\nfence_device pdu-kubem00 {\n    agent fence_apc_snmp\n    ip 198.18.1.250\n"
	       "    plug 1\n    community_file /etc/cpha/secrets/pdu\n}\n");
	has(t, "\nfence_node kubem00 {\n    level 1 {\n        ipmi-kubem00\n    }\n"
	       "    level 2 {\n        pdu-kubem00\n    }\n}\n");
	has(t, "\nwatchdog {\n    device /dev/watchdog\n    timeout 10s\n}\n");
	assert_int_equal(count(t, "fence_node "), 5);
	t = text_of(&s, "kubem04", "/etc/corosync/corosync.conf");
	/* 1.2 x (3000 + 3 x 650) */
	has(t, "    consensus: 5940\n");
	has(t, "        name: kubem04\n        nodeid: 5\n");
	render_set_free(&s);
	cpha_msgs_free(&d);
	cluster_free(c);
}

/* Two masters with fencing.delay: the first master is protected, in
 * fenced and in Pacemaker. An etcd-only host is in no corosync cluster. */
static void test_two_masters(void **state)
{
	struct cp_cluster *c = load_variant(SAMPLE, "  delay: 3\n",
		"  - name: kubem02\n    address: 10.10.10.82\n", "", "host: kubem02", "host: lb01",
		NULL);
	struct render_set s = { 0 };
	struct cpha_msgs d = { 0 };
	struct pcs_cmds p;
	struct cpha_buf b = { 0 };
	const char *t;

	(void)state;
	assert_int_equal(render_ha_files(c, &s, &d), 0);
	t = text_of(&s, "kubem00", "/etc/fenced/fenced.conf");
	has(t, "\nfence_node kubem00 {\n    delay 3s\n}\n");
	lacks(t, "fence_node kubem01");
	has(text_of(&s, "kubem01", "/etc/corosync/corosync.conf"), "    two_node: 1\n");
	assert_int_equal(render_pcs_commands(c, &p, &d), 0);
	render_pcs_script(c, &p, &b);
	has(b.data, "pcmk_host_list=kubem00 \\\n    pcmk_delay_base=3s \\\n");
	assert_int_equal(count(b.data, "pcmk_delay_base"), 1);
	cpha_buf_free(&b);
	render_pcs_free(&p);
	render_set_free(&s);
	cpha_msgs_free(&d);
	cluster_free(c);
}

static void test_etcd_only_host(void **state)
{
	struct cp_cluster *c = load_variant("five-haproxy.yaml", NULL, "  hosts: masters\n",
		"  hosts: [kubem00, kubem01, {name: e1, address: 198.18.0.21}]\n", NULL);
	struct render_set s = { 0 };
	struct cpha_msgs d = { 0 };

	(void)state;
	assert_int_equal(render_ha_files(c, &s, &d), 0);
	assert_int_equal(render_lb(c, &s, &d), 0);
	for (size_t i = 0; i < s.n; i++)
		assert_string_not_equal(s.v[i].host, "e1");
	lacks(text_of(&s, "kubem00", "/etc/corosync/corosync.conf"), "198.18.0.21");
	render_set_free(&s);
	cpha_msgs_free(&d);
	cluster_free(c);
}

/* ---- the pcs commands ---- */

static void test_sample_pcs(void **state)
{
	struct cp_cluster *c = load_fixture(SAMPLE);
	struct cpha_msgs d = { 0 };
	struct pcs_cmds p;
	struct cpha_buf b = { 0 };
	const char *t;

	(void)state;
	assert_int_equal(render_pcs_commands(c, &p, &d), 0);
	render_pcs_script(c, &p, &b);
	t = b.data;
	has(t, "#!/bin/sh\n");
	has(t, "\nset -eu\nPCS=${PCS:-pcs}\n");
	has(t, "\n$PCS property set stonith-enabled=true no-quorum-policy=stop "
	       "stonith-timeout=60s\n");
	has(t, "\n$PCS resource defaults update resource-stickiness=100\n");
	/* no secret, and the password file as the agent's own script */
	has(t, "$PCS stonith create ipmi-kubem00 fence_ipmilan ip=10.10.20.80 username=admin \\\n"
	       "    'password_script=/bin/cat /etc/cpha/secrets/ipmi-kubem00' lanplus=1 "
	       "pcmk_host_list=kubem00 \\\n    op monitor interval=60s\n");
	lacks(t, "password=");
	lacks(t, "password_file");
	lacks(t, "ipmi-lb0"); /* the LB hosts are no Pacemaker nodes */
	has(t, "\n$PCS constraint location ipmi-kubem02 avoids kubem02\n");
	has(t, "\n$PCS stonith level add 1 kubem00 ipmi-kubem00\n");
	assert_int_equal(count(t, "stonith level add"), 3);
	has(t, "$PCS resource create etcd ocf:cpha:etcd \\\n"
	       "    'node_map=kubem00=10.10.10.80 kubem01=10.10.10.81 kubem02=10.10.10.82' \\\n"
	       "    data_dir=/var/lib/etcd token=etcd-cluster-token binary=/usr/bin/etcd \\\n");
	has(t, "cert_file=/etc/etcd/pki/etcd-server.pem");
	has(t, "agent_cert=/etc/etcd/pki/etcd-client.pem");
	has(t, "    clone interleave=true notify=true clone-max=3 clone-node-max=1 "
	       "--no-default-ops\n");
	has(t, "envfile=/etc/kubernetes/apiserver.env");
	has(t, "envfile=/etc/kubernetes/controller-manager.env");
	has(t, "envfile=/etc/kubernetes/scheduler.env");
	has(t, "\n$PCS constraint order start etcd-clone then start apiserver-clone\n"
	       "$PCS constraint colocation add apiserver-clone with etcd-clone INFINITY\n");
	has(t, "\n$PCS constraint colocation add scheduler with apiserver-clone INFINITY\n");
	has(t, "\n$PCS resource enable apiserver-clone kcm scheduler\n");
	lacks(t, "IPaddr2");
	lacks(t, "ocf:cpha:lbd"); /* the load balancers are apart from the masters */
	/* every line a command, a comment, a continuation or blank */
	for (const char *l = strstr(t, "PCS=${"); l && *l;
		l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		assert_true(*l == '$' || *l == '#' || *l == '\n' || !strncmp(l, "    ", 4) ||
			    !strncmp(l, "PCS=", 4));
	assert_int_equal(p.nagents, 4);
	cpha_buf_free(&b);
	render_pcs_free(&p);
	cpha_msgs_free(&d);
	cluster_free(c);
}

static void test_pcs_vip_and_lb(void **state)
{
	struct cp_cluster *c =
		load_variant("five-haproxy.yaml", NULL, "  vip: keepalived\n  manager: systemd\n",
			"  vip: pacemaker\n  manager: pacemaker\n", NULL);
	struct cpha_msgs d = { 0 };
	struct pcs_cmds p;
	struct cpha_buf b = { 0 };

	(void)state;
	/* fence_apc_snmp's community has no script parameter: refused */
	assert_int_equal(render_pcs_commands(c, &p, &d), -1);
	assert_int_equal(d.nerrs, 1);
	has(d.errs[0].text, "pdu-kubem00: community_file");
	render_pcs_free(&p);
	cpha_msgs_free(&d);
	cluster_free(c);

	c = load_variant("five-haproxy.yaml", NULL, "  vip: keepalived\n  manager: systemd\n",
		"  vip: pacemaker\n  manager: pacemaker\n", "community_file",
		"snmp_priv_passwd_file", NULL);
	assert_int_equal(render_pcs_commands(c, &p, &d), 0);
	render_pcs_script(c, &p, &b);
	has(b.data, "'snmp_priv_passwd_script=/bin/cat /etc/cpha/secrets/pdu'");
	has(b.data, "\n$PCS stonith level add 2 kubem00 pdu-kubem00\n");
	has(b.data, "\n$PCS resource create haproxy ocf:cpha:haproxy "
		    "config=/etc/haproxy/haproxy.cfg \\\n");
	has(b.data, "    clone interleave=true clone-max=5 clone-node-max=1 --no-default-ops\n");
	has(b.data, "\n$PCS resource create vip ocf:heartbeat:IPaddr2 ip=198.18.0.10 "
		    "cidr_netmask=24 nic=eth0 \\\n");
	has(b.data, "\n$PCS constraint order start haproxy-clone then start vip\n"
		    "$PCS constraint colocation add vip with haproxy-clone INFINITY\n");
	has(b.data, "\n$PCS resource enable apiserver-clone kcm scheduler vip\n");
	assert_int_equal(p.nagents, 5);
	cpha_buf_free(&b);
	render_pcs_free(&p);
	cpha_msgs_free(&d);
	cluster_free(c);
}

/* etcd members partly masters, partly not: Pacemaker cannot run them */
static void test_pcs_mixed_etcd(void **state)
{
	struct cp_cluster *c = load_variant(SAMPLE, NULL, "  hosts: masters ",
		"  hosts: [kubem00, kubem01, {name: e1, address: 10.10.10.90}] ", NULL);
	struct cpha_msgs d = { 0 };
	struct pcs_cmds p;

	(void)state;
	assert_int_equal(render_pcs_commands(c, &p, &d), -1);
	has(d.errs[0].text, "all masters");
	render_pcs_free(&p);
	cpha_msgs_free(&d);
	cluster_free(c);
}

/* A value with a quote survives sh; a password path a shell would split
 * is refused. */
static void test_pcs_quoting(void **state)
{
	struct cp_cluster *c = load_variant(SAMPLE, NULL,
		"username: admin, password_file: /etc/cpha/secrets/ipmi-kubem00",
		"username: \"o'neil\", password_file: /etc/cpha/secrets/ipmi-kubem00", NULL);
	struct cpha_msgs d = { 0 };
	struct pcs_cmds p;
	struct cpha_buf b = { 0 };

	(void)state;
	assert_int_equal(render_pcs_commands(c, &p, &d), 0);
	render_pcs_script(c, &p, &b);
	has(b.data, " 'username=o'\\''neil' ");
	cpha_buf_free(&b);
	render_pcs_free(&p);
	cluster_free(c);

	c = load_variant(SAMPLE, NULL, "password_file: /etc/cpha/secrets/ipmi-kubem01",
		"password_file: \"/etc/cpha/my secrets/x\"", NULL);
	assert_int_equal(render_pcs_commands(c, &p, &d), -1);
	has(d.errs[0].text, "ipmi-kubem01: password_file '/etc/cpha/my secrets/x'");
	render_pcs_free(&p);
	cpha_msgs_free(&d);
	cluster_free(c);
}

/* The same description gives the same bytes. */
static void render_twice(const char *name)
{
	struct render_set a = { 0 }, b = { 0 };
	struct cpha_msgs d = { 0 };

	for (int k = 0; k < 2; k++) {
		struct cp_cluster *c = load_fixture(name);
		struct render_set *s = k ? &b : &a;
		struct pcs_cmds p;

		assert_int_equal(render_lb(c, s, &d), 0);
		assert_int_equal(render_ha_files(c, s, &d), 0);
		if (c->manager == CP_MGR_PACEMAKER) {
			assert_int_equal(render_pcs_commands(c, &p, &d), 0);
			render_pcs_script(c, &p, render_add(s, NULL, "pcs-commands.sh", 0755, 0));
			render_pcs_free(&p);
		}
		cluster_free(c);
	}
	assert_int_equal(a.n, b.n);
	for (size_t i = 0; i < a.n; i++) {
		assert_string_equal(a.v[i].path, b.v[i].path);
		assert_string_equal(a.v[i].text.data, b.v[i].text.data);
	}
	render_set_free(&a);
	render_set_free(&b);
	cpha_msgs_free(&d);
}

static void test_deterministic(void **state)
{
	(void)state;
	render_twice(SAMPLE);
	render_twice("five-haproxy.yaml");
}

/* render_pcs_cib_missing(): which tool of cib.xml is not installed */
static const char *const *have_tools;

static bool fake_have(const char *tool)
{
	for (const char *const *t = have_tools; *t; t++)
		if (!strcmp(*t, tool))
			return true;
	return false;
}

static void test_cib_missing(void **state)
{
	static const char *const all[] = { "cibadmin", "pcs", NULL };
	static const char *const no_pcs[] = { "cibadmin", "crm_verify", NULL };
	static const char *const no_cibadmin[] = { "pcs", NULL };
	static const char *const none[] = { NULL };
	const struct render_tool *t;

	(void)state;
	have_tools = all;
	assert_null(render_pcs_cib_missing(fake_have));
	have_tools = no_pcs;
	t = render_pcs_cib_missing(fake_have);
	assert_non_null(t);
	assert_string_equal(t->name, "pcs");
	assert_string_equal(t->package, "pcs");
	have_tools = no_cibadmin;
	t = render_pcs_cib_missing(fake_have);
	assert_non_null(t);
	assert_string_equal(t->name, "cibadmin");
	assert_string_equal(t->package, "pacemaker-cli-utils");
	have_tools = none; /* the first one run is named */
	assert_string_equal(render_pcs_cib_missing(fake_have)->name, "cibadmin");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_lbd),
		cmocka_unit_test(test_five_haproxy),
		cmocka_unit_test(test_vipd_haproxy),
		cmocka_unit_test(test_vip_pacemaker),
		cmocka_unit_test(test_sample_corosync),
		cmocka_unit_test(test_sample_fenced),
		cmocka_unit_test(test_five_fenced),
		cmocka_unit_test(test_monitoring),
		cmocka_unit_test(test_prometheus),
		cmocka_unit_test(test_monitoring_reach),
		cmocka_unit_test(test_two_masters),
		cmocka_unit_test(test_etcd_only_host),
		cmocka_unit_test(test_sample_pcs),
		cmocka_unit_test(test_pcs_vip_and_lb),
		cmocka_unit_test(test_pcs_mixed_etcd),
		cmocka_unit_test(test_pcs_quoting),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_cib_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
