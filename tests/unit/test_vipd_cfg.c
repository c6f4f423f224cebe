/* vipd's configuration parser (keepalived's language): what it accepts,
 * the values and defaults it gives, its notices, 'include', and the
 * tracking-weight warning. The errors are in test_vipd_cfg_errors.c. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "cfg.h"
#include "duration.h"
#include "vipd_cfg_test.h"

#define SEC CPHA_USEC_PER_SEC

/* tests/samples/keepalived-apiserver-vip.conf, as it is */
static const char sample_conf[] =
	"! A floating VIP for the control-plane load balancers, in the style that\n"
	"! current Kubernetes HA guides use. vipd must accept it unchanged and\n"
	"! interoperate on the wire with keepalived running the same file.\n"
	"global_defs {\n"
	"    router_id LB_1\n"
	"}\n"
	"vrrp_script check_apiserver {\n"
	"  script \"/etc/keepalived/check_apiserver.sh\"\n"
	"  interval 3\n"
	"  weight -2\n"
	"  fall 10\n"
	"  rise 2\n"
	"}\n"
	"\n"
	"vrrp_instance VI_1 {\n"
	"    state MASTER\n"
	"    interface eth0\n"
	"    virtual_router_id 51\n"
	"    priority 101\n"
	"    authentication {\n"
	"        auth_type PASS\n"
	"        auth_pass 42secret\n"
	"    }\n"
	"    virtual_ipaddress {\n"
	"        10.10.10.2\n"
	"    }\n"
	"    track_script {\n"
	"        check_apiserver\n"
	"    }\n"
	"}\n";

static struct vipd_config *load_ok(const char *text)
{
	struct cpha_msgs errs = { 0 };
	struct vipd_config *c = NULL;
	int r;

	r = vipd_cfg_load_mem("t.conf", text, strlen(text), &c, &errs);
	if (r != 0)
		print_error("unexpected errors:\n"
			    "%s",
			join_errs(&errs));
	assert_int_equal(r, 0);
	assert_non_null(c);
	assert_int_equal(errs.nerrs, 0);
	return c;
}

/* The notices of a configuration, one per line. */
static const char *notices(const struct vipd_config *c)
{
	return join(c->notices, c->nnotices);
}

static void assert_hasnt(const char *all, const char *what)
{
	if (strstr(all, what))
		fail_msg("'%s' should not be in:\n"
			 "%s",
			what, all);
}

static const char *addr_str(const struct cpha_addr *a)
{
	static char buf[CPHA_ADDR_STRLEN];

	return cpha_addr_format(a, buf, sizeof(buf));
}

static void test_sample(void **state)
{
	struct vipd_config *c = load_ok(sample_conf);
	const struct vipd_instance *v;
	const struct vipd_script *s;

	(void)state;
	assert_string_equal(c->file, "t.conf");
	assert_string_equal(c->global.router_id, "LB_1");
	assert_int_equal(c->global.vrrp_version, 2);
	assert_int_equal(c->nscripts, 1);
	s = vipd_cfg_script(c, "check_apiserver");
	assert_non_null(s);
	assert_string_equal(s->command, "/etc/keepalived/check_apiserver.sh");
	assert_int_equal(s->interval, 3 * SEC);
	assert_int_equal(s->timeout, 3 * SEC);
	assert_int_equal(s->weight, -2);
	assert_false(s->weight_reverse);
	assert_int_equal(s->fall, 10);
	assert_int_equal(s->rise, 2);
	assert_null(s->user);
	assert_false(s->init_fail);
	assert_int_equal(s->line, 7);

	assert_int_equal(c->ninstances, 1);
	v = vipd_cfg_instance(c, "VI_1");
	assert_ptr_equal(v, &c->instances[0]);
	assert_int_equal(v->line, 15);
	assert_int_equal(v->state, VIPD_INIT_MASTER);
	assert_string_equal(v->interface, "eth0");
	assert_int_equal(v->vrid, 51);
	assert_int_equal(v->priority, 101);
	assert_int_equal(v->advert_int, 1 * SEC);
	assert_int_equal(v->version, 2);
	assert_int_equal(v->family, AF_INET);
	assert_int_equal(v->auth, VIPD_AUTH_PASS);
	assert_string_equal(v->auth_pass, "42secret");
	assert_false(v->nopreempt);
	assert_false(v->unicast);
	assert_int_equal(v->npeers, 0);
	assert_int_equal(v->nvips, 1);
	assert_string_equal(addr_str(&v->vips[0].addr), "10.10.10.2");
	assert_int_equal(v->vips[0].prefixlen, 32);
	assert_null(v->vips[0].dev);
	assert_int_equal(v->vips[0].line, 25);
	assert_int_equal(v->ntrack_script, 1);
	assert_string_equal(v->track_script[0].name, "check_apiserver");
	assert_false(v->track_script[0].weight_set);
	assert_int_equal(v->track_script[0].weight, -2); /* the script's */
	assert_int_equal(v->track_script[0].line, 28);
	assert_null(v->sync_group);
	/* MASTER 101, weight -2: 99 is below a BACKUP at 100, no warning */
	assert_int_equal(c->nnotices, 0);
	vipd_cfg_free(c);
}

