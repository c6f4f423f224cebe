/* The OCF core: environment, parameters, clone and notify variables, time
 * budget, exit reasons, dispatch and meta-data. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "buf.h"
#include "ocf.h"
#include "ocf_proc.h"

static int calls;
static char seen_instance[128];
static uint64_t seen_timeout;

static int act_start(struct ocf_ctx *c)
{
	calls++;
	snprintf(seen_instance, sizeof(seen_instance), "%s", c->instance);
	seen_timeout = c->timeout_ms;
	return PCMK_OCF_OK;
}

static int act_fail(struct ocf_ctx *c)
{
	(void)c;
	return ocf_fail(PCMK_OCF_NOT_CONFIGURED, "bad <thing>\nsecond line");
}

static const struct ocf_param params[] = {
	{ .name = "binary", .type = OCF_STRING, .def = "/usr/bin/x", .shortdesc = "b" },
	{ .name = "flag", .type = OCF_BOOLEAN, .def = "false", .shortdesc = "f" },
	{ .name = "port",
		.type = OCF_INTEGER,
		.shortdesc = "p",
		.longdesc = "a <port> & \"more\"" },
	{ .name = "conf",
		.type = OCF_STRING,
		.flags = OCF_P_UNIQUE | OCF_P_REQUIRED,
		.shortdesc = "it's unique" },
	{ .name = "wait", .type = OCF_TIME, .def = "10s", .shortdesc = "w" },
	{ .name = NULL },
};

static const struct ocf_action actions[] = {
	{ .name = "start", .timeout_s = 90, .fn = act_start },
	{ .name = "stop", .timeout_s = 60, .fn = act_fail },
	{ .name = "monitor", .timeout_s = 20, .interval_s = 10, .fn = act_start },
	{ .name = "validate-all", .timeout_s = 20, .fn = act_start },
	{ .name = "notify", .timeout_s = 20, .fn = NULL },
	{ .name = NULL },
};

static const struct ocf_agent agent = {
	.name = "test-agent",
	.version = "1.2.3",
	.shortdesc = "Test & <agent>",
	.longdesc = "Long \"description\" of 'it'.",
	.params = params,
	.actions = actions,
};

static void test_params_defaults_and_env(void **state)
{
	char *envp[] = { "OCF_RESKEY_flag=yes", "OCF_RESKEY_port=6443",
		"OCF_RESKEY_binary=", "OCF_RESKEY_unrelated=1", "OCF_RESKEY_conf=/etc/x.cfg",
		NULL };
	struct ocf_ctx c;
	unsigned long port;
	bool flag = false;

	(void)state;
	assert_int_equal(ocf_ctx_init(&c, &agent, "start", envp, 1000), 0);
	assert_non_null(c.action);
	assert_string_equal(ocf_get(&c, "binary"), "/usr/bin/x"); /* empty: the default */
	assert_false(ocf_is_set(&c, "binary"));
	assert_true(ocf_is_set(&c, "conf"));
	assert_string_equal(ocf_get(&c, "conf"), "/etc/x.cfg");
	assert_int_equal(ocf_get_bool(&c, "flag", &flag), 0);
	assert_true(flag);
	assert_int_equal(ocf_get_uint(&c, "port", 65535, &port), 0);
	assert_int_equal(port, 6443);
	assert_string_equal(ocf_get(&c, "wait"), "10s");
	ocf_ctx_free(&c);

	/* an action the agent does not have */
	assert_int_equal(ocf_ctx_init(&c, &agent, "promote", envp, 0), 0);
	assert_null(c.action);
	ocf_ctx_free(&c);
}

