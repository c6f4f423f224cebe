/* vipd's configuration: vrrp_track_process blocks (keepalived 2.2's
 * process tracking without a script). A definition counts the processes
 * whose name, or whole command line with full_command, matches; it has
 * quorum while that count is within [quorum, quorum_max]. Also the
 * lookups of the definitions that tracks name without a script
 * (vrrp_track_process, track_file). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"
#include "cfg_ctx.h"

#define CFG_COMM_MAX 15 /* TASK_COMM_LEN - 1: what /proc/PID/comm holds */

/* The definition being read. */
struct cfg_tp {
	struct vipd_track_process_def *p;
	char where[96];
	unsigned quorum_loc, quorum_max_loc, process_loc;
};

#define TP(obj) ((struct cfg_tp *)(obj))

/* process PATH [ARGS...]: ARGS turn on full_command and, unless
 * param_match says otherwise, an exact match of them. */
static void cfg_tp_process(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	struct vipd_track_process_def *p = TP(obj)->p;
	size_t i, len = 0;
	char *q;

	if (cpha_conf_nargs(&ctx->d, n, 1, 4096, TP(obj)->where) < 0)
		return;
	if (!n->w[1][0]) {
		vipd_cfg_err(ctx, n->loc, "'process' is empty (%s)", TP(obj)->where);
		return;
	}
	TP(obj)->process_loc = n->loc;
	if (!(p->process = vipd_cfg_strdup(ctx, n->w[1])))
		return;
	for (i = 2; i < n->n; i++)
		len += strlen(n->w[i]) + 1;
	if (!len)
		return;
	if (!(p->params = malloc(len))) {
		vipd_cfg_oom(ctx);
		return;
	}
	for (q = p->params, i = 2; i < n->n; i++) {
		memcpy(q, n->w[i], strlen(n->w[i]) + 1);
		q += strlen(n->w[i]) + 1;
	}
	p->params_len = len;
	p->full_command = true;
	if (p->param_match == VIPD_PARAM_NONE)
		p->param_match = VIPD_PARAM_EXACT;
}

static void cfg_tp_match(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	struct vipd_track_process_def *p = TP(obj)->p;

	if (cpha_conf_nargs(&ctx->d, n, 0, 1, TP(obj)->where) < 0)
		return;
	if (n->n == 1)
		p->param_match = VIPD_PARAM_EXACT;
	else if (strcmp(n->w[1], "initial") == 0)
		p->param_match = VIPD_PARAM_INITIAL;
	else if (strcmp(n->w[1], "partial") == 0)
		p->param_match = VIPD_PARAM_PARTIAL;
	else {
		vipd_cfg_err(ctx, n->loc,
			"'param_match' takes nothing, 'initial' or 'partial', not '%s' (%s)",
			n->w[1], TP(obj)->where);
		return;
	}
	p->full_command = true;
}

static void cfg_tp_weight(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	vipd_cfg_weight(ctx, n, 0, CFG_WEIGHT_FILE, false, NULL, &TP(obj)->p->weight,
		&TP(obj)->p->weight_reverse, TP(obj)->where);
}

static void cfg_tp_quorum(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	bool max = strcmp(n->w[0], "quorum_max") == 0;
	unsigned long long v;

	if (cpha_conf_nargs(&ctx->d, n, 1, 1, TP(obj)->where) < 0 ||
		cpha_conf_uint(&ctx->d, n, 1, max ? 0 : 1, 65535, &v, TP(obj)->where) < 0)
		return;
	if (max) {
		TP(obj)->p->quorum_max = (unsigned)v;
		TP(obj)->quorum_max_loc = n->loc;
	} else {
		TP(obj)->p->quorum = (unsigned)v;
		TP(obj)->quorum_loc = n->loc;
	}
}

/* delay sets both; keepalived reads 0.000001 to 3600 seconds */
static void cfg_tp_delay(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	uint64_t t;

	if (cpha_conf_nargs(&ctx->d, n, 1, 1, TP(obj)->where) < 0 ||
		cpha_conf_seconds(
			&ctx->d, n, 1, 1, 3600 * CPHA_USEC_PER_SEC, 0, &t, TP(obj)->where) < 0)
		return;
	if (n->w[0][0] != 'f')
		TP(obj)->p->terminate_delay = t;
	if (n->w[0][0] != 't')
		TP(obj)->p->fork_delay = t;
}

