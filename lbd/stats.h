/* The admin socket ("stats socket" in the configuration): HAProxy-like
 * commands, each with a JSON variant (a trailing "json" word). */
#ifndef LBD_STATS_H
#define LBD_STATS_H

#include "buf.h"
#include "proxy-types.h"

/* Run one command line and write the reply. */
void stats_command(struct lbd_runtime *rt, const char *line, struct cpha_buf *reply);

/* Prometheus text for /metrics. */
void stats_prometheus(struct lbd_runtime *rt, struct cpha_buf *out);

#endif
