/* The cluster description: what is read, what defaults apply, and that
 * every error names file:line:column. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "cpha_test.h"
#include "flags.h"

static void dump(const struct cpha_msgs *d)
{
	for (size_t i = 0; i < d->nerrs; i++)
		print_message("error: %s\n", d->errs[i].text);
}

static void test_sample(void **state)
{
	struct cpha_msgs d = { 0 };
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
	cpha_msgs_free(&d);
}

static void test_defaults(void **state)
{
	struct cpha_msgs d = { 0 };
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
	/* the table's default, supported upstream past 2026-11-28; etcd 3.4
	 * (Debian 12's) and its image */
	assert_int_equal(c->k8s_minor, flags_k8s_default_minor());
	assert_int_equal(c->k8s_minor, 36);
	assert_string_equal(c->k8s_version, "1.36");
	assert_false(c->k8s_patch_set);
	assert_int_equal(c->etcd_minor, 4);
	assert_string_equal(c->etcd_image, "registry.k8s.io/etcd:3.4.13-0");
	/* no snapshot timer, and cpha etcd snapshot's defaults */
	assert_false(c->snap.on);
	assert_int_equal(c->snap.keep, 8);
	assert_string_equal(c->snap.dir, "/var/lib/etcd-snapshots");
	assert_int_equal(c->snap.every_usec, 30 * 60 * 1000000ull);
	cluster_free(c);
	cpha_msgs_free(&d);
}

/* etcd.snapshot: given, empty, and with every key. */
static void test_etcd_snapshot(void **state)
{
	struct cpha_msgs d = { 0 };
	struct cp_cluster *c;
	(void)state;

	c = cpha_test_load(CPHA_TEST_BASE "etcd: {snapshot: {}}\n", &d, NULL);
	dump(&d);
	assert_non_null(c);
	assert_true(c->snap.on);
	assert_int_equal(c->snap.keep, 8);
	assert_int_equal(c->snap.every_usec, 30 * 60 * 1000000ull);
	cluster_free(c);
	cpha_msgs_free(&d);
	c = cpha_test_load(CPHA_TEST_BASE
		"etcd:\n  snapshot: {every: 1h, keep: 24, dir: /srv/etcd-snapshots}\n",
		&d, NULL);
	dump(&d);
	assert_non_null(c);
	assert_true(c->snap.on);
	assert_int_equal(c->snap.keep, 24);
	assert_int_equal(c->snap.every_usec, 3600 * 1000000ull);
	assert_string_equal(c->snap.dir, "/srv/etcd-snapshots");
	cluster_free(c);
	cpha_msgs_free(&d);
}

