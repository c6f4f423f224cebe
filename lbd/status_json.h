/* GET /status on the metrics listener: lbd's read-only state as JSON for
 * `cpha status`, built from what the admin socket's "show info" and
 * "show stat" already report. */
#ifndef LBD_STATUS_JSON_H
#define LBD_STATUS_JSON_H

#include "buf.h"
#include "proxy-types.h"

/* Write one JSON document: version, pid, uptime, config_sha256, and per
 * frontend and backend the current sessions; per server its name, address,
 * state (UP, DOWN, MAINT or DRAIN), last check result, seconds since its
 * last state change and current sessions. Nothing from the configuration
 * beyond names and addresses. A cpha_status_fn. */
void status_json(void *rt, struct cpha_buf *out);

#endif
