/* lbd's configuration parser: the keywords control-plane haproxy.cfg files
 * carry that lbd took over from HAProxy 2.6 in its second round (privilege
 * drop, check logging and spreading, fullconn, stats timeout), and those
 * it still refuses with a clear error. */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
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
#include <sys/socket.h>

#include <cmocka.h>

#include "cfg.h"
#include "duration.h"
#include "health.h"
#include "lbd_cfg_test.h"

/* A frontend and a backend to put the global section over. */
#define TCP_PAIR                                                                                   \
	TCP_DEFAULTS "frontend f\n"                                                                \
		     "    bind 198.18.0.10:6443\n"                                                 \
		     "    default_backend b\n"                                                     \
		     "backend b\n"                                                                 \
		     "    server s 198.18.0.11:6443 check\n"

static void test_privdrop_parsed(void **state)
{
	struct lbd_config *c;

	(void)state;
	/* root and its group exist everywhere */
	c = load_ok("global\n    chroot /var/empty\n    user root\n    group root\n" TCP_PAIR);
	assert_int_equal(c->global.uid, 0);
	assert_int_equal(c->global.gid, 0);
	assert_string_equal(c->global.chroot, "/var/empty");
	assert_int_equal(c->global.chroot_line, 2);
	assert_int_equal(c->global.uid_line, 3);
	assert_int_equal(c->global.gid_line, 4);
	lbd_cfg_free(c);

	c = load_ok("global\n    uid 123\n    gid 456\n" TCP_PAIR);
	assert_int_equal(c->global.uid, 123);
	assert_int_equal(c->global.gid, 456);
	assert_null(c->global.chroot);
	lbd_cfg_free(c);

	/* nothing written: lbd keeps its own ids */
	c = load_ok(TCP_PAIR);
	assert_int_equal(c->global.uid, (uid_t)-1);
	assert_int_equal(c->global.gid, (gid_t)-1);
	assert_null(c->global.chroot);
	lbd_cfg_free(c);

	/* twice: the last wins, and lbd says so (HAProxy warns) */
	c = load_ok("global\n    uid 7\n    user root\n" TCP_PAIR);
	assert_int_equal(c->global.uid, 0);
	expect_in(notices(c), "t.cfg:3: the user id is already set at t.cfg:2; this line "
			      "replaces it");
	lbd_cfg_free(c);
}

static void test_privdrop_errors(void **state)
{
	(void)state;
	expect_error("global\n    user cpha-no-such-user\n" TCP_PAIR,
		"t.cfg:2: 'user cpha-no-such-user': no such user on this system");
	expect_error("global\n    group cpha-no-such-group\n" TCP_PAIR,
		"t.cfg:2: 'group cpha-no-such-group': no such group on this system");
	expect_error("global\n    uid nobody\n" TCP_PAIR,
		"t.cfg:2: 'uid' needs a number from 0 to 4294967294, not 'nobody'");
	expect_error("global\n    gid -1\n" TCP_PAIR, "t.cfg:2: 'gid' needs a number");
	expect_error("global\n    user\n" TCP_PAIR, "t.cfg:2: 'user' needs a value");
	expect_error("global\n    chroot /a /b\n" TCP_PAIR, "t.cfg:2: 'chroot': unexpected '/b'");
}

static void test_spread_checks(void **state)
{
	struct lbd_config *c;

	(void)state;
	c = load_ok("global\n    spread-checks 5\n" TCP_PAIR);
	assert_int_equal(c->global.spread_checks, 5);
	lbd_cfg_free(c);
	c = load_ok("global\n    spread-checks 0\n" TCP_PAIR);
	assert_int_equal(c->global.spread_checks, 0);
	lbd_cfg_free(c);
	c = load_ok(TCP_PAIR);
	assert_int_equal(c->global.spread_checks, 0);
	lbd_cfg_free(c);
	expect_error("global\n    spread-checks 51\n" TCP_PAIR,
		"t.cfg:2: 'spread-checks' must be 0 to 50");
	expect_error("global\n    spread-checks 5%\n" TCP_PAIR,
		"t.cfg:2: 'spread-checks' needs a number from 0 to 50, not '5%'");
}

static void test_stats_timeout(void **state)
{
	struct lbd_config *c;

	(void)state;
	c = load_ok("global\n    stats timeout 30s\n" TCP_PAIR);
	expect_in(notices(c), "t.cfg:2: 'stats timeout' has no effect in lbd");
	lbd_cfg_free(c);
	expect_error("global\n    stats timeout 30q\n" TCP_PAIR,
		"t.cfg:2: 'stats timeout': unknown time unit");
	expect_error(
		"global\n    stats timeout\n" TCP_PAIR, "t.cfg:2: 'stats timeout' needs a value");
}

static void test_log_health_checks(void **state)
{
	struct lbd_config *c;

	(void)state;
	c = load_ok(TCP_DEFAULTS "frontend f\n    bind :80\n    default_backend b\n"
				 "backend b\n    option log-health-checks\n"
				 "    server s 198.18.0.11:80 check\n");
	assert_true(c->backends[0].log_health_checks);
	lbd_cfg_free(c);

	/* inherited from defaults, and "no option" turns it off */
	c = load_ok(TCP_DEFAULTS "    option log-health-checks\n"
				 "listen l\n    bind :80\n    server s 198.18.0.11:80 check\n"
				 "backend b\n    no option log-health-checks\n");
	assert_true(lbd_cfg_backend(c, "l")->log_health_checks);
	assert_false(lbd_cfg_backend(c, "b")->log_health_checks);
	lbd_cfg_free(c);

	/* off unless written */
	c = load_ok(TCP_PAIR);
	assert_false(c->backends[0].log_health_checks);
	lbd_cfg_free(c);

	/* a frontend has no checks: HAProxy warns and ignores it */
	c = load_ok(TCP_DEFAULTS "frontend f\n    bind :80\n    option log-health-checks\n"
				 "    default_backend b\n"
				 "backend b\n    server s 198.18.0.11:80\n");
	expect_in(notices(c), "t.cfg:8: 'option log-health-checks' has no effect in a frontend "
			      "section");
	assert_false(c->backends[0].log_health_checks);
	lbd_cfg_free(c);
	expect_error(TCP_DEFAULTS "backend b\n    option log-health-checks now\n",
		"t.cfg:7: 'option log-health-checks': unexpected 'now'");
}

