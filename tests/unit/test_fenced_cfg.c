/* fenced.conf: every keyword's row, the checks across the file, errors at
 * file:line, and the agent metadata check with canned metadata. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cfg.h"
#include "msgs_test.h"

static void assert_has(const char *all, const char *want)
{
	if (!strstr(all, want))
		fail_msg("'%s' not in:\n%s", want, all);
}

static struct fenced_config *load_ok(const char *text)
{
	struct cpha_msgs errs = { 0 };
	struct fenced_config *c = NULL;

	if (fenced_cfg_load_mem("f.conf", text, strlen(text), &c, &errs) < 0) {
		print_error("refused:\n%s", join_errs(&errs));
		cpha_msgs_free(&errs);
		fail();
	}
	return c;
}

static const char *load_bad(const char *text)
{
	struct cpha_msgs errs = { 0 };
	struct fenced_config *c = NULL;

	assert_int_equal(fenced_cfg_load_mem("f.conf", text, strlen(text), &c, &errs), -1);
	assert_null(c);
	join_errs(&errs);
	cpha_msgs_free(&errs);
	return joined;
}

static const char sample[] = "global_defs {\n"                          /* 1 */
			     "    post_join_delay 6s\n"                 /* 2 */
			     "    post_fail_delay 500ms\n"              /* 3 */
			     "    fence_action off\n"                   /* 4 */
			     "    agent_timeout 30\n"                   /* 5 */
			     "    retry_interval 1m\n"                  /* 6 */
			     "    unfence yes\n"                        /* 7 */
			     "}\n"                                      /* 8 */
			     "fence_node m1 {\n"                        /* 9 */
			     "    level 2 {\n"                          /* 10 */
			     "        pdu-a plug=1\n"                   /* 11 */
			     "        pdu-b plug=1 switch=2\n"          /* 12 */
			     "    }\n"                                  /* 13 */
			     "    level 1 { ipmi-m1 }\n"                /* 14 */
			     "    delay 2s\n"                           /* 15 */
			     "    delay_max 3s\n"                       /* 16 */
			     "    priority_delay_vip 5s\n"              /* 17 */
			     "    unfence no\n"                         /* 18 */
			     "}\n"                                      /* 19 */
			     "fence_device ipmi-m1 {\n"                 /* 20 */
			     "    agent fence_ipmilan\n"                /* 21 */
			     "    ip 198.18.0.1\n"                      /* 22 */
			     "    password_file /nonexistent/secret\n"  /* 23 */
			     "}\n"                                      /* 24 */
			     "fence_device pdu-a {\n"                   /* 25 */
			     "    agent fence_apc_snmp\n"               /* 26 */
			     "    ip 198.18.0.2\n"                      /* 27 */
			     "}\n"                                      /* 28 */
			     "fence_device pdu-b {\n"                   /* 29 */
			     "    agent /usr/local/sbin/fence_custom\n" /* 30 */
			     "}\n"                                      /* 31 */
			     "watchdog {\n"                             /* 32 */
			     "    device /dev/watchdog0\n"              /* 33 */
			     "    timeout 5\n"                          /* 34 */
			     "}\n";                                     /* 35 */

