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

#define SEC CPHA_USEC_PER_SEC
#define MS  CPHA_USEC_PER_MSEC

/* /work/shared/samples/haproxy-seed.cfg, unchanged */
static const char seed_cfg[] =
	"# The load balancer section of the seed document 003_205a3f15076ec345.txt,\n"
	"# unchanged: lbd must accept and run it as it is.\n"
	"listen secure_kube_control_plane\n"
	"bind :6443\n"
	"mode tcp\n"
	"option tcplog\n"
	"option tcp-check\n"
	"balance roundrobin\n"
	"default-server inter 10s downinter 5s rise 2 fall 2 slowstart 60s maxconn 250 maxqueue "
	"256 weight 100\n"
	"server secure_kubem00 10.10.10.80:6443 check\n"
	"server secure_kubem01 10.10.10.81:6443 check\n"
	"server secure_kubem02 10.10.10.82:6443 check\n";

/* /work/shared/samples/haproxy-https-readyz.cfg, unchanged */
static const char readyz_cfg[] =
	"# A control-plane load balancer in the style that current Kubernetes HA guides\n"
	"# use: HTTP defaults, a TCP frontend and backend, and an HTTPS health check.\n"
	"# lbd must accept it unchanged (mode http in defaults is overridden by mode tcp\n"
	"# in the sections that carry traffic).\n"
	"global\n"
	"    log stdout format raw local0\n"
	"    daemon\n"
	"\n"
	"defaults\n"
	"    mode                    http\n"
	"    log                     global\n"
	"    option                  httplog\n"
	"    option                  dontlognull\n"
	"    option http-server-close\n"
	"    option forwardfor       except 127.0.0.0/8\n"
	"    option                  redispatch\n"
	"    retries                 1\n"
	"    timeout http-request    10s\n"
	"    timeout queue           20s\n"
	"    timeout connect         5s\n"
	"    timeout client          35s\n"
	"    timeout server          35s\n"
	"    timeout http-keep-alive 10s\n"
	"    timeout check           10s\n"
	"\n"
	"frontend apiserver\n"
	"    bind *:6443\n"
	"    mode tcp\n"
	"    option tcplog\n"
	"    default_backend apiservers\n"
	"\n"
	"backend apiservers\n"
	"    option httpchk\n"
	"    http-check connect ssl\n"
	"    http-check send meth GET uri /readyz\n"
	"    http-check expect status 200\n"
	"    mode tcp\n"
	"    balance     roundrobin\n"
	"    server m0 10.10.10.80:6443 check verify none\n"
	"    server m1 10.10.10.81:6443 check verify none\n"
	"    server m2 10.10.10.82:6443 check verify none\n";

/* A complete TCP head to put sections under. */
#define TCP_DEFAULTS                                                                               \
	"defaults\n"                                                                               \
	"    mode tcp\n"                                                                           \
	"    timeout connect 5s\n"                                                                 \
	"    timeout client 30s\n"                                                                 \
	"    timeout server 30s\n"

static char joined[32768];

static const char *join(char **msg, size_t n)
{
	size_t i, o = 0;

	joined[0] = '\0';
	for (i = 0; i < n && o < sizeof(joined); i++)
		o += (size_t)snprintf(joined + o, sizeof(joined) - o, "%s\n", msg[i]);
	return joined;
}

static struct lbd_config *load_ok(const char *text)
{
	struct lbd_cfg_msgs errs = { 0 };
	struct lbd_config *c = NULL;
	int r;

	r = lbd_cfg_load_mem("t.cfg", text, strlen(text), &c, &errs);
	if (r != 0)
		print_error("unexpected errors:\n%s", join(errs.msg, errs.n));
	assert_int_equal(r, 0);
	assert_non_null(c);
	assert_int_equal(errs.n, 0);
	return c;
}

/* Load text that must fail: the messages, one per line; *n their count. */
static const char *load_bad(const char *text, size_t *n)
{
	struct lbd_cfg_msgs errs = { 0 };
	struct lbd_config *c = NULL;
	size_t i;
	int r;

	r = lbd_cfg_load_mem("t.cfg", text, strlen(text), &c, &errs);
	assert_int_equal(r, -1);
	assert_null(c);
	assert_true(errs.n > 0);
	for (i = 0; i < errs.n; i++)
		assert_non_null(strstr(errs.msg[i], "t.cfg:"));
	if (n)
		*n = errs.n;
	join(errs.msg, errs.n);
	lbd_cfg_msgs_free(&errs);
	return joined;
}

static void expect_in(const char *all, const char *needle)
{
	if (!strstr(all, needle)) {
		print_error("missing: %s\nin:\n%s", needle, all);
		fail();
	}
}

