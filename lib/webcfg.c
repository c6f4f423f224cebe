#include <crypt.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>

#include "webcfg.h"

#define WEBCFG_FILE_MAX (64 * 1024) /* a web configuration longer than this is refused */

enum section { SEC_NONE, SEC_TLS, SEC_USERS };

struct parse {
	const char *file;
	char *err;
	size_t errlen;
	unsigned line;
	struct cpha_webcfg *w;
};

__attribute__((format(printf, 2, 3))) static int perr(struct parse *p, const char *fmt, ...)
{
	char msg[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(p->err, p->errlen, "%s:%u: %s", p->file, p->line, msg);
	return -EINVAL;
}

/* exporter-toolkit keys cpha does not implement: named, never ignored */
static const char *const unsupported_top[] = { "http_server_config", "rate_limit", NULL };
static const char *const unsupported_tls[] = { "cert", "key", "client_auth_type", "client_ca_file",
	"client_ca", "client_allowed_sans", "min_version", "max_version", "cipher_suites",
	"prefer_server_cipher_suites", "curve_preferences", NULL };

static bool in_list(const char *const *l, const char *s)
{
	for (; *l; l++)
		if (strcmp(*l, s) == 0)
			return true;
	return false;
}

/* One scalar starting at *s: 'single' ('' is a quote), "double" (\" and \\
 * only) or plain. A key ends at ": " or ":" at the end; a value at the end
 * of the line. The result is written into out (outlen bytes). */
static int scalar(struct parse *p, const char **s, bool key, char *out, size_t outlen)
{
	const char *c = *s;
	size_t n = 0;
	char q = 0;

	if (*c == '\'' || *c == '"')
		q = *c++;
	for (;; c++) {
		char ch = *c;

		if (q) {
			if (!ch)
				return perr(p, "unterminated %s quote",
					q == '\'' ? "single" : "double");
			if (ch == q && q == '\'' && c[1] == '\'') {
				c++;
			} else if (ch == q) {
				c++;
				break;
			} else if (ch == '\\' && q == '"') {
				if (c[1] != '"' && c[1] != '\\')
					return perr(p, "only \\\" and \\\\ are understood in "
						       "double quotes");
				ch = *++c;
			}
		} else {
			if (!ch || (key && ch == ':' && (c[1] == ' ' || !c[1])))
				break;
			if (n == 0 && strchr("[]{}&*!|>%@`", ch))
				return perr(p,
					"'%c': only block-style YAML (key: value) is "
					"understood here",
					ch);
		}
		if (n + 1 >= outlen)
			return perr(p, "a value longer than %zu bytes", outlen - 1);
		out[n++] = ch;
	}
	out[n] = '\0';
	*s = c;
	return 0;
}

static bool bcrypt_hash(const char *h)
{
	static const char b64[] =
		"./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	size_t i;

	if (strlen(h) != 60 || h[0] != '$' || h[1] != '2' || !strchr("aby", h[2]) || !h[2] ||
		h[3] != '$' || h[4] < '0' || h[4] > '3' || h[5] < '0' || h[5] > '9' || h[6] != '$')
		return false;
	if ((h[4] - '0') * 10 + (h[5] - '0') < 4 || (h[4] - '0') * 10 + (h[5] - '0') > 31)
		return false;
	for (i = 7; i < 60; i++)
		if (!strchr(b64, h[i]) || !h[i])
			return false;
	return true;
}

/* A path from the file: absolute, or relative to the file's folder. */
static char *resolve(const char *file, const char *path)
{
	const char *slash = strrchr(file, '/');
	size_t dlen = slash ? (size_t)(slash - file) + 1 : 0;
	char *out;

	if (path[0] == '/' || !dlen)
		return strdup(path);
	out = malloc(dlen + strlen(path) + 1);
	if (out) {
		memcpy(out, file, dlen);
		strcpy(out + dlen, path);
	}
	return out;
}

static int child(
	struct parse *p, enum section sec, const char *k, const char *v, unsigned *tls_seen)
{
	struct cpha_webcfg *w = p->w;
	struct cpha_web_user *u;
	char **slot;

	if (sec == SEC_TLS) {
		if (strcmp(k, "cert_file") && strcmp(k, "key_file")) {
			if (in_list(unsupported_tls, k))
				return perr(p,
					"tls_server_config: '%s' is not supported by cpha "
					"(cert_file and key_file are)",
					k);
			return perr(p, "tls_server_config: unknown key '%s'", k);
		}
		slot = k[0] == 'c' ? &w->cert_file : &w->key_file;
		if (*slot)
			return perr(p, "tls_server_config: '%s' is given twice", k);
		if (!*v)
			return perr(p, "tls_server_config: '%s' needs a file name", k);
		*slot = resolve(p->file, v);
		*tls_seen |= k[0] == 'c' ? 1 : 2;
		return *slot ? 0 : -ENOMEM;
	}
	for (size_t i = 0; i < w->nusers; i++)
		if (strcmp(w->users[i].name, k) == 0)
			return perr(p, "basic_auth_users: user '%s' is given twice", k);
	if (!*k || strchr(k, ':'))
		return perr(p, "basic_auth_users: '%s' is no user name (empty, or with ':')", k);
	if (!bcrypt_hash(v))
		return perr(p,
			"basic_auth_users: user '%s': the password must be a bcrypt hash "
			"($2a$, $2b$ or $2y$, 60 characters; htpasswd -nbB writes one)",
			k);
	u = realloc(w->users, (w->nusers + 1) * sizeof(*u));
	if (!u)
		return -ENOMEM;
	w->users = u;
	u[w->nusers].name = strdup(k);
	u[w->nusers].hash = strdup(v);
	w->nusers++;
	return u[w->nusers - 1].name && u[w->nusers - 1].hash ? 0 : -ENOMEM;
}

/* Cut a comment: '#' at the start or after a blank, outside quotes. */
static void cut_comment(char *s)
{
	char q = 0;

	for (char *c = s; *c; c++) {
		if (q) {
			if (*c == q)
				q = 0;
			else if (*c == '\\' && q == '"' && c[1])
				c++;
		} else if ((*c == '\'' || *c == '"') && (c == s || c[-1] == ' ' || c[-1] == ':')) {
			q = *c;
		} else if (*c == '#' && (c == s || c[-1] == ' ')) {
			*c = '\0';
			return;
		}
	}
}

static int parse_lines(struct parse *p, char *text)
{
	enum section sec = SEC_NONE;
	unsigned indent = 0, tls_seen = 0, tls_line = 0, seen_top = 0;
	char k[256], v[512], *line, *next;
	int r;

	for (line = text; line; line = next) {
		const char *s;
		size_t len, ind;

		p->line++;
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		len = strlen(line);
		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
		ind = strspn(line, " ");
		if (line[ind] == '\t')
			return perr(p, "a tab in the indentation (YAML indents with spaces)");
		cut_comment(line);
		len = strlen(line);
		while (len && (line[len - 1] == ' ' || line[len - 1] == '\t'))
			line[--len] = '\0';
		if (len == ind)
			continue;
		if (strcmp(line, "---") == 0 && !seen_top)
			continue;
		s = line + ind;
		r = scalar(p, &s, true, k, sizeof(k));
		if (r < 0)
			return r;
		if (*s != ':')
			return perr(p, "'%s': expected 'key: value'", line + ind);
		s++;
		s += strspn(s, " ");
		r = scalar(p, &s, false, v, sizeof(v));
		if (r < 0)
			return r;
		if (*s)
			return perr(p, "'%s': unexpected text after the value", s);
		if (ind == 0) {
			unsigned bit = strcmp(k, "tls_server_config") == 0  ? 1
				       : strcmp(k, "basic_auth_users") == 0 ? 2
									    : 0;
			if (!bit && in_list(unsupported_top, k))
				return perr(p,
					"'%s' is not supported by cpha (tls_server_config "
					"and basic_auth_users are)",
					k);
			if (!bit)
				return perr(p, "unknown key '%s'", k);
			if (seen_top & bit)
				return perr(p, "'%s' is given twice", k);
			if (*v && strcmp(v, "~") && strcmp(v, "null"))
				return perr(p,
					"'%s' holds a mapping on the lines below it, not '%s'", k,
					v);
			seen_top |= bit;
			sec = bit == 1 ? SEC_TLS : SEC_USERS;
			indent = 0;
			if (sec == SEC_TLS)
				tls_line = p->line;
			continue;
		}
		if (sec == SEC_NONE)
			return perr(p, "an indented line outside tls_server_config and "
				       "basic_auth_users");
		if (!indent)
			indent = (unsigned)ind;
		if (ind != indent)
			return perr(p,
				"indented by %zu spaces where the lines above have %u "
				"(nested values are not understood here)",
				ind, indent);
		r = child(p, sec, k, v, &tls_seen);
		if (r < 0)
			return r;
	}
	if ((seen_top & 1) && tls_seen != 3) {
		p->line = tls_line;
		return perr(p, "tls_server_config needs both cert_file and key_file");
	}
	return 0;
}

int cpha_webcfg_parse(const char *file, const char *text, size_t len, struct cpha_webcfg **out,
	char *err, size_t errlen)
{
	struct parse p = { .file = file, .err = err, .errlen = errlen };
	char *copy;
	int r;

	*out = NULL;
	if (memchr(text, '\0', len)) {
		snprintf(err, errlen, "%s: a NUL byte: not a text file", file);
		return -EINVAL;
	}
	p.w = calloc(1, sizeof(*p.w));
	copy = malloc(len + 1);
	if (!p.w || !copy) {
		free(copy);
		free(p.w);
		snprintf(err, errlen, "%s: out of memory", file);
		return -ENOMEM;
	}
	p.w->refs = 1;
	p.w->file = strdup(file);
	memcpy(copy, text, len);
	copy[len] = '\0';
	r = p.w->file ? parse_lines(&p, copy) : -ENOMEM;
	free(copy);
	if (r == 0 && RAND_bytes(p.w->salt, sizeof(p.w->salt)) != 1)
		r = -EIO;
	if (r < 0) {
		if (r != -EINVAL)
			snprintf(err, errlen, "%s: %s", file, strerror(-r));
		cpha_webcfg_unref(p.w);
		return r;
	}
	*out = p.w;
	return 0;
}

static int ssl_err(char *err, size_t errlen, const char *what, const char *path)
{
	char e[256] = "";
	unsigned long code = ERR_peek_last_error();

	if (code)
		ERR_error_string_n(code, e, sizeof(e));
	ERR_clear_error();
	snprintf(err, errlen, "%s %s: %s", what, path, *e ? e : "rejected");
	return -EINVAL;
}

int cpha_webcfg_tls(struct cpha_webcfg *w, char *err, size_t errlen)
{
	SSL_CTX *ctx;

	if (!w || !w->cert_file || w->ssl_ctx)
		return 0;
	ctx = SSL_CTX_new(TLS_server_method());
	if (!ctx) {
		snprintf(err, errlen, "%s: cannot make a TLS context", w->file);
		return -ENOMEM;
	}
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE);
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
	if (SSL_CTX_use_certificate_chain_file(ctx, w->cert_file) != 1 ||
		SSL_CTX_use_PrivateKey_file(ctx, w->key_file, SSL_FILETYPE_PEM) != 1 ||
		SSL_CTX_check_private_key(ctx) != 1) {
		bool cert = !SSL_CTX_get0_certificate(ctx);

		SSL_CTX_free(ctx);
		return ssl_err(err, errlen, cert ? "cert_file" : "key_file",
			cert ? w->cert_file : w->key_file);
	}
	w->ssl_ctx = ctx;
	return 0;
}

