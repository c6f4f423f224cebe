/* Health probes of a monitor: HTTPS GET through libcurl (client
 * certificate optional, CA optional, verification on or off) and a plain
 * TCP connect. */
#ifndef CPHA_OCF_PROBE_H
#define CPHA_OCF_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ocf_http_req {
	const char *scheme;  /* "https" (default) or "http" */
	const char *address; /* where to connect: "127.0.0.1", "::1" */
	unsigned port;
	const char *path;        /* "/readyz" */
	const char *server_name; /* name verified in the certificate (and sent as
				  * SNI and Host); NULL: the address itself */
	const char *ca;          /* CA file; NULL: the system's store */
	const char *cert;        /* client certificate, or NULL */
	const char *key;         /* its key (NULL: in cert) */
	bool verify;             /* verify the server's certificate and name */
	uint64_t timeout_usec;   /* whole request, connect included */
};

struct ocf_http_res {
	long status;     /* HTTP status, 0 when there was no answer */
	char body[1024]; /* start of the body, NUL-terminated */
	char error[256]; /* transport error (connect refused, TLS, timeout) */
};

/* One HTTP(S) request through libcurl, the agents' only client: no proxy,
 * no redirects, no signals, http and https only. */
struct ocf_curl_req {
	const char *url;
	const char *resolve; /* "NAME:PORT:ADDRESS" (CURLOPT_RESOLVE), or NULL */
	const char *ca;      /* CA file; NULL or "": the system's store */
	const char *cert;    /* client certificate, or NULL */
	const char *key;     /* its key (NULL or "": in cert) */
	bool verify;         /* verify the server's certificate and name */
	bool http11;         /* HTTP/1.1 only */
	const char *json;    /* POST this as application/json; NULL: GET */
	const char *user_agent;
	uint64_t timeout_usec; /* whole request, connect included */
	/* the body as it comes (libcurl's write callback) */
	size_t (*on_body)(char *data, size_t size, size_t nmemb, void *userdata);
	void *body;
};

/* Perform q once: 0 when an HTTP answer came (*status, any), else
 * -ECONNREFUSED, -ETIMEDOUT, -ENOMEM or -EIO with error saying what. */
int ocf_curl_perform(const struct ocf_curl_req *q, long *status, char *error, size_t errlen);

/* GET once. Returns 0 when an HTTP answer came (any status), -ECONNREFUSED,
 * -ETIMEDOUT or -EIO (res->error says what) otherwise. */
int ocf_http_get(const struct ocf_http_req *r, struct ocf_http_res *res);

/* TCP connect to "host:port" ("[v6]:port"), then close. Returns 0 or -errno
 * (-ETIMEDOUT, -ECONNREFUSED, -EINVAL for a bad address with *why). */
int ocf_tcp_probe(const char *hostport, uint64_t timeout_usec, const char **why);

#endif
