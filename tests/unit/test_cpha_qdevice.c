/* qdevice: in the cluster description: its errors, the corosync.conf and
 * fenced.conf rendered with and without it, and what plan says. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cpha_test.h"
#include "plan.h"
#include "render.h"
#include "render_ha.h"
#include "render_paths.h"
#include "render_set.h"

/* Three masters and two LB hosts, each LB host with a BMC. */
#define BASE                                                                                       \
	"cluster: {name: lab}\n"                              /* 1 */                              \
	"api: {name: k, vip: 198.18.0.50/24}\n"               /* 2 */                              \
	"masters:\n"                                          /* 3 */                              \
	"  - {name: m1, address: 198.18.0.11}\n"              /* 4 */                              \
	"  - {name: m2, address: 198.18.0.12}\n"              /* 5 */                              \
	"  - {name: m3, address: 198.18.0.13}\n"              /* 6 */                              \
	"load_balancers:\n"                                   /* 7 */                              \
	"  - {name: lb1, address: 198.18.0.21}\n"             /* 8 */                              \
	"  - {name: lb2, address: 198.18.0.22}\n"             /* 9 */                              \
	"components: {manager: systemd}\n"                    /* 10 */                             \
	"fencing:\n"                                          /* 11 */                             \
	"  devices:\n"                                        /* 12 */                             \
	"    - {name: b1, agent: fence_ipmilan, host: lb1}\n" /* 13 */                             \
	"    - {name: b2, agent: fence_ipmilan, host: lb2}\n" /* 14 */

/* The load errors of text, one per line. */
static const char *errors_of(const char *text)
{
	static char all[4096];
	struct cpha_msgs d = { 0 };
	struct cp_cluster *c = cpha_test_load(text, &d, NULL);
	size_t o = 0;

	all[0] = 0;
	for (size_t i = 0; i < d.nerrs && o < sizeof(all); i++)
		o += (size_t)snprintf(all + o, sizeof(all) - o, "%s\n", d.errs[i].text);
	assert_null(c);
	cluster_free(c);
	cpha_msgs_free(&d);
	return all;
}

static void expect_error(const char *qdevice, const char *want)
{
	char text[2048];
	const char *e;

	snprintf(text, sizeof(text), "%s%s", BASE, qdevice);
	e = errors_of(text);
	if (!strstr(e, want))
		fail_msg("want %s, got:\n%s", want, e);
}

static void test_parse_errors(void **state)
{
	(void)state;
	/* line 15 is qdevice:, its values on line 16 */
	expect_error("qdevice: {algorithm: lms}\n", ":15:10: qdevice: needs address");
	expect_error("qdevice:\n  address: m1\n  colour: red\n", ":17:3: ");
	expect_error("qdevice:\n  address: m1\n  algorithm: 2nodelms\n",
		":17:14: algorithm: '2nodelms' is not one of ffsplit, lms");
	expect_error("qdevice:\n  address: m1\n  tie_breaker: middle\n",
		":17:16: tie_breaker: 'middle' is not lowest, highest or a node id");
	expect_error("qdevice:\n  address: m1\n  tie_breaker: 7\n",
		":17:16: qdevice.tie_breaker: node id 7 is no node of the load-balancer hosts'");
	expect_error("qdevice:\n  address: m1\n  port: 70000\n",
		":17:9: port: '70000' is not a whole number from 1 to 65535");
	expect_error("qdevice:\n  address: m1\n  tls: maybe\n",
		":17:8: tls: 'maybe' is not one of on, off, required");
	expect_error("qdevice:\n  address: m1\n  votes: 2\n", ":17:10: votes: left to corosync");
	/* where qnetd runs: not an LB host it decides for, by name or address */
	expect_error("qdevice: {address: lb2}\n",
		":15:20: qdevice.address: lb2 is lb2, one of the load-balancer hosts whose quorum");
	expect_error("qdevice: {address: 198.18.0.21}\n",
		":15:20: qdevice.address: 198.18.0.21 is lb1, one of the load-balancer hosts");
	expect_error("qdevice: {address: nowhere}\n",
		":15:20: qdevice.address: 'nowhere' is neither an IPv4 or IPv6 address nor a host");
	expect_error("qdevice: {address: 198.18.0.50}\n", ":15:20: qdevice.address: "
							  "198.18.0.50 is the VIP");
}

static struct cp_cluster *load_ok(const char *extra, struct cpha_msgs *d)
{
	char text[2048];
	struct cp_cluster *c;

	snprintf(text, sizeof(text), "%s%s", BASE, extra);
	c = cpha_test_load(text, d, NULL);
	for (size_t i = 0; !c && i < d->nerrs; i++)
		print_message("%s\n", d->errs[i].text);
	assert_non_null(c);
	return c;
}

