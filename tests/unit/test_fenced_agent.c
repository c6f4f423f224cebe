/* Running fence-agents: the standard input an agent gets (secrets read
 * from their files), one device run with the real fence_dummy, a level of
 * two devices (reboot as all off then all on), failure, timeout, and
 * secrets masked in messages; a node's power state read with action
 * "status" (fenced_power_check). The test agents are shell scripts that
 * log what they were asked. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent.h"
#include "cfg.h"
#include "power.h"

static char dir[64], agent[128], logpath[128], secret[128], status_agent[128], status_log[128],
	hang_pid[128];

static struct fenced_config *load(const char *fmt, ...)
{
	struct cpha_msgs errs = { 0 };
	struct fenced_config *c = NULL;
	char text[4096];
	va_list ap;
	size_t i;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (fenced_cfg_load_mem("f.conf", text, strlen(text), &c, &errs) < 0) {
		for (i = 0; i < errs.nerrs; i++)
			print_error("%s\n", errs.errs[i].text);
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

	snprintf(status_agent, sizeof(status_agent), "%s/fence_status", dir);
	snprintf(status_log, sizeof(status_log), "%s/status.log", dir);
	snprintf(hang_pid, sizeof(hang_pid), "%s/hang.pid", dir);
	/* logs "FIRST-LINE-OF-STDIN name" and answers as its parameter
	 * "answer" says, with fence-agents' status exit codes: on 0, off 2,
	 * an error 1 (with a line on stderr); hang writes its pid, sleeps;
	 * "delay" seconds first when given */
	snprintf(text, sizeof(text),
		"#!/bin/sh\n"
		"first=\n"
		"while IFS= read -r l; do\n"
		"  [ -z \"$first\" ] && first=$l\n"
		"  case $l in name=*) n=${l#name=};; answer=*) s=${l#answer=};;\n"
		"    delay=*) d=${l#delay=};; esac\n"
		"done\n"
		"echo \"$first $n\" >> %s\n"
		"[ -n \"$d\" ] && sleep $d\n"
		"case $s in\n"
		"  on) exit 0;;\n"
		"  off) exit 2;;\n"
		"  hang) echo $$ > %s; sleep 30; exit 2;;\n"
		"esac\n"
		"echo \"cannot reach the BMC of $n\" >&2\n"
		"exit 1\n",
		status_log, hang_pid);
	write_file(status_agent, text, 0755);
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
	struct cpha_msgs errs = { 0 };
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
	cpha_msgs_free(&errs);
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

/* ---- the power state: fenced_power_check ---- */

struct pgot {
	int called;
	enum fenced_power st;
	char msg[256];
};

static void power_done(void *ud, enum fenced_power st, const char *msg)
{
	struct pgot *g = ud;

	g->called++;
	g->st = st;
	snprintf(g->msg, sizeof(g->msg), "%s", msg ? msg : "(null)");
}

static uint64_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* Check the power of node m in the levels given (devices a, b and c are
 * the status agent, named a, b and c): done must come once, from the loop.
 * Returns the state; g has the message. */
static enum fenced_power power(const char *levels, uint64_t timeout, struct pgot *g)
{
	struct fenced_power_run *run = NULL;
	struct fenced_config *c;
	char why[256] = "";
	sd_event *e;
	int i;

	memset(g, 0, sizeof(*g));
	c = load("fence_device a {\n agent %s\n name a\n}\n"
		 "fence_device b {\n agent %s\n name b\n}\n"
		 "fence_device c {\n agent %s\n name c\n}\n"
		 "fence_node m { %s }\n",
		status_agent, status_agent, status_agent, levels);
	unlink(status_log);
	assert_int_equal(sd_event_new(&e), 0);
	assert_int_equal(fenced_power_check(e, c, fenced_cfg_node(c, "m"), timeout, power_done, g,
				 &run, why, sizeof(why)),
		0);
	assert_non_null(run);
	assert_int_equal(g->called, 0); /* only from the loop */
	for (i = 0; i < 300 && !g->called; i++)
		sd_event_run(e, 100000);
	for (i = 0; i < 3; i++) /* and never again */
		sd_event_run(e, 10000);
	assert_int_equal(g->called, 1);
	sd_event_unref(e);
	fenced_cfg_free(c);
	return g->st;
}

