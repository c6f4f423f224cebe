/* fence-agents' metadata ("AGENT -o metadata"): the parameters an agent
 * takes, and the check of a configuration's parameters against them.
 *
 * The metadata is XML with one <parameter name="..."> element per
 * parameter, deprecated ones marked deprecated="1" and their replacements
 * obsoletes="OLD". Only those attributes are read: a tiny scanner, not an
 * XML parser, which is enough for what fence-agents print (checked with
 * fence_ipmilan, fence_apc_snmp and fence_dummy of Debian 12). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfg.h"
#include "cfgdiag.h"
#include "cfgmsg.h"
#include "event.h"
#include "spawn.h"

#define META_TIMEOUT (10 * 1000000ULL)

void fenced_agent_meta_free(struct fenced_agent_meta *m)
{
	size_t i;

	for (i = 0; i < m->nparams; i++) {
		free(m->params[i].name);
		free(m->params[i].obsoletes);
	}
	free(m->params);
	m->params = NULL;
	m->nparams = 0;
}

/* The value of attribute name in the tag [tag, end), or NULL. */
static char *attr(const char *tag, const char *end, const char *name)
{
	size_t n = strlen(name);
	const char *p, *q;

	for (p = tag; p + n + 2 < end; p++) {
		if ((p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n') && strncmp(p, name, n) == 0 &&
			p[n] == '=' && p[n + 1] == '"') {
			q = memchr(p + n + 2, '"', (size_t)(end - (p + n + 2)));
			return q ? strndup(p + n + 2, (size_t)(q - (p + n + 2))) : NULL;
		}
	}
	return NULL;
}

int fenced_agent_meta_parse(const char *xml, struct fenced_agent_meta *m)
{
	const char *p = xml, *end;
	struct fenced_agent_param *np;
	char *dep;

	memset(m, 0, sizeof(*m));
	while ((p = strstr(p, "<parameter")) != NULL) {
		p += 10;
		if (*p != ' ' && *p != '\t' && *p != '\n')
			continue;
		end = strchr(p, '>');
		if (!end)
			break;
		np = realloc(m->params, (m->nparams + 1) * sizeof(*np));
		if (!np) {
			fenced_agent_meta_free(m);
			return -ENOMEM;
		}
		m->params = np;
		np = &m->params[m->nparams];
		memset(np, 0, sizeof(*np));
		np->name = attr(p, end, "name");
		if (!np->name)
			continue;
		np->obsoletes = attr(p, end, "obsoletes");
		dep = attr(p, end, "deprecated");
		np->deprecated = dep && strcmp(dep, "1") == 0;
		free(dep);
		m->nparams++;
		p = end;
	}
	return m->nparams ? 0 : -EINVAL;
}

static const struct fenced_agent_param *meta_find(
	const struct fenced_agent_meta *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->nparams; i++)
		if (strcmp(m->params[i].name, name) == 0)
			return &m->params[i];
	return NULL;
}

static const char *replacement(const struct fenced_agent_meta *m, const char *old)
{
	size_t i;

	for (i = 0; i < m->nparams; i++)
		if (m->params[i].obsoletes && strcmp(m->params[i].obsoletes, old) == 0)
			return m->params[i].name;
	return NULL;
}

/* A message "file:line: text" at loc: a notice into c's notices, or with
 * errs an error into it. */
static void say_at(struct fenced_config *c, struct cpha_msgs *errs, unsigned loc, const char *fmt,
	...) __attribute__((format(printf, 4, 5)));

static void say_at(
	struct fenced_config *c, struct cpha_msgs *errs, unsigned loc, const char *fmt, ...)
{
	unsigned f = CPHA_CFGDIAG_LOC_FILE(loc), line = CPHA_CFGDIAG_LOC_LINE(loc);
	char *text = NULL, *s = NULL, **p;
	struct cpha_msg *e;
	const char *fname;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	if (!text)
		return;
	fname = f < c->nfiles ? c->files[f] : c->file;
	if ((line ? asprintf(&s, "%s:%u: %s", fname, line, text)
		  : asprintf(&s, "%s: %s", fname, text)) < 0)
		s = NULL;
	free(text);
	if (errs) {
		e = s ? cpha_array_push(&errs->errs, &errs->nerrs, sizeof(*e)) : NULL;
		if (e) {
			e->pos = (struct cpha_pos){ line, 0 };
			e->text = s;
		} else {
			free(s);
		}
		return;
	}
	p = s ? cpha_array_push(&c->notices, &c->nnotices, sizeof(*p)) : NULL;
	if (p)
		*p = s;
	else
		free(s);
}

/* One parameter against the agent's metadata; 1 for an error. X_file is
 * the agent's own parameter when it has one of that name (a path it
 * reads), else the secret file of parameter X, which must be readable. */
static size_t check_param(struct fenced_config *c, struct fenced_param *p,
	const struct fenced_agent_meta *m, const char *agent, const char *where,
	struct cpha_msgs *errs)
{
	const struct fenced_agent_param *ap;
	const char *repl;
	char full[96], *k;

