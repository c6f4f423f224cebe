/* lbd's admin commands and metrics, in process: every command many times
 * (so LeakSanitizer, in the ASan build, sees any reply that loses memory),
 * the stats socket's levels, and what each level may change. The runtime
 * is built from a small configuration with no workers and no checks, so
 * nothing is sent anywhere. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cfg.h"
#include "cli.h"
#include "metrics.h"
#include "runtime.h"
#include "server.h"
#include "stats.h"
#include "stats_haproxy.h"

#define ROUNDS 300 /* per command */

static const char body[] = "defaults\n"
			   "    mode tcp\n"
			   "    timeout connect 1s\n"
			   "    timeout client 10s\n"
			   "    timeout server 10s\n"
			   "frontend fe\n"
			   "    bind 127.0.0.1:6443\n"
			   "    default_backend be\n"
			   "backend be\n"
			   "    server s1 127.0.0.1:1\n"
			   "    server s2 127.0.0.1:2 backup\n";

/* A runtime for "global\n  stats socket /x LEVEL\n" + body. */
static void make_rt(struct lbd_runtime *rt, const char *level)
{
	struct cpha_msgs errs = { 0 };
	struct lbd_config *c = NULL;
	char text[2048];

	snprintf(text, sizeof(text), "global\n    stats socket /run/cpha-test.sock %s\n%s", level,
		body);
	memset(rt, 0, sizeof(*rt));
	assert_int_equal(lbd_cfg_load_mem("t.cfg", text, strlen(text), &c, &errs), 0);
	cpha_msgs_free(&errs);
	assert_int_equal(runtime_apply(rt, c), 0);
}

static char *run(struct lbd_runtime *rt, const char *cmd)
{
	static const struct cpha_admin_peer peer = { .pid = 4242, .uid = 65534, .gid = 65534 };
	struct cpha_buf b = { 0 };

	cli_command(rt, &peer, cmd, &b);
	return cpha_buf_steal(&b);
}

/* cmd's reply holds want. */
static void expect(struct lbd_runtime *rt, const char *cmd, const char *want)
{
	char *r = run(rt, cmd);

	if (!r || !strstr(r, want)) {
		print_error("'%s' answered '%s', without '%s'\n", cmd, r ? r : "(nothing)", want);
		free(r);
		fail();
	}
	free(r);
}

static const char *admin_status(struct lbd_runtime *rt)
{
	static char st[16];
	struct lbd_server *s = runtime_server(rt, "be", "s1");

	snprintf(st, sizeof(st), "%d/%u", (int)atomic_load(&s->admin), s->o.weight);
	return st;
}