/* kubernetes.version in each form, and etcd.version with its image. */
static void test_versions(void **state)
{
	static const struct {
		const char *yaml;
		unsigned minor, patch;
		bool has_patch;
		const char *release;
	} ok[] = {
		{ "kubernetes: {version: '1.34'}\n", 34, 0, false, "v1.34.6" },
		{ "kubernetes: {version: 1.35.2}\n", 35, 2, true, "v1.35.2" },
		{ "kubernetes: {version: v1.37.1}\n", 37, 1, true, "v1.37.1" },
		{ "kubernetes: {version: v1.33.0}\n", 33, 0, true, "v1.33.0" },
	};
	static const struct {
		const char *yaml;
		unsigned minor;
		const char *image;
	} etcd[] = {
		{ "etcd: {version: '3.4'}\n", 4, "registry.k8s.io/etcd:3.4.13-0" },
		{ "etcd: {version: 3.4.23}\n", 4, "registry.k8s.io/etcd:3.4.13-0" },
		{ "etcd: {version: '3.5'}\n", 5, "registry.k8s.io/etcd:3.5.24-0" },
		{ "etcd: {version: v3.6.6}\n", 6, "registry.k8s.io/etcd:3.6.6-0" },
		{ "etcd: {version: '3.6'}\nkubernetes: {etcd_image: r.example/etcd:3.6.1-0}\n", 6,
			"r.example/etcd:3.6.1-0" },
	};
	(void)state;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		char yaml[1024], rel[32];
		struct cpha_msgs d = { 0 };
		struct cp_cluster *c;

		snprintf(yaml, sizeof(yaml), "%s%s", CPHA_TEST_BASE, ok[i].yaml);
		c = cpha_test_load(yaml, &d, NULL);
		dump(&d);
		assert_non_null(c);
		assert_int_equal(c->k8s_minor, ok[i].minor);
		assert_int_equal(c->k8s_patch_set, ok[i].has_patch);
		if (ok[i].has_patch)
			assert_int_equal(c->k8s_patch, ok[i].patch);
		assert_string_equal(flags_k8s_release(c, rel, sizeof(rel)), ok[i].release);
		assert_int_equal(c->k8s_version_pos.line, 7);
		cluster_free(c);
		cpha_msgs_free(&d);
	}
	for (size_t i = 0; i < sizeof(etcd) / sizeof(etcd[0]); i++) {
		char yaml[1024];
		struct cpha_msgs d = { 0 };
		struct cp_cluster *c;

		snprintf(yaml, sizeof(yaml), "%s%s", CPHA_TEST_BASE, etcd[i].yaml);
		c = cpha_test_load(yaml, &d, NULL);
		dump(&d);
		assert_non_null(c);
		assert_int_equal(c->etcd_minor, etcd[i].minor);
		assert_string_equal(c->etcd_image, etcd[i].image);
		cluster_free(c);
		cpha_msgs_free(&d);
	}
}

