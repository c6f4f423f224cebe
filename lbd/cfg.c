/* lbd's configuration: HAProxy's language, TCP subset. This file reads the
 * sections, the global and proxy directives and the inheritance from
 * defaults, then builds and validates the result; the directives each have
 * their file (cfg_global.c, cfg_server.c, cfg_bind.c, cfg_log.c,
 * cfg_healthcheck.c, ...) and the value parsers are in cfg_value.c. Nothing here
 * logs: every problem becomes a "file:line: message". */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "buf.h"
#include "cfgmsg.h"
#include "conf_lex.h"
#include "digest.h"
#include "duration.h"
#include "cfg_ctx.h"
#include "webcfg.h"

#define CFG_ALL (CFG_CAP_DEF | CFG_CAP_FE | CFG_CAP_BE)

/* In the order of enum lbd_balance. */
static const char *const cfg_balance_names[] = { "roundrobin", "static-rr", "leastconn", "first",
	"source", "random", NULL };

static void cfg_px_timeout(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	static const struct {
		const char *name;
		unsigned caps;
		size_t off;
	} tos[] = {
		{ "connect", CFG_CAP_DEF | CFG_CAP_BE, offsetof(struct lbd_timeouts, connect) },
		{ "client", CFG_CAP_DEF | CFG_CAP_FE, offsetof(struct lbd_timeouts, client) },
		{ "server", CFG_CAP_DEF | CFG_CAP_BE, offsetof(struct lbd_timeouts, server) },
		{ "tunnel", CFG_CAP_DEF | CFG_CAP_BE, offsetof(struct lbd_timeouts, tunnel) },
		{ "client-fin", CFG_CAP_DEF | CFG_CAP_FE,
			offsetof(struct lbd_timeouts, client_fin) },
		{ "server-fin", CFG_CAP_DEF | CFG_CAP_BE,
			offsetof(struct lbd_timeouts, server_fin) },
		{ "queue", CFG_CAP_DEF | CFG_CAP_BE, offsetof(struct lbd_timeouts, queue) },
		{ "check", CFG_CAP_DEF | CFG_CAP_BE, offsetof(struct lbd_timeouts, check) },
	};
	const char *where = lbd_cfg_where(ctx, px);
	char kw[128];
	size_t i;

	if (a->n < 2) {
		lbd_cfg_err(ctx, a->line, "'timeout' needs a name and a value (%s)", where);
		return;
	}
	lbd_cfg_kw(a, 2, kw, sizeof(kw));
	for (i = 0; i < sizeof(tos) / sizeof(tos[0]); i++)
		if (strcmp(tos[i].name, a->v[1]) == 0)
			break;
	if (i == sizeof(tos) / sizeof(tos[0])) {
		lbd_cfg_err(ctx, a->line, "'%s' is not supported by lbd in %s", kw, where);
		return;
	}
	if (!(tos[i].caps & px->cap)) {
		lbd_cfg_err(ctx, a->line, "'%s' is not allowed in a %s section", kw, px->kind);
		return;
	}
	if (lbd_cfg_nargs(ctx, a, 2, 1, 1, where) == 0)
		lbd_cfg_time(ctx, a->line, kw, a->v[2], (uint64_t *)((char *)&px->to + tos[i].off),
			where);
}

static void cfg_px_mode(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	const char *where = lbd_cfg_where(ctx, px);

	if (lbd_cfg_nargs(ctx, a, 1, 1, 1, where) < 0)
		return;
	if (strcmp(a->v[1], "tcp") == 0) {
		px->mode_http = 0;
		px->mode_line = a->line;
	} else if (strcmp(a->v[1], "http") == 0) {
		/* built-in services only: a frontend or listen serves them, a
		 * backend without servers serves stats to its frontends
		 * (cfg_http.c refuses the rest at the section's end) */
		px->mode_http = 1;
		px->mode_line = a->line;
	} else {
		lbd_cfg_err(ctx, a->line,
			"'mode %s' is not supported by lbd; lbd only does mode tcp (%s)", a->v[1],
			where);
	}
}

static void cfg_px_default_backend(
	struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	if (px->cap == (CFG_CAP_FE | CFG_CAP_BE)) {
		lbd_cfg_err(ctx, a->line,
			"'default_backend' is not allowed in a listen section (a listen sends to "
			"its own servers)");
		return;
	}
	if (lbd_cfg_nargs(ctx, a, 1, 1, 1, lbd_cfg_where(ctx, px)) < 0)
		return;
	if (px->use_backend_line) {
		lbd_cfg_notice(ctx, a->line,
			"default_backend '%s' is never used: 'use_backend' at %s:%u has no "
			"condition (%s)",
			a->v[1], ctx->file, px->use_backend_line, lbd_cfg_where(ctx, px));
		return;
	}
	free(px->fe.backend_name);
	px->fe.backend_name = lbd_cfg_strdup(ctx, a->v[1]);
	px->fe.backend_line = a->line;
}

