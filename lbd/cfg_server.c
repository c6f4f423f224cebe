/* Where lbd connects: server and default-server lines (the HAProxy server
 * options lbd implements, inheritance from default-server) and the
 * per-server checks that need the whole backend. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "duration.h"
#include "health.h"
#include "cfg_ctx.h"

#define CFG_SO(f) offsetof(struct lbd_server_opts, f)

/* Options without a value. */
static const struct {
	const char *name;
	uint64_t bit;
	size_t off; /* of an int */
	int val;
} cfg_sflags[] = {
	{ "check", LBD_SO_CHECK, CFG_SO(check), 1 },
	{ "no-check", LBD_SO_CHECK, CFG_SO(check), 0 },
	{ "check-ssl", LBD_SO_CHECK_SSL, CFG_SO(check_ssl), 1 },
	{ "no-check-ssl", LBD_SO_CHECK_SSL, CFG_SO(check_ssl), 0 },
	{ "backup", LBD_SO_BACKUP, CFG_SO(backup), 1 },
	{ "no-backup", LBD_SO_BACKUP, CFG_SO(backup), 0 },
	{ "disabled", LBD_SO_DISABLED, CFG_SO(disabled), 1 },
	{ "enabled", LBD_SO_DISABLED, CFG_SO(disabled), 0 },
	{ "send-proxy", LBD_SO_SEND_PROXY, CFG_SO(send_proxy), 1 },
	{ "no-send-proxy", LBD_SO_SEND_PROXY, CFG_SO(send_proxy), 0 },
	{ "send-proxy-v2", LBD_SO_SEND_PROXY_V2, CFG_SO(send_proxy_v2), 1 },
	{ "no-send-proxy-v2", LBD_SO_SEND_PROXY_V2, CFG_SO(send_proxy_v2), 0 },
};

/* Options taking a time (HAProxy units, milliseconds by default). */
static const struct {
	const char *name;
	uint64_t bit;
	size_t off; /* of a uint64_t */
	int positive;
} cfg_stimes[] = {
	{ "inter", LBD_SO_INTER, CFG_SO(inter), 1 },
	{ "fastinter", LBD_SO_FASTINTER, CFG_SO(fastinter), 1 },
	{ "downinter", LBD_SO_DOWNINTER, CFG_SO(downinter), 1 },
	{ "slowstart", LBD_SO_SLOWSTART, CFG_SO(slowstart), 0 },
	{ "shutdown-sessions-spread", LBD_SO_SPREAD, CFG_SO(shutdown_spread), 0 },
	{ "hedge", LBD_SO_HEDGE, CFG_SO(hedge), 0 }, /* lbd's own; 0: off here */
};

/* Options taking a number. */
static const struct {
	const char *name;
	uint64_t bit;
	size_t off; /* of an unsigned */
	unsigned long long min, max;
} cfg_suints[] = {
	{ "rise", LBD_SO_RISE, CFG_SO(rise), 1, 1000000 },
	{ "fall", LBD_SO_FALL, CFG_SO(fall), 1, 1000000 },
	{ "maxconn", LBD_SO_MAXCONN, CFG_SO(maxconn), 0, 10000000 },
	{ "maxqueue", LBD_SO_MAXQUEUE, CFG_SO(maxqueue), 0, 10000000 },
	{ "weight", LBD_SO_WEIGHT, CFG_SO(weight), 0, 256 },
	{ "error-limit", LBD_SO_ERROR_LIMIT, CFG_SO(error_limit), 1, 1000000 },
};

/* ca-file and crt: relative paths are taken from ca-base / crt-base, as
 * HAProxy does, and the file must be readable now. */
static void cfg_server_path(struct cfg_ctx *ctx, unsigned line, const char *opt, const char *val,
	char **dst, const char *where)
{
	const char *base = strcmp(opt, "ca-file") == 0 ? ctx->ca_base : ctx->crt_base;
	size_t len;
	char *p;

	if (!val[0]) {
		lbd_cfg_err(ctx, line, "'%s' needs a file name (%s)", opt, where);
		return;
	}
	if (val[0] != '/' && val[0] != '@' && base) {
		len = strlen(base) + strlen(val) + 2;
		p = malloc(len);
		if (p)
			snprintf(p, len, "%s/%s", base, val);
	} else {
		p = strdup(val);
	}
	if (!p) {
		lbd_cfg_oom(ctx);
		return;
	}
	/* "@system-ca" and the like name no file */
	if (p[0] != '@' && access(p, R_OK) == -1)
		lbd_cfg_err(ctx, line, "'%s' %s: %s (%s)", opt, p, strerror(errno), where);
	free(*dst);
	*dst = p;
}

