/* keepalived's configuration language read into a tree of statements
 * (vipd, fenced).
 * The lexer gives logical lines; here braces open and close blocks (also
 * "keyword" on one line and "{" on the next, and one-line blocks such as
 * "track_script { chk }", whose body is one entry, as in keepalived), and
 * 'include FILE' reads other files in place: a path or a glob pattern
 * (with braces), relative to the including file, nested at most
 * CPHA_CONF_MAX_INCLUDE deep. A pattern that matches nothing is a notice, like
 * keepalived's plain include; a named file that cannot be read is an error. */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf_tree.h"
#include "duration.h"

void cpha_conf_node_free(struct cpha_conf_node *n)
{
	size_t i;

	for (i = 0; i < n->n; i++)
		free(n->w[i]);
	free(n->w);
	for (i = 0; i < n->nkids; i++)
		cpha_conf_node_free(&n->kids[i]);
	free(n->kids);
}

static struct cpha_conf_node *cfg_list(struct cpha_conf_tree *ctx, struct cpha_conf_reader *rd)
{
	return rd->depth ? rd->open[rd->depth - 1] : &ctx->root;
}

/* End the statement being read; it becomes the last node of the list. */
static struct cpha_conf_node *cfg_stmt_end(
	struct cpha_conf_tree *ctx, struct cpha_conf_reader *rd, bool block, unsigned loc)
{
	struct cpha_conf_node *list = cfg_list(ctx, rd), *n;

	n = cpha_cfgdiag_push(ctx->d, &list->kids, &list->nkids, sizeof(*n));
	if (!n)
		return NULL;
	n->w = rd->w;
	n->n = rd->nw;
	n->loc = rd->nw ? rd->wloc : loc;
	n->block = block;
	rd->w = NULL;
	rd->nw = rd->capw = 0;
	return n;
}

static void cfg_open_block(
	struct cpha_conf_tree *ctx, struct cpha_conf_reader *rd, struct cpha_conf_node *n)
{
	if (rd->depth == CPHA_CONF_MAX_NESTING) {
		cpha_cfgdiag_err(ctx->d, n->loc, "blocks are nested deeper than %d levels",
			CPHA_CONF_MAX_NESTING);
		ctx->d->stop = true;
		return;
	}
	n->block = true;
	rd->open[rd->depth++] = n;
}

static void cfg_src_close(struct cpha_conf_src *s)
{
	if (s->open)
		cpha_lex_free(&s->lx);
	s->open = false;
	s->prepared = false;
	free(s->lmap);
	s->lmap = NULL;
	s->nlmap = 0;
}

void cpha_conf_src_free(struct cpha_conf_src *s)
{
	size_t i;

	cfg_src_close(s);
	for (i = 0; i < s->npaths; i++)
		free(s->paths[i]);
	free(s->paths);
	memset(s, 0, sizeof(*s));
}

/* Open the next file of a source. Returns 0, or -1 when none is left. */
static int cfg_src_next(struct cpha_conf_tree *ctx, struct cpha_conf_src *s)
{
	const char *path;
	int r;

	while (s->next < s->npaths) {
		path = s->paths[s->next++];
		if (ctx->d->nfiles >= CPHA_CONF_MAX_FILES) {
			cpha_cfgdiag_err(ctx->d, s->inc_loc,
				"include '%s': more than %d configuration files", path,
				CPHA_CONF_MAX_FILES);
			ctx->d->stop = true;
			return -1;
		}
		r = cpha_lex_open(&s->lx, path, CPHA_LEX_KEEPALIVED);
		if (r < 0) {
			cpha_cfgdiag_err(ctx->d, s->inc_loc, "include '%s': cannot read: %s", path,
				s->lx.err[0] ? s->lx.err : strerror(-r));
			cpha_lex_free(&s->lx);
			continue;
		}
		r = cpha_cfgdiag_file(ctx->d, path);
		if (r < 0) {
			cpha_lex_free(&s->lx);
			return -1;
		}
		s->file = (unsigned)r;
		s->open = true;
		return 0;
	}
	return -1;
}

/* Directory part of a path with its slash ("" for none, "/" for root). */
static char *cfg_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t len = slash ? (size_t)(slash - path) + 1 : 0;
	char *d = malloc(len + 1);

	if (d) {
		memcpy(d, path, len);
		d[len] = '\0';
	}
	return d;
}

