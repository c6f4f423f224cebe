/* Quiescing an address before it leaves this host (an lbd extension, the
 * admin socket's `quiesce`): vipd asks for it just before it hands a VIP
 * over to another host on purpose (vipd_quiesce, vipd.conf(5)).
 *
 * While an address is quiet, the listening sockets drop the connections
 * that clients open to it without a word (a classic BPF socket filter on
 * each listening socket matches the packet's destination): each client
 * sends its SYN again a second later, to whichever host holds the address
 * by then. The connections already accepted go on, so the requests in
 * flight finish before the address goes. A refused connection (a reset)
 * would fail at once instead; an accepted one would be cut when the
 * address moves.
 *
 * Each address is quiet until it is unquiesced or its time runs out (at
 * most LBD_QUIET_MAX_MS): a vipd that dies in the middle of a handover
 * cannot leave the address deaf. */
#ifndef LBD_QUIET_H
#define LBD_QUIET_H

#include <linux/filter.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "addr.h"

#define LBD_QUIET_MAX      8      /* addresses quiet at once */
#define LBD_QUIET_MAX_MS   60000u /* the longest a quiesce may last */
#define LBD_QUIET_DEF_MS   5000u  /* when the command gives no time */
/* header, the IPv4 chain, the IPv6 chains, accept, drop */
#define LBD_QUIET_PROG_MAX (3 + 1 + LBD_QUIET_MAX + 1 + 1 + 8 * LBD_QUIET_MAX + 2)

struct lbd_quiet_entry {
	struct cpha_addr addr; /* the IP address; the port is not looked at */
	uint64_t until;        /* CLOCK_MONOTONIC usec */
};

/* The addresses quiet now (the main thread's). */
struct lbd_quiet {
	struct lbd_quiet_entry e[LBD_QUIET_MAX];
	size_t n;
};

/* The filter workers attach to their listening sockets: len 0 means
 * none (detach). Shared by the workers, freed at the last unref. */
struct lbd_quiet_prog {
	atomic_uint refs;
	struct sock_fprog fprog;
	struct sock_filter insns[LBD_QUIET_PROG_MAX];
};

/* --- pure ---------------------------------------------------------- */

/* Quiet a (IPv4 or IPv6) until until, or push its end back when it is
 * quiet already. Returns 0, -EAFNOSUPPORT, or -ENOSPC when LBD_QUIET_MAX
 * addresses are quiet. */
int quiet_add(struct lbd_quiet *q, const struct cpha_addr *a, uint64_t until);

/* a no longer quiet. Returns whether it was. */
bool quiet_remove(struct lbd_quiet *q, const struct cpha_addr *a);

/* Drop the entries whose time ran out by now. Returns whether any did. */
bool quiet_expire(struct lbd_quiet *q, uint64_t now);

/* The earliest end of an entry, or UINT64_MAX when none. */
uint64_t quiet_next_end(const struct lbd_quiet *q);

/* The program that drops packets addressed to one of q's addresses and
 * accepts the rest, into insns (room for LBD_QUIET_PROG_MAX). Returns its
 * length: 0 when q is empty (nothing to attach). Packets are read at the
 * network header (SKF_NET_OFF), which a TCP socket's filter sees past the
 * TCP header's start: an IPv4 packet on a dual-stack socket is matched by
 * its IPv4 address. */
size_t quiet_program(const struct lbd_quiet *q, struct sock_filter *insns);

/* --- I/O ----------------------------------------------------------- */

/* Attach p's filter to a listening socket fd, or detach it (p NULL or
 * len 0). Returns 0 or a negative errno. */
int quiet_apply(int fd, const struct lbd_quiet_prog *p);

/* A program of q for the workers, with one reference; NULL out of memory. */
struct lbd_quiet_prog *quiet_prog_new(const struct lbd_quiet *q);
void quiet_prog_ref(struct lbd_quiet_prog *p);
void quiet_prog_unref(struct lbd_quiet_prog *p);

#endif
