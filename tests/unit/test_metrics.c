#include <arpa/inet.h>
#include <crypt.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <systemd/sd-event.h>

#include "duration.h"
#include "metrics.h"
#include "reqserv_test.h"
#include "webcfg.h"

static void test_text_format(void **state)
{
	struct cpha_buf b = { 0 };

	(void)state;
	assert_int_equal(cpha_prom_family(&b, "lbd_server_up", "gauge",
				 "1 when the server\\'s checks pass\nsecond line"),
		0);
	assert_int_equal(cpha_prom_sample(&b, "lbd_server_up", 1, "backend", "apiservers", "server",
				 "m\"0\\\n", NULL),
		0);
	assert_int_equal(cpha_prom_sample(&b, "lbd_bytes_in_total", 12345678901.0, NULL), 0);
	assert_int_equal(cpha_prom_sample(&b, "lbd_check_seconds", 0.25, "s", "x", NULL), 0);
	assert_int_equal(cpha_prom_sample(&b, "nan_value", NAN, NULL), 0);
	assert_int_equal(cpha_prom_sample(&b, "inf_value", INFINITY, NULL), 0);
	assert_string_equal(b.data,
		"# HELP lbd_server_up 1 when the server\\\\'s checks pass\\nsecond line\n"
		"# TYPE lbd_server_up gauge\n"
		"lbd_server_up{backend=\"apiservers\",server=\"m\\\"0\\\\\\n\"} 1\n"
		"lbd_bytes_in_total 12345678901\n"
		"lbd_check_seconds{s=\"x\"} 0.25\n"
		"nan_value NaN\n"
		"inf_value +Inf\n");
	cpha_buf_free(&b);
}

static void test_invalid_names_write_nothing(void **state)
{
	struct cpha_buf b = { 0 };

	(void)state;
	assert_int_equal(cpha_prom_family(&b, "9bad", "gauge", "h"), -EINVAL);
	assert_int_equal(cpha_prom_family(&b, "ok", "meter", "h"), -EINVAL);
	assert_int_equal(cpha_prom_sample(&b, "bad-name", 1, NULL), -EINVAL);
	assert_int_equal(cpha_prom_sample(&b, "ok", 1, "bad:label", "v", NULL), -EINVAL);
	assert_int_equal(cpha_prom_sample(&b, "ok", 1, "__reserved", "v", NULL), -EINVAL);
	assert_int_equal(b.len, 0);
	cpha_buf_free(&b);
}

static void fill(void *ud, struct cpha_buf *body)
{
	(*(int *)ud)++;
	cpha_prom_family(body, "test_scrapes", "counter", "scrapes so far");
	cpha_prom_sample(body, "test_scrapes", *(int *)ud, NULL);
}

struct http_get {
	uint16_t port;
	const char *request;
	char reply[4096];
	int done;
};

