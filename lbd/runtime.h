/* Building the run-time objects from a configuration, and reloading:
 * listeners kept by address, servers and backends by name, states carried. */
#ifndef LBD_RUNTIME_H
#define LBD_RUNTIME_H

#include "proxy-types.h"

/* Apply cfg to rt (first start or reload). On success rt owns cfg and the
 * previous configuration is freed; on failure (a bind failed) nothing
 * changed and the error was logged. Returns 0 or a negative errno. */
int runtime_apply(struct lbd_runtime *rt, struct lbd_config *cfg);

/* Free every run-time object (after the workers have stopped). */
void runtime_free(struct lbd_runtime *rt);

/* Find objects by name (NULL when absent or removed). */
struct lbd_backend_rt *runtime_backend(const struct lbd_runtime *rt, const char *name);
struct lbd_server *runtime_server(
	const struct lbd_runtime *rt, const char *backend, const char *server);

/* The configuration of a server's backend, for checks. */
const struct lbd_backend *runtime_backend_cfg(
	const struct lbd_runtime *rt, const struct lbd_backend_rt *be);

/* Release frontend parameters (last reference gone). */
void fe_params_free(struct lbd_fe_params *fp);

#endif
