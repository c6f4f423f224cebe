/* HAProxy's built-in HTTP services in lbd's configuration: stats, monitor-uri,
 * monitor fail, acl, http-request use-service prometheus-exporter, userlists.
 * A mode http frontend or listen serves only these (no servers; its backend,
 * if any, a stats-only one): lbd does not proxy HTTP. In mode tcp these
 * keywords are warned about and ignored, as HAProxy 2.6 does. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include "cfgmsg.h"
#include "cfg_ctx.h"
#include "http-types.h"

#define CFG_HTTP_DEFAULT_URI   "/haproxy?stats"
#define CFG_HTTP_MODE_LEN      640 /* cfg_http_mode_of(): names, a file name, a line */
#define CFG_HTTP_DEFAULT_REALM "HAProxy Statistics"

/* A directive lbd parsed but that only means something in mode http: said
 * at the end of a mode tcp section. */
struct cfg_http_seen {
	const char *what; /* "stats", "monitor-uri", "http-request" (static) */
	unsigned line;
};

/* What a section's HTTP directives gave so far. */
struct cfg_http_px {
	struct lbd_http_service svc;
	char *stats_backend;   /* a frontend: the mode http backend it sends to */
	unsigned backend_line; /* where it names it */
	int taken;             /* a stats backend: merged into a frontend already */
	struct cfg_http_seen *seen; /* own lines (not inherited) */
	size_t nseen;
	unsigned unsupported_line; /* an http-request action lbd lacks */
	char unsupported[96];
};

struct cfg_http_ctx {
	struct lbd_userlist **lists;
	size_t n;
	struct lbd_userlist *cur; /* userlist being read */
};

static struct cfg_http_px *cfg_http_get(struct cfg_ctx *ctx, struct cfg_proxy *px)
{
	if (!px->http && !(px->http = calloc(1, sizeof(*px->http))))
		lbd_cfg_oom(ctx);
	return px->http;
}

static void cfg_http_seen(
	struct cfg_ctx *ctx, struct cfg_http_px *h, const char *what, unsigned line)
{
	struct cfg_http_seen *s = lbd_cfg_push(ctx, &h->seen, &h->nseen, sizeof(*s));

	if (s) {
		s->what = what;
		s->line = line;
	}
}

static void cfg_http_users_free(struct lbd_userlist *u)
{
	size_t i;

	for (i = 0; i < u->nusers; i++) {
		free(u->users[i].name);
		free(u->users[i].pass);
	}
	free(u->users);
	free(u->name);
	memset(u, 0, sizeof(*u));
}

static void cfg_http_svc_free(struct lbd_http_service *s)
{
	size_t i;

	free(s->name);
	free(s->binds);
	free(s->stats_uri);
	free(s->stats_realm);
	cfg_http_users_free(&s->auth);
	for (i = 0; i < s->nrules; i++) {
		free(s->rules[i].realm);
		acl_cond_free(s->rules[i].cond);
	}
	free(s->rules);
	acl_cond_free(s->admin);
	free(s->node);
	free(s->desc);
	for (i = 0; i < s->nscope; i++)
		free(s->scope[i]);
	free(s->scope);
	free(s->monitor_uri);
	for (i = 0; i < s->nmonitor_fail; i++)
		acl_cond_free(s->monitor_fail[i]);
	free(s->monitor_fail);
	for (i = 0; i < s->nprom; i++)
		acl_cond_free(s->prom[i]);
	free(s->prom);
	rules_unref(s->routes);
	acl_list_free(&s->acls);
}

/* A condition from the words starting at w[i] ("if"/"unless"...). */
static struct acl_cond *cfg_http_cond(struct cfg_ctx *ctx, struct cfg_http_px *h,
	const struct cfg_args *a, size_t i, const char *kw)
{
	struct acl_cond *c;
	char err[256];

	c = acl_cond_parse(&h->svc.acls, a->v + i, a->n - i, err, sizeof(err));
	if (!c)
		lbd_cfg_err(ctx, a->line, "'%s': %s", kw, err);
	else
		c->line = a->line;
	return c;
}

static int cfg_http_setstr(struct cfg_ctx *ctx, char **dst, const char *s)
{
	char *d = lbd_cfg_strdup(ctx, s);

	if (!d)
		return -1;
	free(*dst);
	*dst = d;
	return 0;
}

static int cfg_http_add_user(struct cfg_ctx *ctx, struct lbd_userlist *l, const char *name,
	const char *pass, int insecure, unsigned line)
{
	struct lbd_http_user *u = lbd_cfg_push(ctx, &l->users, &l->nusers, sizeof(*u));

	if (!u)
		return -1;
	u->name = lbd_cfg_strdup(ctx, name);
	u->pass = lbd_cfg_strdup(ctx, pass);
	u->insecure = insecure;
	u->line = line;
	return u->name && u->pass ? 0 : -1;
}

/* The "stats" keywords (HAProxy 2.6 configuration manual, 4.2). */
static void st_enable(
	struct cfg_ctx *ctx, struct cfg_http_px *h, const struct cfg_args *a, const char *where)
{
	if (lbd_cfg_nargs(ctx, a, 2, 0, 0, where) == 0)
		h->svc.stats = 1;
}