static void test_bad_values(void **state)
{
	char *envp[] = { "OCF_RESKEY_flag=maybe", "OCF_RESKEY_port=70000", NULL };
	char *envp2[] = { "OCF_RESKEY_port=-1", NULL };
	char *envp3[] = { "OCF_RESKEY_port=12x", NULL };
	struct ocf_ctx c;
	unsigned long port;
	bool flag;

	(void)state;
	assert_int_equal(ocf_ctx_init(&c, &agent, "start", envp, 0), 0);
	assert_int_equal(ocf_get_bool(&c, "flag", &flag), -EINVAL);
	assert_int_equal(ocf_get_uint(&c, "port", 65535, &port), -EINVAL);
	ocf_ctx_free(&c);
	assert_int_equal(ocf_ctx_init(&c, &agent, "start", envp2, 0), 0);
	assert_int_equal(ocf_get_uint(&c, "port", 65535, &port), -EINVAL);
	ocf_ctx_free(&c);
	assert_int_equal(ocf_ctx_init(&c, &agent, "start", envp3, 0), 0);
	assert_int_equal(ocf_get_uint(&c, "port", 65535, &port), -EINVAL);
	/* unset without default */
	ocf_ctx_free(&c);
	assert_int_equal(ocf_ctx_init(&c, &agent, "start", NULL, 0), 0);
	assert_int_equal(ocf_get_uint(&c, "port", 65535, &port), -ENOENT);
	ocf_ctx_free(&c);
}

static void test_parse_bool(void **state)
{
	static const char *const yes[] = { "true", "TRUE", "yes", "on", "y", "1", "True" };
	static const char *const no[] = { "false", "no", "off", "n", "0", "FALSE" };
	bool v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		v = false;
		assert_int_equal(ocf_parse_bool(yes[i], &v), 0);
		assert_true(v);
	}
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		v = true;
		assert_int_equal(ocf_parse_bool(no[i], &v), 0);
		assert_false(v);
	}
	assert_int_equal(ocf_parse_bool("", &v), -EINVAL);
	assert_int_equal(ocf_parse_bool("2", &v), -EINVAL);
	assert_int_equal(ocf_parse_bool(NULL, &v), -EINVAL);
}

static void test_budget(void **state)
{
	char *envp[] = { "OCF_RESKEY_CRM_meta_timeout=20000", "OCF_RESKEY_CRM_meta_interval=10000",
		NULL };
	char *probe[] = { "OCF_RESKEY_CRM_meta_timeout=30000", "OCF_RESKEY_CRM_meta_interval=0",
		NULL };
	char *bad[] = { "OCF_RESKEY_CRM_meta_timeout=20s", NULL };
	struct ocf_ctx c;

	(void)state;
	/* 10% margin, between 0.5 s and 5 s, never more than half */
	assert_int_equal(ocf_budget_usec(20000), 18000000);
	assert_int_equal(ocf_budget_usec(120000), 115000000);
	assert_int_equal(ocf_budget_usec(2000), 1500000);
	assert_int_equal(ocf_budget_usec(600), 300000);
	assert_int_equal(ocf_budget_usec(0), 0);
	/* SIGKILL's part of a stop: a tenth, between 1 s and 5 s, never more
	 * than half */
	assert_int_equal(ocf_kill_reserve_usec(20000000), 2000000);
	assert_int_equal(ocf_kill_reserve_usec(100000000), 5000000);
	assert_int_equal(ocf_kill_reserve_usec(4000000), 1000000);
	assert_int_equal(ocf_kill_reserve_usec(1000000), 500000);
	assert_int_equal(ocf_kill_reserve_usec(0), 0);

	assert_int_equal(ocf_ctx_init(&c, &agent, "monitor", envp, 5000000), 0);
	assert_int_equal(c.timeout_ms, 20000);
	assert_int_equal(c.interval_ms, 10000);
	assert_false(c.probe);
	assert_int_equal(c.deadline_usec, 5000000 + 18000000);
	ocf_ctx_free(&c);

	assert_int_equal(ocf_ctx_init(&c, &agent, "monitor", probe, 0), 0);
	assert_true(c.probe);
	ocf_ctx_free(&c);

	/* no meta timeout (run by hand), or a bad one: the advertised default */
	assert_int_equal(ocf_ctx_init(&c, &agent, "start", NULL, 0), 0);
	assert_int_equal(c.timeout_ms, 90000);
	ocf_ctx_free(&c);
	assert_int_equal(ocf_ctx_init(&c, &agent, "stop", bad, 0), 0);
	assert_int_equal(c.timeout_ms, 60000);
	ocf_ctx_free(&c);

	/* the budget of a real context runs out */
	assert_int_equal(ocf_ctx_init(&c, &agent, "start", NULL, ocf_now()), 0);
	c.deadline_usec = ocf_now() + 20000;
	assert_true(ocf_left(&c) > 0);
	assert_false(ocf_sleep(&c, 1000000)); /* sleeps 20 ms, not 1 s */
	assert_int_equal(ocf_left(&c), 0);
	ocf_ctx_free(&c);
}

