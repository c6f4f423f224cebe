/* Names in lbd's configuration, as HAProxy 2.6 treats them: a 'bind'
 * address given by host name is resolved once with the C library when the
 * file is read; a server's host name too, following its 'init-addr'
 * methods; and a server with 'resolvers NAME' is resolved again at run time
 * through that section's name servers (resolver.c), so it follows DNS
 * changes without a reload. Parsers do not log: errors and notices go to
 * the context. */
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include "cfg_ctx.h"

#define CFG_NS_MAX 16 /* name servers per section */

struct cfg_resolvers_ref {
	char name[64];
	char where[160];
	unsigned line;
};

struct cfg_resolvers {
	struct lbd_resolvers_cfg *secs;
	size_t nsecs;
	struct cfg_resolvers_ref *refs;
	size_t nrefs;
};

static struct cfg_resolvers *cfg_res(struct cfg_ctx *ctx)
{
	if (!ctx->res && !(ctx->res = calloc(1, sizeof(*ctx->res))))
		lbd_cfg_oom(ctx);
	return ctx->res;
}

/* resolvers NAME */
void lbd_cfg_resolvers_start(struct cfg_ctx *ctx, const struct cfg_args *a)
{
	struct cfg_resolvers *r = cfg_res(ctx);
	struct lbd_resolvers_cfg *s;
	size_t i;

	ctx->sec = CFG_SEC_SKIP;
	if (!r)
		return;
	if (a->n != 2) {
		lbd_cfg_err(ctx, a->line,
			a->n < 2 ? "'resolvers' needs a name" : "'resolvers' takes only a name");
		return;
	}
	if (!lbd_cfg_name_ok(ctx, a->line, "resolvers", a->v[1]))
		return;
	for (i = 0; i < r->nsecs; i++)
		if (strcmp(r->secs[i].name, a->v[1]) == 0) {
			lbd_cfg_err(ctx, a->line, "resolvers '%s' is already defined at %s:%u",
				a->v[1], ctx->file, r->secs[i].line);
			return;
		}
	s = lbd_cfg_push(ctx, &r->secs, &r->nsecs, sizeof(*s));
	if (!s || !(s->name = lbd_cfg_strdup(ctx, a->v[1])))
		return;
	s->line = a->line;
	/* HAProxy 2.6's defaults */
	s->timeout_resolve = s->timeout_retry = 1000000;
	s->retries = 3;
	s->payload = 512;
	for (i = 0; i < LBD_DNS_NSTATUS; i++)
		s->hold[i] = 30000000;
	s->hold[LBD_DNS_VALID] = 10000000;
	s->hold[LBD_DNS_OBSOLETE] = 0;
	ctx->sec = CFG_SEC_RESOLVERS;
}

/* One name server of the section; 0 or -1 (error said). */
static int cfg_ns_add(struct cfg_ctx *ctx, struct lbd_resolvers_cfg *s, unsigned line,
	const char *id, const struct cpha_addr *addr, bool tcp, const char *where)
{
	struct lbd_nameserver *ns;
	size_t i;

	for (i = 0; id && i < s->nns; i++)
		if (s->ns[i].id && strcmp(s->ns[i].id, id) == 0) {
			lbd_cfg_err(ctx, line, "nameserver '%s' is already defined at %s:%u (%s)",
				id, ctx->file, s->ns[i].line, where);
			return -1;
		}
	if (s->nns == CFG_NS_MAX) {
		lbd_cfg_err(ctx, line, "more than %d name servers (%s)", CFG_NS_MAX, where);
		return -1;
	}
	ns = lbd_cfg_push(ctx, &s->ns, &s->nns, sizeof(*ns));
	if (!ns || (id && !(ns->id = lbd_cfg_strdup(ctx, id))))
		return -1;
	ns->addr = *addr;
	if (!cpha_addr_port(&ns->addr))
		cpha_addr_set_port(&ns->addr, 53);
	ns->tcp = tcp;
	ns->line = line;
	return 0;
}

