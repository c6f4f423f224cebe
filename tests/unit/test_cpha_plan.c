/* cpha plan: the availability matrix and each design rule, one case each. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cpha_test.h"
#include "plan.h"
#include "render_ha.h"

struct run {
	struct cp_cluster *c;
	struct cpha_msgs d;
	struct plan p;
	int rc;
};

static void show(const struct run *r)
{
	for (size_t i = 0; i < r->d.nerrs; i++)
		print_message("error: %s\n", r->d.errs[i].text);
	for (size_t i = 0; i < r->d.nwarns; i++)
		print_message("warning: %s\n", r->d.warns[i].text);
}

static void plan_of(struct run *r, const char *yaml, bool allow_even)
{
	struct plan_opts o = { .allow_even = allow_even };

	memset(r, 0, sizeof(*r));
	r->c = cpha_test_load(yaml, &r->d, NULL);
	if (!r->c)
		show(r);
	assert_non_null(r->c);
	r->rc = plan_build(r->c, &o, &r->p, &r->d);
	show(r);
}

static void done(struct run *r)
{
	plan_free(&r->p);
	cpha_msgs_free(&r->d);
	cluster_free(r->c);
}

static const struct plan_role *role(const struct run *r, const char *prefix)
{
	for (size_t i = 0; i < r->p.nroles; i++)
		if (!strncmp(r->p.roles[i].role, prefix, strlen(prefix)))
			return &r->p.roles[i];
	fail_msg("no role %s", prefix);
	return NULL;
}

static void test_sample_is_clean(void **state)
{
	struct run r;
	(void)state;

	memset(&r, 0, sizeof(r));
	assert_int_equal(
		cluster_load(CPHA_SOURCE_DIR "/tests/samples/cluster.yaml", &r.c, &r.d), 0);
	r.rc = plan_build(r.c, &(struct plan_opts){ 0 }, &r.p, &r.d);
	show(&r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.d.nerrs, 0);
	/* its admission list leaves NodeRestriction out, and its two LB hosts
	 * decide a partition by a fence race: the two warnings */
	assert_int_equal(r.d.nwarns, 2);
	assert_true(HAS_WARN(&r.d, "cluster.yaml:33:3: warning: two-node corosync cluster (load "
				   "balancers): a partition is decided by a fence race"));
	assert_true(HAS_WARN(&r.d, "cluster.yaml:20:14: warning: kubernetes.admission leaves out "
				   "NodeRestriction"));
	assert_string_equal(
		role(&r, "etcd")->tolerance, "3 members, quorum 2, tolerates 1 failure");
	assert_string_equal(role(&r, "etcd")->hosts, "kubem00 kubem01 kubem02");
	/* stacked etcd: two masters down is etcd without quorum */
	assert_int_equal(role(&r, "kube-apiserver")->tolerates, 1);
	assert_int_equal(r.p.tolerates, 1);
	assert_string_equal(r.p.tolerance, "tolerates 1 host failure (etcd quorum 2 of 3)");
	assert_string_equal(role(&r, "load balancer (lbd)")->hosts, "lb00 lb01");
	assert_int_equal(role(&r, "corosync (masters)")->tolerates, 1);
	assert_int_equal(role(&r, "corosync (load balancers)")->members, 2);
	/* the derived VRID is said, not warned about */
	assert_true(cpha_test_has(r.p.notes, r.p.nnotes,
		(const char *const[]){ "derived from the cluster name 'kubernetes'", NULL }));
	done(&r);
}

static void test_even_etcd(void **state)
{
	const char *yaml = CPHA_TEST_BASE "  - {name: m4, address: 198.18.0.14}\n";
	struct run r;
	(void)state;

	plan_of(&r, yaml, false);
	assert_int_equal(r.rc, -1);
	assert_true(HAS_ERR(&r.d, "etcd: 4 members refused", "tolerate 1 failure",
		"need 3 for a majority", "3 or 5", "--allow-even"));
	done(&r);

	plan_of(&r, yaml, true);
	assert_int_equal(r.rc, 0);
	assert_string_equal(
		role(&r, "etcd")->tolerance, "4 members, quorum 3, tolerates 1 failure");
	done(&r);

	/* five is fine, and tolerates two */
	plan_of(&r,
		CPHA_TEST_BASE "  - {name: m4, address: 198.18.0.14}\n"
			       "  - {name: m5, address: 198.18.0.15}\n",
		false);
	assert_int_equal(r.rc, 0);
	assert_int_equal(role(&r, "etcd")->tolerates, 2);
	done(&r);
}