static void test_state_name(void **state)
{
	char *s;

	(void)state;
	s = ocf_state_name("kube-apiserver", "apiserver:2", false);
	assert_string_equal(s, "kube-apiserver-apiserver"); /* anonymous clone */
	free(s);
	s = ocf_state_name("kube-apiserver", "apiserver:2", true);
	assert_string_equal(s, "kube-apiserver-apiserver-2"); /* unique: one per instance */
	free(s);
	s = ocf_state_name("lbd", "lb", false);
	assert_string_equal(s, "lbd-lb");
	free(s);
	s = ocf_state_name("lbd", "a/b:c", false);
	assert_string_equal(s, "lbd-a-b-c");
	free(s);
}

static void test_clone_vars(void **state)
{
	char *envp[] = { "OCF_RESKEY_CRM_meta_clone=1", "OCF_RESKEY_CRM_meta_clone_max=3",
		"OCF_RESKEY_CRM_meta_clone_node_max=1", "OCF_RESKEY_CRM_meta_notify=true",
		"OCF_RESKEY_CRM_meta_globally_unique=false", "OCF_RESOURCE_INSTANCE=etcd:1",
		"OCF_RESKEY_CRM_meta_on_node=m1", NULL };
	struct ocf_clone cl;
	struct ocf_ctx c;

	(void)state;
	ocf_clone_parse(envp, &cl);
	assert_true(cl.is_clone);
	assert_int_equal(cl.instance, 1);
	assert_int_equal(cl.max, 3);
	assert_int_equal(cl.node_max, 1);
	assert_true(cl.notify);
	assert_false(cl.globally_unique);

	ocf_clone_parse(NULL, &cl);
	assert_false(cl.is_clone);
	assert_int_equal(cl.node_max, 1);

	assert_int_equal(ocf_ctx_init(&c, &agent, "start", envp, 0), 0);
	assert_string_equal(c.instance, "etcd:1");
	assert_string_equal(c.state_name, "test-agent-etcd");
	assert_string_equal(c.node, "m1");
	assert_int_equal(c.clone.max, 3);
	ocf_ctx_free(&c);
}

