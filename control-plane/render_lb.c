/* `cpha render` for the load-balancer hosts (the LB hosts, or the masters
 * when the load balancer runs on them): the load balancer in front of the
 * apiservers (lbd.cfg or haproxy.cfg, one language) and the VIP (vipd.conf
 * or keepalived.conf, one language), unless Pacemaker holds the VIP.
 * Pure: text from the model. */
#include <stdio.h>
#include <string.h>

#include "render.h"
#include "render_ha.h"
#include "render_text.h"

#define put render_text_put

/* The check a VRRP daemon runs when it cannot read lbd's admin socket
 * (keepalived, or vipd in front of HAProxy): the load balancer's monitor
 * URI answers 200 while at least one apiserver is up, 503 when none is.
 * bash's /dev/tcp and builtins only (bash is essential on Debian; curl is
 * not), no quote or dollar inside, so that keepalived and vipd split it
 * into the same three words. A bare LF ends the request lines: HAProxy and
 * lbd's HTTP server take it. Asked twice, 0.5 s apart, before it fails:
 * for about 0.1 s after each reload HAProxy's monitor answers 503 (seen
 * in the lab: reloads 0.5 s apart failed the check twice in a row, and
 * without a weight that is FAULT, the VIP dropped for 14 s). */
#define LB_CHECK_SCRIPT                                                                            \
	"/bin/bash -c 'c() { exec 3<>/dev/tcp/127.0.0.1/8404 && echo GET /healthz HTTP/1.0 >&3 "   \
	"&& echo >&3 && head -c 12 <&3 | grep -q HTTP/1.[01].200; }; c || { sleep 0.5; c; }'"

/* keepalived.conf(5): with the default weight 0, fall failures of a
 * vrrp_script put the instance in FAULT, which gives the VIP up, and rise
 * successes take it out. A negative weight would only lower the priority,
 * and under nopreempt no backup takes the VIP from a master of lower
 * priority: the VIP would stay where no apiserver can be reached. */
#define KA_NO_WEIGHT                                                                               \
	"    ! no weight: while it fails the instance is in FAULT, which gives\n"                  \
	"    ! the VIP up; a lower priority would not (with nopreempt no\n"                        \
	"    ! backup takes the VIP from a master, whatever its priority)\n"

/* keepalived cannot reset the connections on a VIP it gives up: after a
 * failback every watch through the other host hangs until its client's own
 * timeout. keepalived.conf(5): nopreempt needs an initial state other than
 * MASTER (every host starts as BACKUP). */
#define KA_NOPREEMPT                                                                               \
	"    ! a host that comes back does not take the VIP back: keepalived\n"                    \
	"    ! cannot reset the connections on a VIP it gives up, so after a\n"                    \
	"    ! failback every watch through the other host would hang until\n"                     \
	"    ! its client's own timeout\n"                                                         \
	"    nopreempt\n"

/* The weight a failed load-balancer check takes off a vipd host's
 * priority: enough to fall below every healthy LB host, so the VIP goes
 * where an apiserver can be reached, and below 100, the priority vipd -c
 * assumes for a peer it cannot see (keepalived's default). */
static unsigned lb_track_weight(const struct cp_cluster *c)
{
	unsigned lo = 255, hi = 0, w;

	for (size_t i = 0; i < cluster_lb_count(c); i++) {
		unsigned p = cluster_lb_host(c, i)->priority;
		lo = p < lo ? p : lo;
		hi = p > hi ? p : hi;
	}
	w = hi >= lo ? hi - lo + 1 : 1;
	return hi > 99 && hi - 99 > w ? hi - 99 : w;
}

static void lb_header(const struct cp_cluster *c, const struct cp_host *h, struct cpha_buf *b,
	const char *path, const char *cmt)
{
	put(b,
		"%s %s on %s: the load balancer of the apiservers of cluster %s\n"
		"%s (https://%s:%u, VIP %s%s%s).\n"
		"%s Rendered by `cpha render` from the cluster description: change that, not "
		"this file.\n",
		cmt, path, h->name, c->name, cmt, c->api_name, c->api_port, c->vip_text,
		c->has_vip2 ? " and " : "", c->has_vip2 ? c->vip2_text : "", cmt);
}

