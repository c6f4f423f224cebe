/* HTTP(S) health checks through libcurl's multi interface, driven by the
 * main sd-event loop through lib's curl_event.c. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <curl/curl.h>

#include "check-types.h"
#include "check_http.h"
#include "curl_event.h"
#include "log.h"

#define HTTP_BODY_MAX 16384 /* response bytes kept for "expect string" */

/* A transfer ended: judge the answer as HAProxy would and end the check. */
static void on_done(struct cpha_curl_xfer *x, CURLcode res)
{
	struct lbd_check *c = (struct lbd_check *)((char *)x - offsetof(struct lbd_check, xfer));
	const struct lbd_httpcheck *hc = &c->bcfg->http;
	char reason[320];
	long status = 0;
	bool ok;
	size_t i;

	if (res != CURLE_OK) {
		long oserr = 0;
		const char *layer = "Layer4 connection problem";

		curl_easy_getinfo(x->h, CURLINFO_OS_ERRNO, &oserr);
		if (res == CURLE_OPERATION_TIMEDOUT) {
			curl_off_t connected = 0;

			/* no TCP connection yet: HAProxy's "Layer4 timeout" */
			curl_easy_getinfo(x->h, CURLINFO_CONNECT_TIME_T, &connected);
			layer = connected ? "Layer7 timeout" : "Layer4 timeout";
		} else if (res == CURLE_SSL_CONNECT_ERROR ||
			   res == CURLE_PEER_FAILED_VERIFICATION || res == CURLE_SSL_CERTPROBLEM ||
			   res == CURLE_SSL_CIPHER || res == CURLE_SSL_CACERT_BADFILE)
			layer = "Layer6 invalid response: TLS error";
		else if (res != CURLE_COULDNT_CONNECT)
			layer = "Layer7 invalid response";
		snprintf(reason, sizeof(reason), "%s: %s", layer,
			oserr && res == CURLE_COULDNT_CONNECT ? strerror((int)oserr)
			: c->errbuf[0]                        ? c->errbuf
							      : curl_easy_strerror(res));
		c->done(c, false, reason);
		return;
	}
	curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &status);
	if (!hc->expect_set) {
		ok = status >= 200 && status < 400; /* HAProxy: 2xx and 3xx */
	} else if (hc->expect_is_status) {
		ok = false;
		for (i = 0; i < hc->nstatus; i++)
			if (status >= hc->status[i].lo && status <= hc->status[i].hi)
				ok = true;
	} else {
		ok = c->body && memmem(c->body, c->body_len, hc->expect_string,
					strlen(hc->expect_string)) != NULL;
	}
	if (hc->expect_set && hc->expect_negate)
		ok = !ok;
	if (ok)
		snprintf(reason, sizeof(reason), "Layer7 check passed: %ld", status);
	else if (!hc->expect_set || hc->expect_is_status)
		snprintf(reason, sizeof(reason), "Layer7 wrong status: %ld", status);
	else
		snprintf(reason, sizeof(reason), "Layer7 wrong content (status %ld)", status);
	c->done(c, ok, reason);
}

int check_http_init(struct lbd_runtime *rt)
{
	int r;

	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return -EIO;
	rt->http_checks = calloc(1, sizeof(*rt->http_checks));
	if (!rt->http_checks)
		return -ENOMEM;
	r = cpha_curl_multi_init(rt->http_checks, rt->e);
	if (r < 0) {
		free(rt->http_checks);
		rt->http_checks = NULL;
	}
	return r;
}

void check_http_shutdown(struct lbd_runtime *rt)
{
	if (rt->http_checks) {
		cpha_curl_multi_free(rt->http_checks);
		free(rt->http_checks);
		rt->http_checks = NULL;
	}
	curl_global_cleanup();
}

static size_t on_body(char *p, size_t size, size_t nmemb, void *userdata)
{
	struct lbd_check *c = userdata;
	size_t n = size * nmemb, keep = n;
	char *nb;

	if (c->body_len + keep > HTTP_BODY_MAX)
		keep = HTTP_BODY_MAX - c->body_len;
	if (keep) {
		nb = realloc(c->body, c->body_len + keep + 1);
		if (!nb)
			return 0;
		c->body = nb;
		memcpy(c->body + c->body_len, p, keep);
		c->body_len += keep;
		c->body[c->body_len] = '\0';
	}
	return n; /* the rest is read and dropped */
}

