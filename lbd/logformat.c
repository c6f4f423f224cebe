#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "logformat.h"

/* The variables of HAProxy 2.6's log-format table (its log.c), each with
 * what lbd renders for it in TCP mode. */
static const struct {
	const char *name;
	int kind; /* enum lf_kind, or -1: reserved for mode http */
} lf_vars[] = {
	{ "ac", LF_AC },
	{ "B", LF_BYTES_OUT },
	{ "bc", LF_BC },
	{ "bi", LF_BI },
	{ "bp", LF_BP },
	{ "bq", LF_BQ },
	{ "b", LF_B },
	{ "ci", LF_CI },
	{ "cp", LF_CP },
	{ "fc", LF_FC },
	{ "fi", LF_FI },
	{ "fp", LF_FP },
	{ "f", LF_F },
	{ "ft", LF_FT },
	{ "H", LF_HOST },
	{ "ID", LF_DASH },
	{ "lc", LF_LC },
	{ "ms", LF_MS },
	{ "pid", LF_PID },
	{ "rc", LF_RC },
	{ "rt", LF_RT },
	{ "sc", LF_SC },
	{ "si", LF_SI },
	{ "sp", LF_SP },
	{ "sq", LF_SQ },
	{ "s", LF_S },
	{ "sslc", LF_DASH },
	{ "sslv", LF_DASH },
	{ "ST", LF_STATUS },
	{ "t", LF_T_LOCAL },
	{ "T", LF_T_GMT },
	{ "Tl", LF_TL },
	{ "Ts", LF_TS },
	{ "Tw", LF_TW },
	{ "Tc", LF_TC },
	{ "Tt", LF_TT },
	{ "Td", LF_TD },
	{ "Th", LF_TH },
	{ "Tu", LF_TU },
	{ "U", LF_BYTES_IN },
	{ "ts", LF_TERM },
	{ "tsc", LF_TERMC },
	{ "hr", LF_EMPTY },
	{ "hrl", LF_EMPTY },
	{ "hs", LF_EMPTY },
	{ "hsl", LF_EMPTY },
	{ "CC", -1 },
	{ "CS", -1 },
	{ "HM", -1 },
	{ "HP", -1 },
	{ "HPO", -1 },
	{ "HQ", -1 },
	{ "HU", -1 },
	{ "HV", -1 },
	{ "r", -1 },
	{ "Ta", -1 },
	{ "Ti", -1 },
	{ "Tq", -1 },
	{ "TR", -1 },
	{ "Tr", -1 },
	{ "tr", -1 },
	{ "trg", -1 },
	{ "trl", -1 },
};

static int lf_push(
	struct lf_format *f, enum lf_kind kind, unsigned flags, const char *text, size_t len)
{
	struct lf_node *n = realloc(f->n, (f->nn + 1) * sizeof(*n));

	if (!n)
		return -1;
	f->n = n;
	n = &f->n[f->nn];
	n->kind = kind;
	n->flags = flags;
	n->text = NULL;
	if (kind == LF_TEXT) {
		n->text = strndup(text, len);
		if (!n->text)
			return -1;
	}
	f->nn++;
	return 0;
}

/* {+Q,-Q,...}: the flags HAProxy knows are Q, X and E; lbd applies Q. */
static int lf_args(const char *a, size_t len, unsigned *flags, char *warn, size_t warnlen)
{
	char one[16];
	size_t i = 0, j;

	while (i < len) {
		for (j = i; j < len && a[j] != ','; j++)
			;
		if (j - i >= 2 && j - i < sizeof(one) && (a[i] == '+' || a[i] == '-')) {
			memcpy(one, a + i, j - i);
			one[j - i] = '\0';
			if (strcmp(one + 1, "Q") == 0)
				*flags = a[i] == '+' ? *flags | LF_OPT_QUOTE
						     : *flags & ~LF_OPT_QUOTE;
			else if (!warn[0])
				snprintf(warn, warnlen,
					"log-format flag '%s' is accepted but not applied by lbd "
					"(only +Q and -Q are)",
					one);
		}
		i = j + 1;
	}
	return 0;
}