static void test_vip_rules(void **state)
{
	struct run r;
	(void)state;

	plan_of(&r,
		"cluster: {name: lab}\napi: {name: k, vip: 198.19.0.2/24}\nmasters:\n"
		"  - {name: m1, address: 198.18.0.11}\n",
		false);
	assert_true(HAS_ERR(&r.d, ":2:21:", "VIP 198.19.0.2/24 is outside the subnet of m1"));
	done(&r);

	plan_of(&r,
		"cluster: {name: lab}\napi: {name: k, vip: 198.18.0.11/24}\nmasters:\n"
		"  - {name: m1, address: 198.18.0.11}\n",
		false);
	assert_true(HAS_ERR(&r.d, "the VIP 198.18.0.11/24 is the address of host m1"));
	done(&r);

	plan_of(&r,
		CPHA_TEST_BASE "load_balancers: [{name: l1, address: 198.18.0.3}, {name: l2, "
			       "address: 198.18.0.4}]\ncomponents: {vip: pacemaker}\n",
		false);
	assert_true(HAS_ERR(&r.d, "components.vip: pacemaker needs"));
	done(&r);
}

static void test_duplicates(void **state)
{
	struct run r;
	(void)state;

	plan_of(&r,
		CPHA_TEST_BASE "load_balancers:\n  - {name: m2, address: 198.18.0.3}\n"
			       "  - {name: l2, address: 198.18.0.13}\n",
		false);
	assert_true(HAS_ERR(&r.d, ":8:12:", "host name 'm2' is used twice (first at line 5)"));
	assert_true(HAS_ERR(&r.d, ":9:25:", "address 198.18.0.13 of l2 is also the address of m3"));
	done(&r);

	plan_of(&r,
		CPHA_TEST_BASE "fencing:\n  devices:\n"
			       "    - {name: f, agent: fence_ipmilan, host: m1}\n"
			       "    - {name: f, agent: fence_ipmilan, host: m2}\n",
		false);
	assert_true(HAS_ERR(&r.d, ":10:14:", "fence device 'f' is defined twice"));
	done(&r);

	plan_of(&r,
		"cluster: {name: lab}\napi: {name: k, vip: 198.18.0.2/24}\nmasters:\n"
		"  - {name: m1, address: 198.18.0.11, node_id: 5}\n"
		"  - {name: m2, address: 198.18.0.12, node_id: 5}\n"
		"  - {name: m3, address: 198.18.0.13}\n",
		false);
	assert_true(HAS_ERR(&r.d, "node_id 5 of m2 is also the node id of m1"));
	done(&r);
}

static void test_warnings(void **state)
{
	struct run r;
	(void)state;

	/* the base: LB on the masters, no fence devices, no zones */
	plan_of(&r, CPHA_TEST_BASE, false);
	assert_int_equal(r.rc, 0);
	assert_true(HAS_WARN(&r.d, ":4:5: warning: host m1 has no fence device", "Pacemaker",
		"there is no watchdog"));
	assert_false(HAS_WARN(&r.d, "single load-balancer"));
	assert_true(cpha_test_has(
		r.p.notes, r.p.nnotes, (const char *const[]){ "no master names a zone", NULL }));
	done(&r);

	plan_of(&r,
		CPHA_TEST_BASE "load_balancers: [{name: l1, address: 198.18.0.3}]\n"
			       "components: {manager: systemd}\n",
		false);
	assert_true(HAS_WARN(&r.d, ":7:17:", "a single load-balancer host"));
	assert_true(HAS_WARN(&r.d, "host m1 has no fence device", "fenced"));
	done(&r);

	plan_of(&r,
		"cluster: {name: lab}\napi: {name: k, vip: 198.18.0.2/24}\nmasters:\n"
		"  - {name: m1, address: 198.18.0.11, zone: a}\n"
		"  - {name: m2, address: 198.18.0.12, zone: a}\n"
		"  - {name: m3, address: 198.18.0.13, zone: a}\n",
		false);
	assert_true(HAS_WARN(&r.d, "all 3 masters are in zone 'a'"));
	done(&r);

	plan_of(&r,
		"cluster: {name: lab}\napi: {name: k, vip: 198.18.0.2/24}\nmasters:\n"
		"  - {name: m1, address: 198.18.0.11, zone: a}\n"
		"  - {name: m2, address: 198.18.0.12, zone: b}\n"
		"  - {name: m3, address: 198.18.0.13, zone: a}\n",
		false);
	assert_false(HAS_WARN(&r.d, "masters are in zone"));
	done(&r);
}