static void test_sample(void **state)
{
	const struct fenced_node *n;
	const struct fenced_device *d;
	struct fenced_config *c;

	(void)state;
	c = load_ok(sample);
	assert_int_equal(c->global.post_join_delay, 6000000);
	assert_int_equal(c->global.post_fail_delay, 500000);
	assert_int_equal(c->global.action, FENCED_ACTION_OFF);
	assert_int_equal(c->global.agent_timeout, 30000000);
	assert_int_equal(c->global.retry_interval, 60000000);
	assert_true(c->global.unfence);
	assert_false(c->global.clean_start);
	assert_string_equal(c->global.admin_socket, "/run/fenced/admin.sock");
	n = fenced_cfg_node(c, "m1");
	assert_non_null(n);
	assert_int_equal(n->nlevels, 2);
	assert_int_equal(n->levels[0].number, 1); /* sorted */
	assert_int_equal(n->levels[0].nuses, 1);
	assert_string_equal(c->devices[n->levels[0].uses[0].device].name, "ipmi-m1");
	assert_int_equal(n->levels[1].nuses, 2);
	assert_string_equal(c->devices[n->levels[1].uses[1].device].name, "pdu-b");
	assert_int_equal(n->levels[1].uses[1].nparams, 2);
	assert_string_equal(n->levels[1].uses[1].params[1].key, "switch");
	assert_string_equal(n->levels[1].uses[1].params[1].value, "2");
	assert_int_equal(n->delay, 2000000);
	assert_int_equal(n->delay_max, 3000000);
	assert_int_equal(n->priority_delay_vip, 5000000);
	assert_int_equal(n->unfence, 0);
	d = fenced_cfg_device(c, "ipmi-m1");
	assert_string_equal(d->agent, "fence_ipmilan");
	assert_int_equal(d->nparams, 2);
	assert_string_equal(d->params[1].key, "password");
	assert_true(d->params[1].from_file);
	assert_string_equal(d->params[1].value, "/nonexistent/secret");
	assert_true(c->watchdog.set);
	assert_string_equal(c->watchdog.device, "/dev/watchdog0");
	assert_int_equal(c->watchdog.timeout, 5000000);
	fenced_cfg_free(c);

	/* defaults */
	c = load_ok("fence_node a { level 1 { d } }\nfence_device d { agent fence_dummy }\n");
	assert_int_equal(c->global.post_join_delay, 6000000);
	assert_int_equal(c->global.post_fail_delay, 0);
	assert_int_equal(c->global.action, FENCED_ACTION_REBOOT);
	assert_int_equal(c->global.agent_timeout, 60000000);
	assert_int_equal(c->global.retry_interval, 10000000);
	assert_int_equal(c->global.power_check_timeout, 5000000);
	assert_int_equal(c->nodes[0].unfence, -1);
	assert_false(c->watchdog.set);
	fenced_cfg_free(c);

	/* the power-check's own bound, apart from agent_timeout */
	c = load_ok("global_defs {\n power_check_timeout 800ms\n agent_timeout 90s\n}\n"
		    "fence_node a { level 1 { d } }\nfence_device d { agent fence_dummy }\n");
	assert_int_equal(c->global.power_check_timeout, 800000);
	assert_int_equal(c->global.agent_timeout, 90000000);
	fenced_cfg_free(c);
	c = load_ok("global_defs {\n power_check_timeout 60s\n}\n"
		    "fence_node a { level 1 { d } }\nfence_device d { agent fence_dummy }\n");
	assert_int_equal(c->global.power_check_timeout, 60000000);
	fenced_cfg_free(c);
}

/* Values as keepalived writes them: decimal seconds beside fenced's units,
 * and its booleans. */
static void test_keepalived_values(void **state)
{
	struct fenced_config *c;

	(void)state;
	c = load_ok("global_defs {\n  post_join_delay 1.5\n  agent_timeout 90\n"
		    "  retry_interval 2m\n  unfence off\n  clean_start true\n}\n");
	assert_int_equal(c->global.post_join_delay, 1500000);
	assert_int_equal(c->global.agent_timeout, 90000000);
	assert_int_equal(c->global.retry_interval, 120000000);
	assert_false(c->global.unfence);
	assert_true(c->global.clean_start);
	fenced_cfg_free(c);
}

