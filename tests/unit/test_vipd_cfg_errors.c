/* vipd's configuration parser (keepalived's language): every class of
 * error, at its exact line, and several errors reported together. The
 * accepted configurations are in test_vipd_cfg.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cfg.h"
#include "vipd_cfg_test.h"

/* A script on lines 1-3, then INST(body) from line 4 (body from line 7). */
#define SCRIPT_INST(body)                                                                          \
	"vrrp_script chk {\n"                                                                      \
	"  script /bin/true\n"                                                                     \
	"}\n" INST(body)

/* Load text that must fail: the messages, one per line; *n their count. */
static const char *load_bad(const char *text, size_t *n)
{
	struct cpha_msgs errs = { 0 };
	struct vipd_config *c = NULL;
	int r;

	r = vipd_cfg_load_mem("t.conf", text, strlen(text), &c, &errs);
	if (r == 0)
		print_error("accepted:\n"
			    "%s",
			text);
	assert_int_equal(r, -1);
	assert_null(c);
	assert_true(errs.nerrs > 0);
	join_errs(&errs);
	*n = errs.nerrs;
	cpha_msgs_free(&errs);
	return joined;
}

struct bad {
	const char *text;
	const char *want; /* "t.conf:LINE: message" or its beginning */
};

static void check_bad(const struct bad *b, size_t n)
{
	const char *got;
	size_t i, cnt;

	for (i = 0; i < n; i++) {
		got = load_bad(b[i].text, &cnt);
		if (!strstr(got, b[i].want))
			fail_msg("case %zu: '%s' not in:\n"
				 "%s",
				i, b[i].want, got);
		if (cnt != 1)
			fail_msg("case %zu: %zu errors, expected one:\n"
				 "%s",
				i, cnt, got);
	}
}

/* What vipd does not do, named by its keyword. */
static void test_unsupported(void **state)
{
	static const struct bad b[] = {
		{ "virtual_server 198.18.0.1 6443 {\n"
		  "  lb_algo rr\n"
		  "}\n",
			"t.conf:1: 'virtual_server' is not supported by vipd (it only does VRRP)" },
		{ "static_ipaddress {\n"
		  "  198.18.0.1 dev eth0\n"
		  "}\n",
			"t.conf:1: 'static_ipaddress' is not supported by vipd (it only does "
			"VRRP)" },
		{ "linkbeat_use_polling\n", "t.conf:1: 'linkbeat_use_polling' is not supported" },
		{ "global_defs {\n"
		  "  vrrp_mcast_group4 198.18.0.1\n"
		  "}\n",
			"t.conf:2: 'vrrp_mcast_group4 198.18.0.1' is not a multicast address" },
		{ INST("  use_vmac\n"), "t.conf:4: 'use_vmac' is not supported by vipd "
					"(vrrp_instance 'VI_1'): no virtual MAC" },
		{ INST("  virtual_routes {\n"
		       "    198.18.2.0/24 via 198.18.0.1\n"
		       "  }\n"),
			"t.conf:4: 'virtual_routes' is not supported by vipd" },
		{ INST("  virtual_rules {\n"
		       "    from 198.18.2.0/24 table 1\n"
		       "  }\n"),
			"t.conf:4: 'virtual_rules' is not supported by vipd" },
		{ INST("  virtual_ipaddress_excluded {\n"
		       "    198.18.0.99\n"
		       "  }\n"),
			"t.conf:4: 'virtual_ipaddress_excluded' is not supported by vipd" },
		{ INST("  track_bfd {\n"
		       "    b\n"
		       "  }\n"),
			"t.conf:5: no bfd_instance 'b'" },
		{ INST("  vrrp_version 3\n"), "t.conf:4: 'vrrp_version' is not supported by vipd "
					      "(vrrp_instance 'VI_1')" },
		{ INST("  smtp_alert\n"), "t.conf:4: 'smtp_alert' is not supported by vipd" },
		{ INST("  authentication {\n"
		       "    auth_type AH\n"
		       "    auth_pass x\n"
		       "  }\n"),
			"t.conf:5: 'auth_type AH' is not supported by vipd (vrrp_instance 'VI_1'): "
			"IPsec AH authentication is deprecated" },
		{ INST("  virtual_ipaddress {\n"
		       "    198.18.0.11 brd 198.18.0.255\n"
		       "  }\n"),
			"t.conf:5: virtual_ipaddress '198.18.0.11': 'brd' is not supported by vipd "
			"(only dev and label)" },
		{ INST("  virtual_ipaddress {\n"
		       "    198.18.0.11 no_track\n"
		       "  }\n"),
			"t.conf:5: virtual_ipaddress '198.18.0.11': 'no_track' is not supported" },
		{ INST("  unicast_peer {\n"
		       "    198.18.0.2 min_ttl 1\n"
		       "  }\n"),
			"t.conf:5: unicast_peer '198.18.0.2': 'min_ttl' is not supported by vipd" },
		{ "global_defs {\n  script_user no-such-user-cpha\n}\n" INST(""),
			"t.conf:2: 'script_user': no user 'no-such-user-cpha' to run it as" },
		{ "vrrp_script s {\n  script /bin/true\n  user root no-such-group-cpha\n}\n" INST(
			  ""),
			"t.conf:3: 'user': no group 'no-such-group-cpha' to run it as" },
		{ "vrrp_sync_group G {\n"
		  "  group {\n"
		  "    VI_1\n"
		  "  }\n"
		  "  global_tracking\n"
		  "}\n" INST(""),
			"t.conf:5: 'global_tracking' is not supported by vipd" },
		{ "$IF\n", "t.conf:1: '$IF' is not supported by vipd (a parameter that is not "
			   "defined above ($NAME=VALUE) stays as written)" },
		{ "includea other.conf\n", "t.conf:1: 'includea' is not supported by vipd" },
	};

	(void)state;
	check_bad(b, sizeof(b) / sizeof(b[0]));
}

