/* Health checks: option tcp-check with tcp-check rules, option httpchk with
 * http-check rules. Inheritance follows HAProxy 2.2+: a section that writes
 * no rules of its own runs those of its defaults section; writing one rule
 * replaces the inherited ones. What lbd does not run is an error.
 * Also the other HTTP settings a haproxy.cfg carries (option httplog,
 * timeout http-request, ...): accepted with a notice in a defaults section
 * of mode http whose users all set mode tcp, refused everywhere else. */
#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "cfg_ctx.h"

#define CFG_HTTP_STATUS_MAX                                                                        \
	(sizeof(((struct lbd_httpcheck *)0)->status) /                                             \
		sizeof(((struct lbd_httpcheck *)0)->status[0]))

static void cfg_tcp_rule_free(struct lbd_tcpcheck_rule *r)
{
	free(r->data);
	if (r->action == LBD_TCPCHK_EXPECT_RSTRING)
		regfree(&r->re);
}

static void cfg_tcp_rules_free(struct lbd_backend *be)
{
	size_t i;

	for (i = 0; i < be->ntcpcheck; i++)
		cfg_tcp_rule_free(&be->tcpcheck[i]);
	free(be->tcpcheck);
	be->tcpcheck = NULL;
	be->ntcpcheck = 0;
}

static void cfg_http_hdrs_free(struct lbd_httpcheck *h)
{
	size_t i;

	for (i = 0; i < h->nhdrs; i++) {
		free(h->hdrs[i].name);
		free(h->hdrs[i].value);
	}
	free(h->hdrs);
	h->hdrs = NULL;
	h->nhdrs = 0;
}

/* Forget the connect, headers and expectation; keep the request line. */
static void cfg_http_rules_free(struct lbd_httpcheck *h)
{
	cfg_http_hdrs_free(h);
	free(h->expect_string);
	h->expect_string = NULL;
	h->connect_ssl = 0;
	h->connect_port = 0;
	h->expect_set = h->expect_negate = h->expect_is_status = 0;
	h->nstatus = 0;
}

static void cfg_http_free(struct lbd_httpcheck *h)
{
	cfg_http_rules_free(h);
	free(h->method);
	free(h->uri);
	free(h->version);
	memset(h, 0, sizeof(*h));
}

void lbd_cfg_check_free(struct lbd_backend *be)
{
	cfg_tcp_rules_free(be);
	cfg_http_free(&be->http);
}

/* Add a finished rule (the backend owns it afterwards, even on failure). */
static int cfg_tcp_rule_add(
	struct cfg_ctx *ctx, struct lbd_backend *be, struct lbd_tcpcheck_rule *r)
{
	struct lbd_tcpcheck_rule *p;

	p = lbd_cfg_push(ctx, &be->tcpcheck, &be->ntcpcheck, sizeof(*p));
	if (!p) {
		cfg_tcp_rule_free(r);
		return -1;
	}
	*p = *r;
	return 0;
}

static int cfg_tcp_rule_copy(
	struct cfg_ctx *ctx, struct lbd_backend *dst, const struct lbd_tcpcheck_rule *src)
{
	struct lbd_tcpcheck_rule r = *src;

	r.data = NULL;
	if (src->data && !(r.data = malloc(src->len + 1))) {
		lbd_cfg_oom(ctx);
		return -1;
	}
	if (src->data)
		memcpy(r.data, src->data, src->len + 1);
	if (r.action == LBD_TCPCHK_EXPECT_RSTRING &&
		regcomp(&r.re, r.data, REG_EXTENDED | REG_NOSUB) != 0) {
		free(r.data);
		lbd_cfg_oom(ctx); /* it compiled once: only memory can fail */
		return -1;
	}
	return cfg_tcp_rule_add(ctx, dst, &r);
}

static int cfg_dup_opt(struct cfg_ctx *ctx, char **dst, const char *src)
{
	return src && !(*dst = lbd_cfg_strdup(ctx, src)) ? -1 : 0;
}