static void test_defaults(void **state)
{
	struct vipd_config *c = load_ok("vrrp_script chk {\n"
					"  script /bin/true\n"
					"}\n" INST(""));
	const struct vipd_instance *v = &c->instances[0];
	const struct vipd_script *s = &c->scripts[0];

	(void)state;
	assert_null(c->global.router_id);
	assert_int_equal(c->global.vrrp_version, 2);
	assert_string_equal(c->global.admin_socket, "/run/vipd/admin.sock");
	assert_false(c->global.reset_connections); /* keepalived does not */
	assert_false(c->global.metrics_set);
	assert_int_equal(c->global.max_auto_priority, -1);
	assert_false(c->global.enable_script_security);
	assert_int_equal(s->interval, 1 * SEC);
	assert_int_equal(s->timeout, 1 * SEC);
	assert_int_equal(s->weight, 0);
	assert_int_equal(s->rise, 1);
	assert_int_equal(s->fall, 1);
	assert_int_equal(v->state, VIPD_INIT_BACKUP);
	assert_int_equal(v->priority, 100);
	assert_int_equal(v->advert_int, 1 * SEC);
	assert_int_equal(v->version, 2);
	assert_int_equal(v->auth, VIPD_AUTH_NONE);
	assert_int_equal(v->garp_master_delay, 5 * SEC);
	assert_int_equal(v->garp_master_repeat, 5);
	assert_int_equal(v->garp_master_refresh, 0);
	assert_int_equal(v->garp_master_refresh_repeat, 1);
	assert_int_equal(v->garp_interval, 0);
	assert_int_equal(v->preempt_delay, 0);
	assert_false(v->v3_checksum_as_v2);
	assert_int_equal(c->nnotices, 0);
	vipd_cfg_free(c);
}

