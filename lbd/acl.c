/* ACLs and conditions: HAProxy's syntax (configuration manual, section 7),
 * for the fetches lbd's built-in HTTP services and its traffic rules can
 * answer. Pure. */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cfgmsg.h"
#include "acl.h"
#include "payload.h"

enum acl_kind {
	ACL_K_BOOL, /* no pattern: always_true, always_false */
	ACL_K_INT,
	ACL_K_STR, /* matched as the expression's match says */
	ACL_K_IP,
};

static const struct {
	const char *name;
	enum acl_fetch fetch;
	enum acl_kind kind;
	enum acl_match match; /* ACL_K_STR: without -m */
	int arg;              /* 1: takes a mandatory argument in parentheses */
} acl_fetches[] = {
	{ "always_true", ACL_F_TRUE, ACL_K_BOOL, ACL_M_STR, 0 },
	{ "always_false", ACL_F_FALSE, ACL_K_BOOL, ACL_M_STR, 0 },
	{ "nbsrv", ACL_F_NBSRV, ACL_K_INT, ACL_M_STR, 1 },
	{ "path", ACL_F_PATH, ACL_K_STR, ACL_M_STR, 0 },
	{ "path_beg", ACL_F_PATH, ACL_K_STR, ACL_M_BEG, 0 },
	{ "path_end", ACL_F_PATH, ACL_K_STR, ACL_M_END, 0 },
	{ "path_sub", ACL_F_PATH, ACL_K_STR, ACL_M_SUB, 0 },
	{ "src", ACL_F_SRC, ACL_K_IP, ACL_M_STR, 0 },
	{ "dst_port", ACL_F_DST_PORT, ACL_K_INT, ACL_M_STR, 0 },
	{ "http_auth", ACL_F_HTTP_AUTH, ACL_K_BOOL, ACL_M_STR, 1 },
	{ "hdr", ACL_F_HDR, ACL_K_STR, ACL_M_STR, 1 },
	{ "hdr_beg", ACL_F_HDR, ACL_K_STR, ACL_M_BEG, 1 },
	{ "hdr_end", ACL_F_HDR, ACL_K_STR, ACL_M_END, 1 },
	{ "hdr_sub", ACL_F_HDR, ACL_K_STR, ACL_M_SUB, 1 },
	{ "req.len", ACL_F_REQ_LEN, ACL_K_INT, ACL_M_STR, 0 },
	{ "req_len", ACL_F_REQ_LEN, ACL_K_INT, ACL_M_STR, 0 },
	{ "req.ssl_hello_type", ACL_F_SSL_HELLO, ACL_K_INT, ACL_M_STR, 0 },
	{ "req_ssl_hello_type", ACL_F_SSL_HELLO, ACL_K_INT, ACL_M_STR, 0 },
	{ "req.ssl_sni", ACL_F_SSL_SNI, ACL_K_STR, ACL_M_STR, 0 },
	{ "req_ssl_sni", ACL_F_SSL_SNI, ACL_K_STR, ACL_M_STR, 0 },
};

#define ACL_NFETCHES (sizeof(acl_fetches) / sizeof(acl_fetches[0]))

static void acl_expr_free(struct acl_expr *e)
{
	size_t i;

	free(e->arg);
	for (i = 0; i < e->nregs; i++)
		regfree(&e->regs[i]);
	free(e->regs);
	for (i = 0; i < e->nstrs; i++)
		free(e->strs[i]);
	free(e->strs);
	free(e->ranges);
	free(e->nets);
	free(e->plens);
}

static void acl_free(struct acl *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->nexprs; i++)
		acl_expr_free(&a->exprs[i]);
	free(a->exprs);
	free(a->name);
	free(a);
}

static int acl_int(const char *s, int64_t *v)
{
	char *end;
	long long x;

	errno = 0;
	x = strtoll(s, &end, 10);
	if (!*s || *end || errno)
		return -1;
	*v = x;
	return 0;
}

