#include <crypt.h>
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

#include "webcfg.h"

/* A bcrypt hash of pw at the lowest cost (fast tests). */
static char *bcrypt_of(const char *pw, const char *prefix)
{
	char salt[CRYPT_GENSALT_OUTPUT_SIZE];
	struct crypt_data cd;
	char *h;

	memset(&cd, 0, sizeof(cd));
	assert_non_null(crypt_gensalt_rn(prefix, 4, NULL, 0, salt, sizeof(salt)));
	h = crypt_r(pw, salt, &cd);
	assert_non_null(h);
	assert_int_equal(strlen(h), 60);
	return strdup(h);
}

static int parse(const char *text, struct cpha_webcfg **w, char *err)
{
	return cpha_webcfg_parse("/etc/x/web.yml", text, strlen(text), w, err, 512);
}

static void expect_error(const char *text, const char *msg)
{
	struct cpha_webcfg *w = NULL;
	char err[512] = "";

	if (parse(text, &w, err) != -EINVAL || strcmp(err, msg) != 0) {
		print_error("text:\n%s\nwant: %s\ngot:  %s\n", text, msg, err);
		fail();
	}
	assert_null(w);
}

static void test_parse_full(void **state)
{
	static const char hash[] = "$2y$10$mDwo.lAisC94iLAyP81MCesa29IzH37oigHC/42V2pdJlUprsJPze";
	struct cpha_webcfg *w = NULL;
	char err[512] = "", text[1024];

	(void)state;
	snprintf(text, sizeof(text),
		"---\n"
		"# the exporter-toolkit example, with comments\n"
		"tls_server_config:\n"
		"  cert_file: server.crt   # relative: beside the file\n"
		"  key_file: \"/etc/pki/server key.pem\"\n"
		"\n"
		"basic_auth_users:\n"
		"    alice: %s\n"
		"    'bob': '%s'\n",
		hash, hash);
	assert_int_equal(parse(text, &w, err), 0);
	assert_string_equal(w->cert_file, "/etc/x/server.crt");
	assert_string_equal(w->key_file, "/etc/pki/server key.pem");
	assert_int_equal(w->nusers, 2);
	assert_string_equal(w->users[0].name, "alice");
	assert_string_equal(w->users[0].hash, hash);
	assert_string_equal(w->users[1].name, "bob");
	assert_null(w->ssl_ctx); /* parse reads no file */
	cpha_webcfg_unref(w);

	/* empty: plain HTTP, nobody asked for a password */
	assert_int_equal(parse("# nothing\n\n", &w, err), 0);
	assert_int_equal(w->nusers, 0);
	assert_null(w->cert_file);
	assert_int_equal(cpha_webcfg_auth(w, NULL, 0), CPHA_WEB_AUTH_OK);
	cpha_webcfg_unref(w);
}

static void test_parse_errors(void **state)
{
	(void)state;
	expect_error("basic_auth_users:\n  alice: secret\n",
		"/etc/x/web.yml:2: basic_auth_users: user 'alice': the password must be a bcrypt "
		"hash ($2a$, $2b$ or $2y$, 60 characters; htpasswd -nbB writes one)");
	expect_error("tls_server_config:\n  cert_file: a.pem\n",
		"/etc/x/web.yml:1: tls_server_config needs both cert_file and key_file");
	expect_error("tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: "
		     "RequireAndVerifyClientCert\n",
		"/etc/x/web.yml:4: tls_server_config: 'client_auth_type' is not supported by cpha "
		"(cert_file and key_file are)");
	expect_error("http_server_config:\n  http2: false\n",
		"/etc/x/web.yml:1: 'http_server_config' is not supported by cpha "
		"(tls_server_config and basic_auth_users are)");
	expect_error("\nbasic_auth_user:\n", "/etc/x/web.yml:2: unknown key 'basic_auth_user'");
	expect_error("basic_auth_users: {alice: x}\n",
		"/etc/x/web.yml:1: '{': only block-style YAML (key: value) is understood here");
	expect_error("tls_server_config:\n  cert_file: a\n   key_file: b\n",
		"/etc/x/web.yml:3: indented by 3 spaces where the lines above have 2 (nested "
		"values are not understood here)");
	expect_error("tls_server_config:\n\tcert_file: a\n",
		"/etc/x/web.yml:2: a tab in the indentation (YAML indents with spaces)");
	expect_error("  cert_file: a\n",
		"/etc/x/web.yml:1: an indented line outside tls_server_config and "
		"basic_auth_users");
	expect_error("tls_server_config:\n  cert_file: 'a\n",
		"/etc/x/web.yml:2: unterminated single quote");
	expect_error("tls_server_config:\n  cert_file: a\n  cert_file: b\n",
		"/etc/x/web.yml:3: tls_server_config: 'cert_file' is given twice");
	expect_error("tls_server_config: a.pem\n",
		"/etc/x/web.yml:1: 'tls_server_config' holds a mapping on the lines below it, "
		"not 'a.pem'");
	expect_error("just words\n", "/etc/x/web.yml:1: 'just words': expected 'key: value'");
}