/* The parser alone: every form it takes and some it refuses. */
static void test_k8s_parse(void **state)
{
	unsigned mi, pa;
	bool hp;
	(void)state;

	assert_int_equal(flags_k8s_parse("1.36", &mi, &pa, &hp), 0);
	assert_true(mi == 36 && pa == 0 && !hp);
	assert_int_equal(flags_k8s_parse("v1.34.12", &mi, &pa, &hp), 0);
	assert_true(mi == 34 && pa == 12 && hp);
	assert_int_equal(flags_k8s_parse("1.35.0", &mi, &pa, &hp), 0);
	assert_true(mi == 35 && pa == 0 && hp);
	static const char *const bad[] = { "", "1", "1.", "v1.36", "2.36", "1.36.", "1.36.1.2",
		"1.36-rc.0", " 1.36", "1.36 ", "01.36", "1.+36", "V1.36.1", "1.99999999" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (flags_k8s_parse(bad[i], &mi, &pa, &hp) != -EINVAL)
			fail_msg("'%s' was taken", bad[i]);
}

/* Each bad input, and the place and words its error must carry. */
#define LU_LBS                                                                                     \
	"load_balancers:\n  - {name: l1, address: 198.18.0.3}\n"                                   \
	"  - {name: l2, address: 198.18.0.4}\n"

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
		{ CPHA_TEST_BASE "kubernetes: {version: '1.31'}\n", ":7:23:",
			"does not know the flags of Kubernetes 1.31; it knows 1.33, 1.34, 1.35, "
			"1.36, 1.37" },
		{ CPHA_TEST_BASE "kubernetes: {version: v1.36}\n", ":7:23:", "give 1.Y, 1.Y.Z" },
		{ CPHA_TEST_BASE "kubernetes: {version: 1.36.x}\n", ":7:23:", "'1.36.x'" },
		{ CPHA_TEST_BASE "kubernetes: {version: 1.036}\n", ":7:23:", "'1.036'" },
		{ CPHA_TEST_BASE "etcd: {version: '3.3'}\n", ":7:17:", "3.4, 3.5 or 3.6" },
		{ CPHA_TEST_BASE "etcd: {version: '3.7'}\n", ":7:17:", "version: '3.7'" },
		{ CPHA_TEST_BASE "etcd: {version: 3.5.x}\n", ":7:17:", "version: '3.5.x'" },
		{ CPHA_TEST_BASE "etcd: {version: 3.+5}\n", ":7:17:", "version: '3.+5'" },
		{ CPHA_TEST_BASE "etcd: {snapshot: {every: 30s}}\n",
			":7:26:", "every: give whole seconds, at least 1m" },
		{ CPHA_TEST_BASE "etcd: {snapshot: {every: 90.5s}}\n", ":7:26:", "every: " },
		{ CPHA_TEST_BASE "etcd: {snapshot: {keep: 0}}\n",
			":7:25:", "keep: '0' is not a whole number from 1 to 100000" },
		{ CPHA_TEST_BASE "etcd: {snapshot: {dir: snaps}}\n",
			":7:24:", "dir: 'snaps': give an absolute path" },
		{ CPHA_TEST_BASE "etcd: {snapshot: {dir: '/var/lib/$x'}}\n",
			":7:24:", "give an absolute path without spaces" },
		{ CPHA_TEST_BASE "etcd: {snapshot: {dir: /var/lib/etcd/snap}}\n", ":7:24:",
			"etcd.snapshot.dir: '/var/lib/etcd/snap' overlaps etcd.data_dir "
			"'/var/lib/etcd'" },
		{ CPHA_TEST_BASE "etcd: {data_dir: /srv/e/data, snapshot: {dir: /srv/e}}\n",
			":7:47:", "overlaps etcd.data_dir" },
		{ CPHA_TEST_BASE "etcd: {snapshot: {keep: 3, evry: 1h}}\n",
			":7:28:", "etcd.snapshot: unknown key 'evry'" },
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
		/* networks as ip route takes them: no host bits */
		{ CPHA_TEST_BASE "kubernetes: {service_cidr: 10.32.0.1/16}\n",
			":7:28:", "10.32.0.1/16 has host bits set; did you mean 10.32.0.0/16?" },
		{ CPHA_TEST_BASE "kubernetes: {cluster_cidr: '2001:db8:1::1/64'}\n",
			":7:28:", "host bits set; did you mean 2001:db8:1::/64?" },
		/* kube-apiserver's limit: 20 host bits */
		{ CPHA_TEST_BASE "kubernetes: {service_cidr: 10.0.0.0/11}\n", ":7:28:",
			"10.0.0.0/11 is too large: kube-apiserver refuses a service range "
			"with more than 20 host bits; give a prefix of /12 or longer" },
		{ CPHA_TEST_BASE "kubernetes: {service_cidr: 'fd00:10:96::/107'}\n",
			":7:28:", "host bits; give a prefix of /108 or longer" },
		/* pods, services and hosts each on networks of their own */
		{ CPHA_TEST_BASE
			"kubernetes: {service_cidr: 10.32.0.0/16, cluster_cidr: 10.32.0.0/16}\n",
			":7:56:",
			"cluster_cidr: 10.32.0.0/16 is the same network as service_cidr "
			"10.32.0.0/16 (line 7)" },
		{ CPHA_TEST_BASE
			"kubernetes: {service_cidr: 10.32.0.0/16, cluster_cidr: 10.0.0.0/8}\n",
			":7:56:", "cluster_cidr: 10.0.0.0/8 overlaps service_cidr 10.32.0.0/16" },
		{ CPHA_TEST_BASE "kubernetes: {cluster_cidr: 10.96.0.0/16}\n",
			":7:28:", "10.96.0.0/16 overlaps the default service_cidr 10.96.0.0/12" },
		{ CPHA_TEST_BASE "kubernetes: {service_cidr: 198.18.0.0/20}\n", ":7:28:",
			"service_cidr: 198.18.0.0/20 overlaps the hosts' network "
			"198.18.0.0/24 (api.vip 198.18.0.2/24, line 2)" },
		{ "cluster: {name: lab}\napi: {name: k, vip: 10.244.1.2/24}\nmasters: [{name: m1, "
		  "address: 10.244.1.11}]\n",
			":2:21:",
			"the hosts' network 10.244.1.0/24 overlaps the default cluster_cidr "
			"10.244.0.0/16" },
		{ CPHA_TEST_BASE "etcd: {hosts: [m1, m2, {name: e3, address: 10.96.0.5}]}\n",
			":7:44:", "address 10.96.0.5 of host e3 is in the default service_cidr" },
		{ CPHA_TEST_BASE "etcd: {hosts: [m1, m2, {name: e3, address: 10.40.0.5}]}\n"
				 "kubernetes: {cluster_cidr: 10.40.0.0/16}\n",
			":8:28:",
			"cluster_cidr: 10.40.0.0/16 holds the address 10.40.0.5 of host e3 "
			"(line 7)" },
		/* interface names as the kernel takes them */
		{ "cluster: {name: lab}\napi: {name: k, vip: 198.18.0.2/24, interface: ' '}\n",
			":2:47:",
			"interface: ' ' is not an interface name: Linux refuses '/', ':' "
			"and white space" },
		{ "cluster: {name: lab}\napi: {name: k, vip: 198.18.0.2/24, interface: ''}\n",
			":2:47:", "cannot be empty" },
		{ "cluster: {name: lab}\napi: {name: k, vip: 198.18.0.2/24, interface: eth0:1}\n",
			":2:47:", "'eth0:1' is not an interface name" },
		{ "cluster: {name: lab}\napi: {name: k, vip: 198.18.0.2/24, interface: "
		  "bond0.1234567890}\n",
			":2:47:", "at most 15 bytes" },
		/* VRRP priorities: no tie for the address to break */
		{ CPHA_TEST_BASE
			"load_balancers:\n  - {name: l1, address: 198.18.0.3, priority: 100}\n"
			"  - {name: l2, address: 198.18.0.4, priority: 100}\n",
			":9:47:",
			"VRRP priority 100 of l2 is also the priority of l1 (line 8): "
			"keepalived and vipd would pick the VIP holder by the higher address" },
		{ CPHA_TEST_BASE "load_balancers:\n  - {name: l1, address: 198.18.0.3}\n"
				 "  - {name: l2, address: 198.18.0.4, priority: 150}\n",
			":9:47:",
			"VRRP priority 150 of l2 is also the priority of l1 (line 8) (a "
			"priority left out is 150, 140" },
		/* fencing.load_balancers: none, and what needs the LB hosts' cluster */
		{ CPHA_TEST_BASE "fencing: {load_balancers: sometimes}\n", ":7:27:",
			"fencing.load_balancers: 'sometimes' is neither fenced nor none" },
		{ CPHA_TEST_BASE "fencing: {load_balancers: none}\n", ":7:27:",
			"there are no load_balancers: the VIP daemon runs on the masters" },
		{ CPHA_TEST_BASE LU_LBS "components: {vip: pacemaker}\n"
					"fencing: {load_balancers: none}\n",
			":11:27:",
			"vip: pacemaker runs the VIP in the load-balancer hosts' Pacemaker" },
		{ CPHA_TEST_BASE LU_LBS "qdevice: {address: 198.18.0.9}\n"
					"fencing: {load_balancers: none}\n",
			":11:27:", "qdevice: serves the load-balancer hosts' corosync cluster" },
		{ CPHA_TEST_BASE LU_LBS "fencing:\n  load_balancers: none\n  devices:\n"
					"    - {name: ipmi-l2, agent: fence_ipmilan, host: l2}\n",
			":13:51:",
			"device ipmi-l2 fences load-balancer host l2, and "
			"fencing.load_balancers is none (line 11)" },
	};
	size_t failed = 0;
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cpha_msgs d = { 0 };
		struct cp_cluster *c = cpha_test_load(cases[i].yaml, &d, NULL);

		bool found = HAS_ERR(&d, cases[i].where, cases[i].what);

		if (c || !found) {
			print_message(
				"case %zu: want '%s' '%s'\n", i, cases[i].where, cases[i].what);
			dump(&d);
			failed++;
		}
		cluster_free(c);
		cpha_msgs_free(&d);
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
		struct cpha_msgs d = { 0 };
		struct cp_cluster *c;

		snprintf(yaml, sizeof(yaml), "%s%s", CPHA_TEST_BASE, forms[i]);
		c = cpha_test_load(yaml, &d, NULL);
		dump(&d);
		assert_non_null(c);
		assert_true(c->lb_on_masters);
		assert_int_equal(cluster_lb_count(c), 3);
		cluster_free(c);
		cpha_msgs_free(&d);
	}
}