/* The bind line: the masters' own apiservers listen on their addresses at
 * the same port, so there only the VIP is bound (before the host holds it:
 * net.ipv4.ip_nonlocal_bind, see lb_sysctl()); apart from the masters,
 * every address. */
static void lb_bind(const struct cp_cluster *c, struct cpha_buf *b)
{
	char a[CPHA_ADDR_STRLEN];

	if (c->lb_on_masters) {
		put(b, "    bind %s\n", render_text_hostport(&c->vip, c->api_port, a, sizeof(a)));
		if (c->has_vip2)
			put(b, "    bind %s\n",
				render_text_hostport(&c->vip2, c->api_port, a, sizeof(a)));
	} else if (cpha_addr_family(&c->vip) == AF_INET6 || c->has_vip2) {
		put(b, "    bind :::%u v4v6\n", c->api_port);
	} else {
		put(b, "    bind :%u\n", c->api_port);
	}
}

/* lbd.cfg or haproxy.cfg: the classic listen section with HTTPS /readyz
 * checks, the admin socket and a monitor frontend (health and metrics). */
static void lb_config(const struct cp_cluster *c, const struct cp_host *self, struct cpha_buf *b)
{
	bool haproxy = c->lb == CP_LB_HAPROXY;
	char a[CPHA_ADDR_STRLEN];

	lb_header(c, self, b, haproxy ? RENDER_HAPROXY_CFG : RENDER_LBD_CFG, "#");
	put(b, "# HAProxy's configuration language%s.\n\n",
		haproxy ? "" : " (TCP subset; see lbd.cfg(5))");
	put(b, "global\n");
	if (haproxy) {
		/* Debian's haproxy.cfg: syslog through the chroot's /dev/log */
		put(b, "    log /dev/log local0\n"
		       "    chroot /var/lib/haproxy\n"
		       "    user haproxy\n"
		       "    group haproxy\n"
		       "    stats socket " RENDER_HAPROXY_SOCKET " mode 660 level admin\n"
		       "    stats timeout 30s\n");
		if (c->mon.prom.on)
			put(b, "    # read-only (show stat, show info) for "
			       "prometheus-haproxy-exporter,\n"
			       "    # whose user is in the group haproxy\n"
			       "    stats socket " RENDER_HAPROXY_STATS_SOCKET
			       " mode 660 group haproxy level user\n");
	} else {
		put(b, "    log stdout format raw local0\n"
		       "    stats socket " RENDER_LBD_SOCKET " mode 600 level admin\n");
		render_mon_lines(c, self, "metrics-bind", "metrics-web-config",
			RENDER_LBD_METRICS_PORT, "#", b);
	}
	put(b, "    maxconn 4000\n"
	       "    hard-stop-after 1h\n"
	       "\n"
	       "defaults\n"
	       "    mode tcp\n"
	       "    log global\n"
	       "    option dontlognull\n"
	       "    option redispatch\n"
	       "    retries 2\n"
	       "    # a LAN apiserver answers a SYN in well under a millisecond: a dead\n"
	       "    # one is given up after 1s and the connection redispatched, before\n"
	       "    # a client's own connect timeout (client-go's TLS handshake: 10s; a\n"
	       "    # probe's: 2s) fails it; a lost SYN costs a retry, not a failure\n"
	       "    timeout connect 1s\n"
	       "    # watches stay open for up to an hour; client-go pings idle HTTP/2 "
	       "connections\n"
	       "    timeout client 1h\n"
	       "    timeout server 1h\n"
	       "    timeout client-fin 30s\n"
	       "    timeout server-fin 30s\n"
	       "    timeout queue 10s\n"
	       "    timeout check 5s\n"
	       "\n");
	put(b, "# The apiservers: a server is up while its /readyz answers 200 over TLS\n"
	       "# (the certificate is not verified: the check decides health, not trust).\n"
	       "# An apiserver that starts a graceful shutdown fails /readyz first and\n"
	       "# is taken out within fall x fastinter; its sessions are closed so that\n"
	       "# watches reconnect to a healthy one.\n");
	put(b, "listen " RENDER_LB_PROXY "\n");
	lb_bind(c, b);
	put(b,
		"    mode tcp\n"
		"    option tcplog\n"
		"    balance roundrobin\n"
		"    option httpchk\n"
		"    http-check connect ssl\n"
		"    http-check send meth GET uri /readyz\n"
		"    http-check expect status 200\n"
		"    default-server check verify none inter 2s fastinter 1s downinter 5s rise 2 "
		"fall 2 slowstart 60s maxconn 1000 maxqueue 256 weight 100 on-marked-down "
		"shutdown-sessions%s\n",
		haproxy ? "" : " shutdown-sessions-spread 10s");
	if (!haproxy)
		/* A powered-off master answers nothing: /readyz needs fall checks
		 * (seconds) to notice, while every new connection sent to it is
		 * lost. Passive health and hedging cover that gap; HAProxy has no
		 * hedge, so the peer's haproxy.cfg stays as it was. */
		put(b, "    # A master that lost power answers no SYN. Live traffic tells first:\n"
		       "    # hedge: a connect with no SYN-ACK after 100ms also goes to another\n"
		       "    # apiserver, and the first to answer carries the client. A LAN\n"
		       "    # apiserver answers in well under a millisecond, even loaded, so a\n"
		       "    # live one is never hedged; 100ms is far below the 1s SYN\n"
		       "    # retransmission and timeout connect, and what a client loses at\n"
		       "    # most while a dead master is still in rotation.\n"
		       "    # observe layer4: 3 connects in a row with no answer (hedged away,\n"
		       "    # refused or timed out) mark the server down at once (mark-down).\n"
		       "    # A wrong mark-down is cheap: the check comes at fastinter and\n"
		       "    # rise passed checks bring it back within about 2s (then\n"
		       "    # slowstart); a dead one must go within a few connections, not\n"
		       "    # after fall x inter.\n"
		       "    hedge 100ms\n"
		       "    default-server observe layer4 error-limit 3 on-error mark-down\n");
	for (size_t i = 0; i < c->nhosts; i++) {
		const struct cp_host *m = &c->hosts[i];
		if (m->roles & CP_ROLE_MASTER)
			put(b, "    server %s %s\n", m->name,
				render_text_hostport(&m->addr, c->api_port, a, sizeof(a)));
	}
	put(b,
		"\n"
		"# /healthz is 503 when no apiserver is up (what the VIP's track script\n"
		"# asks on loopback), /metrics is Prometheus text.\n"
		"frontend monitor\n"
		"    bind " RENDER_LB_MONITOR "\n"
		"    bind %s\n"
		"    mode http\n",
		render_text_hostport(&self->addr, RENDER_LB_MONITOR_PORT, a, sizeof(a)));
	put(b, "    no log\n"
	       "    monitor-uri /healthz\n"
	       "    monitor fail if { nbsrv(" RENDER_LB_PROXY ") lt 1 }\n"
	       "    http-request use-service prometheus-exporter if { path /metrics }\n");
}