/* Integer patterns: "N", "A:B", and "lt|le|gt|ge|eq N" (section 7.1.3). */
static int acl_int_patterns(
	struct acl_expr *e, const char *const *w, size_t n, char *err, size_t errlen)
{
	static const char *const ops[] = { "eq", "lt", "le", "gt", "ge" };
	struct acl_range *r;
	const char *colon;
	int64_t v = 0, v2 = 0;
	size_t i, k;

	for (i = 0; i < n; i++) {
		r = cpha_array_push(&e->ranges, &e->nranges, sizeof(*r));
		if (!r)
			goto oom;
		for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
			if (strcmp(w[i], ops[k]) == 0)
				break;
		if (k < sizeof(ops) / sizeof(ops[0])) {
			if (i + 1 == n || acl_int(w[i + 1], &v) < 0) {
				snprintf(err, errlen, "'%s' needs an integer after it", w[i]);
				return -1;
			}
			i++;
			r->lo = k == 3 ? v + 1 : k == 4 ? v : k == 0 ? v : INT64_MIN;
			r->hi = k == 1 ? v - 1 : k == 2 ? v : k == 0 ? v : INT64_MAX;
			continue;
		}
		colon = strchr(w[i], ':');
		if (colon) {
			char lo[32];
			size_t len = (size_t)(colon - w[i]);

			if (len >= sizeof(lo))
				goto bad;
			memcpy(lo, w[i], len);
			lo[len] = '\0';
			if ((len && acl_int(lo, &v) < 0) ||
				(colon[1] && acl_int(colon + 1, &v2) < 0))
				goto bad;
			r->lo = len ? v : INT64_MIN;
			r->hi = colon[1] ? v2 : INT64_MAX;
			continue;
		}
		if (acl_int(w[i], &v) < 0)
			goto bad;
		r->lo = r->hi = v;
	}
	return 0;
bad:
	snprintf(err, errlen, "'%s' is not an integer or a range", w[i]);
	return -1;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

static int acl_str_patterns(
	struct acl_expr *e, const char *const *w, size_t n, char *err, size_t errlen)
{
	char **s;
	size_t i;

	for (i = 0; i < n; i++) {
		s = cpha_array_push(&e->strs, &e->nstrs, sizeof(*s));
		if (!s || !(*s = strdup(w[i]))) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	return 0;
}

/* -m reg: each pattern compiled; -i makes them ignore case, as in HAProxy */
static int acl_reg_patterns(
	struct acl_expr *e, const char *const *w, size_t n, char *err, size_t errlen)
{
	char msg[128];
	size_t i;
	int r;

	if (acl_str_patterns(e, w, n, err, errlen) < 0)
		return -1;
	e->regs = calloc(n ? n : 1, sizeof(*e->regs));
	if (!e->regs) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (i = 0; i < n; i++) {
		r = regcomp(&e->regs[i], w[i], REG_EXTENDED | REG_NOSUB | (e->icase ? REG_ICASE : 0));
		if (r != 0) {
			regerror(r, &e->regs[i], msg, sizeof(msg));
			snprintf(err, errlen, "regular expression '%s': %s", w[i], msg);
			return -1;
		}
		e->nregs++;
	}
	return 0;
}

static int acl_ip_patterns(
	struct acl_expr *e, const char *const *w, size_t n, char *err, size_t errlen)
{
	const char *why = NULL;
	size_t i;

	e->nets = calloc(n ? n : 1, sizeof(*e->nets));
	e->plens = calloc(n ? n : 1, sizeof(*e->plens));
	if (!e->nets || !e->plens) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (cpha_parse_prefix(w[i], &e->nets[i], &e->plens[i], &why) < 0) {
			snprintf(err, errlen, "'%s' is not an address or a network: %s", w[i],
				why ? why : "invalid");
			return -1;
		}
		e->nnets++;
	}
	return 0;
}

/* -m WORD for string samples: an enum acl_match, or -1. */
static int acl_match_word(const char *s)
{
	static const char *const words[] = { "str", "beg", "end", "sub", "found", "reg" };
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcmp(s, words[i]) == 0)
			return (int)i;
	return -1;
}

