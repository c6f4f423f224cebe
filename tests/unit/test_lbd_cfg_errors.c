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

static void test_errors_sections(void **state)
{
	(void)state;
	expect_error("bind :80\n", "t.cfg:1: 'bind' before any section");
	expect_error("global\n\npeers p\n  peer a 198.18.0.1:1024\nresolvers dns\n",
		"t.cfg:3: section 'peers' is not supported by lbd");
	expect_error(
		"global\nuserlist u\n  user a pass x\n", "t.cfg:3: 'user a': unexpected 'pass'");
	expect_error("global\n    chroot /a /b\n", "t.cfg:2: 'chroot': unexpected '/b'");
	expect_error("global\n  tune.bufsize 1\n", "t.cfg:2: 'tune.bufsize' is not supported");
	expect_error(
		"global\n  stats timeout 30q\n", "t.cfg:2: 'stats timeout': unknown time unit");
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
	expect_error("global\n  stats socket /x user cpha-no-such-user\n",
		"t.cfg:2: 'stats socket' user 'cpha-no-such-user': no such user");
	expect_error("global\n  stats socket /x gid 12ab\n",
		"t.cfg:2: 'stats socket' gid must be a number");
	expect_error("global\n  stats socket /x group\n", "t.cfg:2: 'group' needs a value");
	expect_error("global\n  ssl-server-verify maybe\n", "t.cfg:2: 'ssl-server-verify' must");
	expect_error("global\n  metrics-bind 198.18.0.1\n", "t.cfg:2: metrics-bind '198.18.0.1'"
							    ": missing port");
	expect_error("global\n  metrics-web-config /nonexistent/web.yml\n",
		"t.cfg:2: metrics-web-config: /nonexistent/web.yml: No such file or directory");
	expect_error("global\n  metrics-web-config /dev/null\n",
		"t.cfg:2: 'metrics-web-config' without 'metrics-bind'");
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
	/* options without effect in a section: HAProxy warns and ignores them */
	expect_notice(TCP_DEFAULTS "backend b\n    option tcplog\n    server s 198.18.0.1:80\n"
				   "frontend f\n    bind :80\n    default_backend b\n"
				   "    option redispatch\n",
		"t.cfg:12: 'option redispatch' has no effect in a frontend section; ignored "
		"(HAProxy warns too)");
	expect_notice(TCP_DEFAULTS "backend b\n    option tcplog\n    server s 198.18.0.1:80\n"
				   "frontend f\n    bind :80\n    default_backend b\n",
		"t.cfg:7: 'option tcplog' has no effect in a backend section; ignored (HAProxy "
		"warns too)");
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
	/* mode http serves only the built-in services (test_lbd_http.c) */
	expect_error(TCP_DEFAULTS "frontend f\n    mode http\n    default_backend b\n",
		"t.cfg:6: frontend 'f' is in mode http (t.cfg:7) and sends to 'b', which is not a "
		"mode http backend without servers; lbd does not proxy HTTP");
	expect_error(TCP_DEFAULTS "backend b\n    mode http\n    server s 198.18.0.1:80\n",
		"t.cfg:6: backend 'b' is in mode http (t.cfg:7) and has servers; lbd does not "
		"proxy HTTP");
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
		"t.cfg:7: backend 'b' would run in mode http (inherited from defaults at t.cfg:2) "
		"and has servers; lbd does not proxy HTTP");
	/* HTTP-only settings in a tcp section or in tcp defaults: HAProxy warns
	 * and ignores them */
	expect_notice(TCP_DEFAULTS "frontend f\n    bind :80\n    default_backend b\n"
				   "    option httplog\nbackend b\n    server s 198.18.0.1:80\n",
		"'option httplog' needs mode http; frontend 'f' falls back to option tcplog (as "
		"HAProxy does)");
	expect_notice(TCP_DEFAULTS "    option forwardfor\nbackend b\n    server s 198.18.0.1:80\n",
		"t.cfg:1: HTTP-only settings in defaults (option forwardfor) have no effect on "
		"TCP sections; ignored (this defaults section is mode tcp)");
	expect_notice(TCP_DEFAULTS "backend b\n    timeout http-request 5s\n"
				   "    server s 198.18.0.1:80\n",
		"t.cfg:7: 'timeout http-request' needs mode http; ignored in backend 'b' (as "
		"HAProxy does)");
	expect_notice(TCP_DEFAULTS "backend b\n    http-reuse safe\n    server s 198.18.0.1:80\n",
		"t.cfg:7: 'http-reuse' needs mode http; ignored in backend 'b' (as HAProxy does)");
	expect_notice(TCP_DEFAULTS "backend b\n    no option http-server-close\n"
				   "    server s 198.18.0.1:80\n",
		"t.cfg:7: 'no option http-server-close' needs mode http; ignored in backend 'b' "
		"(as HAProxy does)");
	expect_error("defaults\n    mode http\n    timeout http-request 5x\n",
		"t.cfg:3: 'timeout http-request': unknown time unit");
}

