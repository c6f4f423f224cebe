/* What every cpha HTTP(S) client sets on a libcurl handle. In its own
 * library (cphacurl) so that daemons without HTTP clients do not link
 * libcurl. */
#ifndef CPHA_CURL_OPTS_H
#define CPHA_CURL_OPTS_H

#include <stdbool.h>

#include <curl/curl.h>

struct cpha_curl_tls {
	const char *ca;   /* CA file; NULL or "": the system's store */
	const char *cert; /* client certificate; NULL or "": none */
	const char *key;  /* its key; NULL or "": in cert */
	bool verify;      /* verify the server's certificate and name */
};

/* Set on h: no proxy (the environment's proxy is never for the control
 * plane), no signals, no redirects, http and https only, the user agent,
 * errbuf (CURL_ERROR_SIZE bytes) as the error buffer, and TLS: verification
 * as t says, its CA, client certificate and key. */
void cpha_curl_client_opts(CURL *h, const char *agent, char *errbuf, const struct cpha_curl_tls *t);

#endif