static void st_uri(
	struct cfg_ctx *ctx, struct cfg_http_px *h, const struct cfg_args *a, const char *where)
{
	if (lbd_cfg_nargs(ctx, a, 2, 1, 1, where) == 0)
		cfg_http_setstr(ctx, &h->svc.stats_uri, a->v[2]);
}

static void st_realm(
	struct cfg_ctx *ctx, struct cfg_http_px *h, const struct cfg_args *a, const char *where)
{
	if (lbd_cfg_nargs(ctx, a, 2, 1, 1, where) == 0)
		cfg_http_setstr(ctx, &h->svc.stats_realm, a->v[2]);
}

static void st_auth(
	struct cfg_ctx *ctx, struct cfg_http_px *h, const struct cfg_args *a, const char *where)
{
	const char *colon;
	char *user;

	if (lbd_cfg_nargs(ctx, a, 2, 1, 1, where) < 0)
		return;
	colon = strchr(a->v[2], ':');
	if (!colon || colon == a->v[2]) {
		lbd_cfg_err(ctx, a->line, "'stats auth' needs USER:PASSWORD (%s)", where);
		return;
	}
	user = strndup(a->v[2], (size_t)(colon - a->v[2]));
	if (!user) {
		lbd_cfg_oom(ctx);
		return;
	}
	cfg_http_add_user(ctx, &h->svc.auth, user, colon + 1, 1, a->line);
	free(user);
}

static void st_refresh(
	struct cfg_ctx *ctx, struct cfg_http_px *h, const struct cfg_args *a, const char *where)
{
	if (lbd_cfg_nargs(ctx, a, 2, 1, 1, where) == 0)
		lbd_cfg_time(ctx, a->line, "stats refresh", a->v[2], &h->svc.refresh, where);
}

static void st_admin(
	struct cfg_ctx *ctx, struct cfg_http_px *h, const struct cfg_args *a, const char *where)
{
	if (a->n < 3 || (strcmp(a->v[2], "if") != 0 && strcmp(a->v[2], "unless") != 0)) {
		lbd_cfg_err(ctx, a->line,
			"'stats admin' needs 'if' or 'unless' and a condition (%s)", where);
		return;
	}
	acl_cond_free(h->svc.admin);
	h->svc.admin = cfg_http_cond(ctx, h, a, 2, "stats admin");
}

static void st_flag(
	struct cfg_ctx *ctx, struct cfg_http_px *h, const struct cfg_args *a, const char *where)
{
	if (lbd_cfg_nargs(ctx, a, 2, 0, 0, where) < 0)
		return;
	if (strcmp(a->v[1], "hide-version") == 0)
		h->svc.hide_version = 1;
	else if (strcmp(a->v[1], "show-legends") == 0)
		h->svc.show_legends = 1;
	/* show-modules: lbd has no extra statistics modules to show */
}

static void st_show_node(
	struct cfg_ctx *ctx, struct cfg_http_px *h, const struct cfg_args *a, const char *where)
{
	if (lbd_cfg_nargs(ctx, a, 2, 0, 1, where) < 0)
		return;
	h->svc.show_node = 1;
	if (a->n == 3)
		cfg_http_setstr(ctx, &h->svc.node, a->v[2]);
}

static void st_show_desc(
	struct cfg_ctx *ctx, struct cfg_http_px *h, const struct cfg_args *a, const char *where)
{
	if (lbd_cfg_nargs(ctx, a, 2, 1, 1, where) == 0)
		cfg_http_setstr(ctx, &h->svc.desc, a->v[2]);
}

static void st_scope(
	struct cfg_ctx *ctx, struct cfg_http_px *h, const struct cfg_args *a, const char *where)
{
	char **s;

	if (lbd_cfg_nargs(ctx, a, 2, 1, 1, where) < 0)
		return;
	s = lbd_cfg_push(ctx, &h->svc.scope, &h->svc.nscope, sizeof(*s));
	if (s)
		*s = lbd_cfg_strdup(ctx, a->v[2]);
}

/* stats http-request { allow | deny | auth [realm R] } [if|unless COND] */
static void st_http_request(
	struct cfg_ctx *ctx, struct cfg_http_px *h, const struct cfg_args *a, const char *where)
{
	static const char *const actions[] = { "allow", "deny", "auth", NULL };
	struct lbd_stats_rule *r;
	size_t i = 3;
	int k;

	if (a->n < 3 || (k = lbd_cfg_lookup(actions, a->v[2])) < 0) {
		lbd_cfg_err(
			ctx, a->line, "'stats http-request' needs allow, deny or auth (%s)", where);
		return;
	}
	r = lbd_cfg_push(ctx, &h->svc.rules, &h->svc.nrules, sizeof(*r));
	if (!r)
		return;
	r->action = (enum lbd_stats_action)k;
	r->line = a->line;
	if (k == LBD_STATS_AUTH && a->n > 4 && strcmp(a->v[3], "realm") == 0) {
		r->realm = lbd_cfg_strdup(ctx, a->v[4]);
		i = 5;
	}
	if (i < a->n)
		r->cond = cfg_http_cond(ctx, h, a, i, "stats http-request");
}