static void test_values(void **state)
{
	struct cpha_msgs d = { 0 };
	struct cp_cluster *c;
	char tie[16];

	(void)state;
	c = load_ok("qdevice: {address: m1}\n", &d);
	assert_true(c->qdevice.on);
	assert_string_equal(c->qdevice.host, "m1");
	assert_int_equal(c->qdevice.port, 5403);
	assert_int_equal(c->qdevice.algorithm, CP_QD_FFSPLIT);
	assert_int_equal(c->qdevice.tls, CP_QD_TLS_ON);
	assert_string_equal(cluster_qd_tie_text(&c->qdevice, tie, sizeof(tie)), "lowest");
	assert_true(cluster_qdevice_serves(c, CP_ROLE_LB));
	assert_false(cluster_qdevice_serves(c, CP_ROLE_MASTER));
	cluster_free(c);
	cpha_msgs_free(&d);

	c = load_ok("qdevice: {address: 198.18.0.30, algorithm: lms, tie_breaker: 2, port: 5404, "
		    "tls: required}\n",
		&d);
	assert_null(c->qdevice.host); /* an address of no host */
	assert_string_equal(cluster_qd_tie_text(&c->qdevice, tie, sizeof(tie)), "2");
	assert_int_equal(c->qdevice.tls, CP_QD_TLS_REQUIRED);
	cluster_free(c);
	cpha_msgs_free(&d);
}

/* corosync.conf and fenced.conf of lb1 */
static void render_lb1(struct cp_cluster *c, char **cs, char **fenced)
{
	struct render_set s = { 0 };
	struct cpha_msgs d = { 0 };
	struct render_file *f;

	assert_int_equal(render_ha_files(c, &s, &d), 0);
	f = render_find(&s, "lb1", RENDER_COROSYNC_CONF);
	assert_non_null(f);
	*cs = strdup(f->text.data);
	f = render_find(&s, "lb1", RENDER_FENCED_CONF);
	assert_non_null(f);
	*fenced = strdup(f->text.data);
	render_set_free(&s);
	cpha_msgs_free(&d);
}

static void test_render(void **state)
{
	struct cpha_msgs d = { 0 };
	struct cp_cluster *c;
	char *cs, *fenced;

	(void)state;
	/* without: two_node, and the VIP holder's head start */
	c = load_ok("", &d);
	render_lb1(c, &cs, &fenced);
	assert_non_null(strstr(cs, "    two_node: 1\n"));
	assert_null(strstr(cs, "device {"));
	assert_non_null(strstr(fenced, "    priority_delay_vip 5s\n"));
	free(cs);
	free(fenced);
	cluster_free(c);
	cpha_msgs_free(&d);

	/* with: the device, no two_node (corosync refuses both), no race
	 * delays even with fencing.delay written */
	c = load_ok("qdevice: {address: m1, tie_breaker: highest, tls: off}\n", &d);
	c->fence_delay_usec = 10000000;
	c->fence_delay_set = true;
	render_lb1(c, &cs, &fenced);
	assert_null(strstr(cs, "two_node"));
	assert_non_null(strstr(cs, "quorum {\n"
				   "    provider: corosync_votequorum\n"));
	assert_non_null(strstr(cs, "    device {\n"
				   "        model: net\n"
				   "        votes: 1\n"
				   "        net {\n"
				   "            host: 198.18.0.11\n"
				   "            port: 5403\n"
				   "            algorithm: ffsplit\n"
				   "            tie_breaker: highest\n"
				   "            tls: off\n"
				   "        }\n"));
	/* the LB hosts hold the VIP: an even split goes to its holder's side,
	 * whose heuristic passes (the other's fails), before the tie-breaker */
	assert_non_null(strstr(cs, "        heuristics {\n"
				   "            mode: sync\n"
				   "            exec_holds_vip: /bin/sh -c \"ip -o addr show | "
				   "grep -qF ' 198.18.0.50/'\"\n"
				   "        }\n"
				   "    }\n"
				   "}\n"));
	assert_null(strstr(fenced, "priority_delay_vip"));
	assert_null(strstr(fenced, "    delay "));
	assert_non_null(strstr(fenced, "fence_node lb2 {\n    level 1 {\n        b2\n"));
	free(cs);
	free(fenced);
	cluster_free(c);
	cpha_msgs_free(&d);

	/* lms: votes left to corosync (it needs its default) */
	c = load_ok("qdevice: {address: m1, algorithm: lms}\n", &d);
	render_lb1(c, &cs, &fenced);
	assert_null(strstr(cs, "votes:"));
	assert_non_null(strstr(cs, "algorithm: lms\n"));
	free(cs);
	free(fenced);
	cluster_free(c);
	cpha_msgs_free(&d);
}

static void plan_of(const char *extra, struct cp_cluster **c, struct plan *p, struct cpha_msgs *d)
{
	*c = load_ok(extra, d);
	assert_int_equal(plan_build(*c, &(struct plan_opts){ 0 }, p, d), 0);
}

static const struct plan_role *role(const struct plan *p, const char *name)
{
	for (size_t i = 0; i < p->nroles; i++)
		if (!strcmp(p->roles[i].role, name))
			return &p->roles[i];
	fail_msg("no role %s", name);
	return NULL;
}