/* "fetch[(arg)] [-i] [-m str|beg|end|sub|found|reg] [--] pattern..." into e. */
static int acl_expr_parse(
	struct acl_expr *e, const char *const *w, size_t n, char *err, size_t errlen)
{
	char name[64];
	const char *paren = strchr(w[0], '('), *arg = NULL;
	size_t i, len = paren ? (size_t)(paren - w[0]) : strlen(w[0]);
	enum acl_kind kind;
	int k;

	memset(e, 0, sizeof(*e));
	if (len >= sizeof(name)) {
		snprintf(err, errlen, "unknown fetch method '%s'", w[0]);
		return -1;
	}
	memcpy(name, w[0], len);
	name[len] = '\0';
	for (i = 0; i < ACL_NFETCHES; i++)
		if (strcmp(acl_fetches[i].name, name) == 0)
			break;
	if (i == ACL_NFETCHES) {
		snprintf(err, errlen,
			"unknown fetch method '%s' (lbd knows src, dst_port, req.len, "
			"req.ssl_hello_type, req.ssl_sni, nbsrv, path, path_beg, path_end, "
			"path_sub, hdr, hdr_beg, hdr_end, hdr_sub, http_auth, always_true and "
			"always_false)",
			name);
		return -1;
	}
	e->fetch = acl_fetches[i].fetch;
	e->match = acl_fetches[i].match;
	kind = acl_fetches[i].kind;
	if (paren) {
		size_t alen = strlen(paren + 1);

		if (!alen || paren[alen] != ')') {
			snprintf(err, errlen, "'%s': missing closing ')'", w[0]);
			return -1;
		}
		arg = paren + 1;
		if (alen > 1) {
			e->arg = strndup(arg, alen - 1);
			if (!e->arg) {
				snprintf(err, errlen, "out of memory");
				return -1;
			}
		}
	}
	if (acl_fetches[i].arg && !e->arg) {
		snprintf(err, errlen, "fetch method '%s' needs an argument: %s(NAME)", name, name);
		return -1;
	}
	if (!acl_fetches[i].arg && paren) {
		snprintf(err, errlen, "fetch method '%s' takes no argument", name);
		return -1;
	}
	for (i = 1; i < n && w[i][0] == '-'; i++) {
		if (strcmp(w[i], "--") == 0) {
			i++;
			break;
		} else if (strcmp(w[i], "-i") == 0) {
			e->icase = 1;
		} else if (strcmp(w[i], "-m") == 0 && i + 1 < n && kind == ACL_K_STR &&
			   (k = acl_match_word(w[i + 1])) >= 0) {
			e->match = (enum acl_match)k;
			i++;
		} else {
			snprintf(err, errlen,
				"'%s %s': lbd supports only -i and, on strings, -m "
				"str|beg|end|sub|found|reg here",
				w[0], w[i]);
			return -1;
		}
	}
	if (e->match == ACL_M_FOUND && i < n) {
		snprintf(err, errlen, "'%s -m found' takes no pattern; unexpected '%s'", w[0],
			w[i]);
		return -1;
	}
	if (kind == ACL_K_BOOL && i < n) {
		snprintf(err, errlen, "'%s' takes no pattern; unexpected '%s'", w[0], w[i]);
		return -1;
	}
	if (kind == ACL_K_INT)
		return acl_int_patterns(e, w + i, n - i, err, errlen);
	if (kind == ACL_K_IP)
		return acl_ip_patterns(e, w + i, n - i, err, errlen);
	if (kind == ACL_K_STR && e->match == ACL_M_REG)
		return acl_reg_patterns(e, w + i, n - i, err, errlen);
	if (kind == ACL_K_STR)
		return acl_str_patterns(e, w + i, n - i, err, errlen);
	return 0;
}

