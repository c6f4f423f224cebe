/* lib/conf_tree.h: the readers of a statement's values and the walk of a
 * block with a keyword table, shared by vipd and fenced. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "conf_tree.h"
#include "duration.h"

/* A statement of up to 4 words at line, no block. */
struct stmt {
	char *w[4];
	struct cpha_conf_node n;
};

static const struct cpha_conf_node *stmt(
	struct stmt *s, unsigned line, const char *w0, const char *w1, const char *w2)
{
	memset(s, 0, sizeof(*s));
	s->w[0] = (char *)w0;
	s->w[1] = (char *)w1;
	s->w[2] = (char *)w2;
	s->n.w = s->w;
	s->n.n = w2 ? 3 : w1 ? 2 : 1;
	s->n.loc = CPHA_CFGDIAG_LOC(0, line);
	return &s->n;
}

static struct cpha_cfgdiag diag(void)
{
	struct cpha_cfgdiag d = { .max_errors = 100 };

	assert_int_equal(cpha_cfgdiag_file(&d, "t.conf"), 0);
	return d;
}

/* The last error's text, or "" when there is none. */
static const char *last(const struct cpha_cfgdiag *d)
{
	return d->nerrs ? d->errv[d->nerrs - 1].text : "";
}

static void test_nargs(void **state)
{
	struct cpha_cfgdiag d = diag();
	struct stmt s;

	(void)state;
	assert_int_equal(cpha_conf_nargs(&d, stmt(&s, 2, "priority", "100", NULL), 1, 1, "vi"), 0);
	assert_int_equal(cpha_conf_nargs(&d, stmt(&s, 3, "priority", NULL, NULL), 1, 1, "vi"), -1);
	assert_string_equal(last(&d), "t.conf:3: 'priority' needs a value (vi)");
	assert_int_equal(cpha_conf_nargs(&d, stmt(&s, 4, "k", "a", NULL), 2, 3, "vi"), -1);
	assert_string_equal(last(&d), "t.conf:4: 'k' needs more values (vi)");
	assert_int_equal(cpha_conf_nargs(&d, stmt(&s, 5, "k", "a", "b"), 0, 1, "vi"), -1);
	assert_string_equal(last(&d), "t.conf:5: 'k': unexpected 'b' (vi)");
	cpha_cfgdiag_free(&d);
}

static void test_numbers(void **state)
{
	struct cpha_cfgdiag d = diag();
	unsigned long long u = 0;
	struct stmt s;
	long v = 0;

	(void)state;
	assert_int_equal(cpha_conf_uint(&d, stmt(&s, 1, "k", "255", NULL), 1, 1, 255, &u, "b"), 0);
	assert_int_equal(u, 255);
	assert_int_equal(cpha_conf_uint(&d, stmt(&s, 2, "k", "256", NULL), 1, 1, 255, &u, "b"), -1);
	assert_string_equal(last(&d), "t.conf:2: 'k' must be a whole number from 1 to 255, not "
				      "'256' (b)");
	assert_int_equal(cpha_conf_uint(&d, stmt(&s, 3, "k", "-1", NULL), 1, 0, 9, &u, "b"), -1);
	assert_int_equal(cpha_conf_uint(&d, stmt(&s, 3, "k", "", NULL), 1, 0, 9, &u, "b"), -1);
	assert_int_equal(
		cpha_conf_int(&d, stmt(&s, 4, "k", "-253", NULL), 1, -253, 253, &v, "b"), 0);
	assert_int_equal(v, -253);
	assert_int_equal(cpha_conf_int(&d, stmt(&s, 4, "k", "+7", NULL), 1, -253, 253, &v, "b"), 0);
	assert_int_equal(v, 7);
	assert_int_equal(
		cpha_conf_int(&d, stmt(&s, 5, "k", "-254", NULL), 1, -253, 253, &v, "b"), -1);
	assert_string_equal(last(&d), "t.conf:5: 'k' must be a whole number from -253 to 253, "
				      "not '-254' (b)");
	cpha_cfgdiag_free(&d);
}

