/* Keywords of the global section that cfg_server.c's older chain does not
 * read, one table row each (HAProxy's cfg_kws): those lbd implements, those
 * that have no effect in lbd (said once, at their line) and those lbd does
 * not implement yet (a clear error). */
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "cfg-internal.h"

enum cfg_gkind {
	CFG_G_PIDFILE,  /* pidfile PATH */
	CFG_G_OWNER,    /* user NAME, uid N, group NAME, gid N (privdrop.c) */
	CFG_G_CHROOT,   /* chroot DIR (privdrop.c) */
	CFG_G_SPREAD,   /* spread-checks PERCENT (check.c) */
	CFG_G_CIPHERS,  /* ssl-default-server-ciphers[uites] LIST (check.c) */
	CFG_G_TLSOPTS,  /* ssl-default-server-options OPTIONS... (check.c) */
	CFG_G_STATE,    /* server-state-file, server-state-base */
	CFG_G_NOEFFECT, /* accepted; a notice says why it changes nothing in lbd */
	CFG_G_TODO,     /* refused: HAProxy implements it, lbd not yet */
	CFG_G_REFUSED,  /* refused by HAProxy 2.6 too */
};

struct cfg_gkw {
	const char *kw;
	int prefix; /* kw is a prefix: "ssl-default-bind-" */
	enum cfg_gkind kind;
	size_t min, max; /* number of values */
	const char *why;
};

static const struct cfg_gkw cfg_gkws[] = {
	{ "pidfile", 0, CFG_G_PIDFILE, 1, 1, NULL },
	{ "master-worker", 0, CFG_G_NOEFFECT, 0, 1,
		"lbd is always one process that reloads in place on SIGHUP" },
	{ "ssl-default-bind-", 1, CFG_G_NOEFFECT, 1, (size_t)-1 / 2,
		"lbd terminates no TLS on its bind lines" },
	{ "tune.ssl.default-dh-param", 0, CFG_G_NOEFFECT, 1, 1,
		"it only concerns TLS on bind lines, which lbd does not terminate" },
	{ "ssl-default-server-ciphers", 0, CFG_G_CIPHERS, 1, 1, NULL },
	{ "ssl-default-server-ciphersuites", 0, CFG_G_CIPHERS, 1, 1, NULL },
	{ "ssl-default-server-options", 0, CFG_G_TLSOPTS, 1, (size_t)-1 / 2, NULL },
	{ "ssl-default-server-", 1, CFG_G_TODO, 1, (size_t)-1 / 2,
		"lbd's TLS health checks do not take these settings yet" },
	{ "user", 0, CFG_G_OWNER, 1, 1, NULL },
	{ "uid", 0, CFG_G_OWNER, 1, 1, NULL },
	{ "group", 0, CFG_G_OWNER, 1, 1, NULL },
	{ "gid", 0, CFG_G_OWNER, 1, 1, NULL },
	{ "chroot", 0, CFG_G_CHROOT, 1, 1, NULL },
	{ "spread-checks", 0, CFG_G_SPREAD, 1, 1, NULL },
	{ "server-state-file", 0, CFG_G_STATE, 1, 1, NULL },
	{ "server-state-base", 0, CFG_G_STATE, 1, 1, NULL },
	{ "nbproc", 0, CFG_G_REFUSED, 1, 1, "HAProxy 2.5 and later refuse it too; use nbthread" },
};

/* user NAME | uid N | group NAME | gid N: names must exist now, as in
 * HAProxy; the later of two lines wins, with a notice (HAProxy warns). */
static void cfg_global_owner(struct cfg_ctx *ctx, const struct cfg_args *a)
{
	const char *kw = a->v[0], *val = a->v[1];
	int group = kw[0] == 'g', numeric = kw[1] == 'i';
	struct lbd_global *g = &ctx->global;
	unsigned *line = group ? &g->gid_line : &g->uid_line;
	struct passwd pw, *pwr = NULL;
	struct group gr, *grr = NULL;
	unsigned long long v;
	char buf[4096];

	if (numeric) {
		if (lbd_cfg_uint(ctx, a->line, kw, val, 0, 0xfffffffeULL, &v, "section 'global'") <
			0)
			return;
	} else if (group ? getgrnam_r(val, &gr, buf, sizeof(buf), &grr) != 0 || !grr
			 : getpwnam_r(val, &pw, buf, sizeof(buf), &pwr) != 0 || !pwr) {
		lbd_cfg_err(ctx, a->line, "'%s %s': no such %s on this system", kw, val,
			group ? "group" : "user");
		return;
	} else {
		v = group ? grr->gr_gid : pwr->pw_uid;
	}
	if (*line)
		lbd_cfg_notice(ctx, a->line,
			"the %s id is already set at %s:%u; this line replaces it (HAProxy warns "
			"too)",
			group ? "group" : "user", ctx->file, *line);
	if (group)
		g->gid = (gid_t)v;
	else
		g->uid = (uid_t)v;
	*line = a->line;
}