int lf_compile(
	const char *s, struct lf_format *out, char *err, size_t errlen, char *warn, size_t warnlen)
{
	struct lf_format f = { NULL, 0 };
	unsigned gflags = 0, flags;
	const char *p = s, *q, *a;
	size_t i, alen;

	warn[0] = '\0';
	while (*p) {
		if (*p == ' ') {
			while (*p == ' ')
				p++;
			if (lf_push(&f, LF_SEP, 0, NULL, 0) < 0)
				goto oom;
			continue;
		}
		if (*p != '%') {
			for (q = p; *q && *q != '%' && *q != ' '; q++)
				;
			if (lf_push(&f, LF_TEXT, 0, p, (size_t)(q - p)) < 0)
				goto oom;
			p = q;
			continue;
		}
		p++; /* after '%' */
		if (*p == '\0') {
			snprintf(err, errlen, "truncated line after '%%'");
			goto fail;
		}
		if (*p == '%') {
			if (lf_push(&f, LF_TEXT, 0, "%", 1) < 0)
				goto oom;
			p++;
			continue;
		}
		flags = gflags;
		if (*p == '{') {
			a = p + 1;
			q = strchr(a, '}');
			if (!q) {
				snprintf(err, errlen, "missing '}' after '%%{' in '%s'", s);
				goto fail;
			}
			alen = (size_t)(q - a);
			lf_args(a, alen, &flags, warn, warnlen);
			p = q + 1;
		}
		if (*p == '[') {
			snprintf(err, errlen,
				"sample expressions ('%%[...]') in log-format are not supported "
				"by lbd");
			goto fail;
		}
		if (!isalpha((unsigned char)*p)) {
			snprintf(err, errlen,
				"unexpected variable name near '%c' in '%s'; to write a single "
				"'%%', use '%%%%'",
				*p ? *p : ' ', s);
			goto fail;
		}
		for (q = p; isalnum((unsigned char)*q); q++)
			;
		if ((size_t)(q - p) == 1 && *p == 'o') {
			/* %o: the flags apply to every variable after it */
			gflags = flags;
			p = q;
			continue;
		}
		for (i = 0; i < sizeof(lf_vars) / sizeof(lf_vars[0]); i++)
			if (strlen(lf_vars[i].name) == (size_t)(q - p) &&
				memcmp(lf_vars[i].name, p, (size_t)(q - p)) == 0)
				break;
		if (i == sizeof(lf_vars) / sizeof(lf_vars[0])) {
			snprintf(err, errlen,
				"no such format variable '%.*s'; to write a single '%%', use "
				"'%%%%'",
				(int)(q - p), p);
			goto fail;
		}
		if (lf_vars[i].kind < 0) {
			snprintf(err, errlen,
				"format variable '%s' is reserved for HTTP mode; lbd logs TCP "
				"sessions",
				lf_vars[i].name);
			goto fail;
		}
		if (lf_push(&f, (enum lf_kind)lf_vars[i].kind, flags, NULL, 0) < 0)
			goto oom;
		p = q;
	}
	*out = f;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	lf_free(&f);
	return -1;
}

void lf_free(struct lf_format *f)
{
	size_t i;

	for (i = 0; i < f->nn; i++)
		free(f->n[i].text);
	free(f->n);
	f->n = NULL;
	f->nn = 0;
}

struct lf_out {
	char *buf;
	size_t len, pos;
};

static void put(struct lf_out *o, const char *s, size_t n)
{
	size_t room = o->len ? o->len - 1 - o->pos : 0;

	if (n > room)
		n = room;
	memcpy(o->buf + o->pos, s, n);
	o->pos += n;
}