static void test_plan(void **state)
{
	struct cpha_msgs d = { 0 };
	struct cp_cluster *c;
	struct plan p;

	(void)state;
	/* two LB hosts, no device: the fence race is said */
	plan_of("", &c, &p, &d);
	assert_true(HAS_WARN(&d,
		":8:3: warning: two-node corosync cluster (load balancers): a "
		"partition is decided by a fence race",
		"priority_delay_vip", "qdevice:"));
	assert_string_equal(role(&p, "corosync (load balancers)")->style,
		"two_node: each keeps quorum alone; the fence race decides");
	plan_free(&p);
	cluster_free(c);
	cpha_msgs_free(&d);

	/* with it: no race warning, the device in the row */
	plan_of("qdevice: {address: m1}\n", &c, &p, &d);
	assert_false(HAS_WARN(&d, "fence race"));
	assert_false(HAS_WARN(&d, "qdevice"));
	assert_string_equal(role(&p, "corosync (load balancers)")->style,
		"votequorum with a quorum device (ffsplit, corosync-qnetd at m1 "
		"198.18.0.11:5403)");
	assert_string_equal(role(&p, "corosync (load balancers)")->tolerance,
		"2 nodes and 1 device vote, quorum 2, tolerates 1 failure (the side "
		"corosync-qnetd votes for keeps quorum)");
	plan_free(&p);
	cluster_free(c);
	cpha_msgs_free(&d);

	/* the fence-race delays, written, are said to be left out with a
	 * device; the default priority_delay_vip is not said */
	plan_of("  delay: 2s\n"
		"  priority_delay_vip: 3s\n"
		"qdevice: {address: m1}\n",
		&c, &p, &d);
	assert_true(
		HAS_WARN(&d, ":15:10: warning: fencing.delay is left out of the load balancers' "
			     "fenced.conf: their quorum device decides a split"));
	assert_true(HAS_WARN(&d,
		":16:23: warning: fencing.priority_delay_vip is left out of the "
		"load balancers' fenced.conf",
		"heuristics favour the VIP holder"));
	plan_free(&p);
	cluster_free(c);
	cpha_msgs_free(&d);

	/* three LB hosts and ffsplit: corosync-qdevice(8) advises against */
	c = cpha_test_load("cluster: {name: lab}\napi: {name: k, vip: 198.18.0.50/24}\n"
			   "masters: [{name: m1, address: 198.18.0.11}]\n"
			   "load_balancers:\n"
			   "  - {name: lb1, address: 198.18.0.21}\n"
			   "  - {name: lb2, address: 198.18.0.22}\n"
			   "  - {name: lb3, address: 198.18.0.23}\n"
			   "qdevice: {address: m1}\n",
		&d, NULL);
	assert_non_null(c);
	assert_int_equal(plan_build(c, &(struct plan_opts){ 0 }, &p, &d), 0);
	assert_true(HAS_WARN(&d, ":8:10: warning: qdevice: algorithm ffsplit with 3 load balancers",
		"even node count", "algorithm: lms"));
	plan_free(&p);
	cluster_free(c);
	cpha_msgs_free(&d);
}

/* With the load balancer on the masters the device serves the masters'
 * corosync cluster; it must not run on a master then. */
static void test_on_masters(void **state)
{
	struct cpha_msgs d = { 0 };
	struct cp_cluster *c;
	struct render_set s = { 0 };
	struct render_file *f;
	const char *two = "cluster: {name: lab}\napi: {name: k, vip: 198.18.0.50/24}\n"
			  "masters:\n"
			  "  - {name: m1, address: 198.18.0.11}\n"
			  "  - {name: m2, address: 198.18.0.12}\n"
			  "etcd: {hosts: [m1]}\n"
			  "components: {manager: systemd}\n";
	char text[1024];

	(void)state;
	snprintf(text, sizeof(text), "%sqdevice: {address: m2}\n", two);
	c = cpha_test_load(text, &d, NULL);
	assert_null(c);
	assert_true(HAS_ERR(&d, "qdevice.address: m2 is m2, one of the masters"));
	cpha_msgs_free(&d);

	snprintf(text, sizeof(text), "%sqdevice: {address: 198.18.0.30}\n", two);
	c = cpha_test_load(text, &d, NULL);
	assert_non_null(c);
	assert_true(cluster_qdevice_serves(c, CP_ROLE_MASTER));
	assert_int_equal(render_ha_files(c, &s, &d), 0);
	f = render_find(&s, "m1", RENDER_COROSYNC_CONF);
	assert_non_null(f);
	assert_null(strstr(f->text.data, "two_node"));
	assert_non_null(strstr(f->text.data, "            host: 198.18.0.30\n"));
	/* the masters hold the VIP here: the same heuristic */
	assert_non_null(strstr(f->text.data, "grep -qF ' 198.18.0.50/'"));
	render_set_free(&s);
	cluster_free(c);
	cpha_msgs_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_render),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_on_masters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