/* ssl-default-server-options: HAProxy's server TLS options that choose
 * versions (no-sslv3 ... no-tlsv13, force-*, ssl-min-ver, ssl-max-ver)
 * and no-tls-tickets, turned into the range of versions left. */
static void cfg_global_tls_options(struct cfg_ctx *ctx, const struct cfg_args *a)
{
	static const char *const vers[] = { "SSLv3", "TLSv1.0", "TLSv1.1", "TLSv1.2", "TLSv1.3",
		NULL };
	static const char *const nos[] = { "no-sslv3", "no-tlsv10", "no-tlsv11", "no-tlsv12",
		"no-tlsv13", NULL };
	static const char *const forces[] = { "force-sslv3", "force-tlsv10", "force-tlsv11",
		"force-tlsv12", "force-tlsv13", NULL };
	struct lbd_global *g = &ctx->global;
	int off[5] = { 0 }, lo = 0, hi = 4, k, v, versions = 0;
	size_t i;

	g->srv_no_tickets = 0;
	for (i = 1; i < a->n; i++) {
		if ((k = lbd_cfg_lookup(nos, a->v[i])) >= 0) {
			off[k] = versions = 1;
		} else if ((k = lbd_cfg_lookup(forces, a->v[i])) >= 0) {
			lo = hi = k;
			versions = 1;
		} else if ((!strcmp(a->v[i], "ssl-min-ver") || !strcmp(a->v[i], "ssl-max-ver")) &&
			   i + 1 < a->n && (k = lbd_cfg_lookup(vers, a->v[i + 1])) >= 0) {
			*(a->v[i][5] == 'i' ? &lo : &hi) = k;
			versions = 1;
			i++;
		} else if (strcmp(a->v[i], "no-tls-tickets") == 0) {
			g->srv_no_tickets = 1;
		} else {
			lbd_cfg_err(ctx, a->line,
				"'ssl-default-server-options %s' is not supported by lbd (no-sslv3 "
				".. "
				"no-tlsv13, force-*, ssl-min-ver, ssl-max-ver or no-tls-tickets)",
				a->v[i]);
			return;
		}
	}
	g->srv_options_line = a->line;
	if (!versions)
		return;
	while (lo <= hi && off[lo])
		lo++;
	while (hi >= lo && off[hi])
		hi--;
	if (lo > hi) {
		lbd_cfg_err(
			ctx, a->line, "'ssl-default-server-options' leaves no TLS version to use");
		return;
	}
	for (v = lo; v <= hi; v++)
		if (off[v])
			lbd_cfg_notice(ctx, a->line,
				"'%s' inside the versions left (%s to %s) cannot be honoured: "
				"OpenSSL uses a range (HAProxy warns too)",
				nos[v], vers[lo], vers[hi]);
	g->srv_tls_min = 0x0300 + lo;
	g->srv_tls_max = 0x0300 + hi;
}

/* stats timeout TIME: HAProxy's idle timeout of the CLI. lbd's admin
 * socket takes one command per connection and gives a client a fixed time
 * to send it, so the value is checked and has no effect. */
static int cfg_global_stats_timeout(struct cfg_ctx *ctx, const struct cfg_args *a)
{
	uint64_t t;

	if (a->n < 2 || strcmp(a->v[0], "stats") != 0 || strcmp(a->v[1], "timeout") != 0)
		return 0;
	if (lbd_cfg_nargs(ctx, a, 2, 1, 1, "section 'global'") == 0 &&
		lbd_cfg_time(ctx, a->line, "stats timeout", a->v[2], &t, "section 'global'") == 0)
		lbd_cfg_notice(ctx, a->line,
			"'stats timeout' has no effect in lbd: its admin socket answers one "
			"command per connection and gives each client 2 s to send it");
	return 1;
}

