/* A dual-stack cluster: api.vip as an IPv4 and an IPv6 address. The
 * description's errors, cpha plan's checks, the apiserver certificate's
 * SANs, and the files rendered for both VIP makers: two vrrp_instances in
 * a vrrp_sync_group (the other family's over multicast, tracks without
 * weight), the load balancer bound to both families, both sysctls, and
 * Pacemaker's second IPaddr2 with the first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "cluster.h"
#include "cpha.h"
#include "pki.h"
#include "plan.h"
#include "render.h"
#include "render_ha.h"
#include "renderlb_test.h"

#define DUAL "dual-stack.yaml"

/* The errors of a variant that must not load. */
static const char *load_errors(const char *from, const char *to)
{
	static char all[4096];
	char *p = fixture(DUAL), tmp[] = "/tmp/test_cpha_dualstack.XXXXXX", text[16384], *at;
	struct cpha_msgs d = { 0 };
	struct cp_cluster *c = NULL;
	size_t n, o = 0;
	FILE *f = fopen(p, "r");
	int fd;

	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	free(p);
	text[n] = 0;
	at = strstr(text, from);
	assert_non_null(at);
	fd = mkstemp(tmp);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fprintf(f, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	fclose(f);
	assert_int_equal(cluster_load(tmp, &c, &d), -1);
	unlink(tmp);
	all[0] = 0;
	for (size_t i = 0; i < d.nerrs && o < sizeof(all); i++)
		o += (size_t)snprintf(all + o, sizeof(all) - o, "%s\n", d.errs[i].text);
	cpha_msgs_free(&d);
	return all;
}

#define VIP_LINE "vip: [10.10.10.2/24, 2001:db8:10::2/64]"

static void test_description(void **state)
{
	struct cp_cluster *c = load_fixture(DUAL);

	(void)state;
	assert_true(c->has_vip2);
	assert_string_equal(c->vip_text, "10.10.10.2/24");
	assert_string_equal(c->vip2_text, "2001:db8:10::2/64");
	assert_int_equal(c->vip2_prefix, 64);
	cluster_free(c);
	/* one of each family, and at most two */
	has(load_errors(VIP_LINE, "vip: [10.10.10.2/24, 10.10.10.5/24]"),
		"'10.10.10.2/24' and '10.10.10.5/24' are of one family");
	has(load_errors(VIP_LINE, "vip: [10.10.10.2/24, 2001:db8:10::2/64, 2001:db8:10::3/64]"),
		"vip: give one address, or two of different families");
	has(load_errors(VIP_LINE, "vip: [10.10.10.2/24, 2001:db8:10::2]"),
		"vip: '2001:db8:10::2': give the prefix length too");
	/* a one-element list is the single VIP */
	c = load_variant(DUAL, NULL, VIP_LINE, "vip: [10.10.10.2/24]", NULL);
	assert_false(c->has_vip2);
	assert_string_equal(c->vip_text, "10.10.10.2/24");
	cluster_free(c);
}

static void test_plan(void **state)
{
	struct cp_cluster *c = load_variant(DUAL, NULL, VIP_LINE,
		"vip: [2001:db8:10::2/64, 10.10.10.2/24]", NULL);
	struct plan_opts o = { 0 };
	struct cpha_msgs d = { 0 };
	struct plan p;

	(void)state;
	/* the hosts are IPv4: the IPv4 VIP goes first */
	plan_build(c, &o, &p, &d);
	assert_true(d.nerrs > 0);
	has(d.errs[0].text, "vip: list the VIP of the hosts' family first");
	plan_free(&p);
	cpha_msgs_free(&d);
	cluster_free(c);
	c = load_fixture(DUAL);
	assert_int_equal(plan_build(c, &o, &p, &d), 0);
	assert_int_equal(d.nerrs, 0);
	plan_free(&p);
	cpha_msgs_free(&d);
	cluster_free(c);
}

static void test_apiserver_sans(void **state)
{
	struct cp_cluster *c = load_fixture(DUAL);
	struct pki_plan p = { 0 };
	const struct pki_spec *s;
	const char *why = NULL;
	struct pki_names v4 = { 0 }, v6 = { 0 };

	(void)state;
	assert_int_equal(pki_plan_build(c, &p, &why), 0);
	s = pki_plan_find(&p, "apiserver");
	assert_non_null(s);
	assert_int_equal(pki_names_add(&v4, "10.10.10.2"), 0);
	assert_int_equal(pki_names_add(&v6, "2001:db8:10::2"), 0);
	assert_true(pki_names_has_ip(&s->sans, &v4.ip[0]));
	assert_true(pki_names_has_ip(&s->sans, &v6.ip[0]));
	pki_names_free(&v4);
	pki_names_free(&v6);
	pki_plan_free(&p);
	cluster_free(c);
}

static void test_vipd_and_lbd(void **state)
{
	struct cp_cluster *c = load_fixture(DUAL);
	struct render_set s = { 0 };
	struct cpha_msgs d = { 0 };
	const char *t;

	(void)state;
	assert_int_equal(render_lb(c, &s, &d), 0);
	t = text_of(&s, "lb00", "/etc/vipd/vipd.conf");
	assert_int_equal(count(t, "\nvrrp_instance "), 2);
	has(t, "\nvrrp_instance apiserver {\n");
	has(t, "\nvrrp_instance apiserver_ipv6 {\n");
	has(t, "        2001:db8:10::2/64 dev eth0\n");
	has(t, "\nvrrp_sync_group apiserver_vips {\n    group {\n        apiserver\n"
	       "        apiserver_ipv6\n    }\n}\n");
	/* unicast for the hosts' family only; the IPv6 one is multicast */
	assert_int_equal(count(t, "unicast_peer"), 1);
	/* in a sync group: tracks without weight, both instances fenced */
	assert_int_equal(count(t, "apiserver 1 weight 0\n"), 2);
	lacks(t, "weight -");
	assert_int_equal(count(t, "track_fenced "), 2);
	t = text_of(&s, "lb00", "/etc/lbd/lbd.cfg");
	/* every address of both families: no VIP to bind before holding it */
	has(t, "    bind :::6443 v4v6\n");
	assert_null(render_find(&s, "lb00", "/etc/sysctl.d/60-cpha-lb.conf"));
	render_set_free(&s);
	cpha_msgs_free(&d);
	cluster_free(c);
}

/* HAProxy and keepalived on the masters, and Pacemaker's IPaddr2 */
static void test_keepalived_and_pacemaker(void **state)
{
	struct cp_cluster *c = load_variant("five-haproxy.yaml", NULL, "vip: 198.18.0.10/24",
		"vip: [198.18.0.10/24, 2001:db8:10::2/64]", NULL);
	struct render_set s = { 0 };
	struct cpha_msgs d = { 0 };
	struct pcs_cmds p;
	struct cpha_buf b = { 0 };
	const char *t;

	(void)state;
	assert_int_equal(render_lb(c, &s, &d), 0);
	t = text_of(&s, "kubem00", "/etc/keepalived/keepalived.conf");
	assert_int_equal(count(t, "\nvrrp_instance "), 2);
	assert_int_equal(count(t, "    nopreempt\n"), 2);
	has(t, "\nvrrp_sync_group apiserver_vips {\n");
	t = text_of(&s, "kubem00", "/etc/haproxy/haproxy.cfg");
	has(t, "    bind 198.18.0.10:6443\n    bind [2001:db8:10::2]:6443\n");
	/* the masters bind both VIPs before holding them */
	t = text_of(&s, "kubem00", "/etc/sysctl.d/60-cpha-lb.conf");
	has(t, "net.ipv4.ip_nonlocal_bind = 1\n");
	has(t, "net.ipv6.ip_nonlocal_bind = 1\n");
	render_set_free(&s);
	cluster_free(c);
	c = load_variant("five-haproxy.yaml", NULL, "vip: 198.18.0.10/24",
		"vip: [198.18.0.10/24, 2001:db8:10::2/64]", "  vip: keepalived\n  manager: systemd\n",
		"  vip: pacemaker\n  manager: pacemaker\n", "community_file",
		"snmp_priv_passwd_file", NULL);
	assert_int_equal(render_pcs_commands(c, &p, &d), 0);
	render_pcs_script(c, &p, &b);
	has(b.data, "\n$PCS resource create vip6 ocf:heartbeat:IPaddr2 ip=2001:db8:10::2 "
		    "cidr_netmask=64 nic=eth0 \\\n");
	has(b.data, "\n$PCS constraint order start vip then start vip6\n"
		    "$PCS constraint colocation add vip6 with vip INFINITY\n");
	has(b.data, "\n$PCS resource enable apiserver-clone kcm scheduler vip vip6\n");
	cpha_buf_free(&b);
	render_pcs_free(&p);
	cpha_msgs_free(&d);
	cluster_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_description),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_apiserver_sans),
		cmocka_unit_test(test_vipd_and_lbd),
		cmocka_unit_test(test_keepalived_and_pacemaker),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
