/* Names in lbd's configuration, as HAProxy 2.6 treats them when it starts:
 * a 'bind' or 'server' address given by host name is resolved once with
 * the C library (getaddrinfo), a server following its 'init-addr' methods;
 * 'resolvers' sections are read and checked. HAProxy re-resolves a
 * server's host name at run time only through a resolvers section; lbd
 * does no run-time DNS yet, so a server by host name that names one is an
 * error, and for a server given by address, where HAProxy resolves
 * nothing either, 'resolvers', 'resolve-prefer' and 'init-addr' change
 * nothing. Parsers do not log: errors and notices go to the context. */
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include "cfg-internal.h"

struct cfg_resolvers_sec {
	char *name;
	unsigned line;
};

struct cfg_resolvers_ref {
	char name[64];
	char where[160];
	unsigned line;
};

struct cfg_resolvers {
	struct cfg_resolvers_sec *secs;
	size_t nsecs;
	struct cfg_resolvers_ref *refs;
	size_t nrefs;
};

static struct cfg_resolvers *cfg_res(struct cfg_ctx *ctx)
{
	if (!ctx->res && !(ctx->res = calloc(1, sizeof(*ctx->res))))
		cfg_oom(ctx);
	return ctx->res;
}

/* resolvers NAME */
void cfg_resolvers_start(struct cfg_ctx *ctx, const struct cfg_args *a)
{
	struct cfg_resolvers *r = cfg_res(ctx);
	struct cfg_resolvers_sec *s;
	size_t i;

	ctx->sec = CFG_SEC_SKIP;
	if (!r)
		return;
	if (a->n != 2) {
		cfg_err(ctx, a->line,
			a->n < 2 ? "'resolvers' needs a name" : "'resolvers' takes only a name");
		return;
	}
	if (!cfg_name_ok(ctx, a->line, "resolvers", a->v[1]))
		return;
	for (i = 0; i < r->nsecs; i++)
		if (strcmp(r->secs[i].name, a->v[1]) == 0) {
			cfg_err(ctx, a->line, "resolvers '%s' is already defined at %s:%u", a->v[1],
				ctx->file, r->secs[i].line);
			return;
		}
	s = cfg_push(ctx, &r->secs, &r->nsecs, sizeof(*s));
	if (!s || !(s->name = cfg_strdup(ctx, a->v[1])))
		return;
	s->line = a->line;
	ctx->sec = CFG_SEC_RESOLVERS;
}

/* The directives of a resolvers section (HAProxy 2.6's resolvers keywords):
 * checked as HAProxy checks them. */