static void test_fullconn(void **state)
{
	struct lbd_config *c;

	(void)state;
	c = load_ok(TCP_DEFAULTS "    fullconn 100\n"
				 "frontend f\n    bind :80\n    default_backend b\n"
				 "backend b\n    fullconn 2000\n    server s 198.18.0.11:80\n");
	expect_in(notices(c), "t.cfg:6: 'fullconn' has no effect in lbd: it only scales the "
			      "servers' 'minconn'");
	expect_in(notices(c), "t.cfg:11: 'fullconn' has no effect in lbd");
	lbd_cfg_free(c);
	expect_error(TCP_DEFAULTS "frontend f\n    fullconn 10\n",
		"t.cfg:7: 'fullconn' is not allowed in a frontend section");
	expect_error(TCP_DEFAULTS "backend b\n    fullconn many\n",
		"t.cfg:7: 'fullconn' needs a number");
	expect_error(TCP_DEFAULTS "backend b\n    fullconn\n", "t.cfg:7: 'fullconn' needs a value");
}

static void test_resolvers_section(void **state)
{
	struct lbd_config *c;

	(void)state;
	/* kind's and CAPD's generated file: servers by address, resolvers named */
	c = load_ok(
		"resolvers docker\n"
		"  nameserver dns 198.18.0.53:53\n"
		"  parse-resolv-conf\n"
		"  resolve_retries 3\n"
		"  timeout resolve 1s\n"
		"  timeout retry 1s\n"
		"  hold valid 10s\n"
		"  accepted_payload_size 8192\n" TCP_DEFAULTS "  default-server init-addr none\n"
		"frontend f\n    bind :6443\n    default_backend b\n"
		"backend b\n"
		"  server s 198.18.0.11:6443 check resolvers docker resolve-prefer ipv4\n");
	assert_int_equal(c->nresolvers, 1);
	assert_string_equal(c->resolvers[0].name, "docker");
	assert_true(c->resolvers[0].nns >= 1); /* and /etc/resolv.conf's */
	assert_string_equal(c->resolvers[0].ns[0].id, "dns");
	assert_string_equal(addr(&c->resolvers[0].ns[0].addr), "198.18.0.53:53");
	assert_true(c->resolvers[0].parse_resolv_conf);
	assert_int_equal(c->resolvers[0].retries, 3);
	assert_int_equal(c->resolvers[0].payload, 8192);
	assert_int_equal(c->resolvers[0].hold[LBD_DNS_VALID], 10000000);
	assert_int_equal(c->resolvers[0].hold[LBD_DNS_NX], 30000000); /* HAProxy's default */
	assert_int_equal(c->resolvers[0].hold[LBD_DNS_OBSOLETE], 0);
	assert_string_equal(addr(&c->backends[0].servers[0].addr), "198.18.0.11:6443");
	assert_null(c->backends[0].servers[0].hostname);
	assert_string_equal(c->backends[0].servers[0].o.resolvers, "docker");
	assert_int_equal(c->backends[0].servers[0].o.resolve_family, AF_INET);
	lbd_cfg_free(c);

	expect_error(TCP_DEFAULTS "backend b\n    server s 198.18.0.11:80 resolvers nope\n",
		"t.cfg:7: resolvers 'nope': no such resolvers section (server b/s)");
	expect_error("resolvers r\n  nameserver\n", "t.cfg:2: 'nameserver' needs more values");
	expect_error(
		"resolvers r\n  hold forever 10s\n", "t.cfg:2: 'hold forever' is not a status");
	expect_error("resolvers r\n  accepted_payload_size 100\n",
		"t.cfg:2: 'accepted_payload_size' must be 512 to 65535");
	expect_error("resolvers r\n  timeout retry 1q\n", "t.cfg:2: 'timeout retry': unknown time");
	expect_error("resolvers r\n  bogus 1\n", "t.cfg:2: 'bogus' is not supported by lbd in "
						 "resolvers 'r'");
	expect_error("resolvers r\nresolvers r\n", "t.cfg:2: resolvers 'r' is already defined at "
						   "t.cfg:1");
	expect_error(TCP_DEFAULTS "backend b\n    server s 198.18.0.11:80 resolve-prefer ipx\n",
		"t.cfg:7: 'resolve-prefer' must be ipv4 or ipv6, not 'ipx'");
	expect_error(TCP_DEFAULTS "backend b\n    server s 198.18.0.11:80 init-addr dns\n",
		"t.cfg:7: 'init-addr': unsupported method 'dns'");
}

/* localhost comes from /etc/hosts: no DNS query leaves the machine */
static int is_loopback(const struct cpha_addr *a)
{
	const char *s = addr(a);

	return strncmp(s, "127.0.0.1:", 10) == 0 || strncmp(s, "[::1]:", 6) == 0;
}

