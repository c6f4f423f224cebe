/* HTTP(S) health checks through libcurl's multi interface, driven by the
 * main sd-event loop. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <curl/curl.h>

#include "check-types.h"
#include "check_http.h"
#include "log.h"

#define HTTP_BODY_MAX 16384 /* response bytes kept for "expect string" */

static struct {
	sd_event *e;
	CURLM *multi;
	sd_event_source *timer;
} H;

struct sock_ctx {
	sd_event_source *src;
};

static void drain_done(void)
{
	struct lbd_check *c;
	CURLMsg *msg;
	int left;

	while ((msg = curl_multi_info_read(H.multi, &left))) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&c);
		{
			CURLcode res = msg->data.result;
			const struct lbd_httpcheck *hc = &c->bcfg->http;
			char reason[320];
			long status = 0;
			bool ok;
			size_t i;

			if (res != CURLE_OK) {
				long oserr = 0;
				const char *layer = "Layer4 connection problem";

				curl_easy_getinfo(c->easy, CURLINFO_OS_ERRNO, &oserr);
				if (res == CURLE_OPERATION_TIMEDOUT) {
					curl_off_t connected = 0;

					/* no TCP connection yet: HAProxy's "Layer4 timeout" */
					curl_easy_getinfo(
						c->easy, CURLINFO_CONNECT_TIME_T, &connected);
					layer = connected ? "Layer7 timeout" : "Layer4 timeout";
				} else if (res == CURLE_SSL_CONNECT_ERROR ||
					   res == CURLE_PEER_FAILED_VERIFICATION ||
					   res == CURLE_SSL_CERTPROBLEM ||
					   res == CURLE_SSL_CIPHER ||
					   res == CURLE_SSL_CACERT_BADFILE)
					layer = "Layer6 invalid response: TLS error";
				else if (res != CURLE_COULDNT_CONNECT)
					layer = "Layer7 invalid response";
				snprintf(reason, sizeof(reason), "%s: %s", layer,
					oserr && res == CURLE_COULDNT_CONNECT ? strerror((int)oserr)
					: c->errbuf[0]                        ? c->errbuf
						       : curl_easy_strerror(res));
				c->done(c, false, reason);
				continue;
			}
			curl_easy_getinfo(c->easy, CURLINFO_RESPONSE_CODE, &status);
			if (!hc->expect_set) {
				ok = status >= 200 && status < 400; /* HAProxy: 2xx and 3xx */
			} else if (hc->expect_is_status) {
				ok = false;
				for (i = 0; i < hc->nstatus; i++)
					if (status >= hc->status[i].lo &&
						status <= hc->status[i].hi)
						ok = true;
			} else {
				ok = c->body && memmem(c->body, c->body_len, hc->expect_string,
							strlen(hc->expect_string)) != NULL;
			}
			if (hc->expect_set && hc->expect_negate)
				ok = !ok;
			if (ok)
				snprintf(
					reason, sizeof(reason), "Layer7 check passed: %ld", status);
			else if (!hc->expect_set || hc->expect_is_status)
				snprintf(
					reason, sizeof(reason), "Layer7 wrong status: %ld", status);
			else
				snprintf(reason, sizeof(reason),
					"Layer7 wrong content (status %ld)", status);
			c->done(c, ok, reason);
		}
	}
}

static int on_sock(sd_event_source *src, int fd, uint32_t revents, void *userdata)
{
	int flags = 0, running;

	(void)src;
	(void)userdata;
	if (revents & EPOLLIN)
		flags |= CURL_CSELECT_IN;
	if (revents & EPOLLOUT)
		flags |= CURL_CSELECT_OUT;
	if (revents & (EPOLLERR | EPOLLHUP))
		flags |= CURL_CSELECT_ERR;
	curl_multi_socket_action(H.multi, fd, flags, &running);
	drain_done();
	return 0;
}

static int sock_cb(CURL *easy, curl_socket_t fd, int what, void *userp, void *socketp)
{
	struct sock_ctx *sc = socketp;
	uint32_t ev = 0;

	(void)easy;
	(void)userp;
	if (what == CURL_POLL_REMOVE) {
		if (sc) {
			sd_event_source_disable_unref(sc->src);
			free(sc);
			curl_multi_assign(H.multi, fd, NULL);
		}
		return 0;
	}
	if (what & CURL_POLL_IN)
		ev |= EPOLLIN;
	if (what & CURL_POLL_OUT)
		ev |= EPOLLOUT;
	if (!sc) {
		sc = calloc(1, sizeof(*sc));
		if (!sc || sd_event_add_io(H.e, &sc->src, fd, ev, on_sock, NULL) < 0) {
			free(sc);
			return -1;
		}
		curl_multi_assign(H.multi, fd, sc);
		return 0;
	}
	sd_event_source_set_io_events(sc->src, ev);
	return 0;
}

static int on_timer(sd_event_source *src, uint64_t usec, void *userdata)
{
	int running;

	(void)src;
	(void)usec;
	(void)userdata;
	curl_multi_socket_action(H.multi, CURL_SOCKET_TIMEOUT, 0, &running);
	drain_done();
	return 0;
}

static int timer_cb(CURLM *multi, long timeout_ms, void *userp)
{
	(void)multi;
	(void)userp;
	if (timeout_ms < 0)
		return sd_event_source_set_enabled(H.timer, SD_EVENT_OFF) < 0 ? -1 : 0;
	sd_event_source_set_time_relative(H.timer, (uint64_t)timeout_ms * 1000);
	sd_event_source_set_enabled(H.timer, SD_EVENT_ONESHOT);
	return 0;
}