static void test_duplicate_user(void **state)
{
	char *h = bcrypt_of("pw", "$2b$"), text[512];

	(void)state;
	snprintf(text, sizeof(text), "basic_auth_users:\n  a: %s\n  a: %s\n", h, h);
	expect_error(text, "/etc/x/web.yml:3: basic_auth_users: user 'a' is given twice");
	free(h);
}

static void test_base64(void **state)
{
	unsigned char out[32];

	(void)state;
	assert_int_equal(cpha_base64_decode("YWxpY2U6cHc=", 12, out, sizeof(out)), 8);
	assert_string_equal((char *)out, "alice:pw");
	assert_int_equal(cpha_base64_decode("YTpi", 4, out, sizeof(out)), 3);
	assert_string_equal((char *)out, "a:b");
	assert_int_equal(cpha_base64_decode("YQ==", 4, out, sizeof(out)), 1);
	assert_int_equal(cpha_base64_decode("YWxpY2U6cHc", 11, out, sizeof(out)), -EINVAL);
	assert_int_equal(cpha_base64_decode("YW=pY2U6", 8, out, sizeof(out)), -EINVAL);
	assert_int_equal(cpha_base64_decode("YR==", 4, out, sizeof(out)), -EINVAL); /* bits */
	assert_int_equal(cpha_base64_decode("YW Y=", 5, out, sizeof(out)), -EINVAL);
	assert_int_equal(cpha_base64_decode("YWxpY2U6cHc=", 12, out, 8), -E2BIG);
}

static void test_header(void **state)
{
	static const char head[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n"
				   "authorization:   Basic YTpi  \r\n\r\nAuthorization: no\r\n";
	char v[64];

	(void)state;
	assert_int_equal(cpha_http_header(head, "Authorization", v, sizeof(v)), 10);
	assert_string_equal(v, "Basic YTpi");
	assert_int_equal(cpha_http_header(head, "Cookie", v, sizeof(v)), -ENOENT);
	assert_int_equal(cpha_http_header(head, "Authorization", v, 5), -E2BIG);
	assert_int_equal(
		cpha_http_header("GET / HTTP/1.0\nA: 1\nA: 2\n\n", "a", v, sizeof(v)), -EINVAL);
	/* the request line is no header */
	assert_int_equal(cpha_http_header("Host: y\r\n\r\n", "Host", v, sizeof(v)), -ENOENT);
}

/* "Basic " + base64 of s */
static void basic(const char *s, char *out, size_t len)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = strlen(s), i, o = 6;

	memcpy(out, "Basic ", 6);
	for (i = 0; i < n; i += 3) {
		unsigned v = (unsigned char)s[i] << 16;

		if (i + 1 < n)
			v |= (unsigned char)s[i + 1] << 8;
		if (i + 2 < n)
			v |= (unsigned char)s[i + 2];
		assert_true(o + 5 < len);
		out[o++] = t[v >> 18];
		out[o++] = t[(v >> 12) & 63];
		out[o++] = i + 1 < n ? t[(v >> 6) & 63] : '=';
		out[o++] = i + 2 < n ? t[v & 63] : '=';
	}
	out[o] = '\0';
}

static struct cpha_webcfg *users(const char *h1, const char *h2)
{
	struct cpha_webcfg *w = NULL;
	char text[512], err[512];

	snprintf(text, sizeof(text), "basic_auth_users:\n  alice: %s\n  bob: %s\n", h1, h2);
	assert_int_equal(parse(text, &w, err), 0);
	return w;
}

