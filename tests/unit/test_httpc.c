/* One blocking libcurl request (lib/httpc.c) against a one-connection HTTP
 * server on 127.0.0.1 run by a thread of the test. */
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "httpc.h"

struct server {
	int lfd;
	unsigned port;
	char url[64];      /* http://127.0.0.1:PORT/PATH */
	const char *reply; /* written once the request is in */
	char req[4096];    /* the request as it came */
	size_t len;
	pthread_t thread;
};

/* Whether req holds the headers and the body Content-Length announces. */
static int request_complete(const struct server *s)
{
	const char *end = strstr(s->req, "\r\n\r\n"), *cl;

	if (!end)
		return 0;
	cl = strcasestr(s->req, "Content-Length:");
	if (!cl || cl > end)
		return 1;
	return s->len >= (size_t)(end + 4 - s->req) + strtoul(cl + 15, NULL, 10);
}

static void *serve_one(void *arg)
{
	struct server *s = arg;
	int c = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC);
	ssize_t n;

	if (c == -1)
		return NULL;
	while (!request_complete(s) && s->len < sizeof(s->req) - 1 &&
		(n = read(c, s->req + s->len, sizeof(s->req) - 1 - s->len)) > 0) {
		s->len += (size_t)n;
		s->req[s->len] = '\0';
	}
	if (write(c, s->reply, strlen(s->reply)) < 0)
		perror("write");
	close(c);
	return NULL;
}

/* Listen on 127.0.0.1 and answer one connection with reply; s->url is
 * path there. */
static void server_start(struct server *s, const char *reply, const char *path)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);

	memset(s, 0, sizeof(*s));
	s->reply = reply;
	s->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(s->lfd >= 0);
	assert_int_equal(bind(s->lfd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(listen(s->lfd, 4), 0);
	assert_int_equal(getsockname(s->lfd, (struct sockaddr *)&sin, &len), 0);
	s->port = ntohs(sin.sin_port);
	snprintf(s->url, sizeof(s->url), "http://127.0.0.1:%u%s", s->port, path);
	assert_int_equal(pthread_create(&s->thread, NULL, serve_one, s), 0);
}

static void server_join(struct server *s)
{
	pthread_join(s->thread, NULL);
	close(s->lfd);
}

static const char hello[] = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n"
			    "Connection: close\r\n\r\nhello";

static void test_get(void **state)
{
	struct cpha_http_res res = { 0 };
	struct server s;

	(void)state;
	server_start(&s, hello, "/x");
	assert_int_equal(cpha_http_request(&(const struct cpha_http_req){ .url = s.url,
						   .agent = "t/1",
						   .http11 = true,
						   .timeout_usec = 5000000 },
				 &res),
		0);
	server_join(&s);
	assert_int_equal(res.status, 200);
	assert_string_equal(res.body.data, "hello");
	assert_string_equal(res.error, "");
	assert_true(strncmp(s.req, "GET /x HTTP/1.1\r\n", 17) == 0);
	assert_non_null(strstr(s.req, "\r\nUser-Agent: t/1\r\n"));
	cpha_buf_free(&res.body);
}

/* cpha_http_call: a POST of JSON with Basic authentication, HTTP/1.1 */
static void test_call_post(void **state)
{
	const struct cpha_http_tls t = { .userpwd = "u:p" };
	struct cpha_http_res res = { 0 };
	struct server s;

	(void)state;
	server_start(&s, "HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\n{}", "/v3/kv/range");
	assert_int_equal(cpha_http_call(&t, s.url, "{\"key\":\"a\"}", 5000000, &res), 0);
	server_join(&s);
	assert_int_equal(res.status, 404);
	assert_string_equal(res.body.data, "{}");
	assert_true(strncmp(s.req, "POST /v3/kv/range HTTP/1.1\r\n", 28) == 0);
	assert_non_null(strstr(s.req, "\r\nContent-Type: application/json\r\n"));
	assert_non_null(strstr(s.req, "\r\nAuthorization: Basic dTpw\r\n")); /* u:p */
	assert_non_null(strstr(s.req, "\r\n\r\n{\"key\":\"a\"}"));
	cpha_buf_free(&res.body);
}

/* resolve: the connection goes to the address, the request names the host */
static void test_resolve(void **state)
{
	struct cpha_http_res res = { 0 };
	struct server s;
	char url[64], resolve[64], host[64];

	(void)state;
	server_start(&s, hello, "/");
	snprintf(url, sizeof(url), "http://m1.cpha.test:%u/readyz", s.port);
	snprintf(resolve, sizeof(resolve), "m1.cpha.test:%u:127.0.0.1", s.port);
	snprintf(host, sizeof(host), "\r\nHost: m1.cpha.test:%u\r\n", s.port);
	assert_int_equal(cpha_http_request(&(const struct cpha_http_req){ .url = url,
						   .resolve = resolve,
						   .agent = "t/1",
						   .timeout_usec = 5000000 },
				 &res),
		0);
	server_join(&s);
	assert_int_equal(res.status, 200);
	assert_non_null(strstr(s.req, host));
	cpha_buf_free(&res.body);
}

/* An answer longer than body_max: cut with body_cut, else an error */
static void test_body_max(void **state)
{
	struct cpha_http_req q = { .agent = "t/1", .timeout_usec = 5000000, .body_max = 4 };
	struct cpha_http_res res = { 0 };
	struct server s;

	(void)state;
	server_start(&s, hello, "/");
	q.url = s.url;
	q.body_cut = true;
	assert_int_equal(cpha_http_request(&q, &res), 0);
	server_join(&s);
	assert_int_equal(res.status, 200);
	assert_string_equal(res.body.data, "hell");

	server_start(&s, hello, "/");
	q.url = s.url;
	q.body_cut = false;
	assert_int_equal(cpha_http_request(&q, &res), -EIO);
	server_join(&s);
	assert_int_equal(res.status, 0);
	assert_string_not_equal(res.error, "");
	cpha_buf_free(&res.body);
}

/* An empty answer is "", not NULL */
static void test_empty_body(void **state)
{
	struct cpha_http_res res = { 0 };
	struct server s;

	(void)state;
	server_start(&s, "HTTP/1.1 204 No Content\r\n\r\n", "/");
	assert_int_equal(cpha_http_call(NULL, s.url, NULL, 5000000, &res), 0);
	server_join(&s);
	assert_int_equal(res.status, 204);
	assert_non_null(res.body.data);
	assert_string_equal(res.body.data, "");
	cpha_buf_free(&res.body);
}

/* Nobody listening: -ECONNREFUSED and a reason */
static void test_refused(void **state)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);
	struct cpha_http_res res = { 0 };
	char url[64];
	int fd;

	(void)state;
	/* a port that was free a moment ago */
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	close(fd);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/", ntohs(sin.sin_port));
	assert_int_equal(cpha_http_call(NULL, url, NULL, 5000000, &res), -ECONNREFUSED);
	assert_int_equal(res.status, 0);
	assert_string_not_equal(res.error, "");
	cpha_buf_free(&res.body);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_get),
		cmocka_unit_test(test_call_post),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_body_max),
		cmocka_unit_test(test_empty_body),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