/* One device: off (exit 2), on (exit 0); each asked with action=status on
 * the first line of its standard input, and asked once. */
static void test_power_one_device(void **state)
{
	struct pgot g;

	(void)state;
	assert_int_equal(power("level 1 { a answer=off }", 5000000, &g), FENCED_POWER_OFF);
	assert_string_equal(g.msg, "a: off");
	assert_string_equal(slurp(status_log), "action=status a\n");

	assert_int_equal(power("level 1 { a answer=on }", 5000000, &g), FENCED_POWER_ON);
	assert_string_equal(g.msg, "a: on");
	assert_string_equal(slurp(status_log), "action=status a\n");

	/* an exit status other than 0 or 2 is no answer: nothing else to ask */
	assert_int_equal(power("level 1 { a answer=error }", 5000000, &g), FENCED_POWER_UNKNOWN);
	assert_non_null(strstr(g.msg, "a: "));
	assert_non_null(strstr(g.msg, "cannot reach the BMC of a"));
}

/* The status log's lines sorted: the reads run in parallel, so in no
 * set order. */
static char *sorted_log(void)
{
	static char out[4096];
	char *lines[64], *p, *save = NULL;
	size_t n = 0, i, j;

	p = slurp(status_log);
	for (p = strtok_r(p, "\n", &save); p && n < 64; p = strtok_r(NULL, "\n", &save))
		lines[n++] = p;
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && strcmp(lines[j - 1], lines[j]) > 0; j--) {
			p = lines[j];
			lines[j] = lines[j - 1];
			lines[j - 1] = p;
		}
	out[0] = '\0';
	for (i = 0; i < n; i++)
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s\n", lines[i]);
	return out;
}

/* Whether the status log has the line "action=status NAME". */
static bool asked(const char *name)
{
	char line[64];

	snprintf(line, sizeof(line), "action=status %s\n", name);
	return strstr(slurp(status_log), line) != NULL;
}

/* Two devices in a level (two PDU outlets): off only when both say off;
 * one outlet on powers the host. */
static void test_power_level_of_two(void **state)
{
	struct pgot g;

	(void)state;
	assert_int_equal(
		power("level 1 {\n a answer=off\n b answer=off\n}", 5000000, &g), FENCED_POWER_OFF);
	assert_string_equal(sorted_log(), "action=status a\naction=status b\n");
	assert_string_equal(g.msg, "a and b: off");

	assert_int_equal(
		power("level 1 {\n a answer=off\n b answer=on\n}", 5000000, &g), FENCED_POWER_ON);
	assert_string_equal(g.msg, "b: on");
	/* b's on cancels a: a may be killed before it logs its request */
	assert_true(asked("b"));

	/* on ends the check: b (off, later) and level 2 do not matter */
	assert_int_equal(power("level 1 {\n a answer=on\n b answer=off delay=1\n}\n"
			       "level 2 { c answer=off }",
				 5000000, &g),
		FENCED_POWER_ON);
	assert_string_equal(g.msg, "a: on");
	assert_true(asked("a"));

	/* off then no answer: the level proves nothing, the next one says */
	assert_int_equal(power("level 1 {\n a answer=off\n b answer=error\n}\n"
			       "level 2 { c answer=on }",
				 5000000, &g),
		FENCED_POWER_ON);
	assert_string_equal(g.msg, "c: on");
	assert_true(asked("b"));
	assert_true(asked("c"));
}

/* A level that cannot answer passes to the next; when none answers the
 * state is unknown, with each level's device that failed and why. */
static void test_power_levels(void **state)
{
	struct pgot g;

	(void)state;
	/* level 1's first device errs before its second answers: level 2 says */
	assert_int_equal(power("level 1 {\n a answer=error\n b answer=on delay=2\n}\n"
			       "level 2 { c answer=off }",
				 5000000, &g),
		FENCED_POWER_OFF);
	assert_string_equal(g.msg, "c: off");
	assert_true(asked("a"));
	assert_true(asked("c"));

	assert_int_equal(
		power("level 1 { a answer=error }\nlevel 2 { b answer=error }", 5000000, &g),
		FENCED_POWER_UNKNOWN);
	assert_string_equal(sorted_log(), "action=status a\naction=status b\n");
	assert_non_null(strstr(g.msg, "a: exit status 1: cannot reach the BMC of a"));
	assert_non_null(strstr(g.msg, "b: exit status 1: cannot reach the BMC of b"));

	/* level 2 answers first, but level 1 is trusted first: its off wins
	 * over level 2's on */
	assert_int_equal(
		power("level 1 { a answer=off delay=0.5 }\nlevel 2 { b answer=on }", 5000000, &g),
		FENCED_POWER_OFF);
	assert_string_equal(g.msg, "a: off");
	assert_string_equal(sorted_log(), "action=status a\naction=status b\n");
}

