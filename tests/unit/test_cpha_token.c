/* cpha token: the bootstrap token's form, lifetime, Secret and kubeconfig. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "pki.h"
#include "token.h"

static void test_generate(void **state)
{
	char t[TOKEN_LEN + 1], u[TOKEN_LEN + 1];
	unsigned seen[256] = { 0 };

	(void)state;
	for (int i = 0; i < 2000; i++) {
		assert_int_equal(token_generate(t), 0);
		assert_int_equal(strlen(t), TOKEN_LEN);
		assert_true(token_valid(t));
		for (size_t k = 0; k < TOKEN_LEN; k++)
			seen[(unsigned char)t[k]]++;
	}
	/* each of the 36 characters about as often as the others (44 000 draws,
	 * about 1222 each, standard deviation about 35), nothing else */
	for (unsigned c = 0; c < 256; c++) {
		bool want = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
		if (c == '.')
			assert_int_equal(seen[c], 2000);
		else if (want)
			assert_true(seen[c] > 1000 && seen[c] < 1450);
		else
			assert_int_equal(seen[c], 0);
	}
	assert_int_equal(token_generate(u), 0);
	assert_string_not_equal(t, u);
}

static void test_valid(void **state)
{
	(void)state;
	assert_true(token_valid("abcdef.0123456789abcdef"));
	assert_true(token_valid("07401b.f395accd246ae52d"));
	assert_false(token_valid(NULL));
	assert_false(token_valid(""));
	assert_false(token_valid("abcdef0123456789abcdef"));   /* no dot */
	assert_false(token_valid("abcde.0123456789abcdefg"));  /* id too short */
	assert_false(token_valid("abcdef.0123456789abcde"));   /* secret too short */
	assert_false(token_valid("abcdef.0123456789abcdef0")); /* too long */
	assert_false(token_valid("ABCDEF.0123456789abcdef"));  /* upper case */
	assert_false(token_valid("abcdef.0123456789abcde-"));
	assert_false(token_valid("abcdef:0123456789abcdef"));
}

static void test_ttl(void **state)
{
	const char *why = NULL;
	long long s = -1;

	(void)state;
	assert_int_equal(token_parse_ttl("24h", &s, &why), 0);
	assert_int_equal(s, 86400);
	assert_int_equal(token_parse_ttl("1h30m", &s, &why), 0);
	assert_int_equal(s, 5400);
	assert_int_equal(token_parse_ttl("24h0m0s", &s, &why), 0); /* as Go prints it */
	assert_int_equal(s, 86400);
	assert_int_equal(token_parse_ttl("90s", &s, &why), 0);
	assert_int_equal(s, 90);
	assert_int_equal(token_parse_ttl("0", &s, &why), 0);
	assert_int_equal(s, 0);
	assert_int_equal(token_parse_ttl("", &s, &why), -1);
	assert_int_equal(token_parse_ttl("24", &s, &why), -1);
	assert_non_null(strstr(why, "without a unit"));
	assert_int_equal(token_parse_ttl("1d", &s, &why), -1);
	assert_non_null(strstr(why, "unknown unit"));
	assert_int_equal(token_parse_ttl("h", &s, &why), -1);
	assert_int_equal(token_parse_ttl("-1h", &s, &why), -1);
	assert_int_equal(token_parse_ttl("1000000h", &s, &why), -1);
	assert_non_null(strstr(why, "hundred years"));
	assert_int_equal(token_parse_ttl("99999999999999999999s", &s, &why), -1);
}

static void test_rfc3339(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(token_rfc3339(0, buf, sizeof(buf)), "1970-01-01T00:00:00Z");
	assert_string_equal(token_rfc3339(1795975200, buf, sizeof(buf)), "2026-11-29T18:00:00Z");
}

