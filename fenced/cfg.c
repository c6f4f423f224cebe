/* fenced.conf: keepalived's language read by lib/conf_tree.c, one keyword
 * table per block.
 *
 *   global_defs { post_join_delay D; post_fail_delay D; fence_action
 *                 off|reboot; agent_timeout D; retry_interval D;
 *                 power_check_timeout D;
 *                 clean_start [BOOL]; unfence [BOOL];
 *                 fence_via agents|pacemaker;
 *                 fenced_admin_socket PATH; vip_admin_socket PATH;
 *                 fenced_metrics_bind ADDR:PORT;
 *                 fenced_metrics_web_config FILE }
 *   fence_device NAME { agent AGENT; KEY VALUE; KEY_file PATH; ... }
 *   fence_node NAME { level N { DEVICE [key=value ...] ... } ...;
 *                     delay D; delay_max D; priority_delay_vip D;
 *                     unfence BOOL }
 *   watchdog { device PATH; timeout D }
 *
 * D is a duration: keepalived's decimal seconds, or a whole number with a
 * unit (us, ms, s, m, h); BOOL is keepalived's on/off, true/false, yes/no.
 * Values and blocks are read with lib/conf_tree.h's readers, as in vipd.
 * Inside fence_device every key but agent is a parameter of the
 * agent, checked against its metadata by fenced_cfg_check_agents(); the
 * action and the node's plug are fenced's to give per attempt, so 'action'
 * is refused. Names are checked across the file once it is read: a level
 * may use a device defined further down. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfg.h"
#include "cfgdiag.h"
#include "cfgmsg.h"
#include "conf_tree.h"
#include "duration.h"
#include "webcfg.h"

#define CFG_MAX_ERRORS 100
#define CFG_MAX_LEVEL  99
#define NELEM(a)       (sizeof(a) / sizeof((a)[0]))
#define HERE           1u /* cpha_cfgkw caps: the block whose table holds it */

#define DEFAULT_SOCKET "/run/fenced/admin.sock"

/* power_check_timeout: default 5 s, fence-agents' own default
 * login_timeout (an agent that has no session with its BMC or PDU by then
 * gives up by itself); a device that answers at all reads its status in
 * well under a second (fence_ipmilan: one IPMI session) */
#define POWER_CHECK_TIMEOUT_DEFAULT (5 * CPHA_USEC_PER_SEC)
#define POWER_CHECK_TIMEOUT_MAX     (60 * CPHA_USEC_PER_SEC)

struct ctx {
	struct cpha_cfgdiag d;
	struct cpha_conf_tree t;
	struct fenced_config *c;
};

struct kw {
	struct cpha_cfgkw kw;
	void (*fn)(struct ctx *x, const struct cpha_conf_node *n, void *obj);
	unsigned flags; /* CPHA_CONF_KW_* */
};

#define err(x, ...)    cpha_cfgdiag_err(&(x)->d, __VA_ARGS__)
#define notice(x, ...) cpha_cfgdiag_notice(&(x)->d, __VA_ARGS__)

/* D: keepalived's seconds, or a number with a unit, up to a day. */
static int duration(struct ctx *x, const struct cpha_conf_node *n, uint64_t *out, const char *where)
{
	if (cpha_conf_nargs(&x->d, n, 1, 1, where) < 0)
		return -1;
	return cpha_conf_seconds(
		&x->d, n, 1, 0, 24 * 3600 * CPHA_USEC_PER_SEC, CPHA_CONF_UNITS, out, where);
}

/* Names of devices and nodes: what corosync and fence-agents take. */
static bool good_name(const char *s)
{
	if (!*s || strlen(s) > 253)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("-_.", *s))
			return false;
	return true;
}

