/* Where lbd listens and connects: server and default-server lines (the
 * HAProxy server options lbd implements, inheritance from default-server,
 * the per-server checks that need the whole backend), bind addresses, log
 * targets and the global section (stats socket, metrics-bind, the servers'
 * TLS defaults), plus the value parsers every section uses (numbers, times,
 * addresses, names). */
#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "duration.h"
#include "cfg-internal.h"
#include "logformat.h"

int lbd_cfg_uint(struct cfg_ctx *ctx, unsigned line, const char *what, const char *s,
	unsigned long long min, unsigned long long max, unsigned long long *out, const char *where)
{
	unsigned long long v = 0;
	const char *p;

	for (p = s; *p; p++) {
		if (*p < '0' || *p > '9') {
			lbd_cfg_err(ctx, line,
				"'%s' needs a number from %llu to %llu, not '%s' (%s)", what, min,
				max, s, where);
			return -1;
		}
		if (v > max)
			continue; /* out of range anyway; avoids overflow */
		v = v * 10 + (unsigned long long)(*p - '0');
	}
	if (p == s) {
		lbd_cfg_err(ctx, line, "'%s' needs a number from %llu to %llu (%s)", what, min, max,
			where);
		return -1;
	}
	if (v < min || v > max) {
		lbd_cfg_err(ctx, line, "'%s' must be %llu to %llu (%s)", what, min, max, where);
		return -1;
	}
	*out = v;
	return 0;
}

int lbd_cfg_time(struct cfg_ctx *ctx, unsigned line, const char *what, const char *s,
	uint64_t *usec, const char *where)
{
	const char *why = NULL;
	uint64_t v;

	if (cpha_parse_duration(s, CPHA_USEC_PER_MSEC, &v, &why) < 0) {
		lbd_cfg_err(ctx, line, "'%s': %s, not '%s' (%s)", what, why, s, where);
		return -1;
	}
	if (v > CFG_TIME_MAX) {
		lbd_cfg_err(ctx, line,
			"'%s' is too large: at most 2147483647ms, about 24.8 days (%s)", what,
			where);
		return -1;
	}
	*usec = v;
	return 0;
}

/* The host part of an address has letters where an IP address has none. */
int lbd_cfg_is_hostname(const char *s)
{
	const char *at = strchr(s, '@'), *c1, *c2;
	size_t hl, i;

	if (at)
		s = at + 1;
	if (*s == '[')
		return 0;
	c1 = strchr(s, ':');
	c2 = strrchr(s, ':');
	if (c1 != c2)
		return 0; /* IPv6 */
	hl = c1 ? (size_t)(c1 - s) : strlen(s);
	for (i = 0; i < hl; i++)
		if (isalpha((unsigned char)s[i]) || s[i] == '-' || s[i] == '_')
			return 1;
	return 0;
}

/* The port part of an address ("" if none). */
static const char *cfg_port_part(const char *s)
{
	const char *b = strchr(s, ']'), *c;

	if (b)
		return b[1] == ':' ? b + 2 : "";
	c = strrchr(s, ':');
	return c ? c + 1 : "";
}

int lbd_cfg_addr(struct cfg_ctx *ctx, unsigned line, const char *what, const char *s,
	unsigned flags, struct cpha_addr *a, const char *where)
{
	const char *why = NULL, *port = cfg_port_part(s);

	if (s[0] == '/' || (strchr(s, '@') && strncmp(s, "ipv4@", 5) && strncmp(s, "ipv6@", 5))) {
		lbd_cfg_err(ctx, line, "%s '%s': lbd only supports IPv4 and IPv6 addresses (%s)",
			what, s, where);
		return -1;
	}
	if (strchr(s, '$')) {
		lbd_cfg_err(ctx, line,
			"%s '%s': environment variables are only expanded inside double quotes "
			"(%s)",
			what, s, where);
		return -1;
	}
	if (lbd_cfg_is_hostname(s)) {
		lbd_cfg_err(ctx, line, "%s '%s' is a host name; lbd needs a numeric address (%s)",
			what, s, where);
		return -1;
	}
	if (strchr(port, '-') && port[0] != '-' && port[0] != '+') {
		lbd_cfg_err(ctx, line, "%s '%s': port ranges are not supported by lbd (%s)", what,
			s, where);
		return -1;
	}
	if (port[0] == '+' || port[0] == '-') {
		lbd_cfg_err(ctx, line, "%s '%s': port offsets are not supported by lbd (%s)", what,
			s, where);
		return -1;
	}
	if (cpha_parse_addr(s, flags, a, &why) < 0) {
		lbd_cfg_err(ctx, line, "%s '%s': %s (%s)", what, s, why, where);
		return -1;
	}
	return 0;
}

