/* HTTP(S) health checks through libcurl, for check.c: they end through
 * the check's done callback. */
#ifndef LBD_CHECK_HTTP_H
#define LBD_CHECK_HTTP_H

#include <stdbool.h>

#include <systemd/sd-event.h>

#include "check-types.h"

/* Set up rt->http_checks on rt->e (once, before any check starts) and
 * tear it down. */
int check_http_init(struct lbd_runtime *rt);
void check_http_shutdown(struct lbd_runtime *rt);
/* Start c's HTTP check or abandon the running one. */
int check_http_start(struct lbd_check *c);
void check_http_abort(struct lbd_check *c);
/* Whether the running check's TCP connection is established. */
bool check_http_connected(const struct lbd_check *c);

#endif