static void test_notify_vars(void **state)
{
	char *envp[] = { "OCF_RESKEY_CRM_meta_notify_type=pre",
		"OCF_RESKEY_CRM_meta_notify_operation=start",
		"OCF_RESKEY_CRM_meta_notify_start_uname=m2 m3 ",
		"OCF_RESKEY_CRM_meta_notify_start_resource=etcd:1 etcd:2 ",
		"OCF_RESKEY_CRM_meta_notify_active_uname=m0",
		"OCF_RESKEY_CRM_meta_notify_inactive_uname= ",
		"OCF_RESKEY_CRM_meta_notify_stop_uname=",
		"OCF_RESKEY_CRM_meta_notify_all_uname=m0 m1 m2 m3",
		/* Pacemaker < 2.1 names */
		"OCF_RESKEY_CRM_meta_notify_master_uname=m0",
		"OCF_RESKEY_CRM_meta_notify_slave_resource=etcd:3", NULL };
	char *post[] = { "OCF_RESKEY_CRM_meta_notify_type=post",
		"OCF_RESKEY_CRM_meta_notify_operation=stop",
		"OCF_RESKEY_CRM_meta_notify_promoted_uname=a",
		"OCF_RESKEY_CRM_meta_notify_master_uname=b", NULL };
	struct ocf_notify n;

	(void)state;
	assert_int_equal(ocf_notify_parse(envp, &n), 0);
	assert_int_equal(n.type, OCF_NOTIFY_PRE);
	assert_int_equal(n.op, OCF_NOP_START);
	assert_string_equal(ocf_notify_type_name(n.type), "pre");
	assert_string_equal(ocf_notify_op_name(n.op), "start");
	assert_int_equal(n.uname[OCF_NS_START].n, 2);
	assert_string_equal(n.uname[OCF_NS_START].v[0], "m2");
	assert_string_equal(n.uname[OCF_NS_START].v[1], "m3");
	assert_null(n.uname[OCF_NS_START].v[2]);
	assert_int_equal(n.resource[OCF_NS_START].n, 2);
	assert_string_equal(n.resource[OCF_NS_START].v[1], "etcd:2");
	assert_int_equal(n.uname[OCF_NS_ACTIVE].n, 1);
	assert_int_equal(n.uname[OCF_NS_INACTIVE].n, 0);
	assert_int_equal(n.uname[OCF_NS_STOP].n, 0);
	assert_int_equal(n.uname[OCF_NS_ALL].n, 4);
	assert_true(ocf_strv_contains(&n.uname[OCF_NS_ALL], "m3"));
	assert_false(ocf_strv_contains(&n.uname[OCF_NS_ALL], "m4"));
	assert_int_equal(n.uname[OCF_NS_PROMOTED].n, 1);
	assert_string_equal(n.resource[OCF_NS_UNPROMOTED].v[0], "etcd:3");
	ocf_notify_free(&n);

	assert_int_equal(ocf_notify_parse(post, &n), 0);
	assert_int_equal(n.type, OCF_NOTIFY_POST);
	assert_int_equal(n.op, OCF_NOP_STOP);
	assert_string_equal(n.uname[OCF_NS_PROMOTED].v[0], "a"); /* the new name wins */
	ocf_notify_free(&n);

	assert_int_equal(ocf_notify_parse(NULL, &n), 0);
	assert_int_equal(n.type, OCF_NOTIFY_NONE);
	assert_int_equal(n.op, OCF_NOP_NONE);
	ocf_notify_free(&n);
}

/* Run fn with fd (1 or 2) sent to a temporary file; return what it wrote. */
static char *capture(int fd, int (*fn)(void *), void *arg, int *rc)
{
	char path[] = "/tmp/cpha-test-ocf-XXXXXX";
	int tmp = mkstemp(path), saved;
	char *out = calloc(1, 65536);
	ssize_t n;

	assert_true(tmp >= 0);
	fflush(fd == 1 ? stdout : stderr);
	saved = dup(fd);
	dup2(tmp, fd);
	*rc = fn(arg);
	fflush(fd == 1 ? stdout : stderr);
	dup2(saved, fd);
	close(saved);
	lseek(tmp, 0, SEEK_SET);
	n = read(tmp, out, 65535);
	out[n > 0 ? n : 0] = '\0';
	close(tmp);
	unlink(path);
	return out;
}

struct main_args {
	int argc;
	char **argv;
	char **envp;
};

static int call_main(void *p)
{
	struct main_args *a = p;

	return ocf_main(&agent, a->argc, a->argv, a->envp);
}

