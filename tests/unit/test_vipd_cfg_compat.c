/* vipd's configuration parser: keepalived 2.2's keywords of public
 * control-plane files. What keepalived warns about and ignores is a notice
 * at its line and is ignored (authentication in VRRPv3, a label on an IPv6
 * address, nopreempt with state MASTER, an unknown state); vrrp_track_process
 * and track_process,
 * dont_track_primary, vrrp_strict and vrrp_mcast_group4/6 do what
 * keepalived does. */
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

static struct vipd_config *load_ok(const char *text)
{
	struct cpha_msgs errs = { 0 };
	struct vipd_config *c = NULL;

	if (vipd_cfg_load_mem("t.conf", text, strlen(text), &c, &errs) < 0) {
		print_error("refused:\n%s", join_errs(&errs));
		cpha_msgs_free(&errs);
		fail();
	}
	return c;
}

/* The errors of text that must be refused. */
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

static void test_warn_and_ignore(void **state)
{
	struct vipd_config *c;
	const struct vipd_instance *v;

	(void)state;
	/* OpenShift's dual-stack template: authentication and label in IPv6 */
	c = load_ok("vrrp_instance A6 {\n"
		    "  interface eth0\n"
		    "  virtual_router_id 52\n"
		    "  authentication {\n"
		    "    auth_type PASS\n"
		    "    auth_pass x\n"
		    "  }\n"
		    "  virtual_ipaddress {\n"
		    "    2001:db8::5/64 label eth0:vip\n"
		    "  }\n"
		    "}\n");
	v = vipd_cfg_instance(c, "A6");
	assert_int_equal(v->version, 3);
	assert_int_equal(v->auth, VIPD_AUTH_NONE);
	assert_null(v->vips[0].label);
	join(c->notices, c->nnotices);
	assert_has(joined, "t.conf:4: 'authentication' is ignored: VRRP version 3, the version of "
			   "IPv6 instances, has no authentication");
	assert_has(joined, "t.conf:9: virtual_ipaddress '2001:db8::5/64': IPv6 addresses have no "
			   "label; 'label eth0:vip' is ignored");
	vipd_cfg_free(c);

	/* nopreempt with state MASTER: cleared */
	c = load_ok(INST("  state MASTER\n"
			 "  priority 101\n"
			 "  nopreempt\n"
			 "  preempt_delay 5\n"));
	v = vipd_cfg_instance(c, "VI_1");
	assert_false(v->nopreempt);
	assert_int_equal(v->preempt_delay, 0);
	join(c->notices, c->nnotices);
	assert_has(joined, "t.conf:6: 'nopreempt' does not work with state MASTER: ignored");
	assert_has(joined, "t.conf:7: 'preempt_delay' does not work with state MASTER: ignored");
	vipd_cfg_free(c);

	/* an unknown state is BACKUP; a label need not start with the interface */
	c = load_ok("vrrp_instance VI_1 {\n"
		    "  state SLAVE\n"
		    "  interface eth0\n"
		    "  virtual_router_id 51\n"
		    "  virtual_ipaddress {\n"
		    "    198.18.0.10/24 label vip\n"
		    "  }\n"
		    "  track_interface {\n"
		    "    eth0\n"
		    "  }\n"
		    "}\n");
	v = vipd_cfg_instance(c, "VI_1");
	assert_int_equal(v->state, VIPD_INIT_BACKUP);
	assert_string_equal(v->vips[0].label, "vip");
	assert_int_equal(v->ntrack_interface, 0);
	join(c->notices, c->nnotices);
	assert_has(joined, "t.conf:2: 'state' is MASTER or BACKUP, not 'SLAVE': BACKUP is used");
	assert_has(joined, "t.conf:9: track_interface 'eth0' is the interface of vrrp_instance "
			   "'VI_1', which is tracked anyway: the entry is ignored");
	assert_null(strstr(joined, "label"));
	vipd_cfg_free(c);
}