static const struct cfg_http_stats_kw {
	struct cpha_cfgkw kw; /* name, and the sections it may appear in */
	void (*fn)(struct cfg_ctx *ctx, struct cfg_http_px *h, const struct cfg_args *a,
		const char *where);
} cfg_http_stats_kws[] = {
	{ { "enable", CFG_CAP_DEF | CFG_CAP_FE | CFG_CAP_BE }, st_enable },
	{ { "uri", CFG_CAP_DEF | CFG_CAP_FE | CFG_CAP_BE }, st_uri },
	{ { "realm", CFG_CAP_DEF | CFG_CAP_FE | CFG_CAP_BE }, st_realm },
	{ { "auth", CFG_CAP_DEF | CFG_CAP_FE | CFG_CAP_BE }, st_auth },
	{ { "refresh", CFG_CAP_DEF | CFG_CAP_FE | CFG_CAP_BE }, st_refresh },
	{ { "admin", CFG_CAP_FE | CFG_CAP_BE }, st_admin },
	{ { "hide-version", CFG_CAP_DEF | CFG_CAP_FE | CFG_CAP_BE }, st_flag },
	{ { "show-legends", CFG_CAP_DEF | CFG_CAP_FE | CFG_CAP_BE }, st_flag },
	{ { "show-modules", CFG_CAP_DEF | CFG_CAP_FE | CFG_CAP_BE }, st_flag },
	{ { "show-node", CFG_CAP_DEF | CFG_CAP_FE | CFG_CAP_BE }, st_show_node },
	{ { "show-desc", CFG_CAP_DEF | CFG_CAP_FE | CFG_CAP_BE }, st_show_desc },
	{ { "scope", CFG_CAP_DEF | CFG_CAP_FE | CFG_CAP_BE }, st_scope },
	{ { "http-request", CFG_CAP_FE | CFG_CAP_BE }, st_http_request },
};

static void kw_stats(
	struct cfg_ctx *ctx, struct cfg_proxy *px, struct cfg_http_px *h, const struct cfg_args *a)
{
	const char *where = lbd_cfg_where(ctx, px);
	const void *row;
	int r;

	if (a->n < 2) {
		lbd_cfg_err(ctx, a->line, "'stats' needs a keyword (%s)", where);
		return;
	}
	r = cpha_cfgkw_find(cfg_http_stats_kws,
		sizeof(cfg_http_stats_kws) / sizeof(cfg_http_stats_kws[0]),
		sizeof(cfg_http_stats_kws[0]), a->v[1], px->cap, &row);
	if (r == -ENOENT) {
		lbd_cfg_err(
			ctx, a->line, "'stats %s' is not supported by lbd in %s", a->v[1], where);
		return;
	}
	if (r < 0) {
		lbd_cfg_err(ctx, a->line, "'stats %s' is not allowed in a %s section", a->v[1],
			px->kind);
		return;
	}
	h->svc.stats = 1; /* every stats keyword enables the page (HAProxy) */
	((const struct cfg_http_stats_kw *)row)->fn(ctx, h, a, where);
	cfg_http_seen(ctx, h, "stats", a->line);
}

static void kw_monitor_uri(
	struct cfg_ctx *ctx, struct cfg_proxy *px, struct cfg_http_px *h, const struct cfg_args *a)
{
	if (lbd_cfg_nargs(ctx, a, 1, 1, 1, lbd_cfg_where(ctx, px)) < 0)
		return;
	cfg_http_setstr(ctx, &h->svc.monitor_uri, a->v[1]);
	cfg_http_seen(ctx, h, "monitor-uri", a->line);
}

/* monitor fail if|unless COND */
static void kw_monitor(
	struct cfg_ctx *ctx, struct cfg_proxy *px, struct cfg_http_px *h, const struct cfg_args *a)
{
	struct acl_cond *c, **slot;

	if (a->n < 3 || strcmp(a->v[1], "fail") != 0 ||
		(strcmp(a->v[2], "if") != 0 && strcmp(a->v[2], "unless") != 0)) {
		lbd_cfg_err(ctx, a->line,
			"'monitor' expects 'fail' followed by 'if' or 'unless' (%s)",
			lbd_cfg_where(ctx, px));
		return;
	}
	c = cfg_http_cond(ctx, h, a, 2, "monitor fail");
	if (!c)
		return;
	slot = lbd_cfg_push(ctx, &h->svc.monitor_fail, &h->svc.nmonitor_fail, sizeof(*slot));
	if (!slot) {
		acl_cond_free(c);
		return;
	}
	*slot = c;
}

static void kw_acl(
	struct cfg_ctx *ctx, struct cfg_proxy *px, struct cfg_http_px *h, const struct cfg_args *a)
{
	char err[256];

	if (acl_define(&h->svc.acls, a->v + 1, a->n - 1, err, sizeof(err)) < 0)
		lbd_cfg_err(ctx, a->line, "'acl': %s (%s)", err, lbd_cfg_where(ctx, px));
}

/* http-request use-service prometheus-exporter [if|unless COND]; other
 * actions need HTTP proxying or are not in lbd, decided at the end. */
static void kw_http_request(
	struct cfg_ctx *ctx, struct cfg_proxy *px, struct cfg_http_px *h, const struct cfg_args *a)
{
	struct acl_cond *c = NULL, **slot;

