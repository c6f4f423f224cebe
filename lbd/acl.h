/* ACLs and conditions: the subset of HAProxy's ACL language that a stats
 * page, a monitor-uri and a Prometheus exporter need ("if { nbsrv(api) lt
 * 1 }", "if { path /metrics }", "if TRUE", "if !authorized || local",
 * "if { hdr(host) -i stats.example.com }"), and that tcp-request rules and
 * use_backend conditions on traffic need ("if { req.ssl_hello_type 1 }",
 * "if { req.ssl_sni -m end .example.com }", "if { src 198.18.0.0/15 }").
 * Pure: parsing returns a message, evaluation reads the facts the caller
 * gives and does no I/O. */
#ifndef LBD_ACL_H
#define LBD_ACL_H

#include <stdbool.h>
#include <stddef.h>
#include <regex.h>
#include <stdint.h>
#include <sys/socket.h>

#include "addr.h"

/* Sample fetches lbd knows (HAProxy's names). */
enum acl_fetch {
	ACL_F_TRUE,      /* always_true, and the predefined ACL TRUE */
	ACL_F_FALSE,     /* always_false, and the predefined ACL FALSE */
	ACL_F_NBSRV,     /* nbsrv(BACKEND): usable servers, integer */
	ACL_F_PATH,      /* path (path_beg, path_end, path_sub: another match) */
	ACL_F_SRC,       /* src: client address against IPs and CIDRs */
	ACL_F_DST_PORT,  /* dst_port: integer */
	ACL_F_HTTP_AUTH, /* http_auth(USERLIST): Basic credentials valid there */
	ACL_F_HDR,       /* hdr(NAME): an HTTP request header's value */
	ACL_F_REQ_LEN,   /* req.len: bytes the client sent so far, integer */
	ACL_F_SSL_HELLO, /* req.ssl_hello_type: TLS handshake message type */
	ACL_F_SSL_SNI,   /* req.ssl_sni: the ClientHello's server name */
};

/* How a string sample is matched (-m, or the fetch's own suffix). */
enum acl_match {
	ACL_M_STR,   /* exact */
	ACL_M_BEG,   /* prefix */
	ACL_M_END,   /* suffix */
	ACL_M_SUB,   /* substring */
	ACL_M_FOUND, /* the sample exists; no pattern */
	ACL_M_REG,   /* POSIX extended regular expression (HAProxy's PCRE subset) */
};

/* What a condition's fetches read (acl_cond_needs). */
#define ACL_NEEDS_PAYLOAD 1u /* the client's first bytes: req.len, req.ssl_* */
#define ACL_NEEDS_HTTP    2u /* an HTTP request: path, hdr, http_auth */

/* A condition's outcome: as HAProxy's ACL_TEST_*, MISS when a fetch needs
 * bytes the client has not sent yet and more may come (not final). */
enum acl_verdict {
	ACL_FAIL,
	ACL_PASS,
	ACL_MISS,
};

/* An integer pattern: lo <= v <= hi (lt/le/gt/ge/eq and ranges map here). */
struct acl_range {
	int64_t lo, hi;
};

/* One criterion with its patterns; true when any pattern matches. */
struct acl_expr {
	enum acl_fetch fetch;
	enum acl_match match; /* string fetches */
	char *arg; /* nbsrv, http_auth, hdr: the backend, userlist or header name */
	int icase; /* -i: strings compared without case */
	char **strs;
	size_t nstrs;
	regex_t *regs; /* -m reg: one per string, nregs of them compiled */
	size_t nregs;
	struct acl_range *ranges;
	size_t nranges;
	struct cpha_addr *nets; /* src: network address */
	unsigned *plens;        /* src: prefix lengths */
	size_t nnets;
};

/* A named ACL: every "acl NAME ..." line with that name, ORed. */
struct acl {
	char *name;
	struct acl_expr *exprs;
	size_t nexprs;
};

/* A condition: terms ANDed within a suite, suites ORed. Each term refers to
 * a named ACL of the list or to an anonymous one it owns. */
struct acl_term {
	struct acl *acl;
	int neg;
	int anon; /* acl is owned by the term */
};

struct acl_suite {
	struct acl_term *terms;
	size_t nterms;
};

struct acl_cond {
	int unless; /* "unless": the result is inverted */
	struct acl_suite *suites;
	size_t nsuites;
	unsigned line;
};

/* The named ACLs of one proxy. */
struct acl_list {
	struct acl **acls;
	size_t n;
};

/* What a condition may ask about one request. */
struct acl_facts {
	const char *path;           /* request path (no query string) */
	const struct sockaddr *src; /* client address */
	uint16_t dst_port;          /* local port the request came to */
	/* usable servers of a backend; -1 when there is no such backend */
	int (*nbsrv)(void *userdata, const char *backend);
	/* the request's Basic credentials are valid in this userlist */
	bool (*http_auth)(void *userdata, const char *userlist);
	/* a request header's value, NULL when absent */
	const char *(*hdr)(void *userdata, const char *name);
	void *userdata;
	const uint8_t *payload; /* the client's first bytes (read, not consumed) */
	size_t payload_len;
	bool final; /* no more bytes will come for this decision */
};

/* Add the words after "acl" (NAME CRITERION [FLAGS] PATTERN...) to list.
 * Returns 0, or -1 with a message in err. */
int acl_define(struct acl_list *list, const char *const *w, size_t n, char *err, size_t errlen);

/* Parse "if|unless TERM..." (w[0] is "if" or "unless"), resolving names in
 * list (which must outlive the condition). Returns the condition, or NULL
 * with a message in err. */
struct acl_cond *acl_cond_parse(
	const struct acl_list *list, const char *const *w, size_t n, char *err, size_t errlen);

/* Evaluate a condition for one request (NULL: no condition, true); a
 * sample not there yet counts as absent. */
bool acl_cond_eval(const struct acl_cond *c, const struct acl_facts *f);

/* The same with HAProxy's three outcomes (NULL: ACL_PASS). */
enum acl_verdict acl_cond_exec(const struct acl_cond *c, const struct acl_facts *f);

/* ACL_NEEDS_* bits of what the condition's fetches read (NULL: 0). */
unsigned acl_cond_needs(const struct acl_cond *c);

/* Call fn for every backend (nbsrv) or userlist (http_auth) name the
 * condition refers to; stops at and returns the first non-zero result. */
int acl_cond_walk(const struct acl_cond *c, enum acl_fetch fetch,
	int (*fn)(void *userdata, const char *name), void *userdata);

/* Free a condition (NULL allowed); named ACLs stay in their list. */
void acl_cond_free(struct acl_cond *c);

/* Free every ACL of a list and empty it. */
void acl_list_free(struct acl_list *list);

#endif
