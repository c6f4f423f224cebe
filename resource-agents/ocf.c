/* The OCF core: environment, parameters, time budget, clone and notify
 * variables, exit reasons and the action dispatch. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "duration.h"
#include "ocf.h"

#define OCF_RESKEY "OCF_RESKEY_"
#define OCF_META   "OCF_RESKEY_CRM_meta_"

uint64_t ocf_now(void)
{
	return cpha_now_usec(CLOCK_MONOTONIC);
}

const char *ocf_envp_get(char *const *envp, const char *name)
{
	size_t len = strlen(name);

	for (; envp && *envp; envp++) {
		if (strncmp(*envp, name, len) == 0 && (*envp)[len] == '=')
			return *envp + len + 1;
	}
	return NULL;
}

const char *ocf_env(const struct ocf_ctx *c, const char *name)
{
	return ocf_envp_get(c->envp, name);
}

/* ---------------------------------------------------------------- strv -- */

int ocf_strv_push(struct ocf_strv *v, const char *s)
{
	char **nv;
	char *copy = strdup(s);

	if (!copy)
		return -ENOMEM;
	nv = realloc(v->v, (v->n + 2) * sizeof(*nv));
	if (!nv) {
		free(copy);
		return -ENOMEM;
	}
	v->v = nv;
	v->v[v->n++] = copy;
	v->v[v->n] = NULL;
	return 0;
}

int ocf_strv_split_ws(const char *s, struct ocf_strv *out)
{
	char word[4096];
	size_t len;
	int r;

	while (s && *s) {
		s += strspn(s, " \t\n");
		len = strcspn(s, " \t\n");
		if (len == 0)
			break;
		if (len >= sizeof(word))
			return -E2BIG;
		memcpy(word, s, len);
		word[len] = '\0';
		r = ocf_strv_push(out, word);
		if (r < 0)
			return r;
		s += len;
	}
	return 0;
}

bool ocf_strv_contains(const struct ocf_strv *v, const char *s)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		if (strcmp(v->v[i], s) == 0)
			return true;
	}
	return false;
}

bool ocf_strv_equal(const struct ocf_strv *a, const struct ocf_strv *b)
{
	size_t i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++) {
		if (strcmp(a->v[i], b->v[i]) != 0)
			return false;
	}
	return true;
}

void ocf_strv_free(struct ocf_strv *v)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		free(v->v[i]);
	free(v->v);
	v->v = NULL;
	v->n = 0;
}

/* -------------------------------------------------------------- values -- */

int ocf_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on", "y", "1" };
	static const char *const no[] = { "false", "no", "off", "n", "0" };
	size_t i;

	if (!s)
		return -EINVAL;
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