/* Values out of range or of the wrong kind. */
static void test_values(void **state)
{
	static const struct bad b[] = {
		{ INST("  virtual_router_id 0\n"), "t.conf:4: 'virtual_router_id' is given twice" },
		{ "vrrp_instance VI_1 {\n"
		  "  interface eth0\n"
		  "  virtual_router_id 256\n"
		  "  virtual_ipaddress {\n"
		  "    198.18.0.1\n"
		  "  }\n"
		  "}\n",
			"t.conf:3: 'virtual_router_id' must be a whole number from 1 to 255, not "
			"'256' (vrrp_instance 'VI_1')" },
		{ INST("  priority 0\n"),
			"t.conf:4: 'priority' must be a whole number from 1 to 255, not '0'" },
		{ INST("  priority 256\n"), "t.conf:4: 'priority' must be a whole number from 1" },
		{ INST("  priority 1x\n"), "t.conf:4: 'priority' must be a whole number" },
		{ INST("  advert_int 1.5\n"), "t.conf:4: 'advert_int' must be whole seconds with "
					      "VRRP version 2, not 1.5" },
		{ INST("  advert_int 256\n"), "t.conf:4: 'advert_int' must be a number of seconds "
					      "from 0.01 to 255, not '256'" },
		{ INST("  advert_int 0.001\n"),
			"t.conf:4: 'advert_int' must be a number of seconds from 0.01 to 255" },
		{ INST("  version 3\n"
		       "  advert_int 0.015\n"),
			"t.conf:5: 'advert_int' must be 0.01 to 40.95 seconds in steps of 0.01 "
			"with VRRP version 3, not 0.015" },
		{ INST("  version 3\n"
		       "  advert_int 41\n"),
			"t.conf:5: 'advert_int' must be 0.01 to 40.95 seconds" },
		{ INST("  version 4\n"), "t.conf:4: 'version' must be a whole number from 2 to 3" },
		{ INST("  preempt_delay 1001\n"),
			"t.conf:4: 'preempt_delay' must be a number of seconds from 0 to 1000" },
		{ INST("  interface eth0:1\n"), "t.conf:4: 'interface' is given twice" },
		{ "vrrp_instance VI_1 {\n"
		  "  interface very-long-interface-name\n"
		  "  virtual_router_id 1\n"
		  "  virtual_ipaddress {\n"
		  "    198.18.0.1\n"
		  "  }\n"
		  "}\n",
			"t.conf:2: interface 'very-long-interface-name' is not a valid interface "
			"name" },
		{ INST("  garp_master_repeat 0\n"), "t.conf:4: 'garp_master_repeat' must be a "
						    "whole number from 1 to 4294967295, not '0'" },
		{ INST("  v3_checksum_as_v2 maybe\n"), "t.conf:4: 'v3_checksum_as_v2' takes on, "
						       "off, true, false, yes or no, not 'maybe'" },
		{ "vrrp_script chk {\n"
		  "  script /bin/true\n"
		  "  interval 1.5\n"
		  "}\n",
			"t.conf:3: 'interval' must be a whole number from 1 to 4294, not '1.5' "
			"(vrrp_script 'chk')" },
		{ "vrrp_script chk {\n"
		  "  script /bin/true\n"
		  "  weight -254\n"
		  "}\n",
			"t.conf:3: 'weight' must be a whole number from -253 to 253, not '-254'" },
		{ "vrrp_script chk {\n"
		  "  script /bin/true\n"
		  "  weight 2 rev\n"
		  "}\n",
			"t.conf:3: 'weight': unexpected 'rev'; only 'reverse' may follow" },
		{ "vrrp_script chk {\n"
		  "  script /bin/true\n"
		  "  rise 0\n"
		  "}\n",
			"t.conf:3: 'rise' must be a whole number from 1" },
		{ "vrrp_script chk {\n"
		  "  interval 2\n"
		  "}\n",
			"t.conf:1: vrrp_script 'chk' has no 'script'" },
		{ "track_file tf {\n"
		  "  weight 3\n"
		  "}\n",
			"t.conf:1: track_file 'tf' has no 'file'" },
		{ "track_file tf {\n"
		  "  file /run/tf\n"
		  "  weight 255\n"
		  "}\n",
			"t.conf:3: 'weight' must be a whole number from -254 to 254" },
		{ SCRIPT_INST("  track_script {\n"
			      "    chk weight 254\n"
			      "  }\n"),
			"t.conf:8: 'weight' must be a whole number from -253 to 253, not '254' "
			"(vrrp_instance 'VI_1')" },
		{ SCRIPT_INST("  track_script {\n"
			      "    chk weight -2 no_reverse\n"
			      "  }\n"),
			"t.conf:8: track_script 'chk': unexpected 'no_reverse' after the weight" },
		{ SCRIPT_INST("  track_script {\n"
			      "    chk wieght -2\n"
			      "  }\n"),
			"t.conf:8: track_script 'chk': unexpected 'wieght'; only 'weight N' may "
			"follow" },
		{ INST("  track_interface {\n"
		       "    eth1 weight -2 noreverse\n"
		       "  }\n"),
			"t.conf:5: track_interface 'eth1': unexpected 'noreverse' after the "
			"weight" },
		{ INST("  track_lbd {\n"
		       "    /run/lbd/admin.sock be 0\n"
		       "  }\n"),
			"t.conf:5: track_lbd '/run/lbd/admin.sock be': MIN_UP must be a whole "
			"number from 1 to 65535, not '0'" },
		{ INST("  track_lbd {\n"
		       "    lbd.sock be 1\n"
		       "  }\n"),
			"t.conf:5: track_lbd: 'lbd.sock' is not an absolute path" },
		{ "global_defs {\n"
		  "  vrrp_version 1\n"
		  "}\n",
			"t.conf:2: 'vrrp_version' must be a whole number from 2 to 3" },
		{ "global_defs {\n"
		  "  max_auto_priority 100\n"
		  "}\n",
			"t.conf:2: 'max_auto_priority' must be a whole number from -1 to 99" },
		{ "global_defs {\n"
		  "  vipd_metrics_bind 127.0.0.1\n"
		  "}\n",
			"t.conf:2: 'vipd_metrics_bind' '127.0.0.1': missing port" },
		{ "global_defs {\n"
		  "  vipd_metrics_web_config /nonexistent/web.yml\n"
		  "}\n",
			"t.conf:2: 'vipd_metrics_web_config': /nonexistent/web.yml: "
			"No such file or directory (global_defs)" },
		{ "global_defs {\n"
		  "  vipd_metrics_web_config /dev/null\n"
		  "}\n",
			"t.conf:2: 'vipd_metrics_web_config' without 'vipd_metrics_bind'" },
		{ "global_defs {\n"
		  "  vipd_admin_socket admin.sock\n"
		  "}\n",
			"t.conf:2: 'vipd_admin_socket' needs an absolute path" },
		{ "global_defs {\n"
		  "  router_id\n"
		  "}\n",
			"t.conf:2: 'router_id' needs a value" },
		{ "global_defs {\n"
		  "  enable_script_security yes\n"
		  "}\n",
			"t.conf:2: 'enable_script_security': unexpected 'yes'" },
		{ "global_defs {\n"
		  "  dynamic_interfaces always\n"
		  "}\n",
			"t.conf:2: 'dynamic_interfaces': unexpected 'always'" },
	};

	(void)state;
	check_bad(b, sizeof(b) / sizeof(b[0]));
}