int lbd_cfg_check_copy(struct cfg_ctx *ctx, struct lbd_backend *dst, const struct lbd_backend *src)
{
	const struct lbd_httpcheck *sh = &src->http;
	struct lbd_httpcheck *dh = &dst->http;
	struct lbd_http_header *h;
	size_t i;

	dst->check_kind = src->check_kind;
	for (i = 0; i < src->ntcpcheck; i++)
		if (cfg_tcp_rule_copy(ctx, dst, &src->tcpcheck[i]) < 0)
			return -1;
	*dh = *sh; /* then a copy of everything it points to */
	dh->method = dh->uri = dh->version = dh->expect_string = NULL;
	dh->hdrs = NULL;
	dh->nhdrs = 0;
	if (cfg_dup_opt(ctx, &dh->method, sh->method) || cfg_dup_opt(ctx, &dh->uri, sh->uri) ||
		cfg_dup_opt(ctx, &dh->version, sh->version) ||
		cfg_dup_opt(ctx, &dh->expect_string, sh->expect_string))
		return -1;
	for (i = 0; i < sh->nhdrs; i++) {
		h = lbd_cfg_push(ctx, &dh->hdrs, &dh->nhdrs, sizeof(*h));
		if (!h || cfg_dup_opt(ctx, &h->name, sh->hdrs[i].name) ||
			cfg_dup_opt(ctx, &h->value, sh->hdrs[i].value))
			return -1;
	}
	return 0;
}

/* RFC 9110 §5.6.2 token */
static int cfg_is_token(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("!#$%&'*+-.^_`|~", *s))
			return 0;
	return 1;
}

/* Text that fits in a request line: no blanks, no control characters. */
static int cfg_is_word(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || *s == 0x7f)
			return 0;
	return 1;
}

/* Set one part of the request line (method, uri or version). */
static void cfg_http_set(struct cfg_ctx *ctx, unsigned line, const char *what, const char *val,
	char **dst, const char *where)
{
	int ok = strcmp(what, "method") == 0 ? cfg_is_token(val) : cfg_is_word(val);

	if (!ok && strchr(val, '\r') && strcmp(what, "version") == 0) {
		lbd_cfg_err(ctx, line,
			"headers after the version of 'option httpchk' are not supported by lbd; "
			"use 'http-check send hdr NAME VALUE' (%s)",
			where);
		return;
	}
	if (!ok) {
		lbd_cfg_err(
			ctx, line, "bad HTTP %s '%s' for a health check (%s)", what, val, where);
		return;
	}
	free(*dst);
	*dst = lbd_cfg_strdup(ctx, val);
}

/* option tcp-check */
void lbd_cfg_check_option_tcp(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	if (a->n > 2) {
		lbd_cfg_err(ctx, a->line, "'option tcp-check': unexpected '%s' (%s)", a->v[2],
			lbd_cfg_where(ctx, px));
		return;
	}
	px->be.check_kind = LBD_CHECK_TCP;
	px->tcpchk_opt_line = a->line;
}

/* option ssl-hello-chk: HAProxy sends an SSLv3 CLIENT HELLO and passes when
 * the reply starts with a TLS handshake (0x16) or alert (0x15) record; the
 * same as two tcp-check rules here. RFC 6101 §5.6.1.2 for the layout. */
