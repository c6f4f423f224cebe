#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "duration.h"
#include "log.h"
#include "metrics.h"
#include "reqserv.h"
#include "webcfg.h"

struct cpha_metrics {
	struct cpha__reqserv *srv;
	struct cpha_addr addr;
	cpha_metrics_fn fn;
	void *userdata;
	cpha_status_fn status_fn; /* NULL: no /status */
	void *status_userdata;
	struct cpha_webcfg *web; /* basic auth and TLS; NULL: neither */
};

static int valid_name(const char *s, int label)
{
	const char *p;

	if (!*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (p = s; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' ||
			(*p >= '0' && *p <= '9'))
			continue;
		if (*p == ':' && !label)
			continue;
		return 0;
	}
	return 1;
}

/* Escape backslash and newline (and the double quote in label values). */
static int put_escaped(struct cpha_buf *b, const char *s, int quote)
{
	int r = 0;

	for (; *s && r == 0; s++) {
		if (*s == '\\')
			r = cpha_buf_puts(b, "\\\\");
		else if (*s == '\n')
			r = cpha_buf_puts(b, "\\n");
		else if (*s == '"' && quote)
			r = cpha_buf_puts(b, "\\\"");
		else
			r = cpha_buf_append(b, s, 1);
	}
	return r;
}

int cpha_prom_family(struct cpha_buf *b, const char *name, const char *type, const char *help)
{
	static const char *const types[] = { "counter", "gauge", "histogram", "summary",
		"untyped" };
	size_t i;
	int r;

	if (!valid_name(name, 0))
		return -EINVAL;
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(type, types[i]) == 0)
			break;
	if (i == sizeof(types) / sizeof(types[0]))
		return -EINVAL;
	r = cpha_buf_printf(b, "# HELP %s ", name);
	if (r == 0)
		r = put_escaped(b, help, 0);
	if (r == 0)
		r = cpha_buf_printf(b, "\n# TYPE %s %s\n", name, type);
	return r;
}

static int put_value(struct cpha_buf *b, double v)
{
	if (isnan(v))
		return cpha_buf_puts(b, "NaN\n");
	if (isinf(v))
		return cpha_buf_puts(b, v > 0 ? "+Inf\n" : "-Inf\n");
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		return cpha_buf_printf(b, "%.0f\n", v);
	return cpha_buf_printf(b, "%.17g\n", v);
}

int cpha_prom_sample(struct cpha_buf *b, const char *name, double value, ...)
{
	const char *lname, *lvalue;
	size_t start = b->len;
	int first = 1, r;
	va_list ap;

	if (!valid_name(name, 0))
		return -EINVAL;
	r = cpha_buf_puts(b, name);
	va_start(ap, value);
	while (r == 0 && (lname = va_arg(ap, const char *)) != NULL) {
		lvalue = va_arg(ap, const char *);
		if (!valid_name(lname, 1) || strncmp(lname, "__", 2) == 0 || !lvalue) {
			r = -EINVAL;
			break;
		}
		r = cpha_buf_printf(b, "%s%s=\"", first ? "{" : ",", lname);
		if (r == 0)
			r = put_escaped(b, lvalue, 1);
		if (r == 0)
			r = cpha_buf_puts(b, "\"");
		first = 0;
	}
	va_end(ap);
	if (r == 0 && !first)
		r = cpha_buf_puts(b, "}");
	if (r == 0)
		r = cpha_buf_puts(b, " ");
	if (r == 0)
		r = put_value(b, value);
	if (r < 0) {
		b->len = start; /* no half-written line */
		if (b->data)
			b->data[start] = '\0';
	}
	return r;
}

static long http_complete(const char *data, size_t len, int eof)
{
	const char *end = memmem(data, len, "\r\n\r\n", 4);

	(void)eof;
	if (end)
		return (long)(end - data) + 4;
	end = memmem(data, len, "\n\n", 2);
	if (end)
		return (long)(end - data) + 2;
	return 0;
}

static void http_reply_with(struct cpha_buf *reply, const char *status, const char *ctype,
	const char *extra, const struct cpha_buf *body, int head)
{
	cpha_buf_printf(reply,
		"HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s"
		"Connection: close\r\n\r\n",
		status, ctype, body->len, extra);
	if (!head && body->len)
		cpha_buf_append(reply, body->data, body->len);
}

static void http_reply(struct cpha_buf *reply, const char *status, const char *ctype,
	const struct cpha_buf *body, int head)
{
	http_reply_with(reply, status, ctype, "", body, head);
}

/* Basic authentication (RFC 7617) when the web configuration has users:
 * 0 to go on, or -1 with the refusal written to reply. */
static int http_auth(struct cpha_metrics *m, const struct cpha__req_peer *peer, const char *req,
	struct cpha_buf *reply, struct cpha_buf *body)
{
	char value[1024], who[CPHA_ADDR_STRLEN];
	struct cpha_addr ip = peer->addr;
	enum cpha_web_auth a;
	int n;

