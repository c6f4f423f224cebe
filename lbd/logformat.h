/* HAProxy's log-format strings (section 8.2.4 of its configuration manual):
 * compiled once when the configuration is read, rendered per session.
 * Pure: no I/O, so unit tests drive both halves. */
#ifndef LBD_LOGFORMAT_H
#define LBD_LOGFORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

enum lf_kind {
	LF_TEXT, /* literal text */
	LF_SEP,  /* a run of spaces: one space, never two in a row nor leading */
	LF_CI,   /* client address */
	LF_CP,   /* client port */
	LF_FI,   /* address the client connected to */
	LF_FP,
	LF_BI, /* lbd's address on the server connection */
	LF_BP,
	LF_SI, /* server address */
	LF_SP,
	LF_F,         /* frontend name */
	LF_FT,        /* frontend name with transport ('~' would mark TLS; lbd has none) */
	LF_B,         /* backend name */
	LF_S,         /* server name, <NOSRV> when none */
	LF_T_LOCAL,   /* %t: accept date, local time, with milliseconds */
	LF_T_GMT,     /* %T: accept date, GMT */
	LF_TL,        /* %Tl: accept date, local time with its offset */
	LF_TS,        /* %Ts: accept date, seconds since the epoch */
	LF_MS,        /* %ms: milliseconds of the accept date */
	LF_TW,        /* %Tw: time queued (ms) */
	LF_TC,        /* %Tc: time to connect to the server (ms) */
	LF_TT,        /* %Tt: total session time (ms) */
	LF_TD,        /* %Td: data time, Tt - Tw - Tc */
	LF_TH,        /* %Th: handshake time: 0, lbd terminates no TLS */
	LF_TU,        /* %Tu: total time seen by the client; Tt in TCP */
	LF_BYTES_OUT, /* %B: bytes from the server to the client */
	LF_BYTES_IN,  /* %U: bytes from the client to the server */
	LF_TERM,      /* %ts: termination state, two characters */
	LF_TERMC,     /* %tsc: ts and "--" (no cookies in TCP) */
	LF_AC,        /* %ac: sessions in the whole process */
	LF_FC,        /* %fc: sessions on the frontend */
	LF_BC,        /* %bc: sessions on the backend */
	LF_SC,        /* %sc: sessions on the server */
	LF_RC,        /* %rc: retries, '+' first when redispatched */
	LF_SQ,        /* %sq: server queue (lbd queues per backend: 0) */
	LF_BQ,        /* %bq: backend queue */
	LF_PID,       /* %pid */
	LF_HOST,      /* %H: host name */
	LF_LC,        /* %lc: frontend log counter */
	LF_RT,        /* %rt: session counter */
	LF_STATUS,    /* %ST: no HTTP status in TCP: 0 */
	LF_DASH,      /* %ID %sslc %sslv: nothing lbd has: "-" */
	LF_EMPTY,     /* %hr %hs %hrl %hsl: no captures in TCP: nothing */
};

/* Node flag: %{+Q}: strings between double quotes. */
#define LF_OPT_QUOTE 0x1u

struct lf_node {
	enum lf_kind kind;
	unsigned flags; /* LF_OPT_* */
	char *text;     /* LF_TEXT */
};

struct lf_format {
	struct lf_node *n;
	size_t nn;
};

/* What one session's line is made of; addresses may be NULL (logged '-'). */
struct lf_values {
	const struct sockaddr_storage *client, *front, *back, *server;
	const char *frontend, *backend, *server_name; /* server_name NULL: <NOSRV> */
	uint64_t accept_real_usec;                    /* CLOCK_REALTIME */
	long tw, tc, tt;                              /* ms, -1: never reached */
	unsigned long long bytes_in, bytes_out;
	const char *term; /* two characters */
	unsigned ac, fc, bc, sc, rc, sq, bq;
	int redispatched;
	int pid;
	const char *hostname;
	unsigned long log_counter, session_counter;
};

/* Compile a log-format string for a TCP proxy (HTTP-only variables are
 * errors, as HAProxy says for a proxy not in mode http). Returns 0, or -1
 * with err set. A
 * variable flag lbd does not apply is accepted, as by HAProxy, and named in
 * warn (warn[0] stays 0 otherwise). */
int lf_compile(
	const char *s, struct lf_format *out, char *err, size_t errlen, char *warn, size_t warnlen);

void lf_free(struct lf_format *f);

/* Render one line into buf (always NUL-terminated when len > 0); returns
 * the length written, cut at len - 1. */
size_t lf_render(const struct lf_format *f, const struct lf_values *v, char *buf, size_t len);

#endif