int check_http_init(sd_event *e)
{
	int r;

	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return -EIO;
	H.e = e;
	H.multi = curl_multi_init();
	if (!H.multi)
		return -ENOMEM;
	curl_multi_setopt(H.multi, CURLMOPT_SOCKETFUNCTION, sock_cb);
	curl_multi_setopt(H.multi, CURLMOPT_TIMERFUNCTION, timer_cb);
	r = sd_event_add_time_relative(e, &H.timer, CLOCK_MONOTONIC, 0, 1000, on_timer, NULL);
	if (r < 0)
		return r;
	return sd_event_source_set_enabled(H.timer, SD_EVENT_OFF);
}

void check_http_shutdown(void)
{
	if (H.multi)
		curl_multi_cleanup(H.multi);
	H.multi = NULL;
	H.timer = sd_event_source_disable_unref(H.timer);
	curl_global_cleanup();
}

static size_t on_body(char *p, size_t size, size_t nmemb, void *userdata)
{
	struct lbd_check *c = userdata;
	size_t n = size * nmemb, keep = n;
	char *nb;

	if (c->body_len + keep > HTTP_BODY_MAX)
		keep = HTTP_BODY_MAX - c->body_len;
	if (keep) {
		nb = realloc(c->body, c->body_len + keep + 1);
		if (!nb)
			return 0;
		c->body = nb;
		memcpy(c->body + c->body_len, p, keep);
		c->body_len += keep;
		c->body[c->body_len] = '\0';
	}
	return n; /* the rest is read and dropped */
}

bool check_http_connected(const struct lbd_check *c)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	/* the socket libcurl made (on_sockopt): ESTABLISHED once the server
	 * answered the SYN, whatever TLS and HTTP still wait for */
	if (c->curl_fd < 0 || getsockopt(c->curl_fd, IPPROTO_TCP, TCP_INFO, &ti, &len) == -1)
		return false;
	return ti.tcpi_state == TCP_ESTABLISHED;
}

/* libcurl made the check's socket: remember it for check_http_connected */
static int on_sockopt(void *userdata, curl_socket_t fd, curlsocktype purpose)
{
	struct lbd_check *c = userdata;

	if (purpose == CURLSOCKTYPE_IPCXN)
		c->curl_fd = fd;
	return CURL_SOCKOPT_OK;
}

void check_http_abort(struct lbd_check *c)
{
	if (c->easy) {
		curl_multi_remove_handle(H.multi, c->easy);
		curl_easy_cleanup(c->easy);
		c->easy = NULL;
	}
	curl_slist_free_all(c->hdrs);
	c->hdrs = NULL;
	free(c->body);
	c->body = NULL;
	c->body_len = 0;
}

int check_http_start(struct lbd_check *c)
{
	const struct lbd_httpcheck *hc = &c->bcfg->http;
	const struct lbd_server_opts *o = &c->srv->o;
	char host[CPHA_ADDR_STRLEN], hdr[512];
	struct cpha_addr a;
	bool tls = hc->connect_ssl || o->check_ssl;
	uint64_t left;
	CURL *e;
	size_t i;

	a = o->check_addr_set ? o->check_addr : c->srv->addr;
	if (hc->connect_port)
		cpha_addr_set_port(&a, hc->connect_port);
	else if (o->check_port)
		cpha_addr_set_port(&a, o->check_port);
	else if (cpha_addr_port(&a) == 0)
		cpha_addr_set_port(&a, cpha_addr_port(&c->srv->addr));
	cpha_addr_format(&a, host, sizeof(host));
	snprintf(c->url, sizeof(c->url), "%s://%s%s", tls ? "https" : "http", host,
		hc->uri ? hc->uri : "/");

	e = curl_easy_init();
	if (!e)
		return -ENOMEM;
	c->easy = e;
	c->errbuf[0] = '\0';
	left = c->deadline > c->started ? c->deadline - c->started : 1000;
	curl_easy_setopt(e, CURLOPT_URL, c->url);
	curl_easy_setopt(e, CURLOPT_PRIVATE, c);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, c->errbuf);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_NOPROXY, "*"); /* never an http_proxy from the environment */
	curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(e, CURLOPT_FORBID_REUSE, 1L);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)((left + 999) / 1000));
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	c->curl_fd = -1;
	curl_easy_setopt(e, CURLOPT_SOCKOPTFUNCTION, on_sockopt);
	curl_easy_setopt(e, CURLOPT_SOCKOPTDATA, c);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, c);
	curl_easy_setopt(e, CURLOPT_USERAGENT, "lbd-check");
	if (hc->method && strcmp(hc->method, "HEAD") == 0)
		curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
	else if (hc->method && strcmp(hc->method, "GET") != 0)
		curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, hc->method);
	if (!hc->version || strcmp(hc->version, "HTTP/1.0") == 0)
		curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_0);
	else
		curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
	for (i = 0; i < hc->nhdrs; i++) {
		snprintf(hdr, sizeof(hdr), "%s: %s", hc->hdrs[i].name, hc->hdrs[i].value);
		c->hdrs = curl_slist_append(c->hdrs, hdr);
	}
	if (c->hdrs)
		curl_easy_setopt(e, CURLOPT_HTTPHEADER, c->hdrs);
	if (tls) {
		/* HAProxy checks the chain with verify required, not the name */
		curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
		if (o->verify == LBD_VERIFY_NONE) {
			curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
		} else {
			curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 1L);
			if (o->ca_file)
				curl_easy_setopt(e, CURLOPT_CAINFO, o->ca_file);
		}
		if (o->crt) {
			curl_easy_setopt(e, CURLOPT_SSLCERT, o->crt);
			curl_easy_setopt(e, CURLOPT_SSLKEY, o->crt);
		}
	}
	if (curl_multi_add_handle(H.multi, e) != CURLM_OK) {
		check_http_abort(c);
		return -EIO;
	}
	return 0;
}