	cfg_http_seen(ctx, h, "http-request", a->line);
	if (a->n < 2 || strcmp(a->v[1], "use-service") != 0 || a->n < 3 ||
		strcmp(a->v[2], "prometheus-exporter") != 0) {
		if (!h->unsupported_line) {
			h->unsupported_line = a->line;
			snprintf(h->unsupported, sizeof(h->unsupported), "%s%s%s",
				a->n > 1 ? a->v[1] : "", a->n > 2 ? " " : "",
				a->n > 2 ? a->v[2] : "");
		}
		return;
	}
	if (a->n > 3) {
		c = cfg_http_cond(ctx, h, a, 3, "http-request use-service");
		if (!c)
			return;
	}
	(void)px;
	slot = lbd_cfg_push(ctx, &h->svc.prom, &h->svc.nprom, sizeof(*slot));
	if (!slot) {
		acl_cond_free(c);
		return;
	}
	*slot = c;
}

static const struct cfg_http_kw {
	struct cpha_cfgkw kw; /* name, and the sections it may appear in */
	void (*fn)(struct cfg_ctx *ctx, struct cfg_proxy *px, struct cfg_http_px *h,
		const struct cfg_args *a);
} cfg_http_kws[] = {
	{ { "stats", CFG_CAP_DEF | CFG_CAP_FE | CFG_CAP_BE }, kw_stats },
	{ { "monitor-uri", CFG_CAP_DEF | CFG_CAP_FE }, kw_monitor_uri },
	{ { "monitor", CFG_CAP_FE }, kw_monitor },
	{ { "acl", CFG_CAP_FE | CFG_CAP_BE }, kw_acl },
	{ { "http-request", CFG_CAP_FE | CFG_CAP_BE }, kw_http_request },
};

/* HTTP proxying settings in a mode http section, which can only serve the
 * built-in services: they shape traffic to servers and request logs, and
 * lbd has neither there. 1 when a is one of them (said and ignored). */
static int cfg_http_proxying_option(
	struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	static const char *const opts[] = { "httplog", "forwardfor", "http-server-close",
		"httpclose", "http-keep-alive", "http-buffer-request", "http-pretend-keepalive",
		"http-use-htx", NULL };
	static const char *const tos[] = { "http-request", "http-keep-alive", NULL };
	size_t no = strcmp(a->v[0], "no") == 0;

	if (!px->mode_http || !(px->cap & CFG_CAP_FE) || a->n < no + 2)
		return 0;
	if (!(strcmp(a->v[no], "option") == 0 && lbd_cfg_lookup(opts, a->v[no + 1]) >= 0) &&
		!(!no && strcmp(a->v[0], "timeout") == 0 && lbd_cfg_lookup(tos, a->v[1]) >= 0))
		return 0;
	lbd_cfg_notice(ctx, a->line,
		"'%s%s %s' has no effect on lbd's built-in HTTP services (no servers, no "
		"request log); ignored (%s)",
		no ? "no " : "", a->v[no], a->v[no + 1], lbd_cfg_where(ctx, px));
	return 1;
}

/* 1 when a->v[0] is one of this file's keywords (then it was handled). */
int lbd_cfg_http_line(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	struct cfg_http_px *h;
	const void *row;
	int r;

	if (cfg_http_proxying_option(ctx, px, a))
		return 1;

	r = cpha_cfgkw_find(cfg_http_kws, sizeof(cfg_http_kws) / sizeof(cfg_http_kws[0]),
		sizeof(cfg_http_kws[0]), a->v[0], px->cap, &row);
	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		lbd_cfg_err(ctx, a->line, "'%s' is not allowed in a %s section", a->v[0], px->kind);
		return 1;
	}
	h = cfg_http_get(ctx, px);
	if (h)
		((const struct cfg_http_kw *)row)->fn(ctx, px, h, a);
	return 1;
}

/* A section starts with the stats and monitor-uri settings of the defaults
 * before it (HAProxy shares the defaults' stats settings). */
void lbd_cfg_http_inherit(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_proxy *d)
{
	const struct lbd_http_service *ds;
	struct lbd_http_service *s;
	size_t i;

	if (!d->http)
		return;
	ds = &d->http->svc;
	if (!ds->stats && !(ds->monitor_uri && (px->cap & CFG_CAP_FE)))
		return;
	if (!cfg_http_get(ctx, px))
		return;
	s = &px->http->svc;
	s->stats = ds->stats;
	if (ds->stats_uri)
		s->stats_uri = lbd_cfg_strdup(ctx, ds->stats_uri);
	if (ds->stats_realm)
		s->stats_realm = lbd_cfg_strdup(ctx, ds->stats_realm);
	s->refresh = ds->refresh;
	for (i = 0; i < ds->auth.nusers; i++)
		cfg_http_add_user(ctx, &s->auth, ds->auth.users[i].name, ds->auth.users[i].pass, 1,
			ds->auth.users[i].line);
	s->hide_version = ds->hide_version;
	s->show_legends = ds->show_legends;
	s->show_node = ds->show_node;
	if (ds->node)
		s->node = lbd_cfg_strdup(ctx, ds->node);
	if (ds->desc)
		s->desc = lbd_cfg_strdup(ctx, ds->desc);
	for (i = 0; i < ds->nscope; i++) {
		char **sc = lbd_cfg_push(ctx, &s->scope, &s->nscope, sizeof(*sc));

		if (sc)
			*sc = lbd_cfg_strdup(ctx, ds->scope[i]);
	}
	if (ds->monitor_uri && (px->cap & CFG_CAP_FE))
		s->monitor_uri = lbd_cfg_strdup(ctx, ds->monitor_uri);
}

