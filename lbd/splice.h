/* Moving bytes one way between two sockets. A flow starts with plain
 * recv/send through the worker's scratch buffer (small request/response
 * traffic costs fewer syscalls and no pipe); once a read fills the buffer
 * the flow is bulk and moves to splice(2) through a pipe from a per-worker
 * pool (zero-copy). Where splice cannot be used, it stays a copy. */
#ifndef LBD_SPLICE_H
#define LBD_SPLICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lbd_worker;
struct lbd_pipe;

#define LBD_COPY_BUF 16384 /* scratch buffer; a read that fills it makes a flow bulk */

struct lbd_flow {
	struct lbd_pipe *pipe; /* held only while it has data in it */
	size_t in_pipe;        /* bytes in the pipe */
	char *buf;             /* bytes read but not yet written (copy mode only) */
	size_t boff, blen;
	bool bulk;        /* splice from now on */
	bool no_splice;   /* splice refused these sockets: copy */
	bool src_eof;     /* read side saw the end */
	bool dst_shut;    /* FIN passed on to the write side */
	bool dst_blocked; /* the write side is full */
	bool src_ready;   /* the read side may have data: an edge came, or the
			   * last read took all that was asked */
	bool src_rdhup;   /* the read side's peer sent its FIN or reset (EPOLLRDHUP
			   * or EPOLLHUP seen;
			   * kept, since the edge does not come again) */
	uint64_t bytes;   /* moved so far */
};

enum lbd_pump_result {
	LBD_PUMP_OK,       /* would block, or done: wait for events */
	LBD_PUMP_SRC_ERR,  /* reading failed (reset by the source peer) */
	LBD_PUMP_DST_ERR,  /* writing failed (reset by the destination peer) */
	LBD_PUMP_RESOURCE, /* no pipe and no memory */
};

/* Move what can be moved from src to dst without blocking; pass a FIN on
 * once everything before it is written. A source that fails to read (its
 * peer reset) is LBD_PUMP_SRC_ERR even after f->src_rdhup: the caller passes
 * the abort on as a reset, never as a FIN. fin_by_close: the other
 * direction is finished and both sockets are about to be closed, so the FIN
 * needs no shutdown(2) of its own. *moved gets the bytes written. */
enum lbd_pump_result splice_pump(struct lbd_worker *w, struct lbd_flow *f, int src, int dst,
	bool fin_by_close, size_t *moved);

/* Give back the flow's pipe and buffer (at session end). */
void splice_flow_release(struct lbd_worker *w, struct lbd_flow *f);

/* Per-worker pipe pool. */
struct lbd_pipe *splice_pipe_get(struct lbd_worker *w);
void splice_pipe_put(struct lbd_worker *w, struct lbd_pipe *p);
void splice_pool_free(struct lbd_worker *w);

#endif