/* Every command, text and JSON, every change undone, every error path. */
static const struct {
	const char *cmd, *want;
} commands[] = {
	{ "help", "shutdown sessions server" },
	{ "", "show info" },
	{ "show info", "Name: lbd" },
	{ "show info json", "\"Name\":\"lbd\"" },
	{ "show stat", "be,s1," },
	{ "show stat json", "\"backends\":[{\"backend\":\"be\"" },
	{ "show servers state", " be 1 s1 " },
	{ "show servers state be json", "\"server\":\"s2\"" },
	{ "show servers state nope", "Can't find backend." },
	{ "set server be/s1 state drain", "\n" },
	{ "set server be/s1 state ready json", "{\"ok\":true}" },
	{ "disable server be/s1", "\n" },
	{ "enable server be/s1 json", "{\"ok\":true}" },
	{ "quiesce 198.18.0.2 2001:db8::2 for 1500", "\n" },
	{ "show quiesce", "198.18.0.2 1" },
	{ "show quiesce json", "\"address\":\"2001:db8::2\"" },
	{ "unquiesce 2001:db8::2", "\n" },
	{ "quiesce 198.18.0.3", "\n" },
	{ "show quiesce", "198.18.0.3 " },
	{ "unquiesce all json", "{\"ok\":true}" },
	{ "show quiesce", "\n" },
	{ "quiesce", "Unknown command" },
	{ "quiesce for 100", "Require an address to quiesce." },
	{ "quiesce 198.18.0.2 for 0", "'for' needs a time in milliseconds, from 1 to 60000." },
	{ "quiesce 198.18.0.2 for 60001", "'for' needs a time" },
	{ "quiesce 198.18.0.2:6443", "'198.18.0.2:6443' is not an IP address" },
	{ "quiesce * json", "is not an IP address" },
	{ "quiesce 198.18.1.1 198.18.1.2 198.18.1.3 198.18.1.4 198.18.1.5", "\n" },
	{ "quiesce 198.18.1.6 198.18.1.7 198.18.1.8 198.18.1.9", "Too many addresses" },
	{ "unquiesce all", "\n" },
	/* the most addresses at once, with "for MS" and "json": every word read */
	{ "quiesce 198.18.1.1 198.18.1.2 198.18.1.3 198.18.1.4 198.18.1.5 198.18.1.6 "
	  "198.18.1.7 198.18.1.8 for 1500 json",
		"{\"ok\":true}" },
	{ "show quiesce", "198.18.1.8 1" },
	{ "unquiesce 198.18.1.1 198.18.1.2 198.18.1.3 198.18.1.4 198.18.1.5 198.18.1.6 "
	  "198.18.1.7 198.18.1.8",
		"\n" },
	{ "show quiesce", "\n" },
	/* one word more is refused, not cut short */
	{ "quiesce 198.18.1.1 198.18.1.2 198.18.1.3 198.18.1.4 198.18.1.5 198.18.1.6 "
	  "198.18.1.7 198.18.1.8 198.18.1.9 for 1500 json",
		"Too many words in one command." },
	{ "show quiesce", "\n" },
	{ "unquiesce all", "\n" },
	{ "set server be/s1 weight 50", "\n" },
	{ "set server be/s1 weight 1", "\n" },
	{ "set server be/s1 health down", "\n" },
	{ "set server be/s1 health up json", "{\"ok\":true}" },
	{ "shutdown sessions server be/s2", "\n" },
	{ "set server be/s1 weight 999", "Weight must be" },
	{ "set server be/nope state ready json", "\"error\":\"No such server.\"" },
	{ "set server nope/s1 state ready", "No such backend." },
	{ "set server be/s1 state", "expects" },
	{ "set server be/s1 state sleepy", "expects 'ready'" },
	{ "set server be/s1 frobnicate 1", "only supports" },
	{ "disable server be", "Require 'backend/server'." },
	{ "frobnicate json", "\"ok\":false" },
	{ "frobnicate", "Unknown command" },
	{ "a b c d e f g h i j k l", "Unknown command" },
};

static void test_every_command_many_times(void **state)
{
	struct lbd_runtime rt;
	struct cpha_buf m = { 0 };
	size_t i;
	int k;

	(void)state;
	make_rt(&rt, "level admin");
	for (k = 0; k < ROUNDS; k++) {
		for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			expect(&rt, commands[i].cmd, commands[i].want);
		cpha_buf_reset(&m);
		lbd_stats_prometheus(&rt, &m);
		assert_non_null(strstr(m.data, "lbd_server_up{backend=\"be\",server=\"s1\"} 1\n"));
	}
	cpha_buf_free(&m);
	assert_string_equal(admin_status(&rt), "0/1");
	runtime_free(&rt);
}

static const char *const changes[] = {
	"set server be/s1 state maint",
	"set server be/s1 weight 7",
	"set server be/s1 health down",
	"disable server be/s1",
	"enable server be/s1",
	"shutdown sessions server be/s1",
	"set server be/s1 state maint json",
};

/* user and operator: every read answers, every change is refused and
 * changes nothing; admin: the changes happen. */