/* 1 when px ended as a built-in HTTP service (lbd_cfg_http_section_end()
 * accepted it): cfg_build() leaves it to lbd_cfg_http_build(). */
int lbd_cfg_http_is_service(const struct cfg_proxy *px)
{
	return px->mode_http && px->cap != CFG_CAP_DEF && px->http && px->http->svc.line;
}

/* nbsrv(BACKEND) and http_auth(USERLIST) must name something that exists. */
struct cfg_http_ref {
	struct cfg_ctx *ctx;
	const struct lbd_config *c;
	const struct lbd_http_service *s;
	unsigned line;
};

static int cfg_http_check_backend(void *userdata, const char *name)
{
	struct cfg_http_ref *r = userdata;

	if (!lbd_cfg_backend(r->c, name))
		lbd_cfg_err(r->ctx, r->line, "nbsrv(%s): no such backend (%s '%s')", name,
			r->s->kind, r->s->name);
	return 0;
}

static int cfg_http_check_userlist(void *userdata, const char *name)
{
	struct cfg_http_ref *r = userdata;
	size_t i;

	for (i = 0; i < r->c->nuserlists; i++)
		if (strcmp(r->c->userlists[i]->name, name) == 0)
			return 0;
	lbd_cfg_err(r->ctx, r->line, "http_auth(%s): no such userlist (%s '%s')", name, r->s->kind,
		r->s->name);
	return 0;
}

static void cfg_http_check_cond(struct cfg_http_ref *r, const struct acl_cond *cond)
{
	if (!cond)
		return;
	r->line = cond->line;
	acl_cond_walk(cond, ACL_F_NBSRV, cfg_http_check_backend, r);
	acl_cond_walk(cond, ACL_F_HTTP_AUTH, cfg_http_check_userlist, r);
}

/* "frontend 'web' is in mode http (FILE:LINE)" or "would run in ...". */
static const char *cfg_http_mode_of(
	const struct cfg_ctx *ctx, const struct cfg_proxy *px, char *buf, size_t len)
{
	bool inherited = px->mode_line < px->line;

	snprintf(buf, len, "%s '%s' %s mode http (%s%s:%u)", px->kind, px->name,
		inherited ? "would run in" : "is in", inherited ? "inherited from defaults at " : "",
		ctx->file, px->mode_line);
	return buf;
}

/* The settings a stats page needs when the file does not give them. */
static void cfg_http_stats_defaults(struct cfg_ctx *ctx, struct cfg_http_px *h)
{
	if (h->svc.stats && !h->svc.stats_uri)
		cfg_http_setstr(ctx, &h->svc.stats_uri, CFG_HTTP_DEFAULT_URI);
	if (h->svc.stats && !h->svc.stats_realm)
		cfg_http_setstr(ctx, &h->svc.stats_realm, CFG_HTTP_DEFAULT_REALM);
}

/* A mode http backend serves stats to a frontend (lbd_cfg_http_build merges
 * it there), or with servers would proxy HTTP. Returns 1. */
static int cfg_http_backend_end(struct cfg_ctx *ctx, struct cfg_proxy *px)
{
	struct cfg_http_px *h;
	char buf[CFG_HTTP_MODE_LEN];

	if (px->be.nservers) {
		lbd_cfg_err(ctx, px->line,
			"%s and has servers; lbd does not proxy HTTP (a mode http backend may only "
			"serve stats)",
			cfg_http_mode_of(ctx, px, buf, sizeof(buf)));
		return 1;
	}
	if (!(h = cfg_http_get(ctx, px)))
		return 1;
	h->svc.line = px->line;
	h->svc.kind = px->kind;
	cfg_http_stats_defaults(ctx, h);
	return 1;
}

/* A mode http frontend with a backend: its stats, for the requests sent there. */
static int cfg_http_routed_end(struct cfg_ctx *ctx, struct cfg_proxy *px)
{
	struct lbd_fe_rules *r = px->fe.rules;
	struct cfg_http_px *h;
	size_t i;

	if (!(h = cfg_http_get(ctx, px)))
		return 1;
	h->stats_backend = lbd_cfg_strdup(ctx, px->fe.backend_name ? px->fe.backend_name
								    : r->sw[0].backend);
	h->backend_line = px->fe.backend_name ? px->fe.backend_line : r->sw[0].line;
	for (i = 0; r && i < r->nsw; i++)
		if (h->stats_backend && strcmp(r->sw[i].backend, h->stats_backend) != 0) {
			lbd_cfg_err(ctx, r->sw[i].line,
				"use_backend '%s': a mode http frontend of lbd sends to one backend "
				"that serves stats ('%s' at %s:%u); lbd does not proxy HTTP",
				r->sw[i].backend, h->stats_backend, ctx->file, h->backend_line);
			return 1;
		}
	h->svc.routes = r;
	h->svc.route_default = px->fe.backend_name != NULL;
	px->fe.rules = NULL;
	h->svc.line = px->line;
	h->svc.kind = px->kind;
	h->svc.timeout_client = px->to.client;
	cfg_http_stats_defaults(ctx, h);
	return 1;
}

