/* Keywords of the global section that cfg_server.c's older chain does not
 * read, one table row each (HAProxy's cfg_kws): those lbd implements, those
 * that have no effect in lbd (said once, at their line) and those lbd does
 * not implement yet (a clear error). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg-internal.h"

enum cfg_gkind {
	CFG_G_PIDFILE,  /* pidfile PATH */
	CFG_G_NOEFFECT, /* accepted; a notice says why it changes nothing in lbd */
	CFG_G_TODO,     /* refused: HAProxy implements it, lbd not yet */
	CFG_G_REFUSED,  /* refused by HAProxy 2.6 too */
};

struct cfg_gkw {
	const char *kw;
	int prefix; /* kw is a prefix: "ssl-default-bind-" */
	enum cfg_gkind kind;
	size_t min, max; /* number of values */
	const char *why;
};

static const struct cfg_gkw cfg_gkws[] = {
	{ "pidfile", 0, CFG_G_PIDFILE, 1, 1, NULL },
	{ "master-worker", 0, CFG_G_NOEFFECT, 0, 1,
		"lbd is always one process that reloads in place on SIGHUP" },
	{ "ssl-default-bind-", 1, CFG_G_NOEFFECT, 1, (size_t)-1 / 2,
		"lbd terminates no TLS on its bind lines" },
	{ "tune.ssl.default-dh-param", 0, CFG_G_NOEFFECT, 1, 1,
		"it only concerns TLS on bind lines, which lbd does not terminate" },
	{ "ssl-default-server-", 1, CFG_G_TODO, 1, (size_t)-1 / 2,
		"lbd's TLS health checks do not take these settings yet" },
	{ "user", 0, CFG_G_TODO, 1, 1,
		"lbd cannot drop privileges yet; run it under systemd's User= instead" },
	{ "uid", 0, CFG_G_TODO, 1, 1,
		"lbd cannot drop privileges yet; run it under systemd's User= instead" },
	{ "group", 0, CFG_G_TODO, 1, 1,
		"lbd cannot drop privileges yet; run it under systemd's Group= instead" },
	{ "gid", 0, CFG_G_TODO, 1, 1,
		"lbd cannot drop privileges yet; run it under systemd's Group= instead" },
	{ "chroot", 0, CFG_G_TODO, 1, 1,
		"lbd cannot chroot yet; use systemd's RootDirectory= instead" },
	{ "spread-checks", 0, CFG_G_TODO, 1, 1, "lbd does not spread check intervals yet" },
	{ "server-state-file", 0, CFG_G_TODO, 1, 1,
		"lbd does not save server states across restarts yet" },
	{ "server-state-base", 0, CFG_G_TODO, 1, 1,
		"lbd does not save server states across restarts yet" },
	{ "nbproc", 0, CFG_G_REFUSED, 1, 1, "HAProxy 2.5 and later refuse it too; use nbthread" },
};

int cfg_global_table_line(struct cfg_ctx *ctx, const struct cfg_args *a)
{
	const char *where = "section 'global'";
	const struct cfg_gkw *k = NULL;
	size_t i, nargs = 1;

	for (i = 0; i < sizeof(cfg_gkws) / sizeof(cfg_gkws[0]) && !k; i++)
		if (cfg_gkws[i].prefix
				? strncmp(a->v[0], cfg_gkws[i].kw, strlen(cfg_gkws[i].kw)) == 0
				: strcmp(a->v[0], cfg_gkws[i].kw) == 0)
			k = &cfg_gkws[i];
	if (!k)
		return 0;
	if (k->kind == CFG_G_TODO) {
		cfg_err(ctx, a->line, "'%s' is not supported by lbd yet: %s", a->v[0], k->why);
		return 1;
	}
	if (k->kind == CFG_G_REFUSED) {
		cfg_err(ctx, a->line, "'%s' is not supported: %s", a->v[0], k->why);
		return 1;
	}
	if (cfg_nargs(ctx, a, nargs, k->min, k->max, where) < 0)
		return 1;
	if (k->kind == CFG_G_NOEFFECT) {
		cfg_notice(ctx, a->line, "'%s' has no effect in lbd: %s", a->v[0], k->why);
		return 1;
	}
	/* CFG_G_PIDFILE */
	if (ctx->global.pidfile) {
		cfg_err(ctx, a->line, "'pidfile' is set twice");
		return 1;
	}
	ctx->global.pidfile = cfg_strdup(ctx, a->v[1]);
	return 1;
}
