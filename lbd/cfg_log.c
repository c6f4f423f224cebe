/* Log targets: "log" lines of the global and proxy sections (syslog over
 * UDP or a UNIX socket, stdout, stderr), copying them into a section, and
 * a frontend's log-format string. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "cfg_ctx.h"
#include "logformat.h"

void lbd_cfg_logs_free(struct lbd_log_target *logs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(logs[i].path);
	free(logs);
}

int lbd_cfg_logs_append(struct cfg_ctx *ctx, struct lbd_log_target **dst, size_t *n,
	const struct lbd_log_target *src, size_t nsrc)
{
	struct lbd_log_target *t;
	size_t i;

	for (i = 0; i < nsrc; i++) {
		t = lbd_cfg_push(ctx, dst, n, sizeof(*t));
		if (!t)
			return -1;
		*t = src[i];
		t->path = NULL;
		if (src[i].path && !(t->path = lbd_cfg_strdup(ctx, src[i].path)))
			return -1;
	}
	return 0;
}

static const char *const cfg_facilities[] = { "kern", "user", "mail", "daemon", "auth", "syslog",
	"lpr", "news", "uucp", "cron", "auth2", "ftp", "ntp", "audit", "alert", "cron2", "local0",
	"local1", "local2", "local3", "local4", "local5", "local6", "local7", NULL };
static const char *const cfg_levels[] = { "emerg", "alert", "crit", "err", "warning", "notice",
	"info", "debug", NULL };
static const char *const cfg_log_formats[] = { "rfc3164", "rfc5424", "short", "raw", NULL };

/* log TARGET [len N] [format F] FACILITY [LEVEL [MINLEVEL]] */
void lbd_cfg_log(struct cfg_ctx *ctx, const struct cfg_args *a, struct lbd_log_target **logs,
	size_t *n, const char *where)
{
	struct lbd_log_target t, *p;
	const char *tg;
	char buf[CPHA_ADDR_STRLEN + 16];
	unsigned long long v;
	size_t i = 2;
	int k;

	memset(&t, 0, sizeof(t));
	t.line = a->line;
	t.max_level = LOG_DEBUG;
	t.min_level = LOG_EMERG;
	t.maxlen = 1024;
	if (a->n < 3) {
		lbd_cfg_err(ctx, a->line, "'log' needs a target and a facility (%s)", where);
		return;
	}
	tg = a->v[1];
	if (strcmp(tg, "stdout") == 0) {
		t.kind = LBD_LOG_STDOUT;
	} else if (strcmp(tg, "stderr") == 0) {
		t.kind = LBD_LOG_STDERR;
	} else if (tg[0] == '/') {
		if (strlen(tg) > CFG_UNIX_PATH_MAX) {
			lbd_cfg_err(ctx, a->line,
				"log target '%s' is too long for a UNIX socket (%s)", tg, where);
			return;
		}
		t.kind = LBD_LOG_SYSLOG;
	} else if (strlen(tg) >= sizeof(buf)) {
		lbd_cfg_err(ctx, a->line, "log target '%s' is too long (%s)", tg, where);
		return;
	} else {
		if (lbd_cfg_addr_prefix(tg, "udp", buf, sizeof(buf)) < 0) {
			lbd_cfg_err(ctx, a->line,
				"log target '%s' is not supported by lbd (stdout, stderr, a UNIX "
				"socket path or a UDP address) (%s)",
				tg, where);
			return;
		}
		if (lbd_cfg_addr(ctx, a->line, "log target", buf, CPHA_ADDR_PORT_OPTIONAL, &t.addr,
			    where) < 0)
			return;
		if (t.addr.flags & CPHA_ADDR_F_ANY) {
			lbd_cfg_err(ctx, a->line, "log target '%s' is a wildcard address (%s)", tg,
				where);
			return;
		}
		if (!cpha_addr_port(&t.addr))
			cpha_addr_set_port(&t.addr, 514);
		t.kind = LBD_LOG_SYSLOG;
	}
	for (; i + 1 < a->n; i += 2) {
		if (strcmp(a->v[i], "len") == 0) {
			if (lbd_cfg_uint(
				    ctx, a->line, "log len", a->v[i + 1], 80, 65535, &v, where))
				return;
			t.maxlen = (unsigned)v;
		} else if (strcmp(a->v[i], "format") == 0) {
			k = lbd_cfg_lookup(cfg_log_formats, a->v[i + 1]);
			if (k < 0) {
				lbd_cfg_err(ctx, a->line,
					"'log format %s' is not supported by lbd (raw, rfc3164, "
					"rfc5424 or short) (%s)",
					a->v[i + 1], where);
				return;
			}
			t.format = (enum lbd_log_format)k;
			t.format_raw = t.format == LBD_LOG_FMT_RAW;
		} else if (strcmp(a->v[i], "sample") == 0 || strcmp(a->v[i], "profile") == 0) {
			lbd_cfg_err(ctx, a->line, "'log ... %s' is not supported by lbd (%s)",
				a->v[i], where);
			return;
		} else {
			break;
		}
	}
	if (i >= a->n) {
		lbd_cfg_err(ctx, a->line, "'log' needs a facility (%s)", where);
		return;
	}
	k = lbd_cfg_lookup(cfg_facilities, a->v[i]);
	if (k < 0) {
		lbd_cfg_err(ctx, a->line, "unknown log facility '%s' (%s)", a->v[i], where);
		return;
	}
	t.facility = k << 3;
	if (++i < a->n) {
		if ((k = lbd_cfg_lookup(cfg_levels, a->v[i])) < 0) {
			lbd_cfg_err(ctx, a->line, "unknown log level '%s' (%s)", a->v[i], where);
			return;
		}
		t.max_level = k;
	}
	if (i < a->n && ++i < a->n) {
		if ((k = lbd_cfg_lookup(cfg_levels, a->v[i])) < 0) {
			lbd_cfg_err(ctx, a->line, "unknown log level '%s' (%s)", a->v[i], where);
			return;
		}
		t.min_level = k;
	}
	if (i < a->n && ++i < a->n) {
		lbd_cfg_err(ctx, a->line, "'log': unexpected '%s' (%s)", a->v[i], where);
		return;
	}
	if (t.kind == LBD_LOG_SYSLOG && tg[0] == '/' && !(t.path = lbd_cfg_strdup(ctx, tg)))
		return;
	p = lbd_cfg_push(ctx, logs, n, sizeof(*p));
	if (!p) {
		free(t.path);
		return;
	}
	*p = t;
}