static void test_external_etcd(void **state)
{
	struct cpha_msgs d = { 0 };
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
	cpha_msgs_free(&d);
}

/* Priorities are VRRP's: with Pacemaker placing the VIP (IPaddr2) they
 * mean nothing, and equal ones are no error. */
static void test_priority_without_vrrp(void **state)
{
	struct cpha_msgs d = { 0 };
	struct cp_cluster *c = cpha_test_load(
		"cluster: {name: lab}\napi: {name: k, vip: 198.18.0.2/24}\nmasters:\n"
		"  - {name: m1, address: 198.18.0.11, priority: 100}\n"
		"  - {name: m2, address: 198.18.0.12, priority: 100}\n"
		"  - {name: m3, address: 198.18.0.13}\ncomponents: {vip: pacemaker}\n",
		&d, NULL);
	(void)state;

	dump(&d);
	assert_non_null(c);
	cluster_free(c);
	cpha_msgs_free(&d);
	/* the same with vipd is refused */
	c = cpha_test_load("cluster: {name: lab}\napi: {name: k, vip: 198.18.0.2/24}\nmasters:\n"
			   "  - {name: m1, address: 198.18.0.11, priority: 100}\n"
			   "  - {name: m2, address: 198.18.0.12, priority: 100}\n"
			   "  - {name: m3, address: 198.18.0.13}\n",
		&d, NULL);
	assert_null(c);
	assert_true(HAS_ERR(&d, ":5:48:", "VRRP priority 100 of m2 is also the priority of m1"));
	cpha_msgs_free(&d);
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

/* The "kubernetes" service IP is the network address plus one, whatever
 * host bits the text carries (it was 10.32.0.2 for 10.32.0.1/16). */
static void test_first_service_ip(void **state)
{
	static const char *const cases[][2] = {
		{ "10.32.0.0/16", "10.32.0.1" },
		{ "10.32.0.1/16", "10.32.0.1" },
		{ "10.32.7.9/16", "10.32.0.1" },
		{ "10.96.0.0/12", "10.96.0.1" },
		{ "10.111.255.255/12", "10.96.0.1" },
		{ "198.18.128.0/24", "198.18.128.1" },
		{ "fd00:10:96::/112", "fd00:10:96::1" },
		{ "fd00:10:96::ffff/112", "fd00:10:96::1" },
	};
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cp_cluster c = { .service_cidr = (char *)cases[i][0] };
		char ip[64];

		assert_int_equal(cluster_first_service_ip(&c, ip, sizeof(ip)), 0);
		assert_string_equal(ip, cases[i][1]);
	}
	struct cp_cluster bad = { .service_cidr = (char *)"10.32.0.0" };
	char ip[64];
	assert_int_equal(cluster_first_service_ip(&bad, ip, sizeof(ip)), -EINVAL);
}