/* vipd.conf or keepalived.conf: one VRRPv3 instance over unicast to the
 * other LB hosts, tracking the local load balancer (and, for vipd, fenced:
 * no takeover before the old holder is fenced, no VIP without quorum).
 * vipd preempts: the highest priority with a working load balancer holds
 * the VIP, and the host that gives it up resets the connections on it.
 * keepalived cannot reset them, so its instance does not preempt and a
 * failed check puts it in FAULT, which gives the VIP up. */
/* One vrrp_instance: the VIP vip of the cluster, with the peers over
 * unicast (the hosts' family) or multicast. */
static void vrrp_instance(const struct cp_cluster *c, const struct cp_host *self,
	struct cpha_buf *b, const char *name, const char *vip, bool unicast)
{
	bool ka = c->vipd == CP_VIP_KEEPALIVED;
	bool script = ka || c->lb == CP_LB_HAPROXY; /* else vipd reads lbd's socket */
	bool fenced = !ka && ha_tier_of(c, self) != HA_TIER_NONE;
	unsigned w = lb_track_weight(c);
	size_t npeers = cluster_lb_count(c) - 1;
	char a[CPHA_ADDR_STRLEN];

	put(b,
		"vrrp_instance %s {\n"
		"    state BACKUP\n"
		"    interface %s\n"
		"    virtual_router_id %u\n"
		"    priority %u\n"
		"    advert_int 1\n",
		name, c->interface, c->vrid, self->priority);
	if (ka)
		put(b, KA_NOPREEMPT);
	if (npeers && unicast) {
		put(b, "    unicast_src_ip %s\n    unicast_peer {\n",
			render_text_addr(&self->addr, a, sizeof(a)));
		for (size_t i = 0; i < cluster_lb_count(c); i++) {
			const struct cp_host *p = cluster_lb_host(c, i);
			if (p != self)
				put(b, "        %s\n", render_text_addr(&p->addr, a, sizeof(a)));
		}
		put(b, "    }\n");
	}
	put(b,
		"    virtual_ipaddress {\n"
		"        %s dev %s\n"
		"    }\n",
		vip, c->interface);
	/* in a sync group a member's tracks carry no weight (keepalived
	 * ignores it there): a failing one puts the group in FAULT */
	if (script && (ka || !c->has_vip2))
		put(b, "    track_script {\n"
		       "        lb_healthy\n"
		       "    }\n");
	else if (script)
		put(b, "    ! in a sync group: no weight; a failing check is FAULT for both VIPs\n"
		       "    track_script {\n"
		       "        lb_healthy weight 0\n"
		       "    }\n");
	else if (c->has_vip2)
		put(b, "    ! lbd has no apiserver up: FAULT for both VIPs (in a sync group a "
		       "track\n"
		       "    ! carries no weight)\n"
		       "    track_lbd {\n"
		       "        " RENDER_LBD_SOCKET " " RENDER_LB_PROXY " 1 weight 0\n"
		       "    }\n");
	else
		put(b,
			"    ! lbd has no apiserver up: priority -%u, below every healthy LB "
			"host\n"
			"    track_lbd {\n"
			"        " RENDER_LBD_SOCKET " " RENDER_LB_PROXY " 1 weight -%u\n"
			"    }\n",
			w, w);
	if (!ka)
		put(b, "    ! preempting a live master, announce first and take the VIP once it\n"
		       "    ! has stepped down: a lost advert never leaves it on both hosts\n"
		       "    preempt_handover\n");
	put(b, "    ! drained (cpha drain): FAULT, priority 0 sent, the VIP given up\n"
	       "    track_file {\n"
	       "        " RENDER_LB_DRAIN_TRACK " weight 0\n"
	       "    }\n");
	if (fenced)
		put(b, "    ! no takeover until fenced has fenced the old holder; no VIP without "
		       "quorum\n"
		       "    track_fenced " RENDER_FENCED_SOCKET "\n");
	put(b, "}\n");
}