static void test_dont_track_primary_and_globals(void **state)
{
	struct vipd_config *c;
	const struct vipd_instance *v;

	(void)state;
	c = load_ok("global_defs {\n"
		    "  vrrp_mcast_group4 224.0.0.18\n"
		    "  vrrp_mcast_group6 ff02::12\n"
		    "  vrrp_min_garp\n"
		    "  vrrp_check_unicast_src\n"
		    "  vrrp_priority -10\n"
		    "  vrrp_no_swap\n"
		    "  enable_snmp_vrrp\n"
		    "}\n" INST("  dont_track_primary\n"
			       "  accept\n"));
	v = vipd_cfg_instance(c, "VI_1");
	assert_true(v->dont_track_primary);
	assert_int_equal(v->garp_master_repeat, 1);
	assert_int_equal(v->garp_master_delay, 0);
	join(c->notices, c->nnotices);
	assert_has(joined, "t.conf:5: 'vrrp_check_unicast_src' has no effect in vipd");
	assert_has(joined, "t.conf:6: 'vrrp_priority' has no effect in vipd");
	assert_has(joined, "t.conf:8: 'enable_snmp_vrrp' has no effect in vipd");
	assert_has(joined, "t.conf:14: 'accept' is what vipd always does");
	assert_null(strstr(joined, "mcast_group"));
	vipd_cfg_free(c);

	assert_has(load_bad("global_defs {\n  vrrp_mcast_group4 2001:db8::1\n}\n" INST("")),
		"t.conf:2: 'vrrp_mcast_group4' needs an IPv4 multicast address");
	assert_has(load_bad("global_defs {\n  vrrp_mcast_group6 224.0.0.100\n}\n" INST("")),
		"t.conf:2: 'vrrp_mcast_group6' needs an IPv6 multicast address");
	/* no_accept: keepalived without firewall support warns and carries on */
	c = load_ok(INST("  no_accept\n"));
	join(c->notices, c->nnotices);
	assert_has(joined, "t.conf:4: 'no_accept' is ignored: vipd adds no firewall rules");
	vipd_cfg_free(c);
}

/* vrrp_mcast_group4/6: any multicast group, kept; the RFC ones by default */
static void test_mcast_group(void **state)
{
	struct vipd_config *c;
	const struct vipd_instance *v;
	char a[CPHA_ADDR_STRLEN];

	(void)state;
	c = load_ok(INST(""));
	assert_string_equal(cpha_addr_format(&c->global.mcast4, a, sizeof(a)), "224.0.0.18");
	assert_string_equal(cpha_addr_format(&c->global.mcast6, a, sizeof(a)), "ff02::12");
	vipd_cfg_free(c);

	c = load_ok("global_defs {\n"
		    "  vrrp_mcast_group4 224.0.0.100\n"
		    "  vrrp_mcast_group6 ff02::1:ff\n"
		    "}\n" INST(""));
	assert_string_equal(cpha_addr_format(&c->global.mcast4, a, sizeof(a)), "224.0.0.100");
	assert_string_equal(cpha_addr_format(&c->global.mcast6, a, sizeof(a)), "ff02::1:ff");
	vipd_cfg_free(c);

	c = load_ok("global_defs {\n"
		    "  vrrp_mcast_group4 239.255.255.255\n"
		    "  vrrp_mcast_group6 ff05::100\n"
		    "}\n" INST(""));
	assert_string_equal(cpha_addr_format(&c->global.mcast4, a, sizeof(a)), "239.255.255.255");
	vipd_cfg_free(c);

	assert_has(load_bad("global_defs {\n  vrrp_mcast_group4 223.255.255.255\n}\n" INST("")),
		"t.conf:2: 'vrrp_mcast_group4 223.255.255.255' is not a multicast address: IPv4 "
		"multicast is 224.0.0.0/4 (global_defs)");
	assert_has(load_bad("global_defs {\n  vrrp_mcast_group4 240.0.0.1\n}\n" INST("")),
		"t.conf:2: 'vrrp_mcast_group4 240.0.0.1' is not a multicast address");
	assert_has(load_bad("global_defs {\n  vrrp_mcast_group6 fe80::12\n}\n" INST("")),
		"t.conf:2: 'vrrp_mcast_group6 fe80::12' is not a multicast address: IPv6 "
		"multicast is ff00::/8 (global_defs)");
	assert_has(load_bad("global_defs {\n\n  vrrp_mcast_group4\n}\n" INST("")), "t.conf:3: ");
	assert_has(load_bad("global_defs {\n  vrrp_mcast_group4 nonsense\n}\n" INST("")),
		"t.conf:2: 'vrrp_mcast_group4' needs an IPv4 multicast address, not 'nonsense'");

	/* mcast_dst_ip: the instance's own group, as keepalived 2.2.7 */
	c = load_ok("global_defs {\n  vrrp_mcast_group4 224.0.0.100\n}\n" INST(
		"  mcast_dst_ip 239.1.2.3\n"));
	v = vipd_cfg_instance(c, "VI_1");
	assert_true(v->mcast_dst_set);
	assert_string_equal(cpha_addr_format(&v->mcast_dst, a, sizeof(a)), "239.1.2.3");
	assert_string_equal(cpha_addr_format(&c->global.mcast4, a, sizeof(a)), "224.0.0.100");
	vipd_cfg_free(c);
	c = load_ok(INST(""));
	assert_false(vipd_cfg_instance(c, "VI_1")->mcast_dst_set);
	vipd_cfg_free(c);
	assert_has(load_bad(INST("  mcast_dst_ip 198.18.0.1\n")),
		"t.conf:4: 'mcast_dst_ip 198.18.0.1' is not an IPv4 multicast address "
		"(224.0.0.0/4) (vrrp_instance 'VI_1')");
	assert_has(load_bad(INST("  mcast_dst_ip ff05::12\n")),
		"t.conf:4: 'mcast_dst_ip ff05::12' is not a link-local IPv6 multicast address");
	assert_has(load_bad(INST("  mcast_dst_ip ff02::12\n")),
		"t.conf:4: mcast_dst_ip ff02::12 is IPv6 but the VIPs are IPv4");
	assert_has(load_bad(INST("  mcast_dst_ip 224.0.0.100\n  mcast_dst_ip 224.0.0.101\n")),
		"t.conf:5: 'mcast_dst_ip' is given twice");
}

