/* Taking an apiserver out of a load balancer's rotation before its master
 * is worked on, and back after: `cpha drain MASTER` and `cpha undrain
 * MASTER` on an LB host.
 * No I/O: drain_cmd.c asks the local lbd or HAProxy for `show servers
 * state BACKEND` on its admin socket, parses the answer here, asks
 * drain_decide() and sends the command it returns.
 *
 * Draining is HAProxy's `set server B/S state drain`: no new connection
 * goes to the server, the ones it has stay until they end (a watch ends
 * when the apiserver's graceful shutdown closes it), and its health check
 * goes on, so the server is seen UP again before it is undrained. */
#ifndef CPHA_DRAIN_H
#define CPHA_DRAIN_H

#include <stdbool.h>
#include <stddef.h>

#define DRAIN_MAX_SERVERS 64

/* srv_op_state of `show servers state` (HAProxy's enum srv_state) */
enum drain_op {
	DRAIN_OP_STOPPED = 0,  /* down: failed its checks, or in maintenance */
	DRAIN_OP_STARTING = 1, /* up, in slowstart */
	DRAIN_OP_RUNNING = 2,
	DRAIN_OP_STOPPING = 3, /* going down gracefully */
};

/* srv_admin_state bits (HAProxy's enum srv_admin) */
#define DRAIN_ADM_FMAINT 0x01 /* maintenance set by the operator */
#define DRAIN_ADM_IMAINT 0x02 /* maintenance inherited from a tracked server */
#define DRAIN_ADM_CMAINT 0x04 /* `disabled` in the configuration */
#define DRAIN_ADM_FDRAIN 0x08 /* drain set by the operator */
#define DRAIN_ADM_IDRAIN 0x10 /* drain inherited from a tracked server */
#define DRAIN_ADM_RMAINT 0x20 /* its name does not resolve */
#define DRAIN_ADM_HMAINT 0x40 /* its hostname was changed at run time */
#define DRAIN_ADM_MAINT                                                                            \
	(DRAIN_ADM_FMAINT | DRAIN_ADM_IMAINT | DRAIN_ADM_CMAINT | DRAIN_ADM_RMAINT |               \
		DRAIN_ADM_HMAINT)

struct drain_server {
	char name[64];
	int op;    /* enum drain_op */
	int admin; /* DRAIN_ADM_* bits */
};

/* The servers of backend in the text of `show servers state [BACKEND]`
 * (version 1, as HAProxy 2.x and lbd write it: a version line, a header,
 * then one line per server, fields separated by spaces). Lines of other
 * backends are skipped. Returns how many were stored in out (at most max),
 * or -1 with err set: a reply that is not that format (HAProxy's "Can't
 * find backend." included), naming the line. */
int drain_parse_state(const char *text, const char *backend, struct drain_server *out, size_t max,
	char *err, size_t errlen);

/* Whether a server takes new connections: up (running or in slowstart),
 * neither drained nor in maintenance. */
bool drain_in_rotation(const struct drain_server *s);

enum drain_verdict {
	DRAIN_SEND,    /* send cmd */
	DRAIN_NOTHING, /* already as asked: why says so */
	DRAIN_REFUSE,  /* why says why; nothing is sent */
};

/* What `cpha drain` (drain true) or `cpha undrain` (false) of server name
 * in backend does, given the n servers of the backend as the load
 * balancer has them:
 * - a server the backend lacks: refused;
 * - drain: nothing for one drained or in maintenance already; refused when
 *   it is the only server in rotation, unless force (the API would stop
 *   through this load balancer); else `set server B/S state drain`;
 * - undrain: nothing for one not drained; refused for one also in
 *   maintenance (`state ready` would end that too, and someone else set
 *   it); else `set server B/S state ready`.
 * cmd gets the command (without newline); why a sentence for the user. */
enum drain_verdict drain_decide(const struct drain_server *s, size_t n, const char *backend,
	const char *name, bool drain, bool force, char *cmd, size_t cmdlen, char *why,
	size_t whylen);

#endif
