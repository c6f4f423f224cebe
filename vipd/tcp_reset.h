/* vipd_reset_connections: when an instance gives up its addresses, the
 * TCP connections that use one of them as their local address (a load
 * balancer's client sessions on the VIP) are destroyed while the address
 * is still there (SOCK_DESTROY, as `ss -K`), so each client gets a reset
 * at once. Without it they hang: the VIP now leads to another host, and a
 * client that only waits for data (a Kubernetes watch) notices only at its
 * own timeout. Listening sockets are left alone. */
#ifndef VIPD_TCP_RESET_H
#define VIPD_TCP_RESET_H

#include <stddef.h>
#include <stdint.h>

/* Destroy every non-listening TCP socket of this network namespace whose
 * local address is addr (AF_INET: 4 bytes, AF_INET6: 16, network order).
 * *reset: how many were destroyed. 0, or a negative errno (the first
 * failure; the others were still tried). Needs CAP_NET_ADMIN and a kernel
 * with CONFIG_INET_DIAG_DESTROY (-EOPNOTSUPP otherwise). */
int vipd_tcp_reset(int fam, const void *addr, unsigned *reset);

/* When another host takes the address over, a reset sent before it has the
 * address only sends the client back here: its reconnection waits for a
 * SYN retransmission (a second) once the address is gone. So a master
 * that hands the VIP to a live backup gives the address up first and then
 * forgets its connections: it destroys them (with the address gone the
 * kernel has no route for their reset: the client hears nothing yet) and
 * keeps each one's addresses and ports. Once the new holder has the
 * address, vipd_tcp_nudge() gets each client its reset from there. */
struct vipd_tcp_conn {
	int fam;                     /* AF_INET or AF_INET6 */
	uint8_t local[16], peer[16]; /* the given-up address, the client's */
	uint16_t lport, pport;       /* network order */
};

/* Destroy the connections on addr (as vipd_tcp_reset) and append each to
 * *conns (*n of them; IPv4 clients of a dual-stack socket as AF_INET).
 * *destroyed: how many. 0 or a negative errno, as vipd_tcp_reset. */
int vipd_tcp_forget(
	int fam, const void *addr, struct vipd_tcp_conn **conns, size_t *n, unsigned *destroyed);

/* Send each client one TCP segment from the given-up address and port,
 * with a sequence number outside its window. Its stack answers with a
 * duplicate acknowledgement (RFC 9293 3.10.7.4; rate-limited, but the
 * first goes), which now reaches the new holder; that has no connection
 * for it and answers with a reset whose sequence number is the one the
 * client expects (RFC 9293 3.10.7.1, RFC 5961 3.2), so the client's
 * connection resets and it connects again, to the new holder. Raw sockets
 * (CAP_NET_RAW): a source address this host no longer has. *sent: how
 * many went out. 0 or the first negative errno. */
int vipd_tcp_nudge(const struct vipd_tcp_conn *c, size_t n, unsigned *sent);

#endif