	if (!m->web || !m->web->nusers)
		return 0;
	n = cpha_http_header(req, "Authorization", value, sizeof(value));
	if (n == -ENOENT)
		a = cpha_webcfg_auth(m->web, NULL, cpha_now_usec(CLOCK_MONOTONIC));
	else if (n < 0)
		a = CPHA_WEB_AUTH_MALFORMED;
	else
		a = cpha_webcfg_auth(m->web, value, cpha_now_usec(CLOCK_MONOTONIC));
	explicit_bzero(value, sizeof(value));
	if (a == CPHA_WEB_AUTH_OK)
		return 0;
	cpha_addr_set_port(&ip, 0);
	if (a != CPHA_WEB_AUTH_MISSING)
		/* one text per address: the log's rate limit folds a guesser */
		cpha_log(LOG_NOTICE, "metrics: refused %s: %s",
			ip.len ? cpha_addr_format(&ip, who, sizeof(who)) : "?",
			a == CPHA_WEB_AUTH_BUSY        ? "too many password checks this second"
			: a == CPHA_WEB_AUTH_MALFORMED ? "malformed Authorization header"
						       : "wrong user or password");
	if (a == CPHA_WEB_AUTH_BUSY) {
		cpha_buf_puts(body, "too many password checks: retry\n");
		http_reply_with(reply, "429 Too Many Requests", "text/plain", "Retry-After: 1\r\n",
			body, 0);
	} else {
		cpha_buf_puts(body, "unauthorized\n");
		http_reply_with(reply, "401 Unauthorized", "text/plain",
			"WWW-Authenticate: Basic realm=\"cpha\", charset=\"UTF-8\"\r\n", body, 0);
	}
	return -1;
}

static void http_handle(void *userdata, const struct cpha__req_peer *peer, const char *req,
	size_t len, struct cpha_buf *reply)
{
	struct cpha_metrics *m = userdata;
	struct cpha_buf body = { 0 };
	char method[16], target[256];
	int head;

	(void)len;
	if (sscanf(req, "%15s %255s HTTP/1.%*c", method, target) != 2) {
		cpha_buf_puts(&body, "bad request\n");
		http_reply(reply, "400 Bad Request", "text/plain", &body, 0);
		goto out;
	}
	if (http_auth(m, peer, req, reply, &body) < 0)
		goto out;
	head = strcmp(method, "HEAD") == 0;
	if (!head && strcmp(method, "GET") != 0) {
		cpha_buf_puts(&body, "only GET and HEAD\n");
		http_reply(reply, "405 Method Not Allowed", "text/plain", &body, 0);
		goto out;
	}
	target[strcspn(target, "?")] = '\0';
	if (strcmp(target, "/metrics") == 0) {
		m->fn(m->userdata, &body);
		http_reply(
			reply, "200 OK", "text/plain; version=0.0.4; charset=utf-8", &body, head);
	} else if (strcmp(target, "/status") == 0 && m->status_fn) {
		m->status_fn(m->status_userdata, &body);
		http_reply(reply, "200 OK", "application/json", &body, head);
	} else if (strcmp(target, "/") == 0) {
		cpha_buf_puts(&body, m->status_fn ? "metrics are at /metrics, status at /status\n"
						  : "metrics are at /metrics\n");
		http_reply(reply, "200 OK", "text/plain", &body, head);
	} else {
		cpha_buf_puts(&body, "not found\n");
		http_reply(reply, "404 Not Found", "text/plain", &body, head);
	}
out:
	cpha_buf_free(&body);
}

int cpha_metrics_listen(sd_event *e, const struct cpha_addr *addr, cpha_metrics_fn fn,
	void *userdata, struct cpha_metrics **out)
{
	static const struct cpha__reqserv_limits limits = {
		.max_req = CPHA_METRICS_REQ_MAX,
		.request_usec = CPHA_METRICS_REQUEST_USEC,
		.reply_usec = CPHA_METRICS_REPLY_USEC,
		.max_conns = CPHA_METRICS_MAX_CONNS,
		.max_per_peer = CPHA_METRICS_MAX_PER_IP,
		.what = "metrics",
	};
	struct cpha_metrics *m;
	socklen_t len;
	int fd, one = 1, r;

	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->addr = *addr;
	m->fn = fn;
	m->userdata = userdata;
	fd = socket(addr->ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1) {
		r = -errno;
		free(m);
		return r;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	len = sizeof(m->addr.ss);
	if (bind(fd, (const struct sockaddr *)&addr->ss, addr->len) == -1 ||
		listen(fd, SOMAXCONN) == -1 ||
		getsockname(fd, (struct sockaddr *)&m->addr.ss, &len) == -1) {
		r = -errno;
		close(fd);
		free(m);
		return r;
	}
	r = cpha__reqserv_new(&m->srv, e, fd, http_complete, http_handle, m, &limits);
	if (r < 0) {
		free(m);
		return r;
	}
	*out = m;
	return 0;
}

void cpha_metrics_set_status(struct cpha_metrics *m, cpha_status_fn fn, void *userdata)
{
	m->status_fn = fn;
	m->status_userdata = userdata;
}

int cpha_metrics_set_web(struct cpha_metrics *m, struct cpha_webcfg *w)
{
	int r;

	if (w && w->cert_file && !w->ssl_ctx)
		return -EINVAL; /* cpha_webcfg_tls() first: never plain text instead */
	r = cpha__reqserv_set_tls(m->srv, w ? w->ssl_ctx : NULL);

	if (r < 0)
		return r;
	cpha_webcfg_ref(w);
	cpha_webcfg_unref(m->web);
	m->web = w;
	return 0;
}

const struct cpha_addr *cpha_metrics_addr(const struct cpha_metrics *m)
{
	return &m->addr;
}

void cpha_metrics_close(struct cpha_metrics *m)
{
	if (!m)
		return;
	cpha__reqserv_free(m->srv);
	cpha_webcfg_unref(m->web);
	free(m);
}
