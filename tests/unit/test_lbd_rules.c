/* lbd's traffic rules: the samples read from a client's first bytes
 * (payload.c: req.ssl_hello_type, req.ssl_sni), HAProxy's three-valued
 * conditions over them (acl.c), and the decisions of rules.c, from
 * configurations read by the real parser: a content rule waits while a
 * ClientHello is incomplete and decides when it is whole or the delay is
 * over, use_backend follows the server name, a connection rule rejects by
 * address; the tenth session is decided as the first. */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "acl.h"
#include "cfg.h"
#include "duration.h"
#include "payload.h"
#include "rules.h"
#include "lbd_cfg_test.h"

/* A TLS 1.2-style ClientHello in one record; name NULL: no server_name. */
static size_t client_hello(uint8_t *b, const char *name, uint8_t hs_type)
{
	size_t n = 0, body, ext_len, nl = name ? strlen(name) : 0;

	b[n++] = 22; /* handshake */
	b[n++] = 3;
	b[n++] = 1;
	n += 2; /* record length, below */
	b[n++] = hs_type;
	n += 3; /* handshake length, below */
	body = n;
	b[n++] = 3;
	b[n++] = 3;
	memset(b + n, 0xab, 32); /* random */
	n += 32;
	b[n++] = 0;  /* no session id */
	b[n++] = 0;  /* two cipher suites */
	b[n++] = 4;
	b[n++] = 0x13;
	b[n++] = 0x01;
	b[n++] = 0xc0;
	b[n++] = 0x2f;
	b[n++] = 1; /* one compression method: null */
	b[n++] = 0;
	/* extensions: supported_groups (10), then server_name (0) */
	ext_len = 8 + (name ? 4 + 5 + nl : 0);
	b[n++] = (uint8_t)(ext_len >> 8);
	b[n++] = (uint8_t)ext_len;
	b[n++] = 0;
	b[n++] = 10;
	b[n++] = 0;
	b[n++] = 4;
	b[n++] = 0;
	b[n++] = 2;
	b[n++] = 0;
	b[n++] = 29;
	if (name) {
		b[n++] = 0;
		b[n++] = 0;
		b[n++] = (uint8_t)((nl + 5) >> 8);
		b[n++] = (uint8_t)(nl + 5);
		b[n++] = (uint8_t)((nl + 3) >> 8);
		b[n++] = (uint8_t)(nl + 3);
		b[n++] = 0; /* host_name */
		b[n++] = (uint8_t)(nl >> 8);
		b[n++] = (uint8_t)nl;
		memcpy(b + n, name, nl);
		n += nl;
	}
	b[3] = (uint8_t)((n - 5) >> 8);
	b[4] = (uint8_t)(n - 5);
	b[6] = 0;
	b[7] = (uint8_t)((n - body) >> 8);
	b[8] = (uint8_t)(n - body);
	return n;
}

static void test_payload_client_hello(void **state)
{
	uint8_t b[512];
	char sni[PAYLOAD_SNI_MAX + 1];
	size_t n = client_hello(b, "api.example.com", 1), i;
	int type = 0;

	(void)state;
	assert_int_equal(payload_ssl_hello_type(b, n, &type), PAYLOAD_FOUND);
	assert_int_equal(type, 1);
	assert_int_equal(payload_ssl_sni(b, n, sni), PAYLOAD_FOUND);
	assert_string_equal(sni, "api.example.com");
	/* every shorter prefix: not yet, never "absent" */
	for (i = 0; i < n; i++) {
		assert_int_equal(payload_ssl_hello_type(b, i, &type), PAYLOAD_MORE);
		assert_int_equal(payload_ssl_sni(b, i, sni), PAYLOAD_MORE);
	}
	/* without a server name; a ServerHello; not TLS at all */
	n = client_hello(b, NULL, 1);
	assert_int_equal(payload_ssl_sni(b, n, sni), PAYLOAD_ABSENT);
	n = client_hello(b, "x.example.com", 2);
	assert_int_equal(payload_ssl_hello_type(b, n, &type), PAYLOAD_FOUND);
	assert_int_equal(type, 2);
	assert_int_equal(payload_ssl_sni(b, n, sni), PAYLOAD_ABSENT);
	assert_int_equal(payload_ssl_hello_type((const uint8_t *)"GET / HTTP/1.1\r\n", 16, &type),
		PAYLOAD_ABSENT);
	/* a handshake longer than its record (split over records): no name */
	n = client_hello(b, "api.example.com", 1);
	b[4] = (uint8_t)(b[4] - 10);
	assert_int_equal(payload_ssl_sni(b, n, sni), PAYLOAD_ABSENT);
	/* an extension length past the end: absent, and nothing read past n */
	n = client_hello(b, "api.example.com", 1);
	b[n - 18] = 0xff;
	assert_int_equal(payload_ssl_sni(b, n, sni), PAYLOAD_ABSENT);
}

