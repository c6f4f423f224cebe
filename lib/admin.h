/* UNIX admin sockets: a line in, a reply out, then the server closes. */
#ifndef CPHA_ADMIN_H
#define CPHA_ADMIN_H

#include <stdint.h>
#include <sys/types.h>

#include <systemd/sd-event.h>

#include "buf.h"

/* Who sent a command: the credentials of the connecting process
 * (SO_PEERCRED), as the kernel saw them at connect time. */
struct cpha_admin_peer {
	pid_t pid;
	uid_t uid;
	gid_t gid;
};

/* Build the reply to one command line (no trailing newline or CR). */
typedef void (*cpha_admin_fn)(void *userdata, const struct cpha_admin_peer *peer, const char *line,
	struct cpha_buf *reply);

struct cpha_admin;

#define CPHA_ADMIN_LINE_MAX     65536       /* longest command line accepted */
#define CPHA_ADMIN_REQUEST_USEC 2000000ULL  /* connect to a complete line, or dropped */
#define CPHA_ADMIN_REPLY_USEC   10000000ULL /* to read the whole reply */
#define CPHA_ADMIN_MAX_CONNS    256         /* clients at once */
#define CPHA_ADMIN_MAX_PER_UID  32          /* of them from one uid */

/* Listen on a UNIX stream socket at path with the given permissions (0 means
 * 0600). A stale socket left by a dead process is replaced; a live one is
 * -EADDRINUSE; any other file there is -EEXIST. The parent directory is
 * created (0755) when missing. Clients are served within the limits above:
 * one that sends no complete line in time is dropped, and when a uid's
 * share or every slot is taken the oldest client still sending its line
 * makes room for the new one. Returns 0 or a negative errno. */
int cpha_admin_open(sd_event *e, const char *path, mode_t mode, cpha_admin_fn fn, void *userdata,
	struct cpha_admin **out);

/* Give the socket file this mode (0 means 0600) and owner ((uid_t)-1 and
 * (gid_t)-1 leave one unchanged), without closing the socket or its
 * clients: a reload's new permissions hold for every later connect.
 * When mode and owner already match nothing is changed (so a process that
 * dropped its privileges can call it). Returns 0 or a negative errno
 * (-ENOENT: the file is gone; -EPERM: not allowed to change it). */
int cpha_admin_set_access(struct cpha_admin *a, mode_t mode, uid_t uid, gid_t gid);

/* Stop listening, drop clients and remove the socket file. NULL allowed. */
void cpha_admin_close(struct cpha_admin *a);

/* Client side: send cmd (a newline is added) to the socket at path and read
 * the whole reply within timeout_usec. *reply is malloc'd, NUL-terminated.
 * Returns 0 or a negative errno (-ETIMEDOUT, -ECONNREFUSED, -ENOENT...). */
int cpha_admin_query(const char *path, const char *cmd, uint64_t timeout_usec, char **reply);

/* The same, without blocking: the reply comes through fn from the event
 * loop. Two daemons that ask each other (fenced asks vipd who holds the
 * VIP while vipd asks fenced about quorum) must not both wait in a
 * blocking query: each would time out waiting for the other's loop. fn
 * gets 0 and the malloc'd reply (fn frees it), or a negative errno and
 * NULL; it is called once, unless the request is cancelled first. Returns
 * 0 with *out set (freed after fn returns), or a negative errno (nothing
 * runs, fn is not called). */
struct cpha_admin_req;
typedef void (*cpha_admin_reply_fn)(void *userdata, int r, char *reply);
int cpha_admin_query_async(sd_event *e, const char *path, const char *cmd, uint64_t timeout_usec,
	cpha_admin_reply_fn fn, void *userdata, struct cpha_admin_req **out);
/* Drop a request before its reply: fn is not called. NULL allowed. */
void cpha_admin_req_cancel(struct cpha_admin_req *q);

#endif