int cpha_webcfg_load(const char *path, struct cpha_webcfg **out, char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	ssize_t n;
	int fd, r;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd == -1) {
		r = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-r));
		return r;
	}
	text = malloc(WEBCFG_FILE_MAX + 1);
	if (!text) {
		close(fd);
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	while ((n = read(fd, text + len, WEBCFG_FILE_MAX + 1 - len)) > 0)
		len += (size_t)n;
	r = n == -1 ? -errno : 0;
	close(fd);
	if (r == 0 && len > WEBCFG_FILE_MAX) {
		snprintf(err, errlen, "%s: longer than %d bytes", path, WEBCFG_FILE_MAX);
		r = -EFBIG;
	} else if (r < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(-r));
	}
	if (r == 0)
		r = cpha_webcfg_parse(path, text, len, out, err, errlen);
	free(text);
	return r;
}

int cpha_webcfg_load_beside(const char *cfgfile, const char *path, struct cpha_webcfg **out,
	char *err, size_t errlen)
{
	char *p = resolve(cfgfile, path);
	int r;

	*out = NULL;
	if (!p) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	r = cpha_webcfg_load(p, out, err, errlen);
	free(p);
	return r;
}

struct cpha_webcfg *cpha_webcfg_ref(struct cpha_webcfg *w)
{
	if (w)
		w->refs++;
	return w;
}

