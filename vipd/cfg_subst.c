/* keepalived's conditional configuration and parameter substitution, done
 * on a file's text before it is split into words (keepalived.conf(5),
 * "Conditional configuration" and "Parameter substitution"):
 *
 *   @ID line      the line is kept only when ID is the config id (vipd -i,
 *                 default: the host name up to its first '.')
 *   @^ID line     kept only when it is not
 *   $NAME=VALUE   defines NAME (letters, digits, '_', not a digit first;
 *                 no space before '='); VALUE may be empty
 *   $NAME= \      a multi-line definition: the following lines ending in
 *                 '\' and the first one that does not
 *   $NAME         followed by a blank or the end of the line, and ${NAME}
 *                 anywhere: replaced by the value, again and again (the
 *                 value's own parameters are replaced when it is used)
 *
 * A parameter never defined is left as written, so a '$' in a script line
 * means what it meant. A multi-line value makes several lines, each read
 * as if written there (they may hold conditions and definitions). ${_PWD}
 * is the directory of the file being read and ${_INSTANCE} the config id.
 * Definitions carry over into included files, as in keepalived.
 *
 * The text is rewritten only when a file uses any of this; then every line
 * it produces maps back to the line of the file it came from, for
 * messages. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "buf.h"
#include "cfg_ctx.h"

#define SUBST_MAX_DEPTH 32         /* nested expansions of one line */
#define SUBST_MAX_OUT   (1u << 21) /* bytes one file may grow to */
#define SUBST_MAX_LINE  (1u << 16) /* bytes one line may grow to */

struct cfg_param {
	char *name;
	char *value; /* lines joined with '\n' */
};

static char cfg_config_id[256];

void vipd_cfg_set_config_id(const char *id)
{
	struct utsname u;
	char *dot;

	if (id) {
		snprintf(cfg_config_id, sizeof(cfg_config_id), "%s", id);
		return;
	}
	if (uname(&u) < 0)
		u.nodename[0] = '\0';
	snprintf(cfg_config_id, sizeof(cfg_config_id), "%s", u.nodename);
	dot = strchr(cfg_config_id, '.');
	if (dot)
		*dot = '\0';
}

const char *vipd_cfg_config_id(void)
{
	if (!cfg_config_id[0])
		vipd_cfg_set_config_id(NULL);
	return cfg_config_id;
}

static bool name_start(int c)
{
	return isalpha(c) || c == '_';
}

static bool name_char(int c)
{
	return isalnum(c) || c == '_';
}

static struct cfg_param *param_find(struct cfg_ctx *ctx, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < ctx->nparams; i++)
		if (strlen(ctx->params[i].name) == len &&
			memcmp(ctx->params[i].name, name, len) == 0)
			return &ctx->params[i];
	return NULL;
}

static int param_set(struct cfg_ctx *ctx, const char *name, size_t len, char *value)
{
	struct cfg_param *p = param_find(ctx, name, len);

	if (!p) {
		p = vipd_cfg_push(ctx, &ctx->params, &ctx->nparams, sizeof(*ctx->params));
		if (!p) {
			free(value);
			return -1;
		}
		p->name = strndup(name, len);
		if (!p->name) {
			free(value);
			ctx->nparams--;
			vipd_cfg_oom(ctx);
			return -1;
		}
	} else {
		free(p->value);
	}
	p->value = value;
	return 0;
}

void vipd_cfg_params_free(struct cfg_ctx *ctx)
{
	size_t i;

	for (i = 0; i < ctx->nparams; i++) {
		free(ctx->params[i].name);
		free(ctx->params[i].value);
	}
	free(ctx->params);
	ctx->params = NULL;
	ctx->nparams = 0;
}

/* The text being rebuilt and where each of its lines came from. */
struct subst {
	struct cfg_ctx *ctx;
	struct cpha_conf_src *s;
	struct cpha_buf out;
	unsigned *map;
	size_t nmap;
	const char *text; /* the file's */
	size_t len, pos;
	unsigned line; /* of the file, of the line being read */
	bool failed;
};

static void emit(struct subst *st, const char *p, size_t n, unsigned line)
{
	unsigned *m;

	if (st->failed)
		return;
	if (st->out.len + n + 1 > SUBST_MAX_OUT) {
		vipd_cfg_err(st->ctx, CFG_LOC(st->s->file, line),
			"parameter substitution makes this file larger than %u bytes",
			SUBST_MAX_OUT);
		st->failed = true;
		return;
	}
	m = vipd_cfg_push(st->ctx, &st->map, &st->nmap, sizeof(*st->map));
	if (!m || cpha_buf_append(&st->out, p, n) < 0 || cpha_buf_puts(&st->out, "\n") < 0) {
		vipd_cfg_oom(st->ctx);
		st->failed = true;
		return;
	}
	*m = line;
}

