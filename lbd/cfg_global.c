/* The global section: one table row per keyword (HAProxy's cfg_kws), with
 * the number of values it takes and the function that reads it. Rows say
 * what lbd implements, what has no effect in lbd (said once, at its line)
 * and what lbd does not implement (a clear error). */
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "cfg_ctx.h"
#include "webcfg.h"

struct cfg_gkw;
typedef void cfg_gfn(struct cfg_ctx *ctx, const struct cfg_args *a, const struct cfg_gkw *k);

struct cfg_gkw {
	struct cpha_cfgkw kw; /* every row has CFG_GLOBAL: one kind of section */
	size_t min, max;      /* number of values, checked before fn */
	cfg_gfn *fn;
	const char *why; /* of a row that has no effect or is refused */
};

#define CFG_GLOBAL 1u
#define CFG_ANY    ((size_t)-1 / 2)
#define WHERE      "section 'global'"

/* user NAME | uid N | group NAME | gid N: names must exist now, as in
 * HAProxy; the later of two lines wins, with a notice (HAProxy warns). */
static void cfg_global_owner(struct cfg_ctx *ctx, const struct cfg_args *a, const struct cfg_gkw *k)
{
	const char *kw = a->v[0], *val = a->v[1];
	int group = kw[0] == 'g', numeric = kw[1] == 'i';
	struct lbd_global *g = &ctx->global;
	unsigned *line = group ? &g->gid_line : &g->uid_line;
	struct passwd pw, *pwr = NULL;
	struct group gr, *grr = NULL;
	unsigned long long v;
	char buf[4096];

	(void)k;
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
static void cfg_global_tls_options(
	struct cfg_ctx *ctx, const struct cfg_args *a, const struct cfg_gkw *row)
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

	(void)row;
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
 * to send it, so the value is checked and has no effect. Other stats lines
 * (stats socket) are cfg_stats.c's. */
static void cfg_global_stats(struct cfg_ctx *ctx, const struct cfg_args *a, const struct cfg_gkw *k)
{
	uint64_t t;

	(void)k;
	if (a->n < 2 || strcmp(a->v[1], "timeout") != 0) {
		lbd_cfg_stats(ctx, a, WHERE);
		return;
	}
	if (lbd_cfg_nargs(ctx, a, 2, 1, 1, WHERE) == 0 &&
		lbd_cfg_time(ctx, a->line, "stats timeout", a->v[2], &t, WHERE) == 0)
		lbd_cfg_notice(ctx, a->line,
			"'stats timeout' has no effect in lbd: its admin socket answers one "
			"command per connection and gives each client 2 s to send it");
}

static void cfg_global_noeffect(
	struct cfg_ctx *ctx, const struct cfg_args *a, const struct cfg_gkw *k)
{
	lbd_cfg_notice(ctx, a->line, "'%s' has no effect in lbd: %s", a->v[0], k->why);
}

/* master-worker [no-exit-on-failure]: lbd is one process, but the mode
 * allows program sections, which lbd reads and ignores */
static void cfg_global_master_worker(
	struct cfg_ctx *ctx, const struct cfg_args *a, const struct cfg_gkw *k)
{
	if (a->n > 1 && strcmp(a->v[1], "no-exit-on-failure") != 0) {
		lbd_cfg_err(ctx, a->line, "'master-worker': unexpected '%s'", a->v[1]);
		return;
	}
	ctx->master_worker = 1;
	cfg_global_noeffect(ctx, a, k);
}

static void cfg_global_todo(struct cfg_ctx *ctx, const struct cfg_args *a, const struct cfg_gkw *k)
{
	lbd_cfg_err(ctx, a->line, "'%s' is not supported by lbd yet: %s", a->v[0], k->why);
}

static void cfg_global_refused(
	struct cfg_ctx *ctx, const struct cfg_args *a, const struct cfg_gkw *k)
{
	lbd_cfg_err(ctx, a->line, "'%s' is not supported: %s", a->v[0], k->why);
}

/* server-state-file FILE, server-state-base DIR: where server_state.c
 * reads the states at start and writes them at stop and before a reload
 * (HAProxy only reads them) */
static void cfg_global_state(struct cfg_ctx *ctx, const struct cfg_args *a, const struct cfg_gkw *k)
{
	int base = strcmp(a->v[0], "server-state-base") == 0;
	char *dst = base ? ctx->global.state_base : ctx->global.state_file;

	(void)k;
	if (!a->v[1][0] || strlen(a->v[1]) >= LBD_STATE_PATH_MAX) {
		lbd_cfg_err(ctx, a->line, "'%s': the path must have 1 to %d characters (%s)",
			a->v[0], LBD_STATE_PATH_MAX - 1, WHERE);
		return;
	}
	snprintf(dst, LBD_STATE_PATH_MAX, "%s", a->v[1]);
	*(base ? &ctx->global.state_base_line : &ctx->global.state_file_line) = a->line;
}

static void cfg_global_ciphers(
	struct cfg_ctx *ctx, const struct cfg_args *a, const struct cfg_gkw *k)
{
	int suites = strlen(a->v[0]) > strlen("ssl-default-server-ciphers");
	char **dst = suites ? &ctx->global.srv_ciphersuites : &ctx->global.srv_ciphers;

	(void)k;
	free(*dst);
	*dst = lbd_cfg_strdup(ctx, a->v[1]);
	*(suites ? &ctx->global.srv_ciphersuites_line : &ctx->global.srv_ciphers_line) = a->line;
}

static void cfg_global_spread(
	struct cfg_ctx *ctx, const struct cfg_args *a, const struct cfg_gkw *k)
{
	unsigned long long v;

	(void)k;
	if (lbd_cfg_uint(ctx, a->line, a->v[0], a->v[1], 0, 50, &v, WHERE) == 0)
		ctx->global.spread_checks = (unsigned)v;
}

/* as HAProxy, the directory is looked at when lbd starts, not by -c */
static void cfg_global_chroot(
	struct cfg_ctx *ctx, const struct cfg_args *a, const struct cfg_gkw *k)
{
	(void)k;
	free(ctx->global.chroot);
	ctx->global.chroot = lbd_cfg_strdup(ctx, a->v[1]);
	ctx->global.chroot_line = a->line;
}

static void cfg_global_pidfile(
	struct cfg_ctx *ctx, const struct cfg_args *a, const struct cfg_gkw *k)
{
	(void)k;
	if (ctx->global.pidfile) {
		lbd_cfg_err(ctx, a->line, "'pidfile' is set twice");
		return;
	}
	ctx->global.pidfile = lbd_cfg_strdup(ctx, a->v[1]);
}

static void cfg_global_log(struct cfg_ctx *ctx, const struct cfg_args *a, const struct cfg_gkw *k)
{
	(void)k;
	if (a->n == 2 && strcmp(a->v[1], "global") == 0)
		lbd_cfg_err(ctx, a->line, "'log global' is for proxies, not section 'global'");
	else
		lbd_cfg_log(ctx, a, &ctx->global.logs, &ctx->global.nlogs, WHERE);
}

static void cfg_global_daemon(
	struct cfg_ctx *ctx, const struct cfg_args *a, const struct cfg_gkw *k)
{
	(void)a, (void)k;
	ctx->global.daemon = 1;
}

static void cfg_global_maxconn(
	struct cfg_ctx *ctx, const struct cfg_args *a, const struct cfg_gkw *k)
{
	unsigned long long v;

	(void)k;
	if (lbd_cfg_uint(ctx, a->line, a->v[0], a->v[1], 1, CFG_MAXCONN_MAX, &v, WHERE) == 0) {
		ctx->global.maxconn = (unsigned)v;
		ctx->global.maxconn_line = a->line;
	}
}

/* ulimit-n N | fd-hard-limit N */
static void cfg_global_fds(struct cfg_ctx *ctx, const struct cfg_args *a, const struct cfg_gkw *k)
{
	struct lbd_global *g = &ctx->global;
	unsigned long long v;
	int ulimit = a->v[0][0] == 'u';

	(void)k;
	if (lbd_cfg_uint(ctx, a->line, a->v[0], a->v[1], 1, 2147483647ULL, &v, WHERE) < 0)
		return;
	*(ulimit ? &g->ulimit_n : &g->fd_hard_limit) = (unsigned)v;
	if (ulimit)
		g->ulimit_line = a->line;
}

/* strict-limits | no strict-limits (HAProxy 2.6: strict by default) */
static void cfg_global_strict(
	struct cfg_ctx *ctx, const struct cfg_args *a, const struct cfg_gkw *k)
{
	int no = strcmp(a->v[0], "no") == 0;

	(void)k;
	if (no && (a->n < 2 || strcmp(a->v[1], "strict-limits") != 0)) {
		lbd_cfg_err(ctx, a->line, "'no %s' is not supported by lbd in %s",
			a->n < 2 ? "" : a->v[1], WHERE);
		return;
	}
	if (lbd_cfg_nargs(ctx, a, no ? 2 : 1, 0, 0, WHERE) == 0)
		ctx->global.no_strict_limits = no;
}

static void cfg_global_nbthread(
	struct cfg_ctx *ctx, const struct cfg_args *a, const struct cfg_gkw *k)
{
	unsigned long long v;

	(void)k;
	if (lbd_cfg_uint(ctx, a->line, a->v[0], a->v[1], 1, 64, &v, WHERE) == 0)
		ctx->global.nbthread = (unsigned)v;
}

static void cfg_global_hard_stop(
	struct cfg_ctx *ctx, const struct cfg_args *a, const struct cfg_gkw *k)
{
	(void)k;
	lbd_cfg_time(ctx, a->line, a->v[0], a->v[1], &ctx->global.hard_stop_after, WHERE);
}

static void cfg_global_verify(
	struct cfg_ctx *ctx, const struct cfg_args *a, const struct cfg_gkw *k)
{
	(void)k;
	if (strcmp(a->v[1], "none") && strcmp(a->v[1], "required"))
		lbd_cfg_err(ctx, a->line, "'ssl-server-verify' must be none or required, not '%s'",
			a->v[1]);
	else
		ctx->ssl_verify_none = strcmp(a->v[1], "none") == 0;
}

/* ca-base DIR | crt-base DIR */
static void cfg_global_base(struct cfg_ctx *ctx, const struct cfg_args *a, const struct cfg_gkw *k)
{
	char **base = a->v[0][1] == 'a' ? &ctx->ca_base : &ctx->crt_base;

	(void)k;
	free(*base);
	*base = lbd_cfg_strdup(ctx, a->v[1]);
}

/* metrics-bind ADDR:PORT (lbd's own: the Prometheus endpoint) */
static void cfg_global_metrics(
	struct cfg_ctx *ctx, const struct cfg_args *a, const struct cfg_gkw *k)
{
	struct lbd_global *g = &ctx->global;

	(void)k;
	if (g->metrics_set)
		lbd_cfg_err(ctx, a->line, "lbd has one 'metrics-bind'; the first is at %s:%u",
			ctx->file, ctx->metrics_line);
	else if (lbd_cfg_addr(ctx, a->line, "metrics-bind", a->v[1], CPHA_ADDR_PORT_REQUIRED,
			 &g->metrics, WHERE) == 0) {
		g->metrics_set = 1;
		ctx->metrics_line = a->line;
	}
}

/* metrics-web-config FILE (lbd's own): exporter-toolkit's web configuration
 * of the metrics listener, read and checked now so that lbd -c sees it; a
 * relative FILE is beside the configuration file */
static void cfg_global_metrics_web(
	struct cfg_ctx *ctx, const struct cfg_args *a, const struct cfg_gkw *k)
{
	struct lbd_global *g = &ctx->global;
	char err[512];

	(void)k;
	if (g->metrics_web) {
		lbd_cfg_err(ctx, a->line, "'metrics-web-config' is set twice");
		return;
	}
	ctx->metrics_web_line = a->line;
	if (cpha_webcfg_load_beside(ctx->file, a->v[1], &g->metrics_web, err, sizeof(err)) < 0)
		lbd_cfg_err(ctx, a->line, "metrics-web-config: %s", err);
}

#define ROW(name, min, max, fn)                                                                    \
	{                                                                                          \
		{ name, CFG_GLOBAL }, min, max, fn, NULL                                           \
	}
#define SAID(name, min, max, fn, why)                                                              \
	{                                                                                          \
		{ name, CFG_GLOBAL }, min, max, fn, why                                            \
	}

static const struct cfg_gkw cfg_gkws[] = {
	ROW("log", 1, CFG_ANY, cfg_global_log),
	ROW("daemon", 0, 0, cfg_global_daemon),
	ROW("maxconn", 1, 1, cfg_global_maxconn),
	ROW("ulimit-n", 1, 1, cfg_global_fds),
	ROW("fd-hard-limit", 1, 1, cfg_global_fds),
	ROW("strict-limits", 0, 0, cfg_global_strict),
	ROW("no", 1, 1, cfg_global_strict), /* no strict-limits */
	ROW("nbthread", 1, 1, cfg_global_nbthread),
	ROW("hard-stop-after", 1, 1, cfg_global_hard_stop),
	ROW("stats", 1, CFG_ANY, cfg_global_stats),
	ROW("ssl-server-verify", 1, 1, cfg_global_verify),
	ROW("ca-base", 1, 1, cfg_global_base),
	ROW("crt-base", 1, 1, cfg_global_base),
	ROW("metrics-bind", 1, 1, cfg_global_metrics),
	ROW("metrics-web-config", 1, 1, cfg_global_metrics_web),
	ROW("pidfile", 1, 1, cfg_global_pidfile),
	SAID("master-worker", 0, 1, cfg_global_master_worker,
		"lbd is always one process that reloads in place on SIGHUP"),
	SAID("ssl-default-bind-*", 1, CFG_ANY, cfg_global_noeffect,
		"lbd terminates no TLS on its bind lines"),
	SAID("tune.ssl.default-dh-param", 1, 1, cfg_global_noeffect,
		"it only concerns TLS on bind lines, which lbd does not terminate"),
	ROW("ssl-default-server-ciphers", 1, 1, cfg_global_ciphers),
	ROW("ssl-default-server-ciphersuites", 1, 1, cfg_global_ciphers),
	ROW("ssl-default-server-options", 1, CFG_ANY, cfg_global_tls_options),
	SAID("ssl-default-server-*", 0, CFG_ANY, cfg_global_todo,
		"lbd's TLS health checks do not take these settings yet"),
	ROW("user", 1, 1, cfg_global_owner),
	ROW("uid", 1, 1, cfg_global_owner),
	ROW("group", 1, 1, cfg_global_owner),
	ROW("gid", 1, 1, cfg_global_owner),
	ROW("chroot", 1, 1, cfg_global_chroot),
	ROW("spread-checks", 1, 1, cfg_global_spread),
	ROW("server-state-file", 1, 1, cfg_global_state),
	ROW("server-state-base", 1, 1, cfg_global_state),
	SAID("nbproc", 0, CFG_ANY, cfg_global_refused,
		"HAProxy 2.5 and later refuse it too; use nbthread"),
};

void lbd_cfg_global_line(struct cfg_ctx *ctx, const struct cfg_args *a)
{
	const struct cfg_gkw *k;
	const void *row;

	if (cpha_cfgkw_find(cfg_gkws, sizeof(cfg_gkws) / sizeof(cfg_gkws[0]), sizeof(cfg_gkws[0]),
		    a->v[0], CFG_GLOBAL, &row) < 0) {
		lbd_cfg_err(ctx, a->line, "'%s' is not supported by lbd in %s", a->v[0], WHERE);
		return;
	}
	k = row;
	if (k->fn == cfg_global_todo || k->fn == cfg_global_refused ||
		lbd_cfg_nargs(ctx, a, 1, k->min, k->max, WHERE) == 0)
		k->fn(ctx, a, k);
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
