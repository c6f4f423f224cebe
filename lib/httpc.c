/* libcurl, easy interface: one handle per request, for the programs that
 * make blocking HTTP(S) calls (the etcd agent's etcd_api.c, cpha status). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <curl/curl.h>

#include "curl_opts.h"
#include "httpc.h"

static size_t on_body(char *data, size_t size, size_t nmemb, void *userdata)
{
	struct cpha_buf *b = userdata;
	size_t n = size * nmemb;

	if (b->len + n > CPHA_HTTP_BODY_MAX || cpha_buf_append(b, data, n) < 0)
		return 0; /* too big: abort the transfer */
	return n;
}

int cpha_http_call(const struct cpha_http_tls *t, const char *url, const char *json,
	uint64_t timeout_usec, struct cpha_http_res *res)
{
	static bool inited;
	long ms = (long)(timeout_usec / 1000 ? timeout_usec / 1000 : 1);
	char errbuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *hdr = NULL;
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
	curl_easy_setopt(h, CURLOPT_URL, url);
	/* etcd's JSON gateway and its peer /version are HTTP/1.1 handlers; the
	 * peer listener breaks HTTP/2 streams */
	curl_easy_setopt(h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, ms);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, ms);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &res->body);
	cpha_curl_client_opts(h, "cpha/" CPHA_VERSION, errbuf,
		&(const struct cpha_curl_tls){ .ca = t ? t->ca : NULL,
			.cert = t ? t->cert : NULL,
			.key = t ? t->key : NULL,
			.verify = true });
	if (t && t->userpwd && *t->userpwd) {
		curl_easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(h, CURLOPT_USERPWD, t->userpwd);
	}
	if (json) {
		hdr = curl_slist_append(NULL, "Content-Type: application/json");
		curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, json);
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
	return ret;
}