/* At the end of a frontend, backend or listen section: in mode tcp, say
 * which HTTP directives are ignored and drop them (returns 0); a mode http
 * frontend or listen becomes a service, or an error when it would proxy
 * HTTP (returns 1: mode http was dealt with). */
int lbd_cfg_http_section_end(struct cfg_ctx *ctx, struct cfg_proxy *px)
{
	struct cfg_http_px *h = px->http;
	char buf[CFG_HTTP_MODE_LEN];
	const char *where;
	size_t i, j;

	if (px->cap == CFG_CAP_DEF)
		return 0;
	where = lbd_cfg_where(ctx, px);
	if (!px->mode_http) {
		/* HAProxy 2.6 warns that these need mode http and ignores them */
		for (i = 0; h && i < h->nseen; i++) {
			for (j = 0; j < i; j++)
				if (h->seen[j].what == h->seen[i].what)
					break;
			if (j == i)
				lbd_cfg_notice(ctx, h->seen[i].line,
					"'%s' needs mode http; ignored in %s (as HAProxy does)",
					h->seen[i].what, where);
		}
		lbd_cfg_http_proxy_free(px);
		return 0;
	}
	if (px->cap == CFG_CAP_BE)
		return cfg_http_backend_end(ctx, px);
	if (!px->be.nservers && (px->fe.backend_name || (px->fe.rules && px->fe.rules->nsw)))
		return cfg_http_routed_end(ctx, px);
	if (px->be.nservers || px->fe.backend_name || (px->fe.rules && px->fe.rules->nsw)) {
		lbd_cfg_err(ctx, px->line,
			"%s and %s; lbd does not proxy HTTP (a mode http section may only serve "
			"stats, monitor-uri and prometheus-exporter)",
			cfg_http_mode_of(ctx, px, buf, sizeof(buf)),
			px->be.nservers ? "has servers" : "sends to a backend");
		return 1;
	}
	if (!cfg_http_get(ctx, px))
		return 1;
	h = px->http;
	if (h->unsupported_line) {
		lbd_cfg_err(ctx, h->unsupported_line,
			"'http-request %s' is not supported by lbd in %s; lbd does not proxy HTTP "
			"and serves only use-service prometheus-exporter",
			h->unsupported, where);
		return 1;
	}
	h->svc.line = px->line;
	h->svc.kind = px->kind;
	h->svc.timeout_client = px->to.client;
	cfg_http_stats_defaults(ctx, h);
	return 1;
}

/* userlist NAME */
void lbd_cfg_http_userlist_start(struct cfg_ctx *ctx, const struct cfg_args *a)
{
	struct lbd_userlist *l, **slot;
	size_t i;

	ctx->sec = CFG_SEC_SKIP;
	if (a->n != 2) {
		lbd_cfg_err(ctx, a->line,
			a->n < 2 ? "'userlist' needs a name"
				 : "'userlist' takes only a name; unexpected '%s'",
			a->n < 2 ? "" : a->v[2]);
		return;
	}
	if (!ctx->http && !(ctx->http = calloc(1, sizeof(*ctx->http)))) {
		lbd_cfg_oom(ctx);
		return;
	}
	for (i = 0; i < ctx->http->n; i++)
		if (strcmp(ctx->http->lists[i]->name, a->v[1]) == 0) {
			lbd_cfg_err(ctx, a->line,
				"userlist '%s' has the same name as the one at %s:%u", a->v[1],
				ctx->file, ctx->http->lists[i]->line);
			return;
		}
	l = calloc(1, sizeof(*l));
	slot = l ? lbd_cfg_push(ctx, &ctx->http->lists, &ctx->http->n, sizeof(*slot)) : NULL;
	if (!slot || !(l->name = lbd_cfg_strdup(ctx, a->v[1]))) {
		if (slot)
			ctx->http->n--;
		free(l);
		return;
	}
	l->line = a->line;
	*slot = l;
	ctx->http->cur = l;
	ctx->sec = CFG_SEC_USERLIST;
}

/* user NAME [password HASH | insecure-password PASS] [groups G,...] and
 * group NAME [users U,...] (groups are accepted: lbd's conditions have no
 * http_auth_group) */