#define CFG_N(t) (sizeof(t) / sizeof((t)[0]))

/* A known option that takes a value. */
static int cfg_server_valued(const char *kw)
{
	static const char *const others[] = { "verify", "ca-file", "crt", "on-marked-down",
		"on-marked-up", "port", "addr", "observe", "on-error" };
	size_t k;

	for (k = 0; k < CFG_N(cfg_stimes); k++)
		if (strcmp(kw, cfg_stimes[k].name) == 0)
			return 1;
	for (k = 0; k < CFG_N(cfg_suints); k++)
		if (strcmp(kw, cfg_suints[k].name) == 0)
			return 1;
	for (k = 0; k < CFG_N(others); k++)
		if (strcmp(kw, others[k]) == 0)
			return 1;
	return 0;
}

/* Options from a->v[i] on, over o. */
static void cfg_server_opts(struct cfg_ctx *ctx, const struct cfg_args *a, size_t i,
	struct lbd_server_opts *o, const char *where)
{
	unsigned long long v;
	const char *kw, *val;
	uint64_t t;
	size_t k;

	for (; i < a->n; i++) {
		kw = a->v[i];
		val = i + 1 < a->n ? a->v[i + 1] : NULL;
		for (k = 0; k < CFG_N(cfg_sflags); k++)
			if (strcmp(kw, cfg_sflags[k].name) == 0)
				break;
		if (k < CFG_N(cfg_sflags)) {
			*(int *)((char *)o + cfg_sflags[k].off) = cfg_sflags[k].val;
			o->set |= cfg_sflags[k].bit;
			continue;
		}
		if (lbd_cfg_resolve_server_opt(ctx, a, &i, o, where))
			continue;
		if (!cfg_server_valued(kw)) {
			/* its value, if it takes one, is unknown: stop here */
			lbd_cfg_err(ctx, a->line, "'%s' is not supported by lbd (%s)", kw, where);
			return;
		}
		if (!val) {
			lbd_cfg_err(ctx, a->line, "'%s' needs a value (%s)", kw, where);
			return;
		}
		i++;
		for (k = 0; k < CFG_N(cfg_stimes); k++)
			if (strcmp(kw, cfg_stimes[k].name) == 0)
				break;
		if (k < CFG_N(cfg_stimes)) {
			if (lbd_cfg_time(ctx, a->line, kw, val, &t, where) < 0)
				continue;
			if (cfg_stimes[k].positive && t == 0) {
				lbd_cfg_err(
					ctx, a->line, "'%s' must be more than 0 (%s)", kw, where);
				continue;
			}
			*(uint64_t *)((char *)o + cfg_stimes[k].off) = t;
			o->set |= cfg_stimes[k].bit;
			continue;
		}
		for (k = 0; k < CFG_N(cfg_suints); k++)
			if (strcmp(kw, cfg_suints[k].name) == 0)
				break;
		if (k < CFG_N(cfg_suints)) {
			if (lbd_cfg_uint(ctx, a->line, kw, val, cfg_suints[k].min,
				    cfg_suints[k].max, &v, where) < 0)
				continue;
			*(unsigned *)((char *)o + cfg_suints[k].off) = (unsigned)v;
			o->set |= cfg_suints[k].bit;
			continue;
		}
		if (strcmp(kw, "verify") == 0) {
			if (strcmp(val, "none") && strcmp(val, "required")) {
				lbd_cfg_err(ctx, a->line,
					"'verify' must be none or required, not '%s' (%s)", val,
					where);
				continue;
			}
			o->verify = val[0] == 'n' ? LBD_VERIFY_NONE : LBD_VERIFY_REQUIRED;
			o->set |= LBD_SO_VERIFY;
		} else if (strcmp(kw, "ca-file") == 0) {
			cfg_server_path(ctx, a->line, kw, val, &o->ca_file, where);
			o->set |= LBD_SO_CA_FILE;
		} else if (strcmp(kw, "crt") == 0) {
			cfg_server_path(ctx, a->line, kw, val, &o->crt, where);
			o->set |= LBD_SO_CRT;
		} else if (strcmp(kw, "on-marked-down") == 0) {
			if (strcmp(val, "shutdown-sessions") != 0) {
				lbd_cfg_err(ctx, a->line,
					"'on-marked-down %s' is not supported by lbd (only "
					"shutdown-sessions) (%s)",
					val, where);
				continue;
			}
			o->on_down_shutdown = 1;
			o->set |= LBD_SO_ON_DOWN;
		} else if (strcmp(kw, "on-marked-up") == 0) {
			if (strcmp(val, "shutdown-backup-sessions") != 0) {
				lbd_cfg_err(ctx, a->line,
					"'on-marked-up %s' is not supported by lbd (only "
					"shutdown-backup-sessions) (%s)",
					val, where);
				continue;
			}
			o->on_up_shutdown_backup = 1;
			o->set |= LBD_SO_ON_UP;
		} else if (strcmp(kw, "observe") == 0) {
			/* HAProxy 2.6 alerts but goes on (haproxy -c says the file
			 * is valid), leaving observe as it was: lbd, which runs no
			 * http proxy, does the same */
			if (strcmp(val, "layer7") == 0) {
				lbd_cfg_notice(ctx, a->line,
					"'observe layer7' can only be used in http proxies; "
					"ignored, as HAProxy does (%s)",
					where);
				continue;
			}
			if (strcmp(val, "none") && strcmp(val, "layer4")) {
				lbd_cfg_err(ctx, a->line,
					"'observe' expects one of 'none', 'layer4', 'layer7' but "
					"got '%s' (%s)",
					val, where);
				continue;
			}
			o->observe = val[0] == 'l';
			o->set |= LBD_SO_OBSERVE;
		} else if (strcmp(kw, "on-error") == 0) {
			int m = health_on_error_parse(val);

			if (m < 0) {
				lbd_cfg_err(ctx, a->line,
					"'on-error' expects one of 'fastinter', 'fail-check', "
					"'sudden-death' or 'mark-down' but got '%s' (%s)",
					val, where);
				continue;
			}
			o->on_error = m;
			o->set |= LBD_SO_ON_ERROR;
		} else if (strcmp(kw, "port") == 0) {
			if (lbd_cfg_uint(ctx, a->line, kw, val, 1, 65535, &v, where) < 0)
				continue;
			o->check_port = (uint16_t)v;
			o->set |= LBD_SO_PORT;
		} else if (lbd_cfg_addr(ctx, a->line, "'addr'", val, CPHA_ADDR_PORT_NONE,
				   &o->check_addr, where) == 0) {
			o->check_addr_set = 1;
			o->set |= LBD_SO_ADDR;
		}
	}
}

