#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "check.h"
#include "check_http.h"
#include "clock.h"
#include "log.h"

#define CHECK_RBUF_MAX         16384 /* bytes kept for expect rules, like HAProxy's buffer */
#define CHECK_FIRST_SPREAD_MAX (2 * 1000000ULL) /* first checks spread over at most this */

static uint64_t rnd_state = 0x2545f4914f6cdd1dULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* HAProxy: with "timeout check", min(connect, inter) to connect and then
 * "timeout check" to answer; without it, inter for everything. A server
 * that does not answer its SYNs (a host that lost power) fails its check
 * when the connect part ends, not after the whole budget. */
static uint64_t check_connect_timeout(const struct lbd_check *c)
{
	const struct lbd_timeouts *t = &c->bcfg->timeouts;
	uint64_t inter = c->srv->o.inter;

	if (t->check)
		return t->connect && t->connect < inter ? t->connect : inter;
	return inter;
}

static uint64_t check_timeout(const struct lbd_check *c)
{
	return check_connect_timeout(c) + c->bcfg->timeouts.check;
}

static void set_deadline(struct lbd_check *c, uint64_t deadline)
{
	c->deadline = deadline;
	sd_event_source_set_time(c->timer, deadline);
	sd_event_source_set_enabled(c->timer, SD_EVENT_ONESHOT);
}

static void check_cleanup(struct lbd_check *c)
{
	c->io = sd_event_source_disable_unref(c->io);
	if (c->ssl) {
		SSL_free(c->ssl);
		c->ssl = NULL;
	}
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->rbuf);
	c->rbuf = NULL;
	c->rlen = c->sent = 0;
	c->connecting = false;
	if (c->xfer.h)
		check_http_abort(c);
}

static void schedule(struct lbd_check *c, uint64_t delay)
{
	c->running = false;
	sd_event_source_set_time_relative(c->timer, delay);
	sd_event_source_set_enabled(c->timer, SD_EVENT_ONESHOT);
}

/* option log-health-checks, as HAProxy 2.6: a failed check is logged unless
 * the server was already fully down, a passed one unless it was already
 * fully up, so every change of the health counter leaves a line. */
static void log_health_check(
	const struct lbd_check *c, unsigned before, bool ok, const char *reason, uint64_t dur)
{
	const struct lbd_server *srv = c->srv;
	const struct lbd_health *h = &srv->health;
	unsigned hv = h->health;
	bool up = hv >= h->rise;

	if (!c->bcfg->log_health_checks || !health_log_result(h, before, ok))
		return;
	log_notice("Health check for %sserver %s/%s %s, reason: %s, check duration: %llums, "
		   "status: %u/%u %s",
		srv->o.backup ? "backup " : "", srv->be->name, srv->name,
		ok ? "succeeded" : "failed", reason, (unsigned long long)(dur / 1000),
		up ? hv - h->rise + 1 : hv, up ? h->fall : h->rise, up ? "UP" : "DOWN");
}

/* When the next check runs: HAProxy's spread-checks moves it by up to
 * +/- that percent of the interval; without it, up to 5% early. */
static uint64_t next_interval(const struct lbd_check *c, uint64_t next)
{
	return health_jitter(next, c->rt->cfg ? c->rt->cfg->global.spread_checks : 0, rnd());
}

static void check_done(struct lbd_check *c, bool ok, const char *reason)
{
	struct lbd_server *srv = c->srv;
	uint64_t dur = lbd_now() - c->started, next;
	unsigned before = srv->health.health;

	check_cleanup(c);
	c->rt->check_result(c->rt, srv, ok, reason, dur);
	log_health_check(c, before, ok, reason, dur);
	if (c->stopped)
		return;
	next = health_interval(&srv->health, srv->o.inter, srv->o.fastinter, srv->o.downinter);
	schedule(c, next_interval(c, next));
}