static void test_strict(void **state)
{
	struct vipd_config *c;
	const struct vipd_instance *v;

	(void)state;
	c = load_ok("global_defs {\n"
		    "  vrrp_strict\n"
		    "}\n" INST("  state MASTER\n"
			       "  priority 101\n"
			       "  authentication {\n"
			       "    auth_type PASS\n"
			       "    auth_pass x\n"
			       "  }\n"));
	v = vipd_cfg_instance(c, "VI_1");
	assert_true(c->global.strict);
	assert_int_equal(v->state, VIPD_INIT_BACKUP);
	assert_int_equal(v->auth, VIPD_AUTH_NONE);
	join(c->notices, c->nnotices);
	assert_has(joined, "t.conf:2: vrrp_strict: vipd adds no firewall rules");
	assert_has(joined, "t.conf:7: with vrrp_strict only the address owner (priority 255) "
			   "starts as MASTER: vrrp_instance 'VI_1' starts as BACKUP");
	assert_has(joined, "t.conf:9: 'authentication' is ignored with vrrp_strict");
	vipd_cfg_free(c);

	assert_has(load_bad("global_defs {\n  vrrp_strict\n}\n" INST("  unicast_peer {\n"
								     "    198.18.0.12\n"
								     "  }\n")),
		"t.conf:8: unicast peers are not allowed with vrrp_strict");
	assert_has(load_bad("global_defs {\n  vrrp_strict\n}\n" INST(
			   "  version 2\n") "vrrp_instance B {\n"
					    "  interface eth0\n"
					    "  virtual_router_id 52\n"
					    "  version 2\n"
					    "  virtual_ipaddress {\n"
					    "    2001:db8::1\n"
					    "  }\n"
					    "}\n"),
		"t.conf:15: VRRP version 2 carries only IPv4 addresses");
}

