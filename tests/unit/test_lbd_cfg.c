/* lbd's configuration parser: HAProxy's language, TCP subset. */
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <cmocka.h>

#include "cfg.h"
#include "duration.h"
#include "lbd_cfg_test.h"

static void test_seed_sample(void **state)
{
	struct lbd_config *c = load_ok(seed_cfg);
	struct lbd_frontend *f;
	struct lbd_backend *b;
	size_t i;

	(void)state;
	assert_int_equal(c->nfrontends, 1);
	assert_int_equal(c->nbackends, 1);
	f = &c->frontends[0];
	b = &c->backends[0];
	assert_string_equal(f->name, "secure_kube_control_plane");
	assert_string_equal(b->name, "secure_kube_control_plane");
	assert_true(f->from_listen && b->from_listen);
	assert_ptr_equal(f->backend, b);
	assert_int_equal(f->line, 3);
	assert_int_equal(f->nbinds, 1);
	assert_string_equal(addr(&f->binds[0].addr), "0.0.0.0:6443");
	assert_true(f->binds[0].addr.flags & CPHA_ADDR_F_ANY);
	assert_int_equal(f->binds[0].line, 4);
	assert_true(f->tcplog);
	assert_int_equal(b->balance, LBD_BAL_ROUNDROBIN);
	assert_int_equal(b->retries, 3);
	assert_int_equal(b->check_kind, LBD_CHECK_TCP);
	/* option tcp-check alone: the implicit connect, at its line */
	assert_int_equal(b->ntcpcheck, 1);
	assert_int_equal(b->tcpcheck[0].action, LBD_TCPCHK_CONNECT);
	assert_int_equal(b->tcpcheck[0].port, 0);
	assert_int_equal(b->tcpcheck[0].line, 7);
	assert_int_equal(b->nservers, 3);
	for (i = 0; i < 3; i++) {
		struct lbd_server_cfg *s = &b->servers[i];
		char want[32];

		snprintf(want, sizeof(want), "10.10.10.8%zu:6443", i);
		assert_string_equal(addr(&s->addr), want);
		assert_int_equal(s->id, i + 1);
		assert_int_equal(s->line, 10 + i);
		assert_true(s->o.check);
		assert_int_equal(s->o.inter, 10 * SEC);
		assert_int_equal(s->o.fastinter, 10 * SEC);
		assert_int_equal(s->o.downinter, 5 * SEC);
		assert_int_equal(s->o.rise, 2);
		assert_int_equal(s->o.fall, 2);
		assert_int_equal(s->o.slowstart, 60 * SEC);
		assert_int_equal(s->o.maxconn, 250);
		assert_int_equal(s->o.maxqueue, 256);
		assert_int_equal(s->o.weight, 100);
		assert_int_equal(s->o.verify, LBD_VERIFY_REQUIRED);
		assert_false(s->o.backup || s->o.disabled || s->o.send_proxy);
	}
	assert_ptr_equal(lbd_cfg_server(b, "secure_kubem01"), &b->servers[1]);
	assert_null(lbd_cfg_server(b, "nope"));
	assert_int_equal(c->global.maxconn, 4096);
	assert_int_equal(c->global.nbthread, 0);
	assert_null(c->global.stats.path);
	assert_int_equal(c->nnotices, 1);
	expect_in(notices(c), "t.cfg:3: listen 'secure_kube_control_plane' sets no timeout "
			      "client, connect, server");
	lbd_cfg_free(c);
}