	if (p->from_file) {
		snprintf(full, sizeof(full), "%s_file", p->key);
		if (meta_find(m, full) && (k = strdup(full)) != NULL) {
			free(p->key);
			p->key = k;
			p->from_file = false;
		}
	}
	ap = meta_find(m, p->key);
	if (ap && p->from_file && access(p->value, R_OK) < 0)
		say_at(c, NULL, p->line,
			"'%s_file %s': cannot read it (%s): fenced will not start until it can "
			"(%s)",
			p->key, p->value, strerror(errno), where);
	if (!ap) {
		say_at(c, errs, p->line, "'%s%s' is not a parameter of %s (%s)", p->key,
			p->from_file ? "_file" : "", agent, where);
		return 1;
	}
	if (ap->deprecated) {
		repl = replacement(m, p->key);
		say_at(c, NULL, p->line, "'%s' is deprecated in %s%s%s (%s)", p->key, agent,
			repl ? ": use " : "", repl ? repl : "", where);
	}
	return 0;
}

size_t fenced_cfg_check_agents(
	struct fenced_config *c, fenced_meta_fn meta, void *ud, struct cpha_msgs *errs)
{
	struct fenced_agent_meta *metas;
	char why[256], where[300];
	size_t i, j, k, u, nerr = 0;
	int *ok;

	metas = calloc(c->ndevices ? c->ndevices : 1, sizeof(*metas));
	ok = calloc(c->ndevices ? c->ndevices : 1, sizeof(*ok));
	if (!metas || !ok) {
		free(metas);
		free(ok);
		say_at(c, errs, 0, "out of memory");
		return 1;
	}
	for (i = 0; i < c->ndevices; i++) {
		const struct fenced_device *dv = &c->devices[i];

		/* one run per agent */
		for (k = 0; k < i; k++)
			if (ok[k] && strcmp(c->devices[k].agent, dv->agent) == 0)
				break;
		if (k < i) {
			metas[i] = metas[k];
			ok[i] = 2; /* borrowed */
		} else if (meta(ud, dv->agent, &metas[i], why, sizeof(why)) == 0) {
			ok[i] = 1;
		} else {
			say_at(c, errs, dv->line, "fence_device '%s': agent %s: %s", dv->name,
				dv->agent, why);
			nerr++;
			continue;
		}
		snprintf(where, sizeof(where), "fence_device '%s'", dv->name);
		for (j = 0; j < dv->nparams; j++)
			nerr += check_param(
				c, &c->devices[i].params[j], &metas[i], dv->agent, where, errs);
	}
	for (i = 0; i < c->nnodes; i++)
		for (j = 0; j < c->nodes[i].nlevels; j++)
			for (u = 0; u < c->nodes[i].levels[j].nuses; u++) {
				struct fenced_use *use = &c->nodes[i].levels[j].uses[u];
				const struct fenced_device *dv = &c->devices[use->device];

				if (!ok[use->device])
					continue;
				snprintf(where, sizeof(where), "fence_node '%s', level %u, %s",
					c->nodes[i].name, c->nodes[i].levels[j].number, dv->name);
				for (k = 0; k < use->nparams; k++)
					nerr += check_param(c, &use->params[k], &metas[use->device],
						dv->agent, where, errs);
			}
	for (i = 0; i < c->ndevices; i++)
		if (ok[i] == 1)
			fenced_agent_meta_free(&metas[i]);
	free(metas);
	free(ok);
	return nerr;
}

/* ---- running the agent ---- */

struct meta_run {
	int done;
	struct cpha_spawn_result r;
	char *out;
};

static void meta_done(void *ud, const struct cpha_spawn_result *r)
{
	struct meta_run *mr = ud;

	mr->done = 1;
	mr->r = *r;
	mr->out = r->out ? strdup(r->out) : NULL;
}

int fenced_agent_meta_run(
	void *ud, const char *agent, struct fenced_agent_meta *m, char *why, size_t whylen)
{
	static const char *const dirs[] = { "/usr/sbin/", "/sbin/", "/usr/local/sbin/" };
	const char *argv[4] = { agent, "-o", "metadata", NULL };
	struct cpha_spawn_opts o = { .argv = argv, .timeout_usec = META_TIMEOUT };
	struct meta_run mr = { 0 };
	char path[512];
	sd_event *e = NULL;
	size_t i;
	int r, n;

	(void)ud;
	if (agent[0] != '/') {
		/* fence-agents live in sbin, which a user's PATH may lack */
		for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
			snprintf(path, sizeof(path), "%s%s", dirs[i], agent);
			if (access(path, X_OK) == 0) {
				argv[0] = path;
				break;
			}
		}
	}
	r = sd_event_new(&e);
	if (r >= 0)
		r = cpha_spawn(e, &o, meta_done, &mr, NULL);
	if (r < 0) {
		snprintf(why, whylen, "%s", r == -ENOENT ? "not installed" : strerror(-r));
		sd_event_unref(e);
		return r;
	}
	for (n = 0; !mr.done && n < 10000; n++)
		sd_event_run(e, 100000);
	sd_event_unref(e);
	if (!mr.done) {
		snprintf(why, whylen, "no answer to -o metadata");
		return -ETIMEDOUT;
	}
	if (mr.r.timed_out || !mr.r.exited || mr.r.exit_code != 0 || !mr.out) {
		snprintf(why, whylen, "-o metadata failed (%s %d)",
			mr.r.exited ? "exit status" : "signal",
			mr.r.exited ? mr.r.exit_code : mr.r.signo);
		free(mr.out);
		return -EIO;
	}
	r = fenced_agent_meta_parse(mr.out, m);
	free(mr.out);
	if (r < 0)
		snprintf(why, whylen, "-o metadata lists no parameter: is it a fence agent?");
	return r;
}