/* Addresses: families, VIPs, unicast. */
static void test_addresses(void **state)
{
	static const struct bad b[] = {
		{ INST("  virtual_ipaddress {\n"
		       "    2001:db8::1\n"
		       "  }\n"),
			"t.conf:8: virtual_ipaddress 198.18.0.10 is IPv4 but 2001:db8::1 at line 5 "
			"is IPv6: an instance has one address family" },
		{ "vrrp_instance VI_1 {\n"
		  "  interface eth0\n"
		  "  virtual_router_id 1\n"
		  "  version 2\n"
		  "  virtual_ipaddress {\n"
		  "    2001:db8::1\n"
		  "  }\n"
		  "}\n",
			"t.conf:4: VRRP version 2 carries only IPv4 addresses (RFC 3768) but the "
			"VIPs of vrrp_instance 'VI_1' are IPv6: use version 3" },
		{ INST("  virtual_ipaddress {\n"
		       "    198.18.0.300\n"
		       "  }\n"),
			"t.conf:5: virtual_ipaddress '198.18.0.300': not a valid IPv4 address" },
		{ INST("  virtual_ipaddress {\n"
		       "    198.18.0.1/33\n"
		       "  }\n"),
			"t.conf:5: virtual_ipaddress '198.18.0.1/33': prefix length must be 0 to "
			"32" },
		{ INST("  virtual_ipaddress {\n"
		       "    0.0.0.0\n"
		       "  }\n"),
			"t.conf:5: virtual_ipaddress '0.0.0.0': the unspecified address" },
		{ INST("  virtual_ipaddress {\n"
		       "    224.0.0.18\n"
		       "  }\n"),
			"t.conf:5: virtual_ipaddress '224.0.0.18': a multicast address" },
		{ INST("  virtual_ipaddress {\n"
		       "    198.18.0.10/24\n"
		       "  }\n"),
			"t.conf:8: virtual_ipaddress 198.18.0.10 is already at line 5 "
			"(vrrp_instance 'VI_1'): one address, one instance" },
		{ INST("  virtual_ipaddress {\n"
		       "    198.18.0.11 dev\n"
		       "  }\n"),
			"t.conf:5: virtual_ipaddress '198.18.0.11': 'dev' needs a value" },
		{ INST("  virtual_ipaddress {\n"
		       "  }\n"),
			"t.conf:4: 'virtual_ipaddress' is empty (vrrp_instance 'VI_1')" },
		{ "vrrp_instance VI_1 {\n"
		  "  interface eth0\n"
		  "  virtual_router_id 1\n"
		  "}\n",
			"t.conf:1: vrrp_instance 'VI_1' has no virtual_ipaddress" },
		{ "vrrp_instance VI_1 {\n"
		  "  virtual_router_id 1\n"
		  "  virtual_ipaddress {\n"
		  "    198.18.0.1\n"
		  "  }\n"
		  "}\n",
			"t.conf:1: vrrp_instance 'VI_1' has no 'interface'" },
		{ "vrrp_instance VI_1 {\n"
		  "  interface eth0\n"
		  "  virtual_ipaddress {\n"
		  "    198.18.0.1\n"
		  "  }\n"
		  "}\n",
			"t.conf:1: vrrp_instance 'VI_1' has no 'virtual_router_id'" },
		{ INST("  unicast_peer {\n"
		       "  }\n"),
			"t.conf:4: 'unicast_peer' is empty: an empty peer list is an error, never "
			"a silent fallback to multicast (vrrp_instance 'VI_1')" },
		{ INST("  unicast_src_ip 2001:db8::1\n"
		       "  unicast_peer {\n"
		       "    198.18.0.2\n"
		       "  }\n"),
			"t.conf:4: unicast_src_ip 2001:db8::1 is IPv6 but the VIPs are IPv4" },
		{ INST("  unicast_peer {\n"
		       "    2001:db8::2\n"
		       "  }\n"),
			"t.conf:5: unicast_peer 2001:db8::2 is IPv6 but the VIPs are IPv4" },
		{ INST("  unicast_src_ip 198.18.0.1\n"
		       "  unicast_peer {\n"
		       "    198.18.0.1\n"
		       "  }\n"),
			"t.conf:6: unicast_peer 198.18.0.1 is this node's own unicast_src_ip" },
		{ INST("  unicast_peer {\n"
		       "    198.18.0.2\n"
		       "    198.18.0.2\n"
		       "  }\n"),
			"t.conf:6: unicast_peer 198.18.0.2 is listed twice (vrrp_instance 'VI_1'; "
			"first at line 5)" },
		{ INST("  unicast_peer { 198.18.0.2 198.18.0.3 }\n"),
			"t.conf:4: unicast_peer '198.18.0.2': unexpected '198.18.0.3'; one address "
			"per line" },
		{ INST("  unicast_peer {\n"
		       "    198.18.0.2:112\n"
		       "  }\n"),
			"t.conf:5: unicast_peer '198.18.0.2:112': a port is not allowed here" },
		{ INST("  unicast_src_ip 198.18.0.1\n"
		       "  mcast_src_ip 198.18.0.1\n"),
			"t.conf:5: 'mcast_src_ip' is given twice (vrrp_instance 'VI_1'; first at "
			"line 4)" },
		/* the same VRID, family and interface */
		{ INST("") "vrrp_instance VI_2 {\n"
			   "  interface eth0\n"
			   "  virtual_router_id 51\n"
			   "  virtual_ipaddress {\n"
			   "    198.18.0.11\n"
			   "  }\n"
			   "}\n",
			"t.conf:10: vrrp_instance 'VI_2' and vrrp_instance 'VI_1' (line 1) both "
			"use VRID 51 for IPv4 on eth0" },
		{ INST("  unicast_peer {\n"
		       "    198.18.0.2\n"
		       "  }\n") "vrrp_instance VI_2 {\n"
				"  interface eth0\n"
				"  virtual_router_id 51\n"
				"  unicast_peer {\n"
				"    198.18.0.2\n"
				"  }\n"
				"  virtual_ipaddress {\n"
				"    198.18.0.11\n"
				"  }\n"
				"}\n",
			"t.conf:13: vrrp_instance 'VI_2' and vrrp_instance 'VI_1' (line 1) both "
			"use VRID 51 for IPv4 on eth0 with the same unicast peers" },
	};

	(void)state;
	check_bad(b, sizeof(b) / sizeof(b[0]));
}

