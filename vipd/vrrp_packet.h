/* VRRP advertisements on the wire: build them and check received ones.
 * VRRPv2 (RFC 3768, IPv4 only) and VRRPv3 (RFC 9568, IPv4 and IPv6). Only
 * the VRRP part: the IP header belongs to the kernel (raw socket, protocol
 * 112), so the caller passes what it knows of it (source, destination,
 * TTL or hop limit from IP_RECVTTL / IPV6_RECVHOPLIMIT). No sockets here. */
#ifndef VIPD_VRRP_PACKET_H
#define VIPD_VRRP_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VRRP_IPPROTO     112          /* RFC 9568 §5.1.1.4, §5.1.2.4 */
#define VRRP_TTL         255          /* RFC 9568 §5.1.1.3, §5.1.2.3 */
#define VRRP_MCAST4      "224.0.0.18" /* RFC 9568 §5.1.1.2 */
#define VRRP_MCAST6      "ff02::12"   /* RFC 9568 §5.1.2.2 */
#define VRRP_TYPE_ADVERT 1            /* RFC 9568 §5.2.2 */
#define VRRP_HDR_LEN     8            /* fixed fields before the addresses */
#define VRRP_AUTH_LEN    8            /* VRRPv2 authentication data */
#define VRRP_MAX_ADDRS   255          /* the count is one byte */
#define VRRP_V3_INT_MAX  4095         /* 12 bits of centiseconds */
#define VRRP_PRIO_STOP   0            /* the master is leaving (RFC 9568 §5.2.4) */
#define VRRP_PRIO_OWNER  255          /* owns the addresses (RFC 9568 §5.2.4) */
/* Longest advertisement: 255 IPv6 addresses (VRRPv3) */
#define VRRP_PKT_MAX     (VRRP_HDR_LEN + VRRP_MAX_ADDRS * 16)

/* VRRPv2 authentication types (RFC 3768 §5.3.6; the password is RFC 2338 §5.3.6.2). */
#define VRRP_AUTH_NONE 0 /* no authentication */
#define VRRP_AUTH_PASS 1 /* 8-byte clear-text password (keepalived "PASS") */

/* How the checksum covers the packet. */
enum vrrp_csum {
	/* IPv4 pseudo-header with the packet's real destination: VRRPv3 over
	 * IPv4 as keepalived (its default, multicast and unicast since
	 * 1.3.6) and most RFC 5798 readers compute it; IPv6 always (RFC 8200
	 * §8.1). */
	VRRP_CSUM_PHDR,
	/* No pseudo-header: VRRPv2 always (RFC 3768 §5.3.8); VRRPv3 over
	 * IPv4 as RFC 9568 §5.2.8 clarifies it (keepalived's
	 * v3_checksum_as_v2, which 2.2.7 does not have). */
	VRRP_CSUM_PLAIN,
	/* IPv4 pseudo-header with 224.0.0.18 as destination whatever the real
	 * one: VRRPv3 unicast from keepalived before 1.3.6, and from later
	 * versions configured with old_unicast_checksum. Same bytes as
	 * VRRP_CSUM_PHDR for multicast. */
	VRRP_CSUM_PHDR_MCAST,
};

/* Bits of vrrp_expect.csum_accept */
#define VRRP_CSUM_ACCEPT_PHDR       (1u << VRRP_CSUM_PHDR)       /* accept VRRP_CSUM_PHDR */
#define VRRP_CSUM_ACCEPT_PLAIN      (1u << VRRP_CSUM_PLAIN)      /* accept VRRP_CSUM_PLAIN */
#define VRRP_CSUM_ACCEPT_PHDR_MCAST (1u << VRRP_CSUM_PHDR_MCAST) /* accept VRRP_CSUM_PHDR_MCAST */
#define VRRP_CSUM_ACCEPT_ALL        7u                           /* any of the three */

/* What the IP header said (received) or will say (sent). Addresses in
 * network order: 4 bytes for AF_INET, 16 for AF_INET6. */
struct vrrp_ipinfo {
	int family;      /* AF_INET or AF_INET6 */
	uint8_t src[16]; /* source address */
	uint8_t dst[16]; /* destination: the group, or our address for unicast */
	int ttl;         /* TTL or hop limit; -1 when unknown */
};

/* One advertisement, decoded or to encode. */
struct vrrp_adv {
	int version; /* 2 or 3 */
	int family;  /* AF_INET or AF_INET6 (VRRPv2: AF_INET only) */
	uint8_t vrid;
	uint8_t priority;
	uint8_t naddrs;
	/* v3: Max Advertise Interval, centiseconds, 1..4095; v2: Advertisement
	 * Interval, seconds, 1..255 */
	uint16_t adver_int;
	uint8_t rsvd;                     /* v3: the 4 reserved bits (sent as 0) */
	uint8_t auth_type;                /* v2: VRRP_AUTH_* */
	uint8_t auth_data[VRRP_AUTH_LEN]; /* v2: sent as is; zeros for VRRP_AUTH_NONE */
	const uint8_t *addrs;             /* naddrs addresses of 4 or 16 bytes, packed */
	/* encode: bytes to append after the packet, the auth_hmac trailer
	 * (vrrp_hmac.h): the IPv6 checksum covers them, the IPv4 one does not
	 * (keepalived 2.4.3). NULL: none. */
	const uint8_t *trailer;
	size_t trailer_len;
	enum vrrp_csum csum;              /* decode: the form that matched */
	uint16_t checksum;                /* decode: the field as received */
	bool addr_mismatch;               /* decode: list differs from vrrp_expect, accepted
					   * because the sender is the owner (RFC 9568 §7.1) */
};

