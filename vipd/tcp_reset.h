/* vipd_reset_connections: when an instance gives up its addresses, the
 * TCP connections that use one of them as their local address (a load
 * balancer's client sessions on the VIP) are destroyed while the address
 * is still there (SOCK_DESTROY, as `ss -K`), so each client gets a reset
 * at once. Without it they hang: the VIP now leads to another host, and a
 * client that only waits for data (a Kubernetes watch) notices only at its
 * own timeout. Listening sockets are left alone. */
#ifndef VIPD_TCP_RESET_H
#define VIPD_TCP_RESET_H

/* Destroy every non-listening TCP socket of this network namespace whose
 * local address is addr (AF_INET: 4 bytes, AF_INET6: 16, network order).
 * *reset: how many were destroyed. 0, or a negative errno (the first
 * failure; the others were still tried). Needs CAP_NET_ADMIN and a kernel
 * with CONFIG_INET_DIAG_DESTROY (-EOPNOTSUPP otherwise). */
int vipd_tcp_reset(int fam, const void *addr, unsigned *reset);

#endif