static void test_common_vrid(void **state)
{
	struct run r;
	(void)state;

	plan_of(&r,
		"cluster: {name: lab}\napi: {name: k, vip: 198.18.0.2/24, vrid: 51}\nmasters:\n"
		"  - {name: m1, address: 198.18.0.11}\n",
		false);
	assert_true(HAS_WARN(&r.d, ":2:42:", "VRID 51 is one that examples"));
	assert_false(cpha_test_has(r.p.notes, r.p.nnotes,
		(const char *const[]){ "derived from the cluster name", NULL }));
	done(&r);

	plan_of(&r,
		"cluster: {name: lab}\napi: {name: k, vip: 198.18.0.2/24, vrid: 77}\nmasters:\n"
		"  - {name: m1, address: 198.18.0.11}\n",
		false);
	assert_false(HAS_WARN(&r.d, "VRID"));
	done(&r);
}

static void test_two_node_delay(void **state)
{
	static const char *lb2 = "load_balancers: [{name: l1, address: 198.18.0.3}, {name: l2, "
				 "address: 198.18.0.4}]\n";
	char yaml[2048];
	struct run r;
	(void)state;

	/* the LB tier: the VIP priority delay (5 s by default) is a delay;
	 * the race it decides is said, with the way out of it */
	snprintf(yaml, sizeof(yaml), "%s%s", CPHA_TEST_BASE, lb2);
	plan_of(&r, yaml, false);
	assert_false(HAS_WARN(&r.d, "without a fence delay"));
	assert_true(HAS_WARN(&r.d, ":7:17:", "a partition is decided by a fence race",
		"fencing.priority_delay_vip", "(qdevice:)"));
	done(&r);

	snprintf(
		yaml, sizeof(yaml), "%s%sfencing: {priority_delay_vip: 0s}\n", CPHA_TEST_BASE, lb2);
	plan_of(&r, yaml, false);
	assert_true(HAS_WARN(&r.d, ":7:17:",
		"two-node corosync cluster (load balancers) without a "
		"fence delay"));
	done(&r);

	snprintf(yaml, sizeof(yaml), "%s%sfencing: {priority_delay_vip: 0s, delay: 10s}\n",
		CPHA_TEST_BASE, lb2);
	plan_of(&r, yaml, false);
	assert_false(HAS_WARN(&r.d, "without a fence delay"));
	assert_true(HAS_WARN(&r.d, "a partition is decided by a fence race (fencing.delay)"));
	done(&r);

	/* keepalived holds the VIP: fenced cannot tell the holder, so the VIP
	 * priority delay decides nothing (found by cpha lab: both LB hosts
	 * fenced each other in a partition) */
	snprintf(yaml, sizeof(yaml), "%s%scomponents: {vip: keepalived}\n", CPHA_TEST_BASE, lb2);
	plan_of(&r, yaml, false);
	assert_true(
		HAS_WARN(&r.d, "two-node corosync cluster (load balancers) without a fence delay",
			"set fencing.delay"));
	assert_false(HAS_WARN(&r.d, "two-node", "priority_delay_vip"));
	done(&r);
	snprintf(yaml, sizeof(yaml), "%s%scomponents: {vip: keepalived}\nfencing: {delay: 5s}\n",
		CPHA_TEST_BASE, lb2);
	plan_of(&r, yaml, false);
	assert_false(HAS_WARN(&r.d, "without a fence delay"));
	assert_true(HAS_WARN(&r.d, "a partition is decided by a fence race (fencing.delay)"));
	done(&r);

	/* two masters, etcd on three hosts (one external) */
	plan_of(&r,
		"cluster: {name: lab}\napi: {name: k, vip: 198.18.0.2/24}\nmasters:\n"
		"  - {name: m1, address: 198.18.0.11}\n  - {name: m2, address: 198.18.0.12}\n"
		"etcd: {hosts: [m1, m2, {name: e3, address: 198.18.0.13}]}\n",
		false);
	assert_int_equal(r.rc, 0);
	assert_int_equal(role(&r, "etcd")->members, 3);
	assert_true(HAS_WARN(&r.d, "two-node corosync cluster (masters) without a fence delay",
		"set fencing.delay"));
	/* the etcd-only host is in no corosync cluster, so needs no fence device */
	assert_false(HAS_WARN(&r.d, "host e3"));
	done(&r);
}

