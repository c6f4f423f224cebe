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
#include "curl_opts.h"
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

int ocf_http_get(const struct ocf_http_req *r, struct ocf_http_res *res)
{
	static bool inited;
	struct body body = { .buf = res->body, .cap = sizeof(res->body) };
	char url[1024], resolve[512], host[300], errbuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *rl = NULL;
	const struct cpha_curl_tls tls = {
		.ca = r->ca, .cert = r->cert, .key = r->key, .verify = r->verify
	};
	bool v6 = strchr(r->address, ':') != NULL;
	CURLcode cc;
	CURL *h;
	int ret = 0;

	memset(res, 0, sizeof(*res));
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
	if (r->server_name && *r->server_name) {
		/* connect to the address, verify and ask for the name */
		snprintf(host, sizeof(host), "%s", r->server_name);
		snprintf(resolve, sizeof(resolve), "%s:%u:%s%s%s", r->server_name, r->port,
			v6 ? "[" : "", r->address, v6 ? "]" : "");
		rl = curl_slist_append(NULL, resolve);
		curl_easy_setopt(h, CURLOPT_RESOLVE, rl);
	} else {
		snprintf(host, sizeof(host), "%s%s%s", v6 ? "[" : "", r->address, v6 ? "]" : "");
	}
	snprintf(url, sizeof(url), "%s://%s:%u%s", r->scheme ? r->scheme : "https", host, r->port,
		r->path);
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(
		h, CURLOPT_TIMEOUT_MS, (long)(r->timeout_usec / 1000 ? r->timeout_usec / 1000 : 1));
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &body);
	cpha_curl_client_opts(h, "cpha-ocf/" CPHA_VERSION, errbuf, &tls);
	cc = curl_easy_perform(h);
	if (cc == CURLE_OK) {
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &res->status);
	} else {
		snprintf(res->error, sizeof(res->error), "%s",
			*errbuf ? errbuf : curl_easy_strerror(cc));
		ret = cc == CURLE_COULDNT_CONNECT      ? -ECONNREFUSED
		      : cc == CURLE_OPERATION_TIMEDOUT ? -ETIMEDOUT
						       : -EIO;
	}
	curl_easy_cleanup(h);
	curl_slist_free_all(rl);
	return ret;
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
