/* Stick tables: which server a client address was last sent to, as
 * HAProxy's "stick-table type ip|ipv6" with "stick on src". A hash table
 * keyed by address, entries kept oldest-used first so expiry and purging
 * take the oldest. No I/O; every call takes the table's own lock, so the
 * workers may share one table. */
#ifndef LBD_STICK_H
#define LBD_STICK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define STICK_SIZE_MAX (1u << 30) /* largest size lbd accepts */

struct stick_table;

/* A table of at most size entries (size > 0) keyed by IPv4 (family
 * AF_INET, HAProxy's "type ip") or IPv6 addresses (AF_INET6, "type
 * ipv6"). An entry not used for expire usec is gone (0: never). When the
 * table is full a new entry replaces the oldest one, unless nopurge: then
 * it is not stored. NULL when out of memory. */
struct stick_table *stick_new(int family, unsigned size, uint64_t expire, bool nopurge);

/* Free the table and its entries (NULL is fine). */
void stick_free(struct stick_table *t);

/* The key of a client address in a table of this family: an IPv4 table
 * takes IPv4 and IPv4-mapped IPv6 addresses, an IPv6 table takes both
 * (IPv4 as ::ffff:a.b.c.d), as HAProxy converts src. False when the
 * address has no key there (the rule then does nothing). */
bool stick_key(int family, const struct sockaddr *sa, uint8_t key[16]);

/* Look up client at time now (CLOCK_MONOTONIC usec): 1 and *srv_id when
 * an entry exists (its expiry starts again: "stick match" refreshes it), 0
 * when none, -1 when the address has no key in this table. */
int stick_lookup(
	struct stick_table *t, const struct sockaddr *client, uint64_t now, unsigned *srv_id);

/* Store (or update) client's entry with srv_id at time now. 0 when stored,
 * -1 when not (no key, full with nopurge, out of memory). */
int stick_store(
	struct stick_table *t, const struct sockaddr *client, unsigned srv_id, uint64_t now);

/* Entries in use at time now (expired ones are dropped first). */
unsigned stick_used(struct stick_table *t, uint64_t now);

/* The table's family, size, expire (usec) as given to stick_new(). */
int stick_family(const struct stick_table *t);
unsigned stick_size(const struct stick_table *t);
uint64_t stick_expire(const struct stick_table *t);
bool stick_nopurge(const struct stick_table *t);

/* Call fn for every live entry, oldest-used first, with its address as
 * text, its server id, the usec left before it expires (0 when it never
 * does) and a stable identifier. fn runs under the table's lock and must
 * not call into the table. */
void stick_walk(struct stick_table *t, uint64_t now,
	void (*fn)(void *arg, const char *key, unsigned srv_id, uint64_t left, uintptr_t id),
	void *arg);

#endif
