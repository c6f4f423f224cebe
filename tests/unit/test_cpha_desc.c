/* The cluster description: what is read, what defaults apply, and that
 * every error names file:line:column. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdlib.h>

#include "cpha_test.h"

static void dump(const struct cp_diag *d)
{
	for (size_t i = 0; i < d->nerrs; i++)
		print_message("error: %s\n", d->errs[i]);
}

static void test_sample(void **state)
{
	struct cp_diag d = { 0 };
	struct cp_cluster *c = NULL;
	char *path;
	FILE *f;
	(void)state;

	/* the sample as shipped (tests/samples/cluster.yaml) */
	path = CPHA_SOURCE_DIR "/tests/samples/cluster.yaml";
	f = fopen(path, "r");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(cluster_load(path, &c, &d), 0);
	dump(&d);
	assert_int_equal(d.nerrs, 0);
	assert_string_equal(c->name, "kubernetes");
	assert_string_equal(c->api_name, "kubernetes");
	assert_int_equal(c->vip_prefix, 24);
	assert_int_equal(c->api_port, 6443);
	assert_int_equal(c->nmasters, 3);
	assert_int_equal(c->nlbs, 2);
	assert_false(c->lb_on_masters);
	assert_int_equal(c->netcd, 3);
	assert_string_equal(c->hosts[c->etcd[2]].name, "kubem02");
	assert_string_equal(c->etcd_token, "etcd-cluster-token");
	assert_int_equal(c->lb, CP_LB_LBD);
	assert_int_equal(c->vipd, CP_VIP_VIPD);
	assert_int_equal(c->manager, CP_MGR_PACEMAKER);
	assert_int_equal(c->ndevices, 5);
	assert_string_equal(c->devices[4].host, "lb01");
	assert_int_equal(c->devices[0].nparams, 4);
	assert_string_equal(c->devices[0].params[2].key, "password_file");
	assert_string_equal(c->admission[4], "DefaultStorageClass");
	assert_null(c->admission[5]);
	assert_true(c->vrid_derived);
	assert_int_equal(c->vrid, cluster_derive_vrid("kubernetes"));
	/* corosync node ids: masters 1..3, the LB tier 1..2 */
	assert_int_equal(cluster_host(c, "kubem02")->node_id, 3);
	assert_int_equal(cluster_host(c, "lb01")->node_id, 2);
	assert_int_equal(cluster_host(c, "lb00")->priority, 150);
	assert_int_equal(cluster_host(c, "lb01")->priority, 140);
	char ip[64];
	assert_int_equal(cluster_first_service_ip(c, ip, sizeof(ip)), 0);
	assert_string_equal(ip, "10.32.0.1");
	cluster_free(c);
	cp_diag_free(&d);
}

static void test_defaults(void **state)
{
	struct cp_diag d = { 0 };
	struct cp_cluster *c = cpha_test_load(CPHA_TEST_BASE, &d, NULL);
	(void)state;

	dump(&d);
	assert_non_null(c);
	assert_true(c->lb_on_masters);
	assert_int_equal(cluster_lb_count(c), 3);
	assert_string_equal(cluster_lb_host(c, 1)->name, "m2");
	assert_int_equal(c->netcd, 3);
	assert_string_equal(c->etcd_token, "lab-etcd");
	assert_string_equal(c->domain, "cluster.local");
	assert_string_equal(c->interface, "eth0");
	assert_int_equal(c->manager, CP_MGR_PACEMAKER);
	assert_true(c->leader_elect);
	assert_string_equal(c->authorization[0], "Node");
	assert_int_equal(c->ca_days, 3650);
	cluster_free(c);
	cp_diag_free(&d);
}