static void target(const struct lbd_check *c, uint16_t rule_port, struct cpha_addr *a)
{
	const struct lbd_server_opts *o = &c->srv->o;

	*a = o->check_addr_set ? o->check_addr : c->srv->addr;
	if (rule_port)
		cpha_addr_set_port(a, rule_port);
	else if (o->check_port)
		cpha_addr_set_port(a, o->check_port);
	else if (cpha_addr_port(a) == 0)
		cpha_addr_set_port(a, cpha_addr_port(&c->srv->addr));
}

static void fail_errno(struct lbd_check *c, const char *layer, int err)
{
	char reason[160];

	snprintf(reason, sizeof(reason), "%s: %s", layer, strerror(err));
	check_done(c, false, reason);
}

static void fail_tls(struct lbd_check *c)
{
	char reason[200], e[120] = "handshake failed";
	unsigned long code = ERR_get_error();

	if (code)
		ERR_error_string_n(code, e, sizeof(e));
	ERR_clear_error();
	snprintf(reason, sizeof(reason), "Layer6 invalid response: TLS error: %s", e);
	check_done(c, false, reason);
}

static void want(struct lbd_check *c, uint32_t events)
{
	sd_event_source_set_io_events(c->io, events);
}

static void rules_continue(struct lbd_check *c);

static int on_check_io(sd_event_source *src, int fd, uint32_t revents, void *userdata)
{
	struct lbd_check *c = userdata;
	socklen_t len = sizeof(int);
	int err = 0;

	(void)src;
	(void)revents;
	if (c->connecting) {
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
			err = errno;
		if (err) {
			fail_errno(c, "Layer4 connection problem", err);
			return 0;
		}
		c->connecting = false;
		/* connected: the rest of the budget to answer */
		set_deadline(c, c->started + check_timeout(c));
	}
	rules_continue(c);
	return 0;
}

static int open_conn(struct lbd_check *c, uint16_t port)
{
	struct cpha_addr a;
	int fd, r;

	target(c, port, &a);
	fd = socket(a.ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1)
		return -errno;
	c->fd = fd;
	if (connect(fd, (struct sockaddr *)&a.ss, a.len) == -1 && errno != EINPROGRESS)
		return -errno;
	c->connecting = true;
	r = sd_event_add_io(c->rt->e, &c->io, fd, EPOLLOUT, on_check_io, c);
	return r < 0 ? r : 0;
}

static SSL_CTX *tls_ctx(struct lbd_check *c)
{
	const struct lbd_server_opts *o = &c->srv->o;
	const struct lbd_global *g = c->rt->cfg ? &c->rt->cfg->global : NULL;
	SSL_CTX *ctx;

	if (c->ssl_ctx)
		return c->ssl_ctx;
	ctx = SSL_CTX_new(TLS_client_method());
	if (!ctx)
		return NULL;
	/* ssl-default-server-ciphers / -ciphersuites (checked when read) */
	if (g && ((g->srv_ciphers && SSL_CTX_set_cipher_list(ctx, g->srv_ciphers) != 1) ||
			 (g->srv_ciphersuites &&
				 SSL_CTX_set_ciphersuites(ctx, g->srv_ciphersuites) != 1)))
		log_warn("server %s/%s: OpenSSL refuses the servers' default ciphers",
			c->srv->be->name, c->srv->name);
	/* ssl-default-server-options */
	if (g && g->srv_tls_min)
		SSL_CTX_set_min_proto_version(ctx, g->srv_tls_min);
	if (g && g->srv_tls_max)
		SSL_CTX_set_max_proto_version(ctx, g->srv_tls_max);
	if (g && g->srv_no_tickets)
		SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
	if (o->verify == LBD_VERIFY_NONE) {
		SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
	} else {
		SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
		if (o->ca_file && SSL_CTX_load_verify_locations(ctx, o->ca_file, NULL) != 1)
			log_warn("server %s/%s: cannot load ca-file %s", c->srv->be->name,
				c->srv->name, o->ca_file);
	}
	if (o->crt && (SSL_CTX_use_certificate_chain_file(ctx, o->crt) != 1 ||
			      SSL_CTX_use_PrivateKey_file(ctx, o->crt, SSL_FILETYPE_PEM) != 1))
		log_warn(
			"server %s/%s: cannot load crt %s", c->srv->be->name, c->srv->name, o->crt);
	ERR_clear_error();
	c->ssl_ctx = ctx;
	return ctx;
}