/* parse-resolv-conf: the C library's name servers, read now as HAProxy does. */
static void cfg_resolv_conf(
	struct cfg_ctx *ctx, struct lbd_resolvers_cfg *s, unsigned line, const char *where)
{
	char buf[512], word[64], addr[INET6_ADDRSTRLEN + 1];
	struct cpha_addr a;
	const char *why;
	FILE *f;

#ifdef LBD_CFG_NO_DNS
	(void)s;
	(void)line;
	(void)where;
	return; /* fuzzing builds read no system file */
#endif
	f = fopen("/etc/resolv.conf", "re");
	if (!f) {
		lbd_cfg_notice(
			ctx, line, "parse-resolv-conf: cannot read /etc/resolv.conf (%s)", where);
		return;
	}
	while (fgets(buf, sizeof(buf), f))
		if (sscanf(buf, "%63s %46s", word, addr) == 2 && strcmp(word, "nameserver") == 0 &&
			cpha_parse_addr(addr, CPHA_ADDR_PORT_NONE, &a, &why) == 0)
			cfg_ns_add(ctx, s, line, NULL, &a, false, where);
	fclose(f);
}

/* The directives of a resolvers section (HAProxy 2.6's resolvers keywords):
 * checked as HAProxy checks them. */
void lbd_cfg_resolvers_line(struct cfg_ctx *ctx, const struct cfg_args *a)
{
	static const char *const holds[] = { "nx", "other", "refused", "timeout", "valid",
		"obsolete", NULL };
	const struct cfg_resolvers *r = ctx->res;
	struct lbd_resolvers_cfg *s = &r->secs[r->nsecs - 1];
	const char *kw = a->v[0], *addr;
	char where[160];
	unsigned long long v;
	struct cpha_addr ns;
	uint64_t t;
	int k;

	snprintf(where, sizeof(where), "resolvers '%s'", s->name);
	if (strcmp(kw, "nameserver") == 0) {
		if (lbd_cfg_nargs(ctx, a, 1, 2, 2, where) < 0)
			return;
		addr = a->v[2];
		if (strncmp(addr, "udp@", 4) == 0 || strncmp(addr, "tcp@", 4) == 0)
			addr += 4;
		if (lbd_cfg_addr(ctx, a->line, "nameserver address", addr, CPHA_ADDR_PORT_OPTIONAL,
			    &ns, where) == 0)
			cfg_ns_add(ctx, s, a->line, a->v[1], &ns, strncmp(a->v[2], "tcp@", 4) == 0,
				where);
	} else if (strcmp(kw, "parse-resolv-conf") == 0) {
		if (lbd_cfg_nargs(ctx, a, 1, 0, 0, where) == 0) {
			s->parse_resolv_conf = true;
			cfg_resolv_conf(ctx, s, a->line, where);
		}
	} else if (strcmp(kw, "accepted_payload_size") == 0) {
		if (lbd_cfg_nargs(ctx, a, 1, 1, 1, where) == 0 &&
			lbd_cfg_uint(ctx, a->line, kw, a->v[1], 512, 65535, &v, where) == 0)
			s->payload = (unsigned)v;
	} else if (strcmp(kw, "resolve_retries") == 0) {
		if (lbd_cfg_nargs(ctx, a, 1, 1, 1, where) == 0 &&
			lbd_cfg_uint(ctx, a->line, kw, a->v[1], 1, 2147483647ULL, &v, where) == 0)
			s->retries = (unsigned)v;
	} else if (strcmp(kw, "hold") == 0) {
		if (lbd_cfg_nargs(ctx, a, 1, 2, 2, where) < 0)
			return;
		k = lbd_cfg_lookup(holds, a->v[1]);
		if (k < 0)
			lbd_cfg_err(ctx, a->line,
				"'hold %s' is not a status (nx, other, refused, timeout, valid or "
				"obsolete) (%s)",
				a->v[1], where);
		else if (lbd_cfg_time(ctx, a->line, "hold", a->v[2], &t, where) == 0)
			s->hold[k] = t;
	} else if (strcmp(kw, "timeout") == 0 && a->n >= 2 &&
		   (strcmp(a->v[1], "resolve") == 0 || strcmp(a->v[1], "retry") == 0)) {
		if (lbd_cfg_nargs(ctx, a, 2, 1, 1, where) == 0 &&
			lbd_cfg_time(ctx, a->line,
				a->v[1][2] == 's' ? "timeout resolve" : "timeout retry", a->v[2],
				&t, where) == 0) {
			if (!t)
				lbd_cfg_err(ctx, a->line, "'timeout %s' must be above 0 (%s)",
					a->v[1], where);
			else if (a->v[1][2] == 's')
				s->timeout_resolve = t;
			else
				s->timeout_retry = t;
		}
	} else if (strcmp(kw, "resolution_pool_size") == 0) {
		if (lbd_cfg_nargs(ctx, a, 1, 1, 1, where) == 0)
			lbd_cfg_notice(ctx, a->line,
				"'resolution_pool_size' is deprecated and has no effect (HAProxy "
				"warns too) (%s)",
				where);
	} else {
		lbd_cfg_err(ctx, a->line, "'%s' is not supported by lbd in %s", kw, where);
	}
}

