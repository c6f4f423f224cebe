/* vipd's configuration: values as keepalived writes them (numbers,
 * decimal seconds, booleans, addresses, interface names, commands) and
 * the reading of a block with a keyword table. */
#include <ctype.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "duration.h"
#include "cfg-internal.h"

int vipd_cfg_nargs(struct cfg_ctx *ctx, const struct cpha_conf_node *n, size_t min, size_t max,
	const char *where)
{
	if (n->n - 1 < min) {
		vipd_cfg_err(ctx, n->loc, "'%s' needs %s (%s)", n->w[0],
			min == 1 ? "a value" : "more values", where);
		return -1;
	}
	if (n->n - 1 > max) {
		vipd_cfg_err(
			ctx, n->loc, "'%s': unexpected '%s' (%s)", n->w[0], n->w[max + 1], where);
		return -1;
	}
	return 0;
}

int vipd_cfg_uint(struct cfg_ctx *ctx, const struct cpha_conf_node *n, size_t i,
	unsigned long long min, unsigned long long max, unsigned long long *out, const char *where)
{
	const char *s = n->w[i], *p;
	unsigned long long v = 0;

	for (p = s; *p >= '0' && *p <= '9' && v <= max; p++)
		v = v * 10 + (unsigned long long)(*p - '0');
	if (p == s || *p || v < min || v > max) {
		vipd_cfg_err(ctx, n->loc,
			"'%s' must be a whole number from %llu to %llu, not '%s' (%s)", n->w[0],
			min, max, s, where);
		return -1;
	}
	*out = v;
	return 0;
}

int vipd_cfg_int(struct cfg_ctx *ctx, const struct cpha_conf_node *n, size_t i, long min, long max,
	long *out, const char *where)
{
	const char *s = n->w[i], *p = s;
	unsigned long long v = 0, lim = (unsigned long long)(max > -min ? max : -min);
	int neg = 0;

	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	for (s = p; *p >= '0' && *p <= '9' && v <= lim; p++)
		v = v * 10 + (unsigned long long)(*p - '0');
	if (p == s || *p || v > lim || (neg ? -(long)v < min : (long)v > max)) {
		vipd_cfg_err(ctx, n->loc,
			"'%s' must be a whole number from %ld to %ld, not '%s' (%s)", n->w[0], min,
			max, n->w[i], where);
		return -1;
	}
	*out = neg ? -(long)v : (long)v;
	return 0;
}

/* "0.01", "40.95", "1000": seconds as keepalived writes them. */
const char *vipd_cfg_fmt_secs(uint64_t usec, char *buf, size_t len)
{
	uint64_t frac = usec % CPHA_USEC_PER_SEC;
	int digits = 6;

	if (!frac) {
		snprintf(buf, len, "%llu", (unsigned long long)(usec / CPHA_USEC_PER_SEC));
		return buf;
	}
	while (frac % 10 == 0) {
		frac /= 10;
		digits--;
	}
	snprintf(buf, len, "%llu.%0*llu", (unsigned long long)(usec / CPHA_USEC_PER_SEC), digits,
		(unsigned long long)frac);
	return buf;
}

int vipd_cfg_secs(struct cfg_ctx *ctx, const struct cpha_conf_node *n, size_t i, uint64_t min,
	uint64_t max, uint64_t *out, const char *where)
{
	char lo[32], hi[32];
	const char *why = NULL;
	uint64_t v;

	if (cpha_parse_seconds(n->w[i], &v, &why) < 0 || v < min || v > max) {
		vipd_cfg_err(ctx, n->loc,
			"'%s' must be a number of seconds from %s to %s, not '%s' (%s)", n->w[0],
			vipd_cfg_fmt_secs(min, lo, sizeof(lo)),
			vipd_cfg_fmt_secs(max, hi, sizeof(hi)), n->w[i], where);
		return -1;
	}
	*out = v;
	return 0;
}

/* KEYWORD [on|off|true|false|yes|no]; no value means on. */
int vipd_cfg_bool(struct cfg_ctx *ctx, const struct cpha_conf_node *n, bool *out, const char *where)
{
	static const char *const yes[] = { "on", "true", "yes" };
	static const char *const no[] = { "off", "false", "no" };
	size_t i;

	if (vipd_cfg_nargs(ctx, n, 0, 1, where) < 0)
		return -1;
	if (n->n == 1) {
		*out = true;
		return 0;
	}
	for (i = 0; i < CFG_NELEM(yes); i++) {
		if (strcmp(n->w[1], yes[i]) == 0 || strcmp(n->w[1], no[i]) == 0) {
			*out = strcmp(n->w[1], yes[i]) == 0;
			return 0;
		}
	}
	vipd_cfg_err(ctx, n->loc, "'%s' takes on, off, true, false, yes or no, not '%s' (%s)",
		n->w[0], n->w[1], where);
	return -1;
}

