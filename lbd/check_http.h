/* HTTP(S) health checks through libcurl, for check.c: they end through
 * the check's done callback. */
#ifndef LBD_CHECK_HTTP_H
#define LBD_CHECK_HTTP_H

#include <stdbool.h>

#include <systemd/sd-event.h>

#include "check-types.h"

/* Set up on loop e (once, before any check starts) and tear down. */
int check_http_init(sd_event *e);
void check_http_shutdown(void);
/* Start c's HTTP check or abandon the running one. */
int check_http_start(struct lbd_check *c);
void check_http_abort(struct lbd_check *c);
/* Whether the running check's TCP connection is established. */
bool check_http_connected(const struct lbd_check *c);

#endif
