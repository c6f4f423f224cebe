/* vipd's configuration parser: keepalived 2.2's bfd_instance blocks, their
 * defaults (keepalived.conf(5): 10 ms, 10 ms, 1000 ms, multiplier 5, TTL
 * 255 / hop limit 64) and the values keepalived refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "cfg.h"
#include "vipd_cfg_test.h"

static struct vipd_config *load_ok(const char *text, size_t *nnotices)
{
	struct vipd_cfg_msgs errs = { 0 };
	struct vipd_config *c = NULL;

	if (vipd_cfg_load_mem("t.conf", text, strlen(text), &c, &errs) < 0) {
		print_error("refused:\n%s", join(errs.msg, errs.n));
		vipd_cfg_msgs_free(&errs);
		fail();
	}
	join(c->notices, c->nnotices);
	if (nnotices)
		*nnotices = c->nnotices;
	vipd_cfg_msgs_free(&errs);
	return c;
}

static const char *load_bad(const char *text)
{
	struct vipd_cfg_msgs errs = { 0 };
	struct vipd_config *c = NULL;

	assert_int_equal(vipd_cfg_load_mem("t.conf", text, strlen(text), &c, &errs), -1);
	assert_null(c);
	join(errs.msg, errs.n);
	vipd_cfg_msgs_free(&errs);
	return joined;
}

static void test_bfd_defaults_and_values(void **state)
{
	struct vipd_config *c;
	const struct vipd_bfd_def *b;
	size_t nn;

	(void)state;
	c = load_ok("bfd_instance lb2 {\n"
		    "  neighbor_ip 198.18.0.2\n"
		    "}\n"
		    "bfd_instance lb3 {\n"
		    "  neighbour_ip 2001:db8::3\n"
		    "  source_ip 2001:db8::1\n"
		    "  min_rx 50\n"
		    "  min_tx 3.312\n"
		    "  idle_tx 2000\n"
		    "  multiplier 3\n"
		    "  passive\n"
		    "  max_hops 2\n"
		    "  weight -20 reverse\n"
		    "  vrrp\n"
		    "}\n"
		    "bfd_instance chk {\n"
		    "  neighbor_ip 198.18.0.4\n"
		    "  checker\n"
		    "  ttl 10\n"
		    "}\n",
		&nn);
	assert_int_equal(c->nbfds, 3);
	b = vipd_cfg_bfd(c, "lb2");
	assert_non_null(b);
	assert_int_equal(cpha_addr_family(&b->neighbor), AF_INET);
	assert_false(b->source_set);
	assert_int_equal(b->min_rx, 10000);
	assert_int_equal(b->min_tx, 10000);
	assert_int_equal(b->idle_tx, 1000000);
	assert_int_equal(b->mult, 5);
	assert_int_equal(b->ttl, 255);
	assert_int_equal(b->max_hops, 0);
	assert_int_equal(b->weight, 0);
	assert_false(b->passive);
	assert_true(b->vrrp);
	assert_int_equal(b->line, 1);
	b = vipd_cfg_bfd(c, "lb3");
	assert_int_equal(cpha_addr_family(&b->neighbor), AF_INET6);
	assert_true(b->source_set);
	assert_int_equal(b->min_rx, 50000);
	assert_int_equal(b->min_tx, 3312);
	assert_int_equal(b->idle_tx, 2000000);
	assert_int_equal(b->mult, 3);
	assert_true(b->passive);
	assert_int_equal(b->ttl, 64); /* keepalived's IPv6 default */
	assert_int_equal(b->max_hops, 2);
	assert_int_equal(b->weight, -20);
	assert_true(b->weight_reverse);
	assert_true(b->vrrp);
	b = vipd_cfg_bfd(c, "chk");
	assert_false(b->vrrp); /* for keepalived's checker process only */
	assert_int_equal(b->ttl, 10);
	assert_null(vipd_cfg_bfd(c, "nope"));
	assert_int_equal(nn, 0);
	vipd_cfg_free(c);

	/* keepalived's "larger than sensible" warnings, and max_hops above ttl */
	c = load_ok("bfd_instance b {\n"
		    "  neighbor_ip 198.18.0.2\n"
		    "  min_rx 1001\n"
		    "  idle_tx 10001\n"
		    "  multiplier 11\n"
		    "  ttl 5\n"
		    "  max_hops 9\n"
		    "}\n",
		&nn);
	assert_int_equal(nn, 4);
	assert_has(joined, "t.conf:3: min_rx 1001 ms is larger than sensible (1000 ms)");
	assert_has(joined, "t.conf:4: idle_tx 10001 ms is larger than sensible (10000 ms)");
	assert_has(joined, "t.conf:5: multiplier 11 is larger than sensible (10)");
	assert_has(joined, "t.conf:1: bfd_instance 'b': max_hops 9 exceeds ttl/hoplimit 5: "
			   "lowered to 5");
	assert_int_equal(vipd_cfg_bfd(c, "b")->max_hops, 5);
	vipd_cfg_free(c);
}