/* Preemption, authentication, tracking, sync groups, names. */
static void test_rules(void **state)
{
	static const struct bad b[] = {
		{ INST("  authentication {\n"
		       "    auth_pass secret\n"
		       "  }\n"),
			"t.conf:4: 'authentication' has no 'auth_type PASS'" },
		{ INST("  authentication {\n"
		       "    auth_type NONE\n"
		       "    auth_pass x\n"
		       "  }\n"),
			"t.conf:5: 'auth_type' must be PASS, not 'NONE'" },
		{ INST("  track_script {\n"
		       "    nope\n"
		       "  }\n"),
			"t.conf:5: no vrrp_script 'nope' (vrrp_instance 'VI_1')" },
		{ INST("  track_script {\n"
		       "    late\n"
		       "  }\n") "vrrp_script late {\n"
				"  script /bin/true\n"
				"}\n",
			"t.conf:5: vrrp_script 'late' is defined after its use, at line 11; "
			"keepalived only sees definitions that come first and would ignore this "
			"track" },
		{ INST("  track_file {\n"
		       "    tf\n"
		       "  }\n") "track_file tf {\n"
				"  file /run/tf\n"
				"}\n",
			"t.conf:5: track_file 'tf' is defined after its use, at line 11" },
		{ INST("  track_file {\n"
		       "    nope\n"
		       "  }\n"),
			"t.conf:5: no track_file 'nope'" },
		{ SCRIPT_INST("  track_script {\n"
			      "    chk\n"
			      "    chk weight 2\n"
			      "  }\n"),
			"t.conf:9: track_script 'chk' is listed twice (vrrp_instance 'VI_1'; first "
			"at line 8)" },
		{ SCRIPT_INST("  priority 255\n"
			      "  track_script {\n"
			      "    chk weight -2\n"
			      "  }\n"),
			"t.conf:9: track_script 'chk' has weight -2 but vrrp_instance 'VI_1' is "
			"the address owner (priority 255), whose priority never changes "
			"(keepalived ignores the track): use weight 0" },
		{ "track_file tf {\n"
		  "  file /run/tf\n"
		  "}\n" INST("  priority 255\n"
			     "  track_file {\n"
			     "    tf\n"
			     "  }\n"),
			"t.conf:9: track_file 'tf' has weight 1 but vrrp_instance 'VI_1' is the "
			"address owner" },
		{ SCRIPT_INST("  track_script {\n"
			      "    chk weight -2\n"
			      "  }\n") "vrrp_sync_group G {\n"
				       "  group {\n"
				       "    VI_1\n"
				       "  }\n"
				       "}\n",
			"t.conf:8: track_script 'chk' has weight -2 but vrrp_instance 'VI_1' is in "
			"a vrrp_sync_group, whose members keep their priority (keepalived ignores "
			"the track): use weight 0, or track on the sync group" },
		{ "vrrp_script chk {\n"
		  "  script /bin/true\n"
		  "}\n"
		  "vrrp_sync_group G {\n"
		  "  group {\n"
		  "    VI_1\n"
		  "  }\n"
		  "  track_script {\n"
		  "    chk weight -2\n"
		  "  }\n"
		  "}\n" INST("  priority 255\n"),
			"t.conf:9: 'chk' has weight -2 but member vrrp_instance 'VI_1' is the "
			"address owner" },
		{ "vrrp_sync_group G {\n"
		  "  group {\n"
		  "    VI_1\n"
		  "    VI_X\n"
		  "  }\n"
		  "}\n" INST(""),
			"t.conf:4: no vrrp_instance 'VI_X' (vrrp_sync_group 'G')" },
		{ "vrrp_sync_group G {\n"
		  "  group {\n"
		  "    VI_1\n"
		  "  }\n"
		  "}\n"
		  "vrrp_sync_group H {\n"
		  "  group {\n"
		  "    VI_1\n"
		  "  }\n"
		  "}\n" INST(""),
			"t.conf:8: vrrp_instance 'VI_1' is already in vrrp_sync_group 'G' (line "
			"1); an instance is in one group" },
		{ "vrrp_sync_group G {\n"
		  "  group {\n"
		  "    VI_1 VI_1\n"
		  "  }\n"
		  "}\n" INST(""),
			"t.conf:3: vrrp_instance 'VI_1' is listed twice (vrrp_sync_group 'G')" },
		{ "vrrp_sync_group G {\n"
		  "  group {\n"
		  "    VI_1\n"
		  "    VI_2\n"
		  "  }\n"
		  "  track_interface {\n"
		  "    eth0\n"
		  "  }\n"
		  "}\n" INST("") "vrrp_instance VI_2 {\n"
				 "  interface eth1\n"
				 "  virtual_router_id 2\n"
				 "  virtual_ipaddress {\n"
				 "    198.18.0.2\n"
				 "  }\n"
				 "}\n",
			"t.conf:7: track_interface 'eth0' of vrrp_sync_group 'G' is also tracked "
			"by "
			"member vrrp_instance 'VI_1' (its interface); keepalived refuses that: "
			"keep "
			"one" },
		{ "vrrp_sync_group G {\n"
		  "  notify_master /bin/m\n"
		  "}\n",
			"t.conf:1: vrrp_sync_group 'G' has no 'group' of instances" },
		{ "vrrp_sync_group G {\n"
		  "  group {\n"
		  "  }\n"
		  "}\n",
			"t.conf:2: 'group' is empty" },
		{ "vrrp_sync_group G {\n"
		  "  group {\n"
		  "    VI_1\n"
		  "  }\n"
		  "  track_lbd {\n"
		  "  }\n"
		  "}\n" INST(""),
			"t.conf:5: 'track_lbd' is not supported by vipd (vrrp_sync_group 'G')" },
		{ INST("") INST(""),
			"t.conf:8: vrrp_instance 'VI_1' is defined twice (first at line 1)" },
		{ "vrrp_script a {\n"
		  "  script /bin/true\n"
		  "}\n"
		  "vrrp_script a {\n"
		  "  script /bin/false\n"
		  "}\n",
			"t.conf:4: vrrp_script 'a' is defined twice (first at line 1)" },
		{ "track_file t {\n"
		  "  file /a\n"
		  "}\n"
		  "vrrp_track_file t {\n"
		  "  file /b\n"
		  "}\n",
			"t.conf:4: track_file 't' is defined twice (first at line 1)" },
		{ "vrrp_instance {\n"
		  "}\n",
			"t.conf:1: 'vrrp_instance' needs a name" },
		{ "vrrp_instance A B {\n"
		  "}\n",
			"t.conf:1: 'vrrp_instance' takes only a name" },
	};

	(void)state;
	check_bad(b, sizeof(b) / sizeof(b[0]));
}