/* use_backend NAME [if|unless CONDITION]: HAProxy's switching rules, tried
 * in order before default_backend. A rule with a condition is one of the
 * frontend's rules (cfg_rules.c); the first without one always matches,
 * so it stands for default_backend and the rules after it are unused. */
static void cfg_px_use_backend(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	const char *where = lbd_cfg_where(ctx, px);

	if (px->cap == (CFG_CAP_FE | CFG_CAP_BE)) {
		lbd_cfg_err(ctx, a->line,
			"'use_backend' in a listen section is not supported by lbd yet (lbd's "
			"listen sections send to their own servers)");
		return;
	}
	if (a->n >= 3 && (strcmp(a->v[2], "if") == 0 || strcmp(a->v[2], "unless") == 0)) {
		if (strchr(a->v[1], '%'))
			lbd_cfg_err(ctx, a->line,
				"'use_backend %s': backend names built from log-format expressions "
				"are not supported by lbd (%s)",
				a->v[1], where);
		else
			lbd_cfg_rules_use_backend(ctx, px, a);
		return;
	}
	if (lbd_cfg_nargs(ctx, a, 1, 1, 1, where) < 0)
		return;
	if (strchr(a->v[1], '%')) {
		lbd_cfg_err(ctx, a->line,
			"'use_backend %s': backend names built from log-format expressions are "
			"not supported by lbd (%s)",
			a->v[1], where);
		return;
	}
	if (px->use_backend_line) {
		lbd_cfg_notice(ctx, a->line,
			"this 'use_backend' is never used: the one at %s:%u has no condition (%s)",
			ctx->file, px->use_backend_line, where);
		return;
	}
	free(px->fe.backend_name);
	px->fe.backend_name = lbd_cfg_strdup(ctx, a->v[1]);
	px->fe.backend_line = a->line;
	px->use_backend_line = a->line;
}

static void cfg_px_balance(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	int k;

	if (a->n < 2) {
		/* HAProxy: no algorithm means roundrobin */
		px->be.balance = LBD_BAL_ROUNDROBIN;
		return;
	}
	k = lbd_cfg_lookup(cfg_balance_names, a->v[1]);
	if (k < 0) {
		lbd_cfg_err(ctx, a->line,
			"'balance %s' is not supported by lbd (roundrobin, static-rr, leastconn, "
			"first, source or random) (%s)",
			a->v[1], lbd_cfg_where(ctx, px));
		return;
	}
	if (lbd_cfg_nargs(ctx, a, 2, 0, 0, lbd_cfg_where(ctx, px)) == 0)
		px->be.balance = (enum lbd_balance)k;
}

static void cfg_px_number(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	const char *where = lbd_cfg_where(ctx, px);
	int retries = strcmp(a->v[0], "retries") == 0;
	unsigned long long v;

	if (lbd_cfg_nargs(ctx, a, 1, 1, 1, where) < 0 ||
		lbd_cfg_uint(ctx, a->line, a->v[0], a->v[1], 0, retries ? 100 : CFG_MAXCONN_MAX, &v,
			where) < 0)
		return;
	if (retries)
		px->be.retries = (unsigned)v;
	else
		px->fe.maxconn = (unsigned)v;
}

/* hedge <time>: lbd's own (not HAProxy's). When a connect to the chosen
 * server has no answer within <time>, a second connect goes to another
 * server and the first to complete carries the session. 0 turns it off. */
static void cfg_px_hedge(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	const char *where = lbd_cfg_where(ctx, px);
	uint64_t t;

	if (lbd_cfg_nargs(ctx, a, 1, 1, 1, where) < 0 ||
		lbd_cfg_time(ctx, a->line, a->v[0], a->v[1], &t, where) < 0)
		return;
	px->be.hedge = t;
	px->be.hedge_line = a->line;
}

/* fullconn N: HAProxy uses it only to scale the servers' minconn up to
 * their maxconn; lbd refuses minconn, so here it can change nothing. */
static void cfg_px_fullconn(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	const char *where = lbd_cfg_where(ctx, px);
	unsigned long long v;

	if (lbd_cfg_nargs(ctx, a, 1, 1, 1, where) == 0 &&
		lbd_cfg_uint(ctx, a->line, a->v[0], a->v[1], 0, CFG_MAXCONN_MAX, &v, where) == 0)
		lbd_cfg_notice(ctx, a->line,
			"'fullconn' has no effect in lbd: it only scales the servers' 'minconn', "
			"which lbd does not implement (%s)",
			where);
}

/* load-server-state-from-file global|local|none: HAProxy's default is none;
 * server_state.c reads (and writes) the file. */
