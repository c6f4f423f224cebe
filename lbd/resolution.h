/* What a DNS answer, or the lack of one, does to a server given by host
 * name: HAProxy 2.6's rules, as pure decisions with no I/O (resolver.c asks
 * the name servers and acts on the result).
 *
 * - A server keeps its address while the answer contains it, so balancing
 *   does not change on every round-robin answer. When the address has left
 *   the answer for 'hold obsolete' (0 by default: at once), the server takes
 *   a new one: the preferred family first ('resolve-prefer', IPv6 by
 *   default), and an address another server of the backend uses only when
 *   no other is left (HAProxy's default, 'prevent-dup-ip').
 * - After a failure of kind S (nx, refused, timeout, other), the last valid
 *   address is kept until 'hold S' has passed since the last valid answer;
 *   then the server goes into maintenance, as HAProxy's "DNS NX status",
 *   and comes back at the next valid answer. A server that never had an
 *   address ('init-addr none') is in maintenance until its first answer.
 * - The next query: 'hold valid' after a valid answer, 'timeout resolve'
 *   after a failure. */
#ifndef LBD_RESOLUTION_H
#define LBD_RESOLUTION_H

#include <stdbool.h>
#include <stdint.h>

#include "addr.h"
#include "resolver-types.h"

struct resolution_state {
	bool has_addr;            /* the server has an address */
	bool maint;               /* in maintenance because of DNS */
	uint64_t last_valid;      /* usec of the last valid answer; 0: none yet */
	uint64_t obsolete_since;  /* usec since the address is missing from answers; 0: not */
	enum lbd_dns_status last; /* outcome of the last resolution */
};

enum resolution_action {
	RESOLUTION_KEEP,   /* nothing changes */
	RESOLUTION_CHANGE, /* the server takes *out (and leaves maintenance if it was in) */
	RESOLUTION_MAINT,  /* the server goes into maintenance */
};

/* Start state: has_addr when the server got an address at start. */
void resolution_init(struct resolution_state *st, bool has_addr, uint64_t now);

/* A valid answer of n addresses (ports ignored). cur is the server's address
 * (when st->has_addr); taken holds the addresses of the backend's other
 * servers. On RESOLUTION_CHANGE, *out is the new address (port 0). */
enum resolution_action resolution_on_answer(struct resolution_state *st,
	const struct lbd_resolvers_cfg *rc, const struct cpha_addr *cur, int prefer,
	const struct cpha_addr *ans, size_t n, const struct cpha_addr *taken, size_t ntaken,
	uint64_t now, struct cpha_addr *out);

/* A failed resolution of kind status (not VALID or OBSOLETE). */
enum resolution_action resolution_on_error(struct resolution_state *st,
	const struct lbd_resolvers_cfg *rc, enum lbd_dns_status status, uint64_t now);

/* Usec until the next query, after the last outcome. */
uint64_t resolution_next(const struct resolution_state *st, const struct lbd_resolvers_cfg *rc);

/* "nx", "other", "refused", "timeout", "valid", "obsolete". */
const char *resolution_status_name(enum lbd_dns_status s);

/* The same IP address, ports aside. */
bool resolution_same_ip(const struct cpha_addr *a, const struct cpha_addr *b);

#endif