static void test_net(void **state)
{
	struct cp_net a, b;
	const char *why;
	char buf[64];
	(void)state;

	assert_int_equal(cp_net_parse("10.32.0.1/16", &a, &why), 0);
	assert_int_equal(cp_net_host_bits(&a), 16);
	assert_true(cp_net_mask(&a));
	assert_string_equal(cp_net_format(&a, true, buf, sizeof(buf)), "10.32.0.0/16");
	assert_false(cp_net_mask(&a));
	assert_int_equal(cp_net_parse("10.40.0.0/12", &b, &why), 0);
	assert_true(cp_net_mask(&b)); /* 40 = 0x28: the /12 is 10.32.0.0 */
	assert_string_equal(cp_net_format(&b, true, buf, sizeof(buf)), "10.32.0.0/12");
	assert_int_equal(cp_net_parse("10.40.0.0/13", &b, &why), 0);
	assert_false(cp_net_mask(&b));
	assert_false(cp_net_overlap(&a, &b));
	assert_int_equal(cp_net_parse("10.0.0.0/8", &b, &why), 0);
	assert_true(cp_net_overlap(&a, &b));
	assert_true(cp_net_overlap(&b, &a));
	assert_int_equal(cp_net_parse("10.33.0.0/16", &b, &why), 0);
	assert_false(cp_net_overlap(&a, &b));
	assert_int_equal(cp_net_parse("10.32.255.255", &b, &why), 0);
	assert_int_equal(b.prefix, 32);
	assert_true(cp_net_overlap(&a, &b));
	assert_int_equal(cp_net_parse("2001:db8::/32", &b, &why), 0);
	assert_false(cp_net_overlap(&a, &b)); /* families never overlap */
	assert_int_equal(cp_net_parse("2001:db8:0:1::5/64", &a, &why), 0);
	assert_true(cp_net_overlap(&a, &b));
	assert_true(cp_net_mask(&a));
	assert_string_equal(cp_net_format(&a, true, buf, sizeof(buf)), "2001:db8:0:1::/64");
	assert_int_equal(cp_net_parse("0.0.0.0/0", &a, &why), 0);
	assert_false(cp_net_mask(&a));
	assert_int_equal(cp_net_parse("10.1.2.3/0", &a, &why), 0);
	assert_true(cp_net_mask(&a));
	assert_string_equal(cp_net_format(&a, true, buf, sizeof(buf)), "0.0.0.0/0");
}