static void test_readyz_sample(void **state)
{
	struct lbd_config *c = load_ok(readyz_cfg);
	struct lbd_frontend *f;
	struct lbd_backend *b;
	size_t i;

	(void)state;
	assert_true(c->global.daemon);
	assert_int_equal(c->global.nlogs, 1);
	assert_int_equal(c->global.logs[0].kind, LBD_LOG_STDOUT);
	assert_true(c->global.logs[0].format_raw);
	assert_int_equal(c->global.logs[0].format, LBD_LOG_FMT_RAW);
	assert_int_equal(c->global.logs[0].facility, LOG_LOCAL0);
	assert_int_equal(c->global.logs[0].max_level, LOG_DEBUG);
	assert_int_equal(c->global.logs[0].line, 6);
	assert_int_equal(c->nfrontends, 1);
	assert_int_equal(c->nbackends, 1);
	f = &c->frontends[0];
	b = lbd_cfg_backend(c, "apiservers");
	assert_non_null(b);
	assert_ptr_equal(f->backend, b);
	assert_string_equal(f->backend_name, "apiservers");
	assert_int_equal(f->backend_line, 30);
	assert_false(f->from_listen || b->from_listen);
	assert_string_equal(addr(&f->binds[0].addr), "0.0.0.0:6443");
	assert_true(f->tcplog);
	assert_true(f->dontlognull);
	assert_int_equal(f->nlogs, 1); /* log global */
	assert_int_equal(f->logs[0].kind, LBD_LOG_STDOUT);
	assert_int_equal(f->timeouts.client, 35 * SEC);
	assert_int_equal(b->timeouts.connect, 5 * SEC);
	assert_int_equal(b->timeouts.server, 35 * SEC);
	assert_int_equal(b->timeouts.queue, 20 * SEC);
	assert_int_equal(b->timeouts.check, 10 * SEC);
	assert_int_equal(b->timeouts.tunnel, 0);
	assert_int_equal(b->retries, 1);
	assert_true(b->redispatch);
	assert_int_equal(b->balance, LBD_BAL_ROUNDROBIN);
	assert_int_equal(b->check_kind, LBD_CHECK_HTTP);
	assert_int_equal(b->ntcpcheck, 0);
	assert_string_equal(b->http.method, "GET");
	assert_string_equal(b->http.uri, "/readyz");
	assert_string_equal(b->http.version, "HTTP/1.0");
	assert_int_equal(b->http.nhdrs, 0);
	assert_true(b->http.connect_ssl);
	assert_int_equal(b->http.connect_port, 0);
	assert_true(b->http.expect_set);
	assert_true(b->http.expect_is_status);
	assert_false(b->http.expect_negate);
	assert_int_equal(b->http.nstatus, 1);
	assert_int_equal(b->http.status[0].lo, 200);
	assert_int_equal(b->http.status[0].hi, 200);
	assert_int_equal(b->http.line, 33);
	assert_int_equal(b->nservers, 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(b->servers[i].o.verify, LBD_VERIFY_NONE);
		assert_true(b->servers[i].o.check);
		assert_int_equal(b->servers[i].o.inter, 2 * SEC);
		assert_int_equal(b->servers[i].o.rise, 2);
		assert_int_equal(b->servers[i].o.fall, 3);
		assert_int_equal(b->servers[i].o.weight, 1);
		assert_int_equal(cpha_addr_port(&b->servers[i].addr), 6443);
	}
	assert_int_equal(c->nnotices, 1);
	expect_in(notices(c), "t.cfg:9: HTTP-only settings in defaults (option httplog, option "
			      "http-server-close, option forwardfor, timeout http-request, timeout "
			      "http-keep-alive) have no effect on TCP sections; ignored");
	lbd_cfg_free(c);
}