void lbd_cfg_check_option_ssl_hello(
	struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	static const char random[] = "HAPROXYSSLCHK\nHAPROXYSSLCHK\n"; /* 28 bytes */
	unsigned char hello[126], *p = hello;
	struct lbd_tcpcheck_rule r[2];
	uint32_t t = (uint32_t)time(NULL);
	unsigned c;
	int e;

	if (a->n > 2) {
		lbd_cfg_err(ctx, a->line, "'option ssl-hello-chk': unexpected '%s' (%s)", a->v[2],
			lbd_cfg_where(ctx, px));
		return;
	}
	memcpy(p,
		"\x16\x03\x00\x00\x79" /* record: handshake, SSLv3, 0x79 bytes */
		"\x01\x00\x00\x75"     /* CLIENT HELLO, 0x75 bytes */
		"\x03\x00",            /* version SSLv3 */
		11);
	p += 11;
	*p++ = (unsigned char)(t >> 24);
	*p++ = (unsigned char)(t >> 16);
	*p++ = (unsigned char)(t >> 8);
	*p++ = (unsigned char)t;
	memcpy(p, random, 28);
	p += 28;
	*p++ = 0; /* no session id */
	*p++ = 0; /* 78 bytes of cipher suites: 0x01-0x1b, 0x2f-0x3a */
	*p++ = 0x4e;
	for (c = 0x01; c <= 0x3a; c++) {
		if (c > 0x1b && c < 0x2f)
			continue;
		*p++ = 0;
		*p++ = (unsigned char)c;
	}
	*p++ = 1; /* one compression method: null */
	*p++ = 0;
	memset(r, 0, sizeof(r));
	r[0].action = LBD_TCPCHK_SEND;
	r[0].len = (size_t)(p - hello);
	r[0].line = a->line;
	r[1].action = LBD_TCPCHK_EXPECT_RSTRING;
	r[1].len = 5;
	r[1].line = a->line;
	r[0].data = malloc(r[0].len + 1); /* a NUL after, as every rule's data has */
	r[1].data = lbd_cfg_strdup(ctx, "^[\x15\x16]");
	if (!r[0].data || !r[1].data) {
		free(r[0].data);
		free(r[1].data);
		lbd_cfg_oom(ctx);
		return;
	}
	memcpy(r[0].data, hello, r[0].len);
	r[0].data[r[0].len] = '\0';
	e = regcomp(&r[1].re, r[1].data, REG_EXTENDED | REG_NOSUB);
	if (e != 0) {
		free(r[0].data);
		free(r[1].data);
		lbd_cfg_oom(ctx);
		return;
	}
	/* the option replaces the rules written or inherited so far */
	cfg_tcp_rules_free(&px->be);
	px->be.tcpcheck = malloc(sizeof(r));
	if (!px->be.tcpcheck) {
		regfree(&r[1].re);
		free(r[0].data);
		free(r[1].data);
		lbd_cfg_oom(ctx);
		return;
	}
	memcpy(px->be.tcpcheck, r, sizeof(r));
	px->be.ntcpcheck = 2;
	px->be.check_kind = LBD_CHECK_TCP;
	px->tcpchk_opt_line = a->line;
}

/* option httpchk [[METHOD] URI [VERSION]] */
void lbd_cfg_check_option_http(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	struct lbd_httpcheck *h = &px->be.http;
	const char *where = lbd_cfg_where(ctx, px);
	size_t n = a->n - 2;

	if (n > 3) {
		lbd_cfg_err(ctx, a->line, "'option httpchk': unexpected '%s' (%s)", a->v[5], where);
		return;
	}
	/* HAProxy starts a new rule set for this section: the inherited
	 * request, headers and expectation go */
	if (px->cap != CFG_CAP_DEF && !px->http_own) {
		cfg_http_free(h);
		px->http_own = 1;
	}
	px->be.check_kind = LBD_CHECK_HTTP;
	h->line = a->line;
	if (n >= 2)
		cfg_http_set(ctx, a->line, "method", a->v[2], &h->method, where);
	if (n >= 1)
		cfg_http_set(ctx, a->line, "uri", a->v[n >= 2 ? 3 : 2], &h->uri, where);
	if (n == 3)
		cfg_http_set(ctx, a->line, "version", a->v[4], &h->version, where);
}

/* [port N] [ssl] of a connect rule, from a->v[2] on. */
static int cfg_connect_opts(
	struct cfg_ctx *ctx, const struct cfg_args *a, uint16_t *port, int *ssl, const char *where)
{
	unsigned long long v;
	size_t i;

	for (i = 2; i < a->n; i++) {
		if (strcmp(a->v[i], "ssl") == 0) {
			*ssl = 1;
		} else if (strcmp(a->v[i], "port") == 0 && i + 1 < a->n) {
			if (lbd_cfg_uint(ctx, a->line, "port", a->v[++i], 1, 65535, &v, where) < 0)
				return -1;
			*port = (uint16_t)v;
		} else {
			lbd_cfg_err(ctx, a->line, "'%s connect %s' is not supported by lbd (%s)",
				a->v[0], a->v[i], where);
			return -1;
		}
	}
	return 0;
}

/* "[!] TYPE PATTERN" of an expect rule, from a->v[2] on: the pattern's
 * index, or 0 after an error. HAProxy's "!" may stand alone or lead TYPE. */
