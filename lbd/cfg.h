/* Parsing and validating lbd's configuration (HAProxy's language, TCP
 * subset). Pure: reads the file, returns structures and messages, logs
 * nothing. */
#ifndef LBD_CFG_H
#define LBD_CFG_H

#include <stddef.h>

#include "cfg-types.h"
#include "cfgdiag.h"

/* Parse and validate the file at path. Returns 0 with *out set (notices,
 * if any, are in (*out)->notices), or -1 with every error found appended to
 * errs (never only the first). */
int lbd_cfg_load(const char *path, struct lbd_config **out, struct cpha_msgs *errs);

/* The same, with LBD_CFG_* flags: what lbd's command line says. */
#define LBD_CFG_MASTER_WORKER 1u /* -W: HAProxy's master-worker mode (program sections) */
int lbd_cfg_load_flags(
	const char *path, unsigned flags, struct lbd_config **out, struct cpha_msgs *errs);

/* The same for text in memory; name is used in messages. */
int lbd_cfg_load_mem(const char *name, const char *text, size_t len, struct lbd_config **out,
	struct cpha_msgs *errs);

/* Free a configuration (NULL allowed). */
void lbd_cfg_free(struct lbd_config *c);

/* The backend with this name, or NULL. */
struct lbd_backend *lbd_cfg_backend(const struct lbd_config *c, const char *name);

/* The server of a backend with this name, or NULL. */
struct lbd_server_cfg *lbd_cfg_server(const struct lbd_backend *b, const char *name);

/* A deep copy of a server's options into dst: 0, or -ENOMEM with nothing
 * left allocated in dst. */
int lbd_cfg_server_opts_dup(struct lbd_server_opts *dst, const struct lbd_server_opts *src);

/* Free what a server's options own (the copy's strings); o stays usable. */
void lbd_cfg_server_opts_free(struct lbd_server_opts *o);

/* Name of a balance algorithm as written in the configuration. */
const char *lbd_balance_name(enum lbd_balance b);

#endif