/* "weight N [reverse]": the statement of a definition (what NULL, i 0),
 * or the words from i on of a track entry ("NAME weight N [reverse]",
 * what naming the entry's kind), where noreverse_ok also takes
 * "noreverse". */
int vipd_cfg_weight(struct cfg_ctx *ctx, const struct cpha_conf_node *n, size_t i, long max,
	bool noreverse_ok, const char *what, int *weight, bool *reverse, const char *where)
{
	struct cpha_conf_node one = *n;
	char pre[128] = "";
	long v;

	if (!what && vipd_cfg_nargs(ctx, n, 1, 2, where) < 0)
		return -1;
	if (what)
		snprintf(pre, sizeof(pre), "%s '%s': ", what, n->w[0]);
	if (n->n == i)
		return 0; /* a track entry without a weight */
	if (strcmp(n->w[i], "weight") != 0) {
		vipd_cfg_err(ctx, n->loc, "%sunexpected '%s'; only 'weight N' may follow (%s)", pre,
			n->w[i], where);
		return -1;
	}
	if (n->n == i + 1) {
		vipd_cfg_err(ctx, n->loc, "%s'weight' needs a value (%s)", pre, where);
		return -1;
	}
	one.w = (char **)n->w + i; /* messages name 'weight' */
	one.n = n->n - i;
	if (vipd_cfg_int(ctx, &one, 1, -max, max, &v, where) < 0)
		return -1;
	if (n->n == i + 2 ||
		(n->n == i + 3 &&
			(strcmp(n->w[i + 2], "reverse") == 0 ||
				(noreverse_ok && strcmp(n->w[i + 2], "noreverse") == 0)))) {
		*weight = (int)v;
		*reverse = n->n == i + 3 && strcmp(n->w[i + 2], "reverse") == 0;
		return 0;
	}
	if (what)
		vipd_cfg_err(ctx, n->loc, "%sunexpected '%s' after the weight (%s)", pre,
			n->w[i + 2], where);
	else
		vipd_cfg_err(ctx, n->loc,
			"'weight': unexpected '%s'; only 'reverse' may follow (%s)", n->w[2],
			where);
	return -1;
}

/* A unicast address as keepalived writes it: no port, no brackets. */
int vipd_cfg_addr(struct cfg_ctx *ctx, unsigned loc, const char *what, const char *s,
	struct cpha_addr *a, const char *where)
{
	const char *why = "not a numeric IP address";
	int bad = strncmp(s, "ipv4@", 5) == 0 || strncmp(s, "ipv6@", 5) == 0 || s[0] == '[' ||
		  cpha_parse_addr(s, CPHA_ADDR_PORT_NONE, a, &why) < 0;

	if (!bad && (a->flags & CPHA_ADDR_F_ANY)) {
		why = "the unspecified address cannot be used";
		bad = 1;
	}
	if (!bad && cpha_addr_family(a) == AF_INET &&
		IN_MULTICAST(ntohl(((const struct sockaddr_in *)&a->ss)->sin_addr.s_addr))) {
		why = "a multicast address cannot be used";
		bad = 1;
	}
	if (!bad && cpha_addr_family(a) == AF_INET6 &&
		IN6_IS_ADDR_MULTICAST(&((const struct sockaddr_in6 *)&a->ss)->sin6_addr)) {
		why = "a multicast address cannot be used";
		bad = 1;
	}
	if (bad) {
		vipd_cfg_err(ctx, loc, "%s '%s': %s (%s)", what, s, why, where);
		return -1;
	}
	return 0;
}

/* What Linux accepts as an interface name (dev_valid_name). */
int vipd_cfg_ifname(
	struct cfg_ctx *ctx, unsigned loc, const char *what, const char *s, const char *where)
{
	size_t i, len = strlen(s);

	for (i = 0; i < len; i++)
		if (s[i] == '/' || s[i] == ':' || isspace((unsigned char)s[i]))
			break;
	if (!len || len >= IF_NAMESIZE || i < len || strcmp(s, ".") == 0 || strcmp(s, "..") == 0) {
		vipd_cfg_err(
			ctx, loc, "%s '%s' is not a valid interface name (%s)", what, s, where);
		return -1;
	}
	return 0;
}

