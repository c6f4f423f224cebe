/* The web configuration of the daemons' /metrics and /status listener:
 * the file format of Prometheus' exporter-toolkit
 * (https://github.com/prometheus/exporter-toolkit/blob/master/docs/web-configuration.md),
 * the part cpha implements:
 *
 *   tls_server_config:
 *     cert_file: server.pem     # relative paths: from the file's folder
 *     key_file: server-key.pem
 *   basic_auth_users:
 *     prometheus: $2y$10$...    # bcrypt, as htpasswd -B writes it
 *
 * Block-style YAML only (two keys, one level of `key: value` below each,
 * plain or quoted scalars, comments). Every other key of exporter-toolkit
 * (client_auth_type, http_server_config, rate_limit...) is an error that
 * names it: a file meant to restrict access never loads with part of it
 * ignored. An empty file is valid: plain HTTP, no authentication.
 *
 * Passwords are checked with crypt(3) (libxcrypt: $2a$, $2b$, $2y$) and
 * compared in constant time; an unknown user costs the same bcrypt as a
 * known one. A credential that passed is remembered (as a salted SHA-256)
 * so that a scrape every few seconds does not cost a bcrypt each time, and
 * at most CPHA_WEB_BCRYPT_BURST checks of new credentials run per second:
 * the daemons' loop is never held by a client guessing passwords. */
#ifndef CPHA_WEBCFG_H
#define CPHA_WEBCFG_H

#include <stddef.h>
#include <stdint.h>

#define CPHA_WEB_CACHE        16  /* credentials remembered after they passed */
#define CPHA_WEB_BCRYPT_BURST 2   /* bcrypt checks of new credentials a second (~0.1 s each, cost 10) */
#define CPHA_WEB_CRED_MAX     512 /* longest "user:password" taken */

struct cpha_web_user {
	char *name;
	char *hash; /* bcrypt, 60 characters */
};

struct cpha_webcfg {
	unsigned refs;
	char *file;                  /* as given */
	struct cpha_web_user *users; /* basic_auth_users; none: no authentication */
	size_t nusers;
	char *cert_file, *key_file; /* tls_server_config, resolved; NULL: plain HTTP */
	void *ssl_ctx;              /* SSL_CTX *, built by cpha_webcfg_load() when TLS */

	/* the authentication's own state (one thread: the daemon's loop) */
	unsigned char salt[16];
	unsigned char cache[CPHA_WEB_CACHE][32];
	unsigned ncache, cache_next;
	uint64_t budget_sec; /* second the budget below counts in */
	unsigned budget_used;
};

/* What an Authorization header is worth. */
enum cpha_web_auth {
	CPHA_WEB_AUTH_OK,        /* no users configured, or a right user:password */
	CPHA_WEB_AUTH_MISSING,   /* users configured and no Authorization header */
	CPHA_WEB_AUTH_MALFORMED, /* not "Basic <base64 of user:password>" */
	CPHA_WEB_AUTH_DENIED,    /* unknown user or wrong password */
	CPHA_WEB_AUTH_BUSY,      /* the bcrypt budget of this second is spent: retry */
};

/* Parse text (len bytes) read from file (file only names errors and
 * resolves relative paths). Returns 0 with *out set (one reference), or
 * -EINVAL with "file:line: what is wrong" in err, or -ENOMEM. Touches no
 * file: the certificate is not read. */
int cpha_webcfg_parse(const char *file, const char *text, size_t len, struct cpha_webcfg **out,
	char *err, size_t errlen);

/* Read and parse path. Returns 0 with *out set, or a negative errno with
 * the reason in err ("path:line: ..."). The certificate is not read: a
 * configuration check (-c, cpha render's checkers) may run where it is not
 * installed. */
int cpha_webcfg_load(const char *path, struct cpha_webcfg **out, char *err, size_t errlen);

/* When w names a certificate, load it and its key into a TLS server
 * context (TLS 1.2 and up) once: what a daemon does before it runs a
 * configuration (start, reload), refusing it on failure. Returns 0 (also
 * for no TLS), or a negative errno with "cert_file PATH: ..." in err. */
int cpha_webcfg_tls(struct cpha_webcfg *w, char *err, size_t errlen);

/* The same for a file named in the configuration file cfgfile: a relative
 * path is taken from cfgfile's folder (the daemons' metrics-web-config). */
int cpha_webcfg_load_beside(const char *cfgfile, const char *path, struct cpha_webcfg **out,
	char *err, size_t errlen);

struct cpha_webcfg *cpha_webcfg_ref(struct cpha_webcfg *w);

/* Drop a reference; the last frees. NULL allowed. */
void cpha_webcfg_unref(struct cpha_webcfg *w);

/* Decide on the value of a request's Authorization header (NULL: none was
 * sent) at now_usec (CLOCK_MONOTONIC; it only paces the bcrypt budget). */
enum cpha_web_auth cpha_webcfg_auth(
	struct cpha_webcfg *w, const char *authorization, uint64_t now_usec);

/* The value of header name (case-insensitive) in an HTTP request head
 * (request line, headers, blank line), leading and trailing blanks cut,
 * copied to out. Returns its length, -ENOENT when absent, -E2BIG when it
 * does not fit out, -EINVAL when it appears twice. */
int cpha_http_header(const char *head, const char *name, char *out, size_t outlen);

/* Strict base64 (RFC 4648 §4, padding required, no blanks) of in into out
 * (a NUL is added). Returns the decoded length, or -EINVAL / -E2BIG. */
int cpha_base64_decode(const char *in, size_t inlen, unsigned char *out, size_t outlen);

#endif