static struct acl *acl_find(const struct acl_list *list, const char *name)
{
	size_t i;

	for (i = 0; list && i < list->n; i++)
		if (strcmp(list->acls[i]->name, name) == 0)
			return list->acls[i];
	return NULL;
}

/* Append one expression parsed from w to acl a. */
static int acl_add_expr(struct acl *a, const char *const *w, size_t n, char *err, size_t errlen)
{
	struct acl_expr e, *slot;

	if (acl_expr_parse(&e, w, n, err, errlen) < 0) {
		acl_expr_free(&e);
		return -1;
	}
	slot = cpha_array_push(&a->exprs, &a->nexprs, sizeof(*slot));
	if (!slot) {
		acl_expr_free(&e);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	*slot = e;
	return 0;
}

int acl_define(struct acl_list *list, const char *const *w, size_t n, char *err, size_t errlen)
{
	struct acl *a, **slot;
	const char *p;

	if (n < 2) {
		snprintf(err, errlen, "'acl' needs a name and a criterion");
		return -1;
	}
	for (p = w[0]; *p; p++)
		if (!(*p == '_' || *p == '-' || *p == '.' || *p == ':' ||
			    (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			    (*p >= '0' && *p <= '9'))) {
			snprintf(err, errlen, "ACL name '%s' has a forbidden character '%c'", w[0],
				*p);
			return -1;
		}
	a = acl_find(list, w[0]);
	if (a)
		return acl_add_expr(a, w + 1, n - 1, err, errlen);
	a = calloc(1, sizeof(*a));
	if (!a || !(a->name = strdup(w[0])))
		goto oom;
	if (acl_add_expr(a, w + 1, n - 1, err, errlen) < 0) {
		acl_free(a);
		return -1;
	}
	slot = cpha_array_push(&list->acls, &list->n, sizeof(*slot));
	if (!slot)
		goto oom;
	*slot = a;
	return 0;
oom:
	acl_free(a);
	snprintf(err, errlen, "out of memory");
	return -1;
}

/* HAProxy's predefined ACLs that lbd can evaluate (section 7.4). */
static struct acl *acl_predefined(const char *name, char *err, size_t errlen)
{
	static const struct {
		const char *name;
		const char *w[3];
		size_t n;
	} pre[] = {
		{ "TRUE", { "always_true" }, 1 },
		{ "FALSE", { "always_false" }, 1 },
		{ "LOCALHOST", { "src", "127.0.0.1/8", "::1" }, 3 },
	};
	struct acl *a;
	size_t i;

	for (i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (strcmp(pre[i].name, name) == 0)
			break;
	if (i == sizeof(pre) / sizeof(pre[0]))
		return NULL;
	a = calloc(1, sizeof(*a));
	if (!a || !(a->name = strdup(name)) || acl_add_expr(a, pre[i].w, pre[i].n, err, errlen)) {
		acl_free(a);
		return NULL;
	}
	return a;
}

struct acl_cond *acl_cond_parse(
	const struct acl_list *list, const char *const *w, size_t n, char *err, size_t errlen)
{
	struct acl_cond *c = calloc(1, sizeof(*c));
	struct acl_suite *s = NULL;
	struct acl_term *t;
	const char *word;
	size_t i, j;
	int neg;

	if (!c)
		goto oom;
	if (n < 1 || (strcmp(w[0], "if") != 0 && strcmp(w[0], "unless") != 0)) {
		snprintf(err, errlen, "expected 'if' or 'unless'");
		goto fail;
	}
	c->unless = w[0][0] == 'u';
	if (n < 2) {
		snprintf(err, errlen, "'%s' needs a condition", w[0]);
		goto fail;
	}
	for (i = 1; i < n; i++) {
		word = w[i];
		if (strcmp(word, "||") == 0 || strcmp(word, "or") == 0) {
			if (!s || !s->nterms) {
				snprintf(err, errlen, "'%s' without a condition before it", word);
				goto fail;
			}
			s = NULL;
			continue;
		}
		neg = 0;
		while (word[0] == '!') {
			neg = !neg;
			word++;
			if (!word[0] && i + 1 < n)
				word = w[++i];
		}
		if (!word[0]) {
			snprintf(err, errlen, "'!' without an ACL after it");
			goto fail;
		}
		if (!s) {
			s = cpha_array_push(&c->suites, &c->nsuites, sizeof(*s));
			if (!s)
				goto oom;
		}
		t = cpha_array_push(&s->terms, &s->nterms, sizeof(*t));
		if (!t)
			goto oom;
		t->neg = neg;
		if (strcmp(word, "{") == 0) {
			for (j = i + 1; j < n && strcmp(w[j], "}") != 0; j++)
				;
			if (j == n) {
				snprintf(err, errlen, "missing closing '}' in condition");
				goto fail;
			}
			if (j == i + 1) {
				snprintf(err, errlen, "empty '{ }' in condition");
				goto fail;
			}
			t->anon = 1;
			t->acl = calloc(1, sizeof(*t->acl));
			if (!t->acl || !(t->acl->name = strdup("anonymous")))
				goto oom;
			if (acl_add_expr(t->acl, w + i + 1, j - i - 1, err, errlen) < 0)
				goto fail;
			i = j;
			continue;
		}
		if (strcmp(word, "}") == 0) {
			snprintf(err, errlen, "'}' without '{' in condition");
			goto fail;
		}
		t->acl = acl_find(list, word);
		if (t->acl)
			continue;
		err[0] = '\0';
		t->acl = acl_predefined(word, err, errlen);
		if (!t->acl) {
			if (!err[0])
				snprintf(err, errlen, "no such ACL: '%s'", word);
			goto fail;
		}
		t->anon = 1;
	}
	if (!s || !s->nterms) {
		snprintf(err, errlen, "condition ends with '||'");
		goto fail;
	}
	return c;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	acl_cond_free(c);
	return NULL;
}

static bool acl_int_match(const struct acl_expr *e, int64_t v)
{
	size_t i;

	if (!e->nranges)
		return v != 0;
	for (i = 0; i < e->nranges; i++)
		if (v >= e->ranges[i].lo && v <= e->ranges[i].hi)
			return true;
	return false;
}

static bool acl_str_match(const struct acl_expr *e, const char *s)
{
	size_t i, len, slen;
	const char *p;

	if (!s)
		return false;
	if (e->match == ACL_M_FOUND)
		return true;
	if (!e->nstrs)
		return s[0] != '\0';
	slen = strlen(s);
	for (i = 0; i < e->nstrs; i++) {
		p = e->strs[i];
		len = strlen(p);
		switch (e->match) {
		case ACL_M_STR:
			if ((e->icase ? strcasecmp(s, p) : strcmp(s, p)) == 0)
				return true;
			break;
		case ACL_M_BEG:
			if (len <= slen && (e->icase ? strncasecmp(s, p, len) : strncmp(s, p, len)) == 0)
				return true;
			break;
		case ACL_M_END:
			if (len <= slen && (e->icase ? strcasecmp(s + slen - len, p)
						     : strcmp(s + slen - len, p)) == 0)
				return true;
			break;
		case ACL_M_SUB:
			if (e->icase ? strcasestr(s, p) != NULL : strstr(s, p) != NULL)
				return true;
			break;
		case ACL_M_REG:
			if (regexec(&e->regs[i], s, 0, NULL, 0) == 0)
				return true;
			break;
		case ACL_M_FOUND:
			return true;
		}
	}
	return false;
}

/* Bits of a (network byte order) address under a prefix length. */
static bool acl_prefix_eq(const uint8_t *a, const uint8_t *b, unsigned plen)
{
	unsigned full = plen / 8, rest = plen % 8;

	if (memcmp(a, b, full) != 0)
		return false;
	return !rest || ((a[full] ^ b[full]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

static bool acl_ip_match(const struct acl_expr *e, const struct sockaddr *sa)
{
	const uint8_t *ip;
	uint8_t v4[4];
	int fam;
	size_t i;

	if (!sa)
		return false;
	fam = sa->sa_family;
	if (fam == AF_INET) {
		ip = (const uint8_t *)&((const struct sockaddr_in *)(const void *)sa)->sin_addr;
	} else if (fam == AF_INET6) {
		ip = (const uint8_t *)&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
		if (IN6_IS_ADDR_V4MAPPED((const struct in6_addr *)(const void *)ip)) {
			memcpy(v4, ip + 12, 4);
			ip = v4;
			fam = AF_INET;
		}
	} else {
		return false;
	}
	for (i = 0; i < e->nnets; i++) {
		const struct sockaddr *n = (const struct sockaddr *)&e->nets[i].ss;
		const uint8_t *nip;

		if (n->sa_family != fam)
			continue;
		nip = fam == AF_INET
			      ? (const uint8_t *)&((const struct sockaddr_in *)(const void *)n)
					->sin_addr
			      : (const uint8_t *)&((const struct sockaddr_in6 *)(const void *)n)
					->sin6_addr;
		if (acl_prefix_eq(ip, nip, e->plens[i]))
			return true;
	}
	return false;
}

/* A sample from the client's first bytes: its verdict once matched, or
 * MISS while more bytes could still give it. */
static enum acl_verdict acl_payload(enum payload_result r, const struct acl_facts *f)
{
	if (r == PAYLOAD_MORE && !f->final)
		return ACL_MISS;
	return ACL_FAIL;
}

static enum acl_verdict acl_yes(bool b)
{
	return b ? ACL_PASS : ACL_FAIL;
}

static enum acl_verdict acl_expr_exec(const struct acl_expr *e, const struct acl_facts *f)
{
	char sni[PAYLOAD_SNI_MAX + 1];
	enum payload_result r;
	int v;

	switch (e->fetch) {
	case ACL_F_TRUE:
		return ACL_PASS;
	case ACL_F_FALSE:
		return ACL_FAIL;
	case ACL_F_NBSRV:
		v = f->nbsrv ? f->nbsrv(f->userdata, e->arg) : -1;
		return acl_yes(v >= 0 && acl_int_match(e, v));
	case ACL_F_PATH:
		return acl_yes(acl_str_match(e, f->path));
	case ACL_F_SRC:
		return acl_yes(acl_ip_match(e, f->src));
	case ACL_F_DST_PORT:
		return acl_yes(acl_int_match(e, f->dst_port));
	case ACL_F_HTTP_AUTH:
		return acl_yes(f->http_auth && f->http_auth(f->userdata, e->arg));
	case ACL_F_HDR:
		return acl_yes(f->hdr && acl_str_match(e, f->hdr(f->userdata, e->arg)));
	case ACL_F_REQ_LEN:
		/* HAProxy: the length so far, which may still grow */
		if (!f->payload_len && !f->final)
			return ACL_MISS;
		return acl_yes(acl_int_match(e, (int64_t)f->payload_len));
	case ACL_F_SSL_HELLO:
		r = payload_ssl_hello_type(f->payload, f->payload_len, &v);
		return r == PAYLOAD_FOUND ? acl_yes(acl_int_match(e, v)) : acl_payload(r, f);
	case ACL_F_SSL_SNI:
		r = payload_ssl_sni(f->payload, f->payload_len, sni);
		return r == PAYLOAD_FOUND ? acl_yes(acl_str_match(e, sni)) : acl_payload(r, f);
	}
	return ACL_FAIL;
}

/* An ACL: any expression passing passes; else any missing misses. */
static enum acl_verdict acl_exec(const struct acl *a, const struct acl_facts *f)
{
	enum acl_verdict r = ACL_FAIL, e;
	size_t i;

	for (i = 0; i < a->nexprs; i++) {
		e = acl_expr_exec(&a->exprs[i], f);
		if (e == ACL_PASS)
			return ACL_PASS;
		if (e == ACL_MISS)
			r = ACL_MISS;
	}
	return r;
}

/* HAProxy's three-valued logic: a suite (AND) fails at its first failing
 * term and misses if a term misses; the condition (OR) passes at its
 * first passing suite and misses if a suite misses; '!' and 'unless'
 * leave a miss as it is. */
enum acl_verdict acl_cond_exec(const struct acl_cond *c, const struct acl_facts *f)
{
	enum acl_verdict r = ACL_FAIL, suite, t;
	size_t i, j;

	if (!c)
		return ACL_PASS;
	for (i = 0; i < c->nsuites && r != ACL_PASS; i++) {
		suite = ACL_PASS;
		for (j = 0; j < c->suites[i].nterms && suite != ACL_FAIL; j++) {
			const struct acl_term *term = &c->suites[i].terms[j];

			t = acl_exec(term->acl, f);
			if (term->neg && t != ACL_MISS)
				t = t == ACL_PASS ? ACL_FAIL : ACL_PASS;
			if (t == ACL_FAIL || (t == ACL_MISS && suite == ACL_PASS))
				suite = t;
		}
		if (suite == ACL_PASS || (suite == ACL_MISS && r == ACL_FAIL))
			r = suite;
	}
	if (c->unless && r != ACL_MISS)
		r = r == ACL_PASS ? ACL_FAIL : ACL_PASS;
	return r;
}

bool acl_cond_eval(const struct acl_cond *c, const struct acl_facts *f)
{
	struct acl_facts final = *f;

	final.final = true;
	return acl_cond_exec(c, &final) == ACL_PASS;
}

unsigned acl_cond_needs(const struct acl_cond *c)
{
	unsigned needs = 0;
	size_t i, j, k;

	for (i = 0; c && i < c->nsuites; i++)
		for (j = 0; j < c->suites[i].nterms; j++) {
			const struct acl *a = c->suites[i].terms[j].acl;

			for (k = 0; k < a->nexprs; k++)
				switch (a->exprs[k].fetch) {
				case ACL_F_REQ_LEN:
				case ACL_F_SSL_HELLO:
				case ACL_F_SSL_SNI:
					needs |= ACL_NEEDS_PAYLOAD;
					break;
				case ACL_F_PATH:
				case ACL_F_HDR:
				case ACL_F_HTTP_AUTH:
					needs |= ACL_NEEDS_HTTP;
					break;
				default:
					break;
				}
		}
	return needs;
}

int acl_cond_walk(const struct acl_cond *c, enum acl_fetch fetch,
	int (*fn)(void *userdata, const char *name), void *userdata)
{
	size_t i, j, k;
	int r;

	for (i = 0; c && i < c->nsuites; i++)
		for (j = 0; j < c->suites[i].nterms; j++) {
			const struct acl *a = c->suites[i].terms[j].acl;

			for (k = 0; k < a->nexprs; k++)
				if (a->exprs[k].fetch == fetch && a->exprs[k].arg &&
					(r = fn(userdata, a->exprs[k].arg)) != 0)
					return r;
		}
	return 0;
}

void acl_cond_free(struct acl_cond *c)
{
	size_t i, j;

	if (!c)
		return;
	for (i = 0; i < c->nsuites; i++) {
		for (j = 0; j < c->suites[i].nterms; j++)
			if (c->suites[i].terms[j].anon)
				acl_free(c->suites[i].terms[j].acl);
		free(c->suites[i].terms);
	}
	free(c->suites);
	free(c);
}

void acl_list_free(struct acl_list *list)
{
	size_t i;

	for (i = 0; i < list->n; i++)
		acl_free(list->acls[i]);
	free(list->acls);
	list->acls = NULL;
	list->n = 0;
}