/* fencing.load_balancers: none (kubeadm's HA guide: keepalived alone on
 * the LB hosts): no corosync cluster and no fenced there, so no two-node
 * race and no "no fence device" warning for them, but the hang it leaves
 * open said once; the masters' tier is untouched. */
static void test_lbs_unfenced(void **state)
{
	char yaml[2048];
	struct run r;
	(void)state;

	snprintf(yaml, sizeof(yaml),
		"%sload_balancers: [{name: l1, address: 198.18.0.3}, {name: l2, address: "
		"198.18.0.4}]\ncomponents: {load_balancer: haproxy, vip: keepalived}\n"
		"fencing: {load_balancers: none}\n",
		CPHA_TEST_BASE);
	plan_of(&r, yaml, false);
	assert_int_equal(r.rc, 0);
	assert_false(HAS_WARN(&r.d, "two-node"));
	assert_false(HAS_WARN(&r.d, "host l1 has no fence device"));
	assert_true(HAS_WARN(&r.d, "host m1 has no fence device"));
	assert_true(HAS_WARN(&r.d, ":9:27:", "fencing.load_balancers: none: no fenced powers off",
		"keeps the VIP beside its successor"));
	assert_string_equal(role(&r, "load-balancer hosts")->style,
		"not fenced (fencing.load_balancers: none): keepalived alone decides");
	assert_int_equal(role(&r, "load-balancer hosts")->tolerates, 1);
	assert_int_equal(role(&r, "corosync (masters)")->members, 3);
	for (size_t i = 0; i < r.p.nroles; i++)
		assert_null(strstr(r.p.roles[i].role, "corosync (load balancers)"));
	for (size_t i = 0; i < r.c->nhosts; i++)
		assert_int_equal(ha_tier_of(r.c, &r.c->hosts[i]),
			r.c->hosts[i].roles & CP_ROLE_MASTER ? HA_TIER_MASTERS : HA_TIER_NONE);
	done(&r);
}

static void test_leader_elect(void **state)
{
	struct run r;
	(void)state;

	plan_of(&r,
		CPHA_TEST_BASE "kubernetes: {leader_elect: false}\ncomponents: {manager: "
			       "systemd}\n",
		false);
	assert_true(HAS_ERR(&r.d, "leader_elect: false with manager: systemd"));
	assert_string_equal(
		role(&r, "kube-scheduler")->style, "ACTIVE ON EVERY MASTER (leader_elect: false)");
	done(&r);

	plan_of(&r, CPHA_TEST_BASE "kubernetes: {leader_elect: false}\n", false);
	assert_int_equal(r.rc, 0);
	done(&r);
}

/* The end of life of the description's Kubernetes minor, judged on a day
 * the test gives: a warning at the version's place, gcc-style, from the
 * day after the end-of-life date; none before. */
