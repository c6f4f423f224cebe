/* The admin socket ("stats socket" in the configuration): HAProxy-like
 * commands from a keyword table, each with a JSON variant (a trailing
 * "json" word). */
#ifndef LBD_CLI_H
#define LBD_CLI_H

#include "admin.h"
#include "buf.h"
#include "proxy-types.h"

/* Run one command line from peer (NULL: unknown) and write the reply. A
 * command above the stats socket's level (rt->cfg) changes nothing and is
 * answered "Permission denied", as HAProxy does, and logged with the uid. */
void cli_command(struct lbd_runtime *rt, const struct cpha_admin_peer *peer, const char *line,
	struct cpha_buf *reply);

#endif