static void test_everything(void **state)
{
	struct vipd_config *c = load_ok("global_defs {\n"
					"  router_id lb-2\n"
					"  vrrp_version 3\n"
					"  script_user nobody nogroup\n"
					"  enable_script_security\n"
					"  vrrp_garp_master_refresh 60\n"
					"  vrrp_garp_master_delay 2\n"
					"  vrrp_garp_master_repeat 3\n"
					"  vrrp_garp_master_refresh_repeat 2\n"
					"  vrrp_garp_interval 0.001\n"
					"  vrrp_gna_interval 0.002\n"
					"  max_auto_priority\n"
					"  vipd_admin_socket /run/vipd/a.sock\n"
					"  vipd_metrics_bind 127.0.0.1:9105\n"
					"  vipd_reset_connections\n"
					"}\n"
					"vrrp_script chk {\n"
					"  script /bin/sh -c 'test -f /tmp/x y'\n"
					"  interval 2\n"
					"  timeout 5\n"
					"  weight 10 reverse\n"
					"  rise 3\n"
					"  fall 4\n"
					"  user nobody nogroup\n"
					"  init_fail\n"
					"}\n"
					"track_file tf {\n"
					"  file \"/run/tf\"\n"
					"  weight -3 reverse\n"
					"  init_file 7 overwrite\n"
					"}\n"
					"vrrp_instance VI_1 {\n"
					"  state BACKUP\n"
					"  interface eth0\n"
					"  virtual_router_id 7\n"
					"  priority 90\n"
					"  advert_int 0.5\n"
					"  nopreempt\n"
					"  unicast_src_ip 198.18.0.1\n"
					"  unicast_peer {\n"
					"    198.18.0.2\n"
					"    198.18.0.3\n"
					"  }\n"
					"  virtual_ipaddress {\n"
					"    198.18.1.1/24 dev eth1 label eth1:vip\n"
					"    198.18.1.2\n"
					"  }\n"
					"  track_script {\n"
					"    chk weight -20 noreverse\n"
					"  }\n"
					"  track_interface {\n"
					"    eth1\n"
					"    eth2 weight -5 reverse\n"
					"  }\n"
					"  track_file {\n"
					"    tf weight 0\n"
					"  }\n"
					"  track_lbd {\n"
					"    /run/lbd/admin.sock apiservers 2 weight -30\n"
					"  }\n"
					"  notify_master \"/usr/local/bin/n master\"\n"
					"  notify_backup /bin/b\n"
					"  notify_fault /bin/f\n"
					"  notify_stop /bin/s\n"
					"  notify /bin/all\n"
					"  garp_master_delay 1\n"
					"  garp_master_repeat 2\n"
					"  garp_master_refresh 30\n"
					"  garp_master_refresh_repeat 4\n"
					"  garp_interval 0.01\n"
					"  v3_checksum_as_v2 yes\n"
					"}\n"
					"vrrp_instance VI_6 {\n"
					"  interface eth0\n"
					"  virtual_router_id 7\n"
					"  virtual_ipaddress {\n"
					"    fe80::7\n"
					"    2001:db8::7/64\n"
					"  }\n"
					"}\n");
	const struct vipd_instance *v = vipd_cfg_instance(c, "VI_1"), *v6 = &c->instances[1];
	const struct vipd_script *s = &c->scripts[0];
	const struct vipd_track_file_def *tf = vipd_cfg_track_file(c, "tf");

	(void)state;
	assert_string_equal(c->global.router_id, "lb-2");
	assert_int_equal(c->global.vrrp_version, 3);
	assert_string_equal(c->global.script_user, "nobody");
	assert_string_equal(c->global.script_group, "nogroup");
	assert_true(c->global.enable_script_security);
	assert_int_equal(c->global.vrrp_garp_master_refresh, 60 * SEC);
	assert_int_equal(c->global.max_auto_priority, 99);
	assert_string_equal(c->global.admin_socket, "/run/vipd/a.sock");
	assert_true(c->global.metrics_set);
	assert_string_equal(addr_str(&c->global.metrics), "127.0.0.1:9105");
	assert_true(c->global.reset_connections);

	assert_string_equal(s->command, "/bin/sh -c 'test -f /tmp/x y'");
	assert_int_equal(s->interval, 2 * SEC);
	assert_int_equal(s->timeout, 5 * SEC);
	assert_int_equal(s->weight, 10);
	assert_true(s->weight_reverse);
	assert_int_equal(s->rise, 3);
	assert_int_equal(s->fall, 4);
	assert_string_equal(s->user, "nobody");
	assert_string_equal(s->group, "nogroup");
	assert_true(s->init_fail);
	assert_non_null(tf);
	assert_string_equal(tf->path, "/run/tf");
	assert_int_equal(tf->weight, -3);
	assert_true(tf->weight_reverse);
	assert_true(tf->init_file);
	assert_int_equal(tf->init_value, 7);
	assert_true(tf->init_overwrite);

	assert_int_equal(v->state, VIPD_INIT_BACKUP);
	assert_int_equal(v->priority, 90);
	assert_int_equal(v->version, 3); /* from global_defs */
	assert_int_equal(v->advert_int, SEC / 2);
	assert_true(v->nopreempt);
	assert_true(v->unicast_src_set);
	assert_string_equal(addr_str(&v->unicast_src), "198.18.0.1");
	assert_true(v->unicast);
	assert_int_equal(v->npeers, 2);
	assert_string_equal(addr_str(&v->peers[1]), "198.18.0.3");
	assert_int_equal(v->nvips, 2);
	assert_int_equal(v->vips[0].prefixlen, 24);
	assert_string_equal(v->vips[0].dev, "eth1");
	assert_string_equal(v->vips[0].label, "eth1:vip");
	assert_int_equal(v->track_script[0].weight, -20);
	assert_true(v->track_script[0].weight_set);
	assert_false(v->track_script[0].weight_reverse);
	assert_int_equal(v->ntrack_interface, 2);
	assert_false(v->track_interface[0].weight_set);
	assert_int_equal(v->track_interface[1].weight, -5);
	assert_true(v->track_interface[1].weight_reverse);
	assert_int_equal(v->track_file[0].weight, 0);
	assert_true(v->track_file[0].weight_set);
	assert_int_equal(v->ntrack_lbd, 1);
	assert_string_equal(v->track_lbd[0].name, "apiservers");
	assert_string_equal(v->track_lbd[0].lbd_socket, "/run/lbd/admin.sock");
	assert_int_equal(v->track_lbd[0].lbd_min_up, 2);
	assert_int_equal(v->track_lbd[0].weight, -30);
	assert_string_equal(v->notify_master, "/usr/local/bin/n master");
	assert_string_equal(v->notify_backup, "/bin/b");
	assert_string_equal(v->notify_fault, "/bin/f");
	assert_string_equal(v->notify_stop, "/bin/s");
	assert_string_equal(v->notify, "/bin/all");
	assert_int_equal(v->garp_master_delay, 1 * SEC);
	assert_int_equal(v->garp_master_repeat, 2);
	assert_int_equal(v->garp_master_refresh, 30 * SEC);
	assert_int_equal(v->garp_master_refresh_repeat, 4);
	assert_int_equal(v->garp_interval, SEC / 100);
	assert_true(v->v3_checksum_as_v2);

	/* same VRID, other family: allowed; IPv6 takes the global defaults */
	assert_int_equal(v6->family, AF_INET6);
	assert_int_equal(v6->version, 3);
	assert_int_equal(v6->priority, 100);
	assert_int_equal(v6->garp_master_delay, 2 * SEC);
	assert_int_equal(v6->garp_master_repeat, 3);
	assert_int_equal(v6->garp_master_refresh, 60 * SEC);
	assert_int_equal(v6->garp_master_refresh_repeat, 2);
	assert_int_equal(v6->garp_interval, 2 * SEC / 1000);
	assert_int_equal(v6->vips[1].prefixlen, 64);
	assert_int_equal(c->nnotices, 0);
	vipd_cfg_free(c);
}

