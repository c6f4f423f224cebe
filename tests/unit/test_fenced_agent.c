/* Running fence-agents: the standard input an agent gets (secrets read
 * from their files), one device run with the real fence_dummy, a level of
 * two devices (reboot as all off then all on), failure, timeout, and
 * secrets masked in messages. The test agent is a shell script that logs
 * what it was asked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent.h"
#include "cfg.h"

static char dir[64], agent[128], logpath[128], secret[128];

static struct fenced_config *load(const char *fmt, ...)
{
	struct fenced_cfg_msgs errs = { 0 };
	struct fenced_config *c = NULL;
	char text[4096];
	va_list ap;
	size_t i;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (fenced_cfg_load_mem("f.conf", text, strlen(text), &c, &errs) < 0) {
		for (i = 0; i < errs.n; i++)
			print_error("%s\n", errs.msg[i]);
		fail();
	}
	return c;
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

static char *slurp(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	buf[0] = '\0';
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

static int setup(void **state)
{
	char text[1024];

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/cpha-fenced-agent-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(agent, sizeof(agent), "%s/fence_test", dir);
	snprintf(logpath, sizeof(logpath), "%s/log", dir);
	snprintf(secret, sizeof(secret), "%s/secret", dir);
	/* logs "action name plug", sleeps if asked, fails if asked, and
	 * prints its password on stderr (as a careless agent might) */
	snprintf(text, sizeof(text),
		"#!/bin/sh\n"
		"while IFS='=' read -r k v; do\n"
		"  case $k in action) a=$v;; name) n=$v;; plug) p=$v;; fail) f=$v;;\n"
		"    sleep) s=$v;; password) pw=$v;; esac\n"
		"done\n"
		"echo \"$a $n $p\" >> %s\n"
		"[ -n \"$s\" ] && sleep $s\n"
		"[ -n \"$f\" ] && { echo \"login failed for password $pw\" >&2; exit 1; }\n"
		"exit 0\n",
		logpath);
	write_file(agent, text, 0755);
	write_file(secret, "s3cr3t-pw\n", 0600);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_input(void **state)
{
	struct fenced_config *c;
	struct cpha_buf b = { 0 };
	char why[256];
	const struct fenced_node *n;

	(void)state;
	c = load("fence_device d {\n agent %s\n ip 198.18.0.9\n plug 7\n password_file %s\n}\n"
		 "fence_node m { level 1 { d plug=3 } }\n",
		agent, secret);
	n = fenced_cfg_node(c, "m");
	assert_int_equal(fenced_agent_input(&c->devices[0], &n->levels[0].uses[0], "off", &b, why,
				 sizeof(why)),
		0);
	/* the level's plug overrides the device's; the secret without its newline */
	assert_string_equal(b.data, "action=off\nip=198.18.0.9\npassword=s3cr3t-pw\nplug=3\n");
	cpha_buf_free(&b);
	fenced_cfg_free(c);

	c = load("fence_device d {\n agent %s\n password_file %s/missing\n}\n"
		 "fence_node m { level 1 { d } }\n",
		agent, dir);
	assert_int_equal(fenced_agent_input(&c->devices[0], NULL, "off", &b, why, sizeof(why)), -2);
	assert_non_null(strstr(why, "password_file"));
	assert_non_null(strstr(why, "No such file"));
	cpha_buf_free(&b);
	fenced_cfg_free(c);
}

struct got {
	int called;
	struct fenced_agent_result r;
};

static void done(void *ud, const struct fenced_agent_result *r)
{
	struct got *g = ud;

	g->called++;
	g->r = *r;
}

static void run_loop(sd_event *e, struct got *g)
{
	int i;

	for (i = 0; i < 1000 && !g->called; i++)
		sd_event_run(e, 100000);
	assert_int_equal(g->called, 1);
}