/* A device that does not answer in time is killed at the timeout and
 * counts as an error: the next level, read meanwhile, answers right
 * then. The timeout bounds the whole check. */
static void test_power_timeout(void **state)
{
	struct pgot g;
	uint64_t t0, t;

	(void)state;
	t0 = mono_now();
	assert_int_equal(power("level 1 { a answer=hang }\nlevel 2 { b answer=off }", 300000, &g),
		FENCED_POWER_OFF);
	t = mono_now() - t0;
	assert_string_equal(g.msg, "b: off");
	assert_string_equal(sorted_log(), "action=status a\naction=status b\n");
	assert_true(t >= 300000);
	assert_true(t < 2000000);

	assert_int_equal(power("level 1 { a answer=hang }", 300000, &g), FENCED_POWER_UNKNOWN);
	assert_non_null(strstr(g.msg, "a: "));
	assert_non_null(strstr(g.msg, "killed at the timeout"));

	/* every level slow: unknown at the timeout, not a timeout per level */
	t0 = mono_now();
	assert_int_equal(power("level 1 { a answer=off delay=3 }\n"
			       "level 2 { b answer=off delay=3 }\n"
			       "level 3 { c answer=off delay=3 }",
				 500000, &g),
		FENCED_POWER_UNKNOWN);
	t = mono_now() - t0;
	assert_true(t >= 500000);
	assert_true(t < 2000000);
}

/* Parallel reads: a device that hangs does not delay the on another
 * device of its level reads, and the hanging agent is killed; the devices
 * of a level are read at the same time. */
static void test_power_parallel(void **state)
{
	struct pgot g;
	uint64_t t0, t;
	pid_t pid;

	(void)state;
	unlink(hang_pid);
	t0 = mono_now();
	assert_int_equal(power("level 1 {\n a answer=hang\n b answer=on delay=0.3\n}", 5000000, &g),
		FENCED_POWER_ON);
	t = mono_now() - t0;
	assert_string_equal(g.msg, "b: on");
	assert_true(t < 2000000); /* the hang would take the 5 s timeout */
	pid = atoi(slurp(hang_pid));
	assert_true(pid > 0);
	assert_int_equal(kill(pid, 0), -1); /* killed and reaped */

	/* two devices of 0.6 s each: together, not one after the other */
	t0 = mono_now();
	assert_int_equal(power("level 1 {\n a answer=off delay=0.6\n b answer=off delay=0.6\n}",
				 5000000, &g),
		FENCED_POWER_OFF);
	t = mono_now() - t0;
	assert_true(t >= 600000);
	assert_true(t < 1150000);

	/* one device used twice (two outlets of one PDU): one read at a time */
	t0 = mono_now();
	assert_int_equal(power("level 1 {\n a answer=off delay=0.4\n a answer=off delay=0.4\n}",
				 5000000, &g),
		FENCED_POWER_OFF);
	t = mono_now() - t0;
	assert_true(t >= 800000);
	assert_string_equal(sorted_log(), "action=status a\naction=status a\n");
}

