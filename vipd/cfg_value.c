/* vipd's configuration: values as keepalived writes them that are vipd's
 * own (weights, addresses, interface names, commands; numbers, seconds and
 * booleans are lib/conf_tree.h's) and the reading of a block with a
 * keyword table through cpha_conf_walk(). */
#include <ctype.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "duration.h"
#include "cfg_ctx.h"

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

	if (!what && cpha_conf_nargs(&ctx->d, n, 1, 2, where) < 0)
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
	if (cpha_conf_int(&ctx->d, &one, 1, -max, max, &v, where) < 0)
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

static void cfg_walk_fn(void *ctx, const void *row, const struct cpha_conf_node *n, void *obj)
{
	((const struct cfg_kw *)row)->fn(ctx, n, obj);
}

static void cfg_walk_unknown(void *ctx, const struct cpha_conf_node *n, const char *where)
{
	cfg_unsupported(ctx, n, where);
}

/* Read the statements of a block with a keyword table. */
void vipd_cfg_block(struct cfg_ctx *ctx, const struct cpha_conf_node *n, const struct cfg_kw *kws,
	size_t nkws, void *obj, const char *where)
{
	vipd_cfg_block_seen(ctx, n, kws, nkws, obj, where, NULL);
}

/* The same, with what was seen kept by the caller (global_defs, which may
 * come in several blocks). */
void vipd_cfg_block_seen(struct cfg_ctx *ctx, const struct cpha_conf_node *n,
	const struct cfg_kw *kws, size_t nkws, void *obj, const char *where, unsigned *seen)
{
	struct cpha_conf_walk w = { kws, nkws, sizeof(*kws), offsetof(struct cfg_kw, flags), where,
		seen, cfg_walk_fn, cfg_walk_unknown, ctx, obj };

	cpha_conf_walk(&ctx->d, n, &w);
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

/* The name of a definition, unique among its kind. Returns 0 when the
 * definition can be read. */
int vipd_cfg_def_name(struct cfg_ctx *ctx, const struct cpha_conf_node *n, const char *kind,
	bool dup, unsigned dup_loc)
{
	char at[64];

	if (n->n != 2) {
		vipd_cfg_err(ctx, n->loc, n->n < 2 ? "'%s' needs a name" : "'%s' takes only a name",
			n->w[0]);
		return -1;
	}
	if (dup) {
		vipd_cfg_err(ctx, n->loc, "%s '%s' is defined twice (first at %s)", kind, n->w[1],
			cpha_cfgdiag_at(&ctx->d, dup_loc, n->loc, at, sizeof(at)));
		return -1;
	}
	return 0;
}