static void test_fence_dummy(void **state)
{
	struct fenced_cfg_msgs errs = { 0 };
	struct fenced_agent_result r;
	struct fenced_config *c;
	struct got g = { 0 };
	char st[160];
	sd_event *e;

	(void)state;
	if (access("/usr/sbin/fence_dummy", X_OK) != 0) {
		printf("skipped: fence_dummy (fence-agents) is not installed\n");
		skip();
	}
	snprintf(st, sizeof(st), "%s/power", dir);
	write_file(st, "on", 0644);
	c = load("fence_device d {\n agent fence_dummy\n type file\n status_file %s\n}\n"
		 "fence_node m { level 1 { d } }\n",
		st);
	/* status_file is fence_dummy's own parameter, not a secret for 'status' */
	assert_int_equal(fenced_cfg_check_agents(c, fenced_agent_meta_run, NULL, &errs), 0);
	fenced_cfg_msgs_free(&errs);
	assert_string_equal(c->devices[0].params[1].key, "status_file");
	assert_int_equal(sd_event_new(&e), 0);
	assert_int_equal(
		fenced_agent_run(e, &c->devices[0], NULL, "off", 20000000, done, &g, NULL, &r), 0);
	run_loop(e, &g);
	assert_true(g.r.ok);
	assert_string_equal(slurp(st), "off");
	sd_event_unref(e);
	fenced_cfg_free(c);
}

static void test_level(void **state)
{
	struct fenced_agent_result r;
	struct fenced_config *c;
	const struct fenced_node *n;
	struct got g = { 0 };
	sd_event *e;

	(void)state;
	assert_int_equal(sd_event_new(&e), 0);
	c = load("fence_device a {\n agent %s\n name a\n}\n"
		 "fence_device b {\n agent %s\n name b\n}\n"
		 "fence_node m { level 1 {\n a plug=1\n b plug=1\n} }\n",
		agent, agent);
	n = fenced_cfg_node(c, "m");
	unlink(logpath);
	assert_int_equal(fenced_level_run(e, c, &n->levels[0], "reboot", done, &g, NULL, &r), 0);
	run_loop(e, &g);
	assert_true(g.r.ok);
	/* both outlets off before either comes back */
	assert_string_equal(slurp(logpath), "off a 1\noff b 1\non a 1\non b 1\n");

	/* off: each device once */
	unlink(logpath);
	memset(&g, 0, sizeof(g));
	assert_int_equal(fenced_level_run(e, c, &n->levels[0], "off", done, &g, NULL, &r), 0);
	run_loop(e, &g);
	assert_true(g.r.ok);
	assert_string_equal(slurp(logpath), "off a 1\noff b 1\n");
	fenced_cfg_free(c);

	/* the first device fails: the level fails, the second never runs, and
	 * the message names the device but not the password */
	c = load("fence_device a {\n agent %s\n name a\n fail 1\n password_file %s\n}\n"
		 "fence_device b {\n agent %s\n name b\n}\n"
		 "fence_node m { level 1 { a\n b } }\n",
		agent, secret, agent);
	n = fenced_cfg_node(c, "m");
	unlink(logpath);
	memset(&g, 0, sizeof(g));
	assert_int_equal(fenced_level_run(e, c, &n->levels[0], "off", done, &g, NULL, &r), 0);
	run_loop(e, &g);
	assert_false(g.r.ok);
	assert_int_equal(g.r.exit_code, 1);
	assert_string_equal(slurp(logpath), "off a \n");
	assert_non_null(strstr(g.r.msg, "a ("));
	assert_non_null(strstr(g.r.msg, "login failed for password ***"));
	assert_null(strstr(g.r.msg, "s3cr3t"));
	fenced_cfg_free(c);

	/* a hung agent is killed at agent_timeout */
	c = load("global_defs { agent_timeout 300ms }\n"
		 "fence_device a {\n agent %s\n name a\n sleep 30\n}\n"
		 "fence_node m { level 1 { a } }\n",
		agent);
	n = fenced_cfg_node(c, "m");
	memset(&g, 0, sizeof(g));
	assert_int_equal(fenced_level_run(e, c, &n->levels[0], "off", done, &g, NULL, &r), 0);
	run_loop(e, &g);
	assert_false(g.r.ok);
	assert_true(g.r.timed_out);
	assert_non_null(strstr(g.r.msg, "killed at the timeout"));
	fenced_cfg_free(c);

	/* an agent that is not installed fails at once */
	c = load("fence_device a {\n agent fence_cpha_nosuch\n}\nfence_node m { level 1 { a } }\n");
	n = fenced_cfg_node(c, "m");
	memset(&g, 0, sizeof(g));
	assert_int_equal(fenced_level_run(e, c, &n->levels[0], "off", done, &g, NULL, &r), -2);
	assert_int_equal(g.called, 0);
	assert_non_null(strstr(r.msg, "not installed"));
	fenced_cfg_free(c);
	sd_event_unref(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_input),
		cmocka_unit_test(test_fence_dummy),
		cmocka_unit_test(test_level),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