static void test_auth_decisions(void **state)
{
	char *ha = bcrypt_of("right pw", "$2b$"), *hb = bcrypt_of("bob:colon", "$2y$");
	struct cpha_webcfg *w = users(ha, hb);
	uint64_t t = 1000000; /* a new second for each budget-sensitive step */
	char h[256];

	(void)state;
	assert_int_equal(cpha_webcfg_auth(w, NULL, t), CPHA_WEB_AUTH_MISSING);
	basic("alice:right pw", h, sizeof(h));
	assert_int_equal(cpha_webcfg_auth(w, h, t += 1000000), CPHA_WEB_AUTH_OK);
	basic("alice:wrong pw", h, sizeof(h));
	assert_int_equal(cpha_webcfg_auth(w, h, t += 1000000), CPHA_WEB_AUTH_DENIED);
	basic("carol:right pw", h, sizeof(h)); /* a right password for another user */
	assert_int_equal(cpha_webcfg_auth(w, h, t += 1000000), CPHA_WEB_AUTH_DENIED);
	basic("bob:bob:colon", h, sizeof(h)); /* the password may hold ':' */
	assert_int_equal(cpha_webcfg_auth(w, h, t += 1000000), CPHA_WEB_AUTH_OK);
	basic("bob:bob", h, sizeof(h));
	assert_int_equal(cpha_webcfg_auth(w, h, t += 1000000), CPHA_WEB_AUTH_DENIED);
	basic("alice", h, sizeof(h)); /* no ':' */
	assert_int_equal(cpha_webcfg_auth(w, h, t += 1000000), CPHA_WEB_AUTH_MALFORMED);
	assert_int_equal(cpha_webcfg_auth(w, "Basic YWxp!2U=", t), CPHA_WEB_AUTH_MALFORMED);
	assert_int_equal(cpha_webcfg_auth(w, "Basic YWxpY2U6cHc", t), CPHA_WEB_AUTH_MALFORMED);
	assert_int_equal(cpha_webcfg_auth(w, "Bearer abc", t), CPHA_WEB_AUTH_MALFORMED);
	assert_int_equal(cpha_webcfg_auth(w, "Basic", t), CPHA_WEB_AUTH_MALFORMED);
	/* the scheme is case-insensitive (RFC 7617 §2) */
	basic("alice:right pw", h, sizeof(h));
	memcpy(h, "bASIC", 5);
	assert_int_equal(cpha_webcfg_auth(w, h, t += 1000000), CPHA_WEB_AUTH_OK);
	cpha_webcfg_unref(w);
	free(ha);
	free(hb);
}

/* Within one second at most CPHA_WEB_BCRYPT_BURST new credentials are
 * checked; one that passed before is still taken (remembered), and the
 * next second has a budget again. */
static void test_auth_budget(void **state)
{
	char *ha = bcrypt_of("pw", "$2b$");
	struct cpha_webcfg *w = users(ha, ha);
	uint64_t t = 5000000;
	char good[128], bad[128];
	int i;

	(void)state;
	basic("alice:pw", good, sizeof(good));
	basic("alice:guess", bad, sizeof(bad));
	assert_int_equal(cpha_webcfg_auth(w, good, t), CPHA_WEB_AUTH_OK);
	for (i = 1; i < CPHA_WEB_BCRYPT_BURST; i++)
		assert_int_equal(cpha_webcfg_auth(w, bad, t), CPHA_WEB_AUTH_DENIED);
	assert_int_equal(cpha_webcfg_auth(w, bad, t + 1), CPHA_WEB_AUTH_BUSY);
	assert_int_equal(cpha_webcfg_auth(w, good, t + 2), CPHA_WEB_AUTH_OK);
	assert_int_equal(cpha_webcfg_auth(w, bad, t + 1000000), CPHA_WEB_AUTH_DENIED);
	cpha_webcfg_unref(w);
	free(ha);
}

static void test_load(void **state)
{
	char dir[] = "/tmp/cpha-webcfg-XXXXXX", path[256], err[512];
	struct cpha_webcfg *w = NULL;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/web.yml", dir);
	assert_int_equal(cpha_webcfg_load(path, &w, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "web.yml: No such file or directory"));
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("tls_server_config:\n  cert_file: none.pem\n  key_file: none-key.pem\n", f);
	fclose(f);
	/* read and parsed; the certificate only when it is to run */
	assert_int_equal(cpha_webcfg_load(path, &w, err, sizeof(err)), 0);
	assert_null(w->ssl_ctx);
	assert_int_equal(cpha_webcfg_tls(w, err, sizeof(err)), -EINVAL);
	assert_null(w->ssl_ctx);
	assert_non_null(strstr(err, "cert_file "));
	assert_non_null(strstr(err, "/none.pem: "));
	cpha_webcfg_unref(w);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_full),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_duplicate_user),
		cmocka_unit_test(test_base64),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_auth_decisions),
		cmocka_unit_test(test_auth_budget),
		cmocka_unit_test(test_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