static void test_errors(void **state)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "global_defs {\n  fence_action poweroff\n}\n",
			"f.conf:2: 'fence_action' is off or reboot, not 'poweroff'" },
		{ "global_defs {\n  post_join_delay soon\n}\n",
			"f.conf:2: 'post_join_delay' must be a duration from 0 to 1d (seconds, or "
			"with a unit: 500ms, 6s, 2m), not 'soon' (global_defs)" },
		{ "global_defs {\n  fence_action\n}\n",
			"f.conf:2: 'fence_action' needs a value (global_defs)" },
		{ "global_defs {\n  fence_action off reboot\n}\n",
			"f.conf:2: 'fence_action': unexpected 'reboot' (global_defs)" },
		{ "global_defs {\n  agent_timeout 0\n}\n",
			"f.conf:2: 'agent_timeout' must be more than 0" },
		{ "global_defs {\n  power_check_timeout 0\n}\n",
			"f.conf:2: 'power_check_timeout' must be more than 0 (global_defs)" },
		{ "global_defs {\n  power_check_timeout 61s\n}\n",
			"f.conf:2: 'power_check_timeout' is at most 60s, not 61s (global_defs)" },
		{ "global_defs {\n  power_check_timeout quick\n}\n",
			"f.conf:2: 'power_check_timeout' must be a duration from 0 to 1d" },
		{ "global_defs {\n  power_check_timeout 2s\n  power_check_timeout 3s\n}\n",
			"f.conf:3: 'power_check_timeout' is given twice (global_defs; first at "
			"line 2)" },
		{ "global_defs {\n  clean_start maybe\n}\n",
			"f.conf:2: 'clean_start' takes on, off, true, false, yes or no, not "
			"'maybe' "
			"(global_defs)" },
		/* keepalived's booleans: 1 and 0 are not among them */
		{ "global_defs {\n  unfence 1\n}\n",
			"f.conf:2: 'unfence' takes on, off, true, false, yes or no, not '1'" },
		{ "watchdog {\n}\nwatchdog {\n}\n",
			"f.conf:3: 'watchdog' is given twice (top level; first at line 1)" },
		{ "global_defs {\n  unfence {\n  }\n}\n",
			"f.conf:2: 'unfence' takes no block (global_defs)" },
		{ "global_defs {\n  post_fail_delay 1\n  post_fail_delay 2\n}\n",
			"f.conf:3: 'post_fail_delay' is given twice" },
		{ "global_defs {\n  fenced_metrics_web_config /nonexistent/web.yml\n}\n",
			"f.conf:2: 'fenced_metrics_web_config': /nonexistent/web.yml: No such file "
			"or directory (global_defs)" },
		{ "global_defs {\n  fenced_metrics_web_config /dev/null\n}\n",
			"f.conf:2: 'fenced_metrics_web_config' without 'fenced_metrics_bind'" },
		{ "global_defs {\n  token 3000\n}\n",
			"f.conf:2: 'token' is not a keyword of global_defs" },
		{ "stonith_device x {\n}\n",
			"f.conf:1: 'stonith_device' is not a keyword of fenced.conf" },
		{ "fence_device d {\n  ip 198.18.0.1\n}\n",
			"f.conf:1: fence_device 'd' has no 'agent'" },
		{ "fence_device d {\n  agent ipmitool\n}\n",
			"f.conf:2: 'agent ipmitool': a fence-agents name" },
		{ "fence_device d {\n  agent fence_dummy\n  action off\n}\n",
			"f.conf:3: 'action' is not set in the configuration" },
		{ "fence_device d {\n  agent fence_dummy\n  ip 1\n  ip 2\n}\n",
			"f.conf:4: parameter 'ip' is given twice" },
		{ "fence_device d {\n  agent fence_dummy\n  password_file secret\n}\n",
			"f.conf:3: 'password_file' needs an absolute path" },
		{ "fence_device d {\n  agent fence_dummy\n  Ip 1\n}\n",
			"f.conf:3: 'Ip' is not a parameter name" },
		{ "fence_device d {\n  agent fence_dummy\n  ip 1 2\n}\n",
			"f.conf:3: parameter 'ip' takes one value, not 2" },
		{ "fence_device d { agent fence_dummy }\nfence_device d { agent fence_dummy }\n",
			"f.conf:2: fence_device 'd' is defined twice" },
		{ "fence_node a {\n  level 1 {\n    nosuch\n  }\n}\n",
			"f.conf:3: no fence_device 'nosuch' (fence_node 'a', level 1)" },
		{ "fence_device d { agent fence_dummy }\nfence_node a {\n  level 0 { d }\n}\n",
			"f.conf:3: 'level' takes a number from 1 to 99" },
		{ "fence_device d { agent fence_dummy }\nfence_node a {\n  level 1 { d }\n  level "
		  "1 { d }\n}\n",
			"f.conf:4: level 1 is given twice" },
		{ "fence_device d { agent fence_dummy }\nfence_node a {\n  level 1 {\n  }\n}\n",
			"f.conf:3: fence_node 'a', level 1 lists no device" },
		{ "fence_device d { agent fence_dummy }\nfence_node a {\n  level 1 { d plug }\n}\n",
			"f.conf:3: 'plug': parameters of a device in a level are key=value" },
		{ "fence_node a {\n  delay 1s\n}\n",
			"f.conf:1: fence_node 'a' has no level, and there is no watchdog" },
		{ "fence_node a b {\n}\n", "f.conf:1: 'fence_node' takes one node name" },
		{ "watchdog {\n  device /dev/watchdog\n  timeout 1500ms\n}\n",
			"f.conf:3: 'timeout 1500ms': whole seconds from 1 to 255" },
		{ "watchdog {\n  timeout 5\n}\n", "f.conf:1: watchdog has no 'device'" },
		{ "watchdog {\n  device watchdog\n  timeout 5\n}\n",
			"f.conf:2: 'device' needs an absolute path" },
		{ "global_defs\n",
			"f.conf:1: 'global_defs' needs a block: global_defs { ... } (top level)" },
		{ "fence_device d {\n  agent fence_dummy\n",
			"f.conf:1: 'fence_device' block is not closed" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_has(load_bad(bad[i].text), bad[i].want);
}

static void test_notices(void **state)
{
	struct fenced_config *c;

	(void)state;
	c = load_ok("global_defs {\n  clean_start\n}\n"
		    "fence_device unused { agent fence_dummy }\n"
		    "fence_node a {\n  delay 1s\n}\n"
		    "watchdog {\n  device /dev/watchdog\n  timeout 5\n}\n");
	assert_true(c->global.clean_start);
	join(c->notices, c->nnotices);
	assert_has(joined, "f.conf:2: 'clean_start': nodes of the nodelist that have not joined");
	assert_has(joined, "f.conf:4: fence_device 'unused' is used by no fence_node");
	fenced_cfg_free(c);
}

