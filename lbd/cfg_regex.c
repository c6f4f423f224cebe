/* The shape check lbd runs on every regular expression of its configuration
 * before regcomp(3): refuse the patterns glibc takes seconds or gigabytes to
 * compile. Pure: no I/O, messages through lbd_cfg_err(). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cfg_ctx.h"

/* glibc's regcomp copies a repeated subexpression once per repetition (a+
 * is two copies, a{2,5} five) and its epsilon closures grow much faster
 * than that when repetitions nest or stack: "E*+++++++" or
 * "((((((((a*)+)+)+)+)+)+)+)" take seconds to gigabytes. lbd refuses those
 * shapes (the first is undefined in POSIX, the second the classic
 * catastrophic pattern) and bounds the expanded size, which keeps regcomp
 * within milliseconds. */
#define CFG_RE_MAX_NODES 1024ULL

struct cfg_re {
	const char *p;
	unsigned quants; /* repetitions seen so far */
	int stacked;     /* a repetition of a repetition: a*+, a{2}? */
	int nested;      /* a repeated group holding a repetition: (a+)* */
	int backref;     /* \1 .. \9: undefined in POSIX EREs, exponential to match */
	char pcre;       /* \d, (?i) ...: PCRE syntax (HAProxy's engine), not POSIX */
};

static unsigned long long cfg_re_sat(unsigned long long v)
{
	return v > CFG_RE_MAX_NODES ? CFG_RE_MAX_NODES + 1 : v;
}

static unsigned long long cfg_re_alt(struct cfg_re *r, int depth);

/* One atom; *inner tells whether it is a group holding a repetition. */
static unsigned long long cfg_re_atom(struct cfg_re *r, int depth, int *inner)
{
	const char *p = r->p;
	unsigned long long c;
	unsigned q = r->quants;
	char close;

	*inner = 0;
	if (p[0] == '(' && p[1] == '?')
		r->pcre = '?';
	if (*p == '(') {
		if (depth >= 64) {
			r->p += strlen(r->p);
			return CFG_RE_MAX_NODES + 1;
		}
		r->p++;
		c = cfg_re_alt(r, depth + 1);
		if (*r->p == ')')
			r->p++;
		*inner = r->quants > q;
		return cfg_re_sat(c + 1);
	}
	if (*p == '[') { /* a bracket expression is one node */
		p += p[1] == '^' ? 2 : 1;
		if (*p == ']')
			p++;
		while (*p && *p != ']') {
			if (*p == '[' && (p[1] == ':' || p[1] == '=' || p[1] == '.')) {
				close = p[1];
				for (p += 2; *p && !(p[0] == close && p[1] == ']'); p++)
					;
				p += *p ? 2 : 0;
			} else {
				p++;
			}
		}
		r->p = *p ? p + 1 : p;
		return 1;
	}
	if (*p == '\\' && p[1]) {
		r->backref |= p[1] >= '1' && p[1] <= '9';
		if (!r->pcre && strchr("dDhHvVRNKpPXxQEGAzZ", p[1]))
			r->pcre = p[1];
		r->p += 2;
		return 1;
	}
	r->p++;
	return 1;
}

/* {m}, {m,} or {m,n} at *pp: how many copies glibc makes (0: not one). */
static unsigned long long cfg_re_interval(const char **pp)
{
	const char *p = *pp + 1;
	unsigned long long m = 0, n;

	if (!isdigit((unsigned char)*p))
		return 0;
	for (; isdigit((unsigned char)*p); p++)
		m = m > 100000 ? m : m * 10 + (unsigned long long)(*p - '0');
	n = m;
	if (*p == ',') {
		n = m + 1;
		if (isdigit((unsigned char)*++p))
			for (n = 0; isdigit((unsigned char)*p); p++)
				n = n > 100000 ? n : n * 10 + (unsigned long long)(*p - '0');
	}
	if (*p != '}')
		return 0;
	*pp = p + 1;
	return n ? n : 1;
}

static unsigned long long cfg_re_seq(struct cfg_re *r, int depth)
{
	unsigned long long total = 0, c, copies;
	unsigned n;
	int inner;

	while (*r->p && *r->p != '|' && *r->p != ')') {
		c = cfg_re_atom(r, depth, &inner);
		for (n = 0;; n++) {
			if (*r->p == '*' || *r->p == '?') {
				c = c + 1;
				r->p++;
			} else if (*r->p == '+') {
				c = 2 * c + 1;
				r->p++;
			} else if (*r->p == '{' && (copies = cfg_re_interval(&r->p)) > 0) {
				c = c * copies + 1;
			} else {
				break;
			}
			c = cfg_re_sat(c);
		}
		r->quants += n;
		r->stacked |= n > 1;
		r->nested |= n > 0 && inner;
		total = cfg_re_sat(total + c);
	}
	return total;
}

static unsigned long long cfg_re_alt(struct cfg_re *r, int depth)
{
	unsigned long long total = cfg_re_seq(r, depth);

	while (*r->p == '|') {
		r->p++;
		total = cfg_re_sat(total + cfg_re_seq(r, depth) + 1);
	}
	return total;
}

/* Patterns regcomp compiles quickly; the others are errors. */
int lbd_cfg_re_ok(struct cfg_ctx *ctx, unsigned line, const char *re, const char *where)
{
	struct cfg_re r = { re, 0, 0, 0, 0, 0 };
	unsigned long long cost = 0;
	const char *why = NULL;

	while (*r.p) {
		cost = cfg_re_sat(cost + cfg_re_alt(&r, 0));
		if (*r.p == ')')
			r.p++;
	}
	if (r.pcre == '?')
		why = "'(?' groups are PCRE syntax; lbd's regexes are POSIX extended ones";
	else if (r.pcre)
		why = r.pcre == 'd' || r.pcre == 'D'
			      ? "'\\d' is PCRE syntax; POSIX regexes write [[:digit:]] or [0-9]"
			      : "PCRE escapes such as '\\h' or '\\x41' are not POSIX; lbd's "
				"regexes are POSIX extended ones";
	else if (r.backref)
		why = "back-references are not supported by lbd";
	else if (r.stacked)
		why = "a repetition of a repetition (such as 'a*+') is undefined in POSIX";
	else if (r.nested)
		why = "repeating a group that holds a repetition (such as '(a+)*') is not "
		      "supported by lbd: glibc compiles it in exponential time";
	else if (cost > CFG_RE_MAX_NODES)
		why = "its repetitions expand past 1024 nodes; lbd refuses such a regex";
	if (why)
		lbd_cfg_err(ctx, line, "'tcp-check expect rstring': regex '%s': %s (%s)", re, why,
			where);
	return !why;
}