/* Returns 1 when done, 0 when waiting, -1 when failed (already reported). */
static int tls_handshake(struct lbd_check *c)
{
	int r, e;

	if (!c->ssl) {
		SSL_CTX *ctx = tls_ctx(c);

		c->ssl = ctx ? SSL_new(ctx) : NULL;
		if (!c->ssl || SSL_set_fd(c->ssl, c->fd) != 1) {
			fail_tls(c);
			return -1;
		}
	}
	if (SSL_is_init_finished((SSL *)c->ssl))
		return 1;
	r = SSL_connect(c->ssl);
	if (r == 1)
		return 1;
	e = SSL_get_error(c->ssl, r);
	if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
		want(c, e == SSL_ERROR_WANT_READ ? EPOLLIN : EPOLLOUT);
		return 0;
	}
	fail_tls(c);
	return -1;
}

/* Send: returns bytes, 0 with events set when it would block, -1 failed. */
static ssize_t c_send(struct lbd_check *c, const char *p, size_t len)
{
	ssize_t n;
	int e;

	if (c->ssl) {
		n = SSL_write(c->ssl, p, (int)len);
		if (n > 0)
			return n;
		e = SSL_get_error(c->ssl, (int)n);
		if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
			want(c, e == SSL_ERROR_WANT_READ ? EPOLLIN : EPOLLOUT);
			return 0;
		}
		return -1;
	}
	n = send(c->fd, p, len, MSG_NOSIGNAL);
	if (n == -1 && errno == EAGAIN) {
		want(c, EPOLLOUT);
		return 0;
	}
	return n;
}

/* Receive into rbuf: >0 bytes, 0 EOF, -2 would block (events set), -1 error. */
static ssize_t c_recv(struct lbd_check *c)
{
	ssize_t n;
	int e;

	if (!c->rbuf) {
		c->rbuf = malloc(CHECK_RBUF_MAX + 1);
		if (!c->rbuf)
			return -1;
	}
	if (c->rlen >= CHECK_RBUF_MAX)
		return 0; /* full: decide on what we have */
	if (c->ssl) {
		n = SSL_read(c->ssl, c->rbuf + c->rlen, (int)(CHECK_RBUF_MAX - c->rlen));
		if (n <= 0) {
			e = SSL_get_error(c->ssl, (int)n);
			if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
				want(c, e == SSL_ERROR_WANT_READ ? EPOLLIN : EPOLLOUT);
				return -2;
			}
			return e == SSL_ERROR_ZERO_RETURN ? 0 : -1;
		}
	} else {
		n = recv(c->fd, c->rbuf + c->rlen, CHECK_RBUF_MAX - c->rlen, 0);
		if (n == -1 && errno == EAGAIN) {
			want(c, EPOLLIN);
			return -2;
		}
		if (n <= 0)
			return n;
	}
	c->rlen += (size_t)n;
	c->rbuf[c->rlen] = '\0';
	return n;
}

static bool rule_matches(const struct lbd_tcpcheck_rule *r, const char *buf, size_t len)
{
	if (r->action == LBD_TCPCHK_EXPECT_STRING)
		return r->len <= len && memmem(buf, len, r->data, r->len) != NULL;
	return regexec(&r->re, buf, 0, NULL, 0) == 0;
}

