/* Server choice for a new connection, and the slowstart ramp. Pure: the
 * caller describes the servers, these functions decide. */
#ifndef LBD_BALANCE_H
#define LBD_BALANCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "cfg-types.h"

#define BALANCE_NONE         (-1) /* no usable server */
/* Configured weights (0..256) are multiplied by this for the balancer, so
 * slowstart can ramp even a weight of 1 in small steps (HAProxy scales
 * its weights too). */
#define BALANCE_WEIGHT_SCALE 256
#define BALANCE_FULL         (-2) /* usable servers, all at maxconn: queue the session */

/* One server as the balancer sees it, in configuration (id) order. */
struct balance_srv {
	unsigned weight;  /* effective weight; 0 takes no new connections */
	unsigned cur;     /* current sessions */
	unsigned maxconn; /* effective limit; 0 = none */
	bool usable;      /* up and in service (not maint, drain or tried) */
	bool backup;
	int64_t rr; /* smooth round-robin credit, kept between picks */
};

struct balance_state {
	enum lbd_balance algo;
	size_t next;  /* rotation point for ties (leastconn) */
	uint64_t rng; /* xorshift64 state (random) */
};

/* Initialise the state of one backend's balancer. */
void balance_init(struct balance_state *b, enum lbd_balance algo, uint64_t seed);

/* Choose a server for a client (client may be NULL for algorithms that do
 * not hash it). Primaries are considered first; backups only when no
 * primary is usable, and then only the first usable backup (HAProxy's
 * default). Returns an index into s, BALANCE_NONE or BALANCE_FULL. Updates
 * the round-robin credits in s and the state in b. */
int balance_pick(
	struct balance_state *b, struct balance_srv *s, size_t n, const struct sockaddr *client);

/* Slowstart: the weight of a server up for since_up usec with a ramp of
 * slowstart usec (never below 1 while weight > 0). */
unsigned balance_slowstart_weight(unsigned weight, uint64_t since_up, uint64_t slowstart);

/* Slowstart: the connection limit during the ramp (0 stays unlimited). */
unsigned balance_slowstart_maxconn(unsigned maxconn, uint64_t since_up, uint64_t slowstart);

#endif