static void test_levels(void **state)
{
	static const char *const levels[] = { "level user", "level operator" };
	struct lbd_runtime rt;
	struct lbd_server *s1;
	size_t l, i;
	char *r;

	(void)state;
	for (l = 0; l < 2; l++) {
		make_rt(&rt, levels[l]);
		s1 = runtime_server(&rt, "be", "s1");
		for (i = 0; i < sizeof(changes) / sizeof(changes[0]); i++) {
			r = run(&rt, changes[i]);
			assert_non_null(r);
			if (strstr(changes[i], "json"))
				assert_string_equal(
					r, "{\"ok\":false,\"error\":\"Permission denied\"}\n");
			else
				assert_string_equal(r, "Permission denied\n");
			free(r);
		}
		assert_string_equal(admin_status(&rt), "0/1");
		assert_true(atomic_load(&s1->up));
		expect(&rt, "show stat", "be,s1,");
		expect(&rt, "show servers state json", "\"admin\":\"ready\"");
		expect(&rt, "show info", "Name: lbd");
		/* help lists only what the level allows */
		r = run(&rt, "help");
		assert_non_null(strstr(r, "show stat"));
		assert_null(strstr(r, "set server"));
		free(r);
		runtime_free(&rt);
	}

	make_rt(&rt, "level admin");
	s1 = runtime_server(&rt, "be", "s1");
	expect(&rt, "set server be/s1 weight 7", "\n");
	expect(&rt, "set server be/s1 state maint", "\n");
	assert_string_equal(admin_status(&rt), "2/7");
	expect(&rt, "set server be/s1 health down", "\n");
	assert_false(atomic_load(&s1->up));
	expect(&rt, "help", "set server B/S state");
	/* the help is made from the command table: every line, in order */
	r = run(&rt, "help");
	assert_string_equal(r,
		"The following commands are valid at this level:\n"
		"  help                                     : this text\n"
		"  show info [json]                         : process information\n"
		"  show stat [json]                         : statistics (HAProxy's CSV fields)\n"
		"  show servers state [BACKEND] [json]      : server states\n"
		"  show table [NAME] [json]                 : stick tables, or one table's "
		"entries\n"
		"  set server B/S state ready|drain|maint   : change a server's administrative "
		"state\n"
		"  set server B/S health up|down            : force a server's health state\n"
		"  set server B/S weight N                  : change a server's weight (0-256)\n"
		"  disable server B/S                       : same as set server B/S state maint\n"
		"  enable server B/S                        : same as set server B/S state ready\n"
		"  shutdown sessions server B/S             : cut the sessions of a server\n"
		"  quiesce ADDR... [for MS]                 : drop new connections to these "
		"addresses (5000 ms by default)\n"
		"  unquiesce ADDR...|all                    : take new connections to them again\n"
		"  show quiesce [json]                      : the quiet addresses and the ms they "
		"have left\n"
		"Append 'json' to any command for a JSON reply.\n");
	free(r);
	runtime_free(&rt);

	/* no level written: admin, as before */
	make_rt(&rt, "mode 600");
	expect(&rt, "disable server be/s1", "\n");
	assert_string_equal(admin_status(&rt), "2/1");
	runtime_free(&rt);
}