static void rules_continue(struct lbd_check *c)
{
	const struct lbd_backend *b = c->bcfg;
	char reason[200];
	ssize_t n;
	int r;

	while (c->step < b->ntcpcheck) {
		const struct lbd_tcpcheck_rule *rule = &b->tcpcheck[c->step];

		switch (rule->action) {
		case LBD_TCPCHK_CONNECT:
			if (c->fd < 0) {
				r = open_conn(c, rule->port);
				if (r < 0) {
					fail_errno(c, "Layer4 connection problem", -r);
					return;
				}
				return; /* on_check_io continues */
			}
			if (c->connecting)
				return;
			if (rule->ssl) {
				r = tls_handshake(c);
				if (r <= 0)
					return;
			}
			c->step++;
			/* a later connect rule opens a new connection */
			if (c->step < b->ntcpcheck &&
				b->tcpcheck[c->step].action == LBD_TCPCHK_CONNECT) {
				check_cleanup(c);
			}
			break;
		case LBD_TCPCHK_SEND:
			while (c->sent < rule->len) {
				n = c_send(c, rule->data + c->sent, rule->len - c->sent);
				if (n == 0)
					return;
				if (n < 0) {
					snprintf(reason, sizeof(reason),
						"Layer4 connection problem at step %zu (send): %s",
						c->step + 1,
						c->ssl ? "TLS write failed" : strerror(errno));
					check_done(c, false, reason);
					return;
				}
				c->sent += (size_t)n;
			}
			c->sent = 0;
			c->step++;
			break;
		case LBD_TCPCHK_EXPECT_STRING:
		case LBD_TCPCHK_EXPECT_RSTRING:
			for (;;) {
				bool found = c->rbuf && rule_matches(rule, c->rbuf, c->rlen);

				if (found && rule->negate) {
					snprintf(reason, sizeof(reason),
						"TCPCHK matched unwanted content at step %zu",
						c->step + 1);
					check_done(c, false, reason);
					return;
				}
				if (found)
					break;
				n = c_recv(c);
				if (n == -2)
					return;
				if (n > 0)
					continue;
				if (n == 0 && rule->negate)
					break; /* the end came without the pattern: good */
				snprintf(reason, sizeof(reason),
					"TCPCHK did not match content at step %zu%s", c->step + 1,
					n < 0 ? " (read error)" : "");
				check_done(c, false, reason);
				return;
			}
			c->rlen = 0; /* what matched is consumed */
			c->step++;
			break;
		}
	}
	check_done(c, true, b->ntcpcheck > 1 ? "Layer7 check passed" : "Layer4 check passed");
}

static void check_begin(struct lbd_check *c)
{
	int r;

	c->running = true;
	c->started = lbd_now();
	c->connect_usec = check_connect_timeout(c);
	/* first the connect part; once connected, the whole budget */
	set_deadline(c, c->started + c->connect_usec);
	c->step = 0;
	c->fd = -1;
	switch (c->bcfg->check_kind) {
	case LBD_CHECK_HTTP:
		r = check_http_start(c);
		if (r < 0)
			fail_errno(c, "Layer7 resource error", -r);
		return;
	case LBD_CHECK_CONNECT:
		r = open_conn(c, 0);
		if (r < 0)
			fail_errno(c, "Layer4 connection problem", -r);
		return;
	case LBD_CHECK_TCP:
		if (c->bcfg->ntcpcheck == 0) {
			r = open_conn(c, 0);
			if (r < 0)
				fail_errno(c, "Layer4 connection problem", -r);
			return;
		}
		rules_continue(c);
		return;
	}
}