static void test_versions(void **state)
{
	struct vipd_config *c;

	(void)state;
	/* IPv6 instances use version 3 even with a global version 2 */
	c = load_ok("global_defs {\n"
		    "  vrrp_version 2\n"
		    "}\n"
		    "vrrp_instance V6 {\n"
		    "  interface eth0\n"
		    "  virtual_router_id 1\n"
		    "  virtual_ipaddress {\n"
		    "    fe80::1\n"
		    "  }\n"
		    "}\n"
		    "vrrp_instance V4 {\n"
		    "  interface eth0\n"
		    "  virtual_router_id 2\n"
		    "  version 3\n"
		    "  advert_int 0.25\n"
		    "  virtual_ipaddress {\n"
		    "    198.18.0.1\n"
		    "  }\n"
		    "}\n");
	assert_int_equal(c->instances[0].version, 3);
	assert_int_equal(c->instances[1].version, 3);
	assert_int_equal(c->instances[1].advert_int, SEC / 4);
	vipd_cfg_free(c);
	/* the largest advert_int of each version */
	c = load_ok(INST("  advert_int 255\n"));
	assert_int_equal(c->instances[0].advert_int, 255 * SEC);
	vipd_cfg_free(c);
	c = load_ok(INST("  version 3\n"
			 "  advert_int 40.95\n"));
	assert_int_equal(c->instances[0].advert_int, 4095 * SEC / 100);
	vipd_cfg_free(c);
}

/* vipd_quiesce: up to 5 s; an instance that tracks no lbd has none to ask,
 * and a notice at the line says it gives its VIPs up at once. */
static void test_quiesce(void **state)
{
	struct vipd_config *c;

	(void)state;
	c = load_ok("global_defs {\n  vipd_quiesce 0.3\n}\n" INST("  track_lbd {\n"
								  "    /run/lbd/admin.sock be 1\n"
								  "  }\n"));
	assert_int_equal(c->global.quiesce, 300 * 1000);
	assert_int_equal(c->nnotices, 0);
	vipd_cfg_free(c);
	c = load_ok("global_defs {\n  vipd_quiesce 0.3\n}\n" INST(""));
	assert_int_equal(c->global.quiesce, 300 * 1000);
	assert_has(notices(c), "t.conf:2: vipd_quiesce: vrrp_instance 'VI_1' tracks no lbd "
			       "(track_lbd), so no lbd quiesces its VIPs: it gives them up at "
			       "once");
	vipd_cfg_free(c);
	/* without it: nothing to say */
	c = load_ok(INST(""));
	assert_int_equal(c->global.quiesce, 0);
	assert_int_equal(c->nnotices, 0);
	vipd_cfg_free(c);
}