void lbd_cfg_http_userlist_line(struct cfg_ctx *ctx, const struct cfg_args *a)
{
	struct lbd_userlist *l = ctx->http->cur;
	const char *pass = NULL;
	int insecure = 0;
	size_t i;
	char where[300];

	snprintf(where, sizeof(where), "userlist '%s'", l->name);
	if (strcmp(a->v[0], "group") == 0) {
		if (a->n == 2 || (a->n == 4 && strcmp(a->v[2], "users") == 0))
			return;
		lbd_cfg_err(ctx, a->line, "'group' expects NAME [users USER,...] (%s)", where);
		return;
	}
	if (strcmp(a->v[0], "user") != 0) {
		lbd_cfg_err(ctx, a->line, "'%s' is not a userlist keyword (user, group) (%s)",
			a->v[0], where);
		return;
	}
	if (a->n < 2) {
		lbd_cfg_err(ctx, a->line, "'user' needs a name (%s)", where);
		return;
	}
	for (i = 2; i < a->n; i += 2) {
		if (i + 1 >= a->n) {
			lbd_cfg_err(ctx, a->line, "'user %s': '%s' needs a value (%s)", a->v[1],
				a->v[i], where);
			return;
		}
		if (strcmp(a->v[i], "password") == 0) {
			pass = a->v[i + 1];
			insecure = 0;
		} else if (strcmp(a->v[i], "insecure-password") == 0) {
			pass = a->v[i + 1];
			insecure = 1;
		} else if (strcmp(a->v[i], "groups") != 0) {
			lbd_cfg_err(ctx, a->line,
				"'user %s': unexpected '%s' (password, insecure-password or "
				"groups) "
				"(%s)",
				a->v[1], a->v[i], where);
			return;
		}
	}
	for (i = 0; i < l->nusers; i++)
		if (strcmp(l->users[i].name, a->v[1]) == 0) {
			lbd_cfg_err(ctx, a->line, "user '%s' is already in %s (line %u)", a->v[1],
				where, l->users[i].line);
			return;
		}
	/* a user without a password can never log in (HAProxy) */
	cfg_http_add_user(ctx, l, a->v[1], pass ? pass : "*", pass ? insecure : 0, a->line);
}

/* An address can be bound once: a service's bind must not be a TCP
 * frontend's, an earlier service's or metrics-bind (lbd could not start). */
static void cfg_http_check_binds(struct cfg_ctx *ctx, const struct lbd_config *c, size_t svc)
{
	const struct lbd_http_service *s = c->https[svc], *o;
	const struct lbd_bind *b;
	char buf[CPHA_ADDR_STRLEN];
	size_t i, j, k;

	for (i = 0; i < s->nbinds; i++) {
		b = &s->binds[i];
		cpha_addr_format(&b->addr, buf, sizeof(buf));
		for (j = 0; j < c->nfrontends; j++)
			for (k = 0; k < c->frontends[j].nbinds; k++)
				if (cpha_addr_equal(&b->addr, &c->frontends[j].binds[k].addr))
					lbd_cfg_err(ctx, b->line,
						"bind address %s is already used by %s '%s' at "
						"%s:%u",
						buf,
						c->frontends[j].from_listen ? "listen" : "frontend",
						c->frontends[j].name, ctx->file,
						c->frontends[j].binds[k].line);
		for (j = 0; j <= svc; j++) {
			o = c->https[j];
			for (k = 0; k < (j == svc ? i : o->nbinds); k++)
				if (cpha_addr_equal(&b->addr, &o->binds[k].addr))
					lbd_cfg_err(ctx, b->line,
						"bind address %s is already used by %s '%s' at "
						"%s:%u",
						buf, o->kind, o->name, ctx->file, o->binds[k].line);
		}
		if (c->global.metrics_set && cpha_addr_equal(&b->addr, &c->global.metrics))
			lbd_cfg_err(ctx, b->line, "bind address %s is already used by metrics-bind",
				buf);
	}
}

/* Move the services and the userlists into c, then check what their
 * conditions name. */
/* The frontend's stats backend's settings moved into its service, with the
 * ACLs their conditions point into. 0, or -1 with an error. */
static int cfg_http_merge_backend(struct cfg_ctx *ctx, struct cfg_proxy *fe)
{
	struct cfg_http_px *h = fe->http, *b = NULL;
	struct lbd_http_service *to = &h->svc, *from;
	char buf[CFG_HTTP_MODE_LEN];
	struct cfg_proxy *px;
	struct acl **slot;
	size_t i;

	for (i = 0; i < ctx->npx && !b; i++) {
		px = ctx->px[i];
		if ((px->cap & CFG_CAP_BE) && strcmp(px->name, h->stats_backend) == 0)
			b = lbd_cfg_http_is_service(px) && px->cap == CFG_CAP_BE ? px->http : NULL;
	}
	if (!b) {
		lbd_cfg_err(ctx, fe->line,
			"%s and sends to '%s', which is not a mode http backend without servers; "
			"lbd does not proxy HTTP (a mode http section may only serve stats, "
			"monitor-uri and prometheus-exporter)",
			cfg_http_mode_of(ctx, fe, buf, sizeof(buf)), h->stats_backend);
		return -1;
	}
	if (b->taken) {
		lbd_cfg_err(ctx, h->backend_line,
			"backend '%s' already serves the stats of another frontend; lbd serves a "
			"stats backend from one frontend (%s '%s')",
			h->stats_backend, fe->kind, fe->name);
		return -1;
	}
	b->taken = 1;
	from = &b->svc;
	if (to->stats) {
		lbd_cfg_notice(ctx, from->line,
			"the stats settings of backend '%s' are not used: %s '%s' has its own",
			h->stats_backend, fe->kind, fe->name);
		return 0;
	}
	for (i = 0; i < from->acls.n; i++) {
		slot = lbd_cfg_push(ctx, &to->acls.acls, &to->acls.n, sizeof(*slot));
		if (!slot)
			return -1;
		*slot = from->acls.acls[i];
	}
	free(from->acls.acls);
	memset(&from->acls, 0, sizeof(from->acls));
#define CFG_HTTP_MOVE(f)                                                                           \
	do {                                                                                       \
		to->f = from->f;                                                                   \
		memset(&from->f, 0, sizeof(from->f));                                              \
	} while (0)
	CFG_HTTP_MOVE(stats);
	CFG_HTTP_MOVE(stats_uri);
	CFG_HTTP_MOVE(stats_realm);
	CFG_HTTP_MOVE(refresh);
	CFG_HTTP_MOVE(auth);
	CFG_HTTP_MOVE(rules);
	CFG_HTTP_MOVE(nrules);
	CFG_HTTP_MOVE(admin);
	CFG_HTTP_MOVE(hide_version);
	CFG_HTTP_MOVE(show_legends);
	CFG_HTTP_MOVE(show_node);
	CFG_HTTP_MOVE(node);
	CFG_HTTP_MOVE(desc);
	CFG_HTTP_MOVE(scope);
	CFG_HTTP_MOVE(nscope);
#undef CFG_HTTP_MOVE
	return 0;
}