static void cfg_tp_full(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	if (cpha_conf_nargs(&ctx->d, n, 0, 0, TP(obj)->where) == 0)
		TP(obj)->p->full_command = true;
}

static const struct cfg_kw cfg_tp_kws[] = {
	{ { "process", CFG_KW_HERE }, cfg_tp_process, 0 },
	{ { "param_match", CFG_KW_HERE }, cfg_tp_match, 0 },
	{ { "weight", CFG_KW_HERE }, cfg_tp_weight, 0 },
	{ { "quorum", CFG_KW_HERE }, cfg_tp_quorum, 0 },
	{ { "quorum_max", CFG_KW_HERE }, cfg_tp_quorum, 0 },
	{ { "delay", CFG_KW_HERE }, cfg_tp_delay, 0 },
	{ { "terminate_delay", CFG_KW_HERE }, cfg_tp_delay, 0 },
	{ { "fork_delay", CFG_KW_HERE }, cfg_tp_delay, 0 },
	{ { "full_command", CFG_KW_HERE }, cfg_tp_full, 0 },
};

/* The checks of a whole definition, as keepalived's, but refusing what it
 * would ignore with an error. */
static void cfg_tp_check(struct cfg_ctx *ctx, const struct cpha_conf_node *n, struct cfg_tp *tp)
{
	struct vipd_track_process_def *p = tp->p;

	if (!p->process) {
		vipd_cfg_err(ctx, n->loc, "%s has no 'process'", tp->where);
		return;
	}
	if (tp->quorum_max_loc && p->quorum_max == 0 && tp->quorum_loc) {
		vipd_cfg_err(ctx, tp->quorum_max_loc,
			"'quorum_max 0' means the process must not run, which needs no 'quorum' "
			"(%s)",
			tp->where);
	} else if (tp->quorum_max_loc && p->quorum_max == 0) {
		p->quorum = 0; /* quorum while none runs */
	} else if (p->quorum > p->quorum_max) {
		vipd_cfg_err(ctx, tp->quorum_loc ? tp->quorum_loc : n->loc,
			"'quorum' %u is above 'quorum_max' %u (%s)", p->quorum, p->quorum_max,
			tp->where);
	}
	if (!p->full_command && strlen(p->process) > CFG_COMM_MAX)
		vipd_cfg_notice(ctx, tp->process_loc,
			"process '%s' is longer than the %d characters of a process name "
			"(/proc/PID/comm), so it never matches: add 'full_command' to match the "
			"command line (%s)",
			p->process, CFG_COMM_MAX, tp->where);
}

void vipd_cfg_track_process_def(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	const struct vipd_track_process_def *old =
		n->n == 2 ? vipd_cfg_track_process(ctx->c, n->w[1]) : NULL;
	struct cfg_tp tp = { 0 };

	(void)obj;
	if (vipd_cfg_def_name(ctx, n, "vrrp_track_process", old, old ? old->line : 0) < 0)
		return;
	tp.p = vipd_cfg_push(
		ctx, &ctx->c->track_processes, &ctx->c->ntrack_processes, sizeof(*tp.p));
	if (!tp.p || !(tp.p->name = vipd_cfg_strdup(ctx, n->w[1])))
		return;
	tp.p->line = n->loc;
	tp.p->quorum = 1;
	tp.p->quorum_max = UINT_MAX;
	snprintf(tp.where, sizeof(tp.where), "vrrp_track_process '%s'", n->w[1]);
	vipd_cfg_block(ctx, n, cfg_tp_kws, CFG_NELEM(cfg_tp_kws), &tp, tp.where);
	if (!ctx->d.stop)
		cfg_tp_check(ctx, n, &tp);
}

const struct vipd_track_process_def *vipd_cfg_track_process(
	const struct vipd_config *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->ntrack_processes; i++)
		if (c->track_processes[i].name && strcmp(c->track_processes[i].name, name) == 0)
			return &c->track_processes[i];
	return NULL;
}

const struct vipd_track_file_def *vipd_cfg_track_file(const struct vipd_config *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->ntrack_files; i++)
		if (c->track_files[i].name && strcmp(c->track_files[i].name, name) == 0)
			return &c->track_files[i];
	return NULL;
}
