/* HTTPS and TCP probes. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "addr.h"
#include "httpc.h"
#include "ocf_probe.h"

int ocf_http_get(const struct ocf_http_req *r, struct ocf_http_res *res)
{
	char url[1024], resolve[512], host[300];
	struct cpha_http_res hr = { 0 };
	struct cpha_http_req q = {
		.url = url,
		.agent = "cpha-ocf/" CPHA_VERSION,
		.tls = { .ca = r->ca, .cert = r->cert, .key = r->key, .verify = r->verify },
		.timeout_usec = r->timeout_usec,
		.body_max = sizeof(res->body) - 1,
		.body_cut = true,
	};
	bool v6 = strchr(r->address, ':') != NULL;
	int ret;

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
	ret = cpha_http_request(&q, &hr);
	res->status = hr.status;
	if (hr.body.data)
		snprintf(res->body, sizeof(res->body), "%s", hr.body.data);
	snprintf(res->error, sizeof(res->error), "%s", hr.error);
	cpha_buf_free(&hr.body);
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