static size_t cfg_expect_head(struct cfg_ctx *ctx, const struct cfg_args *a, int *negate,
	const char **type, const char *const *types, const char *where)
{
	size_t i = 2;
	const char *t;
	int k;

	*negate = 0;
	for (t = i < a->n ? a->v[i] : ""; *t == '!'; t++)
		*negate = !*negate;
	if (!*t && i < a->n && a->v[i][0] == '!')
		t = ++i < a->n ? a->v[i] : "";
	if (!*t) {
		lbd_cfg_err(ctx, a->line, "'%s expect' needs a match type and a pattern (%s)",
			a->v[0], where);
		return 0;
	}
	for (k = 0; types[k]; k++)
		if (strcmp(types[k], t) == 0)
			break;
	if (!types[k]) {
		lbd_cfg_err(ctx, a->line, "'%s expect %s' is not supported by lbd (%s)", a->v[0], t,
			where);
		return 0;
	}
	*type = types[k];
	if (i + 1 >= a->n) {
		lbd_cfg_err(ctx, a->line, "'%s expect %s' needs a pattern (%s)", a->v[0], t, where);
		return 0;
	}
	if (i + 2 < a->n) {
		lbd_cfg_err(ctx, a->line, "'%s expect %s': unexpected '%s' (%s)", a->v[0], t,
			a->v[i + 2], where);
		return 0;
	}
	return i + 1;
}

/* tcp-check connect [port N] [ssl] | send STRING | expect [!] string|rstring PATTERN */
void lbd_cfg_check_tcp_line(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	static const char *const types[] = { "string", "rstring", NULL };
	const char *where = lbd_cfg_where(ctx, px), *type;
	struct lbd_tcpcheck_rule r;
	char err[256];
	size_t i;
	int e;

	if (a->n < 2) {
		lbd_cfg_err(ctx, a->line, "'tcp-check' needs connect, send or expect (%s)", where);
		return;
	}
	if (strcmp(a->v[1], "connect") && strcmp(a->v[1], "send") && strcmp(a->v[1], "expect")) {
		lbd_cfg_err(ctx, a->line, "'tcp-check %s' is not supported by lbd (%s)", a->v[1],
			where);
		return;
	}
	/* the first rule of a section replaces the inherited ones */
	if (!px->tcpchk_line) {
		if (px->cap != CFG_CAP_DEF)
			cfg_tcp_rules_free(&px->be);
		px->tcpchk_line = a->line;
	}
	memset(&r, 0, sizeof(r));
	r.line = a->line;
	if (strcmp(a->v[1], "connect") == 0) {
		r.action = LBD_TCPCHK_CONNECT;
		if (cfg_connect_opts(ctx, a, &r.port, &r.ssl, where) < 0)
			return;
	} else if (strcmp(a->v[1], "send") == 0) {
		r.action = LBD_TCPCHK_SEND;
		if (a->n != 3) {
			lbd_cfg_err(ctx, a->line, "'tcp-check send' %s (%s)",
				a->n < 3 ? "needs the text to send"
					 : "takes one argument; quote it",
				where);
			return;
		}
		if (!a->v[2][0]) {
			lbd_cfg_err(
				ctx, a->line, "'tcp-check send' has nothing to send (%s)", where);
			return;
		}
	} else {
		i = cfg_expect_head(ctx, a, &r.negate, &type, types, where);
		if (!i)
			return;
		r.action = type[0] == 'r' ? LBD_TCPCHK_EXPECT_RSTRING : LBD_TCPCHK_EXPECT_STRING;
		if (!a->v[i][0]) {
			lbd_cfg_err(ctx, a->line, "'tcp-check expect %s' has an empty pattern (%s)",
				type, where);
			return;
		}
		if (r.action == LBD_TCPCHK_EXPECT_RSTRING &&
			!lbd_cfg_re_ok(ctx, a->line, a->v[i], where))
			return;
		if (r.action == LBD_TCPCHK_EXPECT_RSTRING &&
			(e = regcomp(&r.re, a->v[i], REG_EXTENDED | REG_NOSUB)) != 0) {
			regerror(e, &r.re, err, sizeof(err));
			lbd_cfg_err(ctx, a->line,
				"'tcp-check expect rstring': bad regex '%s': %s (%s)", a->v[i], err,
				where);
			return;
		}
	}
	if (r.action != LBD_TCPCHK_CONNECT) {
		r.data = strdup(a->v[a->n - 1]);
		if (!r.data) {
			if (r.action == LBD_TCPCHK_EXPECT_RSTRING)
				regfree(&r.re);
			lbd_cfg_oom(ctx);
			return;
		}
		r.len = strlen(r.data);
	}
	cfg_tcp_rule_add(ctx, &px->be, &r);
}