/* The words from index from on as one command line: a word that the
 * lexer's quoting kept together is quoted again, so splitting the result
 * the same way gives the same words back. */
char *vipd_cfg_command(struct cfg_ctx *ctx, const struct cpha_conf_node *n, size_t from)
{
	struct cpha_buf b = { 0 };
	const char *w, *p;
	size_t i;
	int r = 0;
	char *s;

	if (n->n == from + 1)
		return vipd_cfg_strdup(ctx, n->w[from]);
	for (i = from; i < n->n && r == 0; i++) {
		w = n->w[i];
		if (i > from)
			r = cpha_buf_puts(&b, " ");
		if (r == 0 && w[0] && !strpbrk(w, " \t\r\n\f\v\"'\\#!{}$")) {
			r = cpha_buf_puts(&b, w);
		} else if (r == 0 && !strchr(w, '\'') && !strchr(w, '\n')) {
			r = cpha_buf_printf(&b, "'%s'", w);
		} else {
			r = cpha_buf_puts(&b, "\"");
			for (p = w; *p && r == 0; p++)
				r = *p == '\n' ? cpha_buf_puts(&b, "\\n")
				    : *p == '"' || *p == '\\' || *p == '$'
					    ? cpha_buf_printf(&b, "\\%c", *p)
					    : cpha_buf_append(&b, p, 1);
			if (r == 0)
				r = cpha_buf_puts(&b, "\"");
		}
	}
	s = r == 0 ? cpha_buf_steal(&b) : NULL;
	cpha_buf_free(&b);
	if (!s)
		vipd_cfg_oom(ctx);
	return s;
}

/* Words i and i+1 of a command statement, USER [GROUP], as keepalived's
 * set_script_uid_gid reads them: both must exist ("GROUP" may be ":GROUP"
 * or ":"). Nothing there: as leaves both NULL. A user or group that does
 * not exist is an error, or with notice_only (notify commands, which
 * keepalived then ignores) a notice; -1 either way. */
int vipd_cfg_runas(struct cfg_ctx *ctx, const struct cpha_conf_node *n, size_t i,
	struct vipd_runas *as, bool notice_only, const char *where)
{
	const char *g = NULL, *what = "user";

	if (n->n <= i)
		return 0;
	if (n->n > i + 1)
		g = n->w[i + 1][0] == ':' ? n->w[i + 1] + 1 : n->w[i + 1];
	if (!getpwnam(n->w[i]))
		g = n->w[i];
	else if (g && *g && !getgrnam(g))
		what = "group";
	else
		g = NULL;
	if (g && notice_only) {
		vipd_cfg_notice(ctx, n->loc,
			"'%s': no %s '%s' to run it as: ignored, as keepalived does "
			"(keepalived reads the words after the command as USER [GROUP]: quote "
			"the command if '%s' is one of its arguments) (%s)",
			n->w[0], what, g, g, where);
		return -1;
	}
	if (g) {
		vipd_cfg_err(
			ctx, n->loc, "'%s': no %s '%s' to run it as (%s)", n->w[0], what, g, where);
		return -1;
	}
	if (n->n > i + 1)
		as->group = vipd_cfg_strdup(ctx, n->w[i + 1]);
	as->user = vipd_cfg_strdup(ctx, n->w[i]);
	return 0;
}

/* Why some keywords are not there. */
static const struct {
	const char *kw, *why;
} cfg_hints[] = {
	{ "virtual_server", "it only does VRRP" },
	{ "virtual_server_group", "it only does VRRP" },
	{ "real_server", "it only does VRRP" },
	{ "static_ipaddress", "it only does VRRP" },
	{ "static_routes", "it only does VRRP" },
	{ "static_rules", "it only does VRRP" },
	{ "use_vmac", "no virtual MAC: the VIP moves with gratuitous ARP and unsolicited NA" },
	{ "use_vmac_addr", "no virtual MAC" },
	{ "vmac_xmit_base", "no virtual MAC" },
	{ "use_ipvlan", "no ipvlan interfaces" },
	{ "virtual_routes", "it moves addresses only" },
	{ "virtual_rules", "it moves addresses only" },
	{ "virtual_ipaddress_excluded", "every address is advertised: list it in "
					"virtual_ipaddress, or use a second instance" },
	{ "smtp_alert", "it sends no mail; use notify scripts" },
	{ "sync_group_tracking_weight", "members' tracks must be unweighted" },
	{ "global_tracking", "deprecated: track on the sync group instead" },
};

