/* Shared by test_cpha_render.c and test_cpha_render_flags.c: the variants
 * (a fixture each), paths in the source tree, a cluster loaded and the
 * masters' files rendered, and the flags of one role built. */
#ifndef CPHA_RENDER_TEST_H
#define CPHA_RENDER_TEST_H

#include "flags.h"
#include "render.h"

#ifndef CPHA_SOURCE_DIR
#define CPHA_SOURCE_DIR ""
#endif

struct variant {
	const char *name;    /* tests/golden/cpha/<name>/ */
	const char *fixture; /* relative to the source tree */
};

static const struct variant variants[] = {
	{ "sample", "tests/samples/cluster.yaml" }, /* pacemaker, LB hosts */
	{ "systemd", "tests/fixtures/cpha/systemd.yaml" },
	{ "static-pods", "tests/fixtures/cpha/static-pods.yaml" },
};
#define NVARIANTS (sizeof(variants) / sizeof(variants[0]))

static __attribute__((unused)) const char *src_dir(void)
{
	const char *e = getenv("CPHA_SOURCE_DIR");

	return e && *e ? e : CPHA_SOURCE_DIR;
}

/* Whether the source tree is known; prog says so on stderr when not. */
static __attribute__((unused)) bool src_dir_known(const char *prog)
{
	if (*src_dir())
		return true;
	fprintf(stderr, "%s: set CPHA_SOURCE_DIR to the source tree\n", prog);
	return false;
}

static __attribute__((unused)) char *src_path(const char *rel)
{
	char *p;

	assert_true(asprintf(&p, "%s/%s", src_dir(), rel) > 0);
	return p;
}

static __attribute__((unused)) struct cp_cluster *load(const char *rel)
{
	struct cpha_msgs d = { 0 };
	struct cp_cluster *c = NULL;
	char *path = src_path(rel);

	if (cluster_load(path, &c, &d) < 0)
		for (size_t i = 0; i < d.nerrs; i++)
			print_error("%s\n", d.errs[i].text);
	assert_non_null(c);
	cpha_msgs_free(&d);
	free(path);
	return c;
}

static __attribute__((unused)) void render(const struct cp_cluster *c, struct render_set *s)
{
	struct cpha_msgs d = { 0 };
	int rc = render_masters(c, s, &d);

	for (size_t i = 0; i < d.nerrs; i++)
		print_error("%s\n", d.errs[i].text);
	assert_int_equal(rc, 0);
	assert_int_equal(d.nerrs, 0);
	cpha_msgs_free(&d);
}

static __attribute__((unused)) const char *text_of(
	struct render_set *s, const char *host, const char *path)
{
	struct render_file *f = render_find(s, host, path);

	if (!f)
		print_error("no file %s:%s\n", host ? host : "cluster", path);
	assert_non_null(f);
	assert_non_null(f->text.data);
	return f->text.data;
}

/* ---- helpers on flags ---- */

static __attribute__((unused)) struct cp_flags build(
	const struct cp_cluster *c, const char *host, enum flags_role r)
{
	struct cpha_msgs d = { 0 };
	struct cp_flags f;
	const struct cp_host *h = cluster_host(c, host);

	assert_non_null(h);
	assert_int_equal(flags_build(c, h, r, &f, &d), 0);
	assert_int_equal(d.nerrs, 0);
	assert_true(f.n > 0);
	return f;
}

static __attribute__((unused)) const char *value(const struct cp_flags *f, const char *name)
{
	const struct cp_flag *x = flags_find(f, name);

	if (!x)
		print_error("no flag --%s\n", name);
	assert_non_null(x);
	return x->value;
}

/* words == [first, "--" flags...] */

#endif
