/* Building the run-time objects from a configuration, and reloading:
 * listeners kept by address, servers and backends by name, states carried. */
#ifndef LBD_RUNTIME_H
#define LBD_RUNTIME_H

#include "proxy-types.h"

/* A reload made ready: new sockets open, new objects allocated, nothing
 * that the workers, the checks or the admin socket can see changed. */
struct lbd_runtime_plan;

/* Apply cfg to rt (first start or reload): runtime_prepare() then
 * runtime_commit(). On success rt owns cfg and the previous configuration
 * is freed; on failure (a bind failed, out of memory) nothing changed, the
 * caller still owns cfg and the error was logged. Returns 0 or a negative
 * errno. */
int runtime_apply(struct lbd_runtime *rt, struct lbd_config *cfg);

/* Everything of applying cfg that can fail: open the sockets of new bind
 * addresses, allocate every new backend, server, frontend, their
 * parameters, check objects and stick tables, and room in the runtime's
 * arrays. On success *out is the plan; on failure nothing is left open or
 * allocated, rt is as it was and the error was logged. The plan reads rt:
 * commit or abandon it before anything else changes rt. Returns 0 or a
 * negative errno (-EADDRINUSE: a bind failed; -ENOMEM). */
int runtime_prepare(struct lbd_runtime *rt, struct lbd_config *cfg, struct lbd_runtime_plan **out);

/* Make the plan live; cannot fail. rt takes the plan's configuration and
 * objects, the workers are told of new and gone listeners, checks restart
 * with the new configuration (health kept), servers gone are cut at
 * hard-stop-after, and the previous configuration is freed. The plan is
 * consumed. */
void runtime_commit(struct lbd_runtime *rt, struct lbd_runtime_plan *plan);

/* Drop a plan that will not be committed: its sockets are closed and its
 * objects freed; the caller still owns the configuration. NULL allowed. */
void runtime_abandon(struct lbd_runtime *rt, struct lbd_runtime_plan *plan);

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