/* text fails with a message holding needle (which starts "t.cfg:LINE: "). */
static void expect_error(const char *text, const char *needle)
{
	expect_in(load_bad(text, NULL), needle);
}

static const char *notices(const struct lbd_config *c)
{
	return join(c->notices, c->nnotices);
}

static const char *addr(const struct cpha_addr *a)
{
	static char buf[CPHA_ADDR_STRLEN];

	return cpha_addr_format(a, buf, sizeof(buf));
}

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
	assert_false(g->stats.level_admin);
	assert_int_equal(g->stats.line, 9);
	assert_true(g->metrics_set);
	assert_string_equal(addr(&g->metrics), "198.18.0.1:9101");
	/* ssl-server-verify none: TLS checks without a CA are fine */
	assert_int_equal(c->backends[0].servers[0].o.verify, LBD_VERIFY_NONE);
	lbd_cfg_free(c);

	c = load_ok("global\n    stats socket /run/x.sock expose-fd listeners\n");
	assert_int_equal(c->global.stats.mode, 0600);
	assert_true(c->global.stats.level_admin);
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

static void test_errors_sections(void **state)
{
	(void)state;
	expect_error("bind :80\n", "t.cfg:1: 'bind' before any section");
	expect_error("global\n\npeers p\n  peer a 198.18.0.1:1024\nresolvers dns\n",
		"t.cfg:3: section 'peers' is not supported by lbd");
	expect_error("global\nuserlist u\n  user a\n", "t.cfg:2: section 'userlist' is not "
						       "supported by lbd");
	expect_error("global\n    chroot /var/lib/haproxy\n",
		"t.cfg:2: 'chroot' is not supported by lbd in section 'global'");
	expect_error("global\n  tune.bufsize 1\n", "t.cfg:2: 'tune.bufsize' is not supported");
	expect_error("global\n  stats timeout 30s\n", "t.cfg:2: 'stats timeout' is not supported");
	expect_error("global\n  nbthread 65\n", "t.cfg:2: 'nbthread' must be 1 to 64");
	expect_error("global\n  maxconn lots\n", "t.cfg:2: 'maxconn' needs a number");
	expect_error("global\n  daemon now\n", "t.cfg:2: 'daemon': unexpected 'now'");
	expect_error("global\n  log global\n", "t.cfg:2: 'log global' is for proxies");
	expect_error("global\n  log ring@buf local0\n", "t.cfg:2: log target 'ring@buf' is "
							"not supported by lbd");
	expect_error("global\n  log syslog.example:514 local0\n",
		"t.cfg:2: log target 'syslog.example:514' is a host name; lbd needs a numeric "
		"address");
	expect_error("global\n  log stdout format iso local0\n",
		"t.cfg:2: 'log format iso' is not supported by lbd");
	expect_error("global\n  log stdout local9\n", "t.cfg:2: unknown log facility 'local9'");
	expect_error("global\n  stats socket ipv4@198.18.0.1:9999\n",
		"t.cfg:2: 'stats socket' needs a UNIX socket path");
	expect_error("global\n  stats socket /x level root\n", "t.cfg:2: 'stats socket' level");
	expect_error("global\n  stats socket /x user haproxy\n",
		"t.cfg:2: 'user' is not supported by lbd on a 'stats socket' line");
	expect_error("global\n  ssl-server-verify maybe\n", "t.cfg:2: 'ssl-server-verify' must");
	expect_error("global\n  metrics-bind 198.18.0.1\n", "t.cfg:2: metrics-bind '198.18.0.1'"
							    ": missing port");
	expect_error("frontend\n", "t.cfg:1: 'frontend' needs a name");
	expect_error("backend a/b\n", "t.cfg:1: character '/' is not permitted in backend name");
	expect_error("frontend f 198.18.0.1:80\n", "t.cfg:1: 'frontend' takes only a name");
	expect_error("defaults d\nbackend b from d\n", "t.cfg:2: 'backend ... from' (explicit "
						       "defaults) is not supported");
}

