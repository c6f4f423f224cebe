/* Health probes of a monitor: HTTPS GET through libcurl (client
 * certificate optional, CA optional, verification on or off) and a plain
 * TCP connect. */
#ifndef CPHA_OCF_PROBE_H
#define CPHA_OCF_PROBE_H

#include <stdbool.h>
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

/* GET once. Returns 0 when an HTTP answer came (any status), -ECONNREFUSED,
 * -ETIMEDOUT or -EIO (res->error says what) otherwise. */
int ocf_http_get(const struct ocf_http_req *r, struct ocf_http_res *res);

/* TCP connect to "host:port" ("[v6]:port"), then close. Returns 0 or -errno
 * (-ETIMEDOUT, -ECONNREFUSED, -EINVAL for a bad address with *why). */
int ocf_tcp_probe(const char *hostport, uint64_t timeout_usec, const char **why);

#endif
