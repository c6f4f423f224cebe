#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "log.h"
#include "reqserv.h"

struct rs_conn {
	struct cpha__reqserv *srv;
	struct rs_conn *prev, *next; /* oldest first */
	int fd;
	sd_event_source *io, *timer;
	struct cpha__req_peer peer;
	struct cpha_buf in, out;
	size_t sent;
	int replying;
	SSL *ssl; /* TLS: the session; NULL for plain text */
};

struct cpha__reqserv {
	sd_event *e;
	int fd;
	sd_event_source *io;
	cpha__req_complete_fn complete;
	cpha__req_handle_fn handle;
	void *userdata;
	struct cpha__reqserv_limits lim;
	unsigned nconns;
	struct rs_conn *head, *tail;
	SSL_CTX *ssl_ctx; /* new clients speak TLS; NULL: plain text */
};

static void conn_free(struct rs_conn *c)
{
	struct cpha__reqserv *s = c->srv;

	if (c->prev)
		c->prev->next = c->next;
	else
		s->head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		s->tail = c->prev;
	s->nconns--;
	sd_event_source_disable_unref(c->io);
	sd_event_source_disable_unref(c->timer);
	SSL_free(c->ssl);
	close(c->fd);
	cpha_buf_free(&c->in);
	cpha_buf_free(&c->out);
	free(c);
}

/* TLS: what SSL_read/SSL_write/SSL_shutdown said. The events to wait for
 * next (a read may need to write during the handshake, and the other way
 * round); -1 when the session is over or broken. */
static int tls_wait(struct rs_conn *c, int ret)
{
	switch (SSL_get_error(c->ssl, ret)) {
	case SSL_ERROR_WANT_READ:
		sd_event_source_set_io_events(c->io, EPOLLIN);
		return 0;
	case SSL_ERROR_WANT_WRITE:
		sd_event_source_set_io_events(c->io, EPOLLOUT);
		return 0;
	case SSL_ERROR_SSL:
		/* a handshake refused (plain HTTP on a TLS port, no shared
		 * version): the same text every time, folded by the rate limit */
		cpha_log(LOG_INFO, "%s: TLS: %s", c->srv->lim.what,
			ERR_reason_error_string(ERR_peek_last_error())
				? ERR_reason_error_string(ERR_peek_last_error())
				: "handshake failed");
		ERR_clear_error();
		return -1;
	default:
		ERR_clear_error();
		return -1;
	}
}

/* Send what is left of the reply; 1 once all of it went, 0 to wait, -1 on
 * an error. */
static int conn_send(struct rs_conn *c)
{
	ssize_t n;
	int r;

	while (c->sent < c->out.len) {
		if (c->ssl) {
			ERR_clear_error(); /* SSL_get_error() reads the queue */
			r = SSL_write(c->ssl, c->out.data + c->sent, (int)(c->out.len - c->sent));
			if (r <= 0)
				return tls_wait(c, r);
			c->sent += (size_t)r;
			continue;
		}
		n = send(c->fd, c->out.data + c->sent, c->out.len - c->sent, MSG_NOSIGNAL);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return 0;
		if (n == -1)
			return -1;
		c->sent += (size_t)n;
	}
	return 1;
}

static int conn_write(struct rs_conn *c)
{
	if (conn_send(c) == 0)
		return 0;
	if (c->ssl && c->sent == c->out.len)
		SSL_shutdown(c->ssl); /* close_notify, once; the reply is complete anyway */
	shutdown(c->fd, SHUT_WR);
	conn_free(c);
	return 0;
}

/* Read into buf: the byte count, 0 at the end of input, -EAGAIN to wait
 * (the events to wait for set), or -EIO. */
static ssize_t conn_recv(struct rs_conn *c, char *buf, size_t len)
{
	ssize_t n;
	int r;

	if (c->ssl) {
		ERR_clear_error();
		r = SSL_read(c->ssl, buf, (int)len);
		if (r > 0)
			return r;
		if (SSL_get_error(c->ssl, r) == SSL_ERROR_ZERO_RETURN)
			return 0;
		return tls_wait(c, r) == 0 ? -EAGAIN : -EIO;
	}
	for (;;) {
		n = recv(c->fd, buf, len, 0);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return -EAGAIN;
		return n == -1 ? -EIO : n;
	}
}

static void conn_reply(struct rs_conn *c, long reqlen)
{
	char *req = c->in.data;

	req[reqlen] = '\0'; /* the rest of the input is ignored */
	c->srv->handle(c->srv->userdata, &c->peer, req, (size_t)reqlen, &c->out);
	cpha_buf_free(&c->in);
	c->replying = 1;
	/* a client that asked may take its time to read, within reply_usec */
	sd_event_source_set_time_relative(c->timer, c->srv->lim.reply_usec);
	sd_event_source_set_io_events(c->io, EPOLLOUT);
	conn_write(c);
}