static void test_errors_placement(void **state)
{
	(void)state;
	expect_error(TCP_DEFAULTS "backend b\n    bind :80\n",
		"t.cfg:7: 'bind' is not allowed in a backend section");
	expect_error(TCP_DEFAULTS "    bind :80\n", "t.cfg:6: 'bind' is not allowed in a "
						    "defaults section");
	expect_error(TCP_DEFAULTS "backend b\n    timeout client 1s\n",
		"t.cfg:7: 'timeout client' is not allowed in a backend section");
	expect_error(TCP_DEFAULTS "frontend f\n    timeout server 1s\n",
		"t.cfg:7: 'timeout server' is not allowed in a frontend section");
	expect_error(TCP_DEFAULTS "frontend f\n    timeout check 1s\n",
		"t.cfg:7: 'timeout check' is not allowed in a frontend section");
	expect_error(TCP_DEFAULTS "backend b\n    maxconn 10\n",
		"t.cfg:7: 'maxconn' is not allowed in a backend section");
	expect_error(TCP_DEFAULTS "frontend f\n    server s 198.18.0.1:80\n",
		"t.cfg:7: 'server' is not allowed in a frontend section");
	expect_error(TCP_DEFAULTS "frontend f\n    balance roundrobin\n",
		"t.cfg:7: 'balance' is not allowed in a frontend section");
	expect_error(TCP_DEFAULTS "frontend f\n    option redispatch\n",
		"t.cfg:7: 'option redispatch' is not allowed in a frontend section");
	expect_error(TCP_DEFAULTS "backend b\n    option tcplog\n",
		"t.cfg:7: 'option tcplog' is not allowed in a backend section");
	expect_error(TCP_DEFAULTS "frontend f\n    tcp-check connect\n",
		"t.cfg:7: 'tcp-check' is not allowed in a frontend section");
	expect_error(TCP_DEFAULTS "listen l\n    default_backend x\n",
		"t.cfg:7: 'default_backend' is not allowed in a listen section");
	expect_error(TCP_DEFAULTS "    default_backend x\nlisten l\n    bind :80\n",
		"t.cfg:7: listen 'l' would send to default_backend 'x' (inherited from defaults "
		"at t.cfg:6)");
	expect_error(TCP_DEFAULTS "frontend f\n    retries 3\n",
		"t.cfg:7: 'retries' is not allowed in a frontend section");
}

static void test_errors_mode(void **state)
{
	(void)state;
	expect_error(TCP_DEFAULTS "frontend f\n    mode http\n",
		"t.cfg:7: 'mode http' is not supported by lbd in frontend 'f'; lbd only does "
		"mode tcp");
	expect_error(TCP_DEFAULTS "backend b\n    mode health\n", "t.cfg:7: 'mode health' is "
								  "not supported by lbd");
	expect_error("defaults\n"
		     "    mode http\n"
		     "frontend f\n"
		     "    bind :80\n"
		     "    mode tcp\n"
		     "    default_backend b\n"
		     "backend b\n"
		     "    server s 198.18.0.1:80\n",
		"t.cfg:7: backend 'b' would run in mode http (inherited from defaults at t.cfg:2); "
		"lbd only does mode tcp");
	/* HTTP-only settings in a tcp section or in tcp defaults */
	expect_error(TCP_DEFAULTS "frontend f\n    option httplog\n",
		"t.cfg:7: 'option httplog' is an HTTP-mode setting; lbd only does mode tcp "
		"(frontend 'f')");
	expect_error(TCP_DEFAULTS "    option forwardfor\n",
		"t.cfg:6: 'option forwardfor' is an HTTP-mode setting but section 'defaults' is "
		"mode tcp");
	expect_error(TCP_DEFAULTS "backend b\n    timeout http-request 5s\n",
		"t.cfg:7: 'timeout http-request' is an HTTP-mode setting");
	expect_error(TCP_DEFAULTS "backend b\n    http-reuse safe\n",
		"t.cfg:7: 'http-reuse' is an HTTP-mode setting");
	expect_error(TCP_DEFAULTS "backend b\n    no option http-server-close\n",
		"t.cfg:7: 'no option http-server-close' is an HTTP-mode setting");
	expect_error("defaults\n    mode http\n    timeout http-request 5x\n",
		"t.cfg:3: 'timeout http-request': unknown time unit");
}