/* CODE[,CODE|LO-HI...] */
static int cfg_http_status(struct cfg_ctx *ctx, unsigned line, const char *s,
	struct lbd_httpcheck *h, const char *where)
{
	const char *p = s;
	unsigned long lo, hi;
	char *end;

	h->nstatus = 0;
	for (;;) {
		if (!isdigit((unsigned char)*p))
			goto bad;
		lo = hi = strtoul(p, &end, 10);
		p = end;
		if (*p == '-') {
			if (!isdigit((unsigned char)*++p))
				goto bad;
			hi = strtoul(p, &end, 10);
			p = end;
		}
		if (*p && *p != ',')
			goto bad;
		if (lo < 100 || hi > 599 || lo > hi) {
			lbd_cfg_err(ctx, line,
				"'http-check expect status': '%s': codes must be 100 to "
				"599, ranges LOW-HIGH (%s)",
				s, where);
			return -1;
		}
		if (h->nstatus == CFG_HTTP_STATUS_MAX) {
			lbd_cfg_err(ctx, line,
				"'http-check expect status': more than %zu codes or ranges "
				"(%s)",
				CFG_HTTP_STATUS_MAX, where);
			return -1;
		}
		h->status[h->nstatus].lo = (unsigned)lo;
		h->status[h->nstatus].hi = (unsigned)hi;
		h->nstatus++;
		if (!*p)
			return 0;
		if (*p++ != ',')
			goto bad;
	}
bad:
	lbd_cfg_err(ctx, line,
		"'http-check expect status': '%s' is not a list of codes such as "
		"200,300-399 (%s)",
		s, where);
	return -1;
}

/* A header value is a log-format string in HAProxy: only "%%" is plain. */
static char *cfg_hdr_value(struct cfg_ctx *ctx, unsigned line, const char *s, const char *where)
{
	char *v = malloc(strlen(s) + 1), *o = v;

	if (!v) {
		lbd_cfg_oom(ctx);
		return NULL;
	}
	for (; *s; s++) {
		if (*s == '%' && s[1] != '%') {
			lbd_cfg_err(ctx, line,
				"'http-check send hdr': log-format values ('%%[...]') are "
				"not supported by lbd; write '%%%%' for '%%' (%s)",
				where);
			free(v);
			return NULL;
		}
		if (*s == '\r' || *s == '\n') {
			lbd_cfg_err(ctx, line, "'http-check send hdr': line breaks in a value (%s)",
				where);
			free(v);
			return NULL;
		}
		*o++ = *s;
		if (*s == '%')
			s++;
	}
	*o = '\0';
	return v;
}