static void test_state_priority(void **state)
{
	struct vipd_config *c;

	(void)state;
	/* state MASTER without priority: the address owner, as keepalived */
	c = load_ok(INST("  state MASTER\n"));
	assert_int_equal(c->instances[0].priority, 255);
	assert_has(notices(c), "t.conf:4: state MASTER without 'priority' makes vrrp_instance "
			       "'VI_1' the address owner (priority 255)");
	vipd_cfg_free(c);
	/* priority 255 without state: MASTER */
	c = load_ok(INST("  priority 255\n"));
	assert_int_equal(c->instances[0].state, VIPD_INIT_MASTER);
	vipd_cfg_free(c);
	/* preempt (keepalived's old spelling of the default) clears nopreempt */
	c = load_ok(INST("  nopreempt\n"
			 "  preempt\n"
			 "  preempt_delay 2.5\n"));
	assert_false(c->instances[0].nopreempt);
	assert_int_equal(c->instances[0].preempt_delay, 2500000);
	vipd_cfg_free(c);
}

static void test_notices(void **state)
{
	struct vipd_config *c = load_ok("global_defs {\n"
					"  notification_email {\n"
					"    root@example.com\n"
					"  }\n"
					"  notification_email_from lb@example.com\n"
					"  smtp_server 198.18.0.25 25\n"
					"  smtp_connect_timeout 30\n"
					"  enable_traps\n"
					"  vrrp_skip_check_adv_addr\n"
					"  lvs_id LVS_DEVEL\n"
					"  dynamic_interfaces allow_if_changes\n"
					"  vrrp_garp_interval 0\n"
					"  vrrp_gna_interval 0\n"
					"}\n" INST("  authentication {\n"
						   "    auth_type PASS\n"
						   "    auth_pass 123456789abc\n"
						   "  }\n"));
	const char *n = notices(c);

	(void)state;
	assert_has(n, "t.conf:2: 'notification_email' has no effect in vipd: vipd sends no mail");
	assert_has(n, "t.conf:5: 'notification_email_from' has no effect in vipd");
	assert_has(n, "t.conf:6: 'smtp_server' has no effect in vipd");
	assert_has(n, "t.conf:7: 'smtp_connect_timeout' has no effect in vipd");
	assert_has(n, "t.conf:8: 'enable_traps' has no effect in vipd: vipd has no SNMP agent");
	assert_has(n, "t.conf:9: 'vrrp_skip_check_adv_addr' has no effect in vipd");
	assert_has(n, "t.conf:10: 'lvs_id' has no effect in vipd");
	assert_has(n, "t.conf:11: 'dynamic_interfaces' has no effect in vipd");
	/* as keepalived: only the first 8 characters */
	assert_has(n, "t.conf:20: 'auth_pass' is longer than 8 characters: only '12345678' is "
		      "used, as keepalived does");
	assert_string_equal(c->instances[0].auth_pass, "12345678");
	assert_int_equal(c->nnotices, 9); /* in line order */
	assert_string_equal(c->notices[0], "t.conf:2: 'notification_email' has no effect in vipd: "
					   "vipd sends no mail; use notify scripts");
	vipd_cfg_free(c);

	/* IPv6: the first VIP should be link-local; a label not DEV:NAME;
	 * v3_checksum_as_v2 that does nothing; skip_check_adv_addr; a
	 * one-member sync group */
	c = load_ok("vrrp_instance A {\n"
		    "  interface eth0\n"
		    "  virtual_router_id 1\n"
		    "  v3_checksum_as_v2\n"
		    "  skip_check_adv_addr off\n"
		    "  virtual_ipaddress {\n"
		    "    2001:db8::1\n"
		    "  }\n"
		    "}\n"
		    "vrrp_instance B {\n"
		    "  interface eth0\n"
		    "  virtual_router_id 2\n"
		    "  virtual_ipaddress {\n"
		    "    198.18.0.9 label foo:1\n"
		    "  }\n"
		    "}\n"
		    "vrrp_sync_group G {\n"
		    "  group {\n"
		    "    B\n"
		    "  }\n"
		    "}\n");
	n = notices(c);
	assert_has(n, "t.conf:4: 'v3_checksum_as_v2' only changes VRRP version 3 over IPv4");
	assert_has(n, "t.conf:5: 'skip_check_adv_addr' has no effect in vipd");
	assert_has(n, "t.conf:7: the first IPv6 virtual_ipaddress should be link-local");
	assert_has(n, "t.conf:17: vrrp_sync_group 'G' has only one instance");
	vipd_cfg_free(c);
}

