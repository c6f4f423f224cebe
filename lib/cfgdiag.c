#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cfgdiag.h"
#include "cfgmsg.h"

static int cpha__msgs_vadd(struct cpha_msgs *m, bool warn, const char *file, struct cpha_pos pos,
	const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

static int cpha__msgs_vadd(struct cpha_msgs *m, bool warn, const char *file, struct cpha_pos pos,
	const char *fmt, va_list ap)
{
	const char *kind = warn ? "warning: " : "";
	struct cpha_buf b = { 0 };
	struct cpha_msg *p;
	char *s = NULL;
	int r;

	if (pos.line && pos.col)
		r = cpha_buf_printf(&b, "%s:%u:%u: %s", file, pos.line, pos.col, kind);
	else if (pos.line)
		r = cpha_buf_printf(&b, "%s:%u: %s", file, pos.line, kind);
	else
		r = cpha_buf_printf(&b, "%s: %s", file, kind);
	if (r == 0)
		r = cpha_buf_vprintf(&b, fmt, ap);
	if (r == 0)
		s = cpha_buf_steal(&b);
	cpha_buf_free(&b);
	p = !s     ? NULL
	    : warn ? cpha_array_push(&m->warns, &m->nwarns, sizeof(*p))
		   : cpha_array_push(&m->errs, &m->nerrs, sizeof(*p));
	if (!p) {
		free(s);
		return -ENOMEM;
	}
	p->pos = pos;
	p->text = s;
	return 0;
}

int cpha_msgs_add(
	struct cpha_msgs *m, bool warn, const char *file, struct cpha_pos pos, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = cpha__msgs_vadd(m, warn, file, pos, fmt, ap);
	va_end(ap);
	return r;
}

void cpha_msgs_put(
	struct cpha_msgs *m, bool warn, const char *file, struct cpha_pos pos, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (cpha__msgs_vadd(m, warn, file, pos, fmt, ap) < 0)
		cpha_oom();
	va_end(ap);
}

int cpha_msgs_cannot_read(struct cpha_msgs *m, const char *file, const char *why)
{
	cpha_msgs_add(m, false, file, (struct cpha_pos){ 0, 0 }, "cannot read: %s", why);
	return -1;
}

void cpha_msgs_print(const struct cpha_msg *v, size_t n, FILE *f)
{
	size_t i;

	for (i = 0; i < n; i++)
		fprintf(f, "%s\n", v[i].text);
}

void cpha_msgs_free(struct cpha_msgs *m)
{
	size_t i;

	for (i = 0; i < m->nerrs; i++)
		free(m->errs[i].text);
	for (i = 0; i < m->nwarns; i++)
		free(m->warns[i].text);
	free(m->errs);
	free(m->warns);
	m->errs = m->warns = NULL;
	m->nerrs = m->nwarns = 0;
}

static void cpha__cfgdiag_vadd(struct cpha_cfgdiag *d, struct cpha_cfgdiag_msg **arr, size_t *n,
	unsigned loc, const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

static void cpha__cfgdiag_vadd(struct cpha_cfgdiag *d, struct cpha_cfgdiag_msg **arr, size_t *n,
	unsigned loc, const char *fmt, va_list ap)
{
	unsigned f = CPHA_CFGDIAG_LOC_FILE(loc);
	const char *file = f < d->nfiles ? d->files[f] : "?";
	char *s = cpha_cfgmsg_vformat(file, CPHA_CFGDIAG_LOC_LINE(loc), fmt, ap);
	struct cpha_cfgdiag_msg *p = s ? cpha_array_push(arr, n, sizeof(*p)) : NULL;

	if (!p) {
		free(s);
		d->stop = true; /* out of memory: nothing sensible can follow */
		return;
	}
	p->loc = loc;
	p->text = s;
}

int cpha_cfgdiag_file(struct cpha_cfgdiag *d, const char *name)
{
	char **p = realloc(d->files, (d->nfiles + 1) * sizeof(*p));

	if (p)
		d->files = p;
	if (!p || !(p[d->nfiles] = strdup(name))) {
		cpha_cfgdiag_oom(d);
		return -ENOMEM;
	}
	return (int)d->nfiles++;
}

void cpha_cfgdiag_verr(struct cpha_cfgdiag *d, unsigned loc, const char *fmt, va_list ap)
{
	if (d->stop)
		return;
	if (d->max_errors && d->nerrs == d->max_errors) {
		fmt = "too many errors; stopped here"; /* takes none of ap */
		d->stop = true;
	}
	cpha__cfgdiag_vadd(d, &d->errv, &d->nerrs, loc, fmt, ap);
}

void cpha_cfgdiag_err(struct cpha_cfgdiag *d, unsigned loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cpha_cfgdiag_verr(d, loc, fmt, ap);
	va_end(ap);
}

void cpha_cfgdiag_vnotice(struct cpha_cfgdiag *d, unsigned loc, const char *fmt, va_list ap)
{
	if (!d->stop)
		cpha__cfgdiag_vadd(d, &d->notv, &d->nnotices, loc, fmt, ap);
}

void cpha_cfgdiag_notice(struct cpha_cfgdiag *d, unsigned loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cpha_cfgdiag_vnotice(d, loc, fmt, ap);
	va_end(ap);
}

void cpha_cfgdiag_oom(struct cpha_cfgdiag *d)
{
	cpha_cfgdiag_err(d, 0, "out of memory");
	d->stop = true;
}

char *cpha_cfgdiag_strdup(struct cpha_cfgdiag *d, const char *s)
{
	char *r = strdup(s);

	if (!r)
		cpha_cfgdiag_oom(d);
	return r;
}

void *cpha_cfgdiag_push(struct cpha_cfgdiag *d, void *arrayp, size_t *n, size_t size)
{
	void *p = cpha_array_push(arrayp, n, size);

	if (!p)
		cpha_cfgdiag_oom(d);
	return p;
}

static void cpha__cfgdiag_sort(struct cpha_cfgdiag_msg *m, size_t n)
{
	struct cpha_cfgdiag_msg t;
	size_t i, j;

	for (i = 1; i < n; i++) {
		t = m[i];
		for (j = i; j > 0 && m[j - 1].loc > t.loc; j--)
			m[j] = m[j - 1];
		m[j] = t;
	}
}

int cpha_cfgdiag_take(struct cpha_cfgdiag_msg *m, size_t *n, char ***out, size_t *nout)
{
	size_t i;
	char **p;

	cpha__cfgdiag_sort(m, *n);
	if (!*n)
		return 0;
	p = realloc(*out, (*nout + *n) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	for (i = 0; i < *n; i++)
		p[(*nout)++] = m[i].text;
	*out = p;
	*n = 0;
	return 0;
}

int cpha_cfgdiag_take_errs(struct cpha_cfgdiag *d, struct cpha_msgs *out)
{
	struct cpha_msg *p;
	size_t i;

	cpha__cfgdiag_sort(d->errv, d->nerrs);
	if (!d->nerrs)
		return 0;
	p = realloc(out->errs, (out->nerrs + d->nerrs) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	for (i = 0; i < d->nerrs; i++) {
		p[out->nerrs].pos = (struct cpha_pos){ CPHA_CFGDIAG_LOC_LINE(d->errv[i].loc), 0 };
		p[out->nerrs++].text = d->errv[i].text;
	}
	out->errs = p;
	d->nerrs = 0;
	return 0;
}

const char *cpha_cfgdiag_at(
	const struct cpha_cfgdiag *d, unsigned loc, unsigned from, char *buf, size_t len)
{
	unsigned f = CPHA_CFGDIAG_LOC_FILE(loc);

	if (f == CPHA_CFGDIAG_LOC_FILE(from) || f >= d->nfiles)
		snprintf(buf, len, "line %u", CPHA_CFGDIAG_LOC_LINE(loc));
	else
		snprintf(buf, len, "%s:%u", d->files[f], CPHA_CFGDIAG_LOC_LINE(loc));
	return buf;
}

void cpha_cfgdiag_free(struct cpha_cfgdiag *d)
{
	size_t i;

	for (i = 0; i < d->nerrs; i++)
		free(d->errv[i].text);
	free(d->errv);
	for (i = 0; i < d->nnotices; i++)
		free(d->notv[i].text);
	free(d->notv);
	for (i = 0; i < d->nfiles; i++)
		free(d->files[i]);
	free(d->files);
	d->errv = d->notv = NULL;
	d->files = NULL;
	d->nerrs = d->nnotices = d->nfiles = 0;
}

int cpha_cfgkw_find(
	const void *table, size_t n, size_t size, const char *name, unsigned caps, const void **row)
{
	const char *p = table;
	const struct cpha_cfgkw *kw;
	size_t i, len;

	for (i = 0; i < n; i++, p += size) {
		kw = (const struct cpha_cfgkw *)(const void *)p;
		len = strlen(kw->name);
		if (len > 0 && kw->name[len - 1] == '*' ? strncmp(kw->name, name, len - 1) == 0
							: strcmp(kw->name, name) == 0) {
			*row = kw;
			return kw->caps & caps ? 0 : -EPERM;
		}
	}
	*row = NULL;
	return -ENOENT;
}