/* Next physical line of the file: its start and length (no '\n'). */
static bool next_line(struct subst *st, const char **p, size_t *n)
{
	const char *nl;

	if (st->pos >= st->len)
		return false;
	*p = st->text + st->pos;
	nl = memchr(*p, '\n', st->len - st->pos);
	*n = nl ? (size_t)(nl - *p) : st->len - st->pos;
	st->pos += *n + (nl ? 1 : 0);
	st->line++;
	return true;
}

static size_t rtrim(const char *p, size_t n)
{
	while (n && isspace((unsigned char)p[n - 1]))
		n--;
	return n;
}

/* Replace the parameters of one line, once. Returns the new text (NULL:
 * nothing to replace, or out of memory with st->failed). */
static char *replace_once(struct subst *st, const char *p, size_t n, unsigned line)
{
	struct cpha_buf b = { 0 };
	bool any = false;
	size_t i = 0, start, end;
	struct cfg_param *par;
	int bad = 0;
	char *r;

	while (i < n && b.len <= SUBST_MAX_LINE) {
		if (p[i] != '$') {
			bad |= cpha_buf_append(&b, p + i, 1);
			i++;
			continue;
		}
		if (i + 1 < n && p[i + 1] == '{' && i + 2 < n &&
			name_start((unsigned char)p[i + 2])) {
			start = i + 2;
			end = start;
			while (end < n && name_char((unsigned char)p[end]))
				end++;
			par = end < n && p[end] == '}' ? param_find(st->ctx, p + start, end - start)
						       : NULL;
			if (par) {
				bad |= cpha_buf_puts(&b, par->value);
				i = end + 1;
				any = true;
				continue;
			}
		} else if (i + 1 < n && name_start((unsigned char)p[i + 1])) {
			start = i + 1;
			end = start;
			while (end < n && name_char((unsigned char)p[end]))
				end++;
			par = end == n || isspace((unsigned char)p[end])
				      ? param_find(st->ctx, p + start, end - start)
				      : NULL;
			if (par) {
				bad |= cpha_buf_puts(&b, par->value);
				i = end;
				any = true;
				continue;
			}
		}
		bad |= cpha_buf_append(&b, p + i, 1);
		i++;
	}
	if (b.len > SUBST_MAX_LINE) {
		vipd_cfg_err(st->ctx, CFG_LOC(st->s->file, line),
			"parameter substitution makes a line longer than %u bytes", SUBST_MAX_LINE);
		cpha_buf_free(&b);
		st->failed = true;
		return NULL;
	}
	if (!any || bad) {
		if (bad) {
			vipd_cfg_oom(st->ctx);
			st->failed = true;
		}
		cpha_buf_free(&b);
		return NULL;
	}
	r = cpha_buf_steal(&b);
	cpha_buf_free(&b);
	if (!r) {
		vipd_cfg_oom(st->ctx);
		st->failed = true;
	}
	return r;
}

static void do_line(struct subst *st, const char *p, size_t n, unsigned line, int depth);

/* A definition at p (after blanks, and after a condition): the name runs
 * to '='. Returns false when it is not one. */
static bool define(struct subst *st, const char *p, size_t n)
{
	struct cpha_buf v = { 0 };
	size_t i = 1, nlen, vlen;
	const char *name = p + 1, *val, *q;
	size_t qn;
	char *value;
	int bad = 0;

	if (n < 3 || p[0] != '$' || !name_start((unsigned char)p[1]))
		return false;
	while (i < n && name_char((unsigned char)p[i]))
		i++;
	if (i >= n || p[i] != '=')
		return false;
	nlen = i - 1;
	val = p + i + 1;
	vlen = rtrim(val, n - i - 1);
	while (vlen && isspace((unsigned char)*val))
		val++, vlen--;
	if (vlen == 1 && val[0] == '\\') {
		/* multi-line: lines ending in '\', then one that does not */
		while (next_line(st, &q, &qn)) {
			qn = rtrim(q, qn);
			if (v.len)
				bad |= cpha_buf_puts(&v, "\n");
			if (qn && q[qn - 1] == '\\') {
				bad |= cpha_buf_append(&v, q, qn - 1);
				continue;
			}
			bad |= cpha_buf_append(&v, q, qn);
			break;
		}
	} else {
		bad |= cpha_buf_append(&v, val, vlen);
	}
	if (bad) {
		cpha_buf_free(&v);
		vipd_cfg_oom(st->ctx);
		st->failed = true;
		return true;
	}
	value = cpha_buf_steal(&v);
	cpha_buf_free(&v);
	if (!value) {
		vipd_cfg_oom(st->ctx);
		st->failed = true;
	} else if (param_set(st->ctx, name, nlen, value) < 0) {
		st->failed = true;
	}
	return true;
}