/* init-addr METHOD[,METHOD...]: last, libc, none or an address. */
static void cfg_init_addr(struct cfg_ctx *ctx, unsigned line, const char *list,
	struct lbd_server_opts *o, const char *where)
{
	char one[CPHA_ADDR_STRLEN + 8];
	const char *p = list, *comma;
	size_t len;

	o->ninit_addr = 0;
	for (;;) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (!len || len >= sizeof(one) || o->ninit_addr == sizeof(o->init_addr)) {
			lbd_cfg_err(ctx, line, "'init-addr %s': %s (%s)", list,
				len ? "too many or too long methods" : "empty method", where);
			return;
		}
		memcpy(one, p, len);
		one[len] = '\0';
		if (strcmp(one, "last") == 0) {
			o->init_addr[o->ninit_addr++] = LBD_INIT_LAST;
		} else if (strcmp(one, "libc") == 0) {
			o->init_addr[o->ninit_addr++] = LBD_INIT_LIBC;
		} else if (strcmp(one, "none") == 0) {
			o->init_addr[o->ninit_addr++] = LBD_INIT_NONE;
		} else if (!lbd_cfg_is_hostname(one) &&
			   lbd_cfg_addr(ctx, line, "init-addr", one, CPHA_ADDR_PORT_NONE,
				   &o->init_ip, where) == 0) {
			o->init_addr[o->ninit_addr++] = LBD_INIT_IP;
		} else {
			if (lbd_cfg_is_hostname(one))
				lbd_cfg_err(ctx, line,
					"'init-addr': unsupported method '%s' (last, libc, none or "
					"an IP address) (%s)",
					one, where);
			return;
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	o->set |= LBD_SO_INIT_ADDR;
}

/* resolve-opts OPT[,OPT...]: allow-dup-ip, prevent-dup-ip, ignore-weight. */
static void cfg_resolve_opts(struct cfg_ctx *ctx, unsigned line, const char *list,
	struct lbd_server_opts *o, const char *where)
{
	char one[32];
	const char *p = list, *comma;
	size_t len;

	for (;;) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		snprintf(one, sizeof(one), "%.*s", (int)(len < sizeof(one) ? len : 0), p);
		if (strcmp(one, "allow-dup-ip") == 0) {
			o->resolve_allow_dup = 1;
		} else if (strcmp(one, "prevent-dup-ip") == 0) {
			o->resolve_allow_dup = 0;
		} else if (strcmp(one, "ignore-weight") == 0) {
			/* SRV records' weights: lbd resolves A and AAAA only */
			lbd_cfg_notice(ctx, line,
				"'resolve-opts ignore-weight' has no effect: lbd resolves A and "
				"AAAA records, which carry no weight (%s)",
				where);
		} else {
			lbd_cfg_err(ctx, line,
				"'resolve-opts %s': unknown option '%s' (allow-dup-ip, "
				"prevent-dup-ip or ignore-weight) (%s)",
				list, len < sizeof(one) ? one : p, where);
			return;
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	o->set |= LBD_SO_RESOLVE_OPTS;
}

int lbd_cfg_resolve_server_opt(struct cfg_ctx *ctx, const struct cfg_args *a, size_t *i,
	struct lbd_server_opts *o, const char *where)
{
	const char *kw = a->v[*i], *val = *i + 1 < a->n ? a->v[*i + 1] : NULL;