static void test_defaults_inherit_and_reset(void **state)
{
	struct lbd_config *c = load_ok("defaults\n"
				       "    timeout connect 1s\n"
				       "    timeout client 1m\n"
				       "    timeout server 250\n"
				       "    retries 5\n"
				       "    balance leastconn\n"
				       "    option redispatch\n"
				       "    default-server inter 3s\n"
				       "    default_backend a\n"
				       "frontend f1\n"
				       "    bind 198.18.0.1:80\n"
				       "backend a\n"
				       "    server s 198.18.0.10:80\n"
				       "defaults named\n"
				       "    timeout client 2s\n"
				       "backend b\n"
				       "    server s 198.18.0.11:80\n"
				       "frontend f2\n"
				       "    bind 198.18.0.1:81\n"
				       "    default_backend b\n");
	struct lbd_backend *a = lbd_cfg_backend(c, "a"), *b = lbd_cfg_backend(c, "b");

	(void)state;
	assert_int_equal(a->timeouts.connect, 1 * SEC);
	assert_int_equal(a->timeouts.server, 250 * MS);
	assert_int_equal(c->frontends[0].timeouts.client, 60 * SEC);
	assert_ptr_equal(c->frontends[0].backend, a);
	assert_int_equal(c->frontends[0].backend_line, 9); /* in the defaults */
	assert_int_equal(a->retries, 5);
	assert_int_equal(a->balance, LBD_BAL_LEASTCONN);
	assert_true(a->redispatch);
	assert_int_equal(a->servers[0].o.inter, 3 * SEC);
	/* a new defaults section starts from HAProxy's built-in values */
	assert_int_equal(b->timeouts.connect, 0);
	assert_int_equal(c->frontends[1].timeouts.client, 2 * SEC);
	assert_int_equal(b->retries, 3);
	assert_int_equal(b->balance, LBD_BAL_ROUNDROBIN);
	assert_false(b->redispatch);
	assert_int_equal(b->servers[0].o.inter, 2 * SEC);
	assert_ptr_equal(c->frontends[1].backend, b);
	expect_in(notices(c), "t.cfg:16: backend 'b' sets no timeout connect, server");
	lbd_cfg_free(c);
}

static void test_default_server_merge(void **state)
{
	struct lbd_config *c = load_ok(TCP_DEFAULTS "    default-server inter 3s rise 5 check\n"
						    "backend b\n"
						    "    default-server fall 7 weight 20\n"
						    "    server s1 198.18.0.1:80 weight 10\n"
						    "    server s2 198.18.0.2:80 rise 1 no-check\n"
						    "    default-server inter 9s\n"
						    "    server s3 198.18.0.3:80\n");
	struct lbd_backend *b = &c->backends[0];

	(void)state;
	assert_int_equal(b->servers[0].o.inter, 3 * SEC);
	assert_int_equal(b->servers[0].o.fastinter, 3 * SEC);
	assert_int_equal(b->servers[0].o.rise, 5);
	assert_int_equal(b->servers[0].o.fall, 7);
	assert_int_equal(b->servers[0].o.weight, 10);
	assert_true(b->servers[0].o.check);
	assert_true(b->servers[0].o.set & LBD_SO_CHECK);
	assert_int_equal(b->servers[1].o.rise, 1);
	assert_false(b->servers[1].o.check);
	assert_int_equal(b->servers[1].o.weight, 20);
	/* default-server only affects the servers after it */
	assert_int_equal(b->servers[2].o.inter, 9 * SEC);
	assert_int_equal(b->servers[1].o.inter, 3 * SEC);
	assert_int_equal(b->servers[2].id, 3);
	lbd_cfg_free(c);
}