static void test_host_names(void **state)
{
	struct lbd_config *c;

	(void)state;
	c = load_ok(TCP_DEFAULTS "frontend f\n    bind localhost:29445\n    default_backend b\n"
				 "backend b\n    server s localhost:6443 check\n"
				 "    server t cpha-test-unresolved.invalid:6443 init-addr "
				 "last,198.18.0.12\n");
	assert_true(is_loopback(&c->frontends[0].binds[0].addr));
	assert_true(is_loopback(&c->backends[0].servers[0].addr));
	assert_string_equal(c->backends[0].servers[0].hostname, "localhost:6443");
	/* 'last' finds no state file; the address given next is taken */
	assert_string_equal(addr(&c->backends[0].servers[1].addr), "198.18.0.12:6443");
	lbd_cfg_free(c);

	c = load_ok(TCP_DEFAULTS "listen l\n    bind ipv4@localhost:29446\n"
				 "    server s ipv4@localhost:6443 resolve-prefer ipv6\n");
	assert_string_equal(addr(&c->frontends[0].binds[0].addr), "127.0.0.1:29446");
	assert_string_equal(addr(&c->backends[0].servers[0].addr), "127.0.0.1:6443");
	lbd_cfg_free(c);

	/* resolved again at run time through its resolvers (resolver.c) */
	c = load_ok("resolvers r\n  nameserver a udp@198.18.0.53:5353\n"
		    "  nameserver b tcp@[2001:db8::53]\n  hold nx 5s\n  timeout resolve "
		    "2s\n" TCP_DEFAULTS "backend b\n    server s localhost:6443 resolvers r\n"
		    "    server t cpha-test-unresolved.invalid:6443 resolvers r init-addr none "
		    "resolve-opts allow-dup-ip\n");
	assert_true(is_loopback(&c->backends[0].servers[0].addr));
	assert_string_equal(c->backends[0].servers[0].hostname, "localhost:6443");
	assert_int_equal(c->backends[0].servers[0].unresolved, 0);
	assert_string_equal(addr(&c->backends[0].servers[1].addr), "0.0.0.0:6443");
	assert_int_equal(c->backends[0].servers[1].unresolved, 1);
	assert_int_equal(c->backends[0].servers[1].o.resolve_allow_dup, 1);
	assert_string_equal(
		c->backends[0].servers[1].hostname, "cpha-test-unresolved.invalid:6443");
	assert_int_equal(c->resolvers[0].nns, 2);
	assert_string_equal(addr(&c->resolvers[0].ns[0].addr), "198.18.0.53:5353");
	assert_false(c->resolvers[0].ns[0].tcp);
	assert_string_equal(addr(&c->resolvers[0].ns[1].addr), "[2001:db8::53]:53");
	assert_true(c->resolvers[0].ns[1].tcp);
	assert_int_equal(c->resolvers[0].hold[LBD_DNS_NX], 5000000);
	assert_int_equal(c->resolvers[0].timeout_resolve, 2000000);
	lbd_cfg_free(c);

	expect_error("resolvers r\n" TCP_DEFAULTS "backend b\n"
		     "    server s localhost:6443 resolvers r\n",
		"t.cfg:8: resolvers 'r' has no name server (server b/s)");
	expect_error("resolvers r\n  nameserver a 198.18.0.53\n  nameserver a 198.18.0.54\n",
		"t.cfg:3: nameserver 'a' is already defined at t.cfg:2");
	expect_error(
		"resolvers r\n  timeout resolve 0\n", "t.cfg:2: 'timeout resolve' must be above 0");
	expect_error(TCP_DEFAULTS "backend b\n    server s localhost:6443 resolve-opts nope\n",
		"t.cfg:7: 'resolve-opts nope': unknown option 'nope'");
	expect_error(TCP_DEFAULTS "backend b\n    server s localhost:6443 init-addr none\n",
		"t.cfg:7: server address 'localhost:6443': 'init-addr none' without "
		"'resolvers' would leave it without an address for good");
	/* not host names: lbd_cfg_addr() says what they are, nothing is resolved */
	expect_error(TCP_DEFAULTS "backend b\n    server s unix@/run/s.sock\n",
		"t.cfg:7: server address 'unix@/run/s.sock': lbd only supports IPv4 and IPv6");
	expect_error(TCP_DEFAULTS "backend b\n    server s ${HOST}:6443\n",
		"t.cfg:7: server address '${HOST}:6443': environment variables are only expanded");
	expect_error(TCP_DEFAULTS "backend b\n    server s cpha-test.invalid:1 init-addr last\n",
		"t.cfg:7: server address 'cpha-test.invalid:1': cannot resolve "
		"'cpha-test.invalid': no method succeeded");
}

static void test_use_backend(void **state)
{
	struct lbd_config *c;

	(void)state;
	/* no condition: it always matches, before default_backend */
	c = load_ok(TCP_DEFAULTS "    default_backend b\n"
				 "frontend f\n    bind :6443\n    use_backend a\n"
				 "    use_backend b\n    default_backend b\n"
				 "backend a\n    server s 198.18.0.11:80\n"
				 "backend b\n    server s 198.18.0.12:80\n");
	assert_string_equal(c->frontends[0].backend->name, "a");
	expect_in(notices(c), "t.cfg:10: this 'use_backend' is never used: the one at t.cfg:9 "
			      "has no condition");
	expect_in(notices(c), "t.cfg:11: default_backend 'b' is never used: 'use_backend' at "
			      "t.cfg:9 has no condition");
	lbd_cfg_free(c);
	expect_error(TCP_DEFAULTS "frontend f\n    use_backend a if { src 198.18.0.1 }\n",
		"t.cfg:7: use_backend 'a': no such backend (frontend 'f')");
	expect_error(TCP_DEFAULTS "frontend f\n    use_backend be_%[req.hdr(host)]\n",
		"t.cfg:7: 'use_backend be_%[req.hdr(host)]': backend names built from log-format");
	expect_error(TCP_DEFAULTS "    use_backend a\n",
		"t.cfg:6: 'use_backend' is not allowed in a defaults section");
	expect_error(TCP_DEFAULTS "listen l\n    use_backend a\n",
		"t.cfg:7: 'use_backend' in a listen section is not supported by lbd yet");
	expect_error(TCP_DEFAULTS "frontend f\n    bind :80\n    use_backend nope\n",
		"t.cfg:8: default_backend 'nope': no such backend (frontend 'f')");
}

