/* libcurl, easy interface: one handle per request, for the programs that
 * make blocking HTTP(S) calls (the etcd agent's etcd_api.c, the OCF
 * agents' probes in ocf_probe.c, cpha status). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <curl/curl.h>

#include "curl_opts.h"
#include "httpc.h"

struct body_sink {
	struct cpha_buf *b;
	size_t max;
	bool cut;
};

static size_t on_body(char *data, size_t size, size_t nmemb, void *userdata)
{
	struct body_sink *s = userdata;
	size_t n = size * nmemb, keep = n;

	if (s->b->len + n > s->max) {
		if (!s->cut)
			return 0; /* too big: abort the transfer */
		keep = s->max - s->b->len;
	}
	if (keep && cpha_buf_append(s->b, data, keep) < 0)
		return 0;
	return n; /* with body_cut, the rest is read and dropped */
}

int cpha_http_request(const struct cpha_http_req *r, struct cpha_http_res *res)
{
	static bool inited;
	long ms = (long)(r->timeout_usec / 1000 ? r->timeout_usec / 1000 : 1);
	struct body_sink sink = { .b = &res->body,
		.max = r->body_max ? r->body_max : CPHA_HTTP_BODY_MAX,
		.cut = r->body_cut };
	char errbuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *hdr = NULL, *rl = NULL;
	CURLcode cc;
	CURL *h;
	int ret = 0;

	res->status = 0;
	res->error[0] = '\0';
	cpha_buf_reset(&res->body);
	if (!inited) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
			snprintf(res->error, sizeof(res->error), "libcurl initialisation failed");
			return -EIO;
		}
		inited = true;
	}
	h = curl_easy_init();
	if (!h) {
		snprintf(res->error, sizeof(res->error), "out of memory");
		return -ENOMEM;
	}
	if (r->resolve) {
		rl = curl_slist_append(NULL, r->resolve);
		if (!rl) {
			curl_easy_cleanup(h);
			snprintf(res->error, sizeof(res->error), "out of memory");
			return -ENOMEM;
		}
		curl_easy_setopt(h, CURLOPT_RESOLVE, rl);
	}
	curl_easy_setopt(h, CURLOPT_URL, r->url);
	if (r->http11)
		curl_easy_setopt(h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, ms);
	if (r->connect_timeout)
		curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, ms);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
	cpha_curl_client_opts(h, r->agent, errbuf, &r->tls);
	if (r->userpwd && *r->userpwd) {
		curl_easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(h, CURLOPT_USERPWD, r->userpwd);
	}
	if (r->json) {
		hdr = curl_slist_append(NULL, "Content-Type: application/json");
		curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, r->json);
	}
	cc = curl_easy_perform(h);
	if (cc == CURLE_OK) {
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &res->status);
		if (!res->body.data)
			cpha_buf_puts(&res->body, "");
	} else {
		snprintf(res->error, sizeof(res->error), "%s",
			*errbuf ? errbuf : curl_easy_strerror(cc));
		ret = cc == CURLE_COULDNT_CONNECT      ? -ECONNREFUSED
		      : cc == CURLE_OPERATION_TIMEDOUT ? -ETIMEDOUT
						       : -EIO;
	}
	curl_easy_cleanup(h);
	curl_slist_free_all(hdr);
	curl_slist_free_all(rl);
	return ret;
}

int cpha_http_call(const struct cpha_http_tls *t, const char *url, const char *json,
	uint64_t timeout_usec, struct cpha_http_res *res)
{
	const struct cpha_http_req r = {
		.url = url,
		.json = json,
		.agent = "cpha/" CPHA_VERSION,
		.tls = { .ca = t ? t->ca : NULL,
			.cert = t ? t->cert : NULL,
			.key = t ? t->key : NULL,
			.verify = true },
		.userpwd = t ? t->userpwd : NULL,
		/* etcd's JSON gateway and its peer /version are HTTP/1.1
		 * handlers; the peer listener breaks HTTP/2 streams */
		.http11 = true,
		.connect_timeout = true,
		.timeout_usec = timeout_usec,
	};

	return cpha_http_request(&r, res);
}
