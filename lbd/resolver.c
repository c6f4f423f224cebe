/* Run-time DNS of servers (resolver.h): one c-ares channel per resolvers
 * section, its sockets and timeouts driven from the main sd-event loop, and
 * one resolution per server, re-run on its own timer. Main thread only. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <ares.h>
#include <systemd/sd-event.h>

#include "check.h"
#include "duration.h"
#include "event.h"
#include "log.h"
#include "resolution.h"
#include "resolver.h"
#include "runtime.h"
#include "server_ctl.h"

#define RESOLVER_MAX_ADDRS 64 /* addresses of one answer that are looked at */

struct resolver_fd {
	int fd;
	sd_event_source *src;
};

/* One resolvers section in use. */
struct resolver_sec {
	char *name;
	struct lbd_resolvers_cfg cfg; /* timings (ns and name not used) */
	ares_channel ch;
	sd_event *e;
	sd_event_source *tick; /* c-ares' own timeouts */
	struct resolver_fd *fds;
	size_t nfds;
};

/* One server resolved at run time. */
struct resolver_srv {
	struct lbd_runtime *rt;
	struct resolver_sec *sec;
	char *backend, *server, *host;
	uint16_t port;
	int prefer;     /* AF_INET6 (HAProxy's default) or AF_INET */
	bool allow_dup; /* resolve-opts allow-dup-ip */
	struct resolution_state st;
	struct cpha_addr addr; /* current address (port 0), when st.has_addr */
	sd_event_source *timer;
	bool in_flight;
	bool orphan; /* its section went away while a query was out */
};

struct lbd_resolver_rt {
	struct resolver_sec **secs;
	size_t nsecs;
	struct resolver_srv **srvs;
	size_t nsrvs;
};

static int lib_refs;

static void tick_rearm(struct resolver_sec *sec)
{
	struct timeval tv, *tp = ares_timeout(sec->ch, NULL, &tv);

	if (!tp) {
		sd_event_source_set_enabled(sec->tick, SD_EVENT_OFF);
		return;
	}
	cpha_timer_rearm(sec->tick, (uint64_t)tp->tv_sec * 1000000 + (uint64_t)tp->tv_usec);
}