bool check_http_connected(const struct lbd_check *c)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	/* the socket libcurl made (on_sockopt): ESTABLISHED once the server
	 * answered the SYN, whatever TLS and HTTP still wait for */
	if (c->curl_fd < 0 || getsockopt(c->curl_fd, IPPROTO_TCP, TCP_INFO, &ti, &len) == -1)
		return false;
	return ti.tcpi_state == TCP_ESTABLISHED;
}

/* libcurl made the check's socket: remember it for check_http_connected */
static int on_sockopt(void *userdata, curl_socket_t fd, curlsocktype purpose)
{
	struct lbd_check *c = userdata;

	if (purpose == CURLSOCKTYPE_IPCXN)
		c->curl_fd = fd;
	return CURL_SOCKOPT_OK;
}

void check_http_abort(struct lbd_check *c)
{
	if (c->xfer.h) {
		cpha_curl_multi_remove(c->rt->http_checks, &c->xfer);
		curl_easy_cleanup(c->xfer.h);
		c->xfer.h = NULL;
	}
	curl_slist_free_all(c->hdrs);
	c->hdrs = NULL;
	free(c->body);
	c->body = NULL;
	c->body_len = 0;
}

int check_http_start(struct lbd_check *c)
{
	const struct lbd_httpcheck *hc = &c->bcfg->http;
	const struct lbd_server_opts *o = &c->srv->o;
	char host[CPHA_ADDR_STRLEN], hdr[512];
	struct cpha_addr a;
	bool tls = hc->connect_ssl || o->check_ssl;
	uint64_t left;
	CURL *e;
	size_t i;

	a = o->check_addr_set ? o->check_addr : c->srv->addr;
	if (hc->connect_port)
		cpha_addr_set_port(&a, hc->connect_port);
	else if (o->check_port)
		cpha_addr_set_port(&a, o->check_port);
	else if (cpha_addr_port(&a) == 0)
		cpha_addr_set_port(&a, cpha_addr_port(&c->srv->addr));
	cpha_addr_format(&a, host, sizeof(host));
	snprintf(c->url, sizeof(c->url), "%s://%s%s", tls ? "https" : "http", host,
		hc->uri ? hc->uri : "/");

	e = curl_easy_init();
	if (!e)
		return -ENOMEM;
	c->xfer.h = e;
	c->xfer.done = on_done;
	c->errbuf[0] = '\0';
	left = c->deadline > c->started ? c->deadline - c->started : 1000;
	curl_easy_setopt(e, CURLOPT_URL, c->url);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, c->errbuf);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_NOPROXY, "*"); /* never an http_proxy from the environment */
	curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(e, CURLOPT_FORBID_REUSE, 1L);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)((left + 999) / 1000));
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	c->curl_fd = -1;
	curl_easy_setopt(e, CURLOPT_SOCKOPTFUNCTION, on_sockopt);
	curl_easy_setopt(e, CURLOPT_SOCKOPTDATA, c);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, c);
	curl_easy_setopt(e, CURLOPT_USERAGENT, "lbd-check");
	if (hc->method && strcmp(hc->method, "HEAD") == 0)
		curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
	else if (hc->method && strcmp(hc->method, "GET") != 0)
		curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, hc->method);
	if (!hc->version || strcmp(hc->version, "HTTP/1.0") == 0)
		curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_0);
	else
		curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
	for (i = 0; i < hc->nhdrs; i++) {
		snprintf(hdr, sizeof(hdr), "%s: %s", hc->hdrs[i].name, hc->hdrs[i].value);
		c->hdrs = curl_slist_append(c->hdrs, hdr);
	}
	if (c->hdrs)
		curl_easy_setopt(e, CURLOPT_HTTPHEADER, c->hdrs);
	if (tls) {
		/* HAProxy checks the chain with verify required, not the name */
		curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
		if (o->verify == LBD_VERIFY_NONE) {
			curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
		} else {
			curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 1L);
			if (o->ca_file)
				curl_easy_setopt(e, CURLOPT_CAINFO, o->ca_file);
		}
		if (o->crt) {
			curl_easy_setopt(e, CURLOPT_SSLCERT, o->crt);
			curl_easy_setopt(e, CURLOPT_SSLKEY, o->crt);
		}
	}
	if (cpha_curl_multi_add(c->rt->http_checks, &c->xfer) < 0) {
		check_http_abort(c);
		return -EIO;
	}
	return 0;
}
