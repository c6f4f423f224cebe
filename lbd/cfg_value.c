/* The value parsers every section uses: numbers, times, addresses, names
 * and words from a fixed list. Each reports its error at the line it is
 * given, naming where (the section or object) it was written. */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "duration.h"
#include "cfg_ctx.h"

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

/* HAProxy 2.6 reads a port with atoi() once its first character is a
 * digit, so text after the digits is ignored without a word: kind's IPv6
 * load balancer binds ":::6443;". The same text is copied to buf with the
 * tail cut. */
static const char *cfg_port_cut(const char *s, char *buf, size_t len)
{
	const char *port = cfg_port_part(s);
	size_t digits = strspn(port, "0123456789");

	if (!digits || !port[digits] || (size_t)(port - s) + digits >= len)
		return s;
	memcpy(buf, s, (size_t)(port - s) + digits);
	buf[(size_t)(port - s) + digits] = '\0';
	return buf;
}

int lbd_cfg_addr(struct cfg_ctx *ctx, unsigned line, const char *what, const char *s,
	unsigned flags, struct cpha_addr *a, const char *where)
{
	const char *why = NULL, *port = cfg_port_part(s);
	char cut[CPHA_ADDR_STRLEN + 16];

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
	if (cpha_parse_addr(cfg_port_cut(s, cut, sizeof(cut)), flags, a, &why) < 0) {
		lbd_cfg_err(ctx, line, "%s '%s': %s (%s)", what, s, why, where);
		return -1;
	}
	return 0;
}

int lbd_cfg_addr_prefix(const char *s, const char *proto, char *buf, size_t len)
{
	size_t n = strlen(proto);

	if (strncmp(s, proto, n) == 0 && s[n] == '@')
		snprintf(buf, len, "%s", s + n + 1);
	else if (strncmp(s, proto, n) == 0 && (s[n] == '4' || s[n] == '6') && s[n + 1] == '@')
		snprintf(buf, len, "ipv%c@%s", s[n], s + n + 2);
	else
		snprintf(buf, len, "%s", s);
	return strchr(buf, '@') && strncmp(buf, "ipv4@", 5) && strncmp(buf, "ipv6@", 5) ? -1 : 0;
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

int lbd_cfg_lookup(const char *const *names, const char *s)
{
	int i;

	for (i = 0; names[i]; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}
