/* cpha lab: the cause of a failed request and its phase (lab_cause.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lab_cause.h"

/* The cause of a line with these fields; connected and tls -1: not given. */
static enum lab_cause cause(int code, int curl, int err, int connected, int tls, const char *text)
{
	const struct lab_cause_facts f = { .code = code,
		.curl = curl,
		.os_errno = err,
		.connected = connected,
		.tls = tls,
		.err = text };

	return lab_cause_classify(&f);
}

static void test_names(void **state)
{
	static const char *const causes[] = { "connect_refused", "connect_reset", "connect_timeout",
		"tls_timeout", "http_5xx", "request_timeout", "other" };
	static const char *const phases[] = { "before_detect", "no_vip", "dead_server",
		"etcd_election", "other" };
	enum lab_phase p;

	(void)state;
	for (int i = 0; i < LAB_NCAUSES; i++)
		assert_string_equal(lab_cause_name((enum lab_cause)i), causes[i]);
	for (int i = 0; i < LAB_NPHASES; i++)
		assert_string_equal(lab_phase_name((enum lab_phase)i), phases[i]);
	assert_int_equal(lab_phase_parse("no_vip", &p), 0);
	assert_int_equal(p, LAB_PHASE_NO_VIP);
	assert_int_equal(lab_phase_parse("etcd_election", &p), 0);
	assert_int_equal(p, LAB_PHASE_ETCD_ELECTION);
	/* other is what is left, never an input */
	assert_int_equal(lab_phase_parse("other", &p), -EINVAL);
	assert_int_equal(lab_phase_parse("No_vip", &p), -EINVAL);
	assert_int_equal(lab_phase_parse(NULL, &p), -EINVAL);
}

/* Rule 1: an HTTP 5xx, whatever else the line says. */
static void test_http_5xx(void **state)
{
	(void)state;
	assert_int_equal(cause(500, 0, 0, 1, 1, "etcdserver: leader changed"), LAB_CAUSE_HTTP_5XX);
	assert_int_equal(cause(503, -1, 0, -1, -1, "{\"kind\":\"Status\"}"), LAB_CAUSE_HTTP_5XX);
	/* a not-sent line carries the failing step's code */
	assert_int_equal(cause(504, 28, 0, 0, 0, "not sent: x"), LAB_CAUSE_HTTP_5XX);
	assert_int_equal(cause(499, 0, 0, 1, 1, "too many"), LAB_CAUSE_OTHER);
	assert_int_equal(cause(403, -1, 0, -1, -1, "forbidden"), LAB_CAUSE_OTHER);
}

/* Rule 2: curl 28 by how far it got. */
static void test_curl_timeout(void **state)
{
	(void)state;
	assert_int_equal(cause(0, 28, 0, 0, 0, "Connection timed out"), LAB_CAUSE_CONNECT_TIMEOUT);
	assert_int_equal(cause(0, 28, 0, -1, -1, ""), LAB_CAUSE_CONNECT_TIMEOUT);
	assert_int_equal(cause(0, 28, 0, 1, 0, "SSL connection timeout"), LAB_CAUSE_TLS_TIMEOUT);
	assert_int_equal(cause(0, 28, 0, 1, -1, NULL), LAB_CAUSE_TLS_TIMEOUT);
	assert_int_equal(cause(0, 28, 0, 1, 1,
				 "Operation timed out after 2000 milliseconds with 0 "
				 "bytes received"),
		LAB_CAUSE_REQUEST_TIMEOUT);
}

/* Rule 3: curl 7 by errno. */
static void test_curl_connect(void **state)
{
	(void)state;
	assert_int_equal(cause(0, 7, ECONNREFUSED, 0, 0, "x"), LAB_CAUSE_CONNECT_REFUSED);
	assert_int_equal(cause(0, 7, ECONNRESET, 0, 0, "x"), LAB_CAUSE_CONNECT_RESET);
	assert_int_equal(cause(0, 7, ETIMEDOUT, 0, 0, "x"), LAB_CAUSE_CONNECT_TIMEOUT);
	assert_int_equal(cause(0, 7, EHOSTUNREACH, 0, 0, "x"), LAB_CAUSE_CONNECT_TIMEOUT);
	assert_int_equal(cause(0, 7, ENETUNREACH, 0, 0, "x"), LAB_CAUSE_CONNECT_TIMEOUT);
	assert_int_equal(cause(0, 7, EHOSTDOWN, 0, 0, "x"), LAB_CAUSE_CONNECT_TIMEOUT);
	assert_int_equal(cause(0, 7, 0, 0, 0, "Connection refused"), LAB_CAUSE_OTHER);
	assert_int_equal(cause(0, 7, EACCES, 0, 0, "x"), LAB_CAUSE_OTHER);
}

