#include <arpa/inet.h>
#include <errno.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <netpacket/packet.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "garp.h"

size_t garp_build_arp(uint8_t *f, const uint8_t mac[6], const struct in_addr *ip)
{
	memset(f, 0xff, 6); /* to everyone */
	memcpy(f + 6, mac, 6);
	f[12] = 0x08;
	f[13] = 0x06; /* ARP */
	f[14] = 0x00;
	f[15] = 0x01; /* Ethernet */
	f[16] = 0x08;
	f[17] = 0x00; /* IPv4 */
	f[18] = 6;
	f[19] = 4;
	f[20] = 0x00;
	f[21] = 0x01; /* request: RFC 5227 §2.3 announcement */
	memcpy(f + 22, mac, 6);
	memcpy(f + 28, ip, 4);
	memset(f + 32, 0, 6);
	memcpy(f + 38, ip, 4); /* target IP = sender IP: gratuitous */
	return 42;
}

size_t garp_build_na(uint8_t *b, const uint8_t mac[6], const struct in6_addr *target)
{
	memset(b, 0, 32);
	b[0] = ND_NEIGHBOR_ADVERT;
	b[1] = 0;
	/* checksum b[2..3]: the kernel fills it for raw ICMPv6 sockets */
	b[4] = 0x20; /* Override: replace the cached link-layer address */
	memcpy(b + 8, target, 16);
	b[24] = ND_OPT_TARGET_LINKADDR;
	b[25] = 1; /* length in units of 8 bytes */
	memcpy(b + 26, mac, 6);
	return 32;
}

int garp_ifmac(int ifindex, uint8_t mac[6])
{
	struct ifreq ifr = { 0 };
	int fd, r = 0;

	if (!if_indextoname((unsigned)ifindex, ifr.ifr_name))
		return -ENODEV;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd == -1)
		return -errno;
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) == -1)
		r = -errno;
	else
		memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	close(fd);
	return r;
}

/* The sockets stay open for the life of the daemon: closing a packet
 * socket waits for the kernel to synchronise (several ms), which must not
 * happen between the packets of a burst or before an advertisement. */
static int arp_fd = -1, na_fd = -1;

static int send_arp(int ifindex, const uint8_t mac[6], const struct in_addr *ip)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_ARP),
		.sll_ifindex = ifindex,
		.sll_halen = 6 };
	uint8_t frame[64];
	size_t len = garp_build_arp(frame, mac, ip);

	if (arp_fd < 0) {
		arp_fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ARP));
		if (arp_fd < 0)
			return -errno;
	}
	memset(sll.sll_addr, 0xff, 6);
	if (sendto(arp_fd, frame, len, MSG_DONTWAIT, (struct sockaddr *)&sll, sizeof(sll)) == -1)
		return -errno;
	return 0;
}

static int send_na(int ifindex, const uint8_t mac[6], const struct in6_addr *target)
{
	struct sockaddr_in6 dst = { .sin6_family = AF_INET6, .sin6_scope_id = (uint32_t)ifindex };
	int hops = 255;
	unsigned idx = (unsigned)ifindex;
	uint8_t buf[32];
	size_t len = garp_build_na(buf, mac, target);

	if (na_fd < 0) {
		na_fd = socket(AF_INET6, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMPV6);
		if (na_fd < 0)
			return -errno;
		/* RFC 4861 §7.1.2: hop limit 255, or receivers drop it */
		if (setsockopt(na_fd, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, &hops, sizeof(hops)) ==
			-1) {
			int r = -errno;

			close(na_fd);
			na_fd = -1;
			return r;
		}
	}
	inet_pton(AF_INET6, "ff02::1", &dst.sin6_addr); /* all nodes */
	if (setsockopt(na_fd, IPPROTO_IPV6, IPV6_MULTICAST_IF, &idx, sizeof(idx)) == -1 ||
		sendto(na_fd, buf, len, MSG_DONTWAIT, (struct sockaddr *)&dst, sizeof(dst)) == -1)
		return -errno;
	return 0;
}

void garp_close(void)
{
	if (arp_fd >= 0)
		close(arp_fd);
	if (na_fd >= 0)
		close(na_fd);
	arp_fd = na_fd = -1;
}

int garp_send(int ifindex, const struct cpha_addr *a)
{
	uint8_t mac[6];
	int r = garp_ifmac(ifindex, mac);

	if (r < 0)
		return r;
	if (a->ss.ss_family == AF_INET6)
		return send_na(ifindex, mac, &((const struct sockaddr_in6 *)&a->ss)->sin6_addr);
	return send_arp(ifindex, mac, &((const struct sockaddr_in *)&a->ss)->sin_addr);
}