static void test_server_ciphers(void **state)
{
	struct lbd_config *c;

	(void)state;
	/* RHEL's sample global section; no TLS check uses it, as in HAProxy */
	c = load_ok("global\n    ssl-default-server-ciphers PROFILE=SYSTEM\n" TCP_PAIR);
	assert_string_equal(c->global.srv_ciphers, "PROFILE=SYSTEM");
	lbd_cfg_free(c);
	c = load_ok("global\n    ssl-default-server-ciphers ECDHE-RSA-AES128-GCM-SHA256\n"
		    "    ssl-default-server-ciphersuites TLS_AES_128_GCM_SHA256\n" TCP_DEFAULTS
		    "backend b\n    option tcp-check\n    tcp-check connect ssl\n"
		    "    server s 198.18.0.11:6443 check verify none\n");
	assert_string_equal(c->global.srv_ciphers, "ECDHE-RSA-AES128-GCM-SHA256");
	assert_string_equal(c->global.srv_ciphersuites, "TLS_AES_128_GCM_SHA256");
	assert_int_equal(c->global.srv_ciphersuites_line, 3);
	lbd_cfg_free(c);
	expect_error("global\n    ssl-default-server-ciphers CPHA-NO-SUCH-CIPHER\n" TCP_DEFAULTS
		     "backend b\n    option tcp-check\n    tcp-check connect ssl\n"
		     "    server s 198.18.0.11:6443 check verify none\n",
		"t.cfg:2: 'ssl-default-server-ciphers CPHA-NO-SUCH-CIPHER': OpenSSL accepts none "
		"of these ciphers");
	expect_error("global\n    ssl-default-server-ciphersuites TLS_NOPE\n" TCP_DEFAULTS
		     "backend b\n    option tcp-check\n    tcp-check connect ssl\n"
		     "    server s 198.18.0.11:6443 check verify none\n",
		"t.cfg:2: 'ssl-default-server-ciphersuites TLS_NOPE': OpenSSL accepts none");
	expect_error("global\n    ssl-default-server-ciphers HIGH\n" TCP_DEFAULTS
		     "backend b\n    option httpchk\n    http-check connect ssl\n"
		     "    server s 198.18.0.11:6443 check verify none\n",
		"t.cfg:2: 'ssl-default-server-ciphers' is not supported by lbd yet with HTTPS "
		"checks (backend 'b' at t.cfg:8)");
}

static void test_tcp_request(void **state)
{
	struct lbd_config *c;

	(void)state;
	c = load_ok(TCP_DEFAULTS "frontend f\n    bind :6443\n    tcp-request inspect-delay 5s\n"
				 "    default_backend b\n"
				 "backend b\n    server s 198.18.0.11:80\n"
				 "    tcp-request inspect-delay 2s\n"
				 "    tcp-request content reject if { req.len lt 5 }\n");
	assert_int_equal(c->frontends[0].rules->inspect_delay, 5 * SEC);
	/* a backend's own rules and delay, run once a frontend chose it */
	assert_int_equal(c->backends[0].rules->inspect_delay, 2 * SEC);
	assert_int_equal(c->backends[0].rules->ncontent, 1);
	lbd_cfg_free(c);
	expect_error(TCP_DEFAULTS "frontend f\n    tcp-request inspect-delay soon\n",
		"t.cfg:7: 'tcp-request inspect-delay': ");
	/* HAProxy 2.6 refuses these in an anonymous defaults section */
	expect_error(TCP_DEFAULTS "    tcp-request inspect-delay 5s\n",
		"t.cfg:6: 'tcp-request inspect-delay' is not allowed in a defaults section");
	expect_error(TCP_DEFAULTS "frontend f\n    tcp-request content set-var(sess.x) src\n",
		"t.cfg:7: 'tcp-request content set-var(sess.x)' is not supported by lbd: its "
		"actions are accept and reject (frontend 'f')");
	expect_error(TCP_DEFAULTS "backend b\n    tcp-request connection reject\n",
		"t.cfg:7: 'tcp-request connection' is not allowed because backend 'b' is not a "
		"frontend");
	expect_error(TCP_DEFAULTS "frontend f\n    tcp-request connection reject if { req.len 0 }\n",
		"t.cfg:7: 'tcp-request connection': req.len and req.ssl_* read the client's first "
		"bytes");
	expect_error(TCP_DEFAULTS "frontend f\n    tcp-request content reject if { hdr(host) x }\n",
		"t.cfg:7: 'tcp-request content': path, hdr and http_auth read an HTTP request");
}