/* Rule 4: a connection that broke during TLS or the exchange. */
static void test_curl_reset(void **state)
{
	(void)state;
	for (const int *c = (const int[]){ 35, 55, 56, 0 }; *c; c++) {
		assert_int_equal(cause(0, *c, ECONNRESET, 1, 0, ""), LAB_CAUSE_CONNECT_RESET);
		assert_int_equal(cause(0, *c, EPIPE, 1, 1, ""), LAB_CAUSE_CONNECT_RESET);
		assert_int_equal(cause(0, *c, 0, 1, 0, "Recv failure: Connection reset by peer"),
			LAB_CAUSE_CONNECT_RESET);
		assert_int_equal(
			cause(0, *c, 0, 1, 0, "certificate verify failed"), LAB_CAUSE_OTHER);
	}
	assert_int_equal(cause(0, 52, 0, 1, 1, "Empty reply from server"), LAB_CAUSE_CONNECT_RESET);
	/* HAProxy with no server to send to closes the client's connection:
	 * the TLS handshake meets its end, errno 0 */
	assert_int_equal(cause(0, 35, 0, 0, 0,
				 "OpenSSL SSL_connect: SSL_ERROR_SYSCALL in connection to "
				 "kubernetes:6443"),
		LAB_CAUSE_CONNECT_RESET);
	assert_int_equal(cause(0, 60, 0, 0, 0, "SSL_ERROR_SYSCALL"), LAB_CAUSE_OTHER);
}

/* Rule 5: another curl code is other, whatever the text. */
static void test_curl_other(void **state)
{
	(void)state;
	assert_int_equal(cause(0, 6, 0, 0, 0, "Connection refused"), LAB_CAUSE_OTHER);
	assert_int_equal(cause(0, 60, 0, 1, 0, "SSL certificate problem"), LAB_CAUSE_OTHER);
	assert_int_equal(cause(404, 0, 0, 1, 1, "not a Lease"), LAB_CAUSE_OTHER);
}

/* Rule 6: the texts of a prober that wrote no curl code. */
static void test_old_texts(void **state)
{
	(void)state;
	assert_int_equal(cause(0, -1, 0, -1, -1, "tick timed out before lease_put was sent"),
		LAB_CAUSE_REQUEST_TIMEOUT);
	assert_int_equal(cause(0, -1, 0, -1, -1,
				 "Failed to connect to 198.18.0.100 port 6443 after 0 ms: "
				 "Connection refused"),
		LAB_CAUSE_CONNECT_REFUSED);
	assert_int_equal(cause(0, -1, 0, -1, -1, "Recv failure: Connection reset by peer"),
		LAB_CAUSE_CONNECT_RESET);
	assert_int_equal(cause(0, -1, 0, -1, -1, "SSL connection timeout"), LAB_CAUSE_TLS_TIMEOUT);
	assert_int_equal(cause(0, -1, 0, -1, -1, "Connection timed out after 1001 milliseconds"),
		LAB_CAUSE_CONNECT_TIMEOUT);
	assert_int_equal(cause(0, -1, 0, -1, -1,
				 "Failed to connect to 198.18.0.100 port 6443 after 1000 ms: "
				 "Timed out"),
		LAB_CAUSE_CONNECT_TIMEOUT);
	assert_int_equal(cause(0, -1, 0, -1, -1,
				 "Operation timed out after 2000 milliseconds with 0 bytes "
				 "received"),
		LAB_CAUSE_REQUEST_TIMEOUT);
	/* with the connection known, as curl 28 */
	assert_int_equal(cause(0, -1, 0, 0, -1,
				 "Operation timed out after 2000 milliseconds with 0 bytes "
				 "received"),
		LAB_CAUSE_CONNECT_TIMEOUT);
	/* not sent: the rest of the text says why */
	assert_int_equal(cause(0, -1, 0, -1, -1,
				 "not sent: readyz failed: Failed to connect to x port 6443 after "
				 "2 ms: Connection refused"),
		LAB_CAUSE_CONNECT_REFUSED);
	assert_int_equal(cause(0, -1, 0, -1, -1,
				 "not sent: readyz failed: Connection timed out after 1000 "
				 "milliseconds"),
		LAB_CAUSE_CONNECT_TIMEOUT);
	assert_int_equal(
		cause(0, -1, 0, -1, -1, "not sent: lease_get answered 503"), LAB_CAUSE_HTTP_5XX);
	assert_int_equal(
		cause(0, -1, 0, -1, -1, "not sent: lease_get answered 403"), LAB_CAUSE_OTHER);
	assert_int_equal(cause(0, -1, 0, -1, -1, "curl_multi_add_handle failed"), LAB_CAUSE_OTHER);
	assert_int_equal(cause(0, -1, 0, -1, -1, ""), LAB_CAUSE_OTHER);
	assert_int_equal(cause(0, -1, 0, -1, -1, NULL), LAB_CAUSE_OTHER);
}

