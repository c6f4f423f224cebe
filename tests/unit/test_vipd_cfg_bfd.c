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
#include "vipd.h"
#include "vipd_cfg_test.h"

static struct vipd_config *load_ok(const char *text, size_t *nnotices)
{
	struct cpha_msgs errs = { 0 };
	struct vipd_config *c = NULL;

	if (vipd_cfg_load_mem("t.conf", text, strlen(text), &c, &errs) < 0) {
		print_error("refused:\n%s", join_errs(&errs));
		cpha_msgs_free(&errs);
		fail();
	}
	join(c->notices, c->nnotices);
	if (nnotices)
		*nnotices = c->nnotices;
	cpha_msgs_free(&errs);
	return c;
}

static const char *load_bad(const char *text)
{
	struct cpha_msgs errs = { 0 };
	struct vipd_config *c = NULL;

	assert_int_equal(vipd_cfg_load_mem("t.conf", text, strlen(text), &c, &errs), -1);
	assert_null(c);
	join_errs(&errs);
	cpha_msgs_free(&errs);
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

#define BFD_B "bfd_instance b {\n  neighbor_ip 198.18.0.2\n}\n" /* lines 1-3 */
#define BFD_W "bfd_instance w {\n  neighbor_ip 198.18.0.3\n  weight -30 reverse\n}\n"

/* track_bfd in instances and sync groups: the definition's weight unless
 * the entry gives one, keepalived's reverse / noreverse. */
static void test_track_bfd(void **state)
{
	struct vipd_config *c;
	const struct vipd_instance *v;

	(void)state;
	c = load_ok(BFD_B BFD_W "vrrp_instance VI_1 {\n"
				"  interface eth0\n"
				"  virtual_router_id 51\n"
				"  virtual_ipaddress {\n"
				"    198.18.0.10\n"
				"  }\n"
				"  track_bfd {\n"
				"    b\n"
				"    w\n"
				"  }\n"
				"}\n"
				"vrrp_instance VI_2 {\n"
				"  interface eth0\n"
				"  virtual_router_id 52\n"
				"  virtual_ipaddress {\n"
				"    198.18.0.11\n"
				"  }\n"
				"  track_bfd {\n"
				"    w weight 20 noreverse\n"
				"  }\n"
				"}\n"
				"vrrp_instance VI_3 {\n"
				"  interface eth0\n"
				"  virtual_router_id 53\n"
				"  virtual_ipaddress {\n"
				"    198.18.0.12\n"
				"  }\n"
				"}\n"
				"vrrp_sync_group G {\n"
				"  group {\n"
				"    VI_3\n"
				"  }\n"
				"  track_bfd {\n"
				"    b\n"
				"  }\n"
				"}\n",
		NULL);
	v = &c->instances[0];
	assert_int_equal(v->ntrack_bfd, 2);
	assert_true(v->track_bfd[0].bfd);
	assert_string_equal(v->track_bfd[0].name, "b");
	assert_int_equal(v->track_bfd[0].weight, 0); /* down: FAULT */
	assert_int_equal(v->track_bfd[0].line, 15);
	assert_int_equal(v->track_bfd[1].weight, -30);
	assert_true(v->track_bfd[1].weight_reverse);
	v = &c->instances[1];
	assert_int_equal(v->track_bfd[0].weight, 20);
	assert_false(v->track_bfd[0].weight_reverse);
	assert_int_equal(c->groups[0].ntrack_bfd, 1);
	assert_true(c->groups[0].track_bfd[0].bfd);
	vipd_cfg_free(c);

	assert_has(load_bad(INST("  track_bfd {\n    nope\n  }\n")),
		"t.conf:5: no bfd_instance 'nope' (vrrp_instance 'VI_1')");
	assert_has(load_bad(INST("  track_bfd {\n    b\n  }\n") BFD_B),
		"t.conf:5: bfd_instance 'b' is defined after its use, at line 11");
	assert_has(load_bad("bfd_instance c {\n  neighbor_ip 198.18.0.2\n  checker\n}\n" INST(
			   "  track_bfd {\n    c\n  }\n")),
		"t.conf:9: bfd_instance 'c' says 'checker' without 'vrrp'");
	assert_has(load_bad(BFD_B INST("  track_bfd {\n    b weight 254\n  }\n")), "t.conf:8:");
	assert_has(load_bad(BFD_B INST("  track_bfd {\n    b\n    b\n  }\n")),
		"t.conf:9: track_bfd 'b' is listed twice");
}

/* What a track_bfd does to the priority (track_evaluate): keepalived's
 * rules, a session Up being success. */
static int eval_bfd(int weight, bool reverse, bool up, bool *fault)
{
	struct vipd_instance cfg = { .priority = 100 };
	struct vipd_track tr = {
		.name = "b", .bfd = true, .weight = weight, .weight_reverse = reverse
	};
	struct vipd_track_state ts = { .cfg = &tr, .up = up };
	struct vipd_inst in = { .cfg = &cfg, .tracks = &ts, .ntracks = 1 };
	int prio;

	track_evaluate(&in, &prio, fault, NULL);
	return prio;
}

static void test_track_bfd_weights(void **state)
{
	bool fault;

	(void)state;
	/* no weight: down is FAULT (so a backup tracking its master goes to
	 * FAULT when the master dies: why cpha render writes no track_bfd) */
	assert_int_equal(eval_bfd(0, false, false, &fault), 100);
	assert_true(fault);
	eval_bfd(0, false, true, &fault);
	assert_false(fault);
	/* weight 0 reverse: FAULT while Up */
	eval_bfd(0, true, true, &fault);
	assert_true(fault);
	/* positive: added while Up; negative: taken while Down */
	assert_int_equal(eval_bfd(20, false, true, &fault), 120);
	assert_false(fault);
	assert_int_equal(eval_bfd(20, false, false, &fault), 100);
	assert_int_equal(eval_bfd(-30, false, false, &fault), 70);
	assert_int_equal(eval_bfd(-30, false, true, &fault), 100);
	/* reverse (as for scripts): a positive weight is taken while Up, a
	 * negative one given while Down */
	assert_int_equal(eval_bfd(20, true, true, &fault), 80);
	assert_int_equal(eval_bfd(20, true, false, &fault), 100);
	assert_int_equal(eval_bfd(-30, true, true, &fault), 100);
	assert_int_equal(eval_bfd(-30, true, false, &fault), 130);
	assert_false(fault);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_track_bfd_weights),
		cmocka_unit_test(test_track_bfd),
		cmocka_unit_test(test_bfd_defaults_and_values),
		cmocka_unit_test(test_bfd_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
