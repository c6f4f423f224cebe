#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proxy-types.h"
#include "splice.h"

#define SPLICE_CHUNK  (1u << 20) /* ask for up to this much per splice call */
#define PIPE_POOL_MAX 64         /* empty pipes kept per worker */

struct lbd_pipe *splice_pipe_get(struct lbd_worker *w)
{
	struct lbd_pipe *p = w->pipes;
	int n;

	if (p) {
		w->pipes = p->next;
		w->npipes--;
		return p;
	}
	/* pipes are optional (the flow copies instead): stay within the
	 * descriptors counted for them (HAProxy's maxpipes) */
	if (atomic_fetch_add(&w->rt->npipes, 1) >= atomic_load(&w->rt->maxpipes)) {
		atomic_fetch_sub(&w->rt->npipes, 1);
		return NULL;
	}
	p = malloc(sizeof(*p));
	if (!p || pipe2(p->fd, O_NONBLOCK | O_CLOEXEC) == -1) {
		free(p);
		atomic_fetch_sub(&w->rt->npipes, 1);
		return NULL;
	}
	n = fcntl(p->fd[0], F_GETPIPE_SZ);
	p->size = n > 0 ? (size_t)n : 65536;
	return p;
}

static void pipe_free(struct lbd_worker *w, struct lbd_pipe *p)
{
	close(p->fd[0]);
	close(p->fd[1]);
	free(p);
	atomic_fetch_sub(&w->rt->npipes, 1);
}

void splice_pipe_put(struct lbd_worker *w, struct lbd_pipe *p)
{
	if (w->npipes >= PIPE_POOL_MAX) {
		pipe_free(w, p);
		return;
	}
	p->next = w->pipes;
	w->pipes = p;
	w->npipes++;
}

void splice_pool_free(struct lbd_worker *w)
{
	struct lbd_pipe *p;

	while ((p = w->pipes)) {
		w->pipes = p->next;
		pipe_free(w, p);
	}
	w->npipes = 0;
}

void splice_flow_release(struct lbd_worker *w, struct lbd_flow *f)
{
	if (f->pipe) {
		if (f->in_pipe == 0) {
			splice_pipe_put(w, f->pipe);
		} else {
			/* data nobody will read: the pipe cannot be reused */
			pipe_free(w, f->pipe);
		}
		f->pipe = NULL;
	}
	free(f->buf);
	f->buf = NULL;
}

static enum lbd_pump_result pass_fin(struct lbd_flow *f, int dst, bool by_close)
{
	if (!f->dst_shut) {
		f->dst_shut = true;
		/* when the session closes both sockets right away, close(2)
		 * sends this FIN: the socket has nothing unread left */
		if (!by_close && shutdown(dst, SHUT_WR) == -1 && errno != ENOTCONN)
			return LBD_PUMP_DST_ERR;
	}
	return LBD_PUMP_OK;
}