	if (strcmp(kw, "resolvers") && strcmp(kw, "resolve-prefer") && strcmp(kw, "init-addr") &&
		strcmp(kw, "resolve-opts"))
		return 0;
	if (!val) {
		lbd_cfg_err(ctx, a->line, "'%s' needs a value (%s)", kw, where);
		*i = a->n;
		return 1;
	}
	(*i)++;
	if (strcmp(kw, "resolvers") == 0) {
		if (strlen(val) >= sizeof(o->resolvers)) {
			lbd_cfg_err(ctx, a->line,
				"'resolvers %s': the name is too long for lbd (%s)", val, where);
			return 1;
		}
		snprintf(o->resolvers, sizeof(o->resolvers), "%s", val);
		o->set |= LBD_SO_RESOLVERS;
	} else if (strcmp(kw, "resolve-prefer") == 0) {
		if (strcmp(val, "ipv4") && strcmp(val, "ipv6")) {
			lbd_cfg_err(ctx, a->line,
				"'resolve-prefer' must be ipv4 or ipv6, not '%s' (%s)", val, where);
			return 1;
		}
		o->resolve_family = val[3] == '4' ? AF_INET : AF_INET6;
		o->set |= LBD_SO_PREFER;
	} else if (strcmp(kw, "resolve-opts") == 0) {
		cfg_resolve_opts(ctx, a->line, val, o, where);
	} else {
		cfg_init_addr(ctx, a->line, val, o, where);
	}
	return 1;
}

/* The first address of host from the C library, the preferred family
 * first when one is given (0: the library's order). Writes it as text. */
static int cfg_getaddr(
	const char *host, int family, int prefer, char *out, size_t len, const char **why)
{
	struct addrinfo hints, *res = NULL, *ai, *pick = NULL;
	int r;

#ifdef LBD_CFG_NO_DNS
	/* fuzzing builds: random names must not become DNS queries */
	if (strcmp(host, "localhost") != 0) {
		*why = "name lookups are off in this build";
		return -1;
	}
#endif
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = family;
	hints.ai_socktype = SOCK_STREAM;
	r = getaddrinfo(host, NULL, &hints, &res);
	if (r != 0) {
		*why = gai_strerror(r);
		return -1;
	}
	for (ai = res; ai && !pick; ai = ai->ai_next)
		if (ai->ai_family == prefer)
			pick = ai;
	for (ai = res; ai && !pick; ai = ai->ai_next)
		if (ai->ai_family == AF_INET || ai->ai_family == AF_INET6)
			pick = ai;
	if (pick && pick->ai_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)pick->ai_addr)->sin_addr, out,
			(socklen_t)len);
	else if (pick)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)pick->ai_addr)->sin6_addr, out,
			(socklen_t)len);
	freeaddrinfo(res);
	if (!pick) {
		*why = "no IPv4 or IPv6 address";
		return -1;
	}
	return 0;
}

/* Split "[ipvN@]host[:port]" of at most CPHA_ADDR_STRLEN bytes; 0 or -1. */
static int cfg_split(const char *text, int *family, char *host, size_t hlen, const char **port)
{
	const char *h = text, *c;
	size_t n;

	*family = AF_UNSPEC;
	if (strncmp(h, "ipv4@", 5) == 0 || strncmp(h, "ipv6@", 5) == 0) {
		*family = h[3] == '4' ? AF_INET : AF_INET6;
		h += 5;
	}
	c = strchr(h, ':');
	n = c ? (size_t)(c - h) : strlen(h);
	if (n >= hlen)
		return -1;
	memcpy(host, h, n);
	host[n] = '\0';
	*port = c ? c + 1 : NULL;
	return 0;
}