/* include FILE: a path or a glob pattern, relative to the including file. */
static void cfg_include(struct cpha_conf_tree *ctx, struct cpha_conf_reader *rd,
	const struct cpha_lex_line *l, unsigned loc)
{
	struct cpha_conf_src *s, *cur = &rd->src[rd->nsrc - 1];
	const char *pat;
	char *dir, *full;
	glob_t g;
	size_t i;
	int r;

	if (!ctx->includes) {
		cpha_cfgdiag_err(
			ctx->d, loc, "'include' works only in a configuration read from a file");
		return;
	}
	if (l->n != 2 || l->tok[1].kind != CPHA_TOK_WORD) {
		cpha_cfgdiag_err(ctx->d, loc, "'include' takes one file name or pattern");
		return;
	}
	if (rd->nsrc > CPHA_CONF_MAX_INCLUDE) {
		cpha_cfgdiag_err(ctx->d, loc,
			"includes are nested deeper than %d levels (an include loop?)",
			CPHA_CONF_MAX_INCLUDE);
		return;
	}
	pat = l->tok[1].text;
	dir = cfg_dirname(ctx->d->files[cur->file]);
	full = NULL;
	if (dir && asprintf(&full, "%s%s", pat[0] == '/' ? "" : dir, pat) < 0)
		full = NULL;
	free(dir);
	if (!full) {
		cpha_cfgdiag_oom(ctx->d);
		return;
	}
	s = &rd->src[rd->nsrc];
	memset(s, 0, sizeof(*s));
	s->inc_loc = loc;
	if (!strpbrk(pat, "*?[{")) {
		s->paths = malloc(sizeof(*s->paths));
		if (!s->paths) {
			free(full);
			cpha_cfgdiag_oom(ctx->d);
			return;
		}
		s->paths[0] = full;
		s->npaths = 1;
	} else {
		r = glob(full, GLOB_BRACE, NULL, &g); /* unreadable directories match nothing */
		if (r == GLOB_NOMATCH) {
			cpha_cfgdiag_notice(ctx->d, loc, "include '%s' matches no file", full);
		} else if (r != 0) {
			cpha_cfgdiag_err(ctx->d, loc, "include '%s': %s", full,
				r == GLOB_NOSPACE ? "out of memory" : "cannot be expanded");
		} else {
			s->paths = calloc(g.gl_pathc, sizeof(*s->paths));
			for (i = 0; s->paths && i < g.gl_pathc; i++) {
				if (!(s->paths[i] = strdup(g.gl_pathv[i])))
					break;
				s->npaths++;
			}
			if (!s->paths || i < g.gl_pathc)
				cpha_cfgdiag_oom(ctx->d);
		}
		if (r != GLOB_NOMATCH)
			globfree(&g);
		free(full);
	}
	if (s->npaths)
		rd->nsrc++;
	else
		cpha_conf_src_free(s);
}

/* After a lexer error, go on with the next line. */
static void cfg_lex_skip_line(struct cpha_lex *lx)
{
	while (lx->pos < lx->len && lx->text[lx->pos] != '\n')
		lx->pos++;
	if (lx->pos < lx->len) {
		lx->pos++;
		lx->line++;
	}
}

/* Next logical line of whichever file is being read: 1, or 0 at the end. */
static int cfg_next_line(struct cpha_conf_tree *ctx, struct cpha_conf_reader *rd,
	struct cpha_lex_line *l, unsigned *loc)
{
	struct cpha_conf_src *s;
	int r;

	while (rd->nsrc > 0 && !ctx->d->stop) {
		s = &rd->src[rd->nsrc - 1];
		if (!s->open && cfg_src_next(ctx, s) < 0) {
			cpha_conf_src_free(s);
			rd->nsrc--;
			continue;
		}
		if (!s->prepared) {
			s->prepared = true;
			if (ctx->prepare && ctx->prepare(ctx->ud, s) < 0) {
				cfg_src_close(s);
				continue;
			}
		}
		r = cpha_lex_next(&s->lx, l);
		if (r == 1) {
			l->line = cpha_conf_src_line(s, l->line);
			*loc = CPHA_CFGDIAG_LOC(s->file, l->line);
			return 1;
		}
		if (r == 0) {
			cfg_src_close(s);
		} else if (r == -ENOMEM) {
			cpha_cfgdiag_oom(ctx->d);
		} else {
			cpha_cfgdiag_err(ctx->d,
				CPHA_CFGDIAG_LOC(s->file, cpha_conf_src_line(s, s->lx.err_line)),
				"%s", s->lx.err);
			cfg_lex_skip_line(&s->lx);
		}
	}
	return 0;
}