void cpha_webcfg_unref(struct cpha_webcfg *w)
{
	if (!w || --w->refs)
		return;
	for (size_t i = 0; i < w->nusers; i++) {
		free(w->users[i].name);
		free(w->users[i].hash);
	}
	free(w->users);
	free(w->cert_file);
	free(w->key_file);
	free(w->file);
	SSL_CTX_free(w->ssl_ctx);
	OPENSSL_cleanse(w, sizeof(*w));
	free(w);
}

int cpha_base64_decode(const char *in, size_t inlen, unsigned char *out, size_t outlen)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i, n = 0, pad = 0;

	if (inlen % 4)
		return -EINVAL;
	if (inlen && in[inlen - 1] == '=')
		pad = inlen >= 2 && in[inlen - 2] == '=' ? 2 : 1;
	if (inlen / 4 * 3 - pad + 1 > outlen)
		return -E2BIG;
	for (i = 0; i < inlen; i += 4) {
		unsigned v = 0, k;

		for (k = 0; k < 4; k++) {
			const char *c = in[i + k] ? strchr(tab, in[i + k]) : NULL;

			if (in[i + k] == '=' && i + 4 == inlen && k >= 4 - pad) {
				v <<= 6;
				continue;
			}
			if (!c)
				return -EINVAL;
			v = v << 6 | (unsigned)(c - tab);
		}
		/* RFC 4648 §3.5: the bits under the padding are zero */
		if ((pad == 1 && i + 4 == inlen && (v & 0xff)) ||
			(pad == 2 && i + 4 == inlen && (v & 0xffff)))
			return -EINVAL;
		out[n++] = (unsigned char)(v >> 16);
		if (!(i + 4 == inlen && pad == 2))
			out[n++] = (unsigned char)(v >> 8);
		if (!(i + 4 == inlen && pad))
			out[n++] = (unsigned char)v;
	}
	out[n] = '\0';
	return (int)n;
}

