/* lbd's built-in HTTP services: the ACL evaluator (lbd/acl.c) driven with
 * made-up facts, and the configuration keywords of lbd/cfg_http.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <arpa/inet.h>
#include <cmocka.h>

#include "acl.h"
#include "cfg.h"
#include "http-types.h"

/* Facts for the evaluator: backend "api" has api_up usable servers. */
struct facts {
	int api_up;
	bool authed;
};

static int fake_nbsrv(void *userdata, const char *backend)
{
	struct facts *f = userdata;

	return strcmp(backend, "api") == 0 ? f->api_up : -1;
}

static bool fake_auth(void *userdata, const char *userlist)
{
	struct facts *f = userdata;

	return f->authed && strcmp(userlist, "ops") == 0;
}

/* Parse "if ..." split on spaces, with list; fails the test on error. */
static struct acl_cond *cond(const struct acl_list *list, const char *text)
{
	char buf[512], *w[64], *save = NULL, *t, err[256] = "";
	size_t n = 0;
	struct acl_cond *c;

	snprintf(buf, sizeof(buf), "%s", text);
	for (t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save))
		w[n++] = t;
	c = acl_cond_parse(list, (const char *const *)w, n, err, sizeof(err));
	if (!c)
		fail_msg("'%s': %s", text, err);
	return c;
}

/* The message of a condition that must not parse. */
static const char *cond_err(const struct acl_list *list, const char *text)
{
	static char err[256];
	char buf[512], *w[64], *save = NULL, *t;
	size_t n = 0;
	struct acl_cond *c;

	snprintf(buf, sizeof(buf), "%s", text);
	for (t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save))
		w[n++] = t;
	err[0] = '\0';
	c = acl_cond_parse(list, (const char *const *)w, n, err, sizeof(err));
	assert_null(c);
	return err;
}

static int define(struct acl_list *list, const char *text, char *err, size_t len)
{
	char buf[512], *w[64], *save = NULL, *t;
	size_t n = 0;

	snprintf(buf, sizeof(buf), "%s", text);
	for (t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save))
		w[n++] = t;
	return acl_define(list, (const char *const *)w, n, err, len);
}

static bool eval(const struct acl_cond *c, struct facts *fx, const char *path, const char *src,
	uint16_t port)
{
	struct sockaddr_storage ss;
	struct acl_facts f = { .path = path,
		.dst_port = port,
		.nbsrv = fake_nbsrv,
		.http_auth = fake_auth,
		.userdata = fx };

	memset(&ss, 0, sizeof(ss));
	if (src && strchr(src, ':')) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		assert_int_equal(inet_pton(AF_INET6, src, &s6->sin6_addr), 1);
	} else if (src) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		assert_int_equal(inet_pton(AF_INET, src, &s4->sin_addr), 1);
	}
	f.src = src ? (struct sockaddr *)&ss : NULL;
	return acl_cond_eval(c, &f);
}

/* monitor fail if { nbsrv(api) lt 1 }: follows the backend down, up, down. */
static void test_nbsrv_over_time(void **state)
{
	struct facts fx = { 0 };
	struct acl_cond *c = cond(NULL, "if { nbsrv(api) lt 1 }");
	int seq[] = { 3, 0, 1, 0, 2, 0 }, i;

	(void)state;
	for (i = 0; i < 6; i++) {
		fx.api_up = seq[i];
		assert_int_equal(eval(c, &fx, "/", NULL, 80), seq[i] < 1);
	}
	acl_cond_free(c);
}

static void test_int_operators(void **state)
{
	static const struct {
		const char *cond;
		int v;
		bool want;
	} cases[] = {
		{ "if { nbsrv(api) le 1 }", 1, true }, { "if { nbsrv(api) le 1 }", 2, false },
		{ "if { nbsrv(api) gt 1 }", 1, false }, { "if { nbsrv(api) gt 1 }", 2, true },
		{ "if { nbsrv(api) ge 2 }", 2, true }, { "if { nbsrv(api) ge 2 }", 1, false },
		{ "if { nbsrv(api) eq 0 }", 0, true }, { "if { nbsrv(api) eq 0 }", 3, false },
		{ "if { nbsrv(api) 1:2 }", 2, true }, { "if { nbsrv(api) 1:2 }", 3, false },
		{ "if { nbsrv(api) 5 }", 5, true },
		{ "if { nbsrv(api) }", 0, false }, /* no pattern: true when not zero */
		{ "if { nbsrv(api) }", 1, true },
		{ "if { nbsrv(other) ge 0 }", 0, false }, /* no such backend: no match */
	};
	struct facts fx = { 0 };
	struct acl_cond *c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		c = cond(NULL, cases[i].cond);
		fx.api_up = cases[i].v;
		if (eval(c, &fx, "/", NULL, 80) != cases[i].want)
			fail_msg("%s with %d: want %d", cases[i].cond, cases[i].v, cases[i].want);
		acl_cond_free(c);
	}
}