static void cfg_px_state_load(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	static const char *const modes[] = { "none", "global", "local", NULL };
	const char *where = lbd_cfg_where(ctx, px);
	int k;

	if (lbd_cfg_nargs(ctx, a, 1, 1, 1, where) < 0)
		return;
	k = lbd_cfg_lookup(modes, a->v[1]);
	if (k < 0) {
		lbd_cfg_err(ctx, a->line,
			"'load-server-state-from-file' must be global, local or none, not '%s' "
			"(%s)",
			a->v[1], where);
		return;
	}
	px->be.state.load = (enum lbd_state_load)k;
	px->be.state.line = a->line;
}

/* server-state-file-name [use-backend-name|FILE]: the local file; without
 * an argument or with use-backend-name, the backend's name (HAProxy). */
static void cfg_px_state_name(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	const char *where = lbd_cfg_where(ctx, px);
	const char *v = a->n >= 2 ? a->v[1] : "use-backend-name";

	if (lbd_cfg_nargs(ctx, a, 1, 0, 1, where) < 0)
		return;
	if (strcmp(v, "use-backend-name") == 0)
		v = "";
	if (strlen(v) >= LBD_STATE_NAME_MAX) {
		lbd_cfg_err(ctx, a->line,
			"'server-state-file-name': the name must have at most %d characters (%s)",
			LBD_STATE_NAME_MAX - 1, where);
		return;
	}
	snprintf(px->be.state.name, sizeof(px->be.state.name), "%s", v);
}

static void cfg_px_no(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	const char *where = lbd_cfg_where(ctx, px);

	if (a->n >= 2 && strcmp(a->v[1], "option") == 0) {
		lbd_cfg_option_line(ctx, px, a);
	} else if (a->n >= 2 && strcmp(a->v[1], "log") == 0) {
		if (lbd_cfg_nargs(ctx, a, 2, 0, 0, where) < 0)
			return;
		lbd_cfg_logs_free(px->fe.logs, px->fe.nlogs);
		px->fe.logs = NULL;
		px->fe.nlogs = 0;
	} else {
		lbd_cfg_err(ctx, a->line, "'no %s' is not supported by lbd in %s",
			a->n >= 2 ? a->v[1] : "", where);
	}
}

static const struct cfg_px_kw {
	struct cpha_cfgkw kw; /* name, and the sections it is allowed in (CFG_CAP_*) */
	void (*fn)(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a);
	const char *hint; /* why it is not allowed elsewhere */
} cfg_px_kws[] = {
	{ { "mode", CFG_ALL }, cfg_px_mode, NULL },
	{ { "bind", CFG_CAP_FE }, lbd_cfg_bind_line, NULL },
	{ { "default_backend", CFG_CAP_DEF | CFG_CAP_FE }, cfg_px_default_backend, NULL },
	{ { "use_backend", CFG_CAP_FE }, cfg_px_use_backend, NULL },
	{ { "tcp-request", CFG_ALL }, lbd_cfg_rules_tcp_request, NULL },
	{ { "load-server-state-from-file", CFG_CAP_DEF | CFG_CAP_BE }, cfg_px_state_load, NULL },
	{ { "server-state-file-name", CFG_CAP_DEF | CFG_CAP_BE }, cfg_px_state_name, NULL },
	{ { "balance", CFG_CAP_DEF | CFG_CAP_BE }, cfg_px_balance, NULL },
	{ { "maxconn", CFG_CAP_DEF | CFG_CAP_FE }, cfg_px_number,
		" (set it on the frontend, or on each server)" },
	{ { "retries", CFG_CAP_DEF | CFG_CAP_BE }, cfg_px_number, NULL },
	{ { "fullconn", CFG_CAP_DEF | CFG_CAP_BE }, cfg_px_fullconn, NULL },
	{ { "hedge", CFG_CAP_DEF | CFG_CAP_BE }, cfg_px_hedge, NULL },
	{ { "option", CFG_ALL }, lbd_cfg_option_line, NULL },
	{ { "no", CFG_ALL }, cfg_px_no, NULL },
	{ { "timeout", CFG_ALL }, cfg_px_timeout, NULL },
	{ { "log", CFG_ALL }, lbd_cfg_log_line, NULL },
	{ { "log-format", CFG_ALL }, lbd_cfg_log_format_line, NULL },
	{ { "default-server", CFG_CAP_DEF | CFG_CAP_BE }, lbd_cfg_server_default_line, NULL },
	{ { "server", CFG_CAP_BE }, lbd_cfg_server_line, NULL },
	{ { "tcp-check", CFG_CAP_DEF | CFG_CAP_BE }, lbd_cfg_check_tcp_line, NULL },
	{ { "http-check", CFG_CAP_DEF | CFG_CAP_BE }, lbd_cfg_check_http_line, NULL },
	{ { "stick-table", CFG_CAP_BE }, lbd_cfg_stick_table_line,
		" (lbd keeps a stick-table only for the 'stick' rules of a backend or listen)" },
	{ { "stick", CFG_CAP_BE }, lbd_cfg_stick_line, NULL },
};