static void puts_(struct lf_out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void put_text(struct lf_out *o, const char *s, unsigned flags)
{
	if (flags & LF_OPT_QUOTE)
		put(o, "\"", 1);
	puts_(o, s && *s ? s : "-");
	if (flags & LF_OPT_QUOTE)
		put(o, "\"", 1);
}

static void put_num(struct lf_out *o, long long v)
{
	char b[32];

	snprintf(b, sizeof(b), "%lld", v);
	puts_(o, b);
}

static void put_ip(struct lf_out *o, const struct sockaddr_storage *ss, unsigned flags)
{
	char ip[INET6_ADDRSTRLEN];
	const void *a = NULL;

	if (ss && ss->ss_family == AF_INET)
		a = &((const struct sockaddr_in *)(const void *)ss)->sin_addr;
	else if (ss && ss->ss_family == AF_INET6)
		a = &((const struct sockaddr_in6 *)(const void *)ss)->sin6_addr;
	if (!a || !inet_ntop(ss->ss_family, a, ip, sizeof(ip)))
		ip[0] = '\0';
	put_text(o, ip, flags);
}

static void put_port(struct lf_out *o, const struct sockaddr_storage *ss)
{
	if (ss && ss->ss_family == AF_INET)
		put_num(o, ntohs(((const struct sockaddr_in *)(const void *)ss)->sin_port));
	else if (ss && ss->ss_family == AF_INET6)
		put_num(o, ntohs(((const struct sockaddr_in6 *)(const void *)ss)->sin6_port));
	else
		puts_(o, "-");
}

static void put_date(struct lf_out *o, const struct lf_values *v, enum lf_kind k)
{
	static const char *const mon[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug",
		"Sep", "Oct", "Nov", "Dec" };
	time_t secs = (time_t)(v->accept_real_usec / 1000000);
	unsigned ms = (unsigned)(v->accept_real_usec / 1000 % 1000);
	struct tm tm;
	char b[64], z[8] = "+0000";

	if (k == LF_T_GMT)
		gmtime_r(&secs, &tm);
	else
		localtime_r(&secs, &tm);
	if (k == LF_TL)
		strftime(z, sizeof(z), "%z", &tm);
	if (k == LF_T_LOCAL)
		snprintf(b, sizeof(b), "%02d/%s/%04d:%02d:%02d:%02d.%03u", tm.tm_mday,
			mon[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
	else
		snprintf(b, sizeof(b), "%02d/%s/%04d:%02d:%02d:%02d %s", tm.tm_mday, mon[tm.tm_mon],
			tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec, z);
	puts_(o, b);
}

static void render_var(struct lf_out *o, const struct lf_node *n, const struct lf_values *v)
{
	char b[8];

	switch (n->kind) {
	case LF_TEXT:
		puts_(o, n->text);
		break;
	case LF_SEP:
	case LF_EMPTY:
		break;
	case LF_CI:
		put_ip(o, v->client, n->flags);
		break;
	case LF_CP:
		put_port(o, v->client);
		break;
	case LF_FI:
		put_ip(o, v->front, n->flags);
		break;
	case LF_FP:
		put_port(o, v->front);
		break;
	case LF_BI:
		put_ip(o, v->back, n->flags);
		break;
	case LF_BP:
		put_port(o, v->back);
		break;
	case LF_SI:
		put_ip(o, v->server, n->flags);
		break;
	case LF_SP:
		put_port(o, v->server);
		break;
	case LF_F:
	case LF_FT:
		put_text(o, v->frontend, n->flags);
		break;
	case LF_B:
		put_text(o, v->backend, n->flags);
		break;
	case LF_S:
		put_text(o, v->server_name ? v->server_name : "<NOSRV>", n->flags);
		break;
	case LF_T_LOCAL:
	case LF_T_GMT:
	case LF_TL:
		put_date(o, v, n->kind);
		break;
	case LF_TS:
		put_num(o, (long long)(v->accept_real_usec / 1000000));
		break;
	case LF_MS:
		snprintf(b, sizeof(b), "%03u", (unsigned)(v->accept_real_usec / 1000 % 1000));
		puts_(o, b);
		break;
	case LF_TW:
		put_num(o, v->tw);
		break;
	case LF_TC:
		put_num(o, v->tc);
		break;
	case LF_TT:
	case LF_TU:
		put_num(o, v->tt);
		break;
	case LF_TD:
		put_num(o, v->tw < 0 || v->tc < 0 || v->tt < 0 ? -1 : v->tt - v->tw - v->tc);
		break;
	case LF_TH:
	case LF_STATUS:
		put_num(o, 0);
		break;
	case LF_BYTES_OUT:
		put_num(o, (long long)v->bytes_out);
		break;
	case LF_BYTES_IN:
		put_num(o, (long long)v->bytes_in);
		break;
	case LF_TERM:
	case LF_TERMC:
		put(o, v->term && v->term[0] ? v->term : "--", 2);
		if (n->kind == LF_TERMC)
			puts_(o, "--");
		break;
	case LF_AC:
		put_num(o, v->ac);
		break;
	case LF_FC:
		put_num(o, v->fc);
		break;
	case LF_BC:
		put_num(o, v->bc);
		break;
	case LF_SC:
		put_num(o, v->sc);
		break;
	case LF_RC:
		if (v->redispatched)
			puts_(o, "+");
		put_num(o, v->rc);
		break;
	case LF_SQ:
		put_num(o, v->sq);
		break;
	case LF_BQ:
		put_num(o, v->bq);
		break;
	case LF_PID:
		put_num(o, v->pid);
		break;
	case LF_HOST:
		put_text(o, v->hostname, n->flags);
		break;
	case LF_LC:
		put_num(o, (long long)v->log_counter);
		break;
	case LF_RT:
		put_num(o, (long long)v->session_counter);
		break;
	case LF_DASH:
		put_text(o, NULL, n->flags);
		break;
	}
}

size_t lf_render(const struct lf_format *f, const struct lf_values *v, char *buf, size_t len)
{
	struct lf_out o = { buf, len, 0 };
	int last_space = 1; /* HAProxy writes no leading space */
	size_t i;

	for (i = 0; i < f->nn; i++) {
		if (f->n[i].kind == LF_SEP) {
			if (!last_space)
				put(&o, " ", 1);
			last_space = 1;
			continue;
		}
		render_var(&o, &f->n[i], v);
		/* HAProxy: absent captures leave the separator state alone */
		if (f->n[i].kind != LF_EMPTY)
			last_space = 0;
	}
	if (len)
		buf[o.pos] = '\0';
	return o.pos;
}