static void test_version_eol(void **state)
{
	struct cpha_msgs d = { 0 };
	struct cp_cluster *c;
	(void)state;

	c = cpha_test_load(CPHA_TEST_BASE "kubernetes: {version: v1.34.2}\n", &d, NULL);
	assert_non_null(c);
	plan_check_version(c, "2026-10-27", &d); /* its last day */
	assert_int_equal(d.nwarns + d.nerrs, 0);
	plan_check_version(c, "2026-01-01", &d);
	assert_int_equal(d.nwarns + d.nerrs, 0);
	plan_check_version(c, NULL, &d); /* no day: no judgement */
	assert_int_equal(d.nwarns + d.nerrs, 0);
	plan_check_version(c, "2026-11-28", &d);
	assert_int_equal(d.nwarns, 1);
	assert_int_equal(d.nerrs, 0);
	assert_non_null(strstr(d.warns[0].text,
		":7:23: warning: kubernetes.version: Kubernetes 1.34 reached "
		"its end of life on 2026-10-27"));
	assert_non_null(strstr(d.warns[0].text, "cpha knows 1.33, 1.34, 1.35, 1.36, 1.37"));
	cpha_msgs_free(&d);

	/* a model whose minor the table does not know (built otherwise than
	 * by the reader, which refuses it): refused, naming the known ones */
	c->k8s_minor = 30;
	plan_check_version(c, "2026-11-28", &d);
	assert_int_equal(d.nerrs, 1);
	assert_non_null(
		strstr(d.errs[0].text, "does not know the flags of Kubernetes 1.30; it knows "
				       "1.33, 1.34"));
	cpha_msgs_free(&d);
	cluster_free(c);

	/* the default is supported on 2026-11-28; plan_build judges with
	 * plan_opts.today */
	struct plan p;
	struct plan_opts o = { .today = "2026-11-28" };
	c = cpha_test_load(CPHA_TEST_BASE, &d, NULL);
	assert_non_null(c);
	assert_int_equal(plan_build(c, &o, &p, &d), 0);
	for (size_t i = 0; i < d.nwarns; i++)
		assert_null(strstr(d.warns[i].text, "end of life"));
	plan_free(&p);
	cpha_msgs_free(&d);
	cluster_free(c);
	c = cpha_test_load(CPHA_TEST_BASE "kubernetes: {version: '1.33'}\n", &d, NULL);
	assert_non_null(c);
	assert_int_equal(plan_build(c, &o, &p, &d), 0);
	assert_true(HAS_WARN(&d, ":7:23:", "1.33 reached its end of life on 2026-06-28"));
	plan_free(&p);
	cpha_msgs_free(&d);
	cluster_free(c);
}

/* With static pods, an etcd image of another release line than
 * etcd.version is a warning at the image's place. */
static void test_etcd_image(void **state)
{
	static const struct {
		const char *yaml;
		const char *warn; /* NULL: none */
	} cases[] = {
		{ "components: {manager: static-pods}\n", NULL }, /* the default image */
		{ "components: {manager: static-pods}\netcd: {version: '3.6'}\n", NULL },
		{ "components: {manager: static-pods}\n"
		  "kubernetes: {etcd_image: 'r.example/etcd:3.5.24-0'}\n",
			":8:26: warning: kubernetes.etcd_image: r.example/etcd:3.5.24-0 runs etcd "
			"3.5, but "
			"etcd.version is 3.4" },
		{ "components: {manager: static-pods}\n"
		  "kubernetes: {etcd_image: 'r.example/etcd:v3.6.1'}\netcd: {version: '3.6'}\n",
			NULL },
		{ "components: {manager: static-pods}\n"
		  "kubernetes: {etcd_image: 'r.example:5000/etcd:latest'}\n",
			NULL },
		{ "components: {manager: static-pods}\n"
		  "kubernetes: {etcd_image: 'r.example:5000/etcd'}\n",
			NULL },
		/* no static pods: the image is not used */
		{ "kubernetes: {etcd_image: 'r.example/etcd:3.5.24-0'}\n", NULL },
	};
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cpha_msgs d = { 0 };
		struct cp_cluster *c;
		char yaml[1024];

		snprintf(yaml, sizeof(yaml), "%s%s", CPHA_TEST_BASE, cases[i].yaml);
		c = cpha_test_load(yaml, &d, NULL);
		assert_non_null(c);
		plan_check_etcd_image(c, &d);
		if (!cases[i].warn) {
			if (d.nwarns)
				fail_msg("case %zu: %s", i, d.warns[0].text);
		} else {
			assert_int_equal(d.nwarns, 1);
			if (!strstr(d.warns[0].text, cases[i].warn))
				fail_msg("case %zu: %s", i, d.warns[0].text);
		}
		cpha_msgs_free(&d);
		cluster_free(c);
	}
}

/* A role tolerates what the roles it needs tolerate; the control plane as
 * a whole what its weakest part does. */