/* What fence_ipmilan prints, cut down. */
static const char ipmilan_meta[] =
	"<?xml version=\"1.0\" ?>\n"
	"<resource-agent name=\"fence_ipmilan\" shortdesc=\"Fence agent for IPMI\" >\n"
	"<parameters>\n"
	"\t<parameter name=\"action\" unique=\"0\" required=\"1\">\n"
	"\t<parameter name=\"ip\" unique=\"0\" required=\"0\" obsoletes=\"ipaddr\">\n"
	"\t<parameter name=\"ipaddr\" unique=\"0\" required=\"0\" deprecated=\"1\">\n"
	"\t<parameter name=\"password\" unique=\"0\" required=\"0\" obsoletes=\"passwd\">\n"
	"\t<parameter name=\"username\" unique=\"0\" required=\"0\" obsoletes=\"login\">\n"
	"\t<parameter name=\"lanplus\" unique=\"0\" required=\"0\">\n"
	"\t<parameter name=\"plug\" unique=\"0\" required=\"0\">\n"
	"\t<parameter name=\"identity_file\" unique=\"0\" required=\"0\">\n"
	"</parameters>\n</resource-agent>\n";

static int fake_meta(
	void *ud, const char *agent, struct fenced_agent_meta *m, char *why, size_t len)
{
	int *calls = ud;

	(*calls)++;
	if (strcmp(agent, "fence_ipmilan") == 0)
		return fenced_agent_meta_parse(ipmilan_meta, m);
	snprintf(why, len, "not installed");
	return -2;
}

static void test_agents(void **state)
{
	struct cpha_msgs errs = { 0 };
	struct fenced_agent_meta m;
	struct fenced_config *c;
	int calls = 0;

	(void)state;
	assert_int_equal(fenced_agent_meta_parse(ipmilan_meta, &m), 0);
	assert_int_equal(m.nparams, 8);
	assert_string_equal(m.params[1].name, "ip");
	assert_string_equal(m.params[1].obsoletes, "ipaddr");
	assert_true(m.params[2].deprecated);
	assert_false(m.params[1].deprecated);
	fenced_agent_meta_free(&m);
	assert_int_equal(fenced_agent_meta_parse("<html>nothing</html>", &m), -22);

	c = load_ok("fence_device a {\n"                /* 1 */
		    "  agent fence_ipmilan\n"           /* 2 */
		    "  ipaddr 198.18.0.1\n"             /* 3 */
		    "  lanplus 1\n"                     /* 4 */
		    "  cipher 3\n"                      /* 5 */
		    "  password_file /nonexistent/pw\n" /* 6 */
		    "  identity_file /root/.ssh/id\n"   /* 7 */
		    "}\n"                               /* 8 */
		    "fence_device b {\n"                /* 9 */
		    "  agent fence_ipmilan\n"           /* 10 */
		    "  token_file /etc/passwd\n"        /* 11 */
		    "}\n"                               /* 12 */
		    "fence_device x {\n"                /* 13 */
		    "  agent fence_nosuch\n"            /* 14 */
		    "}\n"                               /* 15 */
		    "fence_node n {\n"                  /* 16 */
		    "  level 1 { a plug=3 port=4 }\n"   /* 17 */
		    "  level 2 { b }\n"                 /* 18 */
		    "  level 3 { x }\n"                 /* 19 */
		    "}\n");
	assert_true(c->devices[0].params[4].from_file); /* identity_file: not known yet */
	assert_int_equal(fenced_cfg_check_agents(c, fake_meta, &calls, &errs), 4);
	assert_int_equal(calls, 2); /* fence_ipmilan asked once */
	join_errs(&errs);
	assert_has(joined,
		"f.conf:5: 'cipher' is not a parameter of fence_ipmilan (fence_device 'a')");
	assert_has(joined, "f.conf:11: 'token_file' is not a parameter of fence_ipmilan");
	assert_has(joined, "f.conf:13: fence_device 'x': agent fence_nosuch: not installed");
	assert_has(joined, "f.conf:17: 'port' is not a parameter of fence_ipmilan (fence_node 'n', "
			   "level 1, a)");
	cpha_msgs_free(&errs);
	join(c->notices, c->nnotices);
	assert_has(joined, "f.conf:3: 'ipaddr' is deprecated in fence_ipmilan: use ip");
	/* password_file: the secret of password, which cannot be read */
	assert_has(joined, "f.conf:6: 'password_file /nonexistent/pw': cannot read it");
	assert_true(c->devices[0].params[3].from_file);
	assert_string_equal(c->devices[0].params[3].key, "password");
	/* identity_file: the agent's own parameter, a path it reads */
	assert_false(c->devices[0].params[4].from_file);
	assert_string_equal(c->devices[0].params[4].key, "identity_file");
	assert_null(strstr(joined, "identity"));
	fenced_cfg_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample),
		cmocka_unit_test(test_keepalived_values),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_notices),
		cmocka_unit_test(test_agents),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