static void test_track_process(void **state)
{
	struct vipd_config *c;
	const struct vipd_track_process_def *p;
	const struct vipd_instance *v;

	(void)state;
	c = load_ok("vrrp_track_process lb {\n"
		    "  process haproxy\n"
		    "  weight -20\n"
		    "  quorum 2\n"
		    "  quorum_max 4\n"
		    "  delay 0.5\n"
		    "  fork_delay 2\n"
		    "}\n"
		    "vrrp_track_process cmd {\n"
		    "  process /usr/sbin/lbd -f /etc/lbd/lbd.cfg\n"
		    "  param_match initial\n"
		    "}\n"
		    "vrrp_track_process none {\n"
		    "  process rogue\n"
		    "  quorum_max 0\n"
		    "  weight 10 reverse\n"
		    "}\n");
	p = vipd_cfg_track_process(c, "lb");
	assert_non_null(p);
	assert_string_equal(p->process, "haproxy");
	assert_false(p->full_command);
	assert_int_equal(p->weight, -20);
	assert_int_equal(p->quorum, 2);
	assert_int_equal(p->quorum_max, 4);
	assert_int_equal(p->terminate_delay, 500000);
	assert_int_equal(p->fork_delay, 2000000);
	p = vipd_cfg_track_process(c, "cmd");
	assert_true(p->full_command);
	assert_int_equal(p->param_match, VIPD_PARAM_INITIAL);
	assert_int_equal(p->params_len, sizeof("-f\0/etc/lbd/lbd.cfg"));
	assert_memory_equal(p->params, "-f\0/etc/lbd/lbd.cfg", p->params_len);
	assert_int_equal(p->quorum, 1);
	p = vipd_cfg_track_process(c, "none");
	assert_int_equal(p->quorum, 0);
	assert_int_equal(p->quorum_max, 0);
	assert_true(p->weight_reverse);
	vipd_cfg_free(c);

	/* instances track them with the definition's weight or their own */
	c = load_ok("vrrp_track_process lb {\n  process haproxy\n  weight -20\n}\n"
		    "vrrp_track_process none {\n  process rogue\n  quorum_max 0\n"
		    "  weight 10 reverse\n}\n" INST("  track_process {\n"
						    "    lb\n"
						    "    none weight 0\n"
						    "  }\n"));
	v = vipd_cfg_instance(c, "VI_1");
	assert_int_equal(v->ntrack_process, 2);
	assert_true(v->track_process[0].process);
	assert_int_equal(v->track_process[0].weight, -20);
	assert_false(v->track_process[0].weight_set);
	assert_int_equal(v->track_process[1].weight, 0);
	assert_true(v->track_process[1].weight_set);
	assert_false(v->track_process[1].weight_reverse); /* the entry's weight replaces both */
	assert_int_equal(v->track_process[0].line, 14);
	vipd_cfg_free(c);
	c = load_ok("vrrp_track_process none {\n  process rogue\n  quorum_max 0\n"
		    "  weight 10 reverse\n}\n" INST("") "vrrp_sync_group G {\n"
							"  group {\n    VI_1\n  }\n"
							"  track_process {\n"
							"    none weight 5 noreverse\n"
							"  }\n"
							"}\n");
	assert_int_equal(c->groups[0].ntrack_process, 1);
	assert_true(c->groups[0].track_process[0].process);
	assert_int_equal(c->groups[0].track_process[0].weight, 5);
	assert_false(c->groups[0].track_process[0].weight_reverse);
	vipd_cfg_free(c);

	/* a name longer than comm holds never matches: said at its line */
	c = load_ok("vrrp_track_process k {\n  process kube-controller-manager\n}\n");
	join(c->notices, c->nnotices);
	assert_has(joined, "t.conf:2: process 'kube-controller-manager' is longer than the 15 "
			   "characters of a process name");
	vipd_cfg_free(c);

	assert_has(load_bad("vrrp_track_process p {\n  weight 2\n}\n"),
		"t.conf:1: vrrp_track_process 'p' has no 'process'");
	assert_has(load_bad("vrrp_track_process p {\n  process x\n  quorum 3\n  quorum_max 2\n}\n"),
		"t.conf:3: 'quorum' 3 is above 'quorum_max' 2");
	assert_has(load_bad("vrrp_track_process p {\n  process x\n  weight 255\n}\n"),
		"t.conf:3: 'weight' must be a whole number from -254 to 254");
	assert_has(load_bad("vrrp_track_process p {\n  process x\n  param_match all\n}\n"),
		"t.conf:3: 'param_match' takes nothing, 'initial' or 'partial', not 'all'");
	assert_has(load_bad("vrrp_track_process p {\n  process x\n  delay 3601\n}\n"),
		"t.conf:3: 'delay' must be a number of seconds from 0.000001 to 3600");
	assert_has(load_bad(INST("  track_process {\n    nope\n  }\n")),
		"t.conf:5: no vrrp_track_process 'nope' (vrrp_instance 'VI_1')");
	assert_has(load_bad(INST("  track_process {\n    late\n  }\n") "vrrp_track_process late {\n"
								       "  process x\n"
								       "}\n"),
		"t.conf:5: vrrp_track_process 'late' is defined after its use, at line 11");
}

/* notify fifos, their scripts and flags, vrrp_startup_delay,
 * vrrp_delay_after_boot: one table row each */
