/* Log destinations as HAProxy's "log" directive names them: stdout, stderr,
 * syslog over a UNIX datagram socket or UDP, raw lines or RFC 3164. Used for
 * traffic logs (one line per connection), apart from the daemon's own log. */
#ifndef CPHA_LOGDEST_H
#define CPHA_LOGDEST_H

#include <stdbool.h>

#include "addr.h"

enum cpha_logdest_kind {
	CPHA_LOGDEST_STDOUT,
	CPHA_LOGDEST_STDERR,
	CPHA_LOGDEST_UNIX, /* syslog socket path, e.g. /dev/log */
	CPHA_LOGDEST_UDP,  /* syslog server */
};

struct cpha_logdest {
	enum cpha_logdest_kind kind;
	int fd;                /* -1 until opened (stdout/stderr use 1 and 2) */
	bool raw;              /* "format raw": the bare message */
	int facility;          /* syslog facility code (LOG_LOCAL0 ...) */
	int max_level;         /* messages above this level are not sent */
	struct cpha_addr addr; /* UDP */
	char path[108];        /* UNIX */
	const char *tag;       /* program name in the syslog header */
};

/* Open the socket of a syslog destination (non-blocking, close-on-exec).
 * Returns 0 or a negative errno. */
int cpha_logdest_open(struct cpha_logdest *d);

/* Send one message at a syslog level. Never blocks: a message that cannot
 * be written now is dropped (and counted by the caller if it wishes).
 * Returns 0, -EAGAIN when dropped, or another negative errno. */
int cpha_logdest_send(struct cpha_logdest *d, int level, const char *msg);

/* Close the socket (stdout and stderr stay open). */
void cpha_logdest_close(struct cpha_logdest *d);

/* Map a facility name ("local0", "daemon", ...) to its code, or -EINVAL. */
int cpha_logdest_facility(const char *name);

#endif