/* Messages read like gcc's: "file:line:col: text" for an error,
 * "file:line:col: warning: text" for a warning. */
static void test_diag_form(void **state)
{
	struct cpha_msgs d = { 0 };
	(void)state;

	cpha_msgs_err(&d, "c.yaml", (struct cpha_pos){ 3, 7 }, "bad %s", "value");
	cpha_msgs_warn(&d, "c.yaml", (struct cpha_pos){ 4, 1 }, "odd %d", 1);
	cpha_msgs_warn(&d, "c.yaml", (struct cpha_pos){ 0, 0 }, "a default is odd");
	assert_int_equal(d.nerrs, 1);
	assert_int_equal(d.nwarns, 2);
	assert_string_equal(d.errs[0].text, "c.yaml:3:7: bad value");
	assert_string_equal(d.warns[0].text, "c.yaml:4:1: warning: odd 1");
	assert_string_equal(d.warns[1].text, "c.yaml: warning: a default is odd");
	cpha_msgs_free(&d);
}

/* The kernel's dev_valid_name() rules. */
static void test_ifname(void **state)
{
	static const char *const good[] = { "eth0", "bond0.100", "enp0s31f6", "...", "br-lan_1",
		"abcdefghijklmno" };
	static const char *const bad[] = { "", ".", "..", "abcdefghijklmnop", "eth0:1", "a/b", " ",
		"eth 0", "eth0\t", "eth0\n" };
	const char *why;
	(void)state;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_true(cluster_ifname_valid(good[i], &why));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why = NULL;
		if (cluster_ifname_valid(bad[i], &why))
			fail_msg("'%s' accepted", bad[i]);
		assert_non_null(why);
	}
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
	struct cpha_msgs d = { 0 };
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
	cpha_msgs_free(&d);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cpha_msgs e = { 0 };

		c = cpha_test_load(bad[i].yaml, &e, NULL);
		if (c || !HAS_ERR(&e, bad[i].where, bad[i].what)) {
			print_message("case %zu: want '%s' '%s'\n", i, bad[i].where, bad[i].what);
			dump(&e);
			failed++;
		}
		cluster_free(c);
		cpha_msgs_free(&e);
	}
	assert_int_equal(failed, 0);
}

/* monitoring.prometheus: defaults, each key read, each bad value an
 * error at its place, and refused with the daemons on loopback. */