static void cfg_proxy_line(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	const struct cfg_px_kw *k;
	const void *row;
	int r;

	if (lbd_cfg_http_line(ctx, px, a) || lbd_cfg_check_http_mode(ctx, px, a))
		return;
	r = cpha_cfgkw_find(cfg_px_kws, sizeof(cfg_px_kws) / sizeof(cfg_px_kws[0]),
		sizeof(cfg_px_kws[0]), a->v[0], px->cap, &row);
	k = row;
	if (r == -ENOENT)
		lbd_cfg_err(ctx, a->line, "'%s' is not supported by lbd in %s", a->v[0],
			lbd_cfg_where(ctx, px));
	else if (r < 0)
		lbd_cfg_err(ctx, a->line, "'%s' is not allowed in a %s section%s", k->kw.name,
			px->kind, k->hint ? k->hint : "");
	else
		k->fn(ctx, px, a);
}

static void cfg_proxy_free(struct cfg_proxy *px)
{
	size_t i;

	if (!px)
		return;
	free(px->name);
	free(px->fe.binds);
	free(px->fe.backend_name);
	free(px->fe.log_format);
	lbd_cfg_logs_free(px->fe.logs, px->fe.nlogs);
	rules_unref(px->fe.rules);
	rules_unref(px->be.rules);
	lbd_cfg_check_free(&px->be);
	for (i = 0; i < px->be.nservers; i++)
		lbd_cfg_server_free(&px->be.servers[i]);
	free(px->be.servers);
	lbd_cfg_server_opts_free(&px->dsrv);
	free(px->http_only);
	lbd_cfg_http_proxy_free(px);
	free(px);
}

/* A traffic section starts as a copy of the defaults before it. */
static void cfg_proxy_inherit(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_proxy *d)
{
	px->mode_http = d->mode_http;
	px->mode_line = d->mode_line;
	px->to = d->to;
	px->fe.maxconn = d->fe.maxconn;
	px->opts = d->opts; /* every option line, in one step */
	if (d->fe.log_format && (px->cap & (CFG_CAP_FE | CFG_CAP_DEF))) {
		px->fe.log_format = lbd_cfg_strdup(ctx, d->fe.log_format);
		px->fe.log_format_line = d->fe.log_format_line;
	}
	if (d->fe.backend_name && (px->cap & CFG_CAP_FE)) {
		px->fe.backend_name = lbd_cfg_strdup(ctx, d->fe.backend_name);
		px->fe.backend_line = d->fe.backend_line;
	}
	lbd_cfg_logs_append(ctx, &px->fe.logs, &px->fe.nlogs, d->fe.logs, d->fe.nlogs);
	px->be.balance = d->be.balance;
	px->be.retries = d->be.retries;
	px->be.hedge = d->be.hedge;
	px->be.hedge_line = d->be.hedge_line;
	px->be.state = d->be.state; /* server-state file: fixed-size, no strings */
	px->tcpchk_opt_line = d->tcpchk_opt_line;
	if (lbd_cfg_check_copy(ctx, &px->be, &d->be) == 0)
		lbd_cfg_server_opts_copy(ctx, &px->dsrv, &d->dsrv);
	lbd_cfg_http_inherit(ctx, px, d);
}

/* defaults [NAME] | frontend NAME | backend NAME | listen NAME [ADDR[,ADDR...]] */
static void cfg_proxy_start(
	struct cfg_ctx *ctx, const struct cfg_args *a, const char *kind, unsigned cap)
{
	struct cfg_proxy *px, **slot;

	ctx->sec = CFG_SEC_SKIP; /* unless the header is good enough to read the body */
	if (cap != CFG_CAP_DEF && a->n < 2) {
		lbd_cfg_err(ctx, a->line, "'%s' needs a name", kind);
		return;
	}
	if ((cap == CFG_CAP_DEF && a->n > 1 && strcmp(a->v[1], "from") == 0) ||
		(a->n > 2 && strcmp(a->v[2], "from") == 0)) {
		lbd_cfg_err(ctx, a->line,
			"'%s ... from' (explicit defaults) is not supported by lbd", kind);
		return;
	}
	px = calloc(1, sizeof(*px));
	if (!px) {
		lbd_cfg_oom(ctx);
		return;
	}
	px->cap = cap;
	px->kind = kind;
	px->line = a->line;
	px->be.retries = 3;
	if (a->n > 1 && !(px->name = strdup(a->v[1]))) {
		lbd_cfg_oom(ctx);
		free(px);
		return;
	}
	if (a->n > 1)
		lbd_cfg_name_ok(ctx, a->line, kind, a->v[1]);
	if (cap != CFG_CAP_DEF && ctx->def)
		cfg_proxy_inherit(ctx, px, ctx->def);
	if (cap == CFG_CAP_DEF) {
		cfg_proxy_free(ctx->def);
		ctx->def = px;
	} else {
		slot = lbd_cfg_push(ctx, &ctx->px, &ctx->npx, sizeof(*slot));
		if (!slot) {
			cfg_proxy_free(px);
			return;
		}
		*slot = px;
	}
	ctx->cur = px;
	ctx->sec = CFG_SEC_PROXY;
	if (a->n > 2 && cap == (CFG_CAP_FE | CFG_CAP_BE)) {
		lbd_cfg_bind_list(ctx, px, a->v[2], a->line);
		if (a->n > 3)
			lbd_cfg_err(ctx, a->line, "'listen': unexpected '%s' (listen '%s')",
				a->v[3], px->name);
	} else if (a->n > 2) {
		lbd_cfg_err(ctx, a->line, "'%s' takes only a name%s; unexpected '%s'", kind,
			cap == CFG_CAP_FE ? " (addresses go on 'bind' lines)" : "", a->v[2]);
	}
}