static void test_dispatch(void **state)
{
	char *envp[] = { "OCF_RESOURCE_INSTANCE=rsc:0", "OCF_RESKEY_CRM_meta_timeout=5000", NULL };
	char *start[] = { "agent", "start", NULL };
	char *stop[] = { "agent", "stop", NULL };
	char *promote[] = { "agent", "promote", NULL };
	char *notify[] = { "agent", "notify", NULL };
	char *usage[] = { "agent", NULL };
	struct main_args a = { 2, start, envp };
	const char *reason;
	char *out;
	int rc;

	(void)state;
	calls = 0;
	out = capture(2, call_main, &a, &rc);
	assert_int_equal(rc, PCMK_OCF_OK);
	assert_int_equal(calls, 1);
	assert_string_equal(seen_instance, "rsc:0");
	assert_int_equal(seen_timeout, 5000);
	free(out);

	/* a failure leaves exactly one exit reason line, newlines flattened */
	a.argv = stop;
	out = capture(2, call_main, &a, &rc);
	assert_int_equal(rc, PCMK_OCF_NOT_CONFIGURED);
	reason = strstr(out, "ocf-exit-reason:bad <thing> second line\n");
	assert_non_null(reason);
	assert_true(reason == out || reason[-1] == '\n');
	assert_null(strstr(reason + 1, "ocf-exit-reason:"));
	free(out);

	a.argv = promote; /* not in the table */
	out = capture(2, call_main, &a, &rc);
	assert_int_equal(rc, PCMK_OCF_UNIMPLEMENT_FEATURE);
	free(out);
	a.argv = notify; /* in the table without a function */
	out = capture(2, call_main, &a, &rc);
	assert_int_equal(rc, PCMK_OCF_UNIMPLEMENT_FEATURE);
	free(out);

	a.argc = 1;
	a.argv = usage;
	out = capture(2, call_main, &a, &rc);
	assert_int_equal(rc, PCMK_OCF_INVALID_PARAM);
	assert_non_null(strstr(out, "usage: test-agent {meta-data|start|stop|monitor"));
	free(out);
}

static int call_degraded(void *p)
{
	(void)p;
	return ocf_degraded("live but not ready: %s", "etcd");
}

static void test_exit_reason_format(void **state)
{
	char *out;
	int rc;

	(void)state;
	out = capture(2, call_degraded, NULL, &rc);
	assert_int_equal(rc, PCMK_OCF_DEGRADED);
	assert_non_null(strstr(out, "ocf-exit-reason:live but not ready: etcd\n"));
	free(out);
	assert_string_equal(ocf_rc_name(PCMK_OCF_NOT_RUNNING), "OCF_NOT_RUNNING");
	assert_string_equal(ocf_rc_name(PCMK_OCF_NOT_CONFIGURED), "OCF_ERR_CONFIGURED");
	assert_string_equal(ocf_rc_name(PCMK_OCF_DEGRADED), "OCF_DEGRADED");
	assert_string_equal(ocf_rc_name(42), "unknown");
}

static int call_meta(void *p)
{
	char *argv[] = { "agent", "meta-data", NULL };

	(void)p;
	return ocf_main(&agent, 2, argv, NULL);
}

/* xmllint --valid against the OCF 1.0 DTD when both are installed, else a
 * structural check of the text. */