static int cfg_word(
	struct cpha_conf_tree *ctx, struct cpha_conf_reader *rd, const char *text, unsigned loc)
{
	char **nw;

	if (rd->nw == rd->capw) {
		nw = realloc(rd->w, (rd->capw ? rd->capw * 2 : 4) * sizeof(*nw));
		if (!nw)
			goto oom;
		rd->w = nw;
		rd->capw = rd->capw ? rd->capw * 2 : 4;
	}
	if (!rd->nw)
		rd->wloc = loc;
	if (!(rd->w[rd->nw] = strdup(text)))
		goto oom;
	rd->nw++;
	return 0;
oom:
	cpha_cfgdiag_oom(ctx->d);
	return -1;
}

/* One logical line: words, and braces that open and close blocks. */
static void cfg_tree_line(struct cpha_conf_tree *ctx, struct cpha_conf_reader *rd,
	const struct cpha_lex_line *l, unsigned loc)
{
	struct cpha_conf_node *list, *n;
	size_t i;

	for (i = 0; i < l->n && !ctx->d->stop; i++) {
		const struct cpha_token *t = &l->tok[i];

		if (t->kind == CPHA_TOK_WORD) {
			rd->attach = -1;
			cfg_word(ctx, rd, t->text, loc);
		} else if (t->kind == CPHA_TOK_LBRACE) {
			list = cfg_list(ctx, rd);
			if (rd->nw) {
				n = cfg_stmt_end(ctx, rd, true, loc);
			} else if (i == 0 && rd->attach >= 0 && (size_t)rd->attach < list->nkids) {
				n = &list->kids[rd->attach]; /* "keyword" NL "{" */
			} else {
				cpha_cfgdiag_err(ctx->d, loc, "'{' without a keyword before it");
				n = cfg_stmt_end(ctx, rd, true, loc);
			}
			rd->attach = -1;
			if (n)
				cfg_open_block(ctx, rd, n);
		} else {
			if (rd->nw)
				cfg_stmt_end(ctx, rd, false, loc);
			rd->attach = -1;
			if (rd->depth == 0)
				cpha_cfgdiag_err(ctx->d, loc, "'}' without a block to close");
			else
				rd->depth--;
		}
	}
	if (rd->nw && !ctx->d->stop) {
		list = cfg_list(ctx, rd);
		if (cfg_stmt_end(ctx, rd, false, loc))
			rd->attach = (long)list->nkids - 1;
	}
}

/* Read everything into ctx->root. The first source is set up by the caller. */
void cpha_conf_read(struct cpha_conf_tree *ctx, struct cpha_conf_reader *rd)
{
	struct cpha_lex_line l;
	unsigned loc;
	int d;

	rd->attach = -1;
	while (!ctx->d->stop && cfg_next_line(ctx, rd, &l, &loc) == 1) {
		if (l.tok[0].kind == CPHA_TOK_WORD && !l.tok[0].quoted &&
			strcmp(l.tok[0].text, "include") == 0) {
			rd->attach = -1;
			cfg_include(ctx, rd, &l, loc);
			continue;
		}
		cfg_tree_line(ctx, rd, &l, loc);
	}
	/* what follows an unclosed '{' is in its block: nothing more to say */
	for (d = 0; d < rd->depth && !ctx->d->stop; d++) {
		cpha_cfgdiag_err(ctx->d, rd->open[d]->loc,
			"'%s' block is not closed (a '}' is missing)",
			rd->open[d]->n ? rd->open[d]->w[0] : "{");
		ctx->d->stop = true;
	}
	while (rd->nsrc > 0)
		cpha_conf_src_free(&rd->src[--rd->nsrc]);
	for (d = 0; (size_t)d < rd->nw; d++)
		free(rd->w[d]);
	free(rd->w);
}