int lbd_cfg_server_opts_dup(struct lbd_server_opts *dst, const struct lbd_server_opts *src)
{
	*dst = *src;
	dst->ca_file = src->ca_file ? strdup(src->ca_file) : NULL;
	dst->crt = src->crt ? strdup(src->crt) : NULL;
	if ((src->ca_file && !dst->ca_file) || (src->crt && !dst->crt)) {
		lbd_cfg_server_opts_free(dst);
		return -ENOMEM;
	}
	return 0;
}

int lbd_cfg_server_opts_copy(
	struct cfg_ctx *ctx, struct lbd_server_opts *dst, const struct lbd_server_opts *src)
{
	if (lbd_cfg_server_opts_dup(dst, src) < 0) {
		lbd_cfg_oom(ctx);
		return -1;
	}
	return 0;
}

void lbd_cfg_server_opts_free(struct lbd_server_opts *o)
{
	free(o->ca_file);
	free(o->crt);
	o->ca_file = o->crt = NULL;
}

void lbd_cfg_server_free(struct lbd_server_cfg *s)
{
	free(s->name);
	free(s->hostname);
	lbd_cfg_server_opts_free(&s->o);
}

/* default-server OPTIONS... */
void lbd_cfg_server_default_line(
	struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	char where[300];

	snprintf(where, sizeof(where), "default-server in %s", lbd_cfg_where(ctx, px));
	cfg_server_opts(ctx, a, 1, &px->dsrv, where);
}

/* A server address that is a host name to resolve (cfg_resolve.c), not a
 * UNIX path, another protocol's prefix or an unexpanded variable, which
 * lbd_cfg_addr() refuses with the right message. */
static int cfg_server_named(const char *s)
{
	const char *at = strchr(s, '@');

	return lbd_cfg_is_hostname(s) && !strpbrk(s, "$/") &&
	       (!at || !strncmp(s, "ipv4@", 5) || !strncmp(s, "ipv6@", 5));
}