static const struct lab_phase_span spans[] = {
	{ LAB_PHASE_BEFORE_DETECT, 10.0, 12.0 },
	{ LAB_PHASE_NO_VIP, 12.0, 13.0 },
	{ LAB_PHASE_DEAD_SERVER, 11.5, 15.0 },
	{ LAB_PHASE_ETCD_ELECTION, 14.0, 16.0 },
};

static void test_phase_precedence(void **state)
{
	(void)state;
	assert_int_equal(lab_phase_of(10.5, 0, false, spans, 4), LAB_PHASE_BEFORE_DETECT);
	/* before_detect and dead_server overlap: before_detect */
	assert_int_equal(lab_phase_of(11.8, 0, false, spans, 4), LAB_PHASE_BEFORE_DETECT);
	/* no_vip wins over dead_server */
	assert_int_equal(lab_phase_of(12.5, 0, false, spans, 4), LAB_PHASE_NO_VIP);
	/* a request that began before detection and ended without the VIP */
	assert_int_equal(lab_phase_of(12.5, 1000, false, spans, 4), LAB_PHASE_BEFORE_DETECT);
	/* dead_server wins over etcd_election */
	assert_int_equal(lab_phase_of(14.5, 0, false, spans, 4), LAB_PHASE_DEAD_SERVER);
	assert_int_equal(lab_phase_of(15.5, 0, false, spans, 4), LAB_PHASE_ETCD_ELECTION);
	assert_int_equal(lab_phase_of(9.0, 0, false, spans, 4), LAB_PHASE_OTHER);
	assert_int_equal(lab_phase_of(16.5, 0, false, spans, 4), LAB_PHASE_OTHER);
	assert_int_equal(lab_phase_of(12.5, 0, false, NULL, 0), LAB_PHASE_OTHER);
}

/* Closed intervals: touching counts; the request's span reaches back ms. */
static void test_phase_edges(void **state)
{
	(void)state;
	/* the ends of a phase belong to it */
	assert_int_equal(lab_phase_of(10.0, 0, false, spans, 1), LAB_PHASE_BEFORE_DETECT);
	assert_int_equal(lab_phase_of(12.0, 0, false, spans, 1), LAB_PHASE_BEFORE_DETECT);
	assert_int_equal(lab_phase_of(12.001, 0, false, spans, 1), LAB_PHASE_OTHER);
	assert_int_equal(lab_phase_of(9.999, 0, false, spans, 1), LAB_PHASE_OTHER);
	/* written after the phase, but it began in it: [12.5 - 0.5, 12.5] */
	assert_int_equal(lab_phase_of(12.5, 500, false, spans, 1), LAB_PHASE_BEFORE_DETECT);
	assert_int_equal(lab_phase_of(12.5, 499, false, spans, 1), LAB_PHASE_OTHER);
	/* not sent: only its moment, whatever ms says */
	assert_int_equal(lab_phase_of(12.5, 500, true, spans, 1), LAB_PHASE_OTHER);
	/* a long request overlapping no_vip and etcd_election: no_vip */
	assert_int_equal(lab_phase_of(16.0, 4000, false, spans + 1, 1), LAB_PHASE_NO_VIP);
	assert_int_equal(lab_phase_of(16.0, 2999, false, spans, 4), LAB_PHASE_DEAD_SERVER);
	assert_int_equal(lab_phase_of(17.0, 1000, false, spans, 4), LAB_PHASE_ETCD_ELECTION);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_http_5xx),
		cmocka_unit_test(test_curl_timeout),
		cmocka_unit_test(test_curl_connect),
		cmocka_unit_test(test_curl_reset),
		cmocka_unit_test(test_curl_other),
		cmocka_unit_test(test_old_texts),
		cmocka_unit_test(test_phase_precedence),
		cmocka_unit_test(test_phase_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