static void test_fifo_and_delay(void **state)
{
	struct vipd_config *c;

	(void)state;
	c = load_ok("global_defs {\n"
		    "  notify_fifo /run/ka.fifo root root\n"
		    "  notify_fifo_script \"/usr/local/bin/reader --x\"\n"
		    "  vrrp_notify_fifo /run/vrrp.fifo\n"
		    "  vrrp_notify_fifo_script /bin/cat\n"
		    "  fifo_write_vrrp_states_on_reload\n"
		    "  vrrp_notify_priority_changes\n"
		    "  lvs_notify_fifo /run/lvs.fifo\n"
		    "  vrrp_startup_delay 5.5\n"
		    "  vrrp_delay_after_boot 90\n"
		    "}\n" INST(""));
	assert_string_equal(c->global.fifo[0].path, "/run/ka.fifo");
	assert_string_equal(c->global.fifo[0].user, "root");
	assert_string_equal(c->global.fifo[0].group, "root");
	assert_string_equal(c->global.fifo[0].script, "/usr/local/bin/reader --x");
	assert_string_equal(c->global.fifo[1].path, "/run/vrrp.fifo");
	assert_null(c->global.fifo[1].user);
	assert_string_equal(c->global.fifo[1].script, "/bin/cat");
	assert_true(c->global.fifo_states_on_reload);
	assert_true(c->global.notify_priority_changes);
	assert_int_equal(c->global.startup_delay, 5500000);
	assert_int_equal(c->global.delay_after_boot, 90000000);
	join(c->notices, c->nnotices);
	assert_has(joined, "t.conf:8: 'lvs_notify_fifo' has no effect in vipd: it has no LVS");
	assert_has(joined, "t.conf:10: 'vrrp_delay_after_boot 90': no instance becomes master "
			   "for a minute or more");
	vipd_cfg_free(c);

	assert_has(load_bad("global_defs {\n  notify_fifo ka.fifo\n}\n" INST("")),
		"t.conf:2: 'notify_fifo' needs an absolute path, not 'ka.fifo'");
	assert_has(
		load_bad("global_defs {\n  notify_fifo /run/f\n  vrrp_notify_fifo /run/f\n}\n" INST(
			"")),
		"t.conf:3: 'vrrp_notify_fifo /run/f': notify_fifo and vrrp_notify_fifo must be "
		"different fifos");
	/* a notify command for a user that does not exist: keepalived ignores it */
	c = load_ok("global_defs {\n  notify_fifo_script /bin/cat nobody-cpha\n}\n" INST(
		"  notify_master /etc/keepalived/notify.sh master\n"));
	assert_null(c->global.fifo[0].script);
	assert_null(c->instances[0].notify_master);
	join(c->notices, c->nnotices);
	assert_has(joined, "t.conf:2: 'notify_fifo_script': no user 'nobody-cpha' to run it as: "
			   "ignored, as keepalived does");
	assert_has(joined,
		"t.conf:7: 'notify_master': no user 'master' to run it as: ignored, "
		"as keepalived does (keepalived reads the words after the command as USER "
		"[GROUP]: quote the command if 'master' is one of its arguments)");
	vipd_cfg_free(c);
	/* commands as USER [GROUP], ":GROUP" or ":" with the supplementary groups */
	c = load_ok("global_defs {\n"
		    "  script_user nobody :\n"
		    "  notify_fifo /run/f\n"
		    "  notify_fifo_script /bin/cat nobody daemon\n"
		    "}\n"
		    "vrrp_script s {\n"
		    "  script /bin/true\n"
		    "  user root :daemon\n"
		    "}\n" INST("  notify_backup /bin/b nobody\n"
			       "  notify \"/bin/n x\" root root\n"));
	assert_string_equal(c->global.script_user, "nobody");
	assert_string_equal(c->global.script_group, ":");
	assert_string_equal(c->global.fifo[0].script_as.user, "nobody");
	assert_string_equal(c->global.fifo[0].script_as.group, "daemon");
	assert_string_equal(c->scripts[0].group, ":daemon");
	assert_string_equal(c->instances[0].notify_backup, "/bin/b");
	assert_string_equal(c->instances[0].notify_as[VIPD_NOTIFY_BACKUP].user, "nobody");
	assert_null(c->instances[0].notify_as[VIPD_NOTIFY_BACKUP].group);
	assert_string_equal(c->instances[0].notify, "/bin/n x");
	assert_string_equal(c->instances[0].notify_as[VIPD_NOTIFY_ANY].group, "root");
	assert_null(c->instances[0].notify_as[VIPD_NOTIFY_MASTER].user);
	vipd_cfg_free(c);
	assert_has(load_bad("global_defs {\n  vrrp_startup_delay -1\n}\n" INST("")),
		"t.conf:2: 'vrrp_startup_delay' must be a number of seconds");
	assert_has(load_bad("global_defs {\n  vrrp_notify_priority_changes maybe\n}\n" INST("")),
		"t.conf:2: 'vrrp_notify_priority_changes' takes on, off");
}