/* A condition from words separated by spaces. */
static struct acl_cond *cond(const struct acl_list *list, const char *text)
{
	char buf[512], *w[64], *save = NULL, *t, err[256] = "";
	struct acl_cond *c;
	size_t n = 0;

	snprintf(buf, sizeof(buf), "%s", text);
	for (t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save))
		w[n++] = t;
	c = acl_cond_parse(list, (const char *const *)w, n, err, sizeof(err));
	if (!c)
		fail_msg("%s: %s", text, err);
	return c;
}

static enum acl_verdict exec(const char *text, const uint8_t *b, size_t n, bool final)
{
	struct acl_cond *c = cond(NULL, text);
	struct acl_facts f = { .payload = b, .payload_len = n, .final = final };
	enum acl_verdict v = acl_cond_exec(c, &f);

	acl_cond_free(c);
	return v;
}

/* HAProxy's logic with a sample not there yet */
static void test_three_valued(void **state)
{
	uint8_t b[512];
	size_t n = client_hello(b, "api.example.com", 1);

	(void)state;
	assert_int_equal(exec("if { req_ssl_hello_type 1 }", b, 20, false), ACL_MISS);
	assert_int_equal(exec("if { req_ssl_hello_type 1 }", b, 20, true), ACL_FAIL);
	assert_int_equal(exec("if { req_ssl_hello_type 1 }", b, n, false), ACL_PASS);
	assert_int_equal(exec("if !{ req_ssl_hello_type 1 }", b, 20, false), ACL_MISS);
	assert_int_equal(exec("unless { req_ssl_hello_type 1 }", b, 20, false), ACL_MISS);
	assert_int_equal(exec("unless { req_ssl_hello_type 1 }", b, n, false), ACL_FAIL);
	/* OR: a passing suite wins over a missing one; AND: a failing term */
	assert_int_equal(exec("if { req.ssl_sni x } || TRUE", b, 20, false), ACL_PASS);
	assert_int_equal(exec("if { req.ssl_sni x } || FALSE", b, 20, false), ACL_MISS);
	assert_int_equal(exec("if FALSE { req.ssl_sni x }", b, 20, false), ACL_FAIL);
	assert_int_equal(exec("if { req.ssl_sni x } FALSE", b, 20, false), ACL_FAIL);
	assert_int_equal(exec("if { req.ssl_sni x } TRUE", b, 20, false), ACL_MISS);
	/* string matches on the server name */
	assert_int_equal(exec("if { req.ssl_sni -i API.example.com }", b, n, false), ACL_PASS);
	assert_int_equal(exec("if { req.ssl_sni API.example.com }", b, n, false), ACL_FAIL);
	assert_int_equal(exec("if { req.ssl_sni -m end .example.com }", b, n, false), ACL_PASS);
	assert_int_equal(exec("if { req.ssl_sni -m beg api. }", b, n, false), ACL_PASS);
	assert_int_equal(exec("if { req.ssl_sni -m sub example }", b, n, false), ACL_PASS);
	assert_int_equal(exec("if { req.ssl_sni -m found }", b, n, false), ACL_PASS);
	assert_int_equal(exec("if { req.ssl_sni -m end .example.org }", b, n, false), ACL_FAIL);
	/* req.len: what came so far, waiting while nothing came */
	assert_int_equal(exec("if { req.len gt 0 }", b, 0, false), ACL_MISS);
	assert_int_equal(exec("if { req.len 0 }", b, 0, true), ACL_PASS);
	assert_int_equal(exec("if { req.len ge 20 }", b, 20, false), ACL_PASS);
}

static const char sni_cfg[] = TCP_DEFAULTS
	"frontend main\n"
	"    bind :::8443 v4v6\n"
	"    tcp-request connection reject if { src 198.19.0.0/16 }\n"
	"    tcp-request inspect-delay 5s\n"
	"    tcp-request content accept if { req_ssl_hello_type 1 }\n"
	"    acl is_oauth req_ssl_sni -i oauth.example.com\n"
	"    acl is_konn req_ssl_sni -i konnectivity.example.com\n"
	"    use_backend oauth if is_oauth\n"
	"    use_backend konnectivity if is_konn\n"
	"    default_backend kube_api\n"
	"backend oauth\n    server s 198.18.0.21:6443\n"
	"backend konnectivity\n    server s 198.18.0.22:8091\n"
	"backend kube_api\n    server s 198.18.0.11:6443\n";

static void set_src(struct sockaddr_in *sin, const char *ip)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	assert_int_equal(inet_pton(AF_INET, ip, &sin->sin_addr), 1);
}

/* One session as session.c runs it: the bytes come in pieces. The
 * switching rule's index, or -2 when the content rules rejected. */