/* send [meth M] [uri U] [ver V] [hdr NAME VALUE]... */
static void cfg_http_send(
	struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a, const char *where)
{
	struct lbd_httpcheck *h = &px->be.http;
	struct lbd_http_header *hd;
	const char *kw;
	char *val;
	size_t i;

	cfg_http_hdrs_free(h);
	for (i = 2; i < a->n; i += 2) {
		kw = a->v[i];
		if (strcmp(kw, "meth") && strcmp(kw, "uri") && strcmp(kw, "ver") &&
			strcmp(kw, "hdr")) {
			lbd_cfg_err(ctx, a->line,
				"'http-check send %s' is not supported by lbd (%s)", kw, where);
			return;
		}
		if (i + 1 >= a->n || (kw[0] == 'h' && i + 2 >= a->n)) {
			lbd_cfg_err(ctx, a->line, "'http-check send %s' needs %s (%s)", kw,
				kw[0] == 'h' ? "a name and a value" : "a value", where);
			return;
		}
		if (strcmp(kw, "meth") == 0) {
			cfg_http_set(ctx, a->line, "method", a->v[i + 1], &h->method, where);
		} else if (strcmp(kw, "uri") == 0) {
			cfg_http_set(ctx, a->line, "uri", a->v[i + 1], &h->uri, where);
		} else if (strcmp(kw, "ver") == 0) {
			cfg_http_set(ctx, a->line, "version", a->v[i + 1], &h->version, where);
		} else if (!cfg_is_token(a->v[i + 1])) {
			lbd_cfg_err(ctx, a->line,
				"'http-check send hdr': bad header name '%s' (%s)", a->v[i + 1],
				where);
			i++;
		} else {
			val = cfg_hdr_value(ctx, a->line, a->v[i + 2], where);
			hd = val ? lbd_cfg_push(ctx, &h->hdrs, &h->nhdrs, sizeof(*hd)) : NULL;
			if (!hd) {
				free(val);
				return;
			}
			hd->value = val;
			hd->name = lbd_cfg_strdup(ctx, a->v[i + 1]);
			i++;
		}
	}
}

/* expect [!] status CODES | expect [!] string TEXT */
static void cfg_http_expect(
	struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a, const char *where)
{
	static const char *const types[] = { "status", "string", NULL };
	struct lbd_httpcheck *h = &px->be.http;
	const char *type;
	int negate;
	size_t i;

	i = cfg_expect_head(ctx, a, &negate, &type, types, where);
	if (!i)
		return;
	if (strcmp(type, "status") == 0) {
		if (cfg_http_status(ctx, a->line, a->v[i], h, where) < 0)
			return;
		h->expect_is_status = 1;
	} else {
		if (!a->v[i][0]) {
			lbd_cfg_err(ctx, a->line,
				"'http-check expect string' has an empty pattern (%s)", where);
			return;
		}
		free(h->expect_string);
		if (!(h->expect_string = lbd_cfg_strdup(ctx, a->v[i])))
			return;
		h->expect_is_status = 0;
	}
	h->expect_set = 1;
	h->expect_negate = negate;
}

/* http-check connect [port N] [ssl] | send ... | expect ... */
void lbd_cfg_check_http_line(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	struct lbd_httpcheck *h = &px->be.http;
	const char *where = lbd_cfg_where(ctx, px), *sub;
	unsigned *seen;

	if (a->n < 2) {
		lbd_cfg_err(ctx, a->line, "'http-check' needs connect, send or expect (%s)", where);
		return;
	}
	sub = a->v[1];
	if (strcmp(sub, "connect") == 0)
		seen = &px->hc_connect_line;
	else if (strcmp(sub, "send") == 0)
		seen = &px->hc_send_line;
	else if (strcmp(sub, "expect") == 0)
		seen = &px->hc_expect_line;
	else {
		lbd_cfg_err(
			ctx, a->line, "'http-check %s' is not supported by lbd (%s)", sub, where);
		return;
	}
	/* the first rule of a section replaces the inherited connect, headers
	 * and expectation (the request line stays unless written again) */
	if (px->cap != CFG_CAP_DEF && !px->http_own) {
		cfg_http_rules_free(h);
		px->http_own = 1;
	}
	if (!px->httpchk_line)
		px->httpchk_line = a->line;
	if (*seen) {
		lbd_cfg_err(ctx, a->line,
			"lbd runs one 'http-check %s' per backend; another is at %s:%u (%s)", sub,
			ctx->file, *seen, where);
		return;
	}
	if (seen == &px->hc_connect_line && (px->hc_send_line || px->hc_expect_line)) {
		lbd_cfg_err(ctx, a->line,
			"'http-check connect' must come before 'http-check send' and 'http-check "
			"expect' (%s)",
			where);
		return;
	}
	if (seen == &px->hc_send_line && px->hc_expect_line) {
		lbd_cfg_err(ctx, a->line,
			"'http-check send' must come before 'http-check expect' (%s)", where);
		return;
	}
	*seen = a->line;
	if (seen == &px->hc_connect_line) {
		uint16_t port = 0;
		int ssl = 0;

		if (cfg_connect_opts(ctx, a, &port, &ssl, where) < 0)
			return;
		h->connect_port = port;
		h->connect_ssl = ssl;
	} else if (seen == &px->hc_send_line) {
		cfg_http_send(ctx, px, a, where);
	} else {
		cfg_http_expect(ctx, px, a, where);
	}
}

