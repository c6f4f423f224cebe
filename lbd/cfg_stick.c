/* stick-table and stick rules in a backend or listen section: HAProxy's
 * source-IP persistence ("stick-table type ip size 200k expire 30m" with
 * "stick on src"). lbd keeps a table only for its own section's stick
 * rules on the client address; the run-time table is lbd/stick.c. */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "cfg_ctx.h"
#include "stick.h"

/* size N[k|m|g]: HAProxy's parse_size_err() (the suffixes are powers of 1024). */
static int cfg_stick_size(
	struct cfg_ctx *ctx, unsigned line, const char *s, unsigned *out, const char *where)
{
	unsigned long long v = 0, mul = 1;
	const char *p;

	for (p = s; *p >= '0' && *p <= '9'; p++)
		if (v <= STICK_SIZE_MAX)
			v = v * 10 + (unsigned long long)(*p - '0');
	if (*p == 'k' || *p == 'K')
		mul = 1024;
	else if (*p == 'm' || *p == 'M')
		mul = 1024 * 1024;
	else if (*p == 'g' || *p == 'G')
		mul = 1024 * 1024 * 1024;
	if (p == s || (mul == 1 && *p) || (mul > 1 && p[1])) {
		lbd_cfg_err(ctx, line,
			"'stick-table size' needs a number with an optional k, m or g suffix, not "
			"'%s' (%s)",
			s, where);
		return -1;
	}
	v *= mul;
	if (v == 0 || v > STICK_SIZE_MAX) {
		lbd_cfg_err(ctx, line, "'stick-table size' must be 1 to %u entries, not '%s' (%s)",
			STICK_SIZE_MAX, s, where);
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}

/* stick-table type ip|ipv6 size N [expire T] [nopurge] [srvkey name|addr]
 * [store server_id] */
void lbd_cfg_stick_table_line(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	struct lbd_stick_cfg *st = &px->be.stick;
	const char *where = lbd_cfg_where(ctx, px);
	struct lbd_stick_cfg n;
	size_t i;
	char *comma;
	char buf[256];

	if (st->line) {
		lbd_cfg_err(ctx, a->line,
			"only one 'stick-table' per section; the first is at %s:%u (%s)", ctx->file,
			st->line, where);
		return;
	}
	memset(&n, 0, sizeof(n));
	for (i = 1; i < a->n; i++) {
		const char *k = a->v[i], *v = i + 1 < a->n ? a->v[i + 1] : NULL;

		if (strcmp(k, "nopurge") == 0) {
			n.nopurge = 1;
			continue;
		}
		if (!v) {
			lbd_cfg_err(ctx, a->line, "'stick-table %s' needs a value (%s)", k, where);
			return;
		}
		i++;
		if (strcmp(k, "type") == 0) {
			if (strcmp(v, "ip") == 0) {
				n.family = AF_INET;
			} else if (strcmp(v, "ipv6") == 0) {
				n.family = AF_INET6;
			} else if (!strcmp(v, "integer") || !strcmp(v, "string") ||
				   !strcmp(v, "binary")) {
				lbd_cfg_err(ctx, a->line,
					"'stick-table type %s' is not supported by lbd: it sticks "
					"on the client address only (type ip or ipv6) (%s)",
					v, where);
				return;
			} else {
				lbd_cfg_err(ctx, a->line,
					"'stick-table type' must be ip, ipv6, integer, string or "
					"binary, not '%s' (%s)",
					v, where);
				return;
			}
		} else if (strcmp(k, "size") == 0) {
			if (cfg_stick_size(ctx, a->line, v, &n.size, where) < 0)
				return;
		} else if (strcmp(k, "expire") == 0) {
			if (lbd_cfg_time(ctx, a->line, "stick-table expire", v, &n.expire, where) <
				0)
				return;
		} else if (strcmp(k, "srvkey") == 0) {
			/* how peers name servers; each lbd keeps its own table, and a
			 * server's name and address do not change while it runs */
			if (strcmp(v, "name") != 0 && strcmp(v, "addr") != 0) {
				lbd_cfg_err(ctx, a->line,
					"'stick-table srvkey' must be name or addr, not '%s' (%s)",
					v, where);
				return;
			}
		} else if (strcmp(k, "store") == 0) {
			/* a comma-separated list of data types */
			snprintf(buf, sizeof(buf), "%s", v);
			for (k = strtok_r(buf, ",", &comma); k; k = strtok_r(NULL, ",", &comma))
				if (strcmp(k, "server_id") != 0) {
					lbd_cfg_err(ctx, a->line,
						"'stick-table store %s' is not supported by lbd: "
						"it stores only server_id, for stick rules (%s)",
						k, where);
					return;
				}
		} else if (strcmp(k, "peers") == 0) {
			lbd_cfg_err(ctx, a->line,
				"'stick-table peers %s' is not supported by lbd: it has no peers "
				"sections; each lbd keeps its own table (%s)",
				v, where);
			return;
		} else {
			lbd_cfg_err(ctx, a->line, "'stick-table': unknown argument '%s' (%s)", k,
				where);
			return;
		}
	}
	if (!n.family) {
		lbd_cfg_err(ctx, a->line, "'stick-table' needs a type (ip or ipv6) (%s)", where);
		return;
	}
	if (!n.size) {
		lbd_cfg_err(ctx, a->line, "'stick-table' needs a size (%s)", where);
		return;
	}
	n.line = a->line;
	n.match = st->match;
	n.store = st->store;
	n.rule_line = st->rule_line;
	*st = n;
}

/* A condition lbd can decide here: 1 always true, 0 always false, -1 not trivial. */
static int cfg_stick_cond(const struct cfg_args *a, size_t i)
{
	int unless = strcmp(a->v[i], "unless") == 0;

	if (i + 2 != a->n)
		return -1;
	if (strcmp(a->v[i + 1], "TRUE") == 0)
		return !unless;
	if (strcmp(a->v[i + 1], "FALSE") == 0)
		return unless;
	return -1;
}

/* stick on|match|store-request src [table NAME] [if|unless TRUE|FALSE] */
void lbd_cfg_stick_line(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	struct lbd_stick_cfg *st = &px->be.stick;
	const char *where = lbd_cfg_where(ctx, px);
	int match, store, on = 1;
	size_t i = 3;

	if (a->n < 2) {
		lbd_cfg_err(ctx, a->line, "'stick' needs on, match or store-request (%s)", where);
		return;
	}
	match = strcmp(a->v[1], "on") == 0 || strcmp(a->v[1], "match") == 0;
	store = strcmp(a->v[1], "on") == 0 || strcmp(a->v[1], "store-request") == 0;
	if (strcmp(a->v[1], "store-response") == 0) {
		lbd_cfg_err(ctx, a->line,
			"'stick store-response' is not supported by lbd: it sticks on the client "
			"address (stick on src) (%s)",
			where);
		return;
	}
	if (!match && !store) {
		lbd_cfg_err(ctx, a->line,
			"'stick %s': unknown rule; expects on, match, store-request or "
			"store-response (%s)",
			a->v[1], where);
		return;
	}
	if (a->n < 3) {
		lbd_cfg_err(ctx, a->line, "'stick %s' needs a sample (%s)", a->v[1], where);
		return;
	}
	if (strcmp(a->v[2], "src") != 0) {
		lbd_cfg_err(ctx, a->line,
			"'stick %s %s' is not supported by lbd: it sticks on the client address "
			"only (src) (%s)",
			a->v[1], a->v[2], where);
		return;
	}
	if (i < a->n && strcmp(a->v[i], "table") == 0) {
		if (i + 1 >= a->n) {
			lbd_cfg_err(ctx, a->line, "'stick %s src table' needs a name (%s)", a->v[1],
				where);
			return;
		}
		if (strcmp(a->v[i + 1], px->name) != 0) {
			lbd_cfg_err(ctx, a->line,
				"'stick %s src table %s' is not supported by lbd: a backend uses "
				"only its own stick-table (%s)",
				a->v[1], a->v[i + 1], where);
			return;
		}
		i += 2;
	}
	if (i < a->n && (strcmp(a->v[i], "if") == 0 || strcmp(a->v[i], "unless") == 0)) {
		on = cfg_stick_cond(a, i);
		if (on < 0) {
			lbd_cfg_err(ctx, a->line,
				"'stick %s src %s ...': conditions are not supported by lbd on "
				"stick rules (only TRUE or FALSE) (%s)",
				a->v[1], a->v[i], where);
			return;
		}
	} else if (i < a->n) {
		lbd_cfg_err(ctx, a->line, "'stick %s src': unexpected '%s' (%s)", a->v[1], a->v[i],
			where);
		return;
	}
	if (!st->rule_line)
		st->rule_line = a->line;
	if (!on)
		return; /* a rule that never applies, as in HAProxy */
	st->match |= match;
	st->store |= store;
}

/* At the end of a backend: rules need the table. */
void lbd_cfg_stick_finalize(struct cfg_ctx *ctx, struct cfg_proxy *px)
{
	struct lbd_stick_cfg *st = &px->be.stick;

	if (st->rule_line && !st->line)
		lbd_cfg_err(ctx, st->rule_line,
			"'stick': %s '%s' has no stick-table (lbd uses the section's own table)",
			px->kind, px->name);
	else if (st->line && !st->rule_line)
		lbd_cfg_notice(ctx, st->line,
			"stick-table of %s '%s' is used by no 'stick' rule; it stays empty",
			px->kind, px->name);
}