int cpha_http_header(const char *head, const char *name, char *out, size_t outlen)
{
	size_t nlen = strlen(name);
	const char *line = strchr(head, '\n'), *v, *end;
	int found = -ENOENT;

	while (line && *++line && *line != '\r' && *line != '\n') {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		if (strncasecmp(line, name, nlen) == 0 && line[nlen] == ':') {
			size_t len;

			if (found != -ENOENT)
				return -EINVAL;
			v = line + nlen + 1;
			v += strspn(v, " \t");
			len = (size_t)(end - v);
			while (len && strchr(" \t\r", v[len - 1]))
				len--;
			if (len + 1 > outlen)
				return -E2BIG;
			memcpy(out, v, len);
			out[len] = '\0';
			found = (int)len;
		}
		line = *end ? end : NULL;
	}
	return found;
}

static void cache_key(
	const struct cpha_webcfg *w, const unsigned char *cred, size_t len, unsigned char key[32])
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	unsigned int n = 32;

	memset(key, 0, 32);
	if (!md)
		return;
	if (EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1 ||
		EVP_DigestUpdate(md, w->salt, sizeof(w->salt)) != 1 ||
		EVP_DigestUpdate(md, cred, len) != 1 || EVP_DigestFinal_ex(md, key, &n) != 1)
		memset(key, 0, 32);
	EVP_MD_CTX_free(md);
}