static void test_server_options(void **state)
{
	char ca[] = "/tmp/lbd-cfg-ca-XXXXXX", text[2048], *slash;
	struct lbd_server_cfg *s;
	struct lbd_config *c;
	int fd = mkstemp(ca);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	slash = strrchr(ca, '/');
	*slash = '\0';
	snprintf(text, sizeof(text),
		"global\n"
		"    ca-base %s\n"
		"    crt-base %s\n" TCP_DEFAULTS "backend b\n"
		"    server s1 [2001:db8::1]:6443 check check-ssl verify required ca-file %s "
		"crt %s inter 1s fastinter 500ms downinter 1m slowstart 30s maxconn 0 maxqueue 9 "
		"weight 0 backup disabled on-marked-down shutdown-sessions on-marked-up "
		"shutdown-backup-sessions send-proxy-v2 port 8443 addr 198.18.0.99 "
		"shutdown-sessions-spread 10s\n"
		"    server s2 198.18.0.2 disabled enabled backup no-backup send-proxy\n",
		ca, ca, slash + 1, slash + 1);
	*slash = '/';
	c = load_ok(text);
	s = &c->backends[0].servers[0];
	assert_string_equal(addr(&s->addr), "[2001:db8::1]:6443");
	assert_true(s->o.check && s->o.check_ssl);
	assert_int_equal(s->o.verify, LBD_VERIFY_REQUIRED);
	assert_string_equal(s->o.ca_file, ca);
	assert_string_equal(s->o.crt, ca);
	assert_int_equal(s->o.inter, 1 * SEC);
	assert_int_equal(s->o.fastinter, 500 * MS);
	assert_int_equal(s->o.downinter, 60 * SEC);
	assert_int_equal(s->o.slowstart, 30 * SEC);
	assert_int_equal(s->o.maxconn, 0);
	assert_int_equal(s->o.maxqueue, 9);
	assert_int_equal(s->o.weight, 0);
	assert_true(s->o.backup && s->o.disabled);
	assert_true(s->o.on_down_shutdown && s->o.on_up_shutdown_backup);
	assert_true(s->o.send_proxy_v2);
	assert_false(s->o.send_proxy);
	assert_int_equal(s->o.check_port, 8443);
	assert_true(s->o.check_addr_set);
	assert_string_equal(addr(&s->o.check_addr), "198.18.0.99");
	assert_int_equal(s->o.shutdown_spread, 10 * SEC);
	s = &c->backends[0].servers[1];
	assert_int_equal(cpha_addr_port(&s->addr), 0);
	assert_false(s->o.disabled || s->o.backup);
	assert_true(s->o.send_proxy);
	lbd_cfg_free(c);
	unlink(ca);
}

static void test_listen_with_address(void **state)
{
	struct lbd_config *c = load_ok(TCP_DEFAULTS "listen api 198.18.0.1:6443,198.18.0.2:6443\n"
						    "    bind [2001:db8::1]:6443\n"
						    "    bind :::7443\n"
						    "    server m0 198.18.0.11:6443\n");
	struct lbd_frontend *f = &c->frontends[0];

	(void)state;
	assert_int_equal(f->nbinds, 4);
	assert_string_equal(addr(&f->binds[0].addr), "198.18.0.1:6443");
	assert_string_equal(addr(&f->binds[1].addr), "198.18.0.2:6443");
	assert_int_equal(f->binds[1].line, 6);
	assert_int_equal(cpha_addr_family(&f->binds[2].addr), AF_INET6);
	assert_string_equal(addr(&f->binds[3].addr), "[::]:7443");
	assert_ptr_equal(f->backend, &c->backends[0]);
	assert_true(f->from_listen && c->backends[0].from_listen);
	assert_string_equal(f->backend_name, "api");
	assert_int_equal(c->nnotices, 0);
	lbd_cfg_free(c);
}

static void test_tcp_check_rules(void **state)
{
	struct lbd_config *c =
		load_ok(TCP_DEFAULTS "backend etcd\n"
				     "    option tcp-check\n"
				     "    tcp-check connect port 2379 ssl\n"
				     "    tcp-check send \"PING\\r\\n\"\n"
				     "    tcp-check expect ! rstring ^ERR\n"
				     "    tcp-check expect string +PONG\n"
				     "    tcp-check expect !string DOWN\n"
				     "    tcp-check expect rstring "
				     "^(role|state):[[:space:]]*(master|leader)[[:alnum:]]{0,64}$\n"
				     "    server e1 198.18.0.1 check verify none\n"
				     "backend b2\n"
				     "    option tcp-check\n"
				     "    tcp-check send hello\n"
				     "    server s 198.18.0.2:80 check\n");
	struct lbd_backend *b = &c->backends[0];
	struct lbd_tcpcheck_rule *r = b->tcpcheck;

	(void)state;
	assert_int_equal(b->check_kind, LBD_CHECK_TCP);
	assert_int_equal(b->ntcpcheck, 6);
	assert_int_equal(r[0].action, LBD_TCPCHK_CONNECT);
	assert_int_equal(r[0].port, 2379);
	assert_true(r[0].ssl);
	assert_int_equal(r[0].line, 8);
	assert_int_equal(r[1].action, LBD_TCPCHK_SEND);
	assert_int_equal(r[1].len, 6);
	assert_memory_equal(r[1].data, "PING\r\n", 6);
	assert_int_equal(r[2].action, LBD_TCPCHK_EXPECT_RSTRING);
	assert_true(r[2].negate);
	assert_string_equal(r[2].data, "^ERR");
	assert_int_equal(regexec(&r[2].re, "ERR down", 0, NULL, 0), 0);
	assert_int_equal(regexec(&r[2].re, "+PONG", 0, NULL, 0), REG_NOMATCH);
	assert_int_equal(r[5].action, LBD_TCPCHK_EXPECT_RSTRING); /* an ordinary regex passes */
	assert_int_equal(regexec(&r[5].re, "role: master", 0, NULL, 0), 0);
	assert_int_equal(r[3].action, LBD_TCPCHK_EXPECT_STRING);
	assert_false(r[3].negate);
	assert_string_equal(r[3].data, "+PONG");
	assert_true(r[4].negate);
	assert_string_equal(r[4].data, "DOWN");
	/* no connect first: an implicit one, at the line of the first rule */
	b = &c->backends[1];
	assert_int_equal(b->ntcpcheck, 2);
	assert_int_equal(b->tcpcheck[0].action, LBD_TCPCHK_CONNECT);
	assert_int_equal(b->tcpcheck[0].line, 17);
	assert_int_equal(b->tcpcheck[1].action, LBD_TCPCHK_SEND);
	lbd_cfg_free(c);
}