static void test_prometheus(void **state)
{
	static const struct {
		const char *yaml;
		const char *where, *what;
	} bad[] = {
		{ CPHA_TEST_BASE "monitoring: {prometheus: {}}\n",
			":7:26:", "the daemons listen on loopback only" },
		{ CPHA_TEST_BASE
			"monitoring: {listen: host, prometheus: {scrape_interval: 500ms}}\n",
			":7:58:", "scrape_interval: give whole seconds" },
		{ CPHA_TEST_BASE "monitoring: {listen: host, prometheus: {alertmanagers: [am]}}\n",
			":7:56:", "alertmanagers: 'am': give HOST:PORT" },
		{ CPHA_TEST_BASE "monitoring: {listen: host, prometheus: {alertmanagers: "
				 "['[2001:db8::7]:0']}}\n",
			":7:56:", "give HOST:PORT" },
		{ CPHA_TEST_BASE "monitoring: {listen: host, prometheus: {credentials_dir: p}}\n",
			":7:58:", "credentials_dir: 'p': give an absolute path" },
		{ CPHA_TEST_BASE "monitoring: {listen: host, prometheus: {retention: 1d}}\n",
			":7:41:", "unknown key 'retention'" },
	};
	struct cpha_msgs d = { 0 };
	struct cp_cluster *c;
	size_t failed = 0;

	(void)state;
	c = cpha_test_load(CPHA_TEST_BASE "monitoring: {listen: host}\n", &d, NULL);
	assert_non_null(c);
	assert_false(c->mon.prom.on);
	cluster_free(c);
	c = cpha_test_load(CPHA_TEST_BASE "monitoring: {listen: host, prometheus: }\n", &d, NULL);
	dump(&d);
	assert_non_null(c);
	assert_true(c->mon.prom.on);
	assert_int_equal(c->mon.prom.scrape_usec, 15000000);
	assert_int_equal(c->mon.prom.eval_usec, 15000000);
	assert_null(c->mon.prom.alertmanagers);
	assert_string_equal(c->mon.prom.dir, "/etc/prometheus/cpha");
	assert_string_equal(c->mon.prom.textfile_dir, "/var/lib/prometheus/node-exporter");
	cluster_free(c);
	c = cpha_test_load(CPHA_TEST_BASE
		"monitoring:\n  listen: 0.0.0.0\n  prometheus:\n    scrape_interval: 5s\n"
		"    alertmanagers: [am.example:9093, '198.51.100.7:9093', '[2001:db8::7]:9093']\n"
		"    credentials_dir: /srv/prom\n    textfile_dir: /srv/text\n",
		&d, NULL);
	dump(&d);
	assert_non_null(c);
	assert_int_equal(c->mon.prom.scrape_usec, 5000000);
	assert_int_equal(c->mon.prom.eval_usec, 5000000);
	assert_string_equal(c->mon.prom.alertmanagers[0], "am.example:9093");
	assert_string_equal(c->mon.prom.alertmanagers[2], "[2001:db8::7]:9093");
	assert_null(c->mon.prom.alertmanagers[3]);
	assert_string_equal(c->mon.prom.dir, "/srv/prom");
	assert_string_equal(c->mon.prom.textfile_dir, "/srv/text");
	cluster_free(c);
	cpha_msgs_free(&d);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cpha_msgs e = { 0 };

		c = cpha_test_load(bad[i].yaml, &e, NULL);
		if (c || !HAS_ERR(&e, bad[i].where, bad[i].what)) {
			print_message("case %zu: want '%s' '%s'\n", i, bad[i].where, bad[i].what);
			dump(&e);
			failed++;
		}
		cluster_free(c);
		cpha_msgs_free(&e);
	}
	assert_int_equal(failed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_etcd_snapshot),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_lbs_left_out),
		cmocka_unit_test(test_external_etcd),
		cmocka_unit_test(test_priority_without_vrrp),
		cmocka_unit_test(test_vrid_derived),
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_k8s_parse),
		cmocka_unit_test(test_first_service_ip),
		cmocka_unit_test(test_net),
		cmocka_unit_test(test_ifname),
		cmocka_unit_test(test_diag_form),
		cmocka_unit_test(test_monitoring),
		cmocka_unit_test(test_prometheus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