/* server NAME ADDRESS[:PORT] OPTIONS... */
void lbd_cfg_server_line(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	struct lbd_server_cfg *s;
	const char *name;
	char where[300];
	size_t i;

	if (a->n < 3) {
		lbd_cfg_err(ctx, a->line, "'server' needs a name and an address (%s)",
			lbd_cfg_where(ctx, px));
		return;
	}
	lbd_cfg_name_ok(ctx, a->line, "server", a->v[1]);
	for (i = 0; i < px->be.nservers; i++)
		if (strcmp(px->be.servers[i].name, a->v[1]) == 0) {
			lbd_cfg_err(ctx, a->line, "server '%s' is already defined in %s at %s:%u",
				a->v[1], lbd_cfg_where(ctx, px), ctx->file, px->be.servers[i].line);
			break; /* read on: its options may hold more errors */
		}
	s = lbd_cfg_push(ctx, &px->be.servers, &px->be.nservers, sizeof(*s));
	if (!s)
		return;
	s->id = (unsigned)px->be.nservers;
	s->line = a->line;
	if (!(s->name = lbd_cfg_strdup(ctx, a->v[1])) ||
		lbd_cfg_server_opts_copy(ctx, &s->o, &px->dsrv))
		return;
	snprintf(where, sizeof(where), "server %s/%s", px->name, a->v[1]);
	/* a host name is resolved once its init-addr and resolve-prefer are known */
	name = cfg_server_named(a->v[2]) ? a->v[2] : NULL;
	if (!name &&
		lbd_cfg_addr(ctx, a->line, "server address", a->v[2], CPHA_ADDR_PORT_OPTIONAL,
			&s->addr, where) == 0 &&
		(s->addr.flags & CPHA_ADDR_F_ANY))
		lbd_cfg_err(ctx, a->line,
			"server address '%s' is a wildcard; lbd needs the server's own address "
			"(%s)",
			a->v[2], where);
	cfg_server_opts(ctx, a, 3, &s->o, where);
	lbd_cfg_resolve_server(ctx, s, name, where);
}

/* Defaults for what was never written, then what needs the backend. */
void lbd_cfg_server_finalize(struct cfg_ctx *ctx, struct cfg_proxy *px)
{
	struct lbd_server_cfg *s;
	struct lbd_server_opts *o;
	char where[300];
	size_t i;

	for (i = 0; i < px->be.nservers; i++) {
		s = &px->be.servers[i];
		o = &s->o;
		snprintf(where, sizeof(where), "server %s/%s", px->name, s->name);
		if (!cpha_addr_family(&s->addr))
			continue; /* its address was refused: nothing more to say */
		if (!(o->set & LBD_SO_INTER))
			o->inter = 2 * CPHA_USEC_PER_SEC;
		if (!(o->set & LBD_SO_FASTINTER))
			o->fastinter = o->inter;
		if (!(o->set & LBD_SO_DOWNINTER))
			o->downinter = o->inter;
		if (!(o->set & LBD_SO_RISE))
			o->rise = 2;
		if (!(o->set & LBD_SO_FALL))
			o->fall = 3;
		if (!(o->set & LBD_SO_WEIGHT))
			o->weight = 1;
		if (!(o->set & LBD_SO_ERROR_LIMIT))
			o->error_limit = HEALTH_ERROR_LIMIT_DEFAULT;
		if (!(o->set & LBD_SO_HEDGE))
			o->hedge = px->be.hedge;
		/* HAProxy accepts it and observes nothing: say so */
		if (o->observe && !o->check)
			lbd_cfg_notice(ctx, s->line,
				"'observe layer4' does nothing without 'check' (HAProxy ignores "
				"it too) (%s)",
				where);
		if (o->verify == LBD_VERIFY_DEFAULT)
			o->verify = ctx->ssl_verify_none ? LBD_VERIFY_NONE : LBD_VERIFY_REQUIRED;
		if (o->check && !cpha_addr_port(&s->addr) && !o->check_port &&
			!lbd_cfg_check_has_port(&px->be))
			lbd_cfg_err(ctx, s->line,
				"health checks need a port: %s has none (write ADDRESS:PORT or "
				"'port N')",
				where);
		/* HAProxy refuses the same, even for a server without 'check' */
		if ((o->check_ssl || lbd_cfg_check_uses_tls(&px->be)) &&
			o->verify == LBD_VERIFY_REQUIRED && !o->ca_file)
			lbd_cfg_err(ctx, s->line,
				"verify is %s but no CA file specified; set 'verify none' or "
				"'ca-file' (%s)",
				o->set & LBD_SO_VERIFY ? "required" : "enabled by default", where);
	}
}
