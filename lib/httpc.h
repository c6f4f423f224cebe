/* HTTP(S) requests through libcurl with client certificates: etcd's v3
 * JSON gateway, the apiservers, the daemons' /status. One blocking call per
 * request. In the cphacurl library, so that only the programs that ask
 * link libcurl. */
#ifndef CPHA_HTTPC_H
#define CPHA_HTTPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "curl_opts.h"

#define CPHA_HTTP_BODY_MAX (4 * 1024 * 1024) /* longer answers are cut off: an error */

/* The certificates of a request; any may be NULL or "". */
struct cpha_http_tls {
	const char *ca;      /* CA file to verify the server with; NULL: the system's */
	const char *cert;    /* client certificate */
	const char *key;     /* its key; NULL: in cert */
	const char *userpwd; /* "user:password" for Basic authentication; NULL: none */
};

struct cpha_http_res {
	long status;          /* HTTP status; 0: no answer */
	struct cpha_buf body; /* the answer, NUL-terminated; the caller frees it */
	char error[256];      /* the transport error when there was no answer */
};

/* One easy request, as each caller wants it. */
struct cpha_http_req {
	const char *url;     /* http:// or https:// */
	const char *json;    /* POSTed as application/json; NULL: a GET */
	const char *resolve; /* "name:port:address" (CURLOPT_RESOLVE): connect
			      * there while asking for and verifying name;
			      * NULL: resolve the URL's host */
	const char *agent;   /* User-Agent */
	struct cpha_curl_tls tls;
	const char *userpwd;   /* "user:password" for Basic authentication; NULL: none */
	bool http11;           /* HTTP/1.1 only; false: libcurl's choice */
	bool connect_timeout;  /* the connection alone is also held to timeout_usec */
	uint64_t timeout_usec; /* the whole request */
	size_t body_max;       /* bytes of the answer kept; 0: CPHA_HTTP_BODY_MAX */
	bool body_cut;         /* a longer answer is cut to body_max and the rest
				* dropped; false: a longer answer is an error */
};

/* Make the request r. The body is reset first, kept across calls and
 * NUL-terminated ("" when empty) when an answer came. Returns 0 when an
 * HTTP answer came (any status), -ECONNREFUSED, -ETIMEDOUT, -ENOMEM or
 * -EIO (res->error says what) when none did. */
int cpha_http_request(const struct cpha_http_req *r, struct cpha_http_res *res);

/* One request to url (http or https, no redirects, no proxy, HTTP/1.1),
 * verifying the server's certificate and name: a POST of json with
 * Content-Type application/json when json is set, else a GET. The body is
 * reset first and kept across calls. Returns 0 when an HTTP answer came
 * (any status), -ECONNREFUSED, -ETIMEDOUT, -ENOMEM or -EIO (res->error says
 * what) when none did. */
int cpha_http_call(const struct cpha_http_tls *t, const char *url, const char *json,
	uint64_t timeout_usec, struct cpha_http_res *res);

#endif
