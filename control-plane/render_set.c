/* The set of files `cpha render` makes (render_set.h). */
#include <stdlib.h>
#include <string.h>

#include "cfgmsg.h"
#include "render_set.h"

struct cpha_buf *render_add(struct render_set *s, const char *host, const char *path, unsigned mode,
	enum render_check check)
{
	struct render_file *v = realloc(s->v, (s->n + 1) * sizeof(*v)), *f;

	if (!v)
		cpha_oom();
	s->v = v;
	f = &s->v[s->n++];
	memset(f, 0, sizeof(*f));
	f->host = host ? strdup(host) : NULL;
	f->path = strdup(path);
	if ((host && !f->host) || !f->path)
		cpha_oom();
	f->mode = mode;
	f->check = check;
	return &f->text;
}

void render_skip(struct render_set *s, const char *host, const char *path, const char *why)
{
	struct render_skip *v = realloc(s->skipped, (s->nskipped + 1) * sizeof(*v)), *k;

	if (!v)
		cpha_oom();
	s->skipped = v;
	k = &s->skipped[s->nskipped++];
	k->host = host ? strdup(host) : NULL;
	k->path = strdup(path);
	k->why = strdup(why);
	if ((host && !k->host) || !k->path || !k->why)
		cpha_oom();
}

struct render_file *render_find(struct render_set *s, const char *host, const char *path)
{
	for (size_t i = 0; i < s->n; i++) {
		struct render_file *f = &s->v[i];
		if (((!host && !f->host) || (host && f->host && !strcmp(host, f->host))) &&
			!strcmp(f->path, path))
			return f;
	}
	return NULL;
}

void render_set_free(struct render_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].host);
		free(s->v[i].path);
		cpha_buf_free(&s->v[i].text);
	}
	free(s->v);
	for (size_t i = 0; i < s->nskipped; i++) {
		free(s->skipped[i].host);
		free(s->skipped[i].path);
		free(s->skipped[i].why);
	}
	free(s->skipped);
	memset(s, 0, sizeof(*s));
}