static int on_tick(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct resolver_sec *sec = userdata;

	(void)s;
	(void)usec;
	ares_process_fd(sec->ch, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
	tick_rearm(sec);
	return 0;
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct resolver_sec *sec = userdata;

	(void)s;
	ares_process_fd(sec->ch, revents & (EPOLLIN | EPOLLERR | EPOLLHUP) ? fd : ARES_SOCKET_BAD,
		revents & EPOLLOUT ? fd : ARES_SOCKET_BAD);
	tick_rearm(sec);
	return 0;
}

/* c-ares opens, watches and closes its sockets through this. */
static void on_sock_state(void *data, ares_socket_t fd, int readable, int writable)
{
	struct resolver_sec *sec = data;
	uint32_t ev = (readable ? EPOLLIN : 0) | (writable ? EPOLLOUT : 0);
	struct resolver_fd *f = NULL, *nf;
	size_t i;

	for (i = 0; i < sec->nfds && !f; i++)
		if (sec->fds[i].fd == fd)
			f = &sec->fds[i];
	if (!ev) {
		if (f) {
			sd_event_source_disable_unref(f->src);
			*f = sec->fds[--sec->nfds];
		}
		return;
	}
	if (f) {
		sd_event_source_set_io_events(f->src, ev);
		return;
	}
	nf = realloc(sec->fds, (sec->nfds + 1) * sizeof(*nf));
	if (!nf) {
		log_err("resolvers %s: out of memory watching a DNS socket", sec->name);
		return;
	}
	sec->fds = nf;
	f = &sec->fds[sec->nfds];
	f->fd = fd;
	if (sd_event_add_io(sec->e, &f->src, fd, ev, on_io, sec) < 0) {
		log_err("resolvers %s: cannot watch a DNS socket", sec->name);
		return;
	}
	sec->nfds++;
}

static void sec_free(struct resolver_sec *sec)
{
	size_t i;

	if (!sec)
		return;
	if (sec->ch)
		ares_destroy(sec->ch); /* pending queries end with ARES_EDESTRUCTION */
	for (i = 0; i < sec->nfds; i++)
		sd_event_source_disable_unref(sec->fds[i].src);
	free(sec->fds);
	sd_event_source_disable_unref(sec->tick);
	free(sec->name);
	free(sec);
	if (--lib_refs == 0)
		ares_library_cleanup();
}

static struct resolver_sec *sec_new(sd_event *e, const struct lbd_resolvers_cfg *rc)
{
	struct ares_addr_port_node *nodes = NULL;
	struct resolver_sec *sec = calloc(1, sizeof(*sec));
	struct ares_options o;
	bool all_tcp = rc->nns > 0;
	size_t i;
	int r;

	if (!sec)
		return NULL;
	if (lib_refs++ == 0 && ares_library_init(ARES_LIB_INIT_ALL) != ARES_SUCCESS)
		log_warn("resolvers %s: c-ares library init failed", rc->name);
	sec->e = e;
	sec->cfg = *rc;
	sec->name = strdup(rc->name);
	for (i = 0; i < rc->nns; i++)
		all_tcp &= rc->ns[i].tcp;
	memset(&o, 0, sizeof(o));
	/* only the section's name servers, no search list, no /etc/hosts */
	o.flags = ARES_FLAG_NOSEARCH | ARES_FLAG_NOALIASES | (all_tcp ? ARES_FLAG_USEVC : 0) |
		  (rc->payload > 512 ? ARES_FLAG_EDNS : 0);
	o.timeout = (int)((rc->timeout_retry ? rc->timeout_retry : 1000000) / 1000);
	o.tries = (int)(rc->retries ? rc->retries : 3);
	o.sock_state_cb = on_sock_state;
	o.sock_state_cb_data = sec;
	o.lookups = (char *)"b";
	o.ednspsz = (int)rc->payload;
	r = ares_init_options(&sec->ch, &o,
		ARES_OPT_FLAGS | ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES | ARES_OPT_SOCK_STATE_CB |
			ARES_OPT_LOOKUPS | (rc->payload > 512 ? ARES_OPT_EDNSPSZ : 0));
	if (r != ARES_SUCCESS) {
		log_err("resolvers %s: cannot set up DNS: %s", rc->name, ares_strerror(r));
		sec->ch = NULL;
		goto fail;
	}
	nodes = calloc(rc->nns ? rc->nns : 1, sizeof(*nodes));
	if (!nodes || !sec->name)
		goto fail;
	for (i = 0; i < rc->nns; i++) {
		const struct cpha_addr *a = &rc->ns[i].addr;
		uint16_t port = cpha_addr_port(a) ? cpha_addr_port(a) : 53;

		nodes[i].family = cpha_addr_family(a);
		if (nodes[i].family == AF_INET)
			memcpy(&nodes[i].addr.addr4,
				&((const struct sockaddr_in *)&a->ss)->sin_addr,
				sizeof(nodes[i].addr.addr4));
		else
			memcpy(&nodes[i].addr.addr6,
				&((const struct sockaddr_in6 *)&a->ss)->sin6_addr,
				sizeof(nodes[i].addr.addr6));
		nodes[i].udp_port = nodes[i].tcp_port = port;
		nodes[i].next = i + 1 < rc->nns ? &nodes[i + 1] : NULL;
	}
	r = ares_set_servers_ports(sec->ch, rc->nns ? nodes : NULL);
	free(nodes);
	nodes = NULL;
	if (r != ARES_SUCCESS) {
		log_err("resolvers %s: cannot set the name servers: %s", rc->name,
			ares_strerror(r));
		goto fail;
	}
	if (sd_event_add_time(e, &sec->tick, CLOCK_MONOTONIC, 0, 1000, on_tick, sec) < 0)
		goto fail;
	sd_event_source_set_enabled(sec->tick, SD_EVENT_OFF);
	return sec;
fail:
	free(nodes);
	sec_free(sec);
	return NULL;
}

static void srv_free(struct resolver_srv *rs)
{
	sd_event_source_disable_unref(rs->timer);
	free(rs->backend);
	free(rs->server);
	free(rs->host);
	free(rs);
}

static struct lbd_server *srv_find(struct resolver_srv *rs)
{
	return runtime_server(rs->rt, rs->backend, rs->server);
}

/* The addresses of the backend's other servers (port 0). */
static size_t taken_addrs(struct lbd_server *srv, struct cpha_addr *out, size_t max)
{
	struct lbd_backend_rt *be = srv->be;
	size_t i, n = 0;

	pthread_mutex_lock(&be->lock);
	for (i = 0; i < be->nservers && n < max; i++) {
		if (be->servers[i] == srv || be->servers[i]->removed)
			continue;
		out[n] = be->servers[i]->addr;
		cpha_addr_set_port(&out[n++], 0);
	}
	pthread_mutex_unlock(&be->lock);
	return n;
}

static void srv_set_addr(struct resolver_srv *rs, struct lbd_server *srv)
{
	struct cpha_addr a = rs->addr;

	cpha_addr_set_port(&a, rs->port);
	pthread_mutex_lock(&srv->be->lock);
	srv->addr = a;
	pthread_mutex_unlock(&srv->be->lock);
}

static enum lbd_dns_status status_of(int status)
{
	switch (status) {
	case ARES_ENOTFOUND:
		return LBD_DNS_NX;
	case ARES_EREFUSED:
	case ARES_ECONNREFUSED:
		return LBD_DNS_REFUSED;
	case ARES_ETIMEOUT:
		return LBD_DNS_TIMEOUT;
	default:
		return LBD_DNS_OTHER;
	}
}

static void srv_schedule(struct resolver_srv *rs)
{
	uint64_t d = resolution_next(&rs->st, &rs->sec->cfg);

	cpha_timer_rearm(rs->timer, d < 1000 ? 1000 : d);
}

/* Act on a decision for the server. */
static void srv_act(
	struct resolver_srv *rs, enum resolution_action act, bool had_addr, const char *why)
{
	struct lbd_server *srv = srv_find(rs);
	char was[CPHA_ADDR_STRLEN] = "none", now[CPHA_ADDR_STRLEN];
	bool had;

	if (!srv || act == RESOLUTION_KEEP)
		return;
	if (act == RESOLUTION_MAINT) {
		server_set_dns_maint(rs->rt, srv, true, why);
		return;
	}
	had = atomic_load(&srv->dns_maint);
	if (had_addr)
		cpha_addr_format(&srv->addr, was, sizeof(was));
	srv_set_addr(rs, srv);
	cpha_addr_format(&srv->addr, now, sizeof(now));
	if (strcmp(was, now) != 0)
		log_notice("server %s/%s changed its IP from %s to %s by resolvers '%s' (%s)",
			rs->backend, rs->server, was, now, rs->sec->name, rs->host);
	if (had)
		server_set_dns_maint(rs->rt, srv, false, "DNS resolution");
}

static void on_answer(void *arg, int status, int timeouts, struct ares_addrinfo *res)
{
	struct resolver_srv *rs = arg;
	struct cpha_addr ans[RESOLVER_MAX_ADDRS], taken[RESOLVER_MAX_ADDRS], out, *cur;
	struct ares_addrinfo_node *n;
	struct lbd_server *srv;
	enum resolution_action act;
	uint64_t now = cpha_now_usec(CLOCK_MONOTONIC);
	size_t na = 0, nt = 0;
	bool had_addr = rs->st.has_addr;
	char why[96];

	(void)timeouts;
	rs->in_flight = false;
	if (rs->orphan || status == ARES_EDESTRUCTION || status == ARES_ECANCELLED) {
		if (rs->orphan)
			srv_free(rs);
		if (res)
			ares_freeaddrinfo(res);
		return;
	}
	srv = srv_find(rs);
	if (status == ARES_SUCCESS && res) {
		for (n = res->nodes; n && na < RESOLVER_MAX_ADDRS; n = n->ai_next) {
			if (n->ai_family != AF_INET && n->ai_family != AF_INET6)
				continue;
			memset(&ans[na], 0, sizeof(ans[na]));
			memcpy(&ans[na].ss, n->ai_addr, n->ai_addrlen);
			ans[na].len = n->ai_addrlen;
			cpha_addr_set_port(&ans[na++], 0);
		}
		if (srv && !rs->allow_dup)
			nt = taken_addrs(srv, taken, RESOLVER_MAX_ADDRS);
		cur = rs->st.has_addr ? &rs->addr : NULL;
		act = resolution_on_answer(
			&rs->st, &rs->sec->cfg, cur, rs->prefer, ans, na, taken, nt, now, &out);
		if (act == RESOLUTION_CHANGE)
			rs->addr = out;
		snprintf(why, sizeof(why), "DNS %s status", resolution_status_name(rs->st.last));
	} else {
		enum lbd_dns_status s = status_of(status);

		act = resolution_on_error(&rs->st, &rs->sec->cfg, s, now);
		snprintf(why, sizeof(why), "DNS %s status", resolution_status_name(s));
		if (act == RESOLUTION_MAINT || rs->st.last != s)
			log_warn("server %s/%s: resolving '%s' through resolvers '%s': %s",
				rs->backend, rs->server, rs->host, rs->sec->name,
				ares_strerror(status));
	}
	if (res)
		ares_freeaddrinfo(res);
	srv_act(rs, act, had_addr, why);
	srv_schedule(rs);
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct resolver_srv *rs = userdata;
	struct ares_addrinfo_hints h;

	(void)s;
	(void)usec;
	if (rs->in_flight) {
		srv_schedule(rs);
		return 0;
	}
	memset(&h, 0, sizeof(h));
	h.ai_family = AF_UNSPEC;
	h.ai_flags = ARES_AI_NOSORT;
	rs->in_flight = true;
	/* the callback may run at once (and then the timer is already set) */
	cpha_timer_rearm(rs->timer, 3600ULL * 1000000);
	ares_getaddrinfo(rs->sec->ch, rs->host, NULL, &h, on_answer, rs);
	tick_rearm(rs->sec);
	return 0;
}

/* "host:port" or "ipv6@host:port" into the bare host and the port. */
static int split_host(const char *text, char **host, uint16_t *port)
{
	const char *h = text, *c;
	unsigned long p = 0;
	char *end;

	if (strncmp(h, "ipv4@", 5) == 0 || strncmp(h, "ipv6@", 5) == 0)
		h += 5;
	c = strrchr(h, ':');
	if (c) {
		p = strtoul(c + 1, &end, 10);
		if (*end || p > 65535)
			p = 0;
	}
	*host = strndup(h, c ? (size_t)(c - h) : strlen(h));
	*port = (uint16_t)p;
	return *host ? 0 : -ENOMEM;
}

static struct resolver_srv *old_match(
	struct lbd_resolver_rt *old, const char *be, const char *sname, const char *host)
{
	size_t i;

	for (i = 0; old && i < old->nsrvs; i++) {
		struct resolver_srv *rs = old->srvs[i];

		if (rs && strcmp(rs->backend, be) == 0 && strcmp(rs->server, sname) == 0 &&
			strcmp(rs->host, host) == 0)
			return rs;
	}
	return NULL;
}

static struct resolver_sec *sec_get(
	struct lbd_resolver_rt *d, struct lbd_runtime *rt, const char *name)
{
	const struct lbd_config *c = rt->cfg;
	struct resolver_sec *sec, **ns;
	size_t i;

	for (i = 0; i < d->nsecs; i++)
		if (strcmp(d->secs[i]->name, name) == 0)
			return d->secs[i];
	for (i = 0; i < c->nresolvers; i++)
		if (strcmp(c->resolvers[i].name, name) == 0)
			break;
	if (i == c->nresolvers)
		return NULL; /* the parser checked the name */
	ns = realloc(d->secs, (d->nsecs + 1) * sizeof(*ns));
	if (!ns)
		return NULL;
	d->secs = ns;
	sec = sec_new(rt->e, &c->resolvers[i]);
	if (sec)
		d->secs[d->nsecs++] = sec;
	return sec;
}

/* A resolution for one server of the new configuration. */
static int add_srv(struct lbd_resolver_rt *d, struct lbd_resolver_rt *old, struct lbd_runtime *rt,
	const char *be, const struct lbd_server_cfg *sc)
{
	struct resolver_srv *rs = calloc(1, sizeof(*rs)), **nv, *prev;
	struct lbd_server *srv = runtime_server(rt, be, sc->name);
	uint64_t now = cpha_now_usec(CLOCK_MONOTONIC);

	if (!rs || !srv)
		goto oom;
	rs->rt = rt;
	rs->backend = strdup(be);
	rs->server = strdup(sc->name);
	if (!rs->backend || !rs->server || split_host(sc->hostname, &rs->host, &rs->port) < 0)
		goto oom;
	if (!rs->port)
		rs->port = cpha_addr_port(&sc->addr);
	rs->prefer = sc->o.set & LBD_SO_PREFER ? sc->o.resolve_family : AF_INET6;
	rs->allow_dup = sc->o.resolve_allow_dup;
	rs->sec = sec_get(d, rt, sc->o.resolvers);
	if (!rs->sec)
		goto oom;
	prev = old_match(old, be, sc->name, rs->host);
	if (prev) {
		/* a reload: the address and state carry over */
		rs->st = prev->st;
		rs->addr = prev->addr;
		if (rs->st.has_addr)
			srv_set_addr(rs, srv);
	} else {
		rs->addr = sc->addr;
		cpha_addr_set_port(&rs->addr, 0);
		resolution_init(&rs->st, !sc->unresolved, now);
	}
	if (rs->st.maint && !atomic_load(&srv->dns_maint)) {
		server_set_dns_maint(rt, srv, true,
			rs->st.has_addr ? "DNS resolution failed" : "no IP address yet");
	} else if (rs->st.maint) {
		/* created in maintenance (init-addr none), or kept in it by a
		 * reload: the checks runtime_apply() started must not run */
		check_stop(srv);
		if (!prev)
			log_warn("server %s/%s is in maintenance until '%s' resolves (init-addr "
				 "none)",
				be, sc->name, rs->host);
	}
	if (sd_event_add_time(rt->e, &rs->timer, CLOCK_MONOTONIC, now, 1000, on_timer, rs) < 0)
		goto oom;
	nv = realloc(d->srvs, (d->nsrvs + 1) * sizeof(*nv));
	if (!nv)
		goto oom;
	d->srvs = nv;
	d->srvs[d->nsrvs++] = rs;
	return 0;
oom:
	log_err("server %s/%s: cannot set up its DNS resolution", be, sc->name);
	if (rs)
		srv_free(rs);
	return -ENOMEM;
}

static void rt_free(struct lbd_resolver_rt *d)
{
	size_t i;

	if (!d)
		return;
	/* a query still out frees its server when its section is destroyed */
	for (i = 0; i < d->nsrvs; i++) {
		if (d->srvs[i]->in_flight) {
			d->srvs[i]->orphan = true;
			sd_event_source_disable_unref(d->srvs[i]->timer);
			d->srvs[i]->timer = NULL;
		} else {
			srv_free(d->srvs[i]);
		}
	}
	for (i = 0; i < d->nsecs; i++)
		sec_free(d->secs[i]);
	free(d->srvs);
	free(d->secs);
	free(d);
}

int resolver_apply(struct lbd_runtime *rt)
{
	struct lbd_resolver_rt *old = rt->dns, *d;
	const struct lbd_config *c = rt->cfg;
	size_t i, j;
	int r = 0;

	d = calloc(1, sizeof(*d));
	if (!d) {
		log_err("cannot set up DNS resolutions: out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < c->nbackends; i++)
		for (j = 0; j < c->backends[i].nservers; j++) {
			const struct lbd_server_cfg *sc = &c->backends[i].servers[j];

			if (sc->hostname && sc->o.resolvers[0] &&
				add_srv(d, old, rt, c->backends[i].name, sc) < 0)
				r = -ENOMEM;
		}
	rt->dns = d;
	rt_free(old);
	return r;
}

void resolver_free(struct lbd_runtime *rt)
{
	rt_free(rt->dns);
	rt->dns = NULL;
}
