/* The parser's shared helpers: a proxy's name for messages, the count of a
 * directive's values (messages and allocation: lib/cfgdiag.h), and the
 * lookups by name in a built configuration, which the parser's later
 * steps (cfg_http.c) use as well as its readers. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfgmsg.h"
#include "cfg_ctx.h"

const char *lbd_cfg_where(struct cfg_ctx *ctx, const struct cfg_proxy *px)
{
	if (!px)
		snprintf(ctx->where, sizeof(ctx->where), "section 'global'");
	else if (!px->name)
		snprintf(ctx->where, sizeof(ctx->where), "section 'defaults'");
	else
		snprintf(ctx->where, sizeof(ctx->where), "%s '%s'", px->kind, px->name);
	return ctx->where;
}

/* "timeout client" for the first nkw words. */
const char *lbd_cfg_kw(const struct cfg_args *a, size_t nkw, char *buf, size_t len)
{
	size_t i, o = 0;

	buf[0] = '\0';
	for (i = 0; i < nkw && i < a->n && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? " " : "", a->v[i]);
	return buf;
}

/* The directive made of the first nkw words takes min to max values. */
int lbd_cfg_nargs(struct cfg_ctx *ctx, const struct cfg_args *a, size_t nkw, size_t min, size_t max,
	const char *where)
{
	char kw[128];

	lbd_cfg_kw(a, nkw, kw, sizeof(kw));
	if (a->n < nkw + min) {
		lbd_cfg_err(ctx, a->line, "'%s' needs %s (%s)", kw,
			min == 1 ? "a value" : "more values", where);
		return -1;
	}
	if (a->n > nkw + max) {
		lbd_cfg_err(ctx, a->line, "'%s': unexpected '%s' (%s)", kw, a->v[nkw + max], where);
		return -1;
	}
	return 0;
}

struct lbd_backend *lbd_cfg_backend(const struct lbd_config *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nbackends; i++)
		if (c->backends[i].name && strcmp(c->backends[i].name, name) == 0)
			return &c->backends[i];
	return NULL;
}

struct lbd_server_cfg *lbd_cfg_server(const struct lbd_backend *b, const char *name)
{
	size_t i;

	for (i = 0; i < b->nservers; i++)
		if (strcmp(b->servers[i].name, name) == 0)
			return &b->servers[i];
	return NULL;
}