/* The structure of the file: braces, quotes, repeats. */
static void test_syntax(void **state)
{
	static const struct bad b[] = {
		{ "vrrp_instance VI_1 {\n"
		  "  interface eth0\n",
			"t.conf:1: 'vrrp_instance' block is not closed (a '}' is missing)" },
		{ "global_defs {\n"
		  "}\n"
		  "}\n",
			"t.conf:3: '}' without a block to close" },
		{ "global_defs {\n"
		  "}\n"
		  "{\n"
		  "}\n",
			"t.conf:3: '{' without a keyword before it" },
		{ "vrrp_instance VI_1\n", "t.conf:1: 'vrrp_instance' needs a block: vrrp_instance "
					  "{ ... } (top level)" },
		{ "global_defs {\n"
		  "  router_id a {\n"
		  "  }\n"
		  "}\n",
			"t.conf:2: 'router_id' takes no block (global_defs)" },
		{ INST("  virtual_ipaddress {\n"
		       "    198.18.0.11 {\n"
		       "    }\n"
		       "  }\n"),
			"t.conf:5: '198.18.0.11' takes no block here (vrrp_instance 'VI_1')" },
		{ INST("  priority 100\n"
		       "  priority 101\n"),
			"t.conf:5: 'priority' is given twice (vrrp_instance 'VI_1'; first at line "
			"4)" },
		{ INST("  authentication {\n"
		       "    auth_type PASS\n"
		       "    auth_pass x\n"
		       "  }\n"
		       "  authentication {\n"
		       "  }\n"),
			"t.conf:8: 'authentication' is given twice" },
		{ "global_defs {\n"
		  "  router_id \"unterminated\n"
		  "}\n",
			"t.conf:2: unterminated double quote" },
		{ "global_defs {\n"
		  "  rooter_id x\n"
		  "}\n",
			"t.conf:2: 'rooter_id' is not supported by vipd (global_defs)" },
		{ "include other.conf\n",
			"t.conf:1: 'include' works only in a configuration read from a file" },
		{ "a {\n"
		  "b {\n"
		  "c {\n"
		  "d {\n"
		  "e {\n"
		  "f {\n"
		  "g {\n"
		  "h {\n"
		  "i {\n"
		  "j {\n"
		  "k {\n"
		  "l {\n"
		  "m {\n"
		  "n {\n"
		  "o {\n"
		  "p {\n"
		  "q {\n",
			"t.conf:17: blocks are nested deeper than 16 levels" },
	};

	(void)state;
	check_bad(b, sizeof(b) / sizeof(b[0]));
}