/* keepalived's @ID / @^ID lines and $NAME parameters (cfg_subst.c) */
static const char subst_conf[] = "$VIPBASE=198.18.0\n"                           /* 1 */
				 "@main $PRIO=200\n"                             /* 2 */
				 "@^main $PRIO=100\n"                            /* 3 */
				 "$INST= \\\n"                                   /* 4 */
				 "vrrp_instance VI_${N} { \\\n"                  /* 5 */
				 "    interface eth0 \\\n"                       /* 6 */
				 "    virtual_router_id 5${N} \\\n"              /* 7 */
				 "    priority $PRIO \\\n"                       /* 8 */
				 "    @main state MASTER \\\n"                   /* 9 */
				 "    virtual_ipaddress { \\\n"                  /* 10 */
				 "        ${VIPBASE}.1${N}/24 \\\n"              /* 11 */
				 "    } \\\n"                                    /* 12 */
				 "}\n"                                           /* 13 */
				 "vrrp_script chk {\n"                           /* 14 */
				 "    script \"/bin/test -e $HOME/x${UNDEF}\"\n" /* 15 */
				 "}\n"                                           /* 16 */
				 "$N=0\n"                                        /* 17 */
				 "$INST\n"                                       /* 18 */
				 "$N=1\n"                                        /* 19 */
				 "$INST\n";                                      /* 20 */

static void test_subst(void **state)
{
	const struct vipd_instance *v;
	struct vipd_config *c;

	(void)state;
	vipd_cfg_set_config_id("main");
	c = load_ok(subst_conf);
	assert_int_equal(c->ninstances, 2);
	v = vipd_cfg_instance(c, "VI_0");
	assert_non_null(v);
	assert_int_equal(v->vrid, 50);
	assert_int_equal(v->priority, 200);
	assert_int_equal(v->state, VIPD_INIT_MASTER);
	v = vipd_cfg_instance(c, "VI_1");
	assert_non_null(v);
	assert_int_equal(v->vrid, 51);
	/* undefined parameters stay as written */
	assert_string_equal(c->scripts[0].command, "/bin/test -e $HOME/x${UNDEF}");
	vipd_cfg_free(c);

	vipd_cfg_set_config_id("backup");
	c = load_ok(subst_conf);
	v = vipd_cfg_instance(c, "VI_1");
	assert_int_equal(v->priority, 100);
	assert_int_equal(v->state, VIPD_INIT_BACKUP);
	vipd_cfg_free(c);

	/* messages name the line of the file: a multi-line value's lines are
	 * the line that used it; lines after a definition keep their number */
	assert_has(load_bad("$P=300\n"
			    "$I= \\\n"
			    "vrrp_instance A { \\\n"
			    " interface eth0 \\\n"
			    " virtual_router_id 5 \\\n"
			    " priority $P \\\n"
			    " virtual_ipaddress { \\\n"
			    " 198.18.0.1 \\\n"
			    " } \\\n"
			    "}\n"
			    "\n"
			    "$I\n"
			    "vrrp_instance B {\n"
			    " bogus\n"
			    "}\n"),
		"t.conf:12: 'priority' must be a whole number from 1 to 255, not '300'");
	assert_has(joined, "t.conf:14: 'bogus' is not supported by vipd");
	/* an undefined parameter as a keyword, a parameter holding itself */
	assert_has(load_bad(INST("  $PRIO\n")),
		"t.conf:4: '$PRIO' is not supported by vipd (vrrp_instance 'VI_1'): a parameter "
		"that is not defined above");
	assert_has(load_bad("$A=x${A}\n" INST("  priority $A\n")),
		"t.conf:5: parameter substitution nests more than 32 deep");
	/* a $ with no definition anywhere: the text is read as it is */
	c = load_ok(INST("  notify \"/bin/echo $1 ${2}\"\n"));
	assert_string_equal(c->instances[0].notify, "/bin/echo $1 ${2}");
	vipd_cfg_free(c);
	vipd_cfg_set_config_id(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_warn_and_ignore),
		cmocka_unit_test(test_dont_track_primary_and_globals),
		cmocka_unit_test(test_mcast_group),
		cmocka_unit_test(test_strict),
		cmocka_unit_test(test_track_process),
		cmocka_unit_test(test_fifo_and_delay),
		cmocka_unit_test(test_subst),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