static void test_errors_proxy_directives(void **state)
{
	(void)state;
	expect_error(TCP_DEFAULTS "frontend f\n    bind :6443 ssl crt /x.pem\n",
		"t.cfg:7: 'ssl' is not supported by lbd on a bind line (frontend 'f')");
	expect_error(TCP_DEFAULTS "frontend f\n    bind :6443 v4v6\n", "t.cfg:7: 'v4v6' is not "
								       "supported");
	expect_error(TCP_DEFAULTS "frontend f\n    bind :6443-6450\n",
		"t.cfg:7: bind address ':6443-6450': port ranges are not supported by lbd");
	expect_error(TCP_DEFAULTS "frontend f\n    bind localhost:80\n",
		"t.cfg:7: bind address 'localhost:80' is a host name; lbd needs a numeric "
		"address");
	expect_error(TCP_DEFAULTS "frontend f\n    bind /run/x.sock\n",
		"t.cfg:7: bind address '/run/x.sock': lbd only listens on TCP");
	expect_error(TCP_DEFAULTS "frontend f\n    bind 198.18.0.1\n",
		"t.cfg:7: bind address '198.18.0.1': missing port");
	expect_error(TCP_DEFAULTS "frontend f\n    bind :80,,:81\n", "t.cfg:7: bind address list "
								     "':80,,:81' has an empty");
	expect_error(TCP_DEFAULTS "frontend f\n    bind :80\n    default_backend b\n"
				  "listen l\n    bind *:80\n    server s 198.18.0.1:80\n"
				  "backend b\n    server s 198.18.0.1:80\n",
		"t.cfg:10: bind address 0.0.0.0:80 is already used by frontend 'f' at t.cfg:7");
	expect_error(TCP_DEFAULTS "frontend f\n    use_backend b if x\n",
		"t.cfg:7: 'use_backend' is not supported by lbd in frontend 'f'");
	expect_error(TCP_DEFAULTS "frontend f\n    acl a src 1.2.3.4\n",
		"t.cfg:7: 'acl' is not supported by lbd");
	expect_error(TCP_DEFAULTS "frontend f\n    tcp-request connection reject\n",
		"t.cfg:7: 'tcp-request' is not supported by lbd");
	expect_error(TCP_DEFAULTS "frontend f\n    http-request deny\n",
		"t.cfg:7: 'http-request' is not supported by lbd");
	expect_error(TCP_DEFAULTS "listen l\n    stats enable\n", "t.cfg:7: 'stats' is not "
								  "supported by lbd in listen 'l'");
	expect_error(TCP_DEFAULTS "backend b\n    balance uri\n", "t.cfg:7: 'balance uri' is not "
								  "supported by lbd");
	expect_error(TCP_DEFAULTS "backend b\n    balance random(2)\n",
		"t.cfg:7: 'balance random(2)' is not supported");
	expect_error(TCP_DEFAULTS "backend b\n    balance source extra\n",
		"t.cfg:7: 'balance source': unexpected 'extra'");
	expect_error(TCP_DEFAULTS "backend b\n    retries 101\n",
		"t.cfg:7: 'retries' must be 0 to 100 (backend 'b')");
	expect_error(TCP_DEFAULTS "backend b\n    contimeout 5000\n",
		"t.cfg:7: 'contimeout' is not supported by lbd");
	expect_error(TCP_DEFAULTS "backend b\n    timeout tarpit 5s\n",
		"t.cfg:7: 'timeout tarpit' is not supported by lbd");
	expect_error(TCP_DEFAULTS "backend b\n    timeout server 25d\n",
		"t.cfg:7: 'timeout server' is too large");
	expect_error(TCP_DEFAULTS "backend b\n    option log-health-checks\n",
		"t.cfg:7: 'option log-health-checks' is not supported by lbd");
	expect_error(TCP_DEFAULTS "backend b\n    no option tcp-check\n",
		"t.cfg:7: 'no option tcp-check' is not supported by lbd");
	expect_error(TCP_DEFAULTS "backend b\n    option redispatch 1\n",
		"t.cfg:7: 'option redispatch': unexpected '1'");
	expect_error(TCP_DEFAULTS "frontend f\n    bind :80\n    default_backend b\n"
				  "backend b\n    fullconn 10\n",
		"t.cfg:10: 'fullconn' is not supported by lbd in backend 'b'");
}