/* One line as written at `line`: condition, definition or substitution. */
static void do_line(struct subst *st, const char *p, size_t n, unsigned line, int depth)
{
	const char *id = vipd_cfg_config_id(), *w, *nl;
	size_t i = 0, wl;
	bool neg;
	char *r;

	if (st->failed)
		return;
	if (depth > SUBST_MAX_DEPTH) {
		vipd_cfg_err(st->ctx, CFG_LOC(st->s->file, line),
			"parameter substitution nests more than %d deep (a parameter that "
			"contains itself?)",
			SUBST_MAX_DEPTH);
		st->failed = true;
		return;
	}
	while (i < n && isspace((unsigned char)p[i]))
		i++;
	if (i < n && p[i] == '@') {
		neg = i + 1 < n && p[i + 1] == '^';
		w = p + i + 1 + neg;
		wl = 0;
		while (w + wl < p + n && !isspace((unsigned char)w[wl]))
			wl++;
		if ((strlen(id) == wl && memcmp(w, id, wl) == 0) == neg)
			return; /* not for this host */
		i = (size_t)(w + wl - p);
		while (i < n && isspace((unsigned char)p[i]))
			i++;
	}
	if (define(st, p + i, n - i))
		return;
	r = replace_once(st, p + i, n - i, line);
	if (!r) {
		emit(st, p + i, n - i, line);
		return;
	}
	/* the result is read again: more parameters, several lines, or a
	 * condition or definition a parameter held */
	for (w = r; !st->failed;) {
		nl = strchr(w, '\n');
		do_line(st, w, nl ? (size_t)(nl - w) : strlen(w), line, depth + 1);
		if (!nl)
			break;
		w = nl + 1;
	}
	free(r);
}

/* Does the text use any of this? A condition at a line's start, a
 * definition, or (once something is defined) a '$'. */
static bool uses_subst(struct cfg_ctx *ctx, const char *t, size_t len)
{
	size_t i = 0, j;

	if (ctx->nparams && memchr(t, '$', len))
		return true;
	while (i < len) {
		while (i < len && (t[i] == ' ' || t[i] == '\t'))
			i++;
		if (i < len && t[i] == '@')
			return true;
		if (i + 1 < len && t[i] == '$' && name_start((unsigned char)t[i + 1])) {
			for (j = i + 1; j < len && name_char((unsigned char)t[j]); j++)
				;
			if (j < len && t[j] == '=')
				return true;
		}
		while (i < len && t[i] != '\n')
			i++;
		i++;
	}
	return false;
}

int vipd_cfg_subst(void *ud, struct cpha_conf_src *s)
{
	struct cfg_ctx *ctx = ud;
	struct subst st = { .ctx = ctx, .s = s };
	const char *p, *slash;
	char *pwd;
	size_t n;

	if (!uses_subst(ctx, s->lx.text, s->lx.len))
		return 0;
	/* ${_PWD}: this file's directory; ${_INSTANCE}: the config id */
	slash = strrchr(s->lx.file, '/');
	pwd = slash ? strndup(s->lx.file, slash == s->lx.file ? 1 : (size_t)(slash - s->lx.file))
		    : strdup(".");
	if (!pwd || param_set(ctx, "_PWD", 4, pwd) < 0)
		return -1;
	pwd = strdup(vipd_cfg_config_id());
	if (!pwd || param_set(ctx, "_INSTANCE", 9, pwd) < 0)
		return -1;
	st.text = s->lx.text;
	st.len = s->lx.len;
	while (!st.failed && next_line(&st, &p, &n))
		do_line(&st, p, n, st.line, 0);
	if (st.failed) {
		cpha_buf_free(&st.out);
		free(st.map);
		return -1;
	}
	free(s->lx.text);
	s->lx.len = st.out.len;
	s->lx.text = cpha_buf_steal(&st.out);
	cpha_buf_free(&st.out);
	if (!s->lx.text) {
		free(st.map);
		s->lx.len = 0;
		vipd_cfg_oom(ctx);
		return -1;
	}
	s->lx.pos = 0;
	s->lx.line = 1;
	free(s->lmap);
	s->lmap = st.map;
	s->nlmap = st.nmap;
	return 0;
}