static void test_errors_proxy_directives(void **state)
{
	(void)state;
	expect_error(TCP_DEFAULTS "frontend f\n    bind :6443 ssl crt /x.pem\n",
		"t.cfg:7: 'ssl' is not supported by lbd on a bind line (frontend 'f')");
	expect_error(TCP_DEFAULTS "frontend f\n    bind :6443 v4v6 tfo\n",
		"t.cfg:7: 'tfo' is not supported by lbd on a bind line");
	expect_error(TCP_DEFAULTS "frontend f\n    bind :6443-6450\n",
		"t.cfg:7: bind address ':6443-6450': port ranges are not supported by lbd");
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
		"t.cfg:7: 'use_backend': no such ACL: 'x' (frontend 'f')");
	expect_error(TCP_DEFAULTS "frontend f\n    acl a req.ssl_alpn -i h2\n",
		"t.cfg:7: 'acl': unknown fetch method 'req.ssl_alpn'");
	expect_error(TCP_DEFAULTS "frontend f\n    tcp-request session reject\n",
		"t.cfg:7: 'tcp-request session' is not supported by lbd (inspect-delay, "
		"connection and content are)");
	expect_error(TCP_DEFAULTS "frontend f\n    mode http\n    http-request deny\n",
		"t.cfg:8: 'http-request deny' is not supported by lbd");
	expect_error(TCP_DEFAULTS "listen l\n    stats bogus\n", "t.cfg:7: 'stats bogus' is not "
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
	expect_error(TCP_DEFAULTS "backend b\n    no option tcp-check\n",
		"t.cfg:7: 'no option tcp-check' is not supported by lbd");
	expect_error(TCP_DEFAULTS "backend b\n    option redispatch 1\n",
		"t.cfg:7: 'option redispatch': unexpected '1'");
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
		"t.cfg:7: resolvers 'dns': no such resolvers section (server b/s)");
	expect_error(TCP_DEFAULTS "backend b\n    server s 198.18.0.1:80 agent-check\n",
		"t.cfg:7: 'agent-check' is not supported");
	expect_error(TCP_DEFAULTS "backend b\n    default-server init-addr bogus\n",
		"t.cfg:7: 'init-addr': unsupported method 'bogus'");
	/* init-addr last: no DNS query from the test */
	expect_error(TCP_DEFAULTS "backend b\n    server s api.example.com:6443 init-addr last\n",
		"t.cfg:7: server address 'api.example.com:6443': cannot resolve "
		"'api.example.com': no method succeeded (server b/s)");
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
	expect_notice(TCP_DEFAULTS "backend b\n    http-check expect status 200\n"
				   "    server s 198.18.0.1:80\n",
		"http-check rules without option httpchk are ignored (backend 'b'), as HAProxy "
		"does");
	/* in defaults, accepted: a backend with option httpchk inherits them */
	lbd_cfg_free(load_ok(TCP_DEFAULTS "    http-check expect status 200\nbackend b\n"
					  "    server s 198.18.0.1:80\n"));
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
	expect_notice(TCP_DEFAULTS "frontend f\n    bind :80\n",
		"t.cfg:6: frontend 'f' has no default_backend nor use_backend: it closes every "
		"connection it accepts");
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
		       "    user cpha-no-such-user\n"           /* 2 */
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
	expect_in(all, "t.cfg:2: 'user cpha-no-such-user': no such user on this system\n"
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
	struct cpha_msgs errs = { 0 };
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
	assert_int_equal(errs.nerrs, 1);
	assert_non_null(strstr(errs.errs[0].text, path));
	assert_non_null(strstr(errs.errs[0].text, ": cannot read: "));
	cpha_msgs_free(&errs);
	assert_int_equal(errs.nerrs, 0);
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
