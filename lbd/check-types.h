/* A health check's state, for check.c and check_http.c. */
#ifndef LBD_CHECK_TYPES_H
#define LBD_CHECK_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <systemd/sd-event.h>

#include "cfg-types.h"
#include "curl_event.h"
#include "proxy-types.h"

/* A check ends: ok or not, and the reason for the log (check.c's,
 * called by check_http.c when an HTTP check is done). */
typedef void lbd_check_done_fn(struct lbd_check *c, bool ok, const char *reason);

/* One server's health check, shared by check.c and check_http.c. */
struct lbd_check {
	struct lbd_runtime *rt;
	struct lbd_server *srv;
	lbd_check_done_fn *done;
	const struct lbd_backend *bcfg;
	sd_event_source *timer; /* next check, or the deadline of the running one */
	bool running;
	bool stopped;
	uint64_t started; /* CLOCK_MONOTONIC usec */
	uint64_t deadline;
	uint64_t connect_usec; /* the connect part of the running check's budget */
	int curl_fd;           /* an HTTP check's socket (libcurl's; not closed here) */
	/* TCP and tcp-check */
	int fd;
	sd_event_source *io;
	size_t step; /* tcp-check rule being run */
	bool connecting;
	char *rbuf; /* received data for expect rules */
	size_t rlen;
	size_t sent;   /* bytes of the current send rule written */
	void *ssl;     /* SSL * for tcp-check connect ssl */
	void *ssl_ctx; /* SSL_CTX * */
	/* HTTP */
	struct cpha_curl_xfer xfer; /* the running transfer; xfer.h NULL when none */
	void *hdrs;                 /* struct curl_slist * */
	char *body;
	size_t body_len;
	char url[512];
	char errbuf[256];
};

#endif