void cfg_resolvers_line(struct cfg_ctx *ctx, const struct cfg_args *a)
{
	static const char *const holds[] = { "nx", "other", "refused", "timeout", "valid",
		"obsolete", NULL };
	const struct cfg_resolvers *r = ctx->res;
	const char *kw = a->v[0], *addr;
	char where[160];
	unsigned long long v;
	struct cpha_addr ns;
	uint64_t t;

	snprintf(where, sizeof(where), "resolvers '%s'", r->secs[r->nsecs - 1].name);
	if (strcmp(kw, "nameserver") == 0) {
		if (cfg_nargs(ctx, a, 1, 2, 2, where) < 0)
			return;
		addr = a->v[2];
		if (strncmp(addr, "udp@", 4) == 0 || strncmp(addr, "tcp@", 4) == 0)
			addr += 4;
		cfg_addr(ctx, a->line, "nameserver address", addr, CPHA_ADDR_PORT_OPTIONAL, &ns,
			where);
	} else if (strcmp(kw, "parse-resolv-conf") == 0) {
		cfg_nargs(ctx, a, 1, 0, 0, where);
	} else if (strcmp(kw, "accepted_payload_size") == 0) {
		if (cfg_nargs(ctx, a, 1, 1, 1, where) == 0)
			cfg_uint(ctx, a->line, kw, a->v[1], 512, 65535, &v, where);
	} else if (strcmp(kw, "resolve_retries") == 0) {
		if (cfg_nargs(ctx, a, 1, 1, 1, where) == 0)
			cfg_uint(ctx, a->line, kw, a->v[1], 1, 2147483647ULL, &v, where);
	} else if (strcmp(kw, "hold") == 0) {
		if (cfg_nargs(ctx, a, 1, 2, 2, where) < 0)
			return;
		if (cfg_lookup(holds, a->v[1]) < 0)
			cfg_err(ctx, a->line,
				"'hold %s' is not a status (nx, other, refused, timeout, valid or "
				"obsolete) (%s)",
				a->v[1], where);
		else
			cfg_time(ctx, a->line, "hold", a->v[2], &t, where);
	} else if (strcmp(kw, "timeout") == 0 && a->n >= 2 &&
		   (strcmp(a->v[1], "resolve") == 0 || strcmp(a->v[1], "retry") == 0)) {
		if (cfg_nargs(ctx, a, 2, 1, 1, where) == 0)
			cfg_time(ctx, a->line,
				a->v[1][2] == 's' ? "timeout resolve" : "timeout retry", a->v[2],
				&t, where);
	} else if (strcmp(kw, "resolution_pool_size") == 0) {
		if (cfg_nargs(ctx, a, 1, 1, 1, where) == 0)
			cfg_notice(ctx, a->line,
				"'resolution_pool_size' is deprecated and has no effect (HAProxy "
				"warns too) (%s)",
				where);
	} else {
		cfg_err(ctx, a->line, "'%s' is not supported by lbd in %s", kw, where);
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
			cfg_err(ctx, line, "'init-addr %s': %s (%s)", list,
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
		} else if (!cfg_is_hostname(one) &&
			   cfg_addr(ctx, line, "init-addr", one, CPHA_ADDR_PORT_NONE, &o->init_ip,
				   where) == 0) {
			o->init_addr[o->ninit_addr++] = LBD_INIT_IP;
		} else {
			if (cfg_is_hostname(one))
				cfg_err(ctx, line,
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

int cfg_resolve_server_opt(struct cfg_ctx *ctx, const struct cfg_args *a, size_t *i,
	struct lbd_server_opts *o, const char *where)
{
	const char *kw = a->v[*i], *val = *i + 1 < a->n ? a->v[*i + 1] : NULL;

	if (strcmp(kw, "resolvers") && strcmp(kw, "resolve-prefer") && strcmp(kw, "init-addr"))
		return 0;
	if (!val) {
		cfg_err(ctx, a->line, "'%s' needs a value (%s)", kw, where);
		*i = a->n;
		return 1;
	}
	(*i)++;
	if (strcmp(kw, "resolvers") == 0) {
		if (strlen(val) >= sizeof(o->resolvers)) {
			cfg_err(ctx, a->line, "'resolvers %s': the name is too long for lbd (%s)",
				val, where);
			return 1;
		}
		snprintf(o->resolvers, sizeof(o->resolvers), "%s", val);
		o->set |= LBD_SO_RESOLVERS;
	} else if (strcmp(kw, "resolve-prefer") == 0) {
		if (strcmp(val, "ipv4") && strcmp(val, "ipv6")) {
			cfg_err(ctx, a->line,
				"'resolve-prefer' must be ipv4 or ipv6, not '%s' (%s)", val, where);
			return 1;
		}
		o->resolve_family = val[3] == '4' ? AF_INET : AF_INET6;
		o->set |= LBD_SO_PREFER;
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

int cfg_resolve_bind(struct cfg_ctx *ctx, char *buf, size_t len, unsigned line, const char *where)
{
	char host[CPHA_ADDR_STRLEN], ip[INET6_ADDRSTRLEN], port[16] = "";
	const char *p, *why = "";
	int family;

	if (!cfg_is_hostname(buf) || strchr(buf, '$'))
		return 0;
	if (cfg_split(buf, &family, host, sizeof(host), &p) < 0 || (p && strlen(p) >= sizeof(port)))
		return 0; /* cfg_addr() says what is wrong */
	if (p)
		snprintf(port, sizeof(port), "%s", p);
	/* HAProxy resolves a bind address once, when it reads the file */
	if (cfg_getaddr(host, family, 0, ip, sizeof(ip), &why) < 0) {
		cfg_err(ctx, line, "bind address '%s': cannot resolve '%s': %s (%s)", buf, host,
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

	if (!r || !(ref = cfg_push(ctx, &r->refs, &r->nrefs, sizeof(*ref))))
		return;
	snprintf(ref->name, sizeof(ref->name), "%s", s->o.resolvers);
	snprintf(ref->where, sizeof(ref->where), "%s", where);
	ref->line = s->line;
}

void cfg_resolve_server(
	struct cfg_ctx *ctx, struct lbd_server_cfg *s, const char *hostname, const char *where)
{
	static const uint8_t dflt[] = { LBD_INIT_LAST, LBD_INIT_LIBC };
	const uint8_t *m = s->o.ninit_addr ? s->o.init_addr : dflt;
	size_t n = s->o.ninit_addr ? s->o.ninit_addr : sizeof(dflt), i;
	char host[CPHA_ADDR_STRLEN], ip[CPHA_ADDR_STRLEN], text[CPHA_ADDR_STRLEN + 16];
	const char *port, *why = "no method succeeded";
	int family;

	if (s->o.resolvers[0])
		cfg_resolve_ref(ctx, s, where);
	if (!hostname)
		return; /* an address: nothing to resolve, as in HAProxy */
	if (s->o.resolvers[0]) {
		cfg_err(ctx, s->line,
			"server address '%s' with 'resolvers %s': lbd does not re-resolve server "
			"names at run time yet; give an address, or drop 'resolvers' to resolve "
			"'%s' once at start (%s)",
			hostname, s->o.resolvers, hostname, where);
		return;
	}
	if (cfg_split(hostname, &family, host, sizeof(host), &port) < 0) {
		cfg_err(ctx, s->line, "server address '%s' is too long (%s)", hostname, where);
		return;
	}
	for (i = 0; i < n; i++) {
		if (m[i] == LBD_INIT_LAST)
			continue; /* no server-state file in lbd: as HAProxy without one */
		if (m[i] == LBD_INIT_NONE) {
			cfg_err(ctx, s->line,
				"server address '%s': 'init-addr none' would start it without an "
				"address, which lbd does not support yet (%s)",
				hostname, where);
			return;
		}
		if (m[i] == LBD_INIT_IP) {
			cpha_addr_format(&s->o.init_ip, ip, sizeof(ip));
			break;
		}
		if (cfg_getaddr(host, family, s->o.set & LBD_SO_PREFER ? s->o.resolve_family : 0,
			    ip, sizeof(ip), &why) == 0)
			break;
	}
	if (i == n) {
		cfg_err(ctx, s->line, "server address '%s': cannot resolve '%s': %s (%s)", hostname,
			host, why, where);
		return;
	}
	cfg_join(text, sizeof(text), ip, port);
	if (cfg_addr(ctx, s->line, "server address", text, CPHA_ADDR_PORT_OPTIONAL, &s->addr,
		    where) == 0)
		s->hostname = cfg_strdup(ctx, hostname);
}

void cfg_resolve_validate(struct cfg_ctx *ctx)
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
			cfg_err(ctx, r->refs[i].line,
				"resolvers '%s': no such resolvers section (%s)", r->refs[i].name,
				r->refs[i].where);
	}
	for (j = 0; j < r->nsecs; j++)
		cfg_notice(ctx, r->secs[j].line,
			"resolvers '%s': lbd does no run-time DNS; servers given by address need "
			"none (HAProxy resolves nothing for them either)",
			r->secs[j].name);
}

void cfg_resolve_free(struct cfg_ctx *ctx)
{
	size_t i;

	if (!ctx->res)
		return;
	for (i = 0; i < ctx->res->nsecs; i++)
		free(ctx->res->secs[i].name);
	free(ctx->res->secs);
	free(ctx->res->refs);
	free(ctx->res);
	ctx->res = NULL;
}
