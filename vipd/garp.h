/* Announcing a virtual address after a takeover: gratuitous ARP for IPv4
 * (RFC 5227 announcement) and unsolicited neighbour advertisements for IPv6
 * (RFC 4861 §7.2.6), so hosts and switches point at the new master. */
#ifndef VIPD_GARP_H
#define VIPD_GARP_H

#include <stddef.h>
#include <stdint.h>

#include "addr.h"

/* Build an Ethernet frame carrying a gratuitous ARP request for ip from
 * mac. Returns its length (42). Pure, for tests. */
size_t garp_build_arp(uint8_t *frame, const uint8_t mac[6], const struct in_addr *ip);

/* Build an unsolicited neighbour advertisement (ICMPv6 body, the kernel
 * adds the checksum) for target from mac. Returns its length (32). */
size_t garp_build_na(uint8_t *buf, const uint8_t mac[6], const struct in6_addr *target);

/* The interface's MAC address. Returns 0 or a negative errno. */
int garp_ifmac(int ifindex, uint8_t mac[6]);

/* Send one announcement for a on interface ifindex. The sockets it uses
 * stay open until garp_close(). Returns 0 or a negative errno. */
int garp_send(int ifindex, const struct cpha_addr *a);

/* Close the announcement sockets (at exit). */
void garp_close(void);

#endif