static void test_errors_servers(void **state)
{
	(void)state;
	expect_error(TCP_DEFAULTS "backend apiservers\n"
				  "    server m0 198.18.0.1:6443 weight 300\n",
		"t.cfg:7: 'weight' must be 0 to 256 (server apiservers/m0)");
	expect_error(TCP_DEFAULTS "backend b\n    server s 198.18.0.1:80 ssl verify none\n",
		"t.cfg:7: 'ssl' is not supported by lbd (server b/s)");
	expect_error(TCP_DEFAULTS "backend b\n    server s 198.18.0.1:80 resolvers dns\n",
		"t.cfg:7: 'resolvers' is not supported by lbd (server b/s)");
	expect_error(TCP_DEFAULTS "backend b\n    server s 198.18.0.1:80 agent-check\n",
		"t.cfg:7: 'agent-check' is not supported");
	expect_error(TCP_DEFAULTS "backend b\n    default-server init-addr none\n",
		"t.cfg:7: 'init-addr' is not supported by lbd (default-server in backend 'b')");
	expect_error(TCP_DEFAULTS "backend b\n    server s api.example.com:6443\n",
		"t.cfg:7: server address 'api.example.com:6443' is a host name; lbd needs a "
		"numeric address");
	expect_error(TCP_DEFAULTS "backend b\n    server s unix@/run/s.sock\n",
		"t.cfg:7: server address 'unix@/run/s.sock': lbd only supports IPv4 and IPv6 "
		"addresses (server b/s)");
	expect_error(TCP_DEFAULTS "backend b\n    server s ${HOST}:6443\n",
		"t.cfg:7: server address '${HOST}:6443': environment variables are only expanded "
		"inside double quotes");
	expect_error(TCP_DEFAULTS "backend b\n    server s 0.0.0.0:80\n",
		"t.cfg:7: server address '0.0.0.0:80' is a wildcard");
	expect_error(TCP_DEFAULTS "backend b\n    server s 198.18.0.1:+1\n",
		"t.cfg:7: server address '198.18.0.1:+1': port offsets are not supported");
	expect_error(TCP_DEFAULTS "backend b\n    server s\n",
		"t.cfg:7: 'server' needs a name and an address");
	expect_error(TCP_DEFAULTS "backend b\n    server s 198.18.0.1:80\n"
				  "    server s 198.18.0.2:80\n",
		"t.cfg:8: server 's' is already defined in backend 'b' at t.cfg:7");
	expect_error(TCP_DEFAULTS "backend b\n    server s 198.18.0.1:80 rise 0\n",
		"t.cfg:7: 'rise' must be 1 to 1000000 (server b/s)");
	expect_error(TCP_DEFAULTS "backend b\n    server s 198.18.0.1:80 fall x\n",
		"t.cfg:7: 'fall' needs a number from 1 to 1000000, not 'x' (server b/s)");
	expect_error(TCP_DEFAULTS "backend b\n    server s 198.18.0.1:80 inter 0\n",
		"t.cfg:7: 'inter' must be more than 0 (server b/s)");
	expect_error(TCP_DEFAULTS "backend b\n    server s 198.18.0.1:80 inter\n",
		"t.cfg:7: 'inter' needs a value (server b/s)");
	expect_error(TCP_DEFAULTS "backend b\n    server s 198.18.0.1:80 port 0\n",
		"t.cfg:7: 'port' must be 1 to 65535");
	expect_error(TCP_DEFAULTS "backend b\n    server s 198.18.0.1:80 verify optional\n",
		"t.cfg:7: 'verify' must be none or required");
	expect_error(TCP_DEFAULTS "backend b\n    server s 198.18.0.1:80 on-marked-down "
				  "shutdown-backup-sessions\n",
		"t.cfg:7: 'on-marked-down shutdown-backup-sessions' is not supported");
	expect_error(TCP_DEFAULTS "backend b\n    server s 198.18.0.1:80 addr 198.18.0.2:80\n",
		"t.cfg:7: 'addr' '198.18.0.2:80': a port is not allowed here");
	expect_error(TCP_DEFAULTS "backend b\n    server s 198.18.0.1:80 ca-file /nonexistent/ca\n",
		"t.cfg:7: 'ca-file' /nonexistent/ca: No such file or directory (server b/s)");
	/* health checks need a port */
	expect_error(TCP_DEFAULTS "backend b\n    server s 198.18.0.1 check\n",
		"t.cfg:7: health checks need a port: server b/s has none");
	expect_error(TCP_DEFAULTS "backend b\n    option tcp-check\n    tcp-check connect\n"
				  "    tcp-check connect port 80\n    server s 198.18.0.1 check\n",
		"t.cfg:10: health checks need a port");
}

static void test_errors_tls_verify(void **state)
{
	(void)state;
	expect_error(TCP_DEFAULTS "backend b\n    server s 198.18.0.1:443 check check-ssl\n",
		"t.cfg:7: verify is enabled by default but no CA file specified; set 'verify "
		"none' or 'ca-file' (server b/s)");
	expect_error(TCP_DEFAULTS "backend b\n    option httpchk\n    http-check connect ssl\n"
				  "    server s 198.18.0.1:443 check verify required\n",
		"t.cfg:9: verify is required but no CA file specified");
	expect_error(TCP_DEFAULTS "backend b\n    option tcp-check\n    tcp-check connect ssl\n"
				  "    server s 198.18.0.1:443 check\n",
		"t.cfg:9: verify is enabled by default but no CA file specified");
}