static void test_path_src_port(void **state)
{
	struct facts fx = { 0 };
	struct acl_list l = { 0 };
	struct acl_cond *c;
	char err[256];

	(void)state;
	assert_int_equal(define(&l, "metrics path /metrics /prom", err, sizeof(err)), 0);
	assert_int_equal(define(&l, "api path_beg /api/", err, sizeof(err)), 0);
	assert_int_equal(define(&l, "lan src 198.18.0.0/15 2001:db8::/32", err, sizeof(err)), 0);
	assert_int_equal(define(&l, "p8404 dst_port 8404", err, sizeof(err)), 0);
	assert_int_equal(define(&l, "Up path -i /UP", err, sizeof(err)), 0);

	c = cond(&l, "if metrics");
	assert_true(eval(c, &fx, "/metrics", NULL, 80));
	assert_true(eval(c, &fx, "/prom", NULL, 80));
	assert_false(eval(c, &fx, "/metrics/x", NULL, 80));
	acl_cond_free(c);

	c = cond(&l, "if api lan");
	assert_true(eval(c, &fx, "/api/v1", "198.19.1.2", 80));
	assert_false(eval(c, &fx, "/api/v1", "198.20.0.1", 80));
	assert_true(eval(c, &fx, "/api/", "2001:db8::9", 80));
	assert_false(eval(c, &fx, "/apx", "198.18.0.1", 80));
	assert_true(eval(c, &fx, "/api/x", "::ffff:198.18.0.7", 80)); /* mapped IPv4 */
	acl_cond_free(c);

	c = cond(&l, "if p8404 || Up");
	assert_true(eval(c, &fx, "/", NULL, 8404));
	assert_false(eval(c, &fx, "/", NULL, 8405));
	assert_true(eval(c, &fx, "/up", NULL, 8405));
	acl_cond_free(c);

	/* two lines with one name are ORed */
	assert_int_equal(define(&l, "metrics path /other", err, sizeof(err)), 0);
	c = cond(&l, "unless metrics");
	assert_false(eval(c, &fx, "/other", NULL, 80));
	assert_true(eval(c, &fx, "/nope", NULL, 80));
	acl_cond_free(c);
	acl_list_free(&l);
}

/* Request headers for the hdr fetches: names without case, as HTTP's. */
static const char *const fake_headers[][2] = {
	{ "Host", "API.example.com" },
	{ "X-Forwarded-For", "198.18.0.9" },
	{ "Empty", "" },
};

static const char *fake_hdr(void *userdata, const char *name)
{
	size_t i;

	(void)userdata;
	for (i = 0; i < sizeof(fake_headers) / sizeof(fake_headers[0]); i++)
		if (strcasecmp(fake_headers[i][0], name) == 0)
			return fake_headers[i][1];
	return NULL;
}

/* hdr, hdr_beg, hdr_end, hdr_sub, path_end, path_sub and the -m forms on
 * them, as HAProxy's http ACLs match: each case once true, once false. */