void lbd_cfg_check_section_end(struct cfg_ctx *ctx, struct cfg_proxy *px)
{
	if (px->tcpchk_line && px->be.check_kind != LBD_CHECK_TCP)
		lbd_cfg_err(ctx, px->tcpchk_line, "tcp-check rules need option tcp-check (%s)",
			lbd_cfg_where(ctx, px));
	/* HAProxy warns and ignores http-check rules without option httpchk */
	if (px->httpchk_line && px->be.check_kind != LBD_CHECK_HTTP && px->cap != CFG_CAP_DEF)
		lbd_cfg_notice(ctx, px->httpchk_line,
			"http-check rules without option httpchk are ignored (%s), as HAProxy "
			"does",
			lbd_cfg_where(ctx, px));
}

/* Make the checks of a backend ready to run as they are. */
void lbd_cfg_check_finalize(struct cfg_ctx *ctx, struct cfg_proxy *px)
{
	struct lbd_backend *be = &px->be;
	struct lbd_httpcheck *h = &be->http;
	struct lbd_tcpcheck_rule *p;

	if (be->check_kind != LBD_CHECK_TCP)
		cfg_tcp_rules_free(be);
	if (be->check_kind != LBD_CHECK_HTTP)
		cfg_http_free(h);
	if (be->check_kind == LBD_CHECK_HTTP) {
		if ((!h->method && !(h->method = lbd_cfg_strdup(ctx, "OPTIONS"))) ||
			(!h->uri && !(h->uri = lbd_cfg_strdup(ctx, "/"))) ||
			(!h->version && !(h->version = lbd_cfg_strdup(ctx, "HTTP/1.0"))))
			return;
	}
	if (be->check_kind != LBD_CHECK_TCP ||
		(be->ntcpcheck && be->tcpcheck[0].action == LBD_TCPCHK_CONNECT))
		return;
	/* HAProxy's implicit first connect (check_proxy_tcpcheck) */
	p = lbd_cfg_push(ctx, &be->tcpcheck, &be->ntcpcheck, sizeof(*p));
	if (!p)
		return;
	memmove(be->tcpcheck + 1, be->tcpcheck, (be->ntcpcheck - 1) * sizeof(*p));
	memset(be->tcpcheck, 0, sizeof(*p));
	be->tcpcheck[0].action = LBD_TCPCHK_CONNECT;
	be->tcpcheck[0].line = be->ntcpcheck > 1 ? be->tcpcheck[1].line : px->tcpchk_opt_line;
}

int lbd_cfg_check_uses_tls(const struct lbd_backend *be)
{
	size_t i;

	if (be->check_kind == LBD_CHECK_HTTP)
		return be->http.connect_ssl;
	if (be->check_kind == LBD_CHECK_TCP)
		for (i = 0; i < be->ntcpcheck; i++)
			if (be->tcpcheck[i].action == LBD_TCPCHK_CONNECT && be->tcpcheck[i].ssl)
				return 1;
	return 0;
}

int lbd_cfg_check_has_port(const struct lbd_backend *be)
{
	size_t i;

	if (be->check_kind == LBD_CHECK_HTTP)
		return be->http.connect_port != 0;
	if (be->check_kind != LBD_CHECK_TCP || !be->ntcpcheck)
		return 0;
	for (i = 0; i < be->ntcpcheck; i++)
		if (be->tcpcheck[i].action == LBD_TCPCHK_CONNECT && !be->tcpcheck[i].port)
			return 0;
	return 1;
}

/* HTTP-mode settings lbd accepts (and ignores) in a mode http defaults section. */
static const char *const cfg_http_mode[] = { "option httplog", "option http-server-close",
	"option httpclose", "option http-keep-alive", "option forwardfor",
	"option http-buffer-request", "option http-pretend-keepalive", "timeout http-request",
	"timeout http-keep-alive", "http-reuse", "errorfile", NULL };