static void test_sync_group(void **state)
{
	struct vipd_config *c = load_ok("vrrp_script chk {\n"
					"  script /bin/true\n"
					"}\n"
					"vrrp_sync_group G {\n"
					"  group {\n"
					"    A B\n"
					"  }\n"
					"  track_script {\n"
					"    chk weight -60\n"
					"  }\n"
					"  track_interface {\n"
					"    eth3\n"
					"  }\n"
					"  notify_master /bin/m\n"
					"  notify \"/bin/n x\"\n"
					"}\n"
					"vrrp_instance A {\n"
					"  interface eth0\n"
					"  virtual_router_id 1\n"
					"  virtual_ipaddress {\n"
					"    198.18.0.1\n"
					"  }\n"
					"  track_script {\n"
					"    chk weight 0\n"
					"  }\n"
					"}\n"
					"vrrp_instance B {\n"
					"  interface eth1\n"
					"  virtual_router_id 1\n"
					"  virtual_ipaddress {\n"
					"    198.18.0.2\n"
					"  }\n"
					"}\n");
	const struct vipd_sync_group *g = &c->groups[0];

	(void)state;
	assert_int_equal(c->ngroups, 1);
	assert_string_equal(g->name, "G");
	assert_int_equal(g->line, 4);
	assert_int_equal(g->nmembers, 2);
	assert_string_equal(g->members[0], "A");
	assert_string_equal(g->members[1], "B");
	assert_int_equal(g->track_script[0].weight, -60);
	assert_string_equal(g->track_interface[0].name, "eth3");
	assert_string_equal(g->notify_master, "/bin/m");
	assert_string_equal(g->notify, "/bin/n x");
	assert_string_equal(c->instances[0].sync_group, "G");
	assert_string_equal(c->instances[1].sync_group, "G");
	assert_string_equal(notices(c), "t.conf:24: track_script 'chk' is tracked by "
					"vrrp_instance 'A' and by its vrrp_sync_group 'G' (line "
					"9); the group's weight applies, as in keepalived\n");
	vipd_cfg_free(c);
}

/* keepalived's layouts: a block on one line, '{' on the next line, '!' and
 * '#' comments, a continued line */
static void test_syntax(void **state)
{
	struct vipd_config *c = load_ok("global_defs { router_id X }\n"
					"vrrp_script chk { script \"/bin/true\" }\n"
					"vrrp_instance VI_1\n"
					"{\n"
					"  interface eth0   # a comment\n"
					"  virtual_router_id \\\n"
					"     52 ! another\n"
					"  unicast_peer { 198.18.0.2 }\n"
					"  virtual_ipaddress\n"
					"  {\n"
					"    198.18.0.10 }\n"
					"  track_script { chk }\n"
					"}\n");

	(void)state;
	assert_string_equal(c->global.router_id, "X");
	assert_int_equal(c->instances[0].vrid, 52);
	assert_int_equal(c->instances[0].line, 3);
	assert_int_equal(c->instances[0].npeers, 1);
	assert_int_equal(c->instances[0].nvips, 1);
	assert_int_equal(c->instances[0].vips[0].line, 11);
	assert_int_equal(c->instances[0].ntrack_script, 1);
	vipd_cfg_free(c);
}

/* Several words of a script or notify command: quoted again as needed */
static void test_commands(void **state)
{
	struct vipd_config *c = load_ok("vrrp_script a {\n"
					"  script \"killall -0 haproxy\"\n"
					"}\n"
					"vrrp_script b {\n"
					"  script /bin/echo \"x y\" 'it''s' \"a\\\"b\"\n"
					"}\n"
					"vrrp_script c {\n"
					"  script /bin/echo \"#1\" \"\"\n"
					"}\n");

	(void)state;
	assert_string_equal(c->scripts[0].command, "killall -0 haproxy");
	assert_string_equal(c->scripts[1].command, "/bin/echo 'x y' its 'a\"b'");
	assert_string_equal(c->scripts[2].command, "/bin/echo '#1' ''");
	vipd_cfg_free(c);
}

/* ---- include ---- */

static char tmpdir[64];

static void put(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int load_file(const char *name, struct vipd_config **c, struct cpha_msgs *errs)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	return vipd_cfg_load(path, c, errs);
}

static int setup_dir(void **state)
{
	char sub[128];

	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_vipd_cfg.XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(sub, sizeof(sub), "%s/conf.d", tmpdir);
	return mkdir(sub, 0700);
}