static void test_bfd_errors(void **state)
{
	(void)state;
	assert_has(load_bad("bfd_instance b {\n"
			    "  min_rx 50\n"
			    "}\n"),
		"t.conf:1: bfd_instance 'b' has no neighbor_ip");
	assert_has(load_bad("bfd_instance b {\n"
			    "  neighbor_ip 198.18.0.2\n"
			    "  min_rx 0\n"
			    "}\n"),
		"t.conf:3: 'min_rx 0': must be a number of milliseconds from 1 to 4294967");
	assert_has(load_bad("bfd_instance b {\n"
			    "  neighbor_ip 198.18.0.2\n"
			    "  min_tx 1.2345\n"
			    "}\n"),
		"t.conf:3: 'min_tx 1.2345': must be a number of milliseconds");
	assert_has(load_bad("bfd_instance b {\n"
			    "  neighbor_ip 198.18.0.2\n"
			    "  idle_tx 999\n"
			    "}\n"),
		"t.conf:3: 'idle_tx 999': must be a number of milliseconds from 1000 to 4294967");
	assert_has(load_bad("bfd_instance b {\n"
			    "  neighbor_ip 198.18.0.2\n"
			    "  multiplier 0\n"
			    "}\n"),
		"t.conf:3:");
	assert_has(load_bad("bfd_instance b {\n"
			    "  neighbor_ip 198.18.0.2\n"
			    "  ttl 256\n"
			    "}\n"),
		"t.conf:3:");
	assert_has(load_bad("bfd_instance b {\n"
			    "  neighbor_ip 198.18.0.2\n"
			    "  weight 254\n"
			    "}\n"),
		"t.conf:3:");
	assert_has(load_bad("bfd_instance b {\n"
			    "  neighbor_ip 198.18.0.2\n"
			    "  source_ip 2001:db8::1\n"
			    "}\n"),
		"t.conf:1: bfd_instance 'b': source_ip 2001:db8::1 and neighbor_ip 198.18.0.2 are "
		"not of the same family");
	assert_has(load_bad("bfd_instance a {\n"
			    "  neighbor_ip 198.18.0.2\n"
			    "}\n"
			    "bfd_instance b {\n"
			    "  neighbour_ip 198.18.0.2\n"
			    "}\n"),
		"t.conf:5: neighbour address 198.18.0.2 is already the neighbor of bfd_instance "
		"'a' (line 1)");
	assert_has(load_bad("bfd_instance a {\n"
			    "  neighbor_ip 198.18.0.2\n"
			    "}\n"
			    "bfd_instance a {\n"
			    "  neighbor_ip 198.18.0.3\n"
			    "}\n"),
		"t.conf:4: bfd_instance 'a' is defined twice (first at line 1)");
	assert_has(load_bad("bfd_instance a_name_of_thirty_two_characters_ {\n"
			    "  neighbor_ip 198.18.0.2\n"
			    "}\n"),
		"t.conf:1: bfd_instance 'a_name_of_thirty_two_characters_': the name is longer "
		"than 31 characters");
	assert_has(load_bad("bfd_instance a {\n"
			    "  neighbor_ip 198.18.0.2\n"
			    "  echo_rx 10\n"
			    "}\n"),
		"t.conf:3: 'echo_rx' is not supported by vipd");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bfd_defaults_and_values),
		cmocka_unit_test(test_bfd_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