/* Each bad input, and the place and words its error must carry. */
static void test_errors(void **state)
{
	static const struct {
		const char *yaml;
		const char *where, *what;
	} cases[] = {
		{ CPHA_TEST_BASE "colour: blue\n", ":7:1:", "unknown key 'colour'" },
		{ CPHA_TEST_BASE "etcd: {hosts: masters, tokn: x}\n",
			":7:24:", "unknown key 'tokn'" },
		{ "cluster: {name: lab}\napi: {name: k, vip: 198.18.0.2}\nmasters: [{name: m1, "
		  "address: 198.18.0.11}]\n",
			":2:21:", "give the prefix length" },
		{ "cluster: {name: lab}\napi: {name: k, vip: 198.18.0.300/24}\nmasters: [{name: "
		  "m1, address: 198.18.0.11}]\n",
			":2:21:", "vip: '198.18.0.300/24'" },
		{ CPHA_TEST_BASE "  - {name: m4, address: 198.18.0.999}\n",
			":7:25:", "is not an IPv4 or IPv6 address" },
		{ CPHA_TEST_BASE "  - {name: m4}\n", ":7:5:", "host m4 needs an address" },
		{ CPHA_TEST_BASE "etcd: {hosts: [m1, m9]}\n", ":7:20:", "'m9' is not a master" },
		{ CPHA_TEST_BASE "etcd: {hosts: [m1, m1]}\n", ":7:20:", "'m1' is listed twice" },
		{ CPHA_TEST_BASE "components: {manager: kubelet}\n",
			":7:23:", "'kubelet' is not one of pacemaker, systemd, static-pods" },
		{ CPHA_TEST_BASE "components: {vip: ucarp}\n", ":7:19:", "is not one of vipd" },
		{ CPHA_TEST_BASE "api: {name: x}\n", ":7:1:", "'api' given twice" },
		{ CPHA_TEST_BASE "kubernetes: {leader_elect: maybe}\n",
			":7:28:", "'maybe' is not true or false" },
		{ CPHA_TEST_BASE "kubernetes: {version: '2.0'}\n", ":7:23:", "version: '2.0'" },
		{ CPHA_TEST_BASE "kubernetes: {service_cidr: 10.32.0.0}\n",
			":7:28:", "is not a network address/prefix-length" },
		{ CPHA_TEST_BASE "kubernetes: {admission: NodeRestriction}\n",
			":7:25:", "expected a list" },
		{ "cluster: {name: lab}\napi: {name: k, vip: 198.18.0.2/24, vrid: 256}\n",
			":2:42:", "from 1 to 255" },
		{ CPHA_TEST_BASE
			"fencing:\n  devices:\n    - {name: f1, agent: fence_ipmilan, host: "
			"m1, params: {password: secret}}\n",
			":9:59:", "give password_file: PATH" },
		{ CPHA_TEST_BASE
			"fencing:\n  devices:\n    - {name: f1, agent: fence_ipmilan, host: "
			"m7}\n",
			":9:46:", "fences 'm7', which is no host" },
		{ CPHA_TEST_BASE "fencing:\n  devices:\n    - {name: f1, agent: ipmitool, host: "
				 "m1}\n",
			":9:25:", "is not a fence agent name" },
		{ CPHA_TEST_BASE "masters: [}\n", ":7:11:", "YAML:" },
		{ "cluster: {name: Lab_1}\n", ":1:17:", "lower-case letters" },
		{ "api: {name: k, vip: 198.18.0.2/24}\n", ":1:1:", "cluster.name is required" },
		{ "cluster: {name: lab}\nmasters: 3\n", ":2:10:", "expected a list of hosts" },
	};
	size_t failed = 0;
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cp_diag d = { 0 };
		struct cp_cluster *c = cpha_test_load(cases[i].yaml, &d, NULL);

		if (c || !HAS_ERR(&d, cases[i].where, cases[i].what)) {
			print_message(
				"case %zu: want '%s' '%s'\n", i, cases[i].where, cases[i].what);
			dump(&d);
		}
		if (c || !HAS_ERR(&d, cases[i].where, cases[i].what))
			failed++;
		cluster_free(c);
		cp_diag_free(&d);
	}
	assert_int_equal(failed, 0);
}

static void test_lbs_left_out(void **state)
{
	const char *const forms[] = { "", "load_balancers:\n", "load_balancers: []\n",
		"load_balancers: ~\n" };
	(void)state;

	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		char yaml[1024];
		struct cp_diag d = { 0 };
		struct cp_cluster *c;

		snprintf(yaml, sizeof(yaml), "%s%s", CPHA_TEST_BASE, forms[i]);
		c = cpha_test_load(yaml, &d, NULL);
		dump(&d);
		assert_non_null(c);
		assert_true(c->lb_on_masters);
		assert_int_equal(cluster_lb_count(c), 3);
		cluster_free(c);
		cp_diag_free(&d);
	}
}

static void test_external_etcd(void **state)
{
	struct cp_diag d = { 0 };
	struct cp_cluster *c =
		cpha_test_load(CPHA_TEST_BASE "etcd:\n  hosts:\n    - m1\n"
					      "    - {name: e1, address: 198.18.0.21}\n"
					      "    - {name: e2, address: 198.18.0.22}\n",
			&d, NULL);
	(void)state;

	dump(&d);
	assert_non_null(c);
	assert_int_equal(c->netcd, 3);
	assert_string_equal(c->hosts[c->etcd[0]].name, "m1");
	assert_string_equal(c->hosts[c->etcd[1]].name, "e1");
	assert_int_equal(cluster_host(c, "e2")->roles, CP_ROLE_ETCD);
	assert_int_equal(cluster_host(c, "m2")->roles, CP_ROLE_MASTER | CP_ROLE_LB * 0);
	cluster_free(c);
	cp_diag_free(&d);
}

