/* HTTPS and TCP probes. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "addr.h"
#include "ocf_probe.h"

struct body {
	char *buf;
	size_t len, cap;
};

static size_t on_body(char *data, size_t size, size_t nmemb, void *userdata)
{
	struct body *b = userdata;
	size_t n = size * nmemb, room = b->cap - 1 - b->len;

	if (room) {
		memcpy(b->buf + b->len, data, n < room ? n : room);
		b->len += n < room ? n : room;
		b->buf[b->len] = '\0';
	}
	return n; /* the rest is read and dropped */
}

int ocf_curl_perform(const struct ocf_curl_req *q, long *status, char *error, size_t errlen)
{
	static bool inited;
	char errbuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *rl = NULL, *hdr = NULL;
	long ms = (long)(q->timeout_usec / 1000 ? q->timeout_usec / 1000 : 1);
	CURLcode cc;
	CURL *h;
	int ret = 0;

	*status = 0;
	if (!inited) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
			snprintf(error, errlen, "libcurl initialisation failed");
			return -EIO;
		}
		inited = true;
	}
	h = curl_easy_init();
	if (!h) {
		snprintf(error, errlen, "out of memory");
		return -ENOMEM;
	}
	if (q->resolve) {
		rl = curl_slist_append(NULL, q->resolve);
		curl_easy_setopt(h, CURLOPT_RESOLVE, rl);
	}
	curl_easy_setopt(h, CURLOPT_URL, q->url);
	curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	if (q->http11)
		curl_easy_setopt(h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, ms);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, ms);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, q->on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, q->body);
	curl_easy_setopt(h, CURLOPT_USERAGENT, q->user_agent);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, q->verify ? 1L : 0L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, q->verify ? 2L : 0L);
	if (q->ca && *q->ca)
		curl_easy_setopt(h, CURLOPT_CAINFO, q->ca);
	if (q->cert && *q->cert) {
		curl_easy_setopt(h, CURLOPT_SSLCERT, q->cert);
		curl_easy_setopt(h, CURLOPT_SSLKEY, q->key && *q->key ? q->key : q->cert);
	}
	if (q->json) {
		hdr = curl_slist_append(NULL, "Content-Type: application/json");
		curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, q->json);
	}
	cc = curl_easy_perform(h);
	if (cc == CURLE_OK) {
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
	} else {
		snprintf(error, errlen, "%s", *errbuf ? errbuf : curl_easy_strerror(cc));
		ret = cc == CURLE_COULDNT_CONNECT      ? -ECONNREFUSED
		      : cc == CURLE_OPERATION_TIMEDOUT ? -ETIMEDOUT
						       : -EIO;
	}
	curl_easy_cleanup(h);
	curl_slist_free_all(rl);
	curl_slist_free_all(hdr);
	return ret;
}

int ocf_http_get(const struct ocf_http_req *r, struct ocf_http_res *res)
{
	struct body body = { .buf = res->body, .cap = sizeof(res->body) };
	char url[1024], resolve[512], host[300];
	bool v6 = strchr(r->address, ':') != NULL;
	struct ocf_curl_req q = {
		.url = url,
		.ca = r->ca,
		.cert = r->cert,
		.key = r->key,
		.verify = r->verify,
		.user_agent = "cpha-ocf/" CPHA_VERSION,
		.timeout_usec = r->timeout_usec,
		.on_body = on_body,
		.body = &body,
	};

	memset(res, 0, sizeof(*res));
	if (r->server_name && *r->server_name) {
		/* connect to the address, verify and ask for the name */
		snprintf(host, sizeof(host), "%s", r->server_name);
		snprintf(resolve, sizeof(resolve), "%s:%u:%s%s%s", r->server_name, r->port,
			v6 ? "[" : "", r->address, v6 ? "]" : "");
		q.resolve = resolve;
	} else {
		snprintf(host, sizeof(host), "%s%s%s", v6 ? "[" : "", r->address, v6 ? "]" : "");
	}
	snprintf(url, sizeof(url), "%s://%s:%u%s", r->scheme ? r->scheme : "https", host, r->port,
		r->path);
	return ocf_curl_perform(&q, &res->status, res->error, sizeof(res->error));
}

int ocf_tcp_probe(const char *hostport, uint64_t timeout_usec, const char **why)
{
	struct cpha_addr a;
	struct pollfd pfd;
	socklen_t elen = sizeof(int);
	int fd, r, err = 0;

	*why = NULL;
	if (cpha_parse_addr(hostport, CPHA_ADDR_PORT_REQUIRED, &a, why) < 0)
		return -EINVAL;
	fd = socket(cpha_addr_family(&a), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1)
		return -errno;
	if (connect(fd, (struct sockaddr *)&a.ss, a.len) == 0) {
		close(fd);
		return 0;
	}
	if (errno != EINPROGRESS) {
		r = -errno;
		close(fd);
		return r;
	}
	pfd.fd = fd;
	pfd.events = POLLOUT;
	do
		r = poll(&pfd, 1, (int)(timeout_usec / 1000 ? timeout_usec / 1000 : 1));
	while (r == -1 && errno == EINTR);
	if (r == 0) {
		close(fd);
		return -ETIMEDOUT;
	}
	if (r == -1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) == -1)
		err = errno;
	close(fd);
	return err ? -err : 0;
}
