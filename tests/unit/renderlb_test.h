/* Shared by test_cpha_renderlb.c and test_cpha_dualstack.c: clusters
 * loaded from tests/fixtures/cpha (and variants of them written here), and
 * looking into the files rendered for them. */
#ifndef CPHA_RENDERLB_TEST_H
#define CPHA_RENDERLB_TEST_H

#include "cluster.h"
#include "render_set.h"

/* tests/fixtures/cpha/NAME in the source tree (not from __FILE__, which a
 * package build's -ffile-prefix-map makes relative to another directory) */
static __attribute__((unused)) char *fixture(const char *name)
{
	char *p = NULL;

	assert_true(asprintf(&p, "%s/tests/fixtures/cpha/%s", CPHA_SOURCE_DIR, name) > 0);
	return p;
}

static __attribute__((unused)) struct cp_cluster *load(const char *path)
{
	struct cpha_msgs d = { 0 };
	struct cp_cluster *c = NULL;

	if (cluster_load(path, &c, &d) < 0)
		for (size_t i = 0; i < d.nerrs; i++)
			fprintf(stderr, "%s\n", d.errs[i].text);
	cpha_msgs_free(&d);
	assert_non_null(c);
	return c;
}

static __attribute__((unused)) struct cp_cluster *load_fixture(const char *name)
{
	char *p = fixture(name);
	struct cp_cluster *c = load(p);

	free(p);
	return c;
}

/* A variant: the text of a fixture with more text appended (or NULL) and
 * substrings replaced (pairs FROM, TO, ... then NULL), in a temporary file. */
static __attribute__((unused)) struct cp_cluster *load_variant(const char *name, const char *append, ...)
{
	char *p = fixture(name), tmp[] = "/tmp/test_cpha_variant.XXXXXX";
	FILE *f = fopen(p, "r");
	char text[16384], out[16384], *at;
	const char *from, *to;
	struct cp_cluster *c;
	va_list ap;
	size_t n;
	int fd;

	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	free(p);
	text[n] = 0;
	va_start(ap, append);
	while ((from = va_arg(ap, const char *))) {
		to = va_arg(ap, const char *);
		at = strstr(text, from);
		if (!at)
			fail_msg("no \"%s\" in %s", from, name);
		snprintf(out, sizeof(out), "%.*s%s%s", (int)(at - text), text, to,
			at + strlen(from));
		memcpy(text, out, sizeof(text));
	}
	va_end(ap);
	fd = mkstemp(tmp);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	if (append)
		fputs(append, f);
	fclose(f);
	c = load(tmp);
	unlink(tmp);
	return c;
}

static __attribute__((unused)) const char *text_of(struct render_set *s, const char *host, const char *path)
{
	struct render_file *f = render_find(s, host, path);

	if (!f)
		fail_msg("no %s for %s", path, host ? host : "the cluster");
	assert_non_null(f->text.data);
	return f->text.data;
}

static __attribute__((unused)) void has(const char *text, const char *needle)
{
	if (!strstr(text, needle))
		fail_msg("missing \"%s\" in:\n%s", needle, text);
}

static __attribute__((unused)) void lacks(const char *text, const char *needle)
{
	if (strstr(text, needle))
		fail_msg("unexpected \"%s\" in:\n%s", needle, text);
}

static __attribute__((unused)) size_t count(const char *text, const char *needle)
{
	size_t n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* The text after the first line (the header names the host). */
static __attribute__((unused)) const char *body(const char *text)
{
	const char *nl = strchr(text, '\n');
	assert_non_null(nl);
	return nl + 1;
}

#endif
