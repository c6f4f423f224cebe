/* A client connection and its server connection, from accept to close. */
#ifndef LBD_SESSION_H
#define LBD_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include <systemd/sd-event.h>

#include "proxy-types.h"
#include "session-types.h"

#define SESSION_EMFILE_PAUSE_USEC (100 * 1000ULL) /* out of descriptors: wait this long */

/* A descriptor could not be had (EMFILE, ENFILE): every worker stops
 * accepting until a session ends or a short pause is over. */
void session_fd_exhausted(struct lbd_worker *w);

/* Take over an accepted client socket (non-blocking) from listener l. */
void session_accept(
	struct lbd_worker *w, struct lbd_listener *l, int cfd, const struct sockaddr_storage *peer);

/* A queued session was given a slot on srv (LBD_MSG_DEQUEUE). */
void session_dequeued(struct lbd_worker *w, struct lbd_session *s, struct lbd_server *srv);

/* Cut this worker's sessions on srv, spread evenly over spread_usec; term is
 * "DD" (server went down) or "KD" (killed by the administrator). */
void session_cut_server(
	struct lbd_worker *w, struct lbd_server *srv, uint64_t spread_usec, const char *term);

/* Descriptors were freed: let the sessions of w waiting for one retry
 * (from the event loop, oldest first). */
void session_fdwait_kick(struct lbd_worker *w);

/* Free the sessions closed while a batch of events was handled. */
void session_reap(struct lbd_worker *w);

/* Cut every session of this worker now (hard stop); term is e.g. "KD". */
void session_cut_all(struct lbd_worker *w, const char *term);

#endif
