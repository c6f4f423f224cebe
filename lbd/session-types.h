/* A session's fields, for the modules below session.c that keep sessions
 * in lists (backend.c's queue) without calling into it. */
#ifndef LBD_SESSION_TYPES_H
#define LBD_SESSION_TYPES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include <systemd/sd-event.h>

#include "list.h"
#include "proxy-types.h"
#include "splice.h"

enum lbd_sess_state {
	LBD_SESS_INSPECT,    /* reading the client's first bytes for the rules */
	LBD_SESS_QUEUED,     /* waiting in the backend queue for a slot */
	LBD_SESS_TURNAROUND, /* waiting before retrying the same server */
	LBD_SESS_CONNECTING, /* connect() to the server in progress */
	LBD_SESS_FDWAIT,     /* no descriptor for the server side yet: retried
			      * when a session ends or after a short wait */
	LBD_SESS_OPEN,       /* forwarding both ways */
};

struct lbd_session {
	struct cpha_list wlink; /* worker's sessions */
	struct cpha_list slink; /* server's sessions on this worker */
	struct cpha_list qlink; /* backend queue (under be->lock) */
	struct cpha_list flink; /* worker's sessions waiting for a descriptor */
	struct lbd_worker *w;
	struct lbd_frontend_rt *fe;
	struct lbd_fe_params *fp; /* holds a reference, and so the backends */
	struct lbd_backend_rt *be; /* chosen by the rules (fp->be without); NULL before */
	const struct lbd_fe_rules *be_rules; /* be's content rules (held by fp), or NULL */
	bool inspect_be;                     /* LBD_SESS_INSPECT for be's rules */
	uint64_t t_chosen;                   /* when be was chosen */
	struct lbd_server *srv;   /* holds a slot and a reference while set */
	enum lbd_sess_state st;
	int cfd, sfd;
	struct lbd_evh ch, sh; /* client and server sockets in w->epfd */
	sd_event_source *timer;
	struct sockaddr_storage peer;
	uint16_t local_port; /* port the client connected to */
	struct lbd_flow c2s, s2c;
	unsigned attempts_left;
	uint8_t tried[32];     /* servers (by id) that refused this session */
	bool queued;           /* in be->queue (under be->lock) */
	bool dequeued;         /* a slot was handed over; dq_msg is on its way */
	struct lbd_msg dq_msg; /* LBD_MSG_DEQUEUE: no allocation to hand a slot over */
	bool zombie;           /* closed while that message was on its way */
	bool dead;             /* closed; the memory goes after the current batch */
	bool counted_retry;
	bool nolog; /* closed by a tcp-request connection rule: no traffic log line */
	char term[3];                                  /* termination state for the traffic log */
	uint64_t t_accept, t_queue, t_connect, t_open; /* CLOCK_MONOTONIC usec */
	uint64_t t_fdwait, fd_retry_at; /* waiting for a descriptor: since, next try */
	uint64_t last_c, last_s;        /* last activity on each side */
	uint64_t kill_at;               /* cut here (shutdown-sessions spread); 0 = no */
	const char *kill_term;          /* termination state for that cut */
	uint64_t armed;                 /* when the timer is set to fire; 0 = not armed */
	unsigned retries_done;
	uint8_t send_proxy; /* PROXY protocol version for this server, or 0 */
	bool redispatched;
	/* hedge (lbd's own): while srv's connect has no answer after
	 * hedge_usec, a second connect to hsrv (a slot and a reference, as
	 * srv) on hfd, watched through hh; the first to complete carries the
	 * session. One per attempt (hedged). */
	uint64_t hedge_usec; /* of this attempt; 0: none */
	bool hedged;
	struct lbd_server *hsrv;
	int hfd;
	uint8_t hsend_proxy;
	struct lbd_evh hh;
	bool sfd_on_hh; /* the hedge won: sfd is the socket watched through hh,
			 * and events through sh are stale (the closed first connect) */
};

#endif