static void test_errors_checks(void **state)
{
	char re_err[256], want[512];
	regex_t re;
	int e;

	(void)state;
	e = regcomp(&re, "(unclosed", REG_EXTENDED | REG_NOSUB);
	assert_int_not_equal(e, 0);
	regerror(e, &re, re_err, sizeof(re_err));
	snprintf(want, sizeof(want),
		"t.cfg:8: 'tcp-check expect rstring': bad regex '(unclosed': %s", re_err);
	expect_error(TCP_DEFAULTS "backend b\n    option tcp-check\n"
				  "    tcp-check expect rstring (unclosed\n",
		want);
	/* glibc's regcomp copies each repetition: refuse what would explode */
	expect_error(TCP_DEFAULTS "backend b\n    option tcp-check\n"
				  "    tcp-check expect rstring ^E*+++++++\n",
		"t.cfg:8: 'tcp-check expect rstring': regex '^E*+++++++': a repetition of a "
		"repetition (such as 'a*+') is undefined in POSIX (backend 'b')");
	expect_error(TCP_DEFAULTS "backend b\n    option tcp-check\n"
				  "    tcp-check expect rstring ((x*)+)+\n",
		"t.cfg:8: 'tcp-check expect rstring': regex '((x*)+)+': repeating a group that "
		"holds a repetition (such as '(a+)*') is not supported by lbd");
	expect_error(TCP_DEFAULTS "backend b\n    option tcp-check\n"
				  "    tcp-check expect rstring (ab){100}{100}\n",
		"t.cfg:8: 'tcp-check expect rstring': regex '(ab){100}{100}': a repetition of a "
		"repetition");
	expect_error(TCP_DEFAULTS "backend b\n    option tcp-check\n"
				  "    tcp-check expect rstring ^\\\\d+$\n",
		"t.cfg:8: 'tcp-check expect rstring': regex '^\\d+$': '\\d' is PCRE syntax; POSIX "
		"regexes write [[:digit:]] or [0-9]");
	expect_error(TCP_DEFAULTS "backend b\n    option tcp-check\n"
				  "    tcp-check expect rstring (?i)pong\n",
		"t.cfg:8: 'tcp-check expect rstring': regex '(?i)pong': '(?' groups are PCRE");
	expect_error(TCP_DEFAULTS "backend b\n    option tcp-check\n"
				  "    tcp-check expect rstring a.*?b\n",
		"t.cfg:8: 'tcp-check expect rstring': regex 'a.*?b': a repetition of a repetition");
	expect_error(TCP_DEFAULTS "backend b\n    option tcp-check\n"
				  "    tcp-check expect rstring ^(abcd){600}\n",
		"t.cfg:8: 'tcp-check expect rstring': regex '^(abcd){600}': its repetitions "
		"expand past 1024 nodes");
	expect_error(TCP_DEFAULTS "backend b\n    option tcp-check\n"
				  "    tcp-check expect rstring (a+)\\\\1\n",
		"t.cfg:8: 'tcp-check expect rstring': regex '(a+)\\1': back-references are not "
		"supported by lbd");
	expect_error(TCP_DEFAULTS "backend b\n    option tcp-check\n    tcp-check send-binary 50\n",
		"t.cfg:8: 'tcp-check send-binary' is not supported by lbd (backend 'b')");
	expect_error(TCP_DEFAULTS "backend b\n    option tcp-check\n    tcp-check comment x\n",
		"t.cfg:8: 'tcp-check comment' is not supported");
	expect_error(TCP_DEFAULTS
		"backend b\n    option tcp-check\n    tcp-check expect binary 50\n",
		"t.cfg:8: 'tcp-check expect binary' is not supported by lbd");
	expect_error(TCP_DEFAULTS "backend b\n    option tcp-check\n"
				  "    tcp-check expect min-recv 4 string x\n",
		"t.cfg:8: 'tcp-check expect min-recv' is not supported by lbd");
	expect_error(TCP_DEFAULTS "backend b\n    option tcp-check\n    tcp-check connect sni x\n",
		"t.cfg:8: 'tcp-check connect sni' is not supported by lbd");
	expect_error(TCP_DEFAULTS "backend b\n    option tcp-check\n    tcp-check send a b\n",
		"t.cfg:8: 'tcp-check send' takes one argument");
	expect_error(TCP_DEFAULTS "backend b\n    tcp-check send x\n",
		"t.cfg:7: tcp-check rules need option tcp-check (backend 'b')");
	expect_error(TCP_DEFAULTS "backend b\n    http-check expect status 200\n",
		"t.cfg:7: http-check rules need option httpchk (backend 'b')");
	expect_error(TCP_DEFAULTS "    http-check expect status 200\n",
		"t.cfg:6: http-check rules need option httpchk (section 'defaults')");
	expect_error(TCP_DEFAULTS "backend b\n    option httpchk\n    http-check send-state\n",
		"t.cfg:8: 'http-check send-state' is not supported by lbd");
	expect_error(TCP_DEFAULTS "backend b\n    option httpchk\n    http-check disable-on-404\n",
		"t.cfg:8: 'http-check disable-on-404' is not supported by lbd");
	expect_error(TCP_DEFAULTS
		"backend b\n    option httpchk\n    http-check expect rstatus ^2\n",
		"t.cfg:8: 'http-check expect rstatus' is not supported by lbd");
	expect_error(TCP_DEFAULTS
		"backend b\n    option httpchk\n    http-check expect status 99\n",
		"t.cfg:8: 'http-check expect status': '99': codes must be 100 to 599");
	expect_error(TCP_DEFAULTS
		"backend b\n    option httpchk\n    http-check expect status 2xx\n",
		"t.cfg:8: 'http-check expect status': '2xx' is not a list of codes");
	expect_error(TCP_DEFAULTS "backend b\n    option httpchk\n    http-check send body x\n",
		"t.cfg:8: 'http-check send body' is not supported by lbd");
	expect_error(TCP_DEFAULTS "backend b\n    option httpchk\n"
				  "    http-check send hdr X \"%[src]\"\n",
		"t.cfg:8: 'http-check send hdr': log-format values");
	expect_error(TCP_DEFAULTS
		"backend b\n    option httpchk\n    http-check expect status 200\n"
		"    http-check expect status 204\n",
		"t.cfg:9: lbd runs one 'http-check expect' per backend; another is at t.cfg:8");
	expect_error(TCP_DEFAULTS "backend b\n    option httpchk\n    http-check send uri /x\n"
				  "    http-check connect ssl\n",
		"t.cfg:9: 'http-check connect' must come before");
	expect_error(TCP_DEFAULTS "backend b\n    option httpchk GET / HTTP/1.1\\r\\nHost:\\ x\n",
		"t.cfg:7: headers after the version of 'option httpchk' are not supported by lbd");
	expect_error(TCP_DEFAULTS "backend b\n    option httpchk GET / HTTP/1.0 extra\n",
		"t.cfg:7: 'option httpchk': unexpected 'extra'");
	expect_error(TCP_DEFAULTS "backend b\n    option mysql-check\n",
		"t.cfg:7: 'option mysql-check' is not supported by lbd");
}