static void test_check_inheritance(void **state)
{
	struct lbd_config *c = load_ok(TCP_DEFAULTS "    option tcp-check\n"
						    "    tcp-check expect rstring ^OK\n"
						    "backend a\n"
						    "    server s 198.18.0.1:80 check\n"
						    "backend b\n"
						    "    tcp-check send x\n"
						    "    server s 198.18.0.1:80 check\n"
						    "backend c\n"
						    "    option httpchk /healthz\n"
						    "    server s 198.18.0.1:80 check\n"
						    "defaults\n"
						    "    option httpchk GET /readyz HTTP/1.1\n"
						    "    http-check expect status 200-299\n"
						    "backend d\n"
						    "    server s 198.18.0.1:80\n"
						    "backend e\n"
						    "    option httpchk /other\n"
						    "    server s 198.18.0.1:80\n"
						    "backend f\n"
						    "    http-check send hdr Host api\n"
						    "    server s 198.18.0.1:80\n"
						    "backend g\n"
						    "    server s 198.18.0.1:80\n");
	struct lbd_backend *b;

	(void)state;
	b = lbd_cfg_backend(c, "a"); /* the defaults' rules, regex recompiled */
	assert_int_equal(b->ntcpcheck, 2);
	assert_int_equal(b->tcpcheck[0].action, LBD_TCPCHK_CONNECT);
	assert_int_equal(b->tcpcheck[1].action, LBD_TCPCHK_EXPECT_RSTRING);
	assert_int_equal(regexec(&b->tcpcheck[1].re, "OK fine", 0, NULL, 0), 0);
	b = lbd_cfg_backend(c, "b"); /* own rules replace them */
	assert_int_equal(b->ntcpcheck, 2);
	assert_int_equal(b->tcpcheck[1].action, LBD_TCPCHK_SEND);
	assert_int_equal(b->tcpcheck[1].line, 11);
	b = lbd_cfg_backend(c, "c");
	assert_int_equal(b->check_kind, LBD_CHECK_HTTP);
	assert_int_equal(b->ntcpcheck, 0);
	assert_string_equal(b->http.method, "OPTIONS");
	assert_string_equal(b->http.uri, "/healthz");
	assert_string_equal(b->http.version, "HTTP/1.0");
	assert_false(b->http.expect_set);
	b = lbd_cfg_backend(c, "d");
	assert_int_equal(b->check_kind, LBD_CHECK_HTTP);
	assert_string_equal(b->http.method, "GET");
	assert_string_equal(b->http.uri, "/readyz");
	assert_string_equal(b->http.version, "HTTP/1.1");
	assert_true(b->http.expect_set);
	assert_int_equal(b->http.status[0].lo, 200);
	assert_int_equal(b->http.status[0].hi, 299);
	assert_int_equal(b->http.line, 17);
	b = lbd_cfg_backend(c, "e"); /* its own option httpchk: a new rule set */
	assert_string_equal(b->http.method, "OPTIONS");
	assert_string_equal(b->http.uri, "/other");
	assert_false(b->http.expect_set);
	b = lbd_cfg_backend(c, "f"); /* own rules: the inherited expect goes */
	assert_string_equal(b->http.uri, "/readyz");
	assert_false(b->http.expect_set);
	assert_int_equal(b->http.nhdrs, 1);
	assert_string_equal(b->http.hdrs[0].name, "Host");
	assert_string_equal(b->http.hdrs[0].value, "api");
	b = lbd_cfg_backend(c, "g");
	assert_true(b->http.expect_set);
	lbd_cfg_free(c);
}