int lbd_cfg_global_table_line(struct cfg_ctx *ctx, const struct cfg_args *a)
{
	const char *where = "section 'global'";
	const struct cfg_gkw *k = NULL;
	size_t i, nargs = 1;

	for (i = 0; i < sizeof(cfg_gkws) / sizeof(cfg_gkws[0]) && !k; i++)
		if (cfg_gkws[i].prefix
				? strncmp(a->v[0], cfg_gkws[i].kw, strlen(cfg_gkws[i].kw)) == 0
				: strcmp(a->v[0], cfg_gkws[i].kw) == 0)
			k = &cfg_gkws[i];
	if (!k)
		return cfg_global_stats_timeout(ctx, a);
	if (k->kind == CFG_G_TODO) {
		lbd_cfg_err(ctx, a->line, "'%s' is not supported by lbd yet: %s", a->v[0], k->why);
		return 1;
	}
	if (k->kind == CFG_G_REFUSED) {
		lbd_cfg_err(ctx, a->line, "'%s' is not supported: %s", a->v[0], k->why);
		return 1;
	}
	if (lbd_cfg_nargs(ctx, a, nargs, k->min, k->max, where) < 0)
		return 1;
	if (k->kind == CFG_G_NOEFFECT) {
		lbd_cfg_notice(ctx, a->line, "'%s' has no effect in lbd: %s", a->v[0], k->why);
		return 1;
	}
	if (k->kind == CFG_G_OWNER) {
		cfg_global_owner(ctx, a);
		return 1;
	}
	if (k->kind == CFG_G_TLSOPTS) {
		cfg_global_tls_options(ctx, a);
		return 1;
	}
	if (k->kind == CFG_G_STATE) {
		/* HAProxy reads the file only for proxies with
		 * load-server-state-from-file (refused by lbd) and never writes it */
		lbd_cfg_notice(ctx, a->line,
			"'%s' has no effect: no backend can set 'load-server-state-from-file' "
			"in lbd yet (HAProxy reads the file only for those, and never writes "
			"it)",
			a->v[0]);
		return 1;
	}
	if (k->kind == CFG_G_CIPHERS) {
		int suites = strlen(a->v[0]) > strlen("ssl-default-server-ciphers");
		char **dst = suites ? &ctx->global.srv_ciphersuites : &ctx->global.srv_ciphers;

		free(*dst);
		*dst = lbd_cfg_strdup(ctx, a->v[1]);
		*(suites ? &ctx->global.srv_ciphersuites_line : &ctx->global.srv_ciphers_line) =
			a->line;
		return 1;
	}
	if (k->kind == CFG_G_SPREAD) {
		unsigned long long v;

		if (lbd_cfg_uint(ctx, a->line, a->v[0], a->v[1], 0, 50, &v, where) == 0)
			ctx->global.spread_checks = (unsigned)v;
		return 1;
	}
	if (k->kind == CFG_G_CHROOT) {
		/* as HAProxy, the directory is looked at when lbd starts, not by -c */
		free(ctx->global.chroot);
		ctx->global.chroot = lbd_cfg_strdup(ctx, a->v[1]);
		ctx->global.chroot_line = a->line;
		return 1;
	}
	/* CFG_G_PIDFILE */
	if (ctx->global.pidfile) {
		lbd_cfg_err(ctx, a->line, "'pidfile' is set twice");
		return 1;
	}
	ctx->global.pidfile = lbd_cfg_strdup(ctx, a->v[1]);
	return 1;
}

/* HAProxy applies ssl-default-server-ciphers and -ciphersuites to every
 * server TLS context and refuses a list OpenSSL rejects; lbd's TLS checks
 * are tcp-check's 'connect ssl' (OpenSSL in check.c, which applies them)
 * and HTTPS checks (libcurl, which does not take them yet: an error). With
 * no TLS check, as in HAProxy with no ssl server, the lists are unused. */
void lbd_cfg_global_tls_validate(struct cfg_ctx *ctx, const struct lbd_config *c)
{
	const struct lbd_global *g = &c->global;
	const struct lbd_backend *b;
	int ossl = 0, checked;
	size_t i, j;
	SSL_CTX *t;

	const char *kw = g->srv_ciphers        ? "ssl-default-server-ciphers"
			 : g->srv_ciphersuites ? "ssl-default-server-ciphersuites"
					       : "ssl-default-server-options";
	unsigned line = g->srv_ciphers        ? g->srv_ciphers_line
			: g->srv_ciphersuites ? g->srv_ciphersuites_line
					      : g->srv_options_line;

	if (!line)
		return;
	for (i = 0; i < c->nbackends; i++) {
		b = &c->backends[i];
		for (j = 0, checked = 0; j < b->nservers; j++)
			checked |= b->servers[j].o.check;
		if (!checked)
			continue;
		if (b->check_kind == LBD_CHECK_TCP && lbd_cfg_check_uses_tls(b))
			ossl = 1;
		if (b->check_kind == LBD_CHECK_HTTP && lbd_cfg_check_uses_tls(b))
			lbd_cfg_err(ctx, line,
				"'%s' is not supported by lbd yet with HTTPS checks (%s '%s' at "
				"%s:%u): they do not take it",
				kw, b->from_listen ? "listen" : "backend", b->name, ctx->file,
				b->line);
	}
	if (!ossl || !(t = SSL_CTX_new(TLS_client_method())))
		return;
	if (g->srv_ciphers && SSL_CTX_set_cipher_list(t, g->srv_ciphers) != 1)
		lbd_cfg_err(ctx, g->srv_ciphers_line,
			"'ssl-default-server-ciphers %s': OpenSSL accepts none of these ciphers",
			g->srv_ciphers);
	if (g->srv_ciphersuites && SSL_CTX_set_ciphersuites(t, g->srv_ciphersuites) != 1)
		lbd_cfg_err(ctx, g->srv_ciphersuites_line,
			"'ssl-default-server-ciphersuites %s': OpenSSL accepts none of these "
			"TLS 1.3 suites",
			g->srv_ciphersuites);
	SSL_CTX_free(t);
	ERR_clear_error();
}