/* Nothing to read: no node, or no agent that can start. */
static void test_power_cannot_start(void **state)
{
	struct fenced_power_run *run = (struct fenced_power_run *)1;
	struct fenced_config *c;
	struct pgot g = { 0 };
	char why[256] = "";
	sd_event *e;
	int i;

	(void)state;
	assert_int_equal(sd_event_new(&e), 0);
	c = load("fence_device a {\n agent fence_cpha_nosuch\n}\n"
		 "fence_device b {\n agent %s\n name b\n}\n"
		 "fence_node m { level 1 { a } }\n"
		 "fence_node n { level 1 { a }\nlevel 2 { b answer=off } }\n",
		status_agent);
	assert_int_equal(
		fenced_power_check(e, c, NULL, 5000000, power_done, &g, &run, why, sizeof(why)),
		-EINVAL);
	assert_null(run);
	assert_non_null(strstr(why, "no fence device"));
	assert_int_equal(g.called, 0);

	/* no agent could start: done before the call returns, no run */
	run = (struct fenced_power_run *)1;
	why[0] = '\0';
	assert_int_equal(fenced_power_check(e, c, fenced_cfg_node(c, "m"), 5000000, power_done, &g,
				 &run, why, sizeof(why)),
		0);
	assert_null(run);
	assert_int_equal(g.called, 1);
	assert_int_equal(g.st, FENCED_POWER_UNKNOWN);
	assert_non_null(strstr(g.msg, "a: "));
	assert_non_null(strstr(g.msg, "not installed"));
	for (i = 0; i < 3; i++)
		sd_event_run(e, 10000);
	assert_int_equal(g.called, 1);

	/* the level whose agent cannot start passes to the next */
	memset(&g, 0, sizeof(g));
	unlink(status_log);
	assert_int_equal(fenced_power_check(e, c, fenced_cfg_node(c, "n"), 5000000, power_done, &g,
				 &run, why, sizeof(why)),
		0);
	assert_non_null(run);
	for (i = 0; i < 300 && !g.called; i++)
		sd_event_run(e, 100000);
	assert_int_equal(g.called, 1);
	assert_int_equal(g.st, FENCED_POWER_OFF);
	assert_string_equal(g.msg, "b: off");
	fenced_cfg_free(c);
	sd_event_unref(e);
}

/* Cancelled while an agent runs: done never comes, the agent is stopped. */
static void test_power_cancel(void **state)
{
	struct fenced_power_run *run = NULL;
	struct fenced_config *c;
	struct pgot g = { 0 };
	char why[256] = "";
	uint64_t end;
	sd_event *e;
	pid_t pid;

	(void)state;
	assert_int_equal(sd_event_new(&e), 0);
	c = load("fence_device a {\n agent %s\n name a\n}\n"
		 "fence_node m { level 1 { a answer=hang } }\n",
		status_agent);
	unlink(status_log);
	assert_int_equal(fenced_power_check(e, c, fenced_cfg_node(c, "m"), 600000, power_done, &g,
				 &run, why, sizeof(why)),
		0);
	assert_non_null(run);
	/* wait until the agent really runs, then cancel it */
	unlink(hang_pid);
	end = mono_now() + 5000000;
	while (!slurp(hang_pid)[0] && mono_now() < end)
		sd_event_run(e, 20000);
	assert_string_equal(slurp(status_log), "action=status a\n");
	pid = atoi(slurp(hang_pid));
	assert_true(pid > 0);
	assert_int_equal(kill(pid, 0), 0);
	fenced_power_cancel(run);
	assert_int_equal(kill(pid, 0), -1); /* killed and reaped */
	fenced_power_cancel(NULL);
	end = mono_now() + 1000000; /* past the timeout */
	while (mono_now() < end)
		sd_event_run(e, 50000);
	assert_int_equal(g.called, 0);
	fenced_cfg_free(c);
	sd_event_unref(e);
}

static void test_power_names(void **state)
{
	(void)state;
	assert_string_equal(fenced_power_name(FENCED_POWER_UNKNOWN), "unknown");
	assert_string_equal(fenced_power_name(FENCED_POWER_CHECKING), "checking");
	assert_string_equal(fenced_power_name(FENCED_POWER_ON), "on");
	assert_string_equal(fenced_power_name(FENCED_POWER_OFF), "off");
	assert_string_equal(fenced_power_name((enum fenced_power)9), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_input),
		cmocka_unit_test(test_fence_dummy),
		cmocka_unit_test(test_level),
		cmocka_unit_test(test_power_one_device),
		cmocka_unit_test(test_power_level_of_two),
		cmocka_unit_test(test_power_levels),
		cmocka_unit_test(test_power_timeout),
		cmocka_unit_test(test_power_parallel),
		cmocka_unit_test(test_power_cannot_start),
		cmocka_unit_test(test_power_cancel),
		cmocka_unit_test(test_power_names),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