static void test_http_check_forms(void **state)
{
	struct lbd_config *c =
		load_ok(TCP_DEFAULTS "backend a\n"
				     "    http-check send meth HEAD uri /x ver HTTP/1.1 hdr "
				     "Host api.example hdr X-Pct \"50%%\"\n"
				     "    http-check expect ! status 500-599,404\n"
				     "    option httpchk\n"
				     "    server s 198.18.0.1:80 check\n"
				     "backend b\n"
				     "    option httpchk PUT /p\n"
				     "    http-check connect port 8080\n"
				     "    http-check expect string ok\n"
				     "    server s 198.18.0.1 check\n");
	struct lbd_backend *b = &c->backends[0];

	(void)state;
	assert_string_equal(b->http.method, "HEAD");
	assert_string_equal(b->http.uri, "/x");
	assert_string_equal(b->http.version, "HTTP/1.1");
	assert_int_equal(b->http.nhdrs, 2);
	assert_string_equal(b->http.hdrs[1].name, "X-Pct");
	assert_string_equal(b->http.hdrs[1].value, "50%");
	assert_true(b->http.expect_negate);
	assert_int_equal(b->http.nstatus, 2);
	assert_int_equal(b->http.status[0].lo, 500);
	assert_int_equal(b->http.status[0].hi, 599);
	assert_int_equal(b->http.status[1].lo, 404);
	assert_int_equal(b->http.status[1].hi, 404);
	b = &c->backends[1];
	assert_string_equal(b->http.method, "PUT");
	assert_string_equal(b->http.uri, "/p");
	assert_int_equal(b->http.connect_port, 8080);
	assert_false(b->http.connect_ssl);
	assert_false(b->http.expect_is_status);
	assert_string_equal(b->http.expect_string, "ok");
	lbd_cfg_free(c);
}