static void vrrp_config(const struct cp_cluster *c, const struct cp_host *self, struct cpha_buf *b)
{
	bool ka = c->vipd == CP_VIP_KEEPALIVED;
	bool script = ka || c->lb == CP_LB_HAPROXY; /* else vipd reads lbd's socket */
	bool fenced = !ka && ha_tier_of(c, self) != HA_TIER_NONE;
	unsigned w = lb_track_weight(c);
	size_t npeers = cluster_lb_count(c) - 1;
	char a[CPHA_ADDR_STRLEN], name2[sizeof(RENDER_LB_PROXY) + 8];

	put(b,
		"! %s on %s: the VIP %s%s%s of cluster %s (https://%s:%u).\n"
		"! Rendered by `cpha render` from the cluster description: change that, not "
		"this file.\n"
		"! keepalived's configuration language%s. VRRPv3: no authentication.\n\n",
		ka ? RENDER_KEEPALIVED_CONF : RENDER_VIPD_CONF, self->name, c->vip_text,
		c->has_vip2 ? " and " : "", c->has_vip2 ? c->vip2_text : "", c->name, c->api_name,
		c->api_port, ka ? "" : " (see vipd.conf(5))");
	put(b,
		"global_defs {\n"
		"    router_id %s\n"
		"    vrrp_version 3\n"
		"    ! no MASTER before the load balancer's first checks and this host's\n"
		"    ! track ran: until its first check a server counts as up (HAProxy's\n"
		"    ! rule); a hung apiserver fails after 2s + 5s, the track after 2 x 2s\n"
		"    vrrp_startup_delay 15\n",
		self->name);
	if (script)
		put(b, "    script_user root\n"
		       "    enable_script_security\n");
	if (!ka) {
		put(b, "    vipd_admin_socket " RENDER_VIPD_SOCKET "\n");
		render_mon_lines(c, self, "vipd_metrics_bind", "vipd_metrics_web_config",
			RENDER_VIPD_METRICS_PORT, "!", b);
		put(b, "    ! giving up the VIP (the other host preempts, a fault) resets the\n"
		       "    ! connections on it: clients reconnect at once instead of hanging\n"
		       "    ! until their own timeout (a watch: 30 s and more)\n"
		       "    vipd_reset_connections\n");
		if (!script)
			put(b, "    ! giving the VIP up on purpose (cpha drain, a preferred host "
			       "back),\n"
			       "    ! lbd first takes no new connection to it for 0.3 s: the "
			       "requests in\n"
			       "    ! flight finish, new clients send their SYN again a second "
			       "later, to\n"
			       "    ! the new holder\n"
			       "    vipd_quiesce 0.3\n");
	}
	put(b, "}\n\n");
	if (script) {
		put(b,
			"! the local %s has an apiserver up (its monitor URI answers 200)\n"
			"vrrp_script lb_healthy {\n"
			"    script \"" LB_CHECK_SCRIPT "\"\n"
			"    interval 2\n"
			"    timeout 2\n"
			"    rise 2\n"
			"    fall 2\n",
			cluster_lb_name(c->lb));
		/* keepalived re-applies init_fail at every reload, and with no
		 * weight that is FAULT: the VIP would go at each reload; its
		 * vrrp_startup_delay covers the start instead */
		if (ka)
			put(b, KA_NO_WEIGHT
				"    ! no init_fail: keepalived applies it again at every "
				"reload,\n"
				"    ! which would put the instance in FAULT and drop the "
				"VIP\n");
		else
			put(b,
				"    weight -%u\n"
				"    ! failing until it has succeeded rise times\n"
				"    init_fail\n",
				w);
		put(b, "}\n\n");
	}
	put(b,
		"! `cpha drain %s` writes 1 here and `cpha undrain %s` 0: while it is\n"
		"! not 0 the instances are in FAULT (weight 0): they send priority 0, so\n"
		"! a backup takes the VIP at once, and give it up (an upgrade of this\n"
		"! host). A missing file counts as 0.\n"
		"track_file " RENDER_LB_DRAIN_TRACK " {\n"
		"    file " RENDER_LB_DRAIN_FILE "\n"
		"}\n\n",
		self->name, self->name);
	if (fenced && npeers) {
		/* vipd extension: a BFD session per other LB host. A session to
		 * the host holding the VIP that drops (150 ms) makes vipd ask
		 * fenced for that host's power at once instead of after 1.5 s of
		 * silent adverts; the VIP still moves only once fenced reads the
		 * power off. No track_bfd: with keepalived's semantics the
		 * backup would go to FAULT when the master dies. */
		put(b, "! BFD to the other LB hosts (RFC 5880): when the session to the VIP's\n"
		       "! holder drops, vipd asks fenced for its power at once (track_fenced)\n");
		for (size_t i = 0; i < cluster_lb_count(c); i++) {
			const struct cp_host *p = cluster_lb_host(c, i);
			char src[CPHA_ADDR_STRLEN];

			if (p == self)
				continue;
			if (strlen(p->name) <= 31)
				put(b, "bfd_instance %s {\n", p->name);
			else
				put(b, "bfd_instance lb_peer_%zu {\n", i + 1);
			put(b,
				"    neighbor_ip %s\n"
				"    source_ip %s\n"
				"    min_rx 50\n"
				"    min_tx 50\n"
				"    idle_tx 1000\n"
				"    multiplier 3\n"
				"}\n",
				render_text_addr(&p->addr, a, sizeof(a)),
				render_text_addr(&self->addr, src, sizeof(src)));
		}
		put(b, "\n");
	}
	if (ka)
		put(b, "! Every host starts as BACKUP. When no host holds the VIP (at a\n"
		       "! common start, or once the holder is gone) the highest priority\n"
		       "! takes it; then the MASTER keeps it while its check passes.\n");
	else
		put(b, "! Every host starts as BACKUP; the highest priority holds the VIP.\n");
	vrrp_instance(c, self, b, RENDER_LB_PROXY, c->vip_text, true);
	if (!c->has_vip2)
		return;
	/* dual stack: the other family's VIP in an instance of its own (VRRP
	 * carries one family), moved with the first by a sync group. It
	 * speaks multicast: the hosts have addresses of the first family
	 * only, and VRRP over IPv6 sends from the link-local address. */
	snprintf(name2, sizeof(name2), RENDER_LB_PROXY "_ipv%c",
		cpha_addr_family(&c->vip2) == AF_INET6 ? '6' : '4');
	put(b, "\n! the other family's VIP: its own instance, in a sync group with the first\n");
	vrrp_instance(c, self, b, name2, c->vip2_text, false);
	put(b,
		"\nvrrp_sync_group " RENDER_LB_PROXY "_vips {\n"
		"    group {\n"
		"        " RENDER_LB_PROXY "\n"
		"        %s\n"
		"    }\n"
		"}\n",
		name2);
}

