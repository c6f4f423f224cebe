/* The global "stats socket" line: the admin socket's path, mode, owner and
 * level, as HAProxy reads them. */
#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg_ctx.h"

/* A user or group given by name or number (HAProxy's "user"/"uid" and
 * "group"/"gid" bind options). Returns 0, or -1 with an error given. */
static int cfg_stats_owner(
	struct cfg_ctx *ctx, unsigned line, const char *kw, const char *val, unsigned long *out)
{
	int numeric = kw[1] == 'i', group = kw[0] == 'g';
	char buf[4096], *end;
	struct passwd pw, *pwr = NULL;
	struct group gr, *grr = NULL;

	if (numeric) {
		*out = strtoul(val, &end, 10);
		if (!val[0] || *end || !isdigit((unsigned char)val[0]) || *out >= 0xffffffffUL) {
			lbd_cfg_err(
				ctx, line, "'stats socket' %s must be a number, not '%s'", kw, val);
			return -1;
		}
		return 0;
	}
	if (group ? getgrnam_r(val, &gr, buf, sizeof(buf), &grr) != 0 || !grr
		  : getpwnam_r(val, &pw, buf, sizeof(buf), &pwr) != 0 || !pwr) {
		lbd_cfg_err(ctx, line, "'stats socket' %s '%s': no such %s on this system", kw, val,
			group ? "group" : "user");
		return -1;
	}
	*out = group ? grr->gr_gid : pwr->pw_uid;
	return 0;
}

/* stats socket PATH [mode OCTAL] [level admin|operator|user] [user NAME|uid N]
 * [group NAME|gid N] [expose-fd listeners] */
void lbd_cfg_stats(struct cfg_ctx *ctx, const struct cfg_args *a, const char *where)
{
	static const char *const levels[] = { "user", "operator", "admin", NULL };
	struct lbd_stats_socket *st = &ctx->global.stats;
	unsigned long v;
	size_t i;
	int k;

	if (a->n < 2 || strcmp(a->v[1], "socket") != 0) {
		lbd_cfg_err(ctx, a->line, "'stats %s' is not supported by lbd in %s",
			a->n < 2 ? "" : a->v[1], where);
		return;
	}
	if (lbd_cfg_nargs(ctx, a, 2, 1, (size_t)-1 / 2, where) < 0)
		return;
	if (st->path) {
		lbd_cfg_err(ctx, a->line, "lbd has one 'stats socket'; the first is at %s:%u",
			ctx->file, st->line);
		return;
	}
	if (a->v[2][0] != '/' || strlen(a->v[2]) > CFG_UNIX_PATH_MAX) {
		lbd_cfg_err(ctx, a->line,
			"'stats socket' needs a UNIX socket path starting with '/' of at most %d "
			"bytes, not '%s'",
			CFG_UNIX_PATH_MAX, a->v[2]);
		return;
	}
	for (i = 3; i < a->n; i += 2) {
		const char *val = i + 1 < a->n ? a->v[i + 1] : NULL;

		if (strcmp(a->v[i], "mode") == 0 && val) {
			if (!val[0] || strspn(val, "01234567") != strlen(val) ||
				(v = strtoul(val, NULL, 8)) > 07777) {
				lbd_cfg_err(ctx, a->line,
					"'stats socket' mode must be octal, not '%s'", val);
				return;
			}
			st->mode = (mode_t)v;
		} else if (strcmp(a->v[i], "level") == 0 && val) {
			if ((k = lbd_cfg_lookup(levels, val)) < 0) {
				lbd_cfg_err(ctx, a->line,
					"'stats socket' level must be admin, operator or user, not "
					"'%s'",
					val);
				return;
			}
			st->level = (enum lbd_stats_level)(LBD_STATS_LEVEL_USER + k);
		} else if ((!strcmp(a->v[i], "user") || !strcmp(a->v[i], "uid")) && val) {
			if (cfg_stats_owner(ctx, a->line, a->v[i], val, &v) < 0)
				return;
			st->uid = (uid_t)v;
		} else if ((!strcmp(a->v[i], "group") || !strcmp(a->v[i], "gid")) && val) {
			if (cfg_stats_owner(ctx, a->line, a->v[i], val, &v) < 0)
				return;
			st->gid = (gid_t)v;
		} else if (strcmp(a->v[i], "expose-fd") == 0 && val && !strcmp(val, "listeners")) {
			lbd_cfg_notice(ctx, a->line,
				"'expose-fd listeners' is accepted but not needed: lbd's reload "
				"keeps its listeners itself");
		} else {
			lbd_cfg_err(ctx, a->line, "'%s' %s on a 'stats socket' line", a->v[i],
				!val && lbd_cfg_lookup(
						(const char *const[]){ "mode", "level", "user",
							"uid", "group", "gid", "expose-fd", NULL },
						a->v[i]) >= 0
					? "needs a value"
					: "is not supported by lbd");
			return;
		}
	}
	st->path = lbd_cfg_strdup(ctx, a->v[2]);
	st->line = a->line;
}
