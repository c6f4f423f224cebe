/* Statistics of the running process: the admin socket's "show" output
 * (HAProxy's text and CSV, or lbd's JSON) and the Prometheus text. The
 * commands themselves are cli.c's. */
#ifndef LBD_STATS_H
#define LBD_STATS_H

#include <stdbool.h>

#include "buf.h"
#include "proxy-types.h"

struct json_t;

/* show info: the process (name, version, uptime, connections, reloads,
 * configuration). */
void stats_show_info(struct lbd_runtime *rt, struct cpha_buf *reply, bool json);

/* show stat: every frontend, server and backend, in HAProxy's CSV fields. */
void stats_show_stat(struct lbd_runtime *rt, struct cpha_buf *reply, bool json);

/* show servers state [BACKEND]: HAProxy 2.6's version 1 text, or JSON;
 * only: one backend's servers (it must exist), or NULL for all. */
void stats_show_servers_state(
	struct lbd_runtime *rt, const char *only, struct cpha_buf *reply, bool json);

/* show table [NAME]: every stick table's header, and the entries of the
 * named one. -1 with nothing written when no table has that name. */
int stats_show_table(struct lbd_runtime *rt, const char *name, struct cpha_buf *reply, bool json);

/* j as one compact line (keys in order) ending in a newline; takes j's
 * reference. */
void stats_put_json(struct cpha_buf *reply, struct json_t *j);

/* Prometheus text for /metrics. */
void lbd_stats_prometheus(struct lbd_runtime *rt, struct cpha_buf *out);

#endif
