/* cpha lab: the cause and the phase of a failed request. Pure. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lab_cause.h"

/* libcurl's numbers for the codes the rules name (curl/curl.h, stable ABI):
 * named here so this module needs no libcurl. */
#define CURL_COULDNT_CONNECT    7
#define CURL_OPERATION_TIMEDOUT 28
#define CURL_SSL_CONNECT_ERROR  35
#define CURL_GOT_NOTHING        52
#define CURL_SEND_ERROR         55
#define CURL_RECV_ERROR         56

static const char *const cause_names[LAB_NCAUSES] = {
	[LAB_CAUSE_CONNECT_REFUSED] = "connect_refused",
	[LAB_CAUSE_CONNECT_RESET] = "connect_reset",
	[LAB_CAUSE_CONNECT_TIMEOUT] = "connect_timeout",
	[LAB_CAUSE_TLS_TIMEOUT] = "tls_timeout",
	[LAB_CAUSE_HTTP_5XX] = "http_5xx",
	[LAB_CAUSE_REQUEST_TIMEOUT] = "request_timeout",
	[LAB_CAUSE_OTHER] = "other",
};

static const char *const phase_names[LAB_NPHASES] = {
	[LAB_PHASE_BEFORE_DETECT] = "before_detect",
	[LAB_PHASE_NO_VIP] = "no_vip",
	[LAB_PHASE_DEAD_SERVER] = "dead_server",
	[LAB_PHASE_ETCD_ELECTION] = "etcd_election",
	[LAB_PHASE_OTHER] = "other",
};

const char *lab_cause_name(enum lab_cause c)
{
	return (unsigned)c < LAB_NCAUSES ? cause_names[c] : "other";
}

const char *lab_phase_name(enum lab_phase p)
{
	return (unsigned)p < LAB_NPHASES ? phase_names[p] : "other";
}

int lab_phase_parse(const char *name, enum lab_phase *p)
{
	for (int i = 0; i < LAB_PHASE_OTHER; i++)
		if (name && !strcmp(name, phase_names[i])) {
			*p = (enum lab_phase)i;
			return 0;
		}
	return -EINVAL;
}

/* needle in hay, letters compared without regard to case. */
static const char *find(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; hay && *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return hay;
	return NULL;
}

/* Rule 2: a timeout, told apart by how far the transfer got. */
static enum lab_cause timed_out(const struct lab_cause_facts *f)
{
	if (f->connected != 1)
		return LAB_CAUSE_CONNECT_TIMEOUT;
	if (f->tls != 1)
		return LAB_CAUSE_TLS_TIMEOUT;
	return LAB_CAUSE_REQUEST_TIMEOUT;
}

/* Rule 6: what the text says, for lines without a curl code. */
static enum lab_cause from_text(const struct lab_cause_facts *f)
{
	const char *s = f->err ? f->err : "", *a;

	if (!strncasecmp(s, "not sent: ", 10))
		s += 10;
	if (find(s, "tick timed out"))
		return LAB_CAUSE_REQUEST_TIMEOUT;
	if (find(s, "Connection refused"))
		return LAB_CAUSE_CONNECT_REFUSED;
	if (find(s, "reset by peer"))
		return LAB_CAUSE_CONNECT_RESET;
	if (find(s, "SSL connection timeout"))
		return LAB_CAUSE_TLS_TIMEOUT;
	if (find(s, "Connection timed out") ||
		(find(s, "Failed to connect") && find(s, "timed out")))
		return LAB_CAUSE_CONNECT_TIMEOUT;
	if (find(s, "Operation timed out"))
		return f->connected >= 0 ? timed_out(f) : LAB_CAUSE_REQUEST_TIMEOUT;
	a = find(s, "answered ");
	if (a && atoi(a + 9) >= 500)
		return LAB_CAUSE_HTTP_5XX;
	return LAB_CAUSE_OTHER;
}

enum lab_cause lab_cause_classify(const struct lab_cause_facts *f)
{
	if (f->code >= 500)
		return LAB_CAUSE_HTTP_5XX;
	switch (f->curl) {
	case CURL_OPERATION_TIMEDOUT:
		return timed_out(f);
	case CURL_COULDNT_CONNECT:
		switch (f->os_errno) {
		case ECONNREFUSED:
			return LAB_CAUSE_CONNECT_REFUSED;
		case ECONNRESET:
			return LAB_CAUSE_CONNECT_RESET;
		case ETIMEDOUT:
		case EHOSTUNREACH:
		case ENETUNREACH:
		case EHOSTDOWN:
			return LAB_CAUSE_CONNECT_TIMEOUT;
		default:
			return LAB_CAUSE_OTHER;
		}
	case CURL_SSL_CONNECT_ERROR:
	case CURL_GOT_NOTHING:
	case CURL_SEND_ERROR:
	case CURL_RECV_ERROR:
		if (f->os_errno == ECONNRESET || f->os_errno == EPIPE ||
			find(f->err, "reset by peer") || find(f->err, "SSL_ERROR_SYSCALL") ||
			f->curl == CURL_GOT_NOTHING)
			return LAB_CAUSE_CONNECT_RESET;
		return LAB_CAUSE_OTHER;
	default:
		return f->curl < 0 ? from_text(f) : LAB_CAUSE_OTHER;
	}
}

/* The precedence of the phases when spans overlap: the first wins. A
 * request that met the fault before any survivor noticed it could only
 * have been saved by a faster detection, whatever came after. */
static const enum lab_phase phase_rank[] = {
	LAB_PHASE_BEFORE_DETECT,
	LAB_PHASE_NO_VIP,
	LAB_PHASE_DEAD_SERVER,
	LAB_PHASE_ETCD_ELECTION,
};

enum lab_phase lab_phase_of(
	double t, double ms, bool not_sent, const struct lab_phase_span *spans, size_t nspans)
{
	double from = not_sent || ms <= 0 ? t : t - ms / 1000.0;

	for (size_t k = 0; k < sizeof(phase_rank) / sizeof(phase_rank[0]); k++)
		for (size_t i = 0; i < nspans; i++)
			if (spans[i].phase == phase_rank[k] && spans[i].from <= t &&
				spans[i].to >= from)
				return phase_rank[k];
	return LAB_PHASE_OTHER;
}