/* The masters bind the VIP before they hold it. lbd has no transparent or
 * freebind bind option, so the kernel is told to allow it. */
static void lb_sysctl(const struct cp_cluster *c, const struct cp_host *self, struct cpha_buf *b)
{
	put(b,
		"# %s on %s: the load balancer binds the VIP %s%s%s before this host holds\n"
		"# it. Rendered by `cpha render` from the cluster description.\n"
		"net.ipv%c.ip_nonlocal_bind = 1\n",
		RENDER_SYSCTL_LB, self->name, c->vip_text, c->has_vip2 ? " and " : "",
		c->has_vip2 ? c->vip2_text : "", cpha_addr_family(&c->vip) == AF_INET6 ? '6' : '4');
	if (c->has_vip2)
		put(b, "net.ipv%c.ip_nonlocal_bind = 1\n",
			cpha_addr_family(&c->vip2) == AF_INET6 ? '6' : '4');
}

int render_lb(const struct cp_cluster *c, struct render_set *s, struct cpha_msgs *d)
{
	(void)d;
	for (size_t i = 0; i < cluster_lb_count(c); i++) {
		const struct cp_host *h = cluster_lb_host(c, i);

		if (c->lb == CP_LB_HAPROXY)
			lb_config(c, h,
				render_add(s, h->name, RENDER_HAPROXY_CFG, 0644,
					RENDER_CHECK_HAPROXY));
		else
			lb_config(c, h,
				render_add(s, h->name, RENDER_LBD_CFG, 0644, RENDER_CHECK_LBD));
		if (c->lb == CP_LB_LBD && render_mon_web(c))
			render_mon_web_file(c, h, "lbd",
				render_add(s, h->name, RENDER_LBD_WEB, 0600, RENDER_CHECK_YAML));
		if (c->vipd == CP_VIP_VIPD)
			vrrp_config(c, h,
				render_add(s, h->name, RENDER_VIPD_CONF, 0644, RENDER_CHECK_VIPD));
		if (c->vipd == CP_VIP_VIPD && render_mon_web(c))
			render_mon_web_file(c, h, "vipd",
				render_add(s, h->name, RENDER_VIPD_WEB, 0600, RENDER_CHECK_YAML));
		else if (c->vipd == CP_VIP_KEEPALIVED)
			vrrp_config(c, h,
				render_add(s, h->name, RENDER_KEEPALIVED_CONF, 0644,
					RENDER_CHECK_KEEPALIVED));
		if (c->lb_on_masters)
			lb_sysctl(c, h,
				render_add(s, h->name, RENDER_SYSCTL_LB, 0644, RENDER_CHECK_NONE));
	}
	return 0;
}