static int on_conn_io(sd_event_source *src, int fd, uint32_t revents, void *userdata)
{
	struct rs_conn *c = userdata;
	char chunk[4096];
	ssize_t n;
	long reqlen;

	(void)src;
	(void)fd;
	if (c->replying)
		return conn_write(c);
	if (revents & EPOLLERR) {
		conn_free(c);
		return 0;
	}
	for (;;) {
		n = conn_recv(c, chunk, sizeof(chunk));
		if (n == -EAGAIN)
			return 0;
		if (n < 0) {
			conn_free(c);
			return 0;
		}
		if (n > 0 && cpha_buf_append(&c->in, chunk, (size_t)n) < 0) {
			conn_free(c);
			return 0;
		}
		reqlen = c->srv->complete(c->in.data ? c->in.data : "", c->in.len, n == 0);
		if (reqlen > 0) {
			conn_reply(c, reqlen);
			return 0;
		}
		if (reqlen < 0 || n == 0 || c->in.len > c->srv->lim.max_req) {
			conn_free(c);
			return 0;
		}
	}
}

static int on_conn_timeout(sd_event_source *src, uint64_t usec, void *userdata)
{
	struct rs_conn *c = userdata;

	(void)src;
	(void)usec;
	/* the same text every time: the log's rate limit folds repeats */
	cpha_log(LOG_INFO, "%s: dropped a client that %s", c->srv->lim.what,
		c->replying ? "did not take its reply in time"
			    : "sent no complete request in time");
	conn_free(c);
	return 0;
}

/* Who is connected on fd: credentials over UNIX sockets, the address
 * over TCP (an IPv4-mapped IPv6 address is shown as IPv4). */
static void peer_of(int fd, struct cpha__req_peer *p)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct sockaddr_in6 *s6;
	struct sockaddr_in s4;

	memset(p, 0, sizeof(*p));
	p->pid = -1;
	p->uid = (uid_t)-1;
	p->gid = (gid_t)-1;
	p->addr.len = sizeof(p->addr.ss);
	if (getpeername(fd, (struct sockaddr *)&p->addr.ss, &p->addr.len) == -1)
		p->addr.len = 0;
	p->family = p->addr.len ? p->addr.ss.ss_family : AF_UNSPEC;
	if (p->family == AF_UNIX || p->family == AF_UNSPEC) {
		p->family = AF_UNIX;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) {
			p->pid = cred.pid;
			p->uid = cred.uid;
			p->gid = cred.gid;
		}
		return;
	}
	s6 = (struct sockaddr_in6 *)&p->addr.ss;
	if (p->family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
		memset(&s4, 0, sizeof(s4));
		s4.sin_family = AF_INET;
		s4.sin_port = s6->sin6_port;
		memcpy(&s4.sin_addr, &s6->sin6_addr.s6_addr[12], 4);
		memset(&p->addr.ss, 0, sizeof(p->addr.ss));
		memcpy(&p->addr.ss, &s4, sizeof(s4));
		p->addr.len = sizeof(s4);
		p->family = AF_INET;
	}
}

/* The same peer for the per-peer limit: one uid, or one address (any port). */
static int same_peer(const struct cpha__req_peer *a, const struct cpha__req_peer *b)
{
	if (a->family != b->family)
		return 0;
	if (a->family == AF_UNIX)
		return a->uid == b->uid;
	if (a->family == AF_INET)
		return memcmp(&((const struct sockaddr_in *)&a->addr.ss)->sin_addr,
			       &((const struct sockaddr_in *)&b->addr.ss)->sin_addr, 4) == 0;
	if (a->family == AF_INET6)
		return memcmp(&((const struct sockaddr_in6 *)&a->addr.ss)->sin6_addr,
			       &((const struct sockaddr_in6 *)&b->addr.ss)->sin6_addr, 16) == 0;
	return 1;
}

static void peer_name(const struct cpha__req_peer *p, char *buf, size_t len)
{
	struct cpha_addr ip = p->addr;
	char a[CPHA_ADDR_STRLEN];

	if (p->family == AF_UNIX) {
		snprintf(buf, len, "uid %ld", p->uid == (uid_t)-1 ? -1L : (long)p->uid);
		return;
	}
	cpha_addr_set_port(&ip, 0); /* the address alone: lines about one peer are alike */
	snprintf(buf, len, "%s", ip.len ? cpha_addr_format(&ip, a, sizeof(a)) : "?");
}

/* Make room for a client of peer p: NULL when there is room, the client to
 * drop for it, or (void *)-1 when every slot it could take is replying. */
