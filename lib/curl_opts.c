/* The libcurl options every cpha HTTP(S) client shares. */
#include <stddef.h>

#include <curl/curl.h>

#include "curl_opts.h"

static bool set(const char *s)
{
	return s && *s;
}

void cpha_curl_client_opts(CURL *h, const char *agent, char *errbuf, const struct cpha_curl_tls *t)
{
	curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_USERAGENT, agent);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, t->verify ? 1L : 0L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, t->verify ? 2L : 0L);
	if (set(t->ca))
		curl_easy_setopt(h, CURLOPT_CAINFO, t->ca);
	if (set(t->cert)) {
		curl_easy_setopt(h, CURLOPT_SSLCERT, t->cert);
		curl_easy_setopt(h, CURLOPT_SSLKEY, set(t->key) ? t->key : t->cert);
	}
}
