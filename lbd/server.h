/* A server at run time: its lifetime (references; freed at the last one
 * once removed) and the facts balancing and status output read. Safe from
 * any thread; the state changes are server_ctl.h's. */
#ifndef LBD_SERVER_H
#define LBD_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "proxy-types.h"

/* True when a server may take new sessions (up, ready, in the config). */
bool server_usable(const struct lbd_server *srv);

/* Effective weight (scaled by BALANCE_WEIGHT_SCALE) and connection limit of
 * a server now (slowstart). */
unsigned server_weight(const struct lbd_server *srv, uint64_t now);
unsigned server_maxconn(const struct lbd_server *srv, uint64_t now);

/* Drop a reference taken under be->lock; frees a removed server at zero. */
void server_unref_locked(struct lbd_server *srv);

/* Take or drop a reference from outside be->lock. */
void server_ref(struct lbd_server *srv);
void server_unref(struct lbd_server *srv);

/* Free a server's memory (no references left). */
void server_free(struct lbd_server *srv);

/* A copy of the server's address and proxy options, taken under be->lock. */
void server_target(struct lbd_server *srv, struct cpha_addr *addr, int *send_proxy);

/* "UP", "DOWN", "MAINT", "DRAIN" and friends for status output. */
const char *server_state_name(const struct lbd_server *srv);

/* Stopped, as HAProxy counts downtime: down by its checks, or in
 * maintenance (administrative or DNS); a draining server is not. */
bool server_stopped(const struct lbd_server *srv);

/* Note srv's state at now (CLOCK_MONOTONIC usec): a stop that began ends,
 * or one begins. Call after every change of up, admin or dns_maint; a
 * call with no change changes nothing. Main thread. */
void server_downtime_note(struct lbd_server *srv, uint64_t now);

/* Whole seconds srv has been stopped since it was made, up to now. */
uint64_t server_downtime_sec(const struct lbd_server *srv, uint64_t now);

/* Numbers of usable primary and backup servers of a backend. */
void server_count_usable(const struct lbd_backend_rt *be, unsigned *active, unsigned *backup);

#endif