/* Every error of a file at once, in line order. */
static void test_many_errors(void **state)
{
	const char *got;
	size_t n;

	(void)state;
	got = load_bad("global_defs {\n"
		       "  vrrp_strict\n"
		       "}\n"
		       "vrrp_instance VI_1 {\n"
		       "  interface eth0\n"
		       "  virtual_router_id 300\n"
		       "  priority 101\n"
		       "  state MASTER\n"
		       "  nopreempt\n"
		       "  unicast_peer {\n"
		       "  }\n"
		       "  track_script {\n"
		       "    nope\n"
		       "  }\n"
		       "  virtual_ipaddress {\n"
		       "    198.18.0.10\n"
		       "    2001:db8::1\n"
		       "  }\n"
		       "}\n"
		       "virtual_server 198.18.0.10 6443 {\n"
		       "}\n",
		&n);
	assert_int_equal(n, 5);
	assert_string_equal(got,
		"t.conf:6: 'virtual_router_id' must be a whole number from 1 to 255, not '300' "
		"(vrrp_instance 'VI_1')\n"
		"t.conf:10: 'unicast_peer' is empty: an empty peer list is an error, never a "
		"silent fallback to multicast (vrrp_instance 'VI_1')\n"
		"t.conf:13: no vrrp_script 'nope' (vrrp_instance 'VI_1')\n"
		"t.conf:17: virtual_ipaddress 2001:db8::1 is IPv6 but 198.18.0.10 at line 16 is "
		"IPv4: an instance has one address family; use a second instance (vrrp_instance "
		"'VI_1')\n"
		"t.conf:20: 'virtual_server' is not supported by vipd (it only does VRRP)\n");
}