/* Start reading with a lexer that is open: the first file. */
int cpha_conf_read_start(struct cpha_conf_tree *ctx, struct cpha_conf_reader *rd, const char *name)
{
	memset(rd, 0, sizeof(*rd));
	if (cpha_cfgdiag_file(ctx->d, name) < 0)
		return -1;
	rd->nsrc = 1;
	rd->src[0].open = true;
	return 0;
}

unsigned cpha_conf_src_line(const struct cpha_conf_src *s, unsigned line)
{
	if (!s->lmap || !line)
		return line;
	return line <= s->nlmap ? s->lmap[line - 1] : s->lmap[s->nlmap ? s->nlmap - 1 : 0];
}

/* Close whatever is still open (after an early stop). */
void cpha_conf_read_end(struct cpha_conf_reader *rd)
{
	while (rd->nsrc > 0)
		cpha_conf_src_free(&rd->src[--rd->nsrc]);
}

/* ---- values ---- */

int cpha_conf_nargs(struct cpha_cfgdiag *d, const struct cpha_conf_node *n, size_t min, size_t max,
	const char *where)
{
	if (n->n - 1 < min) {
		cpha_cfgdiag_err(d, n->loc, "'%s' needs %s (%s)", n->w[0],
			min == 1 ? "a value" : "more values", where);
		return -1;
	}
	if (n->n - 1 > max) {
		cpha_cfgdiag_err(
			d, n->loc, "'%s': unexpected '%s' (%s)", n->w[0], n->w[max + 1], where);
		return -1;
	}
	return 0;
}

int cpha_conf_uint(struct cpha_cfgdiag *d, const struct cpha_conf_node *n, size_t i,
	unsigned long long min, unsigned long long max, unsigned long long *out, const char *where)
{
	const char *s = n->w[i], *p;
	unsigned long long v = 0;

	for (p = s; *p >= '0' && *p <= '9' && v <= max; p++)
		v = v * 10 + (unsigned long long)(*p - '0');
	if (p == s || *p || v < min || v > max) {
		cpha_cfgdiag_err(d, n->loc,
			"'%s' must be a whole number from %llu to %llu, not '%s' (%s)", n->w[0],
			min, max, s, where);
		return -1;
	}
	*out = v;
	return 0;
}

int cpha_conf_int(struct cpha_cfgdiag *d, const struct cpha_conf_node *n, size_t i, long min,
	long max, long *out, const char *where)
{
	const char *s = n->w[i], *p = s;
	unsigned long long v = 0, lim = (unsigned long long)(max > -min ? max : -min);
	int neg = 0;

	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	for (s = p; *p >= '0' && *p <= '9' && v <= lim; p++)
		v = v * 10 + (unsigned long long)(*p - '0');
	if (p == s || *p || v > lim || (neg ? -(long)v < min : (long)v > max)) {
		cpha_cfgdiag_err(d, n->loc,
			"'%s' must be a whole number from %ld to %ld, not '%s' (%s)", n->w[0], min,
			max, n->w[i], where);
		return -1;
	}
	*out = neg ? -(long)v : (long)v;
	return 0;
}

int cpha_conf_bool(
	struct cpha_cfgdiag *d, const struct cpha_conf_node *n, bool *out, const char *where)
{
	static const char *const yes[] = { "on", "true", "yes" };
	static const char *const no[] = { "off", "false", "no" };
	size_t i;

	if (cpha_conf_nargs(d, n, 0, 1, where) < 0)
		return -1;
	if (n->n == 1) {
		*out = true;
		return 0;
	}
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcmp(n->w[1], yes[i]) == 0 || strcmp(n->w[1], no[i]) == 0) {
			*out = strcmp(n->w[1], yes[i]) == 0;
			return 0;
		}
	}
	cpha_cfgdiag_err(d, n->loc, "'%s' takes on, off, true, false, yes or no, not '%s' (%s)",
		n->w[0], n->w[1], where);
	return -1;
}