enum cpha_web_auth cpha_webcfg_auth(
	struct cpha_webcfg *w, const char *authorization, uint64_t now_usec)
{
	unsigned char cred[CPHA_WEB_CRED_MAX + 1], key[32];
	const struct cpha_web_user *u = NULL;
	enum cpha_web_auth res = CPHA_WEB_AUTH_DENIED;
	struct crypt_data *cd;
	const char *p, *got;
	char *colon;
	int n;

	if (!w || !w->nusers)
		return CPHA_WEB_AUTH_OK;
	if (!authorization)
		return CPHA_WEB_AUTH_MISSING;
	/* RFC 7617 §2: the scheme is case-insensitive */
	if (strncasecmp(authorization, "Basic ", 6) != 0)
		return CPHA_WEB_AUTH_MALFORMED;
	p = authorization + 6;
	p += strspn(p, " ");
	n = cpha_base64_decode(p, strlen(p), cred, sizeof(cred));
	if (n < 0 || memchr(cred, '\0', (size_t)n) || !(colon = memchr(cred, ':', (size_t)n))) {
		OPENSSL_cleanse(cred, sizeof(cred));
		return CPHA_WEB_AUTH_MALFORMED;
	}
	cache_key(w, cred, (size_t)n, key);
	for (unsigned i = 0; i < w->ncache; i++)
		if (CRYPTO_memcmp(w->cache[i], key, 32) == 0) {
			OPENSSL_cleanse(cred, sizeof(cred));
			return CPHA_WEB_AUTH_OK;
		}
	if (now_usec / 1000000 != w->budget_sec) {
		w->budget_sec = now_usec / 1000000;
		w->budget_used = 0;
	}
	if (w->budget_used >= CPHA_WEB_BCRYPT_BURST) {
		OPENSSL_cleanse(cred, sizeof(cred));
		return CPHA_WEB_AUTH_BUSY;
	}
	w->budget_used++;
	*colon = '\0';
	for (size_t i = 0; i < w->nusers && !u; i++)
		if (strcmp(w->users[i].name, (const char *)cred) == 0)
			u = &w->users[i];
	cd = calloc(1, sizeof(*cd));
	if (cd) {
		/* an unknown user costs the same bcrypt, against the first hash */
		const char *hash = u ? u->hash : w->users[0].hash;

		got = crypt_r(colon + 1, hash, cd);
		if (u && got && strlen(got) == strlen(hash) &&
			CRYPTO_memcmp(got, hash, strlen(hash)) == 0)
			res = CPHA_WEB_AUTH_OK;
		OPENSSL_cleanse(cd, sizeof(*cd));
		free(cd);
	}
	OPENSSL_cleanse(cred, sizeof(cred));
	if (res == CPHA_WEB_AUTH_OK) {
		memcpy(w->cache[w->cache_next], key, 32);
		w->cache_next = (w->cache_next + 1) % CPHA_WEB_CACHE;
		if (w->ncache < CPHA_WEB_CACHE)
			w->ncache++;
	}
	return res;
}