/* More VIPs than an advertisement can count: one error. */
static void test_too_many_vips(void **state)
{
	static char text[16384];
	const char *got;
	size_t i, o = 0, n;

	(void)state;
	o += (size_t)snprintf(text + o, sizeof(text) - o,
		"vrrp_instance VI_1 {\n  interface eth0\n  virtual_router_id 1\n"
		"  virtual_ipaddress {\n");
	for (i = 0; i < 300; i++)
		o += (size_t)snprintf(
			text + o, sizeof(text) - o, "    198.18.%zu.%zu\n", i / 200, i % 200 + 1);
	snprintf(text + o, sizeof(text) - o, "  }\n}\n");
	got = load_bad(text, &n);
	assert_int_equal(n, 1);
	assert_string_equal(got,
		"t.conf:260: more than 255 virtual_ipaddress entries: VRRP "
		"counts them in 8 bits (RFC 9568 §5.2.5) (vrrp_instance 'VI_1')\n");
}

/* More than 100 errors: the first 100 and a last word. */
static void test_too_many_errors(void **state)
{
	static char text[8192];
	const char *got;
	size_t i, o = 0, n;

	(void)state;
	o += (size_t)snprintf(text + o, sizeof(text) - o, "global_defs {\n");
	for (i = 0; i < 150; i++)
		o += (size_t)snprintf(text + o, sizeof(text) - o, "  bogus%zu\n", i);
	snprintf(text + o, sizeof(text) - o, "}\n");
	got = load_bad(text, &n);
	assert_int_equal(n, 101);
	assert_non_null(strstr(got, "t.conf:2: 'bogus0' is not supported by vipd"));
	assert_non_null(strstr(got, "too many errors; stopped here"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unsupported),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_syntax),
		cmocka_unit_test(test_many_errors),
		cmocka_unit_test(test_too_many_vips),
		cmocka_unit_test(test_too_many_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