static void test_meta_data(void **state)
{
	static const char *dtd = "/usr/share/resource-agents/ra-api-1.dtd";
	struct cpha_buf b = { 0 };
	char path[] = "/tmp/cpha-test-ocf-meta-XXXXXX";
	const char *p, *q;
	char *out;
	int fd, rc;

	(void)state;
	assert_int_equal(ocf_meta_render(&agent, &b), 0);
	/* escaping */
	assert_non_null(
		strstr(b.data, "<shortdesc lang=\"en\">Test &amp; &lt;agent&gt;</shortdesc>"));
	assert_non_null(strstr(b.data, "a &lt;port&gt; &amp; &quot;more&quot;"));
	assert_non_null(strstr(b.data, "it&apos;s unique"));
	/* attributes, types, defaults, OCF version, DOCTYPE */
	assert_non_null(strstr(b.data, "<!DOCTYPE resource-agent SYSTEM \"ra-api-1.dtd\">"));
	assert_non_null(strstr(b.data, "<resource-agent name=\"test-agent\" version=\"1.2.3\">"));
	assert_non_null(strstr(b.data, "<version>1.0</version>"));
	assert_non_null(strstr(b.data, "<parameter name=\"conf\" unique=\"1\" required=\"1\">"));
	assert_non_null(strstr(b.data, "<content type=\"boolean\" default=\"false\"/>"));
	assert_non_null(strstr(b.data, "<content type=\"integer\"/>"));
	assert_non_null(strstr(b.data, "<content type=\"time\" default=\"10s\"/>"));
	assert_non_null(strstr(b.data, "<action name=\"start\" timeout=\"90s\"/>"));
	assert_non_null(strstr(
		b.data, "<action name=\"monitor\" timeout=\"20s\" interval=\"10s\" depth=\"0\"/>"));
	assert_non_null(strstr(b.data, "<action name=\"meta-data\" timeout=\"5s\"/>"));
	/* a parameter without longdesc gets its shortdesc as longdesc (the DTD
	 * wants both) */
	p = strstr(b.data, "<parameter name=\"binary\"");
	assert_non_null(p);
	q = strstr(p, "</parameter>");
	assert_non_null(strstr(p, "<longdesc lang=\"en\">b</longdesc>"));
	assert_true(strstr(p, "<longdesc lang=\"en\">b</longdesc>") < q);
	/* element order of the DTD */
	assert_true(strstr(b.data, "<version>") < strstr(b.data, "<longdesc"));
	assert_true(strstr(b.data, "</shortdesc>\n  <parameters>") != NULL);
	assert_true(strstr(b.data, "<parameters>") < strstr(b.data, "<actions>"));

	/* the same text comes out of "meta-data" on stdout, exit 0 */
	out = capture(1, call_meta, NULL, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(out, b.data);
	free(out);

	if (access("/usr/bin/xmllint", X_OK) == 0 && access(dtd, R_OK) == 0) {
		const char *argv[] = { "/usr/bin/xmllint", "--noout", "--dtdvalid", dtd, path,
			NULL };
		struct cpha_run_result res;

		fd = mkstemp(path);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, b.data, b.len), (ssize_t)b.len);
		close(fd);
		assert_int_equal(ocf_run(argv, 20000000, &res), 0);
		if (res.exit_code != 0)
			print_error("xmllint: %s%s\n", res.out, res.err);
		assert_true(res.exited);
		assert_int_equal(res.exit_code, 0);
		cpha_run_free(&res);
		unlink(path);
	} else {
		print_message("xmllint or %s missing: DTD validation skipped\n", dtd);
	}
	cpha_buf_free(&b);
}

static void test_strv(void **state)
{
	struct ocf_strv a = { 0 }, b = { 0 };

	(void)state;
	assert_int_equal(ocf_strv_split_ws("  a\tbb  c \n", &a), 0);
	assert_int_equal(a.n, 3);
	assert_string_equal(a.v[2], "c");
	assert_int_equal(ocf_strv_push(&b, "a"), 0);
	assert_int_equal(ocf_strv_push(&b, "bb"), 0);
	assert_false(ocf_strv_equal(&a, &b));
	assert_int_equal(ocf_strv_push(&b, "c"), 0);
	assert_true(ocf_strv_equal(&a, &b));
	ocf_strv_free(&a);
	ocf_strv_free(&b);
	assert_int_equal(a.n, 0);
	assert_null(a.v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_params_defaults_and_env),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_parse_bool),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_state_name),
		cmocka_unit_test(test_clone_vars),
		cmocka_unit_test(test_notify_vars),
		cmocka_unit_test(test_dispatch),
		cmocka_unit_test(test_exit_reason_format),
		cmocka_unit_test(test_meta_data),
		cmocka_unit_test(test_strv),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
