/* "[no] option NAME" in proxy sections: one table row per option, as in
 * HAProxy's cfg_opts. An option written where HAProxy's capabilities do not
 * allow it is warned about and ignored, as HAProxy does. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg-internal.h"

/* Where the int an option sets lives. */
enum cfg_opt_field {
	CFG_OPT_NONE, /* no flag: accepted, see the comment of the row */
	CFG_OPT_FE,   /* an int in struct lbd_frontend */
	CFG_OPT_BE,   /* an int in struct lbd_backend */
	CFG_OPT_FN,   /* parsed by fn */
};

struct cfg_opt {
	struct cpha_cfgkw kw; /* name, and the CFG_CAP_* where HAProxy honours it */
	int no_ok;            /* "no option NAME" is meaningful for lbd */
	enum cfg_opt_field field;
	size_t off; /* CFG_OPT_FE / CFG_OPT_BE */
	void (*fn)(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a);
};

#define CFG_DEF_FE (CFG_CAP_DEF | CFG_CAP_FE)
#define CFG_DEF_BE (CFG_CAP_DEF | CFG_CAP_BE)
#define CFG_ALL    (CFG_CAP_DEF | CFG_CAP_FE | CFG_CAP_BE)

/* option tcplog: the last of it and log-format wins, as in HAProxy, which
 * warns when one replaces the other in a defaults section */
static void cfg_option_tcplog(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	const char *where = lbd_cfg_where(ctx, px);

	if (lbd_cfg_nargs(ctx, a, 2, 0, 0, where) < 0)
		return;
	if (px->cap == CFG_CAP_DEF && px->fe.log_format)
		lbd_cfg_notice(ctx, a->line,
			"'option tcplog' overrides previous 'log-format' in %s", where);
	free(px->fe.log_format);
	px->fe.log_format = NULL;
	px->fe.tcplog = 1;
}

static const struct cfg_opt cfg_opts[] = {
	{ { "tcplog", CFG_DEF_FE }, 0, CFG_OPT_FN, 0, cfg_option_tcplog },
	{ { "dontlog-normal", CFG_DEF_FE }, 1, CFG_OPT_FE,
		offsetof(struct lbd_frontend, dontlog_normal), NULL },
	{ { "tcp-smart-accept", CFG_DEF_FE }, 1, CFG_OPT_FE,
		offsetof(struct lbd_frontend, smart_accept), NULL },
	{ { "dontlognull", CFG_DEF_FE }, 1, CFG_OPT_FE, offsetof(struct lbd_frontend, dontlognull),
		NULL },
	{ { "redispatch", CFG_DEF_BE }, 1, CFG_OPT_BE, offsetof(struct lbd_backend, redispatch),
		NULL },
	{ { "tcp-check", CFG_DEF_BE }, 0, CFG_OPT_FN, 0, lbd_cfg_check_option_tcp },
	{ { "httpchk", CFG_DEF_BE }, 0, CFG_OPT_FN, 0, lbd_cfg_check_option_http },
	{ { "ssl-hello-chk", CFG_DEF_BE }, 0, CFG_OPT_FN, 0, lbd_cfg_check_option_ssl_hello },
	{ { "log-health-checks", CFG_DEF_BE }, 1, CFG_OPT_BE,
		offsetof(struct lbd_backend, log_health_checks), NULL },
	/* SO_KEEPALIVE: lbd sets it on every client and server socket, so the
	 * options are what lbd does anyway and their "no" forms cannot be had */
	{ { "tcpka", CFG_ALL }, 0, CFG_OPT_NONE, 0, NULL },
	{ { "clitcpka", CFG_DEF_FE }, 0, CFG_OPT_NONE, 0, NULL },
	{ { "srvtcpka", CFG_DEF_BE }, 0, CFG_OPT_NONE, 0, NULL },
};

/* Options HAProxy implements in TCP mode that lbd does not do yet. */
static const struct {
	const char *name;
	const char *why;
} cfg_opts_todo[] = {
	{ "tcp-smart-connect", "its server connections do not hold back the first ACK yet" },
};

/* [no] option NAME ... */
void lbd_cfg_option_line(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	int no = strcmp(a->v[0], "no") == 0;
	size_t nkw = no ? 3 : 2, i;
	const char *where = lbd_cfg_where(ctx, px), *name;
	const struct cfg_opt *o = NULL;
	const void *row;
	char *base;
	int r;

	if (a->n < nkw) {
		lbd_cfg_err(ctx, a->line, "'%soption' needs a name (%s)", no ? "no " : "", where);
		return;
	}
	name = a->v[nkw - 1];
	r = cpha_cfgkw_find(cfg_opts, sizeof(cfg_opts) / sizeof(cfg_opts[0]), sizeof(cfg_opts[0]),
		name, px->cap, &row);
	o = row;
	for (i = 0; i < sizeof(cfg_opts_todo) / sizeof(cfg_opts_todo[0]) && !o; i++)
		if (strcmp(cfg_opts_todo[i].name, name) == 0) {
			lbd_cfg_err(ctx, a->line,
				"'%soption %s' is not supported by lbd yet: %s (%s)",
				no ? "no " : "", name, cfg_opts_todo[i].why, where);
			return;
		}
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
	if (o->field == CFG_OPT_FN) {
		o->fn(ctx, px, a);
		return;
	}
	if (lbd_cfg_nargs(ctx, a, nkw, 0, 0, where) < 0 || o->field == CFG_OPT_NONE)
		return;
	base = o->field == CFG_OPT_FE ? (char *)&px->fe : (char *)&px->be;
	*(int *)(base + o->off) = !no;
}
