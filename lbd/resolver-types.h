/* A resolvers section as the parser builds it (HAProxy 2.6's "resolvers"
 * keywords): the name servers lbd asks, and the timings of its resolutions. */
#ifndef LBD_RESOLVER_TYPES_H
#define LBD_RESOLVER_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "addr.h"

/* Resolution outcomes that have a "hold" period (HAProxy's order). */
enum lbd_dns_status {
	LBD_DNS_NX,       /* the name does not exist (NXDOMAIN) */
	LBD_DNS_OTHER,    /* any other failure: no address, server failure, bad answer */
	LBD_DNS_REFUSED,  /* the name server refused the query */
	LBD_DNS_TIMEOUT,  /* no answer after every retry */
	LBD_DNS_VALID,    /* addresses came back */
	LBD_DNS_OBSOLETE, /* the server's address left the answer */
	LBD_DNS_NSTATUS,
};

struct lbd_nameserver {
	char *id;
	struct cpha_addr addr; /* port 53 when none was given */
	bool tcp;              /* tcp@: queries go over TCP */
	unsigned line;
};

struct lbd_resolvers_cfg {
	char *name;
	unsigned line;
	struct lbd_nameserver *ns;
	size_t nns;
	bool parse_resolv_conf;         /* ns includes /etc/resolv.conf's at parse time */
	uint64_t timeout_resolve;       /* usec between resolutions; default 1 s */
	uint64_t timeout_retry;         /* usec before a query is sent again; default 1 s */
	unsigned retries;               /* resolve_retries: queries per resolution; default 3 */
	unsigned payload;               /* accepted_payload_size; default 512 */
	uint64_t hold[LBD_DNS_NSTATUS]; /* usec per status; valid 10 s, obsolete 0, others 30 s */
};

#endif