/* HAProxy's invalid_char(): names hold letters, digits, '-', '_', '.', ':'. */
int lbd_cfg_name_ok(struct cfg_ctx *ctx, unsigned line, const char *what, const char *name)
{
	const char *p;

	if (!*name) {
		lbd_cfg_err(ctx, line, "%s name is empty", what);
		return 0;
	}
	for (p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("-_.:", *p)) {
			lbd_cfg_err(ctx, line, "character '%c' is not permitted in %s name '%s'",
				*p, what, name);
			return 0;
		}
	return 1;
}

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

int lbd_cfg_lookup(const char *const *names, const char *s)
{
	int i;

	for (i = 0; names[i]; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}

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
		if (strncmp(tg, "udp@", 4) == 0)
			snprintf(buf, sizeof(buf), "%s", tg + 4);
		else if (strncmp(tg, "udp4@", 5) == 0 || strncmp(tg, "udp6@", 5) == 0)
			snprintf(buf, sizeof(buf), "ipv%c@%s", tg[3], tg + 5);
		else
			snprintf(buf, sizeof(buf), "%s", tg);
		if (strchr(buf, '@') && strncmp(buf, "ipv4@", 5) && strncmp(buf, "ipv6@", 5)) {
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

static void cfg_bind_one(struct cfg_ctx *ctx, struct cfg_proxy *px, const char *s, unsigned line)
{
	const char *where = lbd_cfg_where(ctx, px);
	char buf[CPHA_ADDR_STRLEN + 16];
	struct lbd_bind *b;
	struct cpha_addr addr;

	if (strncmp(s, "tcp@", 4) == 0)
		snprintf(buf, sizeof(buf), "%s", s + 4);
	else if (strncmp(s, "tcp4@", 5) == 0 || strncmp(s, "tcp6@", 5) == 0)
		snprintf(buf, sizeof(buf), "ipv%c@%s", s[3], s + 5);
	else
		snprintf(buf, sizeof(buf), "%s", s);
	if (s[0] == '/' ||
		(strchr(buf, '@') && strncmp(buf, "ipv4@", 5) && strncmp(buf, "ipv6@", 5))) {
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

#define CFG_SO(f) offsetof(struct lbd_server_opts, f)

/* Options without a value. */
static const struct {
	const char *name;
	uint64_t bit;
	size_t off; /* of an int */
	int val;
} cfg_sflags[] = {
	{ "check", LBD_SO_CHECK, CFG_SO(check), 1 },
	{ "no-check", LBD_SO_CHECK, CFG_SO(check), 0 },
	{ "check-ssl", LBD_SO_CHECK_SSL, CFG_SO(check_ssl), 1 },
	{ "no-check-ssl", LBD_SO_CHECK_SSL, CFG_SO(check_ssl), 0 },
	{ "backup", LBD_SO_BACKUP, CFG_SO(backup), 1 },
	{ "no-backup", LBD_SO_BACKUP, CFG_SO(backup), 0 },
	{ "disabled", LBD_SO_DISABLED, CFG_SO(disabled), 1 },
	{ "enabled", LBD_SO_DISABLED, CFG_SO(disabled), 0 },
	{ "send-proxy", LBD_SO_SEND_PROXY, CFG_SO(send_proxy), 1 },
	{ "no-send-proxy", LBD_SO_SEND_PROXY, CFG_SO(send_proxy), 0 },
	{ "send-proxy-v2", LBD_SO_SEND_PROXY_V2, CFG_SO(send_proxy_v2), 1 },
	{ "no-send-proxy-v2", LBD_SO_SEND_PROXY_V2, CFG_SO(send_proxy_v2), 0 },
};

/* Options taking a time (HAProxy units, milliseconds by default). */
static const struct {
	const char *name;
	uint64_t bit;
	size_t off; /* of a uint64_t */
	int positive;
} cfg_stimes[] = {
	{ "inter", LBD_SO_INTER, CFG_SO(inter), 1 },
	{ "fastinter", LBD_SO_FASTINTER, CFG_SO(fastinter), 1 },
	{ "downinter", LBD_SO_DOWNINTER, CFG_SO(downinter), 1 },
	{ "slowstart", LBD_SO_SLOWSTART, CFG_SO(slowstart), 0 },
	{ "shutdown-sessions-spread", LBD_SO_SPREAD, CFG_SO(shutdown_spread), 0 },
};

/* Options taking a number. */
static const struct {
	const char *name;
	uint64_t bit;
	size_t off; /* of an unsigned */
	unsigned long long min, max;
} cfg_suints[] = {
	{ "rise", LBD_SO_RISE, CFG_SO(rise), 1, 1000000 },
	{ "fall", LBD_SO_FALL, CFG_SO(fall), 1, 1000000 },
	{ "maxconn", LBD_SO_MAXCONN, CFG_SO(maxconn), 0, 10000000 },
	{ "maxqueue", LBD_SO_MAXQUEUE, CFG_SO(maxqueue), 0, 10000000 },
	{ "weight", LBD_SO_WEIGHT, CFG_SO(weight), 0, 256 },
};

/* ca-file and crt: relative paths are taken from ca-base / crt-base, as
 * HAProxy does, and the file must be readable now. */
static void cfg_server_path(struct cfg_ctx *ctx, unsigned line, const char *opt, const char *val,
	char **dst, const char *where)
{
	const char *base = strcmp(opt, "ca-file") == 0 ? ctx->ca_base : ctx->crt_base;
	size_t len;
	char *p;

	if (!val[0]) {
		lbd_cfg_err(ctx, line, "'%s' needs a file name (%s)", opt, where);
		return;
	}
	if (val[0] != '/' && val[0] != '@' && base) {
		len = strlen(base) + strlen(val) + 2;
		p = malloc(len);
		if (p)
			snprintf(p, len, "%s/%s", base, val);
	} else {
		p = strdup(val);
	}
	if (!p) {
		lbd_cfg_oom(ctx);
		return;
	}
	/* "@system-ca" and the like name no file */
	if (p[0] != '@' && access(p, R_OK) == -1)
		lbd_cfg_err(ctx, line, "'%s' %s: %s (%s)", opt, p, strerror(errno), where);
	free(*dst);
	*dst = p;
}

#define CFG_N(t) (sizeof(t) / sizeof((t)[0]))

/* A known option that takes a value. */
static int cfg_server_valued(const char *kw)
{
	static const char *const others[] = { "verify", "ca-file", "crt", "on-marked-down",
		"on-marked-up", "port", "addr" };
	size_t k;

	for (k = 0; k < CFG_N(cfg_stimes); k++)
		if (strcmp(kw, cfg_stimes[k].name) == 0)
			return 1;
	for (k = 0; k < CFG_N(cfg_suints); k++)
		if (strcmp(kw, cfg_suints[k].name) == 0)
			return 1;
	for (k = 0; k < CFG_N(others); k++)
		if (strcmp(kw, others[k]) == 0)
			return 1;
	return 0;
}

/* Options from a->v[i] on, over o. */
static void cfg_server_opts(struct cfg_ctx *ctx, const struct cfg_args *a, size_t i,
	struct lbd_server_opts *o, const char *where)
{
	unsigned long long v;
	const char *kw, *val;
	uint64_t t;
	size_t k;

	for (; i < a->n; i++) {
		kw = a->v[i];
		val = i + 1 < a->n ? a->v[i + 1] : NULL;
		for (k = 0; k < CFG_N(cfg_sflags); k++)
			if (strcmp(kw, cfg_sflags[k].name) == 0)
				break;
		if (k < CFG_N(cfg_sflags)) {
			*(int *)((char *)o + cfg_sflags[k].off) = cfg_sflags[k].val;
			o->set |= cfg_sflags[k].bit;
			continue;
		}
		if (lbd_cfg_resolve_server_opt(ctx, a, &i, o, where))
			continue;
		if (!cfg_server_valued(kw)) {
			/* its value, if it takes one, is unknown: stop here */
			lbd_cfg_err(ctx, a->line, "'%s' is not supported by lbd (%s)", kw, where);
			return;
		}
		if (!val) {
			lbd_cfg_err(ctx, a->line, "'%s' needs a value (%s)", kw, where);
			return;
		}
		i++;
		for (k = 0; k < CFG_N(cfg_stimes); k++)
			if (strcmp(kw, cfg_stimes[k].name) == 0)
				break;
		if (k < CFG_N(cfg_stimes)) {
			if (lbd_cfg_time(ctx, a->line, kw, val, &t, where) < 0)
				continue;
			if (cfg_stimes[k].positive && t == 0) {
				lbd_cfg_err(
					ctx, a->line, "'%s' must be more than 0 (%s)", kw, where);
				continue;
			}
			*(uint64_t *)((char *)o + cfg_stimes[k].off) = t;
			o->set |= cfg_stimes[k].bit;
			continue;
		}
		for (k = 0; k < CFG_N(cfg_suints); k++)
			if (strcmp(kw, cfg_suints[k].name) == 0)
				break;
		if (k < CFG_N(cfg_suints)) {
			if (lbd_cfg_uint(ctx, a->line, kw, val, cfg_suints[k].min,
				    cfg_suints[k].max, &v, where) < 0)
				continue;
			*(unsigned *)((char *)o + cfg_suints[k].off) = (unsigned)v;
			o->set |= cfg_suints[k].bit;
			continue;
		}
		if (strcmp(kw, "verify") == 0) {
			if (strcmp(val, "none") && strcmp(val, "required")) {
				lbd_cfg_err(ctx, a->line,
					"'verify' must be none or required, not '%s' (%s)", val,
					where);
				continue;
			}
			o->verify = val[0] == 'n' ? LBD_VERIFY_NONE : LBD_VERIFY_REQUIRED;
			o->set |= LBD_SO_VERIFY;
		} else if (strcmp(kw, "ca-file") == 0) {
			cfg_server_path(ctx, a->line, kw, val, &o->ca_file, where);
			o->set |= LBD_SO_CA_FILE;
		} else if (strcmp(kw, "crt") == 0) {
			cfg_server_path(ctx, a->line, kw, val, &o->crt, where);
			o->set |= LBD_SO_CRT;
		} else if (strcmp(kw, "on-marked-down") == 0) {
			if (strcmp(val, "shutdown-sessions") != 0) {
				lbd_cfg_err(ctx, a->line,
					"'on-marked-down %s' is not supported by lbd (only "
					"shutdown-sessions) (%s)",
					val, where);
				continue;
			}
			o->on_down_shutdown = 1;
			o->set |= LBD_SO_ON_DOWN;
		} else if (strcmp(kw, "on-marked-up") == 0) {
			if (strcmp(val, "shutdown-backup-sessions") != 0) {
				lbd_cfg_err(ctx, a->line,
					"'on-marked-up %s' is not supported by lbd (only "
					"shutdown-backup-sessions) (%s)",
					val, where);
				continue;
			}
			o->on_up_shutdown_backup = 1;
			o->set |= LBD_SO_ON_UP;
		} else if (strcmp(kw, "port") == 0) {
			if (lbd_cfg_uint(ctx, a->line, kw, val, 1, 65535, &v, where) < 0)
				continue;
			o->check_port = (uint16_t)v;
			o->set |= LBD_SO_PORT;
		} else if (lbd_cfg_addr(ctx, a->line, "'addr'", val, CPHA_ADDR_PORT_NONE,
				   &o->check_addr, where) == 0) {
			o->check_addr_set = 1;
			o->set |= LBD_SO_ADDR;
		}
	}
}

int lbd_cfg_server_opts_copy(
	struct cfg_ctx *ctx, struct lbd_server_opts *dst, const struct lbd_server_opts *src)
{
	*dst = *src;
	dst->ca_file = dst->crt = NULL;
	if (src->ca_file && !(dst->ca_file = lbd_cfg_strdup(ctx, src->ca_file)))
		return -1;
	if (src->crt && !(dst->crt = lbd_cfg_strdup(ctx, src->crt)))
		return -1;
	return 0;
}

void lbd_cfg_server_opts_free(struct lbd_server_opts *o)
{
	free(o->ca_file);
	free(o->crt);
	o->ca_file = o->crt = NULL;
}

void lbd_cfg_server_free(struct lbd_server_cfg *s)
{
	free(s->name);
	free(s->hostname);
	lbd_cfg_server_opts_free(&s->o);
}

/* default-server OPTIONS... */
void lbd_cfg_server_default_line(
	struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	char where[300];

	snprintf(where, sizeof(where), "default-server in %s", lbd_cfg_where(ctx, px));
	cfg_server_opts(ctx, a, 1, &px->dsrv, where);
}

/* A server address that is a host name to resolve (cfg_resolve.c), not a
 * UNIX path, another protocol's prefix or an unexpanded variable, which
 * lbd_cfg_addr() refuses with the right message. */
static int cfg_server_named(const char *s)
{
	const char *at = strchr(s, '@');

	return lbd_cfg_is_hostname(s) && !strpbrk(s, "$/") &&
	       (!at || !strncmp(s, "ipv4@", 5) || !strncmp(s, "ipv6@", 5));
}

/* server NAME ADDRESS[:PORT] OPTIONS... */
void lbd_cfg_server_line(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	struct lbd_server_cfg *s;
	const char *name;
	char where[300];
	size_t i;

	if (a->n < 3) {
		lbd_cfg_err(ctx, a->line, "'server' needs a name and an address (%s)",
			lbd_cfg_where(ctx, px));
		return;
	}
	lbd_cfg_name_ok(ctx, a->line, "server", a->v[1]);
	for (i = 0; i < px->be.nservers; i++)
		if (strcmp(px->be.servers[i].name, a->v[1]) == 0) {
			lbd_cfg_err(ctx, a->line, "server '%s' is already defined in %s at %s:%u",
				a->v[1], lbd_cfg_where(ctx, px), ctx->file, px->be.servers[i].line);
			break; /* read on: its options may hold more errors */
		}
	s = lbd_cfg_push(ctx, &px->be.servers, &px->be.nservers, sizeof(*s));
	if (!s)
		return;
	s->id = (unsigned)px->be.nservers;
	s->line = a->line;
	if (!(s->name = lbd_cfg_strdup(ctx, a->v[1])) ||
		lbd_cfg_server_opts_copy(ctx, &s->o, &px->dsrv))
		return;
	snprintf(where, sizeof(where), "server %s/%s", px->name, a->v[1]);
	/* a host name is resolved once its init-addr and resolve-prefer are known */
	name = cfg_server_named(a->v[2]) ? a->v[2] : NULL;
	if (!name &&
		lbd_cfg_addr(ctx, a->line, "server address", a->v[2], CPHA_ADDR_PORT_OPTIONAL,
			&s->addr, where) == 0 &&
		(s->addr.flags & CPHA_ADDR_F_ANY))
		lbd_cfg_err(ctx, a->line,
			"server address '%s' is a wildcard; lbd needs the server's own address "
			"(%s)",
			a->v[2], where);
	cfg_server_opts(ctx, a, 3, &s->o, where);
	lbd_cfg_resolve_server(ctx, s, name, where);
}

/* Defaults for what was never written, then what needs the backend. */
void lbd_cfg_server_finalize(struct cfg_ctx *ctx, struct cfg_proxy *px)
{
	struct lbd_server_cfg *s;
	struct lbd_server_opts *o;
	char where[300];
	size_t i;

	for (i = 0; i < px->be.nservers; i++) {
		s = &px->be.servers[i];
		o = &s->o;
		snprintf(where, sizeof(where), "server %s/%s", px->name, s->name);
		if (!cpha_addr_family(&s->addr))
			continue; /* its address was refused: nothing more to say */
		if (!(o->set & LBD_SO_INTER))
			o->inter = 2 * CPHA_USEC_PER_SEC;
		if (!(o->set & LBD_SO_FASTINTER))
			o->fastinter = o->inter;
		if (!(o->set & LBD_SO_DOWNINTER))
			o->downinter = o->inter;
		if (!(o->set & LBD_SO_RISE))
			o->rise = 2;
		if (!(o->set & LBD_SO_FALL))
			o->fall = 3;
		if (!(o->set & LBD_SO_WEIGHT))
			o->weight = 1;
		if (o->verify == LBD_VERIFY_DEFAULT)
			o->verify = ctx->ssl_verify_none ? LBD_VERIFY_NONE : LBD_VERIFY_REQUIRED;
		if (o->check && !cpha_addr_port(&s->addr) && !o->check_port &&
			!lbd_cfg_check_has_port(&px->be))
			lbd_cfg_err(ctx, s->line,
				"health checks need a port: %s has none (write ADDRESS:PORT or "
				"'port N')",
				where);
		/* HAProxy refuses the same, even for a server without 'check' */
		if ((o->check_ssl || lbd_cfg_check_uses_tls(&px->be)) &&
			o->verify == LBD_VERIFY_REQUIRED && !o->ca_file)
			lbd_cfg_err(ctx, s->line,
				"verify is %s but no CA file specified; set 'verify none' or "
				"'ca-file' (%s)",
				o->set & LBD_SO_VERIFY ? "required" : "enabled by default", where);
	}
}
