/* cpha lab: why a request of the prober failed, and in which phase of a
 * scenario. Pure: no I/O, no clock.
 *
 * Causes, decided from one failed request line by the first rule that
 * applies:
 *  1. an HTTP status >= 500: http_5xx.
 *  2. curl 28 (CURLE_OPERATION_TIMEDOUT): not connected: connect_timeout;
 *     connected but no TLS handshake completed: tls_timeout; else
 *     request_timeout (connected and tls unknown count as false).
 *  3. curl 7 (CURLE_COULDNT_CONNECT): errno ECONNREFUSED: connect_refused;
 *     ECONNRESET: connect_reset; ETIMEDOUT, EHOSTUNREACH, ENETUNREACH,
 *     EHOSTDOWN: connect_timeout; else other.
 *  4. curl 35, 52, 55, 56 (SSL connect error, got nothing, send error,
 *     receive error): errno ECONNRESET or EPIPE, the text "reset by peer"
 *     or "SSL_ERROR_SYSCALL" (OpenSSL met the end of the connection in the
 *     handshake: closed, not reset, by a load balancer with no server to
 *     send to) in err, or curl 52: connect_reset; else other.
 *  5. any other curl code: other.
 *  6. no curl code (files of a prober that did not write it, or the
 *     prober's own "tick timed out before X was sent"): the err text, the
 *     words matched without regard to case (a leading "not sent: " changes
 *     nothing: the rest says why):
 *     "tick timed out": request_timeout; "Connection refused":
 *     connect_refused; "reset by peer": connect_reset; "SSL connection
 *     timeout": tls_timeout; "Connection timed out", or "Failed to connect"
 *     with "timed out": connect_timeout; "Operation timed out" (curl's
 *     words for a whole transfer that timed out): when connected is known,
 *     as rule 2, else request_timeout; "answered N" with N >= 500 (a later
 *     step not sent after a 5xx): http_5xx; anything else: other.
 * Anything else (a 4xx the prober does not count ok, an answer it could
 * not read) is other. */
#ifndef CPHA_LAB_CAUSE_H
#define CPHA_LAB_CAUSE_H

#include <stdbool.h>
#include <stddef.h>

enum lab_cause {
	LAB_CAUSE_CONNECT_REFUSED,
	LAB_CAUSE_CONNECT_RESET,
	LAB_CAUSE_CONNECT_TIMEOUT,
	LAB_CAUSE_TLS_TIMEOUT,
	LAB_CAUSE_HTTP_5XX,
	LAB_CAUSE_REQUEST_TIMEOUT,
	LAB_CAUSE_OTHER,
};

#define LAB_NCAUSES 7 /* the causes above */

/* What a failed request line says about its failure. */
struct lab_cause_facts {
	int code;        /* HTTP status; 0: none */
	int curl;        /* CURLcode; < 0: not in the line */
	int os_errno;    /* CURLINFO_OS_ERRNO; 0: none */
	int connected;   /* TCP connection established: 1, 0, or -1 not known */
	int tls;         /* TLS handshake completed: 1, 0, or -1 not known */
	const char *err; /* the line's text; may be NULL */
};

/* The cause of one failed request by the rules above. */
enum lab_cause lab_cause_classify(const struct lab_cause_facts *f);

/* The cause's name in report.json ("connect_refused", ...). */
const char *lab_cause_name(enum lab_cause c);

/* Phases of a scenario, in the order report.json lists them. */
enum lab_phase {
	LAB_PHASE_BEFORE_DETECT,
	LAB_PHASE_NO_VIP,
	LAB_PHASE_DEAD_SERVER,
	LAB_PHASE_ETCD_ELECTION,
	LAB_PHASE_OTHER, /* in none of the scenario's phases */
};

#define LAB_NPHASES 5 /* the phases above */

/* The phase's name in report.json ("before_detect", ...). */
const char *lab_phase_name(enum lab_phase p);

/* The phase named name, other excepted (it is what is left, never an
 * interval of its own). Returns 0 and sets *p, or -EINVAL. */
int lab_phase_parse(const char *name, enum lab_phase *p);

/* An interval of a phase, unix seconds, from <= to. */
struct lab_phase_span {
	enum lab_phase phase;
	double from, to;
};

/* The phase a failed request falls in. Its span is [t - ms/1000, t] (t:
 * when its line was written), [t, t] when it was not sent or ms is 0.
 * Among the spans that overlap it (both ends included) the phase first in
 * the order before_detect, no_vip, dead_server, etcd_election wins; none:
 * other. */
enum lab_phase lab_phase_of(
	double t, double ms, bool not_sent, const struct lab_phase_span *spans, size_t nspans);

#endif