/* Unsigned decimal, no sign, no trailing text. */
static int parse_ulong(const char *s, unsigned long max, unsigned long *out)
{
	unsigned long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

const struct ocf_param *ocf_param_find(const struct ocf_agent *a, const char *name)
{
	const struct ocf_param *p;

	for (p = a->params; p && p->name; p++) {
		if (strcmp(p->name, name) == 0)
			return p;
	}
	return NULL;
}

static size_t param_index(const struct ocf_ctx *c, const char *name)
{
	const struct ocf_param *p = ocf_param_find(c->agent, name);

	if (!p) {
		/* a typo in an agent, never the operator's input */
		log_err("BUG: agent %s has no parameter %s", c->agent->name, name);
		abort();
	}
	return (size_t)(p - c->agent->params);
}

const char *ocf_get(const struct ocf_ctx *c, const char *name)
{
	return c->values[param_index(c, name)];
}

bool ocf_is_set(const struct ocf_ctx *c, const char *name)
{
	char key[256];
	const char *v;

	(void)param_index(c, name);
	snprintf(key, sizeof(key), OCF_RESKEY "%s", name);
	v = ocf_env(c, key);
	return v && *v;
}

int ocf_get_bool(const struct ocf_ctx *c, const char *name, bool *out)
{
	const char *v = ocf_get(c, name);

	if (!v)
		return -ENOENT;
	if (ocf_parse_bool(v, out) < 0) {
		ocf_exit_reason(
			"parameter %s is not a boolean (true or false): %s=%s", name, name, v);
		return -EINVAL;
	}
	return 0;
}

int ocf_get_uint(const struct ocf_ctx *c, const char *name, unsigned long max, unsigned long *out)
{
	const char *v = ocf_get(c, name);

	if (!v)
		return -ENOENT;
	if (parse_ulong(v, max, out) < 0) {
		ocf_exit_reason(
			"parameter %s is not a number from 0 to %lu: %s=%s", name, max, name, v);
		return -EINVAL;
	}
	return 0;
}

/* -------------------------------------------------------------- budget -- */

/* A tenth of t, at least floor, at most 5 s, never more than half of t. */
static uint64_t tenth_within(uint64_t t, uint64_t floor)
{
	uint64_t v = t / 10;

	if (v < floor)
		v = floor;
	if (v > 5000000ULL)
		v = 5000000ULL;
	if (v > t / 2)
		v = t / 2;
	return v;
}

uint64_t ocf_budget_usec(uint64_t timeout_ms)
{
	uint64_t t = timeout_ms * 1000ULL;

	return t - tenth_within(t, 500000ULL);
}

uint64_t ocf_kill_reserve_usec(uint64_t left)
{
	return tenth_within(left, 1000000ULL);
}

uint64_t ocf_left(const struct ocf_ctx *c)
{
	uint64_t now = ocf_now();

	return now >= c->deadline_usec ? 0 : c->deadline_usec - now;
}

bool ocf_sleep(const struct ocf_ctx *c, uint64_t usec)
{
	uint64_t left = ocf_left(c);
	struct timespec ts;

	if (left == 0)
		return false;
	if (usec > left)
		usec = left;
	ts.tv_sec = (time_t)(usec / 1000000ULL);
	ts.tv_nsec = (long)(usec % 1000000ULL) * 1000L;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
	return ocf_left(c) > 0;
}

/* --------------------------------------------------------- exit reasons -- */

static void vreason(int level, const char *fmt, va_list ap)
{
	char text[1024];
	char *p;

	vsnprintf(text, sizeof(text), fmt, ap);
	/* one line: Pacemaker reads the reason up to the end of the line */
	for (p = text; *p; p++) {
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	}
	cpha_log(level, "%s", text);
	fprintf(stderr, "ocf-exit-reason:%s\n", text);
	fflush(stderr);
}

void ocf_exit_reason(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreason(LOG_ERR, fmt, ap);
	va_end(ap);
}

int ocf_fail(int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreason(LOG_ERR, fmt, ap);
	va_end(ap);
	return rc;
}

int ocf_degraded(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreason(LOG_WARNING, fmt, ap);
	va_end(ap);
	return PCMK_OCF_DEGRADED;
}

const char *ocf_rc_name(int rc)
{
	switch (rc) {
	case PCMK_OCF_OK:
		return "OCF_SUCCESS";
	case PCMK_OCF_UNKNOWN_ERROR:
		return "OCF_ERR_GENERIC";
	case PCMK_OCF_INVALID_PARAM:
		return "OCF_ERR_ARGS";
	case PCMK_OCF_UNIMPLEMENT_FEATURE:
		return "OCF_ERR_UNIMPLEMENTED";
	case PCMK_OCF_INSUFFICIENT_PRIV:
		return "OCF_ERR_PERM";
	case PCMK_OCF_NOT_INSTALLED:
		return "OCF_ERR_INSTALLED";
	case PCMK_OCF_NOT_CONFIGURED:
		return "OCF_ERR_CONFIGURED";
	case PCMK_OCF_NOT_RUNNING:
		return "OCF_NOT_RUNNING";
	case PCMK_OCF_RUNNING_PROMOTED:
		return "OCF_RUNNING_PROMOTED";
	case PCMK_OCF_FAILED_PROMOTED:
		return "OCF_FAILED_PROMOTED";
	case PCMK_OCF_DEGRADED:
		return "OCF_DEGRADED";
	case PCMK_OCF_DEGRADED_PROMOTED:
		return "OCF_DEGRADED_PROMOTED";
	default:
		return "unknown";
	}
}

/* ------------------------------------------------------ clone, notify -- */

char *ocf_state_name(const char *agent, const char *instance, bool globally_unique)
{
	size_t len = strlen(instance);
	const char *colon = strrchr(instance, ':');
	char *out, *p;

	/* "apiserver:2" of an anonymous clone is "apiserver" on every node */
	if (!globally_unique && colon && colon[1] &&
		strspn(colon + 1, "0123456789") == strlen(colon + 1))
		len = (size_t)(colon - instance);
	if (asprintf(&out, "%s-%.*s", agent, (int)len, instance) < 0)
		return NULL;
	for (p = out; *p; p++) {
		if (*p == '/' || *p == ':' || *p == ' ')
			*p = '-';
	}
	return out;
}

static unsigned meta_uint(char *const *envp, const char *name, unsigned dflt)
{
	char key[128];
	unsigned long v;

	snprintf(key, sizeof(key), OCF_META "%s", name);
	if (parse_ulong(ocf_envp_get(envp, key), UINT_MAX, &v) < 0)
		return dflt;
	return (unsigned)v;
}

static bool meta_bool(char *const *envp, const char *name)
{
	char key[128];
	bool v = false;

	snprintf(key, sizeof(key), OCF_META "%s", name);
	if (ocf_parse_bool(ocf_envp_get(envp, key), &v) < 0)
		return false;
	return v;
}

void ocf_clone_parse(char *const *envp, struct ocf_clone *out)
{
	memset(out, 0, sizeof(*out));
	out->is_clone = ocf_envp_get(envp, OCF_META "clone_max") != NULL;
	out->max = meta_uint(envp, "clone_max", 0);
	out->instance = meta_uint(envp, "clone", 0);
	out->node_max = meta_uint(envp, "clone_node_max", 1);
	out->globally_unique = meta_bool(envp, "globally_unique");
	out->notify = meta_bool(envp, "notify");
}

static const char *const notify_sets[OCF_NS_MAX][2] = {
	[OCF_NS_ACTIVE] = { "active", NULL },
	[OCF_NS_INACTIVE] = { "inactive", NULL },
	[OCF_NS_AVAILABLE] = { "available", NULL },
	[OCF_NS_ALL] = { "all", NULL },
	[OCF_NS_START] = { "start", NULL },
	[OCF_NS_STOP] = { "stop", NULL },
	[OCF_NS_PROMOTE] = { "promote", NULL },
	[OCF_NS_DEMOTE] = { "demote", NULL },
	[OCF_NS_PROMOTED] = { "promoted", "master" },
	[OCF_NS_UNPROMOTED] = { "unpromoted", "slave" },
};

const char *ocf_notify_type_name(enum ocf_notify_type t)
{
	return t == OCF_NOTIFY_PRE ? "pre" : t == OCF_NOTIFY_POST ? "post" : "none";
}

const char *ocf_notify_op_name(enum ocf_notify_op op)
{
	static const char *const names[] = { "none", "start", "stop", "promote", "demote" };

	return names[op];
}

/* One list: the current name first, the pre-2.1 name when it is absent. */
static int notify_list(
	char *const *envp, enum ocf_notify_set s, const char *kind, struct ocf_strv *out)
{
	char key[128];
	const char *v;
	int i;

	for (i = 0; i < 2 && notify_sets[s][i]; i++) {
		snprintf(key, sizeof(key), OCF_META "notify_%s_%s", notify_sets[s][i], kind);
		v = ocf_envp_get(envp, key);
		if (v)
			return ocf_strv_split_ws(v, out);
	}
	return 0;
}

int ocf_notify_parse(char *const *envp, struct ocf_notify *out)
{
	const char *type = ocf_envp_get(envp, OCF_META "notify_type");
	const char *op = ocf_envp_get(envp, OCF_META "notify_operation");
	static const char *const ops[] = { NULL, "start", "stop", "promote", "demote" };
	int s, i, r;

	memset(out, 0, sizeof(*out));
	if (type && strcmp(type, "pre") == 0)
		out->type = OCF_NOTIFY_PRE;
	else if (type && strcmp(type, "post") == 0)
		out->type = OCF_NOTIFY_POST;
	for (i = 1; op && i < 5; i++) {
		if (strcmp(op, ops[i]) == 0)
			out->op = (enum ocf_notify_op)i;
	}
	for (s = 0; s < OCF_NS_MAX; s++) {
		r = notify_list(envp, (enum ocf_notify_set)s, "uname", &out->uname[s]);
		if (r == 0)
			r = notify_list(
				envp, (enum ocf_notify_set)s, "resource", &out->resource[s]);
		if (r < 0) {
			ocf_notify_free(out);
			return r;
		}
	}
	return 0;
}

void ocf_notify_free(struct ocf_notify *n)
{
	int s;

	for (s = 0; s < OCF_NS_MAX; s++) {
		ocf_strv_free(&n->uname[s]);
		ocf_strv_free(&n->resource[s]);
	}
}

/* ----------------------------------------------------------------- ctx -- */

int ocf_ctx_init(struct ocf_ctx *c, const struct ocf_agent *a, const char *action,
	char *const *envp, uint64_t now_usec)
{
	const struct ocf_action *act;
	const struct ocf_param *p;
	const char *inst, *v;
	unsigned long ms;
	struct utsname u;
	size_t n = 0, i;
	char key[256];

	memset(c, 0, sizeof(*c));
	c->agent = a;
	c->action_name = action;
	c->envp = envp;
	for (act = a->actions; act->name; act++) {
		if (strcmp(act->name, action) == 0)
			c->action = act;
	}
	for (p = a->params; p && p->name; p++)
		n++;
	c->values = calloc(n + 1, sizeof(*c->values));
	if (!c->values)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		snprintf(key, sizeof(key), OCF_RESKEY "%s", a->params[i].name);
		v = ocf_envp_get(envp, key);
		c->values[i] = v && *v ? v : a->params[i].def;
	}

	ocf_clone_parse(envp, &c->clone);
	if (ocf_notify_parse(envp, &c->notify) < 0)
		goto nomem;
	inst = ocf_envp_get(envp, "OCF_RESOURCE_INSTANCE");
	c->instance = inst && *inst ? inst : a->name;
	c->state_name = ocf_state_name(a->name, c->instance, c->clone.globally_unique);
	v = ocf_envp_get(envp, OCF_META "on_node");
	if (v && *v)
		c->node = strdup(v);
	else
		c->node = strdup(uname(&u) == 0 ? u.nodename : "localhost");
	if (!c->state_name || !c->node)
		goto nomem;

	c->timeout_ms = (c->action ? c->action->timeout_s : 20) * 1000ULL;
	v = ocf_envp_get(envp, OCF_META "timeout");
	if (v) {
		if (parse_ulong(v, 86400000UL, &ms) == 0 && ms > 0)
			c->timeout_ms = ms;
		else
			log_warn("ignoring OCF_RESKEY_CRM_meta_timeout=%s (not milliseconds)", v);
	}
	v = ocf_envp_get(envp, OCF_META "interval");
	if (v && parse_ulong(v, 86400000UL * 365, &ms) == 0)
		c->interval_ms = ms;
	c->probe = strcmp(action, "monitor") == 0 && c->interval_ms == 0;
	c->start_usec = now_usec;
	c->deadline_usec = now_usec + ocf_budget_usec(c->timeout_ms);
	return 0;
nomem:
	ocf_ctx_free(c);
	return -ENOMEM;
}