/* Decisions that need the whole section. */
static void cfg_section_end(struct cfg_ctx *ctx)
{
	struct cfg_proxy *px = ctx->cur;

	if (ctx->sec == CFG_SEC_PROXY && px && px->cap == CFG_CAP_DEF) {
		lbd_cfg_check_http_mode_end(ctx, px);
	} else if (ctx->sec == CFG_SEC_PROXY && px && px->cap != CFG_CAP_DEF) {
		lbd_cfg_rules_section_end(ctx, px);
		if (!lbd_cfg_http_section_end(ctx, px) && px->mode_http)
			lbd_cfg_err(ctx, px->line,
				"%s '%s' would run in mode http (inherited from defaults at "
				"%s:%u); "
				"lbd only does mode tcp",
				px->kind, px->name, ctx->file, px->mode_line);
		if (px->cap == (CFG_CAP_FE | CFG_CAP_BE) && px->fe.backend_name)
			lbd_cfg_err(ctx, px->line,
				"listen '%s' would send to default_backend '%s' (inherited from "
				"defaults at %s:%u); lbd's listen sections send to their own "
				"servers",
				px->name, px->fe.backend_name, ctx->file, px->fe.backend_line);
	}
	if (ctx->sec == CFG_SEC_PROXY && px) {
		lbd_cfg_option_apply(px);
		lbd_cfg_check_section_end(ctx, px);
	}
	ctx->cur = NULL;
	ctx->sec = CFG_SEC_NONE;
}

static const char *const cfg_other_sections[] = { "peers", "mailers", "http-errors",
	"ring", "cache", "fcgi-app", "log-forward", "crt-store", "traces", "acme", NULL };

static const char *const cfg_proxy_kinds[] = { "defaults", "frontend", "backend", "listen", NULL };
static const unsigned cfg_proxy_caps[] = { CFG_CAP_DEF, CFG_CAP_FE, CFG_CAP_BE,
	CFG_CAP_FE | CFG_CAP_BE };

static void cfg_line(struct cfg_ctx *ctx, const struct cfg_args *a)
{
	const char *kw = a->v[0];
	int k;

	if (strcmp(kw, "global") == 0) {
		cfg_section_end(ctx);
		ctx->sec = CFG_SEC_GLOBAL;
		if (a->n > 1)
			lbd_cfg_err(ctx, a->line, "'global': unexpected '%s'", a->v[1]);
	} else if ((k = lbd_cfg_lookup(cfg_proxy_kinds, kw)) >= 0) {
		cfg_section_end(ctx);
		cfg_proxy_start(ctx, a, cfg_proxy_kinds[k], cfg_proxy_caps[k]);
	} else if (strcmp(kw, "resolvers") == 0) {
		cfg_section_end(ctx);
		lbd_cfg_resolvers_start(ctx, a);
	} else if (strcmp(kw, "userlist") == 0) {
		cfg_section_end(ctx);
		lbd_cfg_http_userlist_start(ctx, a);
	} else if (strcmp(kw, "program") == 0) {
		cfg_section_end(ctx);
		lbd_cfg_program_start(ctx, a);
	} else if (lbd_cfg_lookup(cfg_other_sections, kw) >= 0) {
		cfg_section_end(ctx);
		ctx->sec = CFG_SEC_SKIP;
		lbd_cfg_err(ctx, a->line, "section '%s' is not supported by lbd", kw);
	} else if (ctx->sec == CFG_SEC_NONE) {
		lbd_cfg_err(ctx, a->line,
			"'%s' before any section (global, defaults, frontend, backend or listen)",
			kw);
	} else if (ctx->sec == CFG_SEC_GLOBAL) {
		lbd_cfg_global_line(ctx, a);
	} else if (ctx->sec == CFG_SEC_PROXY) {
		cfg_proxy_line(ctx, ctx->cur, a);
	} else if (ctx->sec == CFG_SEC_RESOLVERS) {
		lbd_cfg_resolvers_line(ctx, a);
	} else if (ctx->sec == CFG_SEC_USERLIST) {
		lbd_cfg_http_userlist_line(ctx, a);
	} else if (ctx->sec == CFG_SEC_PROGRAM) {
		lbd_cfg_program_line(ctx, a);
	}
}