static void test_tolerance(void **state)
{
	struct run r;
	(void)state;

	/* three masters, stacked etcd, Pacemaker, the VIP on the masters */
	plan_of(&r, CPHA_TEST_BASE, false);
	assert_int_equal(r.rc, 0);
	assert_int_equal(role(&r, "kube-apiserver")->tolerates, 1);
	assert_string_equal(role(&r, "kube-apiserver")->tolerance,
		"3 instances, tolerates 1 failure (etcd runs on the masters and they need its "
		"quorum, 2 of 3)");
	assert_int_equal(role(&r, "kube-scheduler")->tolerates, 1);
	assert_int_equal(role(&r, "kube-controller-manager")->tolerates, 1);
	/* vipd holds the VIP only with its corosync cluster's quorum */
	assert_int_equal(role(&r, "VIP")->tolerates, 1);
	assert_true(strstr(role(&r, "VIP")->tolerance,
		"no VIP without the quorum of its corosync cluster, 2 of 3"));
	assert_int_equal(role(&r, "load balancer")->tolerates, 2);
	assert_int_equal(r.p.tolerates, 1);
	assert_string_equal(r.p.tolerance, "tolerates 1 host failure (etcd quorum 2 of 3)");
	done(&r);

	/* external etcd, systemd, keepalived: the apiservers need only one of
	 * them, the control plane still etcd's quorum */
	plan_of(&r,
		CPHA_TEST_BASE "etcd:\n  hosts:\n    - {name: e1, address: 198.18.0.21}\n"
			       "    - {name: e2, address: 198.18.0.22}\n"
			       "    - {name: e3, address: 198.18.0.23}\n"
			       "components: {manager: systemd, vip: keepalived}\n",
		false);
	assert_int_equal(r.rc, 0);
	assert_int_equal(role(&r, "kube-apiserver")->tolerates, 2);
	assert_string_equal(role(&r, "kube-apiserver")->tolerance,
		"3 instances, tolerates 2 failures (while etcd keeps quorum)");
	assert_int_equal(role(&r, "VIP")->tolerates, 2);
	assert_string_equal(r.p.tolerance, "tolerates 1 host failure (etcd quorum 2 of 3)");
	done(&r);

	/* five masters, one etcd member on them: Pacemaker's quorum limits */
	plan_of(&r,
		CPHA_TEST_BASE "  - {name: m4, address: 198.18.0.14}\n"
			       "  - {name: m5, address: 198.18.0.15}\n"
			       "etcd: {hosts: [m1, {name: e2, address: 198.18.0.22}, {name: e3, "
			       "address: 198.18.0.23}]}\n",
		false);
	assert_int_equal(r.rc, 0);
	assert_int_equal(role(&r, "kube-apiserver")->tolerates, 2);
	assert_true(strstr(role(&r, "kube-apiserver")->tolerance,
		"Pacemaker stops them without the masters' quorum, 3 of 5"));
	assert_int_equal(r.p.tolerates, 1);
	done(&r);

	/* five stacked masters and a single LB host: the load balancer is the
	 * weakest part */
	plan_of(&r,
		CPHA_TEST_BASE "  - {name: m4, address: 198.18.0.14}\n"
			       "  - {name: m5, address: 198.18.0.15}\n"
			       "load_balancers: [{name: l1, address: 198.18.0.3}]\n",
		false);
	assert_int_equal(role(&r, "kube-apiserver")->tolerates, 2);
	assert_int_equal(r.p.tolerates, 0);
	assert_string_equal(r.p.tolerance, "tolerates 0 host failures (1 load balancer)");
	done(&r);
}

/* NodeRestriction left out of an admission list that is given. */
static void test_admission(void **state)
{
	struct run r;
	(void)state;

	plan_of(&r, CPHA_TEST_BASE "kubernetes: {admission: [ServiceAccount, LimitRanger]}\n",
		false);
	assert_int_equal(r.rc, 0);
	assert_true(HAS_WARN(&r.d,
		":7:25: warning: kubernetes.admission leaves out NodeRestriction: a node's "
		"credentials can then modify other nodes' objects"));
	done(&r);

	plan_of(&r, CPHA_TEST_BASE "kubernetes: {admission: [ServiceAccount, NodeRestriction]}\n",
		false);
	assert_false(HAS_WARN(&r.d, "NodeRestriction"));
	done(&r);

	/* the default list has it */
	plan_of(&r, CPHA_TEST_BASE, false);
	assert_string_equal(r.c->admission[0], "NodeRestriction");
	assert_false(HAS_WARN(&r.d, "NodeRestriction"));
	done(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_is_clean),
		cmocka_unit_test(test_even_etcd),
		cmocka_unit_test(test_vip_rules),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_warnings),
		cmocka_unit_test(test_common_vrid),
		cmocka_unit_test(test_two_node_delay),
		cmocka_unit_test(test_lbs_unfenced),
		cmocka_unit_test(test_leader_elect),
		cmocka_unit_test(test_version_eol),
		cmocka_unit_test(test_etcd_image),
		cmocka_unit_test(test_tolerance),
		cmocka_unit_test(test_admission),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