static void *http_client(void *arg)
{
	struct http_get *g = arg;
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(g->port) };
	size_t got = 0;
	ssize_t n;
	int fd;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0 &&
		send(fd, g->request, strlen(g->request), 0) > 0)
		while (got < sizeof(g->reply) - 1 &&
			(n = recv(fd, g->reply + got, sizeof(g->reply) - 1 - got, 0)) > 0)
			got += (size_t)n;
	g->reply[got] = '\0';
	close(fd);
	__atomic_store_n(&g->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static void get(sd_event *e, struct http_get *g)
{
	pthread_t t;
	int i;

	g->done = 0;
	pthread_create(&t, NULL, http_client, g);
	for (i = 0; i < 200 && !__atomic_load_n(&g->done, __ATOMIC_SEQ_CST); i++)
		assert_true(sd_event_run(e, 50000) >= 0);
	pthread_join(t, NULL);
}

static void test_http_listener(void **state)
{
	struct cpha_metrics *m = NULL;
	struct http_get g = { 0 };
	struct cpha_addr a;
	const char *why;
	sd_event *e;
	int scrapes = 0;

	(void)state;
	assert_int_equal(sd_event_new(&e), 0);
	/* port 0 is not valid in configuration; set it by hand for the test */
	assert_int_equal(cpha_parse_addr("127.0.0.1", CPHA_ADDR_PORT_NONE, &a, &why), 0);
	assert_int_equal(cpha_metrics_listen(e, &a, fill, &scrapes, &m), 0);
	g.port = cpha_addr_port(cpha_metrics_addr(m));
	assert_true(g.port > 0);

	g.request = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
	get(e, &g);
	assert_int_equal(strncmp(g.reply, "HTTP/1.1 200 OK\r\n", 17), 0);
	assert_non_null(strstr(g.reply, "Content-Type: text/plain; version=0.0.4"));
	assert_non_null(strstr(g.reply, "\r\n\r\n# HELP test_scrapes scrapes so far\n"));
	assert_non_null(strstr(g.reply, "test_scrapes 1\n"));

	g.request = "HEAD /metrics HTTP/1.0\n\n";
	get(e, &g);
	assert_int_equal(strncmp(g.reply, "HTTP/1.1 200 OK\r\n", 17), 0);
	assert_null(strstr(g.reply, "test_scrapes 2"));

	g.request = "GET /nope HTTP/1.1\r\n\r\n";
	get(e, &g);
	assert_int_equal(strncmp(g.reply, "HTTP/1.1 404", 12), 0);

	g.request = "POST /metrics HTTP/1.1\r\n\r\n";
	get(e, &g);
	assert_int_equal(strncmp(g.reply, "HTTP/1.1 405", 12), 0);

	g.request = "garbage\r\n\r\n";
	get(e, &g);
	assert_int_equal(strncmp(g.reply, "HTTP/1.1 400", 12), 0);
	assert_int_equal(scrapes, 2);

	cpha_metrics_close(m);
	sd_event_unref(e);
}

/* With basic_auth_users every path asks for the password: no header or a
 * wrong one is 401 with a Basic challenge, the right one is served, and
 * the web configuration can be dropped again. */
static void test_basic_auth(void **state)
{
	char salt[CRYPT_GENSALT_OUTPUT_SIZE], text[256], err[256];
	struct cpha_webcfg *w = NULL;
	struct cpha_metrics *m = NULL;
	struct http_get g = { 0 };
	struct crypt_data cd;
	struct cpha_addr a;
	const char *why;
	int scrapes = 0;
	sd_event *e;

	(void)state;
	memset(&cd, 0, sizeof(cd));
	assert_non_null(crypt_gensalt_rn("$2b$", 4, NULL, 0, salt, sizeof(salt)));
	snprintf(text, sizeof(text), "basic_auth_users:\n  a: %s\n", crypt_r("b", salt, &cd));
	assert_int_equal(cpha_webcfg_parse("w.yml", text, strlen(text), &w, err, sizeof(err)), 0);
	assert_int_equal(sd_event_new(&e), 0);
	assert_int_equal(cpha_parse_addr("127.0.0.1", CPHA_ADDR_PORT_NONE, &a, &why), 0);
	assert_int_equal(cpha_metrics_listen(e, &a, fill, &scrapes, &m), 0);
	assert_int_equal(cpha_metrics_set_web(m, w), 0);
	cpha_webcfg_unref(w); /* the listener holds its own reference */
	g.port = cpha_addr_port(cpha_metrics_addr(m));

	g.request = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
	get(e, &g);
	assert_int_equal(strncmp(g.reply, "HTTP/1.1 401 Unauthorized\r\n", 27), 0);
	assert_non_null(strstr(g.reply, "\r\nWWW-Authenticate: Basic realm=\"cpha\""));
	g.request = "GET /nope HTTP/1.1\r\n\r\n"; /* before the 404: no path is told */
	get(e, &g);
	assert_int_equal(strncmp(g.reply, "HTTP/1.1 401", 12), 0);
	g.request = "GET /metrics HTTP/1.1\r\nAuthorization: Basic YTpj\r\n\r\n"; /* a:c */
	get(e, &g);
	assert_int_equal(strncmp(g.reply, "HTTP/1.1 401", 12), 0);
	g.request = "GET /metrics HTTP/1.1\r\nAuthorization: Basic YTpi\r\n\r\n"; /* a:b */
	get(e, &g);
	assert_int_equal(strncmp(g.reply, "HTTP/1.1 200 OK\r\n", 17), 0);
	assert_non_null(strstr(g.reply, "test_scrapes 1\n"));
	assert_int_equal(scrapes, 1);

	assert_int_equal(cpha_metrics_set_web(m, NULL), 0);
	g.request = "GET /metrics HTTP/1.1\r\n\r\n";
	get(e, &g);
	assert_int_equal(strncmp(g.reply, "HTTP/1.1 200 OK\r\n", 17), 0);
	cpha_metrics_close(m);
	sd_event_unref(e);
}

/* A self-signed certificate for 127.0.0.1 (its own CA) and its key, as PEM
 * files in dir. */
static void make_cert(const char *dir, char *cert, char *key, size_t len)
{
	EVP_PKEY *pk = EVP_EC_gen("P-256");
	X509 *x = X509_new();
	X509_EXTENSION *ext;
	X509V3_CTX v3;
	FILE *f;

	assert_non_null(pk);
	assert_non_null(x);
	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
	X509_gmtime_adj(X509_getm_notBefore(x), -60);
	X509_gmtime_adj(X509_getm_notAfter(x), 3600);
	X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
		(const unsigned char *)"t", -1, -1, 0);
	X509_set_issuer_name(x, X509_get_subject_name(x));
	X509_set_pubkey(x, pk);
	X509V3_set_ctx(&v3, x, x, NULL, NULL, 0);
	ext = X509V3_EXT_conf_nid(NULL, &v3, NID_subject_alt_name, "IP:127.0.0.1");
	assert_non_null(ext);
	X509_add_ext(x, ext, -1);
	X509_EXTENSION_free(ext);
	assert_true(X509_sign(x, pk, EVP_sha256()) > 0);
	snprintf(cert, len, "%s/cert.pem", dir);
	snprintf(key, len, "%s/key.pem", dir);
	f = fopen(cert, "w");
	assert_non_null(f);
	PEM_write_X509(f, x);
	fclose(f);
	f = fopen(key, "w");
	assert_non_null(f);
	PEM_write_PrivateKey(f, pk, NULL, NULL, 0, NULL, NULL);
	fclose(f);
	X509_free(x);
	EVP_PKEY_free(pk);
}