void ocf_ctx_free(struct ocf_ctx *c)
{
	free(c->values);
	free(c->state_name);
	free(c->node);
	ocf_notify_free(&c->notify);
	c->values = NULL;
	c->state_name = NULL;
	c->node = NULL;
}

/* ---------------------------------------------------------------- main -- */

static void usage(const struct ocf_agent *a, FILE *f)
{
	const struct ocf_action *act;

	fprintf(f, "usage: %s {meta-data", a->name);
	for (act = a->actions; act->name; act++)
		fprintf(f, "|%s", act->name);
	fprintf(f, "}\n\n%s (OCF resource agent ocf:cpha:%s, cpha %s)\n", a->shortdesc, a->name,
		a->version);
}

static bool debug_requested(char *const *envp)
{
	const char *v = ocf_envp_get(envp, "HA_debug");
	bool on = false;

	if (v && (strcmp(v, "1") == 0 || (ocf_parse_bool(v, &on) == 0 && on)))
		return true;
	v = ocf_envp_get(envp, "OCF_TRACE_RA");
	return v && *v && strcmp(v, "0") != 0;
}

int ocf_main(const struct ocf_agent *a, int argc, char **argv, char **envp)
{
	static char ident[256];
	struct cpha_buf meta = { 0 };
	struct ocf_ctx c;
	const char *action;
	int rc;

	if (argc < 2) {
		usage(a, stderr);
		return PCMK_OCF_INVALID_PARAM;
	}
	action = argv[1];
	if (strcmp(action, "meta-data") == 0) {
		if (ocf_meta_render(a, &meta) < 0)
			return PCMK_OCF_UNKNOWN_ERROR;
		fwrite(meta.data, 1, meta.len, stdout);
		cpha_buf_free(&meta);
		return fflush(stdout) == 0 ? PCMK_OCF_OK : PCMK_OCF_UNKNOWN_ERROR;
	}
	if (strcmp(action, "usage") == 0 || strcmp(action, "help") == 0 ||
		strcmp(action, "--help") == 0) {
		usage(a, stdout);
		return PCMK_OCF_OK;
	}
	if (ocf_ctx_init(&c, a, action, envp, ocf_now()) < 0) {
		fprintf(stderr, "ocf-exit-reason:out of memory\n");
		return PCMK_OCF_UNKNOWN_ERROR;
	}
	snprintf(ident, sizeof(ident), "%s(%s)", a->name, c.instance);
	cpha_log_open(ident, CPHA_LOG_STDERR);
	cpha_log_set_level(debug_requested(envp) ? LOG_DEBUG : LOG_INFO);
	cpha_log_set_ratelimit(0, 0);
	if (!c.action || !c.action->fn) {
		log_debug("action %s is not implemented", action);
		ocf_ctx_free(&c);
		return PCMK_OCF_UNIMPLEMENT_FEATURE;
	}
	log_debug("%s: timeout %llums, budget %llums, interval %llums%s", action,
		(unsigned long long)c.timeout_ms,
		(unsigned long long)((c.deadline_usec - c.start_usec) / 1000),
		(unsigned long long)c.interval_ms, c.probe ? " (probe)" : "");
	rc = c.action->fn(&c);
	if (rc != PCMK_OCF_OK && !(rc == PCMK_OCF_NOT_RUNNING && strcmp(action, "monitor") == 0))
		log_info("%s: %s (%d) after %llums", action, ocf_rc_name(rc), rc,
			(unsigned long long)((ocf_now() - c.start_usec) / 1000));
	else
		log_debug("%s: %s after %llums", action, ocf_rc_name(rc),
			(unsigned long long)((ocf_now() - c.start_usec) / 1000));
	ocf_ctx_free(&c);
	return rc;
}