int lbd_cfg_check_http_mode(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	static const char *const reuse[] = { "never", "safe", "aggressive", "always", NULL };
	const char *where = lbd_cfg_where(ctx, px);
	int no = strcmp(a->v[0], "no") == 0, k;
	size_t nkw = 2u + no;
	struct cfg_http_only *h;
	char kw[128];
	uint64_t t;

	if (a->n <= (size_t)no)
		return 0;
	if (strcmp(a->v[no], "http-reuse") == 0 || strcmp(a->v[no], "errorfile") == 0)
		nkw--;
	if (a->n < nkw)
		return 0;
	snprintf(kw, sizeof(kw), "%s%s%s", a->v[no], nkw - no == 2 ? " " : "",
		nkw - no == 2 ? a->v[no + 1] : "");
	k = lbd_cfg_lookup(cfg_http_mode, kw);
	if (k < 0 || (no && strncmp(kw, "option ", 7)))
		return 0;
	if (px->cap != CFG_CAP_DEF) {
		/* HAProxy warns and ignores HTTP options in a TCP proxy; option
		 * httplog falls back to option tcplog there */
		if (strcmp(kw, "option httplog") == 0 && !no && (px->cap & CFG_CAP_FE)) {
			px->opts |= CFG_PXO_TCPLOG;
			free(px->fe.log_format);
			px->fe.log_format = NULL;
			lbd_cfg_notice(ctx, a->line,
				"'option httplog' needs mode http; %s falls back to option tcplog "
				"(as HAProxy does)",
				where);
		} else {
			lbd_cfg_notice(ctx, a->line,
				"'%s%s' needs mode http; ignored in %s (as HAProxy does)",
				no ? "no " : "", kw, where);
		}
		return 1;
	}
	if (kw[0] == 't' && (lbd_cfg_nargs(ctx, a, nkw, 1, 1, where) ||
				    lbd_cfg_time(ctx, a->line, kw, a->v[nkw], &t, where)))
		return 1;
	if (kw[0] == 'h' &&
		(lbd_cfg_nargs(ctx, a, nkw, 1, 1, where) || lbd_cfg_lookup(reuse, a->v[nkw]) < 0)) {
		if (a->n == nkw + 1)
			lbd_cfg_err(
				ctx, a->line, "'http-reuse %s' is not a HAProxy mode", a->v[nkw]);
		return 1;
	}
	/* errorfile CODE FILE: HAProxy reads the file even when it is unused */
	if (kw[0] == 'e' &&
		(lbd_cfg_nargs(ctx, a, nkw, 2, 2, where) || access(a->v[2], R_OK) == -1)) {
		if (a->n == 3)
			lbd_cfg_err(ctx, a->line, "errorfile %s: %s", a->v[2], strerror(errno));
		return 1;
	}
	/* option forwardfor takes any arguments, option httplog "clf" */
	if (kw[0] == 'o' && !strstr(kw, "forwardfor") &&
		lbd_cfg_nargs(ctx, a, nkw, 0, strstr(kw, "httplog") ? 1 : 0, where))
		return 1;
	h = lbd_cfg_push(ctx, &px->http_only, &px->nhttp_only, sizeof(*h));
	if (h) {
		h->what = cfg_http_mode[k];
		h->no = no;
		h->line = a->line;
	}
	return 1;
}

void lbd_cfg_check_http_mode_end(struct cfg_ctx *ctx, struct cfg_proxy *px)
{
	struct cpha_buf b = { 0 };
	size_t i, j;

	for (i = 0; i < px->nhttp_only; i++) {
		for (j = 0; j < i; j++)
			if (px->http_only[j].what == px->http_only[i].what &&
				px->http_only[j].no == px->http_only[i].no)
				break;
		if (j == i)
			cpha_buf_printf(&b, "%s%s%s", b.len ? ", " : "",
				px->http_only[i].no ? "no " : "", px->http_only[i].what);
	}
	if (b.len)
		lbd_cfg_notice(ctx, px->line,
			"HTTP-only settings in defaults (%s) have no effect on TCP sections; "
			"ignored%s",
			b.data, px->mode_http ? "" : " (this defaults section is mode tcp)");
	cpha_buf_free(&b);
}
