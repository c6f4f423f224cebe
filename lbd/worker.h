/* Worker threads: one sd-event loop each, SO_REUSEPORT listeners, a mailbox
 * for messages from other threads. */
#ifndef LBD_WORKER_H
#define LBD_WORKER_H

#include "proxy-types.h"

/* Prepare worker w (no thread yet). Returns 0 or a negative errno. */
int worker_init(struct lbd_worker *w, struct lbd_runtime *rt, unsigned id);

/* Start the thread. Returns 0 or a negative errno. */
int worker_start(struct lbd_worker *w);

/* Wait for the thread to end and free what the worker holds. */
void worker_join(struct lbd_worker *w);

/* Queue a message for w's thread (any thread may call it). Out of memory,
 * the message is lost and logged: steps that must not fail use a pool. */
void worker_post(
	struct lbd_worker *w, enum lbd_msg_type type, void *arg, void *arg2, uint64_t usec);

/* Queue m, filled by the caller; cannot fail. */
void worker_post_msg(struct lbd_worker *w, struct lbd_msg *m);

/* Tell queued session s's worker that it holds a slot on s->srv
 * (LBD_MSG_DEQUEUE, in the session's own message: cannot fail). The
 * backends' handoff. */
void worker_hand_slot(struct lbd_session *s);

/* Messages made in advance for a step that must not fail: add n to *pool.
 * Returns 0 or -ENOMEM (what was added stays in *pool). */
int worker_pool_fill(struct lbd_msg **pool, size_t n);

/* worker_post() with a message of *pool (malloc'ed if the pool ran dry,
 * which a caller that counted right never sees). */
void worker_post_pooled(struct lbd_worker *w, struct lbd_msg **pool, enum lbd_msg_type type,
	void *arg, void *arg2, uint64_t usec);

/* Free the messages left in *pool. */
void worker_pool_free(struct lbd_msg **pool);

/* Called by sessions when they end (as w->session_closed): descriptors
 * were freed, so sessions waiting for one retry and accepting may resume. */
void worker_session_closed(struct lbd_worker *w);

/* Open a listening socket for addr with SO_REUSEPORT (one per worker).
 * v6only (IPv6 only): -1 keeps the system's default, 0 also accepts IPv4,
 * 1 refuses it; defer_accept: wake accept() only once data came.
 * Returns the fd or a negative errno. */
int worker_listen_socket(const struct cpha_addr *addr, int v6only, bool defer_accept);

/* Listener reference counting: a listener is freed when the last worker
 * has stopped using it after LBD_MSG_UNLISTEN. */
void listener_unref(struct lbd_listener *l);

#endif
