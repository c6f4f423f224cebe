/* program sections: commands HAProxy's master process starts and keeps
 * running in master-worker mode (dataplaneapi beside the load balancer).
 * lbd is one process with no master and starts no program: it reads the
 * section as HAProxy does, says once that it is ignored, and refuses it
 * without master-worker mode, as HAProxy does. */
#include <string.h>

#include "cfg_ctx.h"

void lbd_cfg_program_start(struct cfg_ctx *ctx, const struct cfg_args *a)
{
	ctx->sec = CFG_SEC_PROGRAM;
	if (a->n < 2) {
		lbd_cfg_err(ctx, a->line, "section 'program' needs a name");
		return;
	}
	if (!lbd_cfg_name_ok(ctx, a->line, "program", a->v[1]))
		return;
	if (!ctx->program_line)
		ctx->program_line = a->line;
	lbd_cfg_notice(ctx, a->line,
		"section 'program %s': lbd starts no programs (it has no master process); "
		"the section is ignored, run the command as its own service",
		a->v[1]);
}

void lbd_cfg_program_line(struct cfg_ctx *ctx, const struct cfg_args *a)
{
	const char *kw = a->v[0];

	if (strcmp(kw, "command") == 0) {
		if (a->n < 2)
			lbd_cfg_err(ctx, a->line, "'command' needs a command, with its arguments");
	} else if (strcmp(kw, "user") == 0 || strcmp(kw, "group") == 0) {
		if (a->n != 2)
			lbd_cfg_err(ctx, a->line, "'%s' needs one name", kw);
	} else if (strcmp(kw, "option") == 0 ||
		   (strcmp(kw, "no") == 0 && a->n > 1 && strcmp(a->v[1], "option") == 0)) {
		size_t i = strcmp(kw, "no") == 0 ? 2 : 1;

		if (a->n != i + 1 || strcmp(a->v[i], "start-on-reload") != 0)
			lbd_cfg_err(ctx, a->line,
				"'%s': the only option of a 'program' section is start-on-reload",
				kw);
	} else {
		lbd_cfg_err(ctx, a->line, "unknown keyword '%s' in 'program' section", kw);
	}
}

void lbd_cfg_program_validate(struct cfg_ctx *ctx)
{
	if (ctx->program_line && !ctx->master_worker)
		lbd_cfg_err(ctx, ctx->program_line,
			"a 'program' section needs master-worker mode: 'master-worker' in "
			"global, or lbd -W (HAProxy refuses it without, too)");
}