static void test_hdr_and_path_forms(void **state)
{
	static const struct {
		const char *cond, *path;
		bool want;
	} cases[] = {
		{ "if { hdr(host) -i api.example.com }", "/", true },
		{ "if { hdr(host) api.example.com }", "/", false },   /* case counts without -i */
		{ "if { hdr(HOST) -i api.example.com }", "/", true }, /* the name never does */
		{ "if { hdr(host) -i api.example.com.evil }", "/", false },
		{ "if { hdr_beg(host) -i api. }", "/", true },
		{ "if { hdr_beg(host) -i stats. }", "/", false },
		{ "if { hdr_end(host) .example.com }", "/", true },
		{ "if { hdr_end(host) .example.org }", "/", false },
		{ "if { hdr_sub(host) example }", "/", true },
		{ "if { hdr_sub(host) exmpl }", "/", false },
		{ "if { hdr(x-forwarded-for) -m beg 198.18. }", "/", true },
		{ "if { hdr(x-forwarded-for) -m end .10 }", "/", false },
		{ "if { hdr(host) -m reg -i ^api\\.[a-z]+\\.com$ }", "/", true },
		{ "if { hdr(host) -m reg ^www\\. }", "/", false },
		{ "if { hdr(x-forwarded-for) -m found }", "/", true },
		{ "if { hdr(x-real-ip) -m found }", "/", false },   /* absent */
		{ "if { hdr(x-real-ip) -m sub 198 }", "/", false }, /* absent never matches */
		{ "if { hdr(empty) -m found }", "/", true },        /* present, empty */
		{ "if { hdr(empty) }", "/", false },                /* no pattern: not empty */
		{ "if { hdr(host) }", "/", true },
		{ "if { path_end .json }", "/api/v1/pods.json", true },
		{ "if { path_end .json }", "/api/v1.json/pods", false },
		{ "if { path_sub /v1/ }", "/api/v1/pods", true },
		{ "if { path_sub /v2/ }", "/api/v1/pods", false },
		{ "if { path_beg /stats } { hdr_beg(host) -i api. }", "/stats", true },
		{ "if { path_beg /stats } !{ hdr_beg(host) -i api. }", "/stats", false },
	};
	struct acl_facts f = { .dst_port = 80, .hdr = fake_hdr };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct acl_cond *c = cond(NULL, cases[i].cond);

		f.path = cases[i].path;
		if (acl_cond_eval(c, &f) != cases[i].want)
			fail_msg("'%s' on %s: %d, want %d", cases[i].cond, cases[i].path,
				!cases[i].want, cases[i].want);
		acl_cond_free(c);
	}
	/* no header source at all (a TCP frontend): never a match */
	f.hdr = NULL;
	{
		struct acl_cond *c = cond(NULL, "if { hdr(host) -m found }");

		assert_false(acl_cond_eval(c, &f));
		acl_cond_free(c);
	}
}

static void test_logic(void **state)
{
	struct facts fx = { 0 };
	struct acl_list l = { 0 };
	struct acl_cond *c;
	char err[256];

	(void)state;
	assert_int_equal(define(&l, "dead nbsrv(api) lt 1", err, sizeof(err)), 0);
	assert_int_equal(define(&l, "authorized http_auth(ops)", err, sizeof(err)), 0);
	c = cond(&l, "if TRUE");
	assert_true(eval(c, &fx, "/", NULL, 80));
	acl_cond_free(c);
	c = cond(&l, "if FALSE || !TRUE");
	assert_false(eval(c, &fx, "/", NULL, 80));
	acl_cond_free(c);
	c = cond(&l, "if ! dead authorized");
	fx.api_up = 1;
	fx.authed = true;
	assert_true(eval(c, &fx, "/", NULL, 80));
	fx.authed = false;
	assert_false(eval(c, &fx, "/", NULL, 80));
	fx.authed = true;
	fx.api_up = 0;
	assert_false(eval(c, &fx, "/", NULL, 80));
	acl_cond_free(c);
	c = cond(&l, "if dead or { path_beg /x } !authorized");
	fx.api_up = 1;
	fx.authed = true;
	assert_false(eval(c, &fx, "/x", NULL, 80));
	fx.authed = false;
	assert_true(eval(c, &fx, "/x", NULL, 80));
	assert_false(eval(c, &fx, "/y", NULL, 80));
	acl_cond_free(c);
	c = cond(&l, "if LOCALHOST");
	assert_true(eval(c, &fx, "/", "127.0.0.1", 80));
	assert_true(eval(c, &fx, "/", "::1", 80));
	assert_false(eval(c, &fx, "/", "198.18.0.1", 80));
	acl_cond_free(c);
	acl_list_free(&l);
}