static int on_check_timer(sd_event_source *src, uint64_t usec, void *userdata)
{
	struct lbd_check *c = userdata;

	(void)src;
	(void)usec;
	if (!c->running) {
		check_begin(c);
		return 0;
	}
	if (c->bcfg->check_kind == LBD_CHECK_HTTP && c->deadline < c->started + check_timeout(c)) {
		if (check_http_connected(c)) {
			set_deadline(c, c->started + check_timeout(c));
			return 0;
		}
		check_done(c, false, "Layer4 timeout");
		return 0;
	}
	check_done(c, false,
		c->connecting                              ? "Layer4 timeout"
		: c->bcfg->check_kind == LBD_CHECK_CONNECT ? "Layer4 timeout"
							   : "Layer7 timeout");
	return 0;
}

struct lbd_check *check_new(struct lbd_runtime *rt)
{
	struct lbd_check *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->fd = -1;
	c->stopped = true;
	c->done = check_done;
	if (rt->e && (sd_event_add_time_relative(
			      rt->e, &c->timer, CLOCK_MONOTONIC, 0, 1000, on_check_timer, c) < 0 ||
			     sd_event_source_set_enabled(c->timer, SD_EVENT_OFF) < 0)) {
		check_discard(c);
		return NULL;
	}
	return c;
}

void check_discard(struct lbd_check *c)
{
	if (!c)
		return;
	sd_event_source_disable_unref(c->timer);
	free(c);
}

int check_start(struct lbd_runtime *rt, struct lbd_server *srv, const struct lbd_backend *bcfg,
	uint64_t first_delay)
{
	struct lbd_check *c = srv->check;
	int r;

	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return -ENOMEM;
		c->fd = -1;
		srv->check = c;
	}
	check_cleanup(c);
	c->rt = rt;
	c->srv = srv;
	c->bcfg = bcfg;
	c->stopped = false;
	if (c->ssl_ctx) { /* settings may have changed with a reload */
		SSL_CTX_free(c->ssl_ctx);
		c->ssl_ctx = NULL;
	}
	/* read ca-file and crt now, as HAProxy does at start: after a chroot
	 * (privdrop.c) their paths may be out of reach */
	if (bcfg->check_kind == LBD_CHECK_TCP && (srv->o.ca_file || srv->o.crt))
		tls_ctx(c);
	if (!c->timer) {
		r = sd_event_add_time_relative(
			rt->e, &c->timer, CLOCK_MONOTONIC, first_delay, 1000, on_check_timer, c);
		if (r < 0)
			return r;
	}
	schedule(c, first_delay);
	return 0;
}

void check_stop(struct lbd_server *srv)
{
	struct lbd_check *c = srv->check;

	if (!c)
		return;
	c->stopped = true;
	check_cleanup(c);
	c->running = false;
	if (c->timer)
		sd_event_source_set_enabled(c->timer, SD_EVENT_OFF);
}

void check_resume(struct lbd_runtime *rt, struct lbd_server *srv)
{
	struct lbd_check *c = srv->check;

	if (c && c->bcfg)
		check_start(rt, srv, c->bcfg, rnd() % (srv->o.inter ? srv->o.inter : 1));
}

void check_hasten(struct lbd_server *srv, uint64_t delay)
{
	struct lbd_check *c = srv->check;
	uint64_t now, at;

	if (!c || c->stopped || c->running || !c->timer ||
		sd_event_now(c->rt->e, CLOCK_MONOTONIC, &now) < 0 ||
		sd_event_source_get_time(c->timer, &at) < 0 || at <= now + delay)
		return;
	schedule(c, delay);
}

void check_free(struct lbd_server *srv)
{
	struct lbd_check *c = srv->check;

	if (!c)
		return;
	check_stop(srv);
	sd_event_source_disable_unref(c->timer);
	if (c->ssl_ctx)
		SSL_CTX_free(c->ssl_ctx);
	free(c);
	srv->check = NULL;
}

uint64_t check_first_delay(const struct lbd_server *srv)
{
	uint64_t span =
		srv->o.inter < CHECK_FIRST_SPREAD_MAX ? srv->o.inter : CHECK_FIRST_SPREAD_MAX;

	return span ? rnd() % span : 0;
}