static int teardown_dir(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_include(void **state)
{
	struct cpha_msgs errs = { 0 };
	struct vipd_config *c = NULL;
	char want[512];

	(void)state;
	put("main.conf", "include scripts.conf\n"
			 "include conf.d/*.conf\n"
			 "include none/*.conf\n"
			 "vrrp_instance VI_1 {\n"
			 "  interface eth0\n"
			 "  virtual_router_id 51\n"
			 "  include vips.inc\n"
			 "  track_script {\n"
			 "    chk\n"
			 "  }\n"
			 "}\n");
	put("scripts.conf", "vrrp_script chk {\n"
			    "  script /bin/true\n"
			    "}\n");
	put("vips.inc", "virtual_ipaddress {\n"
			"  198.18.0.10\n"
			"}\n");
	put("conf.d/b.conf", "vrrp_instance B {\n"
			     " interface eth0\n"
			     " virtual_router_id 2\n"
			     " virtual_ipaddress {\n"
			     "  198.18.0.12\n"
			     " }\n"
			     "}\n");
	put("conf.d/a.conf", "vrrp_instance A {\n"
			     " interface eth0\n"
			     " virtual_router_id 1\n"
			     " virtual_ipaddress {\n"
			     "  198.18.0.11\n"
			     " }\n"
			     "}\n");
	assert_int_equal(load_file("main.conf", &c, &errs), 0);
	/* glob order, then the including file */
	assert_int_equal(c->ninstances, 3);
	assert_string_equal(c->instances[0].name, "A");
	assert_string_equal(c->instances[1].name, "B");
	assert_string_equal(c->instances[2].name, "VI_1");
	assert_int_equal(c->instances[2].vips[0].line, 2); /* of vips.inc */
	assert_int_equal(c->instances[2].ntrack_script, 1);
	snprintf(want, sizeof(want), "%s/main.conf:3: include '%s/none/*.conf' matches no file",
		tmpdir, tmpdir);
	assert_has(notices(c), want);
	vipd_cfg_free(c);

	/* errors name the file they are in */
	put("conf.d/b.conf", "vrrp_instance B {\n"
			     " interface eth0\n"
			     " virtual_router_id 300\n"
			     " virtual_ipaddress {\n"
			     "  198.18.0.12\n"
			     " }\n"
			     "}\n");
	put("scripts.conf", "include missing.conf\n");
	assert_int_equal(load_file("main.conf", &c, &errs), -1);
	assert_null(c);
	snprintf(want, sizeof(want),
		"%s/conf.d/b.conf:3: 'virtual_router_id' must be a whole number from 1 to 255, not "
		"'300' (vrrp_instance 'B')",
		tmpdir);
	assert_has(join_errs(&errs), want);
	snprintf(want, sizeof(want),
		"%s/scripts.conf:1: include '%s/missing.conf': cannot read: No such file", tmpdir,
		tmpdir);
	assert_has(join_errs(&errs), want);
	cpha_msgs_free(&errs);

	/* an include loop stops at the nesting bound */
	put("loop.conf", "include loop.conf\n");
	assert_int_equal(load_file("loop.conf", &c, &errs), -1);
	assert_has(join_errs(&errs),
		"loop.conf:1: includes are nested deeper than 8 levels (an include loop?)");
	cpha_msgs_free(&errs);

	/* the file itself cannot be read */
	assert_int_equal(load_file("nothing.conf", &c, &errs), -1);
	assert_int_equal(errs.nerrs, 1);
	assert_has(errs.errs[0].text, "/nothing.conf: cannot read: No such file or directory");
	cpha_msgs_free(&errs);
}

/* ---- the tracking-weight warning ---- */

/* The notices of a MASTER or BACKUP at a priority with one weighted check. */
static const char *weight_notice(const char *state, int prio, const char *weight)
{
	static char text[1024];
	struct vipd_config *c;

	snprintf(text, sizeof(text),
		"vrrp_script chk {\n"
		"  script /bin/true\n"
		"}\n"
		"vrrp_instance VI_1 {\n"
		"  state %s\n"
		"  interface eth0\n"
		"  virtual_router_id 51\n"
		"  priority %d\n"
		"  virtual_ipaddress {\n"
		"    198.18.0.10\n"
		"  }\n"
		"  track_script {\n"
		"    chk %s\n"
		"  }\n"
		"}\n",
		state, prio, weight);
	c = load_ok(text);
	snprintf(text, sizeof(text), "%s", notices(c));
	vipd_cfg_free(c);
	return text;
}

static void test_weight_warning(void **state)
{
	(void)state;
	/* the classic trap: MASTER 150 over BACKUPs at 100, weight -2 */
	assert_has(weight_notice("MASTER", 150, "weight -2"),
		"t.conf:13: track_script 'chk' (weight -2) cannot move the VIP: when it fails "
		"alone, vrrp_instance 'VI_1' drops from priority 150 to 148, not below 100, the "
		"priority assumed for a BACKUP peer (keepalived's default); use a weight of at "
		"least 51, or 0 for FAULT");
	assert_has(weight_notice("BACKUP", 150, "weight -2"), "cannot move the VIP");
	/* a tie is not a failover */
	assert_has(weight_notice("MASTER", 101, "weight -1"),
		"drops from priority 101 to 100, not below 100");
	assert_has(weight_notice("MASTER", 100, "weight -1"),
		"drops from priority 100 to 99, not below 99, the highest priority a lower BACKUP "
		"peer can have; use a weight of at least 2");
	/* positive weights count against a peer that runs the same check */
	assert_has(weight_notice("MASTER", 150, "weight 20"), "(weight 20) cannot move");

	/* enough weight, FAULT, reverse, a BACKUP at 100 or less: quiet */
	assert_string_equal(weight_notice("MASTER", 101, "weight -2"), "");
	assert_string_equal(weight_notice("MASTER", 150, "weight -51"), "");
	assert_string_equal(weight_notice("MASTER", 150, "weight 0"), "");
	assert_string_equal(weight_notice("MASTER", 150, ""), ""); /* script weight 0 */
	assert_string_equal(weight_notice("MASTER", 150, "weight -2 reverse"), "");
	assert_string_equal(weight_notice("BACKUP", 100, "weight -1"), "");
	/* priority 2: a failure ties with a peer at 1 at best */
	assert_has(weight_notice("MASTER", 2, "weight -2"),
		"to 1, not below 1, the highest priority a lower BACKUP peer can have; use weight "
		"0 for FAULT");
}

static void test_weight_warning_more(void **state)
{
	struct vipd_config *c;

	(void)state;
	/* interfaces and lbd backends; track_file weights depend on the file */
	c = load_ok("track_file tf {\n"
		    "  file /run/tf\n"
		    "  weight -2\n"
		    "}\n"
		    "vrrp_instance VI_1 {\n"
		    "  state MASTER\n"
		    "  interface eth0\n"
		    "  virtual_router_id 51\n"
		    "  priority 200\n"
		    "  virtual_ipaddress {\n"
		    "    198.18.0.10\n"
		    "  }\n"
		    "  track_interface {\n"
		    "    eth1 weight -50\n"
		    "  }\n"
		    "  track_lbd {\n"
		    "    /run/lbd/admin.sock be 1 weight -101\n"
		    "  }\n"
		    "  track_file {\n"
		    "    tf\n"
		    "  }\n"
		    "}\n");
	assert_has(
		notices(c), "t.conf:14: track_interface 'eth1' (weight -50) cannot move the VIP");
	assert_hasnt(notices(c), "track_lbd");
	assert_hasnt(notices(c), "track_file");
	vipd_cfg_free(c);
	/* a sync group's track, for each member that means to be MASTER */
	c = load_ok("vrrp_script chk {\n"
		    "  script /bin/true\n"
		    "}\n"
		    "vrrp_sync_group G {\n"
		    "  group {\n"
		    "    A\n"
		    "    B\n"
		    "  }\n"
		    "  track_script {\n"
		    "    chk weight -10\n"
		    "  }\n"
		    "}\n"
		    "vrrp_instance A {\n"
		    "  state MASTER\n"
		    "  interface eth0\n"
		    "  virtual_router_id 1\n"
		    "  priority 150\n"
		    "  virtual_ipaddress {\n"
		    "    198.18.0.1\n"
		    "  }\n"
		    "}\n"
		    "vrrp_instance B {\n"
		    "  interface eth0\n"
		    "  virtual_router_id 2\n"
		    "  virtual_ipaddress {\n"
		    "    198.18.0.2\n"
		    "  }\n"
		    "}\n");
	assert_has(notices(c), "t.conf:10: track_script 'chk' (weight -10, vrrp_sync_group G) "
			       "cannot move the VIP: when it fails alone, vrrp_instance 'A'");
	assert_hasnt(notices(c), "vrrp_instance 'B'");
	vipd_cfg_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_everything),
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_quiesce),
		cmocka_unit_test(test_state_priority),
		cmocka_unit_test(test_notices),
		cmocka_unit_test(test_sync_group),
		cmocka_unit_test(test_syntax),
		cmocka_unit_test(test_commands),
		cmocka_unit_test_setup_teardown(test_include, setup_dir, teardown_dir),
		cmocka_unit_test(test_weight_warning),
		cmocka_unit_test(test_weight_warning_more),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