/* keepalived's check_true_false: on/true/yes, off/false/no; no value: on. */
static void test_bool(void **state)
{
	static const char *const yes[] = { "on", "true", "yes" }, *const no[] = { "off", "false",
		"no" };
	struct cpha_cfgdiag d = diag();
	struct stmt s;
	bool b = false;
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		assert_int_equal(cpha_conf_bool(&d, stmt(&s, 1, "k", yes[i], NULL), &b, "b"), 0);
		assert_true(b);
		assert_int_equal(cpha_conf_bool(&d, stmt(&s, 1, "k", no[i], NULL), &b, "b"), 0);
		assert_false(b);
	}
	assert_int_equal(cpha_conf_bool(&d, stmt(&s, 1, "k", NULL, NULL), &b, "b"), 0);
	assert_true(b);
	assert_int_equal(d.nerrs, 0);
	assert_int_equal(cpha_conf_bool(&d, stmt(&s, 2, "k", "1", NULL), &b, "b"), -1);
	assert_string_equal(
		last(&d), "t.conf:2: 'k' takes on, off, true, false, yes or no, not '1' (b)");
	assert_int_equal(cpha_conf_bool(&d, stmt(&s, 3, "k", "0", NULL), &b, "b"), -1);
	assert_int_equal(cpha_conf_bool(&d, stmt(&s, 4, "k", "on", "off"), &b, "b"), -1);
	assert_string_equal(last(&d), "t.conf:4: 'k': unexpected 'off' (b)");
	cpha_cfgdiag_free(&d);
}

static void test_seconds(void **state)
{
	struct cpha_cfgdiag d = diag();
	struct stmt s;
	uint64_t v = 0;

	(void)state;
	assert_int_equal(cpha_conf_seconds(&d, stmt(&s, 1, "advert_int", "0.5", NULL), 1, 10000,
				 255 * CPHA_USEC_PER_SEC, 0, &v, "vi"),
		0);
	assert_int_equal(v, 500000);
	assert_int_equal(cpha_conf_seconds(&d, stmt(&s, 2, "advert_int", "500ms", NULL), 1, 10000,
				 255 * CPHA_USEC_PER_SEC, 0, &v, "vi"),
		-1);
	assert_string_equal(last(&d), "t.conf:2: 'advert_int' must be a number of seconds from "
				      "0.01 to 255, not '500ms' (vi)");
	assert_int_equal(cpha_conf_seconds(&d, stmt(&s, 3, "delay", "500ms", NULL), 1, 0,
				 3600 * CPHA_USEC_PER_SEC, CPHA_CONF_UNITS, &v, "g"),
		0);
	assert_int_equal(v, 500000);
	assert_int_equal(cpha_conf_seconds(&d, stmt(&s, 3, "delay", "1.25", NULL), 1, 0,
				 3600 * CPHA_USEC_PER_SEC, CPHA_CONF_UNITS, &v, "g"),
		0);
	assert_int_equal(v, 1250000);
	assert_int_equal(cpha_conf_seconds(&d, stmt(&s, 4, "delay", "2h", NULL), 1, 0,
				 3600 * CPHA_USEC_PER_SEC, CPHA_CONF_UNITS, &v, "g"),
		-1);
	assert_string_equal(last(&d), "t.conf:4: 'delay' must be a duration from 0 to 1h "
				      "(seconds, or with a unit: 500ms, 6s, 2m), not '2h' (g)");
	cpha_cfgdiag_free(&d);
}

static void test_string(void **state)
{
	struct cpha_cfgdiag d = diag();
	struct stmt s;
	char *v = NULL;

	(void)state;
	assert_int_equal(cpha_conf_string(&d, stmt(&s, 1, "router_id", "lb1", NULL), &v, "g"), 0);
	assert_string_equal(v, "lb1");
	assert_int_equal(cpha_conf_string(&d, stmt(&s, 2, "router_id", "lb2", NULL), &v, "g"), 0);
	assert_string_equal(v, "lb2");
	assert_int_equal(cpha_conf_string(&d, stmt(&s, 3, "router_id", NULL, NULL), &v, "g"), -1);
	assert_string_equal(v, "lb2");
	assert_string_equal(last(&d), "t.conf:3: 'router_id' needs a value (g)");
	free(v);
	cpha_cfgdiag_free(&d);
}

/* ---- the walk ---- */

struct row {
	struct cpha_cfgkw kw;
	int id;
	unsigned flags;
};

#define HERE 1u

static const struct row rows[] = {
	{ { "one", HERE }, 1, 0 },
	{ { "many", HERE }, 2, CPHA_CONF_KW_MULTI },
	{ { "blk", HERE }, 3, CPHA_CONF_KW_BLOCK },
};

struct seen {
	int ids[16];
	size_t n;
	const char *unknown_where;
	size_t nunknown;
};

