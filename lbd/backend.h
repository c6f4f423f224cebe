/* A backend at run time: picking a server (with slots and the queue), and
 * giving slots back. Safe from any worker thread. The servers themselves
 * (references, weight now) are server.h's. */
#ifndef LBD_BACKEND_H
#define LBD_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "proxy-types.h"

struct lbd_session;

/* Give session s a server: on 0, s->srv is set and holds a slot and a
 * reference. Servers marked in s->tried are skipped. Otherwise returns
 * BALANCE_NONE (no usable server) or BALANCE_FULL (all at maxconn). */
int backend_assign(struct lbd_backend_rt *be, struct lbd_session *s, uint64_t now);

/* hedge: another server for s, chosen by the backend's algorithm as for
 * a new session, never s->srv nor one s tried, never a full or unusable
 * one (no queueing). On 0, *out holds a slot and a reference, given back
 * with backend_release_server(). Otherwise BALANCE_NONE or BALANCE_FULL. */
int backend_assign_other(struct lbd_backend_rt *be, const struct lbd_session *s, uint64_t now,
	struct lbd_server **out);

/* Give back a slot and a reference taken by backend_assign_other(). */
void backend_release_server(struct lbd_backend_rt *be, struct lbd_server *srv);

/* Put s at the end of the queue. False when the queue is full (the sum of
 * the usable servers' maxqueue, unlimited if any has none). */
bool backend_enqueue(struct lbd_backend_rt *be, struct lbd_session *s);

/* Take s out of the queue: 1 when it was there, 0 when it was not queued,
 * -1 when a slot was already handed to it (an LBD_MSG_DEQUEUE is on its way
 * to its worker, which then owns the session's end). */
int backend_unqueue(struct lbd_backend_rt *be, struct lbd_session *s);

/* Give back s's slot and reference (s->srv becomes NULL); a queued session
 * may get the slot. */
void backend_release(struct lbd_backend_rt *be, struct lbd_session *s);

/* Hand free slots to queued sessions (after a server came up or its limits
 * grew). */
void backend_dispatch(struct lbd_backend_rt *be);

#endif
