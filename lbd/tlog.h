/* Traffic log: one HAProxy tcplog-style line per closed session, sent to the
 * frontend's "log" destinations. */
#ifndef LBD_TLOG_H
#define LBD_TLOG_H

#include <stddef.h>
#include <stdint.h>

#include "cfg-types.h"
#include "logdest.h"

struct lbd_session;

struct lbd_logger {
	size_t n;
	struct cpha_logdest d[];
};

/* Open the destinations (NULL when n is 0). Destinations that cannot be
 * opened are reported through *err_text and skipped. */
struct lbd_logger *tlog_open(const struct lbd_log_target *t, size_t n);

void tlog_free(struct lbd_logger *l);

/* Format the line for a closing session (pure; for tests too). */
int tlog_format(
	const struct lbd_session *s, uint64_t now_mono, uint64_t now_real, char *buf, size_t len);

/* Send the line of a closing session to its frontend's destinations. */
void tlog_session(const struct lbd_session *s, uint64_t now_mono);

#endif