static int run_session(const struct lbd_fe_rules *r, const uint8_t *b, size_t n, size_t step,
	bool timeout)
{
	struct sockaddr_in src;
	struct acl_facts f = { 0 };
	size_t got = 0;
	enum rules_verdict v;

	set_src(&src, "198.18.0.2");
	f.src = (const struct sockaddr *)&src;
	assert_int_equal(rules_connection(r, &f), RULES_ACCEPT);
	for (;;) {
		f.payload = b;
		f.payload_len = got;
		f.final = timeout && got == n;
		v = rules_content(r, &f);
		if (v != RULES_WAIT)
			break;
		/* nothing decided before the ClientHello is whole */
		assert_true(got < n);
		got = got + step > n ? n : got + step;
	}
	if (v == RULES_REJECT)
		return -2;
	return rules_switch(r, &f);
}

static void test_sni_routing(void **state)
{
	struct lbd_config *c = load_ok(sni_cfg);
	const struct lbd_fe_rules *r = c->frontends[0].rules;
	struct sockaddr_in src;
	struct acl_facts f = { 0 };
	uint8_t b[512];
	size_t n;
	int i;

	(void)state;
	assert_non_null(r);
	assert_int_equal(r->nconn, 1);
	assert_int_equal(r->ncontent, 1);
	assert_int_equal(r->nsw, 2);
	assert_string_equal(r->sw[0].backend, "oauth");
	assert_int_equal(r->inspect_delay, 5 * SEC);
	assert_true(rules_inspect(r));
	assert_string_equal(c->frontends[0].backend->name, "kube_api");
	for (i = 0; i < 10; i++) {
		n = client_hello(b, "oauth.example.com", 1);
		assert_int_equal(run_session(r, b, n, 1 + (size_t)i * 7, false), 0);
		n = client_hello(b, "KONNECTIVITY.example.com", 1);
		assert_int_equal(run_session(r, b, n, 50, false), 1);
		n = client_hello(b, "api.example.com", 1);
		assert_int_equal(run_session(r, b, n, 100, false), -1);
		n = client_hello(b, NULL, 1);
		assert_int_equal(run_session(r, b, n, 100, false), -1);
		/* not TLS: the accept rule does not hold, nothing rejects */
		assert_int_equal(run_session(r, (const uint8_t *)"GET / HTTP/1.0\r\n\r\n", 18, 4,
					 false),
			-1);
		/* a client that sends nothing: inspect-delay over, default */
		assert_int_equal(run_session(r, b, 0, 1, true), -1);
	}
	/* tcp-request connection reject if { src 198.19.0.0/16 } */
	set_src(&src, "198.19.3.4");
	f.src = (const struct sockaddr *)&src;
	assert_int_equal(rules_connection(r, &f), RULES_REJECT);
	lbd_cfg_free(c);
}

/* reject rules, and a frontend only use_backend rules send anywhere */
static void test_reject_and_no_default(void **state)
{
	struct lbd_config *c = load_ok(TCP_DEFAULTS
		"frontend f\n    bind :6443\n    tcp-request inspect-delay 2s\n"
		"    tcp-request content reject if { req.len 0 }\n"
		"    tcp-request content reject unless { req_ssl_hello_type 1 }\n"
		"    use_backend api if { req.ssl_sni -m end .example.com }\n"
		"backend api\n    server s 198.18.0.11:6443\n");
	const struct lbd_fe_rules *r = c->frontends[0].rules;
	uint8_t b[512];
	size_t n = client_hello(b, "api.example.com", 1);

	(void)state;
	assert_null(c->frontends[0].backend);
	assert_int_equal(run_session(r, b, n, 30, false), 0);
	n = client_hello(b, "api.example.org", 1);
	assert_int_equal(run_session(r, b, n, 30, false), -1); /* closed: no backend */
	assert_int_equal(run_session(r, (const uint8_t *)"SSH-2.0-x\r\n", 11, 11, false), -2);
	assert_int_equal(run_session(r, b, 0, 1, true), -2); /* nothing came: req.len 0 */
	lbd_cfg_free(c);
	/* a use_backend to a backend that does not exist */
	expect_error(TCP_DEFAULTS "frontend f\n    bind :1\n"
				  "    use_backend nope if { src 198.18.0.0/15 }\n"
				  "    default_backend b\nbackend b\n    server s 198.18.0.1:1\n",
		"t.cfg:8: use_backend 'nope': no such backend (frontend 'f')");
	/* mode http with use_backend: that is HTTP proxying */
	expect_error(TCP_DEFAULTS "frontend f\n    bind :80\n    mode http\n"
				  "    use_backend b if { hdr(host) -i x }\n"
				  "backend b\n    server s 198.18.0.1:1\n",
		"lbd does not proxy HTTP");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_payload_client_hello),
		cmocka_unit_test(test_three_valued),
		cmocka_unit_test(test_sni_routing),
		cmocka_unit_test(test_reject_and_no_default),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