static void cfg_unsupported(struct cfg_ctx *ctx, const struct cpha_conf_node *n, const char *where)
{
	const char *why = NULL;
	size_t i;

	for (i = 0; i < CFG_NELEM(cfg_hints); i++)
		if (strcmp(cfg_hints[i].kw, n->w[0]) == 0)
			why = cfg_hints[i].why;
	if (n->w[0][0] == '$')
		why = "a parameter that is not defined above ($NAME=VALUE) stays as written";
	if (n->w[0][0] == '@')
		why = "a condition ('@ID') is only read at the start of a line";
	if (where && why)
		vipd_cfg_err(
			ctx, n->loc, "'%s' is not supported by vipd (%s): %s", n->w[0], where, why);
	else if (where || why)
		vipd_cfg_err(ctx, n->loc, "'%s' is not supported by vipd (%s)", n->w[0],
			where ? where : why);
	else
		vipd_cfg_err(ctx, n->loc, "'%s' is not supported by vipd", n->w[0]);
}

/* Read the statements of a block with a keyword table. */
void vipd_cfg_block(struct cfg_ctx *ctx, const struct cpha_conf_node *n, const struct cfg_kw *kws,
	size_t nkws, void *obj, const char *where)
{
	unsigned seen[CFG_MAX_KWS];

	memset(seen, 0, sizeof(seen));
	vipd_cfg_block_seen(ctx, n, kws, nkws, obj, where, seen);
}

/* The same, with what was seen kept by the caller (global_defs, which may
 * come in several blocks). */
void vipd_cfg_block_seen(struct cfg_ctx *ctx, const struct cpha_conf_node *n,
	const struct cfg_kw *kws, size_t nkws, void *obj, const char *where, unsigned *seen)
{
	const void *row;
	char at[64];
	size_t i, k;

	for (i = 0; i < n->nkids && !ctx->d.stop; i++) {
		const struct cpha_conf_node *kid = &n->kids[i];

		if (!kid->n)
			continue; /* a '{' without keyword: reported already */
		if (cpha_cfgkw_find(kws, nkws < CFG_MAX_KWS ? nkws : CFG_MAX_KWS, sizeof(*kws),
			    kid->w[0], CFG_KW_HERE, &row) < 0) {
			cfg_unsupported(ctx, kid, where);
			continue;
		}
		k = (size_t)((const struct cfg_kw *)row - kws);
		if ((kws[k].flags & CFG_KW_BLOCK) && !kid->block) {
			vipd_cfg_err(ctx, kid->loc, "'%s' needs a block: %s { ... } (%s)",
				kid->w[0], kid->w[0], where ? where : "top level");
			continue;
		}
		if (!(kws[k].flags & CFG_KW_BLOCK) && kid->block) {
			vipd_cfg_err(ctx, kid->loc, "'%s' takes no block (%s)", kid->w[0],
				where ? where : "top level");
			continue;
		}
		if (seen[k] && !(kws[k].flags & CFG_KW_MULTI)) {
			vipd_cfg_err(ctx, kid->loc, "'%s' is given twice (%s; first at %s)",
				kid->w[0], where ? where : "top level",
				vipd_cfg_at(ctx, seen[k], kid->loc, at, sizeof(at)));
			continue;
		}
		seen[k] = kid->loc;
		kws[k].fn(ctx, kid, obj);
	}
}

/* An entry of a list block (a VIP, a peer, a tracked name) has no block. */
bool vipd_cfg_no_block(struct cfg_ctx *ctx, const struct cpha_conf_node *entry, const char *where)
{
	if (!entry->n)
		return false;
	if (entry->block) {
		vipd_cfg_err(ctx, entry->loc, "'%s' takes no block here (%s)", entry->w[0], where);
		return false;
	}
	return true;
}

/* Where a definition of a kind with this name is, if it comes after the
 * top-level statement being read. */
unsigned vipd_cfg_defined_later(struct cfg_ctx *ctx, const char *const *kinds, const char *name)
{
	const struct cpha_conf_node *t;
	size_t i;

	for (t = ctx->cur_top ? ctx->cur_top + 1 : ctx->t.root.kids;
		t && t < ctx->t.root.kids + ctx->t.root.nkids; t++)
		for (i = 0; kinds[i]; i++)
			if (t->n == 2 && t->block && strcmp(t->w[0], kinds[i]) == 0 &&
				strcmp(t->w[1], name) == 0)
				return t->loc;
	return 0;
}