/* haproxy_exporter's status column to 0/1: its exact list, whole strings */
static void test_haproxy_status_up(void **state)
{
	static const struct {
		const char *status;
		int up;
	} cases[] = {
		{ "UP", 1 },
		{ "UP 1/3", 1 },
		{ "UP 2/3", 1 },
		{ "OPEN", 1 },
		{ "no check", 1 },
		{ "DRAIN", 1 },
		{ "DOWN", 0 },
		{ "DOWN 1/2", 0 },
		{ "NOLB", 0 },
		{ "MAINT", 0 },
		{ "MAINT (resolution)", 0 },
		{ "DOWN (DRAIN)", 0 },
		{ "UP 1/2", 0 }, /* not in the exporter's list */
		{ "up", 0 },
		{ "", 0 },
		{ NULL, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (stats_haproxy_status_up(cases[i].status) != cases[i].up) {
			print_error("'%s': want %d\n", cases[i].status ? cases[i].status : "(null)",
				cases[i].up);
			fail();
		}
	assert_string_equal(stats_haproxy_backend_status(0, 1), "UP");
	assert_string_equal(stats_haproxy_backend_status(2, 0), "UP");
	assert_string_equal(stats_haproxy_backend_status(0, 0), "DOWN");
}

/* m's text holds want (a whole line) */
static void expect_line(struct cpha_buf *m, const char *want)
{
	char line[256];

	snprintf(line, sizeof(line), "\n%s\n", want);
	if (!m->data || !strstr(m->data, line)) {
		print_error("metrics without '%s':\n%s\n", want, m->data ? m->data : "");
		fail();
	}
}

static void metrics_now(struct lbd_runtime *rt, struct cpha_buf *m)
{
	cpha_buf_reset(m);
	lbd_stats_prometheus(rt, m);
}

/* The haproxy_* series follow the server's state as haproxy_exporter reads
 * HAProxy's status column: UP and DRAIN 1, DOWN and MAINT 0; the backend is
 * up while a server, primary or backup, is usable; its weight is the
 * primaries' while one is usable, else the backups'. */
static void test_haproxy_series(void **state)
{
	struct lbd_runtime rt;
	struct cpha_buf m = { 0 };

	(void)state;
	make_rt(&rt, "level admin");
	metrics_now(&rt, &m);
	expect_line(&m, "haproxy_up 1");
	expect_line(&m, "# TYPE haproxy_server_up gauge");
	expect_line(&m, "# TYPE haproxy_server_sessions_total counter");
	expect_line(&m, "haproxy_server_up{backend=\"be\",server=\"s1\"} 1");
	expect_line(&m, "haproxy_server_up{backend=\"be\",server=\"s2\"} 1");
	expect_line(&m, "haproxy_backend_up{backend=\"be\"} 1");
	expect_line(&m, "haproxy_backend_current_server{backend=\"be\"} 1");
	expect_line(&m, "haproxy_backend_weight{backend=\"be\"} 1");
	expect_line(&m, "haproxy_frontend_current_sessions{frontend=\"fe\"} 0");
	expect_line(&m, "haproxy_frontend_sessions_total{frontend=\"fe\"} 0");
	/* no maxconn, no check: no series, and no empty family */
	assert_null(strstr(m.data, "haproxy_server_limit_sessions"));
	assert_null(strstr(m.data, "haproxy_server_check_failures_total"));

	expect(&rt, "set server be/s1 weight 7", "\n");
	metrics_now(&rt, &m);
	expect_line(&m, "haproxy_server_weight{backend=\"be\",server=\"s1\"} 7");
	expect_line(&m, "haproxy_backend_weight{backend=\"be\"} 7");

	expect(&rt, "set server be/s1 state drain", "\n");
	metrics_now(&rt, &m);
	expect_line(&m, "haproxy_server_up{backend=\"be\",server=\"s1\"} 1");
	expect_line(&m, "haproxy_backend_current_server{backend=\"be\"} 0");
	expect_line(&m, "haproxy_backend_weight{backend=\"be\"} 1"); /* the backup's */

	expect(&rt, "set server be/s1 state maint", "\n");
	metrics_now(&rt, &m);
	expect_line(&m, "haproxy_server_up{backend=\"be\",server=\"s1\"} 0");

	expect(&rt, "set server be/s1 state ready", "\n");
	expect(&rt, "set server be/s1 health down", "\n");
	expect(&rt, "set server be/s2 health down", "\n");
	metrics_now(&rt, &m);
	expect_line(&m, "haproxy_server_up{backend=\"be\",server=\"s1\"} 0");
	expect_line(&m, "haproxy_server_up{backend=\"be\",server=\"s2\"} 0");
	expect_line(&m, "haproxy_backend_up{backend=\"be\"} 0");
	expect_line(&m, "haproxy_backend_weight{backend=\"be\"} 0");
	/* lbd's own names stay */
	expect_line(&m, "lbd_server_up{backend=\"be\",server=\"s1\"} 0");

	expect(&rt, "set server be/s2 health up", "\n");
	metrics_now(&rt, &m);
	expect_line(&m, "haproxy_backend_up{backend=\"be\"} 1");
	expect_line(&m, "haproxy_backend_current_server{backend=\"be\"} 0");
	cpha_buf_free(&m);
	runtime_free(&rt);
}

/* Downtime as HAProxy counts it: the time down by checks or in
 * maintenance (administrative or DNS), not draining; whole seconds */
static void test_downtime(void **state)
{
	struct lbd_runtime rt;
	struct lbd_server *s;
	const uint64_t t = 1000000000; /* usec, any start */

	(void)state;
	make_rt(&rt, "level admin");
	s = runtime_server(&rt, "be", "s1");
	assert_false(server_stopped(s));
	server_downtime_note(s, t);
	assert_int_equal(server_downtime_sec(s, t + 5000000), 0);

	atomic_store(&s->up, false);
	assert_true(server_stopped(s));
	server_downtime_note(s, t + 1000000);
	server_downtime_note(s, t + 1500000); /* no change: nothing moves */
	assert_int_equal(server_downtime_sec(s, t + 3500000), 2);
	atomic_store(&s->up, true);
	server_downtime_note(s, t + 4000000);
	assert_int_equal(server_downtime_sec(s, t + 9000000), 3);

	atomic_store(&s->admin, LBD_ADMIN_DRAIN);
	server_downtime_note(s, t + 9000000);
	assert_false(server_stopped(s));
	assert_int_equal(server_downtime_sec(s, t + 12000000), 3);
	atomic_store(&s->admin, LBD_ADMIN_MAINT);
	server_downtime_note(s, t + 12000000);
	assert_int_equal(server_downtime_sec(s, t + 14000000), 5);
	atomic_store(&s->admin, LBD_ADMIN_READY);
	atomic_store(&s->dns_maint, true);
	server_downtime_note(s, t + 14000000); /* still stopped: one stretch */
	assert_int_equal(server_downtime_sec(s, t + 16000000), 7);
	atomic_store(&s->dns_maint, false);
	server_downtime_note(s, t + 16500000);
	assert_int_equal(server_downtime_sec(s, t + 30000000), 7); /* 7.5 s: whole seconds */
	runtime_free(&rt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_command_many_times),
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_haproxy_status_up),
		cmocka_unit_test(test_haproxy_series),
		cmocka_unit_test(test_downtime),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