static void test_secret(void **state)
{
	struct cpha_buf b = { 0 };

	(void)state;
	assert_int_equal(token_secret_yaml(&b, "07401b.f395accd246ae52d", "for \"w0\"\n",
				 1795975200 - 3600, 3600),
		0);
	assert_string_equal(b.data, "apiVersion: v1\n"
				    "kind: Secret\n"
				    "metadata:\n"
				    "  name: \"bootstrap-token-07401b\"\n"
				    "  namespace: kube-system\n"
				    "type: bootstrap.kubernetes.io/token\n"
				    "stringData:\n"
				    "  description: \"for \\\"w0\\\"\\x0a\"\n"
				    "  token-id: \"07401b\"\n"
				    "  token-secret: \"f395accd246ae52d\"\n"
				    "  expiration: \"2026-11-29T18:00:00Z\"\n"
				    "  usage-bootstrap-authentication: \"true\"\n"
				    "  usage-bootstrap-signing: \"true\"\n"
				    "  auth-extra-groups: "
				    "\"system:bootstrappers:cpha:default-node-token\"\n");
	cpha_buf_free(&b);

	/* no expiry, no description; a token of another form is refused */
	assert_int_equal(token_secret_yaml(&b, "123456.0123456789abcdef", NULL, 1000, 0), 0);
	assert_null(strstr(b.data, "expiration"));
	assert_null(strstr(b.data, "description"));
	/* an all-digit ID stays a string: quoted */
	assert_non_null(strstr(b.data, "  token-id: \"123456\"\n"));
	cpha_buf_free(&b);
	assert_int_equal(token_secret_yaml(&b, "bad", NULL, 1000, 0), -EINVAL);
	cpha_buf_free(&b);
}

static void test_kubeconfig_and_hash(void **state)
{
	const char *ca_pem;
	EVP_PKEY *k = pki_key_new();
	const char *why = NULL;
	struct cpha_buf b = { 0 };
	char hash[80];
	X509 *ca;
	BIO *bio;
	char *data;
	long len;

	(void)state;
	assert_non_null(k);
	ca = pki_issue_ca(NULL, "test-ca", k, 1795975200, 10, &why);
	assert_non_null(ca);
	bio = BIO_new(BIO_s_mem());
	assert_int_equal(PEM_write_bio_X509(bio, ca), 1);
	len = BIO_get_mem_data(bio, &data);
	ca_pem = data;
	assert_int_equal(token_kubeconfig(&b, "lab", "https://kubernetes:6443", ca_pem, (size_t)len,
				 "abcdef.0123456789abcdef"),
		0);
	assert_non_null(strstr(b.data, "    server: \"https://kubernetes:6443\"\n"));
	assert_non_null(strstr(b.data, "current-context: \"tls-bootstrap-token-user@lab\"\n"));
	assert_non_null(strstr(b.data, "    token: \"abcdef.0123456789abcdef\"\n"));
	/* the CA embedded: base64 of the PEM text, decoding back to it */
	{
		const char *p = strstr(b.data, "certificate-authority-data: ");
		unsigned char out[4096];
		const char *end;
		int n;

		assert_non_null(p);
		p += strlen("certificate-authority-data: ");
		end = strchr(p, '\n');
		n = EVP_DecodeBlock(out, (const unsigned char *)p, (int)(end - p));
		assert_true(n >= len && n <= len + 2); /* padding decodes to zeros */
		assert_memory_equal(out, ca_pem, (size_t)len);
	}
	cpha_buf_free(&b);
	assert_int_equal(
		token_kubeconfig(&b, "lab", "https://x:1", ca_pem, (size_t)len, "x"), -EINVAL);
	cpha_buf_free(&b);

	assert_int_equal(token_ca_hash(ca, hash, sizeof(hash)), 0);
	assert_int_equal(strlen(hash), 7 + 64);
	assert_int_equal(strncmp(hash, "sha256:", 7), 0);
	{
		/* the same digest made another way: the DER of the X509_PUBKEY */
		unsigned char *der = NULL, md[32];
		unsigned mdlen = 0;
		char want[80];
		int n = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(ca), &der);

		assert_true(n > 0);
		assert_int_equal(EVP_Digest(der, (size_t)n, md, &mdlen, EVP_sha256(), NULL), 1);
		snprintf(want, 8, "sha256:");
		for (unsigned i = 0; i < mdlen; i++)
			snprintf(want + 7 + 2 * i, 3, "%02x", md[i]);
		assert_string_equal(hash, want);
		OPENSSL_free(der);
	}
	assert_int_equal(token_ca_hash(ca, hash, 20), -1);
	BIO_free(bio);
	X509_free(ca);
	EVP_PKEY_free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generate),
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_ttl),
		cmocka_unit_test(test_rfc3339),
		cmocka_unit_test(test_secret),
		cmocka_unit_test(test_kubeconfig_and_hash),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
