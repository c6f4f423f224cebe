/* Internal to libcpha: a small server for "one request in, one reply out,
 * close" protocols on a listening socket (the admin socket, /metrics). */
#ifndef CPHA_REQSERV_H
#define CPHA_REQSERV_H

#include <stddef.h>
#include <stdint.h>

#include <systemd/sd-event.h>

#include "buf.h"

/* Length of the complete request at the start of data, 0 if more is needed,
 * or -1 if it can never be valid. At end of input (eof) it decides what
 * the partial data is. */
typedef long (*cpha__req_complete_fn)(const char *data, size_t len, int eof);

/* Build the reply to one request (req is NUL-terminated, len bytes). */
typedef void (*cpha__req_handle_fn)(
	void *userdata, const char *req, size_t len, struct cpha_buf *reply);

struct cpha__reqserv;

/* Serve on listen_fd (non-blocking, listening; the server owns and closes
 * it). At most max_conns clients at once; a request above max_req bytes or
 * a client silent for timeout_usec is dropped. Returns 0 or -errno. */
int cpha__reqserv_new(struct cpha__reqserv **out, sd_event *e, int listen_fd,
	cpha__req_complete_fn complete, cpha__req_handle_fn handle, void *userdata, size_t max_req,
	uint64_t timeout_usec, unsigned max_conns);

/* Close the listener and every client. NULL is allowed. */
void cpha__reqserv_free(struct cpha__reqserv *s);

#endif