/* After a lexer error, go on with the next line. */
static void cfg_lex_skip_line(struct cpha_lex *lx)
{
	while (lx->pos < lx->len && lx->text[lx->pos] != '\n')
		lx->pos++;
	if (lx->pos < lx->len) {
		lx->pos++;
		lx->line++;
	}
}

static void cfg_read(struct cfg_ctx *ctx, struct cpha_lex *lx)
{
	struct cpha_lex_line l;
	struct cfg_args a;
	const char **v = NULL, **nv;
	size_t i, cap = 0;
	int r;

	while (!ctx->d.stop) {
		r = cpha_lex_next(lx, &l);
		if (r == 0)
			break;
		if (r == -ENOMEM) {
			lbd_cfg_oom(ctx);
			break;
		}
		if (r < 0) {
			lbd_cfg_err(ctx, lx->err_line, "%s", lx->err);
			cfg_lex_skip_line(lx);
			continue;
		}
		if (l.n + 1 > cap) {
			nv = realloc(v, (l.n + 1) * sizeof(*v));
			if (!nv) {
				lbd_cfg_oom(ctx);
				break;
			}
			v = nv;
			cap = l.n + 1;
		}
		for (i = 0; i < l.n; i++)
			v[i] = l.tok[i].text;
		v[l.n] = NULL;
		a.v = v;
		a.n = l.n;
		a.line = l.line;
		cfg_line(ctx, &a);
	}
	cfg_section_end(ctx);
	free(v);
}

#define CFG_FE_KIND(f) ((f)->from_listen ? "listen" : "frontend")
#define CFG_BE_KIND(b) ((b)->from_listen ? "listen" : "backend")

/* Checks across sections, on the built configuration. */
static void cfg_validate(struct cfg_ctx *ctx, struct lbd_config *c)
{
	struct lbd_frontend *f;
	struct lbd_backend *b;
	size_t i, j;

	for (i = 0; i < ctx->npx; i++)
		for (j = 0; j < i; j++)
			if ((ctx->px[i]->cap & ctx->px[j]->cap) &&
				strcmp(ctx->px[i]->name, ctx->px[j]->name) == 0) {
				lbd_cfg_err(ctx, ctx->px[i]->line,
					"%s '%s' has the same name as %s '%s' at %s:%u",
					ctx->px[i]->kind, ctx->px[i]->name, ctx->px[j]->kind,
					ctx->px[j]->name, ctx->file, ctx->px[j]->line);
				break;
			}
	for (i = 0; i < c->nfrontends; i++) {
		f = &c->frontends[i];
		if (f->from_listen)
			continue;
		if (!f->backend_name && f->rules && f->rules->nsw)
			continue; /* HAProxy closes what no rule sends anywhere */
		if (!f->backend_name) {
			lbd_cfg_notice(ctx, f->line,
				"frontend '%s' has no default_backend nor use_backend: it closes "
				"every connection it accepts (as HAProxy does)",
				f->name);
			continue;
		}
		f->backend = lbd_cfg_backend(c, f->backend_name);
		if (f->backend)
			continue;
		if (f->backend_line > f->line)
			lbd_cfg_err(ctx, f->backend_line,
				"default_backend '%s': no such backend (frontend '%s')",
				f->backend_name, f->name);
		else
			lbd_cfg_err(ctx, f->line,
				"frontend '%s': default_backend '%s' at %s:%u: no such backend",
				f->name, f->backend_name, ctx->file, f->backend_line);
	}
	lbd_cfg_bind_validate(ctx, c);
	lbd_cfg_rules_validate(ctx, c);
	for (i = 0; i < c->nfrontends; i++)
		if (!c->frontends[i].nbinds)
			lbd_cfg_notice(ctx, c->frontends[i].line,
				"%s '%s' has no bind line; it accepts no connections",
				CFG_FE_KIND(&c->frontends[i]), c->frontends[i].name);
	if (!c->nfrontends && !c->nhttps)
		lbd_cfg_notice(ctx, 0, "no frontend or listen section: lbd accepts no connections");
	for (i = 0; i < c->nbackends; i++) {
		b = &c->backends[i];
		if (!b->nservers)
			lbd_cfg_notice(
				ctx, b->line, "%s '%s' has no servers", CFG_BE_KIND(b), b->name);
	}
}

