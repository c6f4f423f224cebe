/* UNIX admin sockets: a line in, a reply out, then the server closes. */
#ifndef CPHA_ADMIN_H
#define CPHA_ADMIN_H

#include <stdint.h>
#include <sys/types.h>

#include <systemd/sd-event.h>

#include "buf.h"

/* Build the reply to one command line (no trailing newline or CR). */
typedef void (*cpha_admin_fn)(void *userdata, const char *line, struct cpha_buf *reply);

struct cpha_admin;

#define CPHA_ADMIN_LINE_MAX 65536 /* longest command line accepted */

/* Listen on a UNIX stream socket at path with the given permissions (0 means
 * 0600). A stale socket left by a dead process is replaced; a live one is
 * -EADDRINUSE; any other file there is -EEXIST. The parent directory is
 * created (0755) when missing. Returns 0 or a negative errno. */
int cpha_admin_open(sd_event *e, const char *path, mode_t mode, cpha_admin_fn fn, void *userdata,
	struct cpha_admin **out);

/* Stop listening, drop clients and remove the socket file. NULL allowed. */
void cpha_admin_close(struct cpha_admin *a);

/* Client side: send cmd (a newline is added) to the socket at path and read
 * the whole reply within timeout_usec. *reply is malloc'd, NUL-terminated.
 * Returns 0 or a negative errno (-ETIMEDOUT, -ECONNREFUSED, -ENOENT...). */
int cpha_admin_query(const char *path, const char *cmd, uint64_t timeout_usec, char **reply);

#endif