static void test_errors(void **state)
{
	struct acl_list l = { 0 };
	char err[256];

	(void)state;
	assert_non_null(strstr(cond_err(&l, "if nosuch"), "no such ACL: 'nosuch'"));
	assert_non_null(
		strstr(cond_err(&l, "if { req.hdr(host) foo }"), "unknown fetch method 'req.hdr'"));
	assert_non_null(strstr(cond_err(&l, "if { path /x"), "missing closing '}'"));
	assert_non_null(strstr(cond_err(&l, "if TRUE ||"), "ends with '||'"));
	assert_non_null(strstr(cond_err(&l, "if { nbsrv lt 1 }"), "needs an argument"));
	assert_non_null(strstr(cond_err(&l, "if { nbsrv(api) lt x }"), "integer"));
	assert_non_null(strstr(cond_err(&l, "if { src 198.18.0.300 }"), "not an address"));
	assert_non_null(strstr(cond_err(&l, "when TRUE"), "'if' or 'unless'"));
	assert_int_equal(define(&l, "x ssl_fc", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown fetch method 'ssl_fc'"));
	assert_int_equal(define(&l, "bad/name path /", err, sizeof(err)), -1);
	assert_int_equal(l.n, 0);
}

/* Configurations */

#define HEAD                                                                                       \
	"defaults\n"                                                                               \
	"    mode tcp\n"                                                                           \
	"    timeout connect 5s\n"                                                                 \
	"    timeout client 30s\n"                                                                 \
	"    timeout server 30s\n"                                                                 \
	"frontend api\n"                                                                           \
	"    bind 198.18.0.10:6443\n"                                                              \
	"    default_backend api\n"                                                                \
	"backend api\n"                                                                            \
	"    server m1 198.18.0.11:6443 check\n"

static struct lbd_config *load_ok(const char *text)
{
	struct cpha_msgs errs = { 0 };
	struct lbd_config *c = NULL;
	size_t i;

	if (lbd_cfg_load_mem("t.cfg", text, strlen(text), &c, &errs) < 0) {
		for (i = 0; i < errs.nerrs; i++)
			print_message("%s\n", errs.errs[i].text);
		cpha_msgs_free(&errs);
		fail_msg("configuration refused");
	}
	return c;
}

/* Every error joined, the configuration must be refused. */
static const char *load_err(const char *text)
{
	static char all[4096];
	struct cpha_msgs errs = { 0 };
	struct lbd_config *c = NULL;
	size_t i, o = 0;

	assert_int_equal(lbd_cfg_load_mem("t.cfg", text, strlen(text), &c, &errs), -1);
	all[0] = '\0';
	for (i = 0; i < errs.nerrs && o < sizeof(all); i++)
		o += (size_t)snprintf(all + o, sizeof(all) - o, "%s\n", errs.errs[i].text);
	cpha_msgs_free(&errs);
	return all;
}

static bool has_notice(const struct lbd_config *c, const char *needle)
{
	size_t i;

	for (i = 0; i < c->nnotices; i++)
		if (strstr(c->notices[i], needle))
			return true;
	return false;
}

static void test_cfg_stats(void **state)
{
	struct lbd_config *c =
		load_ok(HEAD "userlist ops\n"
			     "    group admins users bob\n"
			     "    user bob insecure-password pw groups admins\n"
			     "    user eve password $5$salt$hash\n"
			     "listen stats\n"
			     "    bind 198.18.0.10:8404\n"
			     "    mode http\n"
			     "    stats enable\n"
			     "    stats uri /stats\n"
			     "    stats refresh 10s\n"
			     "    stats realm HAProxy\\ Statistics\n"
			     "    stats auth admin:secret\n"
			     "    stats auth ro:pw:colon\n"
			     "    stats admin if TRUE\n"
			     "    stats hide-version\n"
			     "    stats show-legends\n"
			     "    stats show-node lb1\n"
			     "    acl authorized http_auth(ops)\n"
			     "    stats http-request auth realm Ops unless authorized\n");
	const struct lbd_http_service *s;

	(void)state;
	assert_int_equal(c->nhttps, 1);
	assert_int_equal(c->nfrontends, 1); /* the stats listen is not a TCP proxy */
	assert_int_equal(c->nbackends, 1);
	s = c->https[0];
	assert_string_equal(s->name, "stats");
	assert_string_equal(s->kind, "listen");
	assert_int_equal(s->nbinds, 1);
	assert_true(s->stats);
	assert_string_equal(s->stats_uri, "/stats");
	assert_string_equal(s->stats_realm, "HAProxy Statistics");
	assert_int_equal(s->refresh, 10000000);
	assert_int_equal(s->auth.nusers, 2);
	assert_string_equal(s->auth.users[1].name, "ro");
	assert_string_equal(s->auth.users[1].pass, "pw:colon");
	assert_non_null(s->admin);
	assert_true(s->hide_version && s->show_legends && s->show_node);
	assert_string_equal(s->node, "lb1");
	assert_int_equal(s->nrules, 1);
	assert_int_equal(s->rules[0].action, LBD_STATS_AUTH);
	assert_string_equal(s->rules[0].realm, "Ops");
	assert_int_equal(c->nuserlists, 1);
	assert_int_equal(c->userlists[0]->nusers, 2);
	assert_false(c->userlists[0]->users[1].insecure);
	lbd_cfg_free(c);

	/* stats settings of a defaults section reach the sections after it */
	c = load_ok("defaults\n    mode tcp\n    timeout client 5s\n    timeout connect 5s\n"
		    "    timeout server 5s\n    stats uri /s\n    stats auth a:b\n"
		    "    stats refresh 3s\n"
		    "frontend api\n    bind :6443\n    default_backend api\n"
		    "backend api\n    server m1 198.18.0.11:6443\n"
		    "listen st\n    bind :8404\n    mode http\n    stats realm R\n");
	assert_int_equal(c->nhttps, 1);
	assert_string_equal(c->https[0]->stats_uri, "/s");
	assert_string_equal(c->https[0]->stats_realm, "R");
	assert_int_equal(c->https[0]->refresh, 3000000);
	assert_int_equal(c->https[0]->auth.nusers, 1);
	assert_int_equal(c->nnotices, 0); /* inherited by TCP sections: no word about it */
	lbd_cfg_free(c);

	/* stats enable alone: HAProxy's default URI and realm */
	c = load_ok(HEAD "frontend st\n    bind :8404\n    mode http\n    stats enable\n");
	assert_string_equal(c->https[0]->stats_uri, "/haproxy?stats");
	assert_string_equal(c->https[0]->stats_realm, "HAProxy Statistics");
	lbd_cfg_free(c);
}

static void test_cfg_monitor_prom(void **state)
{
	struct lbd_config *c =
		load_ok(HEAD "frontend healthz\n"
			     "    bind :8081\n"
			     "    mode http\n"
			     "    monitor-uri /healthz\n"
			     "    acl dead nbsrv(api) lt 1\n"
			     "    monitor fail if dead\n"
			     "    monitor fail if { nbsrv(api) lt 1 }\n"
			     "frontend prometheus\n"
			     "    bind :8405\n"
			     "    mode http\n"
			     "    http-request use-service prometheus-exporter if { path "
			     "/metrics }\n"
			     "    no log\n");

	(void)state;
	assert_int_equal(c->nhttps, 2);
	assert_string_equal(c->https[0]->monitor_uri, "/healthz");
	assert_int_equal(c->https[0]->nmonitor_fail, 2);
	assert_false(c->https[0]->stats);
	assert_int_equal(c->https[1]->nprom, 1);
	assert_non_null(c->https[1]->prom[0]);
	lbd_cfg_free(c);

	/* monitor-uri under HTTP defaults, as kubespray writes it */
	c = load_ok("defaults\n    mode http\n    timeout client 5s\n    timeout connect 5s\n"
		    "    timeout server 5s\n"
		    "frontend healthz\n    bind *:8081\n    monitor-uri /healthz\n"
		    "frontend api\n    bind *:6443\n    mode tcp\n    default_backend api\n"
		    "backend api\n    mode tcp\n    server m1 198.18.0.11:6443\n");
	assert_int_equal(c->nhttps, 1);
	assert_string_equal(c->https[0]->monitor_uri, "/healthz");
	lbd_cfg_free(c);
}

static void test_cfg_tcp_ignores(void **state)
{
	/* HAProxy warns and ignores these in a mode tcp proxy */
	struct lbd_config *c = load_ok(HEAD "frontend t\n"
					    "    bind :9000\n"
					    "    stats enable\n"
					    "    monitor-uri /x\n"
					    "    default_backend api\n");

	(void)state;
	assert_int_equal(c->nhttps, 0);
	assert_true(has_notice(c, "t.cfg:13: 'stats' needs mode http; ignored"));
	assert_true(has_notice(c, "t.cfg:14: 'monitor-uri' needs mode http; ignored"));
	lbd_cfg_free(c);

	/* HTTP proxying options in a built-in service section: said, ignored */
	c = load_ok(HEAD "frontend m\n    bind :81\n    mode http\n    option httplog\n"
			 "    timeout http-request 5s\n    monitor-uri /m\n");
	assert_int_equal(c->nhttps, 1);
	assert_true(has_notice(c, "t.cfg:14: 'option httplog' has no effect on lbd's built-in"));
	assert_true(has_notice(c, "t.cfg:15: 'timeout http-request' has no effect"));
	assert_false(has_notice(c, "falls back to option tcplog"));
	lbd_cfg_free(c);
}

static void test_cfg_refused(void **state)
{
	(void)state;
	/* proxying HTTP stays refused */
	assert_non_null(strstr(load_err(HEAD "listen web\n    bind :80\n    mode http\n"
					     "    stats enable\n    server w 198.18.0.20:80\n"),
		"t.cfg:11: listen 'web' is in mode http (t.cfg:13) and has servers; lbd does not "
		"proxy HTTP"));
	assert_non_null(strstr(load_err(HEAD "frontend web\n    bind :80\n    mode http\n"
					     "    default_backend api\n"),
		"sends to 'api', which is not a mode http backend without servers; lbd does not "
		"proxy HTTP"));
	assert_non_null(strstr(load_err(HEAD "frontend web\n    bind :80\n    mode http\n"
					     "    http-request redirect location /x\n"),
		"t.cfg:14: 'http-request redirect location' is not supported by lbd"));
	assert_non_null(strstr(load_err(HEAD "backend b2\n    mode http\n"
					     "    server s 198.18.0.9:80\n"),
		"backend 'b2' is in mode http (t.cfg:12) and has servers; lbd does not proxy "
		"HTTP"));
	/* conditions */
	assert_non_null(strstr(
		load_err(HEAD "frontend h\n    bind :81\n    mode http\n"
			      "    monitor-uri /h\n    monitor fail if { nbsrv(nope) lt 1 }\n"),
		"t.cfg:15: nbsrv(nope): no such backend"));
	assert_non_null(strstr(load_err(HEAD "frontend h\n    bind :81\n    mode http\n"
					     "    monitor fail if { cook(x) foo }\n"),
		"t.cfg:14: 'monitor fail': unknown fetch method 'cook'"));
	assert_non_null(strstr(load_err(HEAD "frontend h\n    bind :81\n    mode http\n"
					     "    stats admin if authorized\n"),
		"no such ACL: 'authorized'"));
	assert_non_null(strstr(load_err(HEAD "frontend h\n    bind :81\n    mode http\n"
					     "    stats auth nocolon\n"),
		"USER:PASSWORD"));
	assert_non_null(
		strstr(load_err(HEAD "frontend h\n    bind :81\n    mode http\n"
				     "    acl ok http_auth(nolist)\n    stats http-request auth "
				     "unless ok\n"),
			"http_auth(nolist): no such userlist"));
	assert_non_null(strstr(load_err(HEAD "userlist u\n    user a secret-password x\n"),
		"t.cfg:12: 'user a': unexpected 'secret-password'"));
	assert_non_null(strstr(load_err(HEAD "frontend h\n    bind :81\n    mode http\n"
					     "    stats bogus\n"),
		"'stats bogus' is not supported"));
	assert_non_null(strstr(load_err(HEAD "frontend h\n    bind 198.18.0.10:6443\n"
					     "    mode http\n    monitor-uri /m\n"),
		"t.cfg:12: bind address 198.18.0.10:6443 is already used by frontend 'api'"));
	assert_non_null(strstr(load_err(HEAD "frontend h\n    bind :81\n    mode http\n"
					     "frontend h2\n    bind :81\n    mode http\n"),
		"t.cfg:15: bind address 0.0.0.0:81 is already used by frontend 'h'"));
	assert_non_null(strstr(load_err(HEAD "frontend h\n    bind :81\n    mode http\n"
					     "    monitor pass if TRUE\n"),
		"'monitor' expects 'fail'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nbsrv_over_time),
		cmocka_unit_test(test_int_operators),
		cmocka_unit_test(test_path_src_port),
		cmocka_unit_test(test_hdr_and_path_forms),
		cmocka_unit_test(test_logic),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_cfg_stats),
		cmocka_unit_test(test_cfg_monitor_prom),
		cmocka_unit_test(test_cfg_tcp_ignores),
		cmocka_unit_test(test_cfg_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
