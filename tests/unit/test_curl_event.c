/* libcurl's multi interface on sd-event (lib/curl_event.c): transfers run
 * on the loop against a one-shot HTTP server on 127.0.0.1 served by the
 * same loop. */
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <curl/curl.h>
#include <systemd/sd-event.h>

#include "curl_event.h"

struct xfer {
	struct cpha_curl_xfer x;
	sd_event *e;
	int done;
	CURLcode result;
	long code;
	char body[64];
	size_t len;
};

static size_t on_body(char *data, size_t size, size_t n, void *userdata)
{
	struct xfer *t = userdata;
	size_t len = size * n;

	if (len > sizeof(t->body) - 1 - t->len)
		len = sizeof(t->body) - 1 - t->len;
	memcpy(t->body + t->len, data, len);
	t->len += len;
	return size * n;
}

static void on_done(struct cpha_curl_xfer *x, CURLcode result)
{
	struct xfer *t = (struct xfer *)x;

	t->done++;
	t->result = result;
	curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &t->code);
}

/* Run the loop until t is done (at most 100 rounds of a second). */
static void run_until_done(struct xfer *t)
{
	for (int i = 0; i < 100 && !t->done; i++)
		assert_true(sd_event_run(t->e, 1000000) >= 0);
}

/* The server: answer a connection once its request is in, then close it. */
static int on_request(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	static const char reply[] = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n"
				    "Connection: close\r\n\r\nhello";
	char buf[1024];

	(void)revents;
	(void)userdata;
	if (read(fd, buf, sizeof(buf)) > 0 && write(fd, reply, sizeof(reply) - 1) < 0)
		fail_msg("write: %s", strerror(errno));
	sd_event_source_disable_unref(s);
	close(fd);
	return 0;
}

static int on_accept(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
	sd_event_source *src; /* ours: on_request drops it */

	(void)revents;
	(void)userdata;
	if (c == -1)
		return 0;
	/* the loop is curl's too: wait for the request, never block on it */
	if (sd_event_add_io(sd_event_source_get_event(s), &src, c, EPOLLIN, on_request, NULL) < 0)
		close(c);
	return 0;
}

/* A listening socket on 127.0.0.1; its port in *port. */
static int listener(unsigned *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fd, 4), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

static void xfer_init(struct xfer *t, sd_event *e, unsigned port)
{
	char url[64];

	memset(t, 0, sizeof(*t));
	t->e = e;
	t->x.done = on_done;
	t->x.h = curl_easy_init();
	assert_non_null(t->x.h);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/x", port);
	curl_easy_setopt(t->x.h, CURLOPT_URL, url);
	curl_easy_setopt(t->x.h, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(t->x.h, CURLOPT_TIMEOUT_MS, 5000L);
	curl_easy_setopt(t->x.h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(t->x.h, CURLOPT_WRITEDATA, t);
}

static void test_get(void **state)
{
	struct cpha_curl_multi c = { 0 };
	sd_event_source *src = NULL;
	sd_event *e = NULL;
	struct xfer t;
	unsigned port;
	int fd = listener(&port);

	(void)state;
	assert_int_equal(sd_event_new(&e), 0);
	assert_true(sd_event_add_io(e, &src, fd, EPOLLIN, on_accept, NULL) >= 0);
	assert_int_equal(cpha_curl_multi_init(&c, e), 0);
	xfer_init(&t, e, port);
	assert_int_equal(cpha_curl_multi_add(&c, &t.x), 0);
	run_until_done(&t);
	assert_int_equal(t.done, 1);
	assert_int_equal(t.result, CURLE_OK);
	assert_int_equal(t.code, 200);
	assert_string_equal(t.body, "hello");

	/* the same handle again, from scratch */
	t.done = 0;
	t.len = 0;
	memset(t.body, 0, sizeof(t.body));
	assert_int_equal(cpha_curl_multi_add(&c, &t.x), 0);
	run_until_done(&t);
	assert_int_equal(t.done, 1);
	assert_string_equal(t.body, "hello");

	curl_easy_cleanup(t.x.h);
	cpha_curl_multi_free(&c);
	sd_event_source_disable_unref(src);
	sd_event_unref(e);
	close(fd);
}

/* Nothing listens: the transfer ends with the error, through the loop. */
static void test_refused(void **state)
{
	struct cpha_curl_multi c = { 0 };
	sd_event *e = NULL;
	struct xfer t;
	unsigned port;
	int fd = listener(&port);

	(void)state;
	close(fd);
	assert_int_equal(sd_event_new(&e), 0);
	assert_int_equal(cpha_curl_multi_init(&c, e), 0);
	xfer_init(&t, e, port);
	assert_int_equal(cpha_curl_multi_add(&c, &t.x), 0);
	run_until_done(&t);
	assert_int_equal(t.done, 1);
	assert_int_equal(t.result, CURLE_COULDNT_CONNECT);
	assert_int_equal(t.code, 0);
	curl_easy_cleanup(t.x.h);
	cpha_curl_multi_free(&c);
	sd_event_unref(e);
}

/* A removed transfer never reports. */
static int on_quit(sd_event_source *s, uint64_t usec, void *userdata)
{
	(void)usec;
	(void)userdata;
	return sd_event_exit(sd_event_source_get_event(s), 0);
}

static void test_remove(void **state)
{
	struct cpha_curl_multi c = { 0 };
	sd_event_source *quit = NULL;
	sd_event *e = NULL;
	struct xfer t;
	unsigned port;
	int fd = listener(&port);

	(void)state;
	close(fd); /* refused at once: a transfer left in would report in time */
	assert_int_equal(sd_event_new(&e), 0);
	assert_int_equal(cpha_curl_multi_init(&c, e), 0);
	xfer_init(&t, e, port);
	assert_int_equal(cpha_curl_multi_add(&c, &t.x), 0);
	cpha_curl_multi_remove(&c, &t.x);
	assert_true(sd_event_add_time_relative(
			    e, &quit, CLOCK_MONOTONIC, 200000, 1, on_quit, NULL) >= 0);
	assert_int_equal(sd_event_loop(e), 0);
	assert_int_equal(t.done, 0);
	curl_easy_cleanup(t.x.h);
	cpha_curl_multi_free(&c);
	sd_event_source_disable_unref(quit);
	sd_event_unref(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_get),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_remove),
	};
	int rc;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	curl_global_cleanup();
	return rc;
}
