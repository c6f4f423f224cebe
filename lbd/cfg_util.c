/* The parser's shared helpers: messages with their line, allocation that
 * records running out of memory as an error, a proxy's name for messages,
 * and the count of a directive's values. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfgmsg.h"
#include "cfg-internal.h"

static void cfg_vadd(struct cfg_ctx *ctx, char ***arr, size_t *n, unsigned line, const char *fmt,
	va_list ap) __attribute__((format(printf, 5, 0)));

static void cfg_vadd(
	struct cfg_ctx *ctx, char ***arr, size_t *n, unsigned line, const char *fmt, va_list ap)
{
	char *s = cpha_cfgmsg_vformat(ctx->file, line, fmt, ap), **slot;

	slot = s ? cpha_array_push(arr, n, sizeof(*slot)) : NULL;
	if (!slot) {
		free(s);
		ctx->stop = 1; /* out of memory: nothing sensible can follow */
		return;
	}
	*slot = s;
}

void cfg_err(struct cfg_ctx *ctx, unsigned line, const char *fmt, ...)
{
	va_list ap;

	if (ctx->stop)
		return;
	if (ctx->nerrs == CFG_MAX_ERRORS) {
		fmt = "too many errors; stopped here";
		ctx->stop = 1;
	}
	va_start(ap, fmt);
	cfg_vadd(ctx, &ctx->errs->msg, &ctx->errs->n, line, fmt, ap);
	va_end(ap);
	ctx->nerrs++;
}

void cfg_notice(struct cfg_ctx *ctx, unsigned line, const char *fmt, ...)
{
	va_list ap;

	if (ctx->stop)
		return;
	va_start(ap, fmt);
	cfg_vadd(ctx, &ctx->notices, &ctx->nnotices, line, fmt, ap);
	va_end(ap);
}

void cfg_oom(struct cfg_ctx *ctx)
{
	cfg_err(ctx, 0, "out of memory");
	ctx->stop = 1;
}

char *cfg_strdup(struct cfg_ctx *ctx, const char *s)
{
	char *d = strdup(s);

	if (!d)
		cfg_oom(ctx);
	return d;
}

/* Append one zeroed element of size bytes to the array *arrayp of *n. */
void *cfg_push(struct cfg_ctx *ctx, void *arrayp, size_t *n, size_t size)
{
	void *p = cpha_array_push(arrayp, n, size);

	if (!p)
		cfg_oom(ctx);
	return p;
}

const char *cfg_where(struct cfg_ctx *ctx, const struct cfg_proxy *px)
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
const char *cfg_kw(const struct cfg_args *a, size_t nkw, char *buf, size_t len)
{
	size_t i, o = 0;

	buf[0] = '\0';
	for (i = 0; i < nkw && i < a->n && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? " " : "", a->v[i]);
	return buf;
}

/* The directive made of the first nkw words takes min to max values. */
int cfg_nargs(struct cfg_ctx *ctx, const struct cfg_args *a, size_t nkw, size_t min, size_t max,
	const char *where)
{
	char kw[128];

	cfg_kw(a, nkw, kw, sizeof(kw));
	if (a->n < nkw + min) {
		cfg_err(ctx, a->line, "'%s' needs %s (%s)", kw,
			min == 1 ? "a value" : "more values", where);
		return -1;
	}
	if (a->n > nkw + max) {
		cfg_err(ctx, a->line, "'%s': unexpected '%s' (%s)", kw, a->v[nkw + max], where);
		return -1;
	}
	return 0;
}
