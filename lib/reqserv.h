/* Internal to libcpha: a small server for "one request in, one reply out,
 * close" protocols on a listening socket (the admin socket, /metrics).
 *
 * Idle and slow clients cannot lock others out: a client has a short time
 * to send a complete request, each peer (a uid on a UNIX socket, an address
 * over TCP) holds a bounded share of the slots, and when the slots are
 * taken the oldest client still sending its request makes room for the
 * new one. */
#ifndef CPHA_REQSERV_H
#define CPHA_REQSERV_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <systemd/sd-event.h>

#include "addr.h"
#include "buf.h"

/* The other end of a connection. */
struct cpha__req_peer {
	int family;            /* AF_UNIX, AF_INET or AF_INET6 (v4-mapped: AF_INET) */
	pid_t pid;             /* AF_UNIX: SO_PEERCRED at connect time; else -1 */
	uid_t uid;             /* AF_UNIX; else (uid_t)-1 */
	gid_t gid;             /* AF_UNIX; else (gid_t)-1 */
	struct cpha_addr addr; /* TCP: the client's address and port */
};

/* Length of the complete request at the start of data, 0 if more is needed,
 * or -1 if it can never be valid. At end of input (eof) it decides what
 * the partial data is. */
typedef long (*cpha__req_complete_fn)(const char *data, size_t len, int eof);

/* Build the reply to one request (req is NUL-terminated, len bytes). */
typedef void (*cpha__req_handle_fn)(void *userdata, const struct cpha__req_peer *peer,
	const char *req, size_t len, struct cpha_buf *reply);

/* How much one server and one client may take. */
struct cpha__reqserv_limits {
	size_t max_req;        /* longest request accepted, in bytes */
	uint64_t request_usec; /* time from connect to a complete request */
	uint64_t reply_usec;   /* time to take the whole reply */
	unsigned max_conns;    /* clients at once */
	unsigned max_per_peer; /* of them from one uid (UNIX) or address (TCP) */
	const char *what;      /* names the server in log lines ("admin socket") */
};

struct cpha__reqserv;

/* Serve on listen_fd (non-blocking, listening; the server owns and closes
 * it, even on failure) within the limits (copied; lim->what must outlive
 * the server). A new client is always taken while some client of the same
 * peer (at its limit) or of any peer (all slots taken) is still sending
 * its request: the oldest such one is dropped for it. Returns 0 or -errno. */
int cpha__reqserv_new(struct cpha__reqserv **out, sd_event *e, int listen_fd,
	cpha__req_complete_fn complete, cpha__req_handle_fn handle, void *userdata,
	const struct cpha__reqserv_limits *lim);

/* Speak TLS with the clients that connect from now on, with ssl_ctx (an
 * SSL_CTX *, referenced; NULL: plain text again). The handshake is bounded
 * by request_usec, like the request. Returns 0 or -ENOMEM. */
int cpha__reqserv_set_tls(struct cpha__reqserv *s, void *ssl_ctx);

/* Clients connected now. */
unsigned cpha__reqserv_nconns(const struct cpha__reqserv *s);

/* Close the listener and every client. NULL is allowed. */
void cpha__reqserv_free(struct cpha__reqserv *s);

#endif
