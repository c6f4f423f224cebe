/* "[no] option NAME" in proxy sections: one table row per option, as in
 * HAProxy's cfg_opts. An option written where HAProxy's capabilities do not
 * allow it is warned about and ignored, as HAProxy does. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg_ctx.h"

/* Where the int a boolean option is written at the section's end. */
enum cfg_opt_field {
	CFG_OPT_NONE, /* nowhere: see the comment of the row */
	CFG_OPT_FE,   /* an int in struct lbd_frontend */
	CFG_OPT_BE,   /* an int in struct lbd_backend */
};

struct cfg_opt {
	struct cpha_cfgkw kw; /* name, and the CFG_CAP_* where HAProxy honours it */
	int no_ok;            /* "no option NAME" is meaningful for lbd */
	uint32_t bit;         /* CFG_PXO_*: 0 for an option with arguments (fn) */
	enum cfg_opt_field field;
	size_t off; /* CFG_OPT_FE / CFG_OPT_BE */
	/* called after the bit is set, or instead of setting one */
	void (*fn)(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a);
};

#define CFG_DEF_FE (CFG_CAP_DEF | CFG_CAP_FE)
#define CFG_DEF_BE (CFG_CAP_DEF | CFG_CAP_BE)
#define CFG_ALL    (CFG_CAP_DEF | CFG_CAP_FE | CFG_CAP_BE)

#define FE(field) CFG_OPT_FE, offsetof(struct lbd_frontend, field)
#define BE(field) CFG_OPT_BE, offsetof(struct lbd_backend, field)

/* option tcplog: the last of it and log-format wins, as in HAProxy, which
 * warns when one replaces the other in a defaults section */
static void cfg_option_tcplog(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	if (px->cap == CFG_CAP_DEF && px->fe.log_format)
		lbd_cfg_notice(ctx, a->line,
			"'option tcplog' overrides previous 'log-format' in %s",
			lbd_cfg_where(ctx, px));
	free(px->fe.log_format);
	px->fe.log_format = NULL;
}

static const struct cfg_opt cfg_opts[] = {
	{ { "tcplog", CFG_DEF_FE }, 0, CFG_PXO_TCPLOG, FE(tcplog), cfg_option_tcplog },
	{ { "dontlog-normal", CFG_DEF_FE }, 1, CFG_PXO_DONTLOG_NORMAL, FE(dontlog_normal), NULL },
	{ { "tcp-smart-accept", CFG_DEF_FE }, 1, CFG_PXO_SMART_ACCEPT, FE(smart_accept), NULL },
	{ { "dontlognull", CFG_DEF_FE }, 1, CFG_PXO_DONTLOGNULL, FE(dontlognull), NULL },
	{ { "redispatch", CFG_DEF_BE }, 1, CFG_PXO_REDISPATCH, BE(redispatch), NULL },
	{ { "persist", CFG_DEF_BE }, 1, CFG_PXO_PERSIST, BE(persist), NULL },
	{ { "tcp-smart-connect", CFG_DEF_BE }, 1, CFG_PXO_SMART_CONNECT, BE(smart_connect), NULL },
	{ { "log-health-checks", CFG_DEF_BE }, 1, CFG_PXO_LOG_HEALTH_CHECKS, BE(log_health_checks),
		NULL },
	{ { "tcp-check", CFG_DEF_BE }, 0, 0, CFG_OPT_NONE, 0, lbd_cfg_check_option_tcp },
	{ { "httpchk", CFG_DEF_BE }, 0, 0, CFG_OPT_NONE, 0, lbd_cfg_check_option_http },
	{ { "ssl-hello-chk", CFG_DEF_BE }, 0, 0, CFG_OPT_NONE, 0, lbd_cfg_check_option_ssl_hello },
	/* SO_KEEPALIVE: lbd sets it on every client and server socket, so the
	 * options are what lbd does anyway and their "no" forms cannot be had */
	{ { "tcpka", CFG_ALL }, 0, 0, CFG_OPT_NONE, 0, NULL },
	{ { "clitcpka", CFG_DEF_FE }, 0, 0, CFG_OPT_NONE, 0, NULL },
	{ { "srvtcpka", CFG_DEF_BE }, 0, 0, CFG_OPT_NONE, 0, NULL },
};

#define CFG_NOPTS (sizeof(cfg_opts) / sizeof(cfg_opts[0]))

/* The section's option bits into the fields the runtime reads. */
void lbd_cfg_option_apply(struct cfg_proxy *px)
{
	size_t i;

	for (i = 0; i < CFG_NOPTS; i++) {
		const struct cfg_opt *o = &cfg_opts[i];
		char *base;

		if (!o->bit || o->field == CFG_OPT_NONE)
			continue;
		base = o->field == CFG_OPT_FE ? (char *)&px->fe : (char *)&px->be;
		*(int *)(base + o->off) = (px->opts & o->bit) != 0;
	}
}

/* [no] option NAME ... */
void lbd_cfg_option_line(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	int no = strcmp(a->v[0], "no") == 0;
	size_t nkw = no ? 3 : 2;
	const char *where = lbd_cfg_where(ctx, px), *name;
	const struct cfg_opt *o = NULL;
	const void *row;
	int r;

	if (a->n < nkw) {
		lbd_cfg_err(ctx, a->line, "'%soption' needs a name (%s)", no ? "no " : "", where);
		return;
	}
	name = a->v[nkw - 1];
	r = cpha_cfgkw_find(cfg_opts, CFG_NOPTS, sizeof(cfg_opts[0]), name, px->cap, &row);
	o = row;
	if (!o || (no && !o->no_ok)) {
		lbd_cfg_err(ctx, a->line, "'%soption %s' is not supported by lbd in %s",
			no ? "no " : "", name, where);
		return;
	}
	if (r == -EPERM) {
		lbd_cfg_notice(ctx, a->line,
			"'option %s' has no effect in a %s section; ignored (HAProxy warns too)",
			name, px->kind);
		return;
	}
	if (!o->bit) {
		if (o->fn)
			o->fn(ctx, px, a); /* options with arguments check their own */
		else
			lbd_cfg_nargs(ctx, a, nkw, 0, 0, where);
		return;
	}
	if (lbd_cfg_nargs(ctx, a, nkw, 0, 0, where) < 0)
		return;
	if (no)
		px->opts &= ~o->bit;
	else
		px->opts |= o->bit;
	if (o->fn && !no)
		o->fn(ctx, px, a);
}