static bool good_key(const char *s)
{
	if (!*s || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static void walk_fn(void *x, const void *row, const struct cpha_conf_node *n, void *obj)
{
	((const struct kw *)row)->fn(x, n, obj);
}

static void walk_unknown(void *x, const struct cpha_conf_node *n, const char *where)
{
	if (where)
		err((struct ctx *)x, n->loc, "'%s' is not a keyword of %s", n->w[0], where);
	else
		err((struct ctx *)x, n->loc,
			"'%s' is not a keyword of fenced.conf (global_defs, fence_device, "
			"fence_node, watchdog)",
			n->w[0]);
}

/* Read the statements of block n (NULL where: the top level) with a
 * keyword table. */
static void block(struct ctx *x, const struct cpha_conf_node *n, const struct kw *kws, size_t nkws,
	void *obj, const char *where)
{
	struct cpha_conf_walk w = { kws, nkws, sizeof(*kws), offsetof(struct kw, flags), where,
		NULL, walk_fn, walk_unknown, x, obj };

	cpha_conf_walk(&x->d, n, &w);
}

/* ---- global_defs ---- */

static void g_delay(struct ctx *x, const struct cpha_conf_node *n, void *obj)
{
	struct fenced_global *g = obj;
	uint64_t v;

	if (duration(x, n, &v, "global_defs") < 0)
		return;
	if (strcmp(n->w[0], "post_join_delay") == 0)
		g->post_join_delay = v;
	else if (strcmp(n->w[0], "post_fail_delay") == 0)
		g->post_fail_delay = v;
	else if (strcmp(n->w[0], "agent_timeout") == 0)
		g->agent_timeout = v;
	else if (strcmp(n->w[0], "power_check_timeout") == 0)
		g->power_check_timeout = v;
	else
		g->retry_interval = v;
	if (v == 0 && strncmp(n->w[0], "post_", 5) != 0)
		err(x, n->loc, "'%s' must be more than 0 (global_defs)", n->w[0]);
	/* the read serves a takeover that is waiting for it: one slower than
	 * this helps nobody, fencing itself takes over by then */
	if (strcmp(n->w[0], "power_check_timeout") == 0 && v > POWER_CHECK_TIMEOUT_MAX)
		err(x, n->loc, "'%s' is at most %us, not %s (global_defs)", n->w[0],
			(unsigned)(POWER_CHECK_TIMEOUT_MAX / CPHA_USEC_PER_SEC), n->w[1]);
}

static void g_action(struct ctx *x, const struct cpha_conf_node *n, void *obj)
{
	struct fenced_global *g = obj;

	if (cpha_conf_nargs(&x->d, n, 1, 1, "global_defs") < 0)
		return;
	if (strcmp(n->w[1], "reboot") == 0)
		g->action = FENCED_ACTION_REBOOT;
	else if (strcmp(n->w[1], "off") == 0)
		g->action = FENCED_ACTION_OFF;
	else
		err(x, n->loc, "'fence_action' is off or reboot, not '%s' (global_defs)", n->w[1]);
}

static void g_via(struct ctx *x, const struct cpha_conf_node *n, void *obj)
{
	struct fenced_global *g = obj;

	if (cpha_conf_nargs(&x->d, n, 1, 1, "global_defs") < 0)
		return;
	if (strcmp(n->w[1], "agents") == 0)
		g->via = FENCED_VIA_AGENTS;
	else if (strcmp(n->w[1], "pacemaker") == 0)
		g->via = FENCED_VIA_PACEMAKER;
	else
		err(x, n->loc, "'fence_via' is agents or pacemaker, not '%s' (global_defs)",
			n->w[1]);
}

static void g_flag(struct ctx *x, const struct cpha_conf_node *n, void *obj)
{
	struct fenced_global *g = obj;
	bool b;

	if (cpha_conf_bool(&x->d, n, &b, "global_defs") < 0)
		return;
	if (n->w[0][0] == 'c') {
		g->clean_start = b;
		if (b)
			notice(x, n->loc,
				"'clean_start': nodes of the nodelist that have not joined by "
				"post_join_delay are not fenced at start-up; unsafe unless you "
				"know "
				"they are off");
	} else {
		g->unfence = b;
	}
}

static void g_socket(struct ctx *x, const struct cpha_conf_node *n, void *obj)
{
	struct fenced_global *g = obj;

	if (cpha_conf_nargs(&x->d, n, 1, 1, "global_defs") < 0)
		return;
	if (n->w[1][0] != '/') {
		err(x, n->loc, "'%s' needs an absolute path (global_defs)", n->w[0]);
		return;
	}
	cpha_conf_string(&x->d, n,
		strcmp(n->w[0], "vip_admin_socket") == 0 ? &g->vip_socket : &g->admin_socket,
		"global_defs");
}

static void g_metrics(struct ctx *x, const struct cpha_conf_node *n, void *obj)
{
	struct fenced_global *g = obj;
	const char *why = NULL;

	if (cpha_conf_nargs(&x->d, n, 1, 1, "global_defs") < 0)
		return;
	if (cpha_parse_addr(n->w[1], CPHA_ADDR_PORT_REQUIRED, &g->metrics, &why) < 0) {
		err(x, n->loc, "'%s' '%s': %s (global_defs)", n->w[0], n->w[1], why);
		return;
	}
	g->metrics_set = true;
}

/* exporter-toolkit's web configuration of the metrics listener (basic
 * auth, TLS), read and checked with the configuration */
static void g_metrics_web(struct ctx *x, const struct cpha_conf_node *n, void *obj)
{
	struct fenced_global *g = obj;
	char why[512];

	if (cpha_conf_nargs(&x->d, n, 1, 1, "global_defs") < 0)
		return;
	if (g->metrics_web_loc) {
		err(x, n->loc, "'%s' is given twice (global_defs)", n->w[0]);
		return;
	}
	g->metrics_web_loc = n->loc;
	/* a relative path is beside the file that names it */
	if (cpha_webcfg_load_beside(x->d.files[CPHA_CFGDIAG_LOC_FILE(n->loc)], n->w[1],
		    &g->metrics_web, why, sizeof(why)) < 0)
		err(x, n->loc, "'%s': %s (global_defs)", n->w[0], why);
}

static const struct kw global_kws[] = {
	{ { "post_join_delay", HERE }, g_delay, 0 },
	{ { "post_fail_delay", HERE }, g_delay, 0 },
	{ { "agent_timeout", HERE }, g_delay, 0 },
	{ { "power_check_timeout", HERE }, g_delay, 0 },
	{ { "retry_interval", HERE }, g_delay, 0 },
	{ { "fence_action", HERE }, g_action, 0 },
	{ { "fence_via", HERE }, g_via, 0 },
	{ { "clean_start", HERE }, g_flag, 0 },
	{ { "unfence", HERE }, g_flag, 0 },
	{ { "fenced_admin_socket", HERE }, g_socket, 0 },
	{ { "vip_admin_socket", HERE }, g_socket, 0 },
	{ { "fenced_metrics_bind", HERE }, g_metrics, 0 },
	{ { "fenced_metrics_web_config", HERE }, g_metrics_web, 0 },
};

/* ---- fence_device ---- */

/* A parameter: "KEY VALUE" or "KEY_file PATH" in a device, "key=value" in
 * a level. The value of a _file is read when the agent runs; here it must
 * be an absolute path. Whether X_file is a secret for X or a parameter of
 * the agent that ends in _file (status_file, identity_file) only the
 * agent's metadata tells: fenced_cfg_check_agents() decides. */
static int param(struct ctx *x, unsigned loc, const char *key, size_t keylen, const char *value,
	struct fenced_param **arr, size_t *n, const char *where)
{
	struct fenced_param *p;
	bool from_file = keylen > 5 && strncmp(key + keylen - 5, "_file", 5) == 0;
	char k[80];
	size_t i;

	if (keylen >= sizeof(k)) {
		err(x, loc, "parameter name '%.*s...' is too long (%s)", 20, key, where);
		return -1;
	}
	memcpy(k, key, keylen);
	k[keylen - (from_file ? 5 : 0)] = '\0';
	if (!good_key(k)) {
		err(x, loc, "'%.*s' is not a parameter name (lower case letters, digits, '_') (%s)",
			(int)keylen, key, where);
		return -1;
	}
	if (strcmp(k, "action") == 0) {
		err(x, loc,
			"'action' is not set in the configuration: fenced gives each attempt its "
			"action (fence_action, and 'on' to unfence) (%s)",
			where);
		return -1;
	}
	for (i = 0; i < *n; i++)
		if (strcmp((*arr)[i].key, k) == 0) {
			err(x, loc, "parameter '%s' is given twice (%s)", k, where);
			return -1;
		}
	if (from_file && value[0] != '/') {
		err(x, loc, "'%.*s' needs an absolute path, not '%s' (%s)", (int)keylen, key, value,
			where);
		return -1;
	}
	p = cpha_cfgdiag_push(&x->d, arr, n, sizeof(*p));
	if (!p)
		return -1;
	p->key = cpha_cfgdiag_strdup(&x->d, k);
	p->value = cpha_cfgdiag_strdup(&x->d, value);
	p->from_file = from_file;
	p->line = loc;
	return 0;
}

static void device_stmt(
	struct ctx *x, const struct cpha_conf_node *n, struct fenced_device *dv, const char *where)
{
	size_t i;

	for (i = 0; i < n->nkids && !x->d.stop; i++) {
		const struct cpha_conf_node *kid = &n->kids[i];

		if (!kid->n)
			continue;
		if (kid->block) {
			err(x, kid->loc, "'%s' takes no block (%s)", kid->w[0], where);
			continue;
		}
		if (strcmp(kid->w[0], "agent") == 0) {
			if (cpha_conf_nargs(&x->d, kid, 1, 1, where) < 0)
				continue;
			if (dv->agent) {
				err(x, kid->loc, "'agent' is given twice (%s)", where);
				continue;
			}
			if (kid->w[1][0] != '/' &&
				(strncmp(kid->w[1], "fence_", 6) != 0 || !good_key(kid->w[1]))) {
				err(x, kid->loc,
					"'agent %s': a fence-agents name (fence_ipmilan, ...) or "
					"an "
					"absolute path (%s)",
					kid->w[1], where);
				continue;
			}
			dv->agent = cpha_cfgdiag_strdup(&x->d, kid->w[1]);
			continue;
		}
		if (kid->n != 2) {
			err(x, kid->loc, "parameter '%s' takes one value, not %zu (%s)", kid->w[0],
				kid->n - 1, where);
			continue;
		}
		param(x, kid->loc, kid->w[0], strlen(kid->w[0]), kid->w[1], &dv->params,
			&dv->nparams, where);
	}
	if (!dv->agent && !x->d.stop)
		err(x, n->loc, "%s has no 'agent'", where);
}

static void top_device(struct ctx *x, const struct cpha_conf_node *n, void *obj)
{
	struct fenced_device *dv;
	char where[300];
	size_t i;

	(void)obj;
	if (n->n != 2 || !good_name(n->w[1])) {
		err(x, n->loc, "'fence_device' takes one name (letters, digits, '-', '_', '.')");
		return;
	}
	snprintf(where, sizeof(where), "fence_device '%s'", n->w[1]);
	for (i = 0; i < x->c->ndevices; i++)
		if (strcmp(x->c->devices[i].name, n->w[1]) == 0) {
			err(x, n->loc, "%s is defined twice", where);
			return;
		}
	dv = cpha_cfgdiag_push(&x->d, &x->c->devices, &x->c->ndevices, sizeof(*dv));
	if (!dv)
		return;
	dv->name = cpha_cfgdiag_strdup(&x->d, n->w[1]);
	dv->line = n->loc;
	device_stmt(x, n, dv, where);
}

/* ---- fence_node ---- */

struct node_obj {
	struct fenced_node *nd;
	char where[300];
};

static void n_level(struct ctx *x, const struct cpha_conf_node *n, void *obj)
{
	struct node_obj *o = obj;
	struct fenced_level *lv;
	unsigned long v;
	char *end, where[340];
	size_t i, j;

	if (n->n != 2 || (errno = 0, v = strtoul(n->w[1], &end, 10), *end || errno) || v < 1 ||
		v > CFG_MAX_LEVEL || !isdigit((unsigned char)n->w[1][0])) {
		err(x, n->loc, "'level' takes a number from 1 to %d (%s)", CFG_MAX_LEVEL, o->where);
		return;
	}
	for (i = 0; i < o->nd->nlevels; i++)
		if (o->nd->levels[i].number == v) {
			err(x, n->loc, "level %lu is given twice (%s)", v, o->where);
			return;
		}
	snprintf(where, sizeof(where), "%s, level %lu", o->where, v);
	lv = cpha_cfgdiag_push(&x->d, &o->nd->levels, &o->nd->nlevels, sizeof(*lv));
	if (!lv)
		return;
	lv->number = (unsigned)v;
	lv->line = n->loc;
	for (i = 0; i < n->nkids && !x->d.stop; i++) {
		const struct cpha_conf_node *e = &n->kids[i];
		struct fenced_use *u;

		if (!e->n)
			continue;
		if (e->block) {
			err(x, e->loc, "a level lists devices: '%s' takes no block (%s)", e->w[0],
				where);
			continue;
		}
		u = cpha_cfgdiag_push(&x->d, &lv->uses, &lv->nuses, sizeof(*u));
		if (!u)
			return;
		u->line = e->loc;
		u->name = cpha_cfgdiag_strdup(&x->d, e->w[0]); /* resolved in validate() */
		for (j = 1; j < e->n; j++) {
			const char *eq = strchr(e->w[j], '=');

			if (!eq || eq == e->w[j]) {
				err(x, e->loc,
					"'%s': parameters of a device in a level are key=value "
					"(%s)",
					e->w[j], where);
				continue;
			}
			param(x, e->loc, e->w[j], (size_t)(eq - e->w[j]), eq + 1, &u->params,
				&u->nparams, where);
		}
	}
	if (!lv->nuses && !x->d.stop)
		err(x, n->loc, "%s lists no device", where);
}

static void n_delay(struct ctx *x, const struct cpha_conf_node *n, void *obj)
{
	struct node_obj *o = obj;
	uint64_t v;

	if (duration(x, n, &v, o->where) < 0)
		return;
	if (strcmp(n->w[0], "delay") == 0)
		o->nd->delay = v;
	else if (strcmp(n->w[0], "delay_max") == 0)
		o->nd->delay_max = v;
	else
		o->nd->priority_delay_vip = v;
}

static void n_unfence(struct ctx *x, const struct cpha_conf_node *n, void *obj)
{
	struct node_obj *o = obj;
	bool b;

	if (cpha_conf_bool(&x->d, n, &b, o->where) == 0)
		o->nd->unfence = b;
}

static const struct kw node_kws[] = {
	{ { "level", HERE }, n_level, CPHA_CONF_KW_BLOCK | CPHA_CONF_KW_MULTI },
	{ { "delay", HERE }, n_delay, 0 },
	{ { "delay_max", HERE }, n_delay, 0 },
	{ { "priority_delay_vip", HERE }, n_delay, 0 },
	{ { "unfence", HERE }, n_unfence, 0 },
};

static int level_cmp(const void *a, const void *b)
{
	const struct fenced_level *x = a, *y = b;

	return x->number < y->number ? -1 : x->number > y->number;
}

static void top_node(struct ctx *x, const struct cpha_conf_node *n, void *obj)
{
	struct node_obj o;
	size_t i;

	(void)obj;
	if (n->n != 2 || !good_name(n->w[1])) {
		err(x, n->loc, "'fence_node' takes one node name, as in corosync's nodelist");
		return;
	}
	snprintf(o.where, sizeof(o.where), "fence_node '%s'", n->w[1]);
	for (i = 0; i < x->c->nnodes; i++)
		if (strcmp(x->c->nodes[i].name, n->w[1]) == 0) {
			err(x, n->loc, "%s is defined twice", o.where);
			return;
		}
	o.nd = cpha_cfgdiag_push(&x->d, &x->c->nodes, &x->c->nnodes, sizeof(*o.nd));
	if (!o.nd)
		return;
	o.nd->name = cpha_cfgdiag_strdup(&x->d, n->w[1]);
	o.nd->line = n->loc;
	o.nd->unfence = -1;
	block(x, n, node_kws, NELEM(node_kws), &o, o.where);
	if (o.nd->nlevels > 1)
		qsort(o.nd->levels, o.nd->nlevels, sizeof(*o.nd->levels), level_cmp);
}

/* ---- watchdog ---- */

static void w_device(struct ctx *x, const struct cpha_conf_node *n, void *obj)
{
	struct fenced_watchdog *w = obj;

	if (cpha_conf_nargs(&x->d, n, 1, 1, "watchdog") < 0)
		return;
	if (n->w[1][0] != '/') {
		err(x, n->loc, "'device' needs an absolute path, not '%s' (watchdog)", n->w[1]);
		return;
	}
	w->device = cpha_cfgdiag_strdup(&x->d, n->w[1]);
}

static void w_timeout(struct ctx *x, const struct cpha_conf_node *n, void *obj)
{
	struct fenced_watchdog *w = obj;
	uint64_t v;

	if (duration(x, n, &v, "watchdog") < 0)
		return;
	/* the Linux watchdog API counts whole seconds */
	if (v < CPHA_USEC_PER_SEC || v > 255 * CPHA_USEC_PER_SEC || v % CPHA_USEC_PER_SEC) {
		err(x, n->loc, "'timeout %s': whole seconds from 1 to 255 (watchdog)", n->w[1]);
		return;
	}
	w->timeout = v;
}

static const struct kw watchdog_kws[] = {
	{ { "device", HERE }, w_device, 0 },
	{ { "timeout", HERE }, w_timeout, 0 },
};

static void top_watchdog(struct ctx *x, const struct cpha_conf_node *n, void *obj)
{
	struct fenced_watchdog *w = &x->c->watchdog;

	(void)obj;
	if (cpha_conf_nargs(&x->d, n, 0, 0, "top level") < 0)
		return;
	w->set = true;
	w->line = n->loc;
	block(x, n, watchdog_kws, NELEM(watchdog_kws), w, "watchdog");
	if (!w->device && !x->d.stop)
		err(x, n->loc, "watchdog has no 'device'");
	if (!w->timeout && !x->d.stop)
		err(x, n->loc, "watchdog has no 'timeout'");
}

static void top_global(struct ctx *x, const struct cpha_conf_node *n, void *obj)
{
	(void)obj;
	if (cpha_conf_nargs(&x->d, n, 0, 0, "top level") == 0)
		block(x, n, global_kws, NELEM(global_kws), &x->c->global, "global_defs");
}

static const struct kw top_kws[] = {
	{ { "global_defs", HERE }, top_global, CPHA_CONF_KW_BLOCK | CPHA_CONF_KW_MULTI },
	{ { "fence_device", HERE }, top_device, CPHA_CONF_KW_BLOCK | CPHA_CONF_KW_MULTI },
	{ { "fence_node", HERE }, top_node, CPHA_CONF_KW_BLOCK | CPHA_CONF_KW_MULTI },
	{ { "watchdog", HERE }, top_watchdog, CPHA_CONF_KW_BLOCK },
};

/* ---- across the file ---- */

static void validate(struct ctx *x)
{
	struct fenced_config *c = x->c;
	bool *used;
	size_t i, j, u, k;

	if (c->global.metrics_web && !c->global.metrics_set)
		err(x, c->global.metrics_web_loc,
			"'fenced_metrics_web_config' without 'fenced_metrics_bind': there is no "
			"listener to apply it to (global_defs)");

	used = calloc(c->ndevices ? c->ndevices : 1, sizeof(*used));
	if (!used) {
		cpha_cfgdiag_oom(&x->d);
		return;
	}
	for (i = 0; i < c->nnodes; i++)
		for (j = 0; j < c->nodes[i].nlevels; j++)
			for (u = 0; u < c->nodes[i].levels[j].nuses; u++) {
				struct fenced_use *use = &c->nodes[i].levels[j].uses[u];

				for (k = 0; k < c->ndevices; k++)
					if (strcmp(c->devices[k].name, use->name) == 0)
						break;
				if (k == c->ndevices) {
					err(x, use->line,
						"no fence_device '%s' (fence_node '%s', level %u)",
						use->name, c->nodes[i].name,
						c->nodes[i].levels[j].number);
					continue;
				}
				used[k] = true;
				use->device = k;
			}
	for (k = 0; k < c->ndevices; k++)
		if (!used[k] && c->global.via != FENCED_VIA_PACEMAKER)
			notice(x, c->devices[k].line, "fence_device '%s' is used by no fence_node",
				c->devices[k].name);
	free(used);
	if (c->global.via == FENCED_VIA_PACEMAKER) {
		/* Pacemaker's devices and topology do the fencing */
		for (k = 0; k < c->ndevices; k++)
			notice(x, c->devices[k].line,
				"fence_device '%s' is not used: fence_via pacemaker hands fencing "
				"to pacemaker-fenced",
				c->devices[k].name);
		return;
	}
	for (i = 0; i < c->nnodes; i++)
		if (!c->nodes[i].nlevels && !c->watchdog.set)
			err(x, c->nodes[i].line,
				"fence_node '%s' has no level, and there is no watchdog: nothing "
				"could "
				"fence it",
				c->nodes[i].name);
	if (!c->nnodes && !c->watchdog.set)
		notice(x, 0, "no fence_node and no watchdog: fenced will fence nothing");
}

static void run_top(struct ctx *x)
{
	block(x, &x->t.root, top_kws, NELEM(top_kws), NULL, NULL);
}

void fenced_cfg_free(struct fenced_config *c)
{
	size_t i, j, k;

	if (!c)
		return;
	for (i = 0; i < c->ndevices; i++) {
		free(c->devices[i].name);
		free(c->devices[i].agent);
		for (j = 0; j < c->devices[i].nparams; j++) {
			free(c->devices[i].params[j].key);
			free(c->devices[i].params[j].value);
		}
		free(c->devices[i].params);
	}
	free(c->devices);
	for (i = 0; i < c->nnodes; i++) {
		for (j = 0; j < c->nodes[i].nlevels; j++) {
			struct fenced_level *lv = &c->nodes[i].levels[j];

			for (k = 0; k < lv->nuses; k++) {
				size_t m;

				for (m = 0; m < lv->uses[k].nparams; m++) {
					free(lv->uses[k].params[m].key);
					free(lv->uses[k].params[m].value);
				}
				free(lv->uses[k].params);
				free(lv->uses[k].name);
			}
			free(lv->uses);
		}
		free(c->nodes[i].levels);
		free(c->nodes[i].name);
	}
	free(c->nodes);
	free(c->watchdog.device);
	free(c->global.admin_socket);
	free(c->global.vip_socket);
	cpha_webcfg_unref(c->global.metrics_web);
	for (i = 0; i < c->nnotices; i++)
		free(c->notices[i]);
	free(c->notices);
	for (i = 0; i < c->nfiles; i++)
		free(c->files[i]);
	free(c->files);
	free(c->file);
	free(c);
}

static int run(struct ctx *x, struct cpha_conf_reader *rd, const char *file,
	struct fenced_config **out, struct cpha_msgs *errs)
{
	struct fenced_config *c = calloc(1, sizeof(*c));
	size_t i;
	int r = -1;

	x->c = c;
	if (!c || !(c->file = strdup(file)) || !(c->global.admin_socket = strdup(DEFAULT_SOCKET))) {
		cpha_cfgdiag_oom(&x->d);
	} else {
		c->global.post_join_delay = 6 * CPHA_USEC_PER_SEC;
		c->global.agent_timeout = 60 * CPHA_USEC_PER_SEC;
		c->global.power_check_timeout = POWER_CHECK_TIMEOUT_DEFAULT;
		c->global.retry_interval = 10 * CPHA_USEC_PER_SEC;
		cpha_conf_read(&x->t, rd);
		if (!x->d.stop)
			run_top(x);
		if (!x->d.stop && !x->d.nerrs)
			validate(x);
	}
	cpha_conf_read_end(rd);
	if (c && !x->d.nerrs && !x->d.stop &&
		cpha_cfgdiag_take(x->d.notv, &x->d.nnotices, &c->notices, &c->nnotices) == 0) {
		c->files = calloc(x->d.nfiles ? x->d.nfiles : 1, sizeof(*c->files));
		for (i = 0; c->files && i < x->d.nfiles; i++) {
			c->files[i] = x->d.files[i];
			x->d.files[i] = NULL;
			c->nfiles++;
		}
		if (c->files) {
			*out = c;
			r = 0;
		}
	}
	if (r < 0) {
		if (!x->d.nerrs)
			cpha_cfgdiag_oom(&x->d);
		cpha_cfgdiag_take_errs(&x->d, errs);
		fenced_cfg_free(c);
	}
	cpha_conf_node_free(&x->t.root);
	cpha_cfgdiag_free(&x->d);
	return r;
}

static int start(struct ctx *x, struct cpha_conf_reader *rd, const char *name)
{
	memset(x, 0, sizeof(*x));
	x->d.max_errors = CFG_MAX_ERRORS;
	x->t.d = &x->d;
	return cpha_conf_read_start(&x->t, rd, name);
}

int fenced_cfg_load(const char *path, struct fenced_config **out, struct cpha_msgs *errs)
{
	struct cpha_conf_reader rd;
	struct ctx x;
	int r;

	*out = NULL;
	if (start(&x, &rd, path) < 0) {
		cpha_cfgdiag_free(&x.d);
		return cpha_msgs_cannot_read(errs, path, "out of memory");
	}
	r = cpha_lex_open(&rd.src[0].lx, path, CPHA_LEX_KEEPALIVED);
	if (r < 0) {
		r = cpha_msgs_cannot_read(
			errs, path, rd.src[0].lx.err[0] ? rd.src[0].lx.err : strerror(-r));
		cpha_lex_free(&rd.src[0].lx);
		cpha_cfgdiag_free(&x.d);
		return r;
	}
	x.t.includes = true;
	return run(&x, &rd, path, out, errs);
}

int fenced_cfg_load_mem(const char *name, const char *text, size_t len, struct fenced_config **out,
	struct cpha_msgs *errs)
{
	struct cpha_conf_reader rd;
	struct ctx x;

	*out = NULL;
	if (!name)
		name = "(memory)";
	if (start(&x, &rd, name) < 0 ||
		cpha_lex_open_mem(&rd.src[0].lx, name, text, len, CPHA_LEX_KEEPALIVED) < 0) {
		cpha_cfgdiag_free(&x.d);
		return cpha_msgs_cannot_read(errs, name, "out of memory");
	}
	return run(&x, &rd, name, out, errs);
}

const struct fenced_node *fenced_cfg_node(const struct fenced_config *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nnodes; i++)
		if (strcmp(c->nodes[i].name, name) == 0)
			return &c->nodes[i];
	return NULL;
}

const struct fenced_device *fenced_cfg_device(const struct fenced_config *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->ndevices; i++)
		if (strcmp(c->devices[i].name, name) == 0)
			return &c->devices[i];
	return NULL;
}