/* Send what a MSG_MORE send held back (TCP_NODELAY pushes pending frames). */
static void uncork(int dst)
{
	int one = 1;

	setsockopt(dst, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* Copy mode: read into the worker's scratch buffer and write at once; only
 * what the destination does not take is kept, in a buffer of its own. */
static enum lbd_pump_result pump_copy(
	struct lbd_worker *w, struct lbd_flow *f, int src, int dst, bool by_close, size_t *moved)
{
	bool corked = false; /* the last send held its bytes for the FIN */
	ssize_t n, k;
	int more;

	for (;;) {
		while (f->blen > 0) {
			n = send(dst, f->buf + f->boff, f->blen, MSG_NOSIGNAL | MSG_DONTWAIT);
			if (n == -1 && errno == EINTR)
				continue;
			if (n == -1 && errno == EAGAIN) {
				f->dst_blocked = true;
				return LBD_PUMP_OK;
			}
			if (n == -1)
				return LBD_PUMP_DST_ERR;
			f->boff += (size_t)n;
			f->blen -= (size_t)n;
			f->bytes += (uint64_t)n;
			*moved += (size_t)n;
		}
		free(f->buf);
		f->buf = NULL;
		f->boff = 0;
		f->dst_blocked = false;
		if (f->src_eof)
			return pass_fin(f, dst, by_close);
		if (!f->src_ready || (f->bulk && !f->no_splice))
			return LBD_PUMP_OK;
		n = recv(src, w->scratch, LBD_COPY_BUF, MSG_DONTWAIT);
		if (n == -1 && errno == EINTR)
			continue;
		if (corked && n != 0) {
			/* not the FIN that was due: send what was held, in
			 * front of any reset */
			uncork(dst);
			corked = false;
		}
		if (n == -1 && errno == EAGAIN) {
			f->src_ready = false;
			continue;
		}
		if (n == -1)
			return LBD_PUMP_SRC_ERR;
		if (n == 0) {
			f->src_eof = true;
			continue;
		}
		if ((size_t)n == LBD_COPY_BUF) {
			f->bulk = true; /* a full buffer: splice the rest */
		} else if (!f->src_rdhup) {
			f->src_ready = false; /* a short read drained the socket */
		}
		/* after the peer's FIN or reset, read once more: only the
		 * next read tells a clean end (0) from an abort (error).
		 * A short read after the FIN took all there is: MSG_MORE
		 * holds these bytes so that the FIN the next read finds
		 * leaves with them, one segment where there were two
		 * (a server that speaks first and closes); the client
		 * reads the same bytes and the same end. */
		more = f->src_rdhup && (size_t)n < LBD_COPY_BUF ? MSG_MORE : 0;
		k = send(dst, w->scratch, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT | more);
		if (k == -1 && errno != EAGAIN && errno != EINTR)
			return LBD_PUMP_DST_ERR;
		if (k < 0)
			k = 0;
		f->bytes += (uint64_t)k;
		*moved += (size_t)k;
		corked = more && k == n;
		if (k < n) {
			f->buf = malloc((size_t)(n - k));
			if (!f->buf)
				return LBD_PUMP_RESOURCE;
			memcpy(f->buf, w->scratch + k, (size_t)(n - k));
			f->blen = (size_t)(n - k);
		}
	}
}

enum lbd_pump_result splice_pump(struct lbd_worker *w, struct lbd_flow *f, int src, int dst,
	bool fin_by_close, size_t *moved)
{
	ssize_t n;

	*moved = 0;
	if (f->dst_shut)
		return LBD_PUMP_OK;
	if (!f->bulk || f->no_splice || f->blen) {
		enum lbd_pump_result r = pump_copy(w, f, src, dst, fin_by_close, moved);

		if (r != LBD_PUMP_OK || !f->bulk || f->no_splice || f->blen || f->dst_shut)
			return r;
		/* became bulk: go on with splice */
	}
	for (;;) {
		/* first flush what the pipe holds */
		while (f->in_pipe > 0) {
			n = splice(f->pipe->fd[0], NULL, dst, NULL, f->in_pipe,
				SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n == -1 && errno == EINTR)
				continue;
			if (n == -1 && errno == EAGAIN) {
				f->dst_blocked = true;
				return LBD_PUMP_OK;
			}
			if (n == -1)
				return LBD_PUMP_DST_ERR;
			f->in_pipe -= (size_t)n;
			f->bytes += (uint64_t)n;
			*moved += (size_t)n;
		}
		f->dst_blocked = false;
		if (f->src_eof || !f->src_ready) {
			if (f->pipe) { /* empty: back to the pool while idle */
				splice_pipe_put(w, f->pipe);
				f->pipe = NULL;
			}
			return f->src_eof ? pass_fin(f, dst, fin_by_close) : LBD_PUMP_OK;
		}
		if (!f->pipe) {
			f->pipe = splice_pipe_get(w);
			if (!f->pipe) {
				f->no_splice = true; /* no pipe to spare: copy instead */
				return pump_copy(w, f, src, dst, fin_by_close, moved);
			}
		}
		n = splice(src, NULL, f->pipe->fd[1], NULL, SPLICE_CHUNK,
			SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN) {
			/* nothing to read (the pipe is empty here, so it is not
			 * full) */
			f->src_ready = false;
			continue;
		}
		if (n == -1 && (errno == EINVAL || errno == ENOSYS)) {
			splice_pipe_put(w, f->pipe);
			f->pipe = NULL;
			f->no_splice = true;
			return pump_copy(w, f, src, dst, fin_by_close, moved);
		}
		if (n == -1)
			return LBD_PUMP_SRC_ERR;
		if (n == 0) {
			f->src_eof = true;
		} else if ((size_t)n < f->pipe->size && !f->src_rdhup) {
			/* less than the empty pipe could take: the socket is
			 * drained. After the peer's FIN or reset the next read
			 * says which of the two it was. */
			f->src_ready = false;
		}
		f->in_pipe = (size_t)n;
	}
}