static void test_server_tls_options(void **state)
{
	struct lbd_config *c;

	(void)state;
	c = load_ok("global\n    ssl-default-server-options no-sslv3 no-tlsv10 no-tlsv11 "
		    "no-tlsv12 no-tls-tickets\n" TCP_PAIR);
	assert_int_equal(c->global.srv_tls_min, 0x0304);
	assert_int_equal(c->global.srv_tls_max, 0x0304);
	assert_true(c->global.srv_no_tickets);
	lbd_cfg_free(c);
	c = load_ok("global\n    ssl-default-server-options ssl-min-ver TLSv1.2\n" TCP_PAIR);
	assert_int_equal(c->global.srv_tls_min, 0x0303);
	assert_int_equal(c->global.srv_tls_max, 0x0304);
	assert_false(c->global.srv_no_tickets);
	lbd_cfg_free(c);
	c = load_ok("global\n    ssl-default-server-options force-tlsv12\n" TCP_PAIR);
	assert_int_equal(c->global.srv_tls_min, 0x0303);
	assert_int_equal(c->global.srv_tls_max, 0x0303);
	lbd_cfg_free(c);
	/* no version option: OpenSSL's defaults */
	c = load_ok("global\n    ssl-default-server-options no-tls-tickets\n" TCP_PAIR);
	assert_int_equal(c->global.srv_tls_min, 0);
	assert_int_equal(c->global.srv_tls_max, 0);
	lbd_cfg_free(c);
	c = load_ok("global\n    ssl-default-server-options no-tlsv12\n" TCP_PAIR);
	expect_in(notices(c), "t.cfg:2: 'no-tlsv12' inside the versions left (SSLv3 to "
			      "TLSv1.3) cannot be honoured");
	lbd_cfg_free(c);
	expect_error("global\n    ssl-default-server-options force-tlsv12 no-tlsv12\n" TCP_PAIR,
		"t.cfg:2: 'ssl-default-server-options' leaves no TLS version to use");
	expect_error("global\n    ssl-default-server-options ssl-min-ver TLSv9\n" TCP_PAIR,
		"t.cfg:2: 'ssl-default-server-options ssl-min-ver' is not supported by lbd");
	expect_error("global\n    ssl-default-server-options no-tlsv13\n" TCP_DEFAULTS
		     "backend b\n    option httpchk\n    http-check connect ssl\n"
		     "    server s 198.18.0.11:6443 check verify none\n",
		"t.cfg:2: 'ssl-default-server-options' is not supported by lbd yet with HTTPS "
		"checks");
}

#define LONG_NAME_100                                                                              \
	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" \
	"xx"                                                                                       \
	"xxxxxxxxxx"
#define LONG_NAME_1100                                                                             \
	LONG_NAME_100 LONG_NAME_100 LONG_NAME_100 LONG_NAME_100 LONG_NAME_100 LONG_NAME_100        \
		LONG_NAME_100 LONG_NAME_100 LONG_NAME_100 LONG_NAME_100 LONG_NAME_100

static void test_server_state(void **state)
{
	struct lbd_config *c;

	(void)state;
	c = load_ok("global\n    server-state-file state\n    server-state-base /tmp\n" TCP_PAIR);
	assert_string_equal(c->global.state_file, "state");
	assert_string_equal(c->global.state_base, "/tmp");
	assert_int_equal(c->global.state_file_line, 2);
	assert_int_equal(c->backends[0].state.load, LBD_STATE_NONE);
	lbd_cfg_free(c);
	c = load_ok(TCP_DEFAULTS "    load-server-state-from-file none\n"
				 "listen l\n    bind :80\n    server s 198.18.0.11:80\n");
	lbd_cfg_free(c);
	/* from defaults, as HAProxy; server-state-file-name names the local file */
	c = load_ok(
		TCP_DEFAULTS "    load-server-state-from-file local\n"
			     "    server-state-file-name use-backend-name\n"
			     "backend b\n    server s 198.18.0.11:80\n"
			     "backend c\n    load-server-state-from-file global\n"
			     "    server-state-file-name c.state\n    server s 198.18.0.11:80\n");
	assert_int_equal(c->backends[0].state.load, LBD_STATE_LOCAL);
	assert_string_equal(c->backends[0].state.name, "");
	assert_int_equal(c->backends[1].state.load, LBD_STATE_GLOBAL);
	assert_string_equal(c->backends[1].state.name, "c.state");
	lbd_cfg_free(c);
	/* init-addr last with a state file to give the address: in
	 * maintenance until it does (no DNS query from the test) */
	c = load_ok("global\n    server-state-file /tmp/s\n" TCP_DEFAULTS
		    "backend b\n    load-server-state-from-file global\n"
		    "    server s cpha-test.invalid:1 init-addr last\n");
	assert_true(c->backends[0].servers[0].unresolved);
	expect_in(notices(c), "t.cfg:10: server address 'cpha-test.invalid:1': cannot resolve");
	lbd_cfg_free(c);
	expect_error("global\n    server-state-file " LONG_NAME_1100 "\n" TCP_PAIR,
		"t.cfg:2: 'server-state-file': the path must have 1 to 1023 characters");
	expect_error(TCP_DEFAULTS "backend b\n    load-server-state-from-file all\n",
		"t.cfg:7: 'load-server-state-from-file' must be global, local or none");
	expect_error(TCP_DEFAULTS "frontend f\n    load-server-state-from-file none\n",
		"t.cfg:7: 'load-server-state-from-file' is not allowed in a frontend section");
}