struct tls_get {
	uint16_t port;
	const char *ca;
	char reply[4096];
	int ok, done;
};

/* GET /metrics over TLS, verifying the server with ca and its address. */
static void *tls_client(void *arg)
{
	struct tls_get *g = arg;
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
	SSL *ssl = NULL;
	int fd, n, got = 0;
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(g->port) };

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (!ctx || SSL_CTX_load_verify_locations(ctx, g->ca, NULL) != 1 ||
		connect(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0)
		goto out;
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	ssl = SSL_new(ctx);
	SSL_set_fd(ssl, fd);
	SSL_set1_host(ssl, "127.0.0.1");
	if (SSL_connect(ssl) != 1)
		goto out;
	if (SSL_write(ssl, "GET /metrics HTTP/1.1\r\n\r\n", 25) != 25)
		goto out;
	while (got < (int)sizeof(g->reply) - 1 &&
		(n = SSL_read(ssl, g->reply + got, (int)sizeof(g->reply) - 1 - got)) > 0)
		got += n;
	g->ok = 1;
out:
	g->reply[got] = '\0';
	SSL_free(ssl);
	SSL_CTX_free(ctx);
	close(fd);
	__atomic_store_n(&g->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* tls_server_config: a TLS client is served; plain HTTP gets no HTTP
 * answer; a client that starts no handshake is dropped within the request
 * time (2 s), the handshake bounded like a request. */
static void test_tls(void **state)
{
	char dir[] = "/tmp/test_metrics_tls.XXXXXX", cert[256], key[256], web[256], err[512];
	struct cpha_webcfg *w = NULL;
	struct cpha_metrics *m = NULL;
	struct tls_get tg = { 0 };
	struct http_get g = { 0 };
	struct cpha_addr a;
	uint64_t t0;
	const char *why;
	int scrapes = 0, fd, i;
	pthread_t t;
	sd_event *e;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	make_cert(dir, cert, key, sizeof(cert));
	snprintf(web, sizeof(web), "%s/web.yml", dir);
	f = fopen(web, "w");
	assert_non_null(f);
	fprintf(f, "tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\n");
	fclose(f);
	assert_int_equal(cpha_webcfg_load(web, &w, err, sizeof(err)), 0);
	assert_int_equal(sd_event_new(&e), 0);
	assert_int_equal(cpha_parse_addr("127.0.0.1", CPHA_ADDR_PORT_NONE, &a, &why), 0);
	assert_int_equal(cpha_metrics_listen(e, &a, fill, &scrapes, &m), 0);
	/* never plain text for a configuration that asks for TLS */
	assert_int_equal(cpha_metrics_set_web(m, w), -EINVAL);
	assert_int_equal(cpha_webcfg_tls(w, err, sizeof(err)), 0);
	assert_non_null(w->ssl_ctx);
	assert_int_equal(cpha_metrics_set_web(m, w), 0);
	cpha_webcfg_unref(w);

	tg.port = cpha_addr_port(cpha_metrics_addr(m));
	tg.ca = cert;
	pthread_create(&t, NULL, tls_client, &tg);
	for (i = 0; i < 200 && !__atomic_load_n(&tg.done, __ATOMIC_SEQ_CST); i++)
		assert_true(sd_event_run(e, 50000) >= 0);
	pthread_join(t, NULL);
	assert_true(tg.ok);
	assert_int_equal(strncmp(tg.reply, "HTTP/1.1 200 OK\r\n", 17), 0);
	assert_non_null(strstr(tg.reply, "test_scrapes 1\n"));

	g.port = tg.port;
	g.request = "GET /metrics HTTP/1.1\r\n\r\n";
	get(e, &g);
	assert_null(strstr(g.reply, "HTTP/1.1"));
	assert_int_equal(scrapes, 1);

	fd = connect_tcp(g.port);
	assert_true(fd >= 0);
	t0 = cpha_now_usec(CLOCK_MONOTONIC);
	while (!closed(fd) && cpha_now_usec(CLOCK_MONOTONIC) - t0 < 4000000)
		assert_true(sd_event_run(e, 50000) >= 0);
	assert_true(closed(fd));
	assert_true(cpha_now_usec(CLOCK_MONOTONIC) - t0 >= CPHA_METRICS_REQUEST_USEC - 100000);
	close(fd);

	cpha_metrics_close(m);
	sd_event_unref(e);
	unlink(cert);
	unlink(key);
	unlink(web);
	rmdir(dir);
}

static void status(void *ud, struct cpha_buf *body)
{
	(*(int *)ud)++;
	cpha_buf_puts(body, "{\"ok\":true}");
}

/* /status is not found until a status callback is set, then answers JSON
 * from it alone; /metrics keeps answering from its own callback. */
static void test_status_endpoint(void **state)
{
	struct cpha_metrics *m = NULL;
	struct http_get g = { 0 };
	int scrapes = 0, statuses = 0;
	struct cpha_addr a;
	const char *why;
	sd_event *e;

	(void)state;
	assert_int_equal(sd_event_new(&e), 0);
	assert_int_equal(cpha_parse_addr("127.0.0.1", CPHA_ADDR_PORT_NONE, &a, &why), 0);
	assert_int_equal(cpha_metrics_listen(e, &a, fill, &scrapes, &m), 0);
	g.port = cpha_addr_port(cpha_metrics_addr(m));

	g.request = "GET /status HTTP/1.1\r\n\r\n";
	get(e, &g);
	assert_int_equal(strncmp(g.reply, "HTTP/1.1 404", 12), 0);

	cpha_metrics_set_status(m, status, &statuses);
	g.request = "GET /status?x=1 HTTP/1.1\r\nHost: x\r\n\r\n";
	get(e, &g);
	assert_int_equal(strncmp(g.reply, "HTTP/1.1 200 OK\r\n", 17), 0);
	assert_non_null(strstr(g.reply, "Content-Type: application/json\r\n"));
	assert_non_null(strstr(g.reply, "Content-Length: 11\r\n"));
	assert_non_null(strstr(g.reply, "\r\n\r\n{\"ok\":true}"));
	assert_int_equal(statuses, 1);
	assert_int_equal(scrapes, 0);

	g.request = "HEAD /status HTTP/1.0\n\n";
	get(e, &g);
	assert_int_equal(strncmp(g.reply, "HTTP/1.1 200 OK\r\n", 17), 0);
	assert_null(strstr(g.reply, "{\"ok\""));

	g.request = "GET /metrics HTTP/1.1\r\n\r\n";
	get(e, &g);
	assert_non_null(strstr(g.reply, "test_scrapes 1\n"));
	assert_int_equal(statuses, 2);

	g.request = "POST /status HTTP/1.1\r\n\r\n";
	get(e, &g);
	assert_int_equal(strncmp(g.reply, "HTTP/1.1 405", 12), 0);

	cpha_metrics_set_status(m, NULL, NULL);
	g.request = "GET /status HTTP/1.1\r\n\r\n";
	get(e, &g);
	assert_int_equal(strncmp(g.reply, "HTTP/1.1 404", 12), 0);
	assert_int_equal(statuses, 2);

	cpha_metrics_close(m);
	sd_event_unref(e);
}

/* Hundreds of idle and byte-at-a-time clients on loopback that reconnect
 * as soon as they are dropped: a scrape still answers, within a second,
 * every time over ~10 s. */
static void test_idle_clients_do_not_block(void **state)
{
	struct flood f = { .byte = 'G' };
	struct cpha_metrics *m = NULL;
	struct http_get g = { 0 };
	int round, scrapes = 0;
	struct cpha_addr a;
	uint64_t t0, now;
	const char *why;
	sd_event *e;

	(void)state;
	assert_int_equal(sd_event_new(&e), 0);
	assert_int_equal(cpha_parse_addr("127.0.0.1", CPHA_ADDR_PORT_NONE, &a, &why), 0);
	assert_int_equal(cpha_metrics_listen(e, &a, fill, &scrapes, &m), 0);
	g.port = cpha_addr_port(cpha_metrics_addr(m));
	g.request = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
	f.port = g.port;
	flood_start(e, &f);
	for (round = 0; round < 10; round++) {
		flood_second(e, &f);
		t0 = cpha_now_usec(CLOCK_MONOTONIC);
		get(e, &g);
		now = cpha_now_usec(CLOCK_MONOTONIC);
		if (strncmp(g.reply, "HTTP/1.1 200 OK\r\n", 17) != 0 || now - t0 >= 1000000) {
			print_error("round %d: after %llu us: '%s'\n", round,
				(unsigned long long)(now - t0), g.reply);
			fail();
		}
		assert_non_null(strstr(g.reply, "test_scrapes "));
	}
	assert_int_equal(scrapes, 10);
	assert_true(f.reconnects > NIDLE);
	flood_stop(&f);
	cpha_metrics_close(m);
	sd_event_unref(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_format),
		cmocka_unit_test(test_status_endpoint),
		cmocka_unit_test(test_invalid_names_write_nothing),
		cmocka_unit_test(test_http_listener),
		cmocka_unit_test(test_basic_auth),
		cmocka_unit_test(test_tls),
		cmocka_unit_test(test_idle_clients_do_not_block),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