static struct rs_conn *room_for(struct cpha__reqserv *s, const struct cpha__req_peer *p)
{
	struct rs_conn *c, *oldest_same = NULL, *oldest = NULL;
	unsigned same = 0;

	for (c = s->head; c; c = c->next) {
		if (same_peer(&c->peer, p)) {
			same++;
			if (!c->replying && !oldest_same)
				oldest_same = c;
		}
		if (!c->replying && !oldest)
			oldest = c;
	}
	if (same >= s->lim.max_per_peer)
		return oldest_same ? oldest_same : (struct rs_conn *)-1;
	if (s->nconns >= s->lim.max_conns)
		return oldest ? oldest : (struct rs_conn *)-1;
	return NULL;
}

static void accept_one(struct cpha__reqserv *s, int cfd)
{
	struct cpha__req_peer p;
	struct rs_conn *c, *victim;
	char who[CPHA_ADDR_STRLEN + 16];
	int r;

	peer_of(cfd, &p);
	victim = room_for(s, &p);
	if (victim == (struct rs_conn *)-1) {
		peer_name(&p, who, sizeof(who));
		cpha_log(LOG_WARNING,
			"%s: every slot is taken by a client being answered: refused %s",
			s->lim.what, who);
		close(cfd);
		return;
	}
	if (victim) {
		peer_name(&victim->peer, who, sizeof(who));
		cpha_log(LOG_INFO, "%s: dropped the oldest client of %s still sending its request",
			s->lim.what, who);
		conn_free(victim);
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(cfd);
		return;
	}
	c->srv = s;
	c->fd = cfd;
	c->peer = p;
	c->prev = s->tail;
	if (s->tail)
		s->tail->next = c;
	else
		s->head = c;
	s->tail = c;
	s->nconns++;
	if (s->ssl_ctx) {
		/* the handshake counts in request_usec, like the request */
		c->ssl = SSL_new(s->ssl_ctx);
		if (!c->ssl || SSL_set_fd(c->ssl, cfd) != 1) {
			conn_free(c);
			return;
		}
		SSL_set_accept_state(c->ssl);
	}
	r = sd_event_add_io(s->e, &c->io, cfd, EPOLLIN, on_conn_io, c);
	if (r >= 0)
		r = sd_event_add_time_relative(s->e, &c->timer, CLOCK_MONOTONIC,
			s->lim.request_usec, 0, on_conn_timeout, c);
	if (r < 0) {
		conn_free(c);
		return;
	}
	/* a client that wrote its request with the connect is answered now,
	 * before later connections can push it out */
	on_conn_io(c->io, cfd, EPOLLIN, c);
}

static int on_accept(sd_event_source *src, int fd, uint32_t revents, void *userdata)
{
	struct cpha__reqserv *s = userdata;
	int cfd;

	(void)src;
	(void)revents;
	for (;;) {
		cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (cfd == -1) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno != EAGAIN)
				cpha_log(LOG_WARNING, "%s: accept: %m", s->lim.what);
			return 0;
		}
		accept_one(s, cfd);
	}
}

int cpha__reqserv_new(struct cpha__reqserv **out, sd_event *e, int listen_fd,
	cpha__req_complete_fn complete, cpha__req_handle_fn handle, void *userdata,
	const struct cpha__reqserv_limits *lim)
{
	struct cpha__reqserv *s;
	int r;

	if (!lim->max_conns || !lim->max_per_peer) {
		close(listen_fd);
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		close(listen_fd);
		return -ENOMEM;
	}
	s->e = sd_event_ref(e);
	s->fd = listen_fd;
	s->complete = complete;
	s->handle = handle;
	s->userdata = userdata;
	s->lim = *lim;
	if (!s->lim.what)
		s->lim.what = "server";
	r = sd_event_add_io(e, &s->io, listen_fd, EPOLLIN, on_accept, s);
	if (r < 0) {
		cpha__reqserv_free(s);
		return r;
	}
	*out = s;
	return 0;
}

int cpha__reqserv_set_tls(struct cpha__reqserv *s, void *ssl_ctx)
{
	if (ssl_ctx && SSL_CTX_up_ref(ssl_ctx) != 1)
		return -ENOMEM;
	SSL_CTX_free(s->ssl_ctx);
	s->ssl_ctx = ssl_ctx;
	return 0;
}

unsigned cpha__reqserv_nconns(const struct cpha__reqserv *s)
{
	return s->nconns;
}

void cpha__reqserv_free(struct cpha__reqserv *s)
{
	if (!s)
		return;
	while (s->head)
		conn_free(s->head);
	sd_event_source_disable_unref(s->io);
	close(s->fd);
	SSL_CTX_free(s->ssl_ctx);
	sd_event_unref(s->e);
	free(s);
}