static void test_vrid_derived(void **state)
{
	(void)state;
	/* stable, in range, and different for typical names */
	assert_int_equal(cluster_derive_vrid("kubernetes"), cluster_derive_vrid("kubernetes"));
	for (const char *const *n =
			(const char *const[]){ "a", "prod", "staging", "kubernetes", NULL };
		*n; n++) {
		unsigned v = cluster_derive_vrid(*n);
		assert_true(v >= 1 && v <= 255);
	}
	assert_int_not_equal(cluster_derive_vrid("prod"), cluster_derive_vrid("staging"));
}

/* monitoring: loopback by default; host, an address, tls and basic_auth
 * read; each bad value an error at its place. */
static void test_monitoring(void **state)
{
	static const char hash[] = "$2y$10$mDwo.lAisC94iLAyP81MCesa29IzH37oigHC/42V2pdJlUprsJPze";
	static const struct {
		const char *yaml;
		const char *where, *what;
	} bad[] = {
		{ CPHA_TEST_BASE "monitoring: {listen: everywhere}\n",
			":7:22:", "listen: 'everywhere': loopback, host" },
		{ CPHA_TEST_BASE "monitoring: {basic_auth: {user: p, password_hash: secret}}\n",
			":7:51:", "password_hash: not a bcrypt hash" },
		{ CPHA_TEST_BASE "monitoring: {basic_auth: {user: p}}\n",
			":7:26:", "give user and password_hash" },
		{ CPHA_TEST_BASE "monitoring: {tls: {cert_file: m.pem, key_file: /k}}\n",
			":7:31:", "cert_file: 'm.pem': give an absolute path" },
		{ CPHA_TEST_BASE "monitoring: {tls: {cert_file: /m.pem}}\n",
			":7:19:", "give both cert_file and key_file" },
		{ CPHA_TEST_BASE "monitoring: {port: 1}\n", ":7:14:", "unknown key 'port'" },
	};
	struct cp_diag d = { 0 };
	struct cp_cluster *c = cpha_test_load(CPHA_TEST_BASE, &d, NULL);
	char yaml[1024];
	size_t failed = 0;

	(void)state;
	assert_non_null(c);
	assert_int_equal(c->mon.listen, CP_MON_LOOPBACK);
	assert_null(c->mon.user);
	assert_null(c->mon.cert_file);
	cluster_free(c);
	snprintf(yaml, sizeof(yaml),
		CPHA_TEST_BASE "monitoring:\n  listen: host\n  tls: true\n  basic_auth: {user: "
			       "prom, password_hash: '%s', password_file: /etc/cpha/m}\n",
		hash);
	c = cpha_test_load(yaml, &d, NULL);
	dump(&d);
	assert_non_null(c);
	assert_int_equal(c->mon.listen, CP_MON_HOST);
	assert_string_equal(c->mon.cert_file, "/etc/cpha/metrics.pem");
	assert_string_equal(c->mon.key_file, "/etc/cpha/metrics-key.pem");
	assert_string_equal(c->mon.user, "prom");
	assert_string_equal(c->mon.password_hash, hash);
	assert_string_equal(c->mon.password_file, "/etc/cpha/m");
	cluster_free(c);
	c = cpha_test_load(CPHA_TEST_BASE "monitoring: {listen: 0.0.0.0, tls: false}\n", &d, NULL);
	assert_non_null(c);
	assert_int_equal(c->mon.listen, CP_MON_ADDRESS);
	assert_null(c->mon.cert_file);
	cluster_free(c);
	cp_diag_free(&d);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cp_diag e = { 0 };

		c = cpha_test_load(bad[i].yaml, &e, NULL);
		if (c || !HAS_ERR(&e, bad[i].where, bad[i].what)) {
			print_message("case %zu: want '%s' '%s'\n", i, bad[i].where, bad[i].what);
			dump(&e);
			failed++;
		}
		cluster_free(c);
		cp_diag_free(&e);
	}
	assert_int_equal(failed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_lbs_left_out),
		cmocka_unit_test(test_external_etcd),
		cmocka_unit_test(test_vrid_derived),
		cmocka_unit_test(test_monitoring),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