/* log-format STRING: the string is checked when the section ends, against
 * its final mode, as HAProxy does. */
void lbd_cfg_log_format_line(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	const char *where = lbd_cfg_where(ctx, px);

	if (a->n < 2) {
		lbd_cfg_err(ctx, a->line, "'log-format' expects an argument (%s)", where);
		return;
	}
	if (a->n > 2) {
		lbd_cfg_err(ctx, a->line,
			"'log-format' expects only one argument; put the format between "
			"quotes or escape its spaces (%s)",
			where);
		return;
	}
	if (!(px->cap & (CFG_CAP_FE | CFG_CAP_DEF))) {
		lbd_cfg_notice(ctx, a->line,
			"'log-format' is ignored in backends (%s), as HAProxy does", where);
		return;
	}
	if (px->cap == CFG_CAP_DEF && (px->fe.log_format || (px->opts & CFG_PXO_TCPLOG)))
		lbd_cfg_notice(ctx, a->line, "'log-format' overrides previous '%s' in %s",
			px->fe.log_format ? "log-format" : "option tcplog", where);
	free(px->fe.log_format);
	px->fe.log_format = lbd_cfg_strdup(ctx, a->v[1]);
	px->fe.log_format_line = a->line;
	px->opts &= ~(uint32_t)CFG_PXO_TCPLOG;
}

void lbd_cfg_log_format_finalize(struct cfg_ctx *ctx, struct cfg_proxy *px)
{
	struct lf_format f;
	char err[256], warn[256];

	if (!px->fe.log_format)
		return;
	if (lf_compile(px->fe.log_format, &f, err, sizeof(err), warn, sizeof(warn)) < 0) {
		lbd_cfg_err(ctx, px->fe.log_format_line, "log-format of %s: %s",
			lbd_cfg_where(ctx, px), err);
		return;
	}
	if (warn[0])
		lbd_cfg_notice(
			ctx, px->fe.log_format_line, "%s (%s)", warn, lbd_cfg_where(ctx, px));
	lf_free(&f);
}

/* log global | log TARGET ... in a proxy section */
void lbd_cfg_log_line(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	const char *where = lbd_cfg_where(ctx, px);
	struct lbd_log_target *tmp = NULL;
	size_t ntmp = 0;

	if (px->cap == CFG_CAP_BE && !px->log_noticed) {
		lbd_cfg_notice(ctx, a->line,
			"'log' in %s has no effect: lbd writes server state changes to its own log",
			where);
		px->log_noticed = 1;
	}
	if (a->n == 2 && strcmp(a->v[1], "global") == 0)
		lbd_cfg_logs_append(ctx, &tmp, &ntmp, ctx->global.logs, ctx->global.nlogs);
	else
		lbd_cfg_log(ctx, a, &tmp, &ntmp, where);
	if (px->cap != CFG_CAP_BE)
		lbd_cfg_logs_append(ctx, &px->fe.logs, &px->fe.nlogs, tmp, ntmp);
	lbd_cfg_logs_free(tmp, ntmp);
}
