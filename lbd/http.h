/* lbd's built-in HTTP services (the mode http frontends of the
 * configuration): HAProxy's stats page with its CSV export, authentication
 * and admin actions, monitor-uri, and the Prometheus exporter. Served by
 * libmicrohttpd on the main sd-event loop (rt->e). */
#ifndef LBD_HTTP_H
#define LBD_HTTP_H

#include "proxy-types.h"

/* Serve the services of rt->cfg, replacing those of the previous
 * configuration (first start and every reload). A service whose address
 * cannot be bound is logged and left out; the others run. Returns 0, or -1
 * when one or more could not start. */
int http_apply(struct lbd_runtime *rt);

/* Stop every service and drop its clients. */
void http_close_all(void);

#endif
