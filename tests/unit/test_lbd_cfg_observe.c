/* lbd's configuration parser: passive health (HAProxy 2.6's observe,
 * error-limit and on-error, with its messages) and lbd's own hedge. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cfg.h"
#include "duration.h"
#include "health.h"
#include "lbd_cfg_test.h"

#define FRONT "frontend f\n    bind 198.18.0.10:6443\n    default_backend b\n"

static void test_observe_parsed(void **state)
{
	const struct lbd_server_cfg *s;
	const struct lbd_backend *b;
	struct lbd_config *c;

	(void)state;
	c = load_ok(
		TCP_DEFAULTS "    default-server observe layer4 error-limit 3\n" FRONT "backend b\n"
			     "    server a 198.18.0.11:6443 check on-error mark-down\n"
			     "    server d 198.18.0.12:6443 check\n"
			     "    server n 198.18.0.13:6443 check observe none on-error "
			     "sudden-death error-limit 7\n"
			     "    server f 198.18.0.14:6443 check on-error fastinter\n"
			     "    server k 198.18.0.15:6443 check on-error fail-check\n");
	b = lbd_cfg_backend(c, "b");
	s = lbd_cfg_server(b, "a");
	assert_true(s->o.observe);
	assert_int_equal(s->o.error_limit, 3);
	assert_int_equal(s->o.on_error, LBD_ONERR_MARK_DOWN);
	s = lbd_cfg_server(b, "d"); /* defaults: fail-check */
	assert_true(s->o.observe);
	assert_int_equal(s->o.on_error, LBD_ONERR_FAIL_CHECK);
	s = lbd_cfg_server(b, "n");
	assert_false(s->o.observe);
	assert_int_equal(s->o.error_limit, 7);
	assert_int_equal(s->o.on_error, LBD_ONERR_SUDDEN_DEATH);
	assert_int_equal(lbd_cfg_server(b, "f")->o.on_error, LBD_ONERR_FASTINTER);
	assert_int_equal(lbd_cfg_server(b, "k")->o.on_error, LBD_ONERR_FAIL_CHECK);
	lbd_cfg_free(c);

	/* HAProxy's default error-limit is 10; observe is off unless written */
	c = load_ok(TCP_DEFAULTS FRONT "backend b\n    server a 198.18.0.11:6443 check\n");
	s = lbd_cfg_server(lbd_cfg_backend(c, "b"), "a");
	assert_false(s->o.observe);
	assert_int_equal(s->o.error_limit, 10);
	lbd_cfg_free(c);
}

static void test_observe_errors(void **state)
{
	struct lbd_config *c;

	(void)state;
	/* HAProxy 2.6 refuses the same (haproxy -c) */
	/* HAProxy 2.6 alerts about layer7 in a tcp proxy, then runs the file
	 * with observe as it was: lbd says so and does the same */
	c = load_ok(TCP_DEFAULTS "    default-server check observe layer4\n" FRONT
				 "backend b\n    server a 198.18.0.11:6443 observe layer7\n");
	expect_in(notices(c), "t.cfg:11: 'observe layer7' can only be used in http proxies; "
			      "ignored, as HAProxy does");
	assert_true(lbd_cfg_server(lbd_cfg_backend(c, "b"), "a")->o.observe);
	lbd_cfg_free(c);
	expect_error(TCP_DEFAULTS FRONT "backend b\n    server a 198.18.0.11:6443 observe layer9\n",
		"t.cfg:10: 'observe' expects one of 'none', 'layer4', 'layer7' but got 'layer9'");
	expect_error(TCP_DEFAULTS FRONT "backend b\n    server a 198.18.0.11:6443 on-error bogus\n",
		"t.cfg:10: 'on-error' expects one of 'fastinter', 'fail-check', 'sudden-death' or "
		"'mark-down' but got 'bogus'");
	expect_error(TCP_DEFAULTS FRONT "backend b\n    server a 198.18.0.11:6443 error-limit 0\n",
		"t.cfg:10: 'error-limit'");
	expect_error(TCP_DEFAULTS FRONT "backend b\n    server a 198.18.0.11:6443 observe\n",
		"t.cfg:10: 'observe' needs a value");
	expect_error(TCP_DEFAULTS "    default-server on-error\n" FRONT,
		"t.cfg:6: 'on-error' needs a value");
	/* accepted without check, as HAProxy does, but it does nothing there */
	expect_notice(TCP_DEFAULTS FRONT
		"backend b\n    server a 198.18.0.11:6443 observe layer4\n",
		"t.cfg:10: 'observe layer4' does nothing without 'check'");
}

static void test_hedge(void **state)
{
	const struct lbd_backend *b;
	struct lbd_config *c;

	(void)state;
	c = load_ok(TCP_DEFAULTS "    hedge 100ms\n" FRONT "backend b\n"
				 "    server a 198.18.0.11:6443\n"
				 "    server z 198.18.0.12:6443 hedge 0\n"
				 "    server w 198.18.0.13:6443 hedge 250ms\n"
				 "backend o\n"
				 "    hedge 0\n"
				 "    server a 198.18.0.11:6443\n"
				 "    server w 198.18.0.13:6443 hedge 30ms\n");
	b = lbd_cfg_backend(c, "b");
	assert_int_equal(b->hedge, 100 * MS);
	assert_int_equal(lbd_cfg_server(b, "a")->o.hedge, 100 * MS); /* the backend's */
	assert_int_equal(lbd_cfg_server(b, "z")->o.hedge, 0);        /* the server's wins */
	assert_int_equal(lbd_cfg_server(b, "w")->o.hedge, 250 * MS);
	b = lbd_cfg_backend(c, "o");
	assert_int_equal(lbd_cfg_server(b, "a")->o.hedge, 0);
	assert_int_equal(lbd_cfg_server(b, "w")->o.hedge, 30 * MS);
	lbd_cfg_free(c);

	/* off unless written */
	c = load_ok(TCP_DEFAULTS FRONT "backend b\n    server a 198.18.0.11:6443\n");
	assert_int_equal(lbd_cfg_server(lbd_cfg_backend(c, "b"), "a")->o.hedge, 0);
	lbd_cfg_free(c);

	expect_error(TCP_DEFAULTS FRONT "backend b\n    hedge\n", "t.cfg:10: 'hedge'");
	expect_error(TCP_DEFAULTS FRONT "backend b\n    hedge 10q\n",
		"t.cfg:10: 'hedge': unknown time unit");
	expect_error(TCP_DEFAULTS "frontend f\n    bind :80\n    hedge 1s\n",
		"t.cfg:8: 'hedge' is not allowed in a frontend section");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_observe_parsed),
		cmocka_unit_test(test_observe_errors),
		cmocka_unit_test(test_hedge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