static void test_global(void **state)
{
	struct lbd_config *c =
		load_ok("global\n"
			"    log 198.18.0.5 local1\n"
			"    log [2001:db8::5]:1514 len 2048 format rfc5424 daemon info notice\n"
			"    log /dev/log local0 err\n"
			"    log stderr format short user\n"
			"    maxconn 20000\n"
			"    nbthread 4\n"
			"    hard-stop-after 5m\n"
			"    stats socket /run/lbd/admin.sock mode 660 level operator\n"
			"    ssl-server-verify none\n"
			"    metrics-bind 198.18.0.1:9101\n" TCP_DEFAULTS "backend b\n"
			"    option httpchk\n"
			"    http-check connect ssl\n"
			"    server s 198.18.0.1:443 check\n");
	struct lbd_global *g = &c->global;

	(void)state;
	assert_int_equal(g->nlogs, 4);
	assert_int_equal(g->logs[0].kind, LBD_LOG_SYSLOG);
	assert_string_equal(addr(&g->logs[0].addr), "198.18.0.5:514");
	assert_int_equal(g->logs[0].facility, LOG_LOCAL1);
	assert_int_equal(g->logs[0].format, LBD_LOG_FMT_RFC3164);
	assert_int_equal(g->logs[0].maxlen, 1024);
	assert_string_equal(addr(&g->logs[1].addr), "[2001:db8::5]:1514");
	assert_int_equal(g->logs[1].maxlen, 2048);
	assert_int_equal(g->logs[1].format, LBD_LOG_FMT_RFC5424);
	assert_int_equal(g->logs[1].facility, LOG_DAEMON);
	assert_int_equal(g->logs[1].max_level, LOG_INFO);
	assert_int_equal(g->logs[1].min_level, LOG_NOTICE);
	assert_int_equal(g->logs[2].kind, LBD_LOG_SYSLOG);
	assert_string_equal(g->logs[2].path, "/dev/log");
	assert_int_equal(g->logs[2].max_level, LOG_ERR);
	assert_int_equal(g->logs[2].min_level, LOG_EMERG);
	assert_int_equal(g->logs[3].kind, LBD_LOG_STDERR);
	assert_int_equal(g->logs[3].format, LBD_LOG_FMT_SHORT);
	assert_false(g->logs[3].format_raw);
	assert_int_equal(g->maxconn, 20000);
	assert_int_equal(g->nbthread, 4);
	assert_int_equal(g->hard_stop_after, 300 * SEC);
	assert_string_equal(g->stats.path, "/run/lbd/admin.sock");
	assert_int_equal(g->stats.mode, 0660);
	assert_int_equal(g->stats.level, LBD_STATS_LEVEL_OPERATOR);
	assert_int_equal(g->stats.line, 9);
	assert_true(g->metrics_set);
	assert_string_equal(addr(&g->metrics), "198.18.0.1:9101");
	/* ssl-server-verify none: TLS checks without a CA are fine */
	assert_int_equal(c->backends[0].servers[0].o.verify, LBD_VERIFY_NONE);
	lbd_cfg_free(c);

	c = load_ok("global\n    stats socket /run/x.sock expose-fd listeners\n");
	assert_int_equal(c->global.stats.mode, 0600);
	assert_int_equal(c->global.stats.level, LBD_STATS_LEVEL_ADMIN);
	assert_int_equal(c->global.stats.uid, (uid_t)-1);
	assert_int_equal(c->global.stats.gid, (gid_t)-1);
	expect_in(notices(c), "t.cfg:2: 'expose-fd listeners' is accepted but not needed");
	lbd_cfg_free(c);
}

static void test_notices(void **state)
{
	struct lbd_config *c = load_ok(TCP_DEFAULTS "frontend idle\n"
						    "    default_backend empty\n"
						    "backend empty\n"
						    "backend b\n"
						    "    log global\n"
						    "    server s 198.18.0.1:80\n");

	(void)state;
	assert_int_equal(c->nnotices, 3);
	expect_in(notices(c), "t.cfg:6: frontend 'idle' has no bind line");
	expect_in(notices(c), "t.cfg:8: backend 'empty' has no servers");
	expect_in(notices(c), "t.cfg:10: 'log' in backend 'b' has no effect");
	lbd_cfg_free(c);

	c = load_ok("# nothing\n");
	assert_int_equal(c->nfrontends + c->nbackends, 0);
	assert_string_equal(notices(c), "t.cfg: no frontend or listen section: lbd accepts no "
					"connections\n");
	lbd_cfg_free(c);
	c = load_ok("defaults\n    mode http\n    option httplog clf\n    no option httpclose\n");
	expect_in(notices(c), "t.cfg:1: HTTP-only settings in defaults (option httplog, no option "
			      "httpclose) have no effect");
	lbd_cfg_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed_sample),
		cmocka_unit_test(test_readyz_sample),
		cmocka_unit_test(test_defaults_inherit_and_reset),
		cmocka_unit_test(test_default_server_merge),
		cmocka_unit_test(test_server_options),
		cmocka_unit_test(test_listen_with_address),
		cmocka_unit_test(test_tcp_check_rules),
		cmocka_unit_test(test_check_inheritance),
		cmocka_unit_test(test_http_check_forms),
		cmocka_unit_test(test_global),
		cmocka_unit_test(test_notices),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
