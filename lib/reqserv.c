#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "reqserv.h"

struct rs_conn {
	struct cpha__reqserv *srv;
	struct rs_conn *prev, *next;
	int fd;
	sd_event_source *io, *timer;
	struct cpha_buf in, out;
	size_t sent;
	int replying;
};

struct cpha__reqserv {
	sd_event *e;
	int fd;
	sd_event_source *io;
	cpha__req_complete_fn complete;
	cpha__req_handle_fn handle;
	void *userdata;
	size_t max_req;
	uint64_t timeout;
	unsigned max_conns, nconns;
	struct rs_conn *conns;
};

static void conn_free(struct rs_conn *c)
{
	struct cpha__reqserv *s = c->srv;

	if (c->prev)
		c->prev->next = c->next;
	else
		s->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	s->nconns--;
	sd_event_source_disable_unref(c->io);
	sd_event_source_disable_unref(c->timer);
	close(c->fd);
	cpha_buf_free(&c->in);
	cpha_buf_free(&c->out);
	free(c);
}

static int conn_write(struct rs_conn *c)
{
	ssize_t n;

	while (c->sent < c->out.len) {
		n = send(c->fd, c->out.data + c->sent, c->out.len - c->sent, MSG_NOSIGNAL);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return 0;
		if (n == -1) {
			conn_free(c);
			return 0;
		}
		c->sent += (size_t)n;
	}
	shutdown(c->fd, SHUT_WR);
	conn_free(c);
	return 0;
}

static void conn_reply(struct rs_conn *c, long reqlen)
{
	char *req = c->in.data;

	req[reqlen] = '\0'; /* the rest of the input is ignored */
	c->srv->handle(c->srv->userdata, req, (size_t)reqlen, &c->out);
	c->replying = 1;
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
	if (revents & (EPOLLERR)) {
		conn_free(c);
		return 0;
	}
	for (;;) {
		n = recv(c->fd, chunk, sizeof(chunk), 0);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return 0;
		if (n == -1) {
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
		if (reqlen < 0 || n == 0 || c->in.len > c->srv->max_req) {
			conn_free(c);
			return 0;
		}
	}
}

static int on_conn_timeout(sd_event_source *src, uint64_t usec, void *userdata)
{
	(void)src;
	(void)usec;
	conn_free(userdata);
	return 0;
}

static int on_accept(sd_event_source *src, int fd, uint32_t revents, void *userdata)
{
	struct cpha__reqserv *s = userdata;
	struct rs_conn *c;
	int cfd, r;

	(void)src;
	(void)revents;
	for (;;) {
		cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (cfd == -1) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno != EAGAIN)
				log_warn("accept on listener fd %d: %m", fd);
			return 0;
		}
		if (s->nconns >= s->max_conns) {
			close(cfd);
			continue;
		}
		c = calloc(1, sizeof(*c));
		if (!c) {
			close(cfd);
			continue;
		}
		c->srv = s;
		c->fd = cfd;
		r = sd_event_add_io(s->e, &c->io, cfd, EPOLLIN, on_conn_io, c);
		if (r >= 0)
			r = sd_event_add_time_relative(s->e, &c->timer, CLOCK_MONOTONIC, s->timeout,
				0, on_conn_timeout, c);
		c->next = s->conns;
		if (s->conns)
			s->conns->prev = c;
		s->conns = c;
		s->nconns++;
		if (r < 0)
			conn_free(c);
	}
}

int cpha__reqserv_new(struct cpha__reqserv **out, sd_event *e, int listen_fd,
	cpha__req_complete_fn complete, cpha__req_handle_fn handle, void *userdata, size_t max_req,
	uint64_t timeout_usec, unsigned max_conns)
{
	struct cpha__reqserv *s;
	int r;

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
	s->max_req = max_req;
	s->timeout = timeout_usec;
	s->max_conns = max_conns;
	r = sd_event_add_io(e, &s->io, listen_fd, EPOLLIN, on_accept, s);
	if (r < 0) {
		cpha__reqserv_free(s);
		return r;
	}
	*out = s;
	return 0;
}

void cpha__reqserv_free(struct cpha__reqserv *s)
{
	if (!s)
		return;
	while (s->conns)
		conn_free(s->conns);
	sd_event_source_disable_unref(s->io);
	close(s->fd);
	sd_event_unref(s->e);
	free(s);
}