const char *cpha_conf_fmt_seconds(uint64_t usec, char *buf, size_t len)
{
	uint64_t frac = usec % CPHA_USEC_PER_SEC;
	int digits = 6;

	if (!frac) {
		snprintf(buf, len, "%llu", (unsigned long long)(usec / CPHA_USEC_PER_SEC));
		return buf;
	}
	while (frac % 10 == 0) {
		frac /= 10;
		digits--;
	}
	snprintf(buf, len, "%llu.%0*llu", (unsigned long long)(usec / CPHA_USEC_PER_SEC), digits,
		(unsigned long long)frac);
	return buf;
}

int cpha_conf_seconds(struct cpha_cfgdiag *d, const struct cpha_conf_node *n, size_t i,
	uint64_t min, uint64_t max, unsigned flags, uint64_t *out, const char *where)
{
	char lo[32], hi[32];
	const char *why = NULL;
	uint64_t v;
	int r;

	r = cpha_parse_seconds(n->w[i], &v, &why);
	if (r < 0 && (flags & CPHA_CONF_UNITS))
		r = cpha_parse_duration(n->w[i], CPHA_USEC_PER_SEC, &v, &why);
	if (r == 0 && v >= min && v <= max) {
		*out = v;
		return 0;
	}
	if (flags & CPHA_CONF_UNITS)
		cpha_cfgdiag_err(d, n->loc,
			"'%s' must be a duration from %s to %s (seconds, or with a unit: 500ms, "
			"6s, 2m), not '%s' (%s)",
			n->w[0], cpha_format_duration(min, lo, sizeof(lo)),
			cpha_format_duration(max, hi, sizeof(hi)), n->w[i], where);
	else
		cpha_cfgdiag_err(d, n->loc,
			"'%s' must be a number of seconds from %s to %s, not '%s' (%s)", n->w[0],
			cpha_conf_fmt_seconds(min, lo, sizeof(lo)),
			cpha_conf_fmt_seconds(max, hi, sizeof(hi)), n->w[i], where);
	return -1;
}

int cpha_conf_string(
	struct cpha_cfgdiag *d, const struct cpha_conf_node *n, char **out, const char *where)
{
	if (cpha_conf_nargs(d, n, 1, 1, where) < 0)
		return -1;
	free(*out);
	*out = cpha_cfgdiag_strdup(d, n->w[1]);
	return *out ? 0 : -1;
}

/* ---- blocks ---- */

void cpha_conf_walk(
	struct cpha_cfgdiag *d, const struct cpha_conf_node *n, const struct cpha_conf_walk *w)
{
	unsigned own[CPHA_CONF_MAX_KWS], *seen = w->seen ? w->seen : own;
	const char *where = w->where ? w->where : "top level";
	size_t i, k, nrows = w->nrows < CPHA_CONF_MAX_KWS ? w->nrows : CPHA_CONF_MAX_KWS;
	const void *row;
	unsigned flags;
	char at[64];

	if (!w->seen)
		memset(own, 0, sizeof(own));
	for (i = 0; i < n->nkids && !d->stop; i++) {
		const struct cpha_conf_node *kid = &n->kids[i];

		if (!kid->n)
			continue; /* a '{' without keyword: reported already */
		if (cpha_cfgkw_find(w->table, nrows, w->size, kid->w[0], ~0u, &row) < 0) {
			w->unknown(w->ctx, kid, w->where);
			continue;
		}
		memcpy(&flags, (const char *)row + w->flags_at, sizeof(flags));
		k = (size_t)((const char *)row - (const char *)w->table) / w->size;
		if ((flags & CPHA_CONF_KW_BLOCK) && !kid->block) {
			cpha_cfgdiag_err(d, kid->loc, "'%s' needs a block: %s { ... } (%s)",
				kid->w[0], kid->w[0], where);
			continue;
		}
		if (!(flags & CPHA_CONF_KW_BLOCK) && kid->block) {
			cpha_cfgdiag_err(d, kid->loc, "'%s' takes no block (%s)", kid->w[0], where);
			continue;
		}
		if (seen[k] && !(flags & CPHA_CONF_KW_MULTI)) {
			cpha_cfgdiag_err(d, kid->loc, "'%s' is given twice (%s; first at %s)",
				kid->w[0], where,
				cpha_cfgdiag_at(d, seen[k], kid->loc, at, sizeof(at)));
			continue;
		}
		seen[k] = kid->loc;
		w->fn(w->ctx, row, kid, w->obj);
	}
}