void lbd_cfg_http_build(struct cfg_ctx *ctx, struct lbd_config *c)
{
	struct lbd_http_service *s, **slot;
	struct cfg_http_ref r = { ctx, c, NULL, 0 };
	struct cfg_proxy *px;
	size_t i, j;

	if (ctx->http) {
		c->userlists = ctx->http->lists;
		c->nuserlists = ctx->http->n;
		ctx->http->lists = NULL;
		ctx->http->n = 0;
	}
	for (i = 0; i < ctx->npx; i++) {
		px = ctx->px[i];
		if (!lbd_cfg_http_is_service(px) || px->cap == CFG_CAP_BE)
			continue; /* a stats backend is served by its frontends */
		if (px->http->stats_backend && cfg_http_merge_backend(ctx, px) < 0)
			continue;
		s = calloc(1, sizeof(*s));
		slot = s ? lbd_cfg_push(ctx, &c->https, &c->nhttps, sizeof(*slot)) : NULL;
		if (!slot) {
			free(s);
			lbd_cfg_oom(ctx);
			return;
		}
		*s = px->http->svc;
		memset(&px->http->svc, 0, sizeof(px->http->svc));
		*slot = s;
		s->name = lbd_cfg_strdup(ctx, px->name);
		s->binds = px->fe.binds;
		s->nbinds = px->fe.nbinds;
		px->fe.binds = NULL;
		px->fe.nbinds = 0;
		if (!s->nbinds)
			lbd_cfg_notice(ctx, s->line,
				"%s '%s' has no bind line; it accepts no connections", s->kind,
				s->name);
	}
	for (i = 0; i < c->nhttps; i++) {
		s = c->https[i];
		r.s = s;
		for (j = 0; j < s->nmonitor_fail; j++)
			cfg_http_check_cond(&r, s->monitor_fail[j]);
		for (j = 0; j < s->nprom; j++)
			cfg_http_check_cond(&r, s->prom[j]);
		for (j = 0; j < s->nrules; j++)
			cfg_http_check_cond(&r, s->rules[j].cond);
		cfg_http_check_cond(&r, s->admin);
		cfg_http_check_binds(ctx, c, i);
	}
}

const struct acl_list *lbd_cfg_http_acls(struct cfg_ctx *ctx, struct cfg_proxy *px)
{
	struct cfg_http_px *h = cfg_http_get(ctx, px);

	return h ? &h->svc.acls : NULL;
}

void lbd_cfg_http_take_acls(struct cfg_ctx *ctx, struct cfg_proxy *px, struct acl_list *to)
{
	(void)ctx;
	if (!px->http)
		return;
	*to = px->http->svc.acls;
	memset(&px->http->svc.acls, 0, sizeof(px->http->svc.acls));
}

/* Free what a section's HTTP directives gave (px->http becomes NULL). */
void lbd_cfg_http_proxy_free(struct cfg_proxy *px)
{
	if (!px->http)
		return;
	cfg_http_svc_free(&px->http->svc);
	free(px->http->stats_backend);
	free(px->http->seen);
	free(px->http);
	px->http = NULL;
}

/* Free the userlists a failed parse leaves in ctx. */
void lbd_cfg_http_ctx_free(struct cfg_ctx *ctx)
{
	size_t i;

	if (!ctx->http)
		return;
	for (i = 0; i < ctx->http->n; i++) {
		cfg_http_users_free(ctx->http->lists[i]);
		free(ctx->http->lists[i]);
	}
	free(ctx->http->lists);
	free(ctx->http);
	ctx->http = NULL;
}

/* Free a configuration's services and userlists (lbd_cfg_free()). */
void lbd_cfg_http_config_free(struct lbd_config *c)
{
	size_t i;

	for (i = 0; i < c->nhttps; i++) {
		cfg_http_svc_free(c->https[i]);
		free(c->https[i]);
	}
	free(c->https);
	for (i = 0; i < c->nuserlists; i++) {
		cfg_http_users_free(c->userlists[i]);
		free(c->userlists[i]);
	}
	free(c->userlists);
}
