/* Where lbd listens: bind lines and bind address lists of frontend and
 * listen sections, and the whole configuration's check that no address is
 * bound twice. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cfg_ctx.h"

static void cfg_bind_one(struct cfg_ctx *ctx, struct cfg_proxy *px, const char *s, unsigned line)
{
	const char *where = lbd_cfg_where(ctx, px);
	char buf[CPHA_ADDR_STRLEN + 16];
	struct lbd_bind *b;
	struct cpha_addr addr;

	if (lbd_cfg_addr_prefix(s, "tcp", buf, sizeof(buf)) < 0 || s[0] == '/') {
		lbd_cfg_err(ctx, line,
			"bind address '%s': lbd only listens on TCP over IPv4 or IPv6 (%s)", s,
			where);
		return;
	}
	if (lbd_cfg_resolve_bind(ctx, buf, sizeof(buf), line, where) < 0 ||
		lbd_cfg_addr(
			ctx, line, "bind address", buf, CPHA_ADDR_PORT_REQUIRED, &addr, where) < 0)
		return;
	b = lbd_cfg_push(ctx, &px->fe.binds, &px->fe.nbinds, sizeof(*b));
	if (b) {
		b->addr = addr;
		b->line = line;
		b->v6only = -1;
	}
}

/* ADDR[,ADDR...] */
void lbd_cfg_bind_list(struct cfg_ctx *ctx, struct cfg_proxy *px, const char *list, unsigned line)
{
	const char *p = list, *comma;
	char one[CPHA_ADDR_STRLEN + 16];
	size_t len;

	for (;;) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == 0 || len >= sizeof(one)) {
			lbd_cfg_err(ctx, line, "bind address list '%s' has %s address (%s)", list,
				len ? "a too long" : "an empty", lbd_cfg_where(ctx, px));
		} else {
			memcpy(one, p, len);
			one[len] = '\0';
			cfg_bind_one(ctx, px, one, line);
		}
		if (!comma)
			break;
		p = comma + 1;
	}
}

void lbd_cfg_bind_line(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	size_t first, i;
	int v6only = -1;

	if (a->n < 2) {
		lbd_cfg_err(ctx, a->line, "'bind' needs an address (%s)", lbd_cfg_where(ctx, px));
		return;
	}
	first = px->fe.nbinds;
	lbd_cfg_bind_list(ctx, px, a->v[1], a->line);
	/* HAProxy: v4v6 also accepts IPv4 on an IPv6 socket, v6only refuses
	 * it; the last one written wins, and IPv4 sockets ignore both */
	for (i = 2; i < a->n; i++) {
		if (strcmp(a->v[i], "v4v6") == 0) {
			v6only = 0;
		} else if (strcmp(a->v[i], "v6only") == 0) {
			v6only = 1;
		} else if (strcmp(a->v[i], "name") == 0) {
			/* HAProxy names the listener in its per-listener stats
			 * (option socket-stats); lbd keeps none */
			if (i + 1 >= a->n) {
				lbd_cfg_err(ctx, a->line, "'bind %s': 'name' needs a name (%s)",
					a->v[1], lbd_cfg_where(ctx, px));
				return;
			}
			lbd_cfg_notice(ctx, a->line,
				"'bind %s ... name %s': lbd keeps no per-listener statistics, "
				"the name is ignored (%s)",
				a->v[1], a->v[i + 1], lbd_cfg_where(ctx, px));
			i++;
		} else {
			lbd_cfg_err(ctx, a->line,
				"'%s' is not supported by lbd on a bind line (%s)", a->v[i],
				lbd_cfg_where(ctx, px));
			return;
		}
	}
	for (i = first; i < px->fe.nbinds; i++)
		px->fe.binds[i].v6only = v6only;
}

/* The same address bound twice, or bound and used by metrics-bind. */
void lbd_cfg_bind_validate(struct cfg_ctx *ctx, const struct lbd_config *c)
{
	const struct lbd_frontend *f, *g;
	char buf[CPHA_ADDR_STRLEN];
	size_t i, j, k, l, n;

	for (i = 0; i < c->nfrontends; i++) {
		f = &c->frontends[i];
		for (j = 0; j < f->nbinds; j++) {
			/* every bind before this one, in file order */
			for (k = 0, l = 0, g = c->frontends; k <= i; k++, l = 0) {
				g = &c->frontends[k];
				n = k == i ? j : g->nbinds;
				for (; l < n; l++)
					if (cpha_addr_equal(&f->binds[j].addr, &g->binds[l].addr))
						break;
				if (l < n)
					break;
			}
			if (k <= i)
				lbd_cfg_err(ctx, f->binds[j].line,
					"bind address %s is already used by %s '%s' at %s:%u",
					cpha_addr_format(&f->binds[j].addr, buf, sizeof(buf)),
					g->from_listen ? "listen" : "frontend", g->name, ctx->file,
					g->binds[l].line);
			if (c->global.metrics_set &&
				cpha_addr_equal(&f->binds[j].addr, &c->global.metrics))
				lbd_cfg_err(ctx, ctx->metrics_line,
					"metrics-bind %s is already used by %s '%s' at %s:%u",
					cpha_addr_format(&c->global.metrics, buf, sizeof(buf)),
					f->from_listen ? "listen" : "frontend", f->name, ctx->file,
					f->binds[j].line);
		}
	}
}
