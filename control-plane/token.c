/* Bootstrap tokens: their form, lifetime, Secret and kubeconfig (no I/O).
 * https://kubernetes.io/docs/reference/access-authn-authz/bootstrap-tokens/ */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "token.h"

static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
#define NALPHA 36

int token_generate(char *out)
{
	unsigned char r[64];
	size_t n = 0, used = sizeof(r);

	while (n < TOKEN_LEN) {
		if (used == sizeof(r)) {
			if (RAND_bytes(r, sizeof(r)) != 1)
				return -1;
			used = 0;
		}
		/* 252 = 7 * 36: bytes above it are dropped, so every
		 * character is equally likely (no modulo bias) */
		if (r[used] >= 252) {
			used++;
			continue;
		}
		if (n == TOKEN_ID_LEN)
			out[n++] = '.';
		out[n++] = alphabet[r[used++] % NALPHA];
	}
	out[n] = 0;
	OPENSSL_cleanse(r, sizeof(r));
	return 0;
}

static bool token_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

bool token_valid(const char *s)
{
	if (!s || strlen(s) != TOKEN_LEN || s[TOKEN_ID_LEN] != '.')
		return false;
	for (size_t i = 0; i < TOKEN_LEN; i++)
		if (i != TOKEN_ID_LEN && !token_char(s[i]))
			return false;
	return true;
}

int token_parse_ttl(const char *s, long long *secs, const char **why)
{
	long long total = 0;
	const char *p = s;

	if (!s || !*s) {
		*why = "empty";
		return -1;
	}
	if (!strcmp(s, "0")) {
		*secs = 0;
		return 0;
	}
	while (*p) {
		long long v = 0, unit;

		if (*p < '0' || *p > '9') {
			*why = "want numbers with units h, m or s, as in 24h or 1h30m";
			return -1;
		}
		while (*p >= '0' && *p <= '9') {
			v = v * 10 + (*p++ - '0');
			if (v > 100LL * 365 * 24 * 3600) {
				*why = "longer than a hundred years";
				return -1;
			}
		}
		switch (*p) {
		case 'h':
			unit = 3600;
			break;
		case 'm':
			unit = 60;
			break;
		case 's':
			unit = 1;
			break;
		default:
			*why = *p ? "unknown unit (want h, m or s)"
				  : "a number without a unit (want h, m or s; 0 for no expiry)";
			return -1;
		}
		p++;
		total += v * unit;
		if (total > 100LL * 365 * 24 * 3600) {
			*why = "longer than a hundred years";
			return -1;
		}
	}
	*secs = total;
	return 0;
}

const char *token_rfc3339(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "?");
	return buf;
}

/* s as a double-quoted YAML scalar (YAML 1.2 §7.3.1 escapes). */
static int yaml_dq(struct cpha_buf *b, const char *s)
{
	int rc = cpha_buf_puts(b, "\"");

	for (const unsigned char *p = (const unsigned char *)s; *p && !rc; p++) {
		if (*p == '"' || *p == '\\')
			rc = cpha_buf_printf(b, "\\%c", *p);
		else if (*p < ' ' || *p == 0x7f)
			rc = cpha_buf_printf(b, "\\x%02x", *p);
		else
			rc = cpha_buf_append(b, p, 1);
	}
	return rc ? rc : cpha_buf_puts(b, "\"");
}

static int kv(struct cpha_buf *b, const char *indent, const char *key, const char *v)
{
	int rc = cpha_buf_printf(b, "%s%s: ", indent, key);

	if (!rc)
		rc = yaml_dq(b, v);
	return rc ? rc : cpha_buf_puts(b, "\n");
}

int token_secret_yaml(
	struct cpha_buf *b, const char *token, const char *description, time_t now, long long ttl)
{
	char id[TOKEN_ID_LEN + 1], name[32], when[32];
	int rc;

	if (!token_valid(token))
		return -EINVAL;
	memcpy(id, token, TOKEN_ID_LEN);
	id[TOKEN_ID_LEN] = 0;
	snprintf(name, sizeof(name), "bootstrap-token-%s", id);
	rc = cpha_buf_puts(b, "apiVersion: v1\nkind: Secret\nmetadata:\n");
	if (!rc)
		rc = kv(b, "  ", "name", name);
	if (!rc)
		rc = cpha_buf_puts(b, "  namespace: kube-system\n"
				      "type: bootstrap.kubernetes.io/token\n"
				      "stringData:\n");
	if (!rc && description)
		rc = kv(b, "  ", "description", description);
	if (!rc)
		rc = kv(b, "  ", "token-id", id);
	if (!rc)
		rc = kv(b, "  ", "token-secret", token + TOKEN_ID_LEN + 1);
	if (!rc && ttl > 0)
		rc = kv(b, "  ", "expiration",
			token_rfc3339(now + (time_t)ttl, when, sizeof(when)));
	if (!rc)
		rc = kv(b, "  ", "usage-bootstrap-authentication", "true");
	if (!rc)
		rc = kv(b, "  ", "usage-bootstrap-signing", "true");
	if (!rc)
		rc = kv(b, "  ", "auth-extra-groups", TOKEN_GROUP);
	return rc;
}

int token_kubeconfig(struct cpha_buf *b, const char *cluster, const char *server,
	const char *ca_pem, size_t ca_len, const char *token)
{
	char ctx[256];
	char *b64;
	int rc, n;

	if (!token_valid(token))
		return -EINVAL;
	b64 = malloc(4 * ((ca_len + 2) / 3) + 1);
	if (!b64)
		return -ENOMEM;
	n = EVP_EncodeBlock((unsigned char *)b64, (const unsigned char *)ca_pem, (int)ca_len);
	b64[n < 0 ? 0 : n] = 0;
	snprintf(ctx, sizeof(ctx), TOKEN_KUBECONFIG_USER "@%s", cluster);
	rc = cpha_buf_puts(b, "apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n");
	if (!rc)
		rc = cpha_buf_printf(b, "    certificate-authority-data: %s\n", b64);
	if (!rc)
		rc = kv(b, "    ", "server", server);
	if (!rc)
		rc = kv(b, "  ", "name", cluster);
	if (!rc)
		rc = cpha_buf_puts(b, "contexts:\n- context:\n");
	if (!rc)
		rc = kv(b, "    ", "cluster", cluster);
	if (!rc)
		rc = kv(b, "    ", "user", TOKEN_KUBECONFIG_USER);
	if (!rc)
		rc = kv(b, "  ", "name", ctx);
	if (!rc)
		rc = kv(b, "", "current-context", ctx);
	if (!rc)
		rc = cpha_buf_puts(
			b, "preferences: {}\nusers:\n- name: " TOKEN_KUBECONFIG_USER "\n  user:\n");
	if (!rc)
		rc = kv(b, "    ", "token", token);
	free(b64);
	return rc;
}

int token_ca_hash(X509 *ca, char *buf, size_t len)
{
	unsigned char *der = NULL, md[EVP_MAX_MD_SIZE];
	unsigned mdlen = 0;
	int n = i2d_PUBKEY(X509_get0_pubkey(ca), &der);
	size_t used;

	if (n <= 0 || len < 7 + 64 + 1)
		goto fail;
	if (EVP_Digest(der, (size_t)n, md, &mdlen, EVP_sha256(), NULL) != 1)
		goto fail;
	used = (size_t)snprintf(buf, len, "sha256:");
	for (unsigned i = 0; i < mdlen; i++)
		used += (size_t)snprintf(buf + used, len - used, "%02x", md[i]);
	OPENSSL_free(der);
	return 0;
fail:
	OPENSSL_free(der);
	return -1;
}
