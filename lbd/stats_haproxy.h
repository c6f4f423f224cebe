/* The metric names of Prometheus's haproxy_exporter, served on lbd's own
 * /metrics beside lbd_*, so alert rules written for HAProxy + haproxy_exporter
 * keep working: the same names, label names and meanings, for what lbd
 * knows. The exporter turns HAProxy's "show stat" CSV into metrics
 * (https://github.com/prometheus/haproxy_exporter, version 0.14); lbd fills
 * each series from the same fact its own CSV shows in that column. */
#ifndef LBD_STATS_HAPROXY_H
#define LBD_STATS_HAPROXY_H

#include "buf.h"
#include "proxy-types.h"

struct lbd_runtime;

/* The value haproxy_exporter gives a CSV status column: 1 for "UP",
 * "UP 1/3", "UP 2/3", "OPEN", "no check" and "DRAIN", 0 for anything else
 * ("DOWN", "NOLB", "MAINT", "DOWN (DRAIN)", "UP 1/2" ...): its exact list,
 * compared as whole strings. NULL is 0. */
int stats_haproxy_status_up(const char *status);

/* The backend's status column: "UP" while it has a usable server, else
 * "DOWN". act and bck are its usable primary and backup servers. */
const char *stats_haproxy_backend_status(unsigned act, unsigned bck);

/* The backend's weight column, as HAProxy computes it: the summed weights of
 * the usable primary servers, or of the usable backup servers when no
 * primary is usable. */
unsigned stats_haproxy_backend_weight(const struct lbd_backend_rt *be);

/* Append the haproxy_* families (text format) for the running process. */
void stats_haproxy_prometheus(struct lbd_runtime *rt, struct cpha_buf *o);

#endif