/* "ip:port" or "[ip6]:port" (the port only when there was one). */
static void cfg_join(char *buf, size_t len, const char *ip, const char *port)
{
	int v6 = strchr(ip, ':') != NULL;

	if (port)
		snprintf(buf, len, "%s%s%s:%s", v6 ? "[" : "", ip, v6 ? "]" : "", port);
	else
		snprintf(buf, len, "%s", ip);
}

int lbd_cfg_resolve_bind(
	struct cfg_ctx *ctx, char *buf, size_t len, unsigned line, const char *where)
{
	char host[CPHA_ADDR_STRLEN], ip[INET6_ADDRSTRLEN], port[16] = "";
	const char *p, *why = "";
	int family;

	if (!lbd_cfg_is_hostname(buf) || strchr(buf, '$'))
		return 0;
	if (cfg_split(buf, &family, host, sizeof(host), &p) < 0 || (p && strlen(p) >= sizeof(port)))
		return 0; /* lbd_cfg_addr() says what is wrong */
	if (p)
		snprintf(port, sizeof(port), "%s", p);
	/* HAProxy resolves a bind address once, when it reads the file */
	if (cfg_getaddr(host, family, 0, ip, sizeof(ip), &why) < 0) {
		lbd_cfg_err(ctx, line, "bind address '%s': cannot resolve '%s': %s (%s)", buf, host,
			why, where);
		return -1;
	}
	cfg_join(buf, len, ip, p ? port : NULL);
	return 0;
}

static void cfg_resolve_ref(struct cfg_ctx *ctx, const struct lbd_server_cfg *s, const char *where)
{
	struct cfg_resolvers *r = cfg_res(ctx);
	struct cfg_resolvers_ref *ref;

	if (!r || !(ref = lbd_cfg_push(ctx, &r->refs, &r->nrefs, sizeof(*ref))))
		return;
	snprintf(ref->name, sizeof(ref->name), "%s", s->o.resolvers);
	snprintf(ref->where, sizeof(ref->where), "%s", where);
	ref->line = s->line;
}

/* Whether the section being read loads a server-state file that may hold
 * the address of an unresolvable "init-addr last" server. */
static int cfg_resolve_has_state(const struct cfg_ctx *ctx)
{
	const struct lbd_state_cfg *st = ctx->cur ? &ctx->cur->be.state : NULL;

	return st && (st->load == LBD_STATE_LOCAL ||
			     (st->load == LBD_STATE_GLOBAL && ctx->global.state_file[0]));
}

void lbd_cfg_resolve_server(
	struct cfg_ctx *ctx, struct lbd_server_cfg *s, const char *hostname, const char *where)
{
	static const uint8_t dflt[] = { LBD_INIT_LAST, LBD_INIT_LIBC };
	const uint8_t *m = s->o.ninit_addr ? s->o.init_addr : dflt;
	size_t n = s->o.ninit_addr ? s->o.ninit_addr : sizeof(dflt), i;
	char host[CPHA_ADDR_STRLEN], ip[CPHA_ADDR_STRLEN], text[CPHA_ADDR_STRLEN + 16];
	const char *port, *why = "no method succeeded";
	int family, last = 0;