static void test_errors_references(void **state)
{
	(void)state;
	expect_error(TCP_DEFAULTS "frontend f\n    bind :80\n",
		"t.cfg:6: frontend 'f' has no default_backend");
	expect_error(TCP_DEFAULTS "frontend f\n    bind :80\n    default_backend nope\n",
		"t.cfg:8: default_backend 'nope': no such backend (frontend 'f')");
	expect_error(TCP_DEFAULTS "    default_backend nope\nfrontend f\n    bind :80\n",
		"t.cfg:7: frontend 'f': default_backend 'nope' at t.cfg:6: no such backend");
	expect_error(TCP_DEFAULTS "listen x\n    bind :80\nbackend x\n",
		"t.cfg:8: backend 'x' has the same name as listen 'x' at t.cfg:6");
	expect_error(TCP_DEFAULTS "frontend x\n    bind :80\n    default_backend x\n"
				  "listen x\n    bind :81\n",
		"t.cfg:9: listen 'x' has the same name as frontend 'x' at t.cfg:6");
	expect_error("global\n    metrics-bind 198.18.0.1:80\n" TCP_DEFAULTS "listen l\n"
		     "    bind 198.18.0.1:80\n",
		"t.cfg:2: metrics-bind 198.18.0.1:80 is already used by listen 'l' at t.cfg:9");
}

static void test_many_errors_reported(void **state)
{
	const char *all;
	size_t n;

	(void)state;
	all = load_bad("global\n"                               /* 1 */
		       "    user haproxy\n"                     /* 2 */
		       "    nbthread 0\n"                       /* 3 */
		       "defaults\n"                             /* 4 */
		       "    mode tcp\n"                         /* 5 */
		       "    timeout connect 5q\n"               /* 6 */
		       "frontend f\n"                           /* 7 */
		       "    bind :6443 ssl\n"                   /* 8 */
		       "    default_backend b\n"                /* 9 */
		       "backend b\n"                            /* 10 */
		       "    server a 198.18.0.1:1 weight 999\n" /* 11 */
		       "    server \"b\" \"unterminated\n"      /* 12 */
		       "    server c 198.18.0.3:1 nope\n",      /* 13 */
		&n);
	assert_int_equal(n, 7);
	expect_in(all, "t.cfg:2: 'user' is not supported by lbd in section 'global'\n"
		       "t.cfg:3: 'nbthread' must be 1 to 64 (section 'global')\n"
		       "t.cfg:6: 'timeout connect': unknown time unit");
	expect_in(all, "t.cfg:8: 'ssl' is not supported by lbd on a bind line");
	expect_in(all, "t.cfg:11: 'weight' must be 0 to 256 (server b/a)");
	expect_in(all, "t.cfg:12: unterminated double quote");
	expect_in(all, "t.cfg:13: 'nope' is not supported by lbd (server b/c)");
}