static void walk_fn(void *ctx, const void *row, const struct cpha_conf_node *n, void *obj)
{
	struct seen *s = ctx;

	(void)n;
	assert_ptr_equal(obj, &rows);
	s->ids[s->n++] = ((const struct row *)row)->id;
}

static void walk_unknown(void *ctx, const struct cpha_conf_node *n, const char *where)
{
	struct seen *s = ctx;

	(void)n;
	s->unknown_where = where;
	s->nunknown++;
}

/* A block of kids: word lists, and whether each has a block. */
static void block_of(
	struct cpha_conf_node *b, struct cpha_conf_node *kids, char ***w, const bool *blk, size_t n)
{
	size_t i;

	memset(b, 0, sizeof(*b));
	for (i = 0; i < n; i++) {
		memset(&kids[i], 0, sizeof(kids[i]));
		kids[i].w = w[i];
		kids[i].n = w[i] ? 1 : 0;
		kids[i].loc = CPHA_CFGDIAG_LOC(0, (unsigned)i + 1);
		kids[i].block = blk[i];
	}
	b->kids = kids;
	b->nkids = n;
}

static void test_walk(void **state)
{
	static char *one[] = { "one" }, *many[] = { "many" }, *blk[] = { "blk" },
		    *nope[] = { "nope" };
	char **w[] = { one, many, many, blk, NULL, one, blk, one, nope };
	const bool b[] = { false, false, false, true, true, true, false, false, false };
	struct cpha_conf_node kids[9], n;
	struct cpha_cfgdiag d = diag();
	struct seen s = { .n = 0 };
	struct cpha_conf_walk wk = { rows, 3, sizeof(rows[0]), offsetof(struct row, flags),
		"test_block", NULL, walk_fn, walk_unknown, &s, (void *)&rows };

	(void)state;
	block_of(&n, kids, w, b, 9);
	cpha_conf_walk(&d, &n, &wk);
	/* read: one, many, many, blk; the '{' without keyword (line 5) is passed
	 * over; then 'one' with a block, 'blk' without, 'one' again: errors */
	assert_int_equal(s.n, 4);
	assert_int_equal(s.ids[0], 1);
	assert_int_equal(s.ids[1], 2);
	assert_int_equal(s.ids[2], 2);
	assert_int_equal(s.ids[3], 3);
	assert_int_equal(s.nunknown, 1);
	assert_string_equal(s.unknown_where, "test_block");
	assert_int_equal(d.nerrs, 3);
	assert_string_equal(d.errv[0].text, "t.conf:6: 'one' takes no block (test_block)");
	assert_string_equal(
		d.errv[1].text, "t.conf:7: 'blk' needs a block: blk { ... } (test_block)");
	assert_string_equal(
		d.errv[2].text, "t.conf:8: 'one' is given twice (test_block; first at line 1)");
	cpha_cfgdiag_free(&d);
}

/* What was given is kept across blocks when the caller keeps it; at the
 * top level where is NULL for unknown() and "top level" in messages. */
static void test_walk_seen(void **state)
{
	static char *one[] = { "one" }, *nope[] = { "nope" };
	char **w1[] = { one }, **w2[] = { nope, one };
	const bool b[] = { false, false };
	struct cpha_conf_node kids[2], n;
	struct cpha_cfgdiag d = diag();
	struct seen s = { .n = 0 };
	unsigned seen[CPHA_CONF_MAX_KWS] = { 0 };
	struct cpha_conf_walk wk = { rows, 3, sizeof(rows[0]), offsetof(struct row, flags), NULL,
		seen, walk_fn, walk_unknown, &s, (void *)&rows };

	(void)state;
	block_of(&n, kids, w1, b, 1);
	cpha_conf_walk(&d, &n, &wk);
	block_of(&n, kids, w2, b, 2);
	kids[1].loc = CPHA_CFGDIAG_LOC(0, 9);
	cpha_conf_walk(&d, &n, &wk);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.nunknown, 1);
	assert_null(s.unknown_where);
	assert_int_equal(d.nerrs, 1);
	assert_string_equal(
		d.errv[0].text, "t.conf:9: 'one' is given twice (top level; first at line 1)");
	cpha_cfgdiag_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nargs),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_bool),
		cmocka_unit_test(test_seconds),
		cmocka_unit_test(test_string),
		cmocka_unit_test(test_walk),
		cmocka_unit_test(test_walk_seen),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