/* Flags of vrrp_expect.flags */
#define VRRP_EXPECT_ANY_TTL (1u << 0) /* skip the TTL / hop limit check (unicast) */
#define VRRP_EXPECT_OWNER   (1u << 1) /* we own the addresses (priority 255): drop adverts */

/* The local configuration a received advertisement is checked against. */
struct vrrp_expect {
	int version; /* 2 or 3 */
	int family;  /* AF_INET or AF_INET6 */
	uint8_t vrid;
	unsigned flags;       /* VRRP_EXPECT_* */
	unsigned csum_accept; /* v3 over IPv4: VRRP_CSUM_ACCEPT_* (0 means all) */
	uint8_t auth_type;    /* v2: VRRP_AUTH_* configured */
	uint8_t auth_pass[8]; /* v2 VRRP_AUTH_PASS: the password, NUL-padded */
	uint8_t adver_int;    /* v2: configured seconds; a different one is dropped */
	const uint8_t *addrs; /* the configured VIPs, packed; NULL: not checked */
	size_t naddrs;
	/* bytes the packet carries after its fields: the auth_hmac trailer
	 * (vrrp_hmac_has_trailer()), covered by the IPv6 checksum only */
	size_t trailer_len;
};

/* Why a received packet was dropped; VRRP_OK when it was not. */
enum vrrp_drop {
	VRRP_OK = 0,
	VRRP_DROP_TTL,               /* TTL / hop limit is not 255 */
	VRRP_DROP_SHORT,             /* shorter than the fixed header */
	VRRP_DROP_VERSION,           /* not the version configured */
	VRRP_DROP_TYPE,              /* not an ADVERTISEMENT */
	VRRP_DROP_NO_ADDRS,          /* address count 0 */
	VRRP_DROP_LENGTH,            /* length does not match the address count */
	VRRP_DROP_CHECKSUM,          /* no accepted checksum form matches */
	VRRP_DROP_VRID,              /* another virtual router */
	VRRP_DROP_OWNER,             /* we own the addresses (VRRP_EXPECT_OWNER) */
	VRRP_DROP_AUTH_TYPE,         /* v2: authentication type differs */
	VRRP_DROP_AUTH_PASS,         /* v2: wrong password */
	VRRP_DROP_INTERVAL_ZERO,     /* advertisement interval 0 */
	VRRP_DROP_INTERVAL_MISMATCH, /* v2: interval differs from ours */
	VRRP_DROP_ADDR_LIST,         /* addresses differ from ours, sender not owner */
	VRRP_DROP_MAX
};

/* Short lowercase name of a drop reason ("ttl", "checksum", ...), usable as
 * a metrics label; "unknown" for a value out of range. */
const char *vrrp_packet_drop_str(enum vrrp_drop d);

/* Name of a checksum form: "phdr", "plain" or "phdr_mcast". */
const char *vrrp_packet_csum_str(enum vrrp_csum c);

/* Length of the VRRP part of an advertisement with these fields (without
 * a trailer). */
size_t vrrp_packet_len(int version, int family, unsigned naddrs);

/* Write the VRRP part of adv into buf, checksum included. ip gives the
 * pseudo-header's addresses (needed for VRRPv3 except VRRP_CSUM_PLAIN; ip->ttl
 * is not used); VRRPv2 always uses VRRP_CSUM_PLAIN and ignores adv->csum.
 * Returns the length, -EINVAL for fields out of range (version, family,
 * naddrs 0, interval 0 or too wide, v3 with VRRP_CSUM_PHDR_MCAST over IPv6,
 * a family different from ip's) or -ENOSPC when buf is too small. The
 * length includes adv->trailer, copied after the packet. */
int vrrp_packet_encode(
	const struct vrrp_adv *adv, const struct vrrp_ipinfo *ip, uint8_t *buf, size_t len);

/* Check a received packet (the IP payload) against exp, in the order of
 * RFC 9568 §7.1 / RFC 3768 §7.1, and decode it into out (out->addrs points
 * into pkt). Returns VRRP_OK or the first reason to drop it; out is filled
 * as far as the packet could be read. The VRRPv3 IPv4 checksum is tried in
 * each form exp->csum_accept allows, in the order PHDR, PLAIN, PHDR_MCAST;
 * out->csum says which matched. VRRP_EXPECT_ANY_TTL is for unicast: keepalived
 * does not check the TTL of unicast adverts, and 2.2.7 sends IPv6 unicast
 * ones with the default hop limit (64). The packet is len bytes, the last
 * exp->trailer_len of them after its fields (out does not describe those). */
enum vrrp_drop vrrp_packet_decode(const uint8_t *pkt, size_t len, const struct vrrp_ipinfo *ip,
	const struct vrrp_expect *exp, struct vrrp_adv *out);

#endif