static void test_error_cap(void **state)
{
	char *text = malloc(200 * 16);
	size_t i, o = 0, n;
	const char *all;

	(void)state;
	assert_non_null(text);
	o += (size_t)sprintf(text + o, "global\n");
	for (i = 0; i < 150; i++)
		o += (size_t)sprintf(text + o, "    bogus%zu\n", i);
	all = load_bad(text, &n);
	assert_int_equal(n, 101);
	expect_in(all, "t.cfg:101: 'bogus99' is not supported");
	expect_in(all, "t.cfg:102: too many errors; stopped here\n");
	free(text);
}

static void test_load_file(void **state)
{
	char path[] = "/tmp/lbd-cfg-test-XXXXXX";
	struct lbd_cfg_msgs errs = { 0 };
	struct lbd_config *c = NULL;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, seed_cfg, strlen(seed_cfg)), (ssize_t)strlen(seed_cfg));
	close(fd);
	assert_int_equal(lbd_cfg_load(path, &c, &errs), 0);
	assert_string_equal(c->file, path);
	assert_int_equal(c->nbackends, 1);
	lbd_cfg_free(c);
	unlink(path);
	assert_int_equal(lbd_cfg_load(path, &c, &errs), -1);
	assert_null(c);
	assert_int_equal(errs.n, 1);
	assert_non_null(strstr(errs.msg[0], path));
	assert_non_null(strstr(errs.msg[0], ": cannot read: "));
	lbd_cfg_msgs_free(&errs);
	assert_int_equal(errs.n, 0);
	lbd_cfg_free(NULL);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(lbd_balance_name(LBD_BAL_ROUNDROBIN), "roundrobin");
	assert_string_equal(lbd_balance_name(LBD_BAL_STATIC_RR), "static-rr");
	assert_string_equal(lbd_balance_name(LBD_BAL_LEASTCONN), "leastconn");
	assert_string_equal(lbd_balance_name(LBD_BAL_FIRST), "first");
	assert_string_equal(lbd_balance_name(LBD_BAL_SOURCE), "source");
	assert_string_equal(lbd_balance_name(LBD_BAL_RANDOM), "random");
}

static void test_balance_and_options(void **state)
{
	struct lbd_config *c = load_ok(TCP_DEFAULTS "    option dontlognull\n"
						    "    option redispatch\n"
						    "    log 198.18.0.9 local2\n"
						    "frontend f\n"
						    "    bind :80\n"
						    "    no option dontlognull\n"
						    "    no log\n"
						    "    maxconn 500\n"
						    "    timeout client-fin 2s\n"
						    "    default_backend b\n"
						    "backend b\n"
						    "    balance static-rr\n"
						    "    balance source\n"
						    "    no option redispatch\n"
						    "    retries 0\n"
						    "    timeout tunnel 1h\n"
						    "    timeout server-fin 3s\n"
						    "    server s 198.18.0.1:80\n");
	struct lbd_frontend *f = &c->frontends[0];
	struct lbd_backend *b = &c->backends[0];

	(void)state;
	assert_false(f->dontlognull);
	assert_int_equal(f->nlogs, 0);
	assert_int_equal(f->maxconn, 500);
	assert_int_equal(f->timeouts.client_fin, 2 * SEC);
	assert_int_equal(b->balance, LBD_BAL_SOURCE);
	assert_false(b->redispatch);
	assert_int_equal(b->retries, 0);
	assert_int_equal(b->timeouts.tunnel, 3600 * SEC);
	assert_int_equal(b->timeouts.server_fin, 3 * SEC);
	assert_int_equal(b->check_kind, LBD_CHECK_CONNECT);
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
		cmocka_unit_test(test_balance_and_options),
		cmocka_unit_test(test_errors_sections),
		cmocka_unit_test(test_errors_placement),
		cmocka_unit_test(test_errors_mode),
		cmocka_unit_test(test_errors_proxy_directives),
		cmocka_unit_test(test_errors_servers),
		cmocka_unit_test(test_errors_tls_verify),
		cmocka_unit_test(test_errors_checks),
		cmocka_unit_test(test_errors_references),
		cmocka_unit_test(test_many_errors_reported),
		cmocka_unit_test(test_error_cap),
		cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