/* "timeout client, connect" that a traffic section lacks. */
static void cfg_notice_timeouts(struct cfg_ctx *ctx, const struct cfg_proxy *px)
{
	char miss[64] = "";

	if ((px->cap & CFG_CAP_FE) && !px->to.client)
		strcat(miss, ", client");
	if ((px->cap & CFG_CAP_BE) && !px->to.connect)
		strcat(miss, ", connect");
	if ((px->cap & CFG_CAP_BE) && !px->to.server)
		strcat(miss, ", server");
	if (miss[0])
		lbd_cfg_notice(ctx, px->line,
			"%s '%s' sets no timeout %s (HAProxy warns about this too)", px->kind,
			px->name, miss + 2);
}

/* Move every traffic section into a configuration, then validate it. */
static struct lbd_config *cfg_build(struct cfg_ctx *ctx)
{
	struct lbd_config *c = calloc(1, sizeof(*c));
	struct lbd_frontend *f;
	struct lbd_backend *b;
	struct cfg_proxy *px;
	size_t i, nfe = 0, nbe = 0;

	if (!c || !(c->file = strdup(ctx->file))) {
		free(c);
		lbd_cfg_oom(ctx);
		return NULL;
	}
	for (i = 0; i < ctx->npx; i++) {
		nfe += !!(ctx->px[i]->cap & CFG_CAP_FE);
		nbe += !!(ctx->px[i]->cap & CFG_CAP_BE);
	}
	c->frontends = calloc(nfe ? nfe : 1, sizeof(*c->frontends));
	c->backends = calloc(nbe ? nbe : 1, sizeof(*c->backends));
	if (!c->frontends || !c->backends) {
		lbd_cfg_oom(ctx);
		return c;
	}
	for (i = 0; i < ctx->npx && !ctx->d.stop; i++) {
		px = ctx->px[i];
		b = NULL;
		cfg_notice_timeouts(ctx, px);
		if (lbd_cfg_http_is_service(px))
			continue; /* lbd_cfg_http_build() */
		if (px->cap & CFG_CAP_BE) {
			lbd_cfg_check_finalize(ctx, px);
			lbd_cfg_server_finalize(ctx, px);
			lbd_cfg_stick_finalize(ctx, px);
			b = &c->backends[c->nbackends++];
			*b = px->be;
			memset(&px->be, 0, sizeof(px->be));
			b->name = lbd_cfg_strdup(ctx, px->name);
			b->line = px->line;
			b->timeouts = px->to;
			b->from_listen = px->cap & CFG_CAP_FE ? 1 : 0;
		}
		if (px->cap & CFG_CAP_FE) {
			lbd_cfg_log_format_finalize(ctx, px);
			f = &c->frontends[c->nfrontends++];
			*f = px->fe;
			memset(&px->fe, 0, sizeof(px->fe));
			f->name = lbd_cfg_strdup(ctx, px->name);
			f->line = px->line;
			f->timeouts = px->to;
			if (b) {
				f->from_listen = 1;
				free(f->backend_name);
				f->backend_name = lbd_cfg_strdup(ctx, px->name);
				f->backend_line = px->line;
				f->backend = b;
			}
		}
	}
	if (ctx->global.metrics_web && !ctx->global.metrics_set)
		lbd_cfg_err(ctx, ctx->metrics_web_line,
			"'metrics-web-config' without 'metrics-bind': there is no listener to "
			"apply it to");
	c->global = ctx->global;
	memset(&ctx->global, 0, sizeof(ctx->global));
	if (!ctx->d.stop)
		lbd_cfg_http_build(ctx, c);
	if (!ctx->d.stop)
		lbd_cfg_resolve_validate(ctx);
	if (!ctx->d.stop)
		lbd_cfg_program_validate(ctx);
	if (!ctx->d.stop)
		lbd_cfg_resolve_build(ctx, c);
	if (!ctx->d.stop)
		lbd_cfg_global_tls_validate(ctx, c);
	if (!ctx->d.stop)
		cfg_validate(ctx, c);
	if (cpha_cfgdiag_take(ctx->d.notv, &ctx->d.nnotices, &c->notices, &c->nnotices) < 0)
		lbd_cfg_oom(ctx);
	return c;
}

static int cfg_run(struct cpha_lex *lx, const char *file, unsigned flags, struct lbd_config **out,
	struct cpha_msgs *errs)
{
	struct cfg_ctx ctx;
	struct lbd_config *c = NULL;
	size_t i;