/* spread-checks and log-health-checks, as the checks apply them */
static void test_check_jitter_and_log(void **state)
{
	struct lbd_health h;
	uint64_t r, v, lo = UINT64_MAX, hi = 0;

	(void)state;
	for (r = 0; r < 1000; r++) {
		v = health_jitter(2000, 0, r);
		assert_true(v >= 1900 && v <= 2000);
		v = health_jitter(2000, 10, r);
		assert_true(v >= 1800 && v <= 2200);
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	/* both ends of +/- 10% are reached */
	assert_int_equal(lo, 1800);
	assert_int_equal(hi, 2200);
	assert_int_equal(health_jitter(2000, 50, 0), 1000);
	assert_int_equal(health_jitter(2000, 50, 2000), 3000);

	health_init(&h, 2, 3, true); /* counter 0..4, starts at 2 */
	assert_true(health_log_result(&h, 2, true));
	assert_true(health_log_result(&h, 2, false));
	assert_false(health_log_result(&h, 4, true));  /* already fully up */
	assert_true(health_log_result(&h, 4, false));  /* up, one failure */
	assert_false(health_log_result(&h, 0, false)); /* already fully down */
	assert_true(health_log_result(&h, 0, true));   /* down, one success */
}

/* What lbd does not do yet stays an error at its line. */
static void test_bind_v6only(void **state)
{
	struct lbd_config *c;

	(void)state;
	c = load_ok(TCP_DEFAULTS "frontend f\n    bind :::6443,[::1]:6444 v4v6\n"
				 "    bind [::1]:6445 v4v6 v6only\n    bind :6446\n"
				 "    default_backend b\nbackend b\n    server s 198.18.0.1:1\n");
	assert_int_equal(c->frontends[0].nbinds, 4);
	assert_int_equal(c->frontends[0].binds[0].v6only, 0);
	assert_int_equal(c->frontends[0].binds[1].v6only, 0);
	assert_int_equal(c->frontends[0].binds[2].v6only, 1);
	assert_int_equal(c->frontends[0].binds[3].v6only, -1);
	lbd_cfg_free(c);
}

#define LF_BE "    default_backend b\nbackend b\n    server s 198.18.0.1:1\n"

static void test_log_format(void **state)
{
	struct lbd_config *c;

	(void)state;
	/* inherited from defaults; the frontend's own line replaces it */
	c = load_ok(TCP_DEFAULTS "    log-format \"%ci %b\"\nfrontend f\n    bind :1\n" LF_BE
				 "frontend g\n    bind :2\n    log-format %f\n"
				 "    default_backend b\n");
	assert_string_equal(c->frontends[0].log_format, "%ci %b");
	assert_int_equal(c->frontends[0].log_format_line, 6);
	assert_string_equal(c->frontends[1].log_format, "%f");
	lbd_cfg_free(c);
	/* the last of option tcplog and log-format wins */
	c = load_ok(TCP_DEFAULTS
		"frontend f\n    bind :1\n    log-format %f\n    option tcplog\n" LF_BE);
	assert_null(c->frontends[0].log_format);
	assert_int_equal(c->frontends[0].tcplog, 1);
	lbd_cfg_free(c);
	c = load_ok(TCP_DEFAULTS
		"frontend f\n    bind :1\n    option tcplog\n    log-format %f\n" LF_BE);
	assert_string_equal(c->frontends[0].log_format, "%f");
	assert_int_equal(c->frontends[0].tcplog, 0);
	lbd_cfg_free(c);
	expect_notice(TCP_DEFAULTS
		"    option tcplog\n    log-format %f\nfrontend f\n    bind :1\n" LF_BE,
		"t.cfg:7: 'log-format' overrides previous 'option tcplog' in section 'defaults'");
	expect_notice(TCP_DEFAULTS
		"    log-format %f\n    option tcplog\nfrontend f\n    bind :1\n" LF_BE,
		"t.cfg:7: 'option tcplog' overrides previous 'log-format' in section 'defaults'");
	expect_notice(TCP_DEFAULTS "frontend f\n    bind :1\n" LF_BE "    log-format %f\n",
		"t.cfg:11: 'log-format' is ignored in backends");
	expect_notice(TCP_DEFAULTS "frontend f\n    bind :1\n    log-format %{+E}f\n" LF_BE,
		"t.cfg:8: log-format flag '+E' is accepted but not applied");
	/* checked when the section ends, at the line of the string */
	expect_error(TCP_DEFAULTS "    log-format \"%ci %zz\"\nfrontend f\n    bind :1\n" LF_BE,
		"t.cfg:6: log-format of frontend 'f': no such format variable 'zz'");
	expect_error(TCP_DEFAULTS "frontend f\n    bind :1\n    log-format %r\n" LF_BE,
		"t.cfg:8: log-format of frontend 'f': format variable 'r' is reserved for HTTP");
	expect_error(TCP_DEFAULTS "frontend f\n    bind :1\n    log-format %ci %b\n" LF_BE,
		"t.cfg:8: 'log-format' expects only one argument");
	expect_error(TCP_DEFAULTS "frontend f\n    bind :1\n    log-format\n" LF_BE,
		"t.cfg:8: 'log-format' expects an argument");
}

static void test_log_options(void **state)
{
	struct lbd_config *c;

	(void)state;
	c = load_ok(TCP_DEFAULTS "    option dontlog-normal\n    option tcp-smart-accept\n"
				 "frontend f\n    bind :1\n" LF_BE
				 "frontend g\n    bind :2\n    no option dontlog-normal\n"
				 "    no option tcp-smart-accept\n    default_backend b\n");
	assert_int_equal(c->frontends[0].dontlog_normal, 1);
	assert_int_equal(c->frontends[0].smart_accept, 1);
	assert_int_equal(c->frontends[1].dontlog_normal, 0);
	assert_int_equal(c->frontends[1].smart_accept, 0);
	lbd_cfg_free(c);
}

/* HAProxy's protocol prefixes on bind and log addresses: tcp@ and udp@
 * drop, tcp4@/tcp6@ and udp4@/udp6@ pick the family, any other protocol
 * is refused. */
static void test_addr_prefixes(void **state)
{
	struct lbd_config *c;

	(void)state;
	c = load_ok("global\n    log udp6@[2001:db8::1]:515 local0\n"
		    "    log udp@198.18.0.9 local1\n" TCP_DEFAULTS
		    "listen l\n    bind tcp4@198.18.0.1:80\n    bind tcp@198.18.0.2:81\n"
		    "    bind tcp6@[2001:db8::2]:82\n    server s 198.18.0.3:1\n");
	assert_int_equal(c->global.nlogs, 2);
	assert_int_equal(cpha_addr_family(&c->global.logs[0].addr), AF_INET6);
	assert_int_equal(cpha_addr_port(&c->global.logs[0].addr), 515);
	assert_int_equal(cpha_addr_family(&c->global.logs[1].addr), AF_INET);
	assert_int_equal(cpha_addr_port(&c->global.logs[1].addr), 514);
	assert_int_equal(c->frontends[0].nbinds, 3);
	assert_int_equal(cpha_addr_family(&c->frontends[0].binds[0].addr), AF_INET);
	assert_int_equal(cpha_addr_family(&c->frontends[0].binds[1].addr), AF_INET);
	assert_int_equal(cpha_addr_family(&c->frontends[0].binds[2].addr), AF_INET6);
	lbd_cfg_free(c);
	expect_error(TCP_DEFAULTS
		"listen l\n    bind unix@/run/l.sock\n    server s 198.18.0.3:1\n",
		"t.cfg:7: bind address 'unix@/run/l.sock': lbd only listens on TCP over IPv4 or "
		"IPv6");
	expect_error(TCP_DEFAULTS
		"listen l\n    bind udp@198.18.0.1:80\n    server s 198.18.0.3:1\n",
		"t.cfg:7: bind address 'udp@198.18.0.1:80': lbd only listens on TCP");
	expect_error("global\n    log tcp@198.18.0.9:514 local0\n",
		"t.cfg:2: log target 'tcp@198.18.0.9:514' is not supported by lbd");
}

/* Every boolean option is one row and one bit: a section takes all of its
 * defaults' bits at once, "no option" clears one, a new defaults section
 * starts again from none. */
static void test_option_table(void **state)
{
	struct lbd_config *c;
	const struct lbd_frontend *f;
	const struct lbd_backend *b;

	(void)state;
	c = load_ok(TCP_DEFAULTS "    option tcplog\n    option dontlognull\n"
				 "    option dontlog-normal\n    option tcp-smart-accept\n"
				 "    option redispatch\n    option tcp-smart-connect\n"
				 "    option log-health-checks\n"
				 "listen all\n    bind :1\n    server s 198.18.0.1:1\n"
				 "listen some\n    bind :2\n    no option dontlognull\n"
				 "    no option tcp-smart-connect\n    server s 198.18.0.1:1\n"
				 "defaults\n    mode tcp\n    timeout connect 5s\n"
				 "    timeout client 30s\n    timeout server 30s\n"
				 "listen none\n    bind :3\n    option tcp-smart-connect\n"
				 "    server s 198.18.0.1:1\n");
	assert_int_equal(c->nfrontends, 3);
	f = &c->frontends[0];
	b = f->backend;
	assert_true(f->tcplog && f->dontlognull && f->dontlog_normal && f->smart_accept);
	assert_true(b->redispatch && b->smart_connect && b->log_health_checks);
	f = &c->frontends[1];
	b = f->backend;
	assert_true(f->tcplog && !f->dontlognull && f->dontlog_normal && f->smart_accept);
	assert_true(b->redispatch && !b->smart_connect && b->log_health_checks);
	f = &c->frontends[2];
	b = f->backend;
	assert_false(f->tcplog || f->dontlognull || f->dontlog_normal || f->smart_accept);
	assert_false(b->redispatch || b->log_health_checks);
	assert_true(b->smart_connect);
	lbd_cfg_free(c);

	/* where HAProxy's capabilities do not reach: said and ignored */
	expect_notice(TCP_DEFAULTS "frontend f\n    bind :1\n    option tcp-smart-connect\n" LF_BE,
		"t.cfg:8: 'option tcp-smart-connect' has no effect in a frontend section");
	expect_error(TCP_DEFAULTS "backend b\n    option tcp-smart-connect 1\n", "t.cfg:7:");
	expect_error(TCP_DEFAULTS "backend b\n    no option httpchk\n",
		"t.cfg:7: 'no option httpchk' is not supported by lbd in backend 'b'");
	expect_error(TCP_DEFAULTS "backend b\n    option nosuch\n",
		"t.cfg:7: 'option nosuch' is not supported by lbd in backend 'b'");
}

/* The global section's table: one row per keyword, prefix rows after the
 * exact rows they cover, values counted before a row's function runs. */
static void test_global_table(void **state)
{
	struct lbd_config *c;

	(void)state;
	c = load_ok("global\n    daemon\n    maxconn 77\n    no strict-limits\n"
		    "    ssl-default-bind-ciphers ECDHE\n    ssl-default-server-ciphers ECDHE\n"
		    "    nbthread 3\n    hard-stop-after 5s\n" TCP_PAIR);
	assert_int_equal(c->global.daemon, 1);
	assert_int_equal(c->global.maxconn, 77);
	assert_int_equal(c->global.no_strict_limits, 1);
	assert_string_equal(c->global.srv_ciphers, "ECDHE");
	assert_int_equal(c->global.nbthread, 3);
	assert_true(c->global.hard_stop_after == 5000000);
	expect_in(notices(c), "t.cfg:5: 'ssl-default-bind-ciphers' has no effect in lbd");
	lbd_cfg_free(c);
	expect_error("global\n    daemon now\n" TCP_PAIR, "t.cfg:2:");
	expect_error("global\n    nosuch 1\n" TCP_PAIR,
		"t.cfg:2: 'nosuch' is not supported by lbd in section 'global'");
	expect_error("global\n    no daemon\n" TCP_PAIR,
		"t.cfg:2: 'no daemon' is not supported by lbd in section 'global'");
	expect_error("global\n    ssl-default-server-sigalgs RSA\n" TCP_PAIR,
		"t.cfg:2: 'ssl-default-server-sigalgs' is not supported by lbd yet");
	expect_error("global\n    nbproc\n" TCP_PAIR,
		"t.cfg:2: 'nbproc' is not supported: HAProxy 2.5 and later refuse it too");
	expect_error("global\n    log global\n" TCP_PAIR,
		"t.cfg:2: 'log global' is for proxies, not section 'global'");
}

/* option ssl-hello-chk in defaults: its binary CLIENT HELLO is copied into
 * each backend that inherits it (the ASan build reads past a short copy) */
static void test_ssl_hello_inherited(void **state)
{
	struct lbd_config *c;
	const struct lbd_backend *b;

	(void)state;
	c = load_ok(
		TCP_DEFAULTS "    option ssl-hello-chk\n"
			     "frontend f\n    bind :1\n" LF_BE "    server t 198.18.0.2:1 check\n");
	b = &c->backends[0];
	assert_int_equal(b->check_kind, LBD_CHECK_TCP);
	assert_int_equal(b->ntcpcheck, 3);
	assert_int_equal(b->tcpcheck[0].action, LBD_TCPCHK_CONNECT);
	assert_int_equal(b->tcpcheck[1].action, LBD_TCPCHK_SEND);
	assert_int_equal(b->tcpcheck[1].len, 126);
	assert_memory_equal(b->tcpcheck[1].data, "\x16\x03\x00\x00\x79\x01", 6);
	assert_int_equal(b->tcpcheck[2].action, LBD_TCPCHK_EXPECT_RSTRING);
	lbd_cfg_free(c);
}

/* HAProxy 2.6 reads a port as atoi() does once it starts with a digit:
 * kind's IPv6 load balancer writes "bind :::6443;" */
static void test_port_tail_ignored(void **state)
{
	struct lbd_config *c;

	(void)state;
	c = load_ok(TCP_DEFAULTS "frontend f\n    bind :::6443;\n    bind 198.18.0.10:6444abc\n"
				 "    default_backend b\nbackend b\n    server s 198.18.0.1:6443;\n"
				 "    server t [2001:db8::1]:6443;\n");
	assert_string_equal(addr(&c->frontends[0].binds[0].addr), "[::]:6443");
	assert_string_equal(addr(&c->frontends[0].binds[1].addr), "198.18.0.10:6444");
	assert_string_equal(addr(&c->backends[0].servers[0].addr), "198.18.0.1:6443");
	assert_string_equal(addr(&c->backends[0].servers[1].addr), "[2001:db8::1]:6443");
	assert_int_equal(c->nnotices, 0); /* HAProxy says nothing either */
	lbd_cfg_free(c);
	/* what does not start with a digit, and ranges, stay errors */
	expect_error(TCP_DEFAULTS "frontend f\n    bind :abc\n",
		"t.cfg:7: bind address ':abc': port is not a number between 1 and 65535");
	expect_error(TCP_DEFAULTS "frontend f\n    bind :6443-6450;\n",
		"t.cfg:7: bind address ':6443-6450;': port ranges are not supported by lbd");
	expect_error(TCP_DEFAULTS "frontend f\n    bind :70000;\n",
		"t.cfg:7: bind address ':70000;': port is not a number between 1 and 65535");
}

/* bind ... name N and program sections: read, said and ignored */
static void test_bind_name_and_program(void **state)
{
	(void)state;
	expect_notice(TCP_DEFAULTS "frontend f\n    bind :6443 name api v4v6\n" LF_BE,
		"t.cfg:7: 'bind :6443 ... name api': lbd keeps no per-listener statistics");
	expect_error(TCP_DEFAULTS "frontend f\n    bind :6443 name\n" LF_BE,
		"t.cfg:7: 'bind :6443': 'name' needs a name");
	expect_notice("global\n    master-worker\n" TCP_PAIR
		      "program api\n    command dataplaneapi --port 5555\n    user haproxy\n"
		      "    group haproxy\n    no option start-on-reload\n",
		"section 'program api': lbd starts no programs");
	/* HAProxy refuses a program section without master-worker mode */
	expect_error(TCP_PAIR "program api\n    command sleep 100\n",
		"a 'program' section needs master-worker mode");
	expect_error("global\n    master-worker\n" TCP_PAIR "program api\n    command\n"
		     "    restart always\n",
		"'command' needs a command, with its arguments");
	expect_error("global\n    master-worker\n" TCP_PAIR "program api\n    restart always\n",
		"unknown keyword 'restart' in 'program' section");
}

/* option persist: a backend option, inherited from defaults, with "no" */
static void test_option_persist(void **state)
{
	struct lbd_config *c;

	(void)state;
	c = load_ok(TCP_DEFAULTS "    option persist\nfrontend f\n    bind :1\n" LF_BE
				 "backend c\n    no option persist\n    server s 198.18.0.1:1\n");
	assert_int_equal(c->backends[0].persist, 1);
	assert_int_equal(c->backends[1].persist, 0);
	lbd_cfg_free(c);
}

static void test_still_refused(void **state)
{
	(void)state;
	expect_error(TCP_DEFAULTS "frontend f\n    bind :80 v4v6 transparent\n",
		"t.cfg:7: 'transparent' is not supported by lbd on a bind line");
	expect_error("global\n    nbproc 2\n" TCP_PAIR,
		"t.cfg:2: 'nbproc' is not supported: HAProxy 2.5 and later refuse it too");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_privdrop_parsed),
		cmocka_unit_test(test_privdrop_errors),
		cmocka_unit_test(test_spread_checks),
		cmocka_unit_test(test_stats_timeout),
		cmocka_unit_test(test_log_health_checks),
		cmocka_unit_test(test_fullconn),
		cmocka_unit_test(test_resolvers_section),
		cmocka_unit_test(test_host_names),
		cmocka_unit_test(test_use_backend),
		cmocka_unit_test(test_server_ciphers),
		cmocka_unit_test(test_tcp_request),
		cmocka_unit_test(test_server_tls_options),
		cmocka_unit_test(test_server_state),
		cmocka_unit_test(test_check_jitter_and_log),
		cmocka_unit_test(test_bind_v6only),
		cmocka_unit_test(test_log_format),
		cmocka_unit_test(test_log_options),
		cmocka_unit_test(test_addr_prefixes),
		cmocka_unit_test(test_option_table),
		cmocka_unit_test(test_global_table),
		cmocka_unit_test(test_ssl_hello_inherited),
		cmocka_unit_test(test_port_tail_ignored),
		cmocka_unit_test(test_bind_name_and_program),
		cmocka_unit_test(test_option_persist),
		cmocka_unit_test(test_still_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
