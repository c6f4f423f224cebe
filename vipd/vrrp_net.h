/* VRRP on the wire: raw IP protocol 112 sockets per interface and family,
 * multicast (224.0.0.18, ff02::12) or unicast, TTL / hop limit 255. */
#ifndef VIPD_VRRP_NET_H
#define VIPD_VRRP_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "addr.h"

#define VRRP_PROTO 112

struct vrrp_sock {
	int fd;
	int family;
	int ifindex;
};

/* What a received packet came with. */
struct vrrp_rx {
	struct cpha_addr src, dst;
	int ttl;    /* IPv4 TTL or IPv6 hop limit */
	size_t len; /* VRRP payload length (the IPv4 header is stripped) */
};

/* The VRRP multicast group of a family. */
void vrrp_group(int family, struct cpha_addr *out);

/* Open a socket on an interface; with group (of the family) not NULL,
 * join that multicast group on it. Returns 0 or a negative errno. */
int vrrp_sock_open(struct vrrp_sock *s, int family, int ifindex, const struct cpha_addr *group);

void vrrp_sock_close(struct vrrp_sock *s);

/* Send a VRRP payload from src to dst (group or peer). Returns 0 or a
 * negative errno. */
int vrrp_sock_send(struct vrrp_sock *s, const void *buf, size_t len, const struct cpha_addr *src,
	const struct cpha_addr *dst);

/* Receive one packet into buf; the payload starts at *payload. Returns 1,
 * 0 when nothing is waiting, or a negative errno. */
int vrrp_sock_recv(
	struct vrrp_sock *s, void *buf, size_t len, const void **payload, struct vrrp_rx *rx);

/* The address VRRP packets of this family leave from on an interface:
 * the first IPv4 address that is not one of the excluded ones (the VIPs),
 * or the IPv6 link-local address (RFC 9568 §5.1.2.1). */
int vrrp_primary_addr(int family, int ifindex, const struct cpha_addr *exclude, size_t nexclude,
	struct cpha_addr *out);

#endif
