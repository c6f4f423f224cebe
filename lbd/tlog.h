/* Traffic log: one HAProxy tcplog-style line per closed session, sent to the
 * frontend's "log" destinations. */
#ifndef LBD_TLOG_H
#define LBD_TLOG_H

#include <stddef.h>
#include <stdint.h>

#include <stdatomic.h>
#include <stdbool.h>

#include "cfg-types.h"
#include "logdest.h"
#include "logformat.h"

struct lbd_session;

struct lbd_logger {
	struct lf_format fmt; /* log-format; no nodes: the tcplog line */
	bool dontlog_normal;  /* option dontlog-normal */
	atomic_ulong lines;   /* %lc */
	size_t n;
	struct cpha_logdest d[];
};

/* Open the destinations (NULL when n is 0) with the frontend's log-format
 * (NULL: the tcplog line, or an invalid string, which the parser refused)
 * and option dontlog-normal. Destinations that cannot be opened are
 * logged and skipped. */
struct lbd_logger *tlog_open(
	const struct lbd_log_target *t, size_t n, const char *log_format, bool dontlog_normal);

/* HAProxy's test for option dontlog-normal: a session is worth logging when
 * it was redispatched, retried, or ended on an error or a timeout (a
 * termination cause other than '-' and 'L'). Pure. */
bool tlog_failed(const char *term, unsigned retries, bool redispatched);

/* The log-format values of a closing session (pure; for tests too).
 * Addresses it needs are read by the caller: front/back may be NULL. */
void tlog_values(const struct lbd_session *s, uint64_t now_mono, uint64_t now_real,
	const struct sockaddr_storage *front, const struct sockaddr_storage *back,
	struct lf_values *v);

void tlog_free(struct lbd_logger *l);

/* Format the line for a closing session (pure; for tests too). */
int tlog_format(
	const struct lbd_session *s, uint64_t now_mono, uint64_t now_real, char *buf, size_t len);

/* Send the line of a closing session to its frontend's destinations. */
void tlog_session(const struct lbd_session *s, uint64_t now_mono);

#endif
