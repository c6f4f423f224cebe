/* Server state changes, made on the main thread: health results, the
 * administrator's commands, DNS maintenance, and what follows from them
 * (logs, cutting sessions, checks stopped or resumed, dispatching the
 * queue). */
#ifndef LBD_SERVER_CTL_H
#define LBD_SERVER_CTL_H

#include <stdbool.h>
#include <stdint.h>

#include "proxy-types.h"

/* Account one check result; changes state after rise/fall results. */
void server_check_result(struct lbd_runtime *rt, struct lbd_server *srv, bool ok,
	const char *reason, uint64_t duration_usec);

/* Mark up or down now (with the reason that goes into the log line). */
void server_set_up(struct lbd_runtime *rt, struct lbd_server *srv, bool up, const char *reason);

/* ready, drain or maint, as "set server B/S state" says. */
void server_set_admin(struct lbd_runtime *rt, struct lbd_server *srv, enum lbd_admin_state st);

/* Into or out of maintenance because of DNS (HAProxy's "resolution"
 * maintenance): out of rotation and unchecked while on. Coming out, the
 * server is up and checked at once, unless the administrator put it in
 * maintenance too. why goes into the log line. */
void server_set_dns_maint(struct lbd_runtime *rt, struct lbd_server *srv, bool on, const char *why);

/* Cut the server's sessions (spread over its shutdown-sessions-spread). */
void server_cut_sessions(
	struct lbd_runtime *rt, struct lbd_server *srv, const char *term, bool spread);

/* Passive health (observe layer4): open the eventfd the workers ring when
 * a server reached its error-limit, and watch it on the main loop, where
 * each such server's on-error action is applied (health.c decides).
 * Returns 0 or a negative errno. server_observe_close() undoes it. */
int server_observe_init(struct lbd_runtime *rt);
void server_observe_close(struct lbd_runtime *rt);

/* Apply one server's on-error action now (main thread). */
void server_on_error(struct lbd_runtime *rt, struct lbd_server *srv);

#endif