	memset(&ctx, 0, sizeof(ctx));
	ctx.master_worker = !!(flags & LBD_CFG_MASTER_WORKER);
	ctx.file = file;
	ctx.d.max_errors = CFG_MAX_ERRORS;
	if (cpha_cfgdiag_file(&ctx.d, file) < 0)
		return cpha_msgs_cannot_read(errs, file, "out of memory");
	ctx.global.maxconn = 4096;
	ctx.global.stats.mode = 0600;
	ctx.global.stats.level = LBD_STATS_LEVEL_ADMIN;
	ctx.global.stats.uid = (uid_t)-1;
	ctx.global.stats.gid = (gid_t)-1;
	ctx.global.uid = (uid_t)-1;
	ctx.global.gid = (gid_t)-1;
	cfg_read(&ctx, lx);
	if (!ctx.d.stop)
		c = cfg_build(&ctx);
	for (i = 0; i < ctx.npx; i++)
		cfg_proxy_free(ctx.px[i]);
	free(ctx.px);
	cfg_proxy_free(ctx.def);
	lbd_cfg_logs_free(ctx.global.logs, ctx.global.nlogs);
	free(ctx.global.stats.path);
	free(ctx.global.pidfile);
	free(ctx.global.chroot);
	free(ctx.global.srv_ciphers);
	free(ctx.global.srv_ciphersuites);
	cpha_webcfg_unref(ctx.global.metrics_web);
	free(ctx.ca_base);
	free(ctx.crt_base);
	lbd_cfg_http_ctx_free(&ctx);
	lbd_cfg_resolve_free(&ctx);
	if (ctx.d.nerrs || ctx.d.stop || !c) {
		if (!ctx.d.nerrs && !ctx.d.stop)
			lbd_cfg_oom(&ctx);
		cpha_cfgdiag_take_errs(&ctx.d, errs);
		cpha_cfgdiag_free(&ctx.d);
		lbd_cfg_free(c);
		return -1;
	}
	cpha_cfgdiag_free(&ctx.d);
	*out = c;
	return 0;
}

int lbd_cfg_load(const char *path, struct lbd_config **out, struct cpha_msgs *errs)
{
	return lbd_cfg_load_flags(path, 0, out, errs);
}

int lbd_cfg_load_flags(
	const char *path, unsigned flags, struct lbd_config **out, struct cpha_msgs *errs)
{
	struct cpha_lex lx;
	int r;

	*out = NULL;
	r = cpha_lex_open(&lx, path, CPHA_LEX_HAPROXY);
	if (r < 0) {
		r = cpha_msgs_cannot_read(errs, path, lx.err[0] ? lx.err : strerror(-r));
		cpha_lex_free(&lx);
		return r;
	}
	r = cfg_run(&lx, path, flags, out, errs);
	if (r == 0 && cpha_digest_hex(lx.text ? lx.text : "", lx.len, (*out)->digest) < 0)
		(*out)->digest[0] = '\0';
	cpha_lex_free(&lx);
	return r;
}

int lbd_cfg_load_mem(const char *name, const char *text, size_t len, struct lbd_config **out,
	struct cpha_msgs *errs)
{
	struct cpha_lex lx;
	int r;

	*out = NULL;
	if (!name)
		name = "(memory)";
	if (cpha_lex_open_mem(&lx, name, text, len, CPHA_LEX_HAPROXY) < 0)
		return cpha_msgs_cannot_read(errs, name, "out of memory");
	r = cfg_run(&lx, name, 0, out, errs);
	cpha_lex_free(&lx);
	return r;
}

void lbd_cfg_free(struct lbd_config *c)
{
	size_t i, j;

	if (!c)
		return;
	for (i = 0; i < c->nfrontends; i++) {
		free(c->frontends[i].name);
		free(c->frontends[i].binds);
		free(c->frontends[i].backend_name);
		free(c->frontends[i].log_format);
		lbd_cfg_logs_free(c->frontends[i].logs, c->frontends[i].nlogs);
		rules_unref(c->frontends[i].rules);
	}
	free(c->frontends);
	for (i = 0; i < c->nbackends; i++) {
		free(c->backends[i].name);
		lbd_cfg_check_free(&c->backends[i]);
		rules_unref(c->backends[i].rules);
		for (j = 0; j < c->backends[i].nservers; j++)
			lbd_cfg_server_free(&c->backends[i].servers[j]);
		free(c->backends[i].servers);
	}
	free(c->backends);
	lbd_cfg_logs_free(c->global.logs, c->global.nlogs);
	free(c->global.stats.path);
	free(c->global.pidfile);
	free(c->global.chroot);
	free(c->global.srv_ciphers);
	free(c->global.srv_ciphersuites);
	cpha_webcfg_unref(c->global.metrics_web);
	for (i = 0; i < c->nnotices; i++)
		free(c->notices[i]);
	free(c->notices);
	lbd_cfg_http_config_free(c);
	lbd_cfg_resolvers_config_free(c);
	free(c->file);
	free(c);
}

const char *lbd_balance_name(enum lbd_balance b)
{
	return (unsigned)b < sizeof(cfg_balance_names) / sizeof(cfg_balance_names[0]) - 1
		       ? cfg_balance_names[b]
		       : "?";
}