	if (s->o.resolvers[0])
		cfg_resolve_ref(ctx, s, where);
	if (!hostname)
		return; /* an address: nothing to resolve, as in HAProxy */
	if (cfg_split(hostname, &family, host, sizeof(host), &port) < 0) {
		lbd_cfg_err(ctx, s->line, "server address '%s' is too long (%s)", hostname, where);
		return;
	}
	for (i = 0; i < n; i++) {
		if (m[i] == LBD_INIT_LAST) {
			/* the address is the server-state file's, which is read
			 * after the configuration (server_state.c): try the next
			 * method, and without one wait for the file */
			last = 1;
			continue;
		}
		if (m[i] == LBD_INIT_NONE) {
			if (!s->o.resolvers[0]) {
				lbd_cfg_err(ctx, s->line,
					"server address '%s': 'init-addr none' without 'resolvers' "
					"would leave it without an address for good (%s)",
					hostname, where);
				return;
			}
			/* in maintenance until its resolvers answer (resolver.c);
			 * the address holds the port meanwhile */
			snprintf(ip, sizeof(ip), "0.0.0.0");
			s->unresolved = 1;
			break;
		}
		if (m[i] == LBD_INIT_IP) {
			cpha_addr_format(&s->o.init_ip, ip, sizeof(ip));
			break;
		}
		if (cfg_getaddr(host, family, s->o.set & LBD_SO_PREFER ? s->o.resolve_family : 0,
			    ip, sizeof(ip), &why) == 0)
			break;
	}
	if (i == n && last && cfg_resolve_has_state(ctx)) {
		/* as init-addr none until server_state_load() gives it the
		 * address it had (or its resolvers do) */
		lbd_cfg_notice(ctx, s->line,
			"server address '%s': cannot resolve '%s' (%s): it starts in maintenance "
			"until the server-state file or its resolvers give its address (%s)",
			hostname, host, why, where);
		snprintf(ip, sizeof(ip), "0.0.0.0");
		s->unresolved = 1;
	} else if (i == n) {
		lbd_cfg_err(ctx, s->line, "server address '%s': cannot resolve '%s': %s (%s)",
			hostname, host, why, where);
		return;
	}
	cfg_join(text, sizeof(text), ip, port);
	if (lbd_cfg_addr(ctx, s->line, "server address", text, CPHA_ADDR_PORT_OPTIONAL, &s->addr,
		    where) == 0)
		s->hostname = lbd_cfg_strdup(ctx, hostname);
}

void lbd_cfg_resolve_validate(struct cfg_ctx *ctx)
{
	const struct cfg_resolvers *r = ctx->res;
	size_t i, j;

	if (!r)
		return;
	for (i = 0; i < r->nrefs; i++) {
		for (j = 0; j < r->nsecs; j++)
			if (strcmp(r->refs[i].name, r->secs[j].name) == 0)
				break;
		if (j == r->nsecs)
			lbd_cfg_err(ctx, r->refs[i].line,
				"resolvers '%s': no such resolvers section (%s)", r->refs[i].name,
				r->refs[i].where);
	}
}

void lbd_cfg_resolve_build(struct cfg_ctx *ctx, struct lbd_config *c)
{
	struct cfg_resolvers *r = ctx->res;
	size_t i, j;

	if (!r)
		return;
	for (i = 0; i < r->nrefs; i++)
		for (j = 0; j < r->nsecs; j++)
			if (strcmp(r->refs[i].name, r->secs[j].name) == 0 && !r->secs[j].nns) {
				lbd_cfg_err(ctx, r->refs[i].line,
					"resolvers '%s' has no name server (%s)", r->refs[i].name,
					r->refs[i].where);
				return;
			}
	c->resolvers = r->secs;
	c->nresolvers = r->nsecs;
	r->secs = NULL;
	r->nsecs = 0;
}

static void cfg_resolvers_free(struct lbd_resolvers_cfg *secs, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < secs[i].nns; j++)
			free(secs[i].ns[j].id);
		free(secs[i].ns);
		free(secs[i].name);
	}
	free(secs);
}

void lbd_cfg_resolvers_config_free(struct lbd_config *c)
{
	cfg_resolvers_free(c->resolvers, c->nresolvers);
	c->resolvers = NULL;
	c->nresolvers = 0;
}

void lbd_cfg_resolve_free(struct cfg_ctx *ctx)
{
	if (!ctx->res)
		return;
	cfg_resolvers_free(ctx->res->secs, ctx->res->nsecs);
	free(ctx->res->refs);
	free(ctx->res);
	ctx->res = NULL;
}
