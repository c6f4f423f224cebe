#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "vrrp_packet.h"

static const char *const drop_names[VRRP_DROP_MAX] = {
	[VRRP_OK] = "ok",
	[VRRP_DROP_TTL] = "ttl",
	[VRRP_DROP_SHORT] = "short",
	[VRRP_DROP_VERSION] = "version",
	[VRRP_DROP_TYPE] = "type",
	[VRRP_DROP_NO_ADDRS] = "no_addresses",
	[VRRP_DROP_LENGTH] = "length",
	[VRRP_DROP_CHECKSUM] = "checksum",
	[VRRP_DROP_VRID] = "vrid",
	[VRRP_DROP_OWNER] = "owner",
	[VRRP_DROP_AUTH_TYPE] = "auth_type",
	[VRRP_DROP_AUTH_PASS] = "auth_password",
	[VRRP_DROP_INTERVAL_ZERO] = "interval_zero",
	[VRRP_DROP_INTERVAL_MISMATCH] = "interval_mismatch",
	[VRRP_DROP_ADDR_LIST] = "address_list",
};

/* 224.0.0.18 in network order */
static const uint8_t mcast4[4] = { 224, 0, 0, 18 };

const char *vrrp_packet_drop_str(enum vrrp_drop d)
{
	if ((unsigned)d >= VRRP_DROP_MAX)
		return "unknown";
	return drop_names[d];
}

const char *vrrp_packet_csum_str(enum vrrp_csum c)
{
	switch (c) {
	case VRRP_CSUM_PHDR:
		return "phdr";
	case VRRP_CSUM_PLAIN:
		return "plain";
	case VRRP_CSUM_PHDR_MCAST:
		return "phdr_mcast";
	}
	return "unknown";
}

static size_t addr_len(int family)
{
	return family == AF_INET6 ? 16 : 4;
}

size_t vrrp_packet_len(int version, int family, unsigned naddrs)
{
	return VRRP_HDR_LEN + naddrs * addr_len(family) + (version == 2 ? VRRP_AUTH_LEN : 0);
}

/* One's complement sum of big-endian 16-bit words (RFC 1071), not folded. */
static uint32_t sum16(const uint8_t *p, size_t n, uint32_t acc)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		acc += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		acc += (uint32_t)p[n - 1] << 8;
	return acc;
}

static uint16_t fold(uint32_t acc)
{
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)acc;
}

/* Sum of the pseudo-header for a VRRP packet of len bytes: IPv4 as for UDP
 * (RFC 768) with protocol 112, IPv6 per RFC 8200 §8.1. dst overrides the
 * destination (VRRP_CSUM_PHDR_MCAST). */
static uint32_t phdr_sum(int family, const uint8_t *src, const uint8_t *dst, size_t len)
{
	uint8_t tail[8] = { 0 };

	if (family == AF_INET6) {
		tail[0] = (uint8_t)(len >> 24);
		tail[1] = (uint8_t)(len >> 16);
		tail[2] = (uint8_t)(len >> 8);
		tail[3] = (uint8_t)len;
		tail[7] = VRRP_IPPROTO;
		return sum16(tail, 8, sum16(dst, 16, sum16(src, 16, 0)));
	}
	tail[1] = VRRP_IPPROTO;
	tail[2] = (uint8_t)(len >> 8);
	tail[3] = (uint8_t)len;
	return sum16(tail, 4, sum16(dst, 4, sum16(src, 4, 0)));
}

/* Sum of the pseudo-header a checksum form uses (0 for VRRP_CSUM_PLAIN). */
static uint32_t form_sum(enum vrrp_csum form, const struct vrrp_ipinfo *ip, size_t len)
{
	switch (form) {
	case VRRP_CSUM_PHDR:
		return phdr_sum(ip->family, ip->src, ip->dst, len);
	case VRRP_CSUM_PHDR_MCAST:
		return phdr_sum(AF_INET, ip->src, mcast4, len);
	case VRRP_CSUM_PLAIN:
		break;
	}
	return 0;
}

int vrrp_packet_encode(
	const struct vrrp_adv *adv, const struct vrrp_ipinfo *ip, uint8_t *buf, size_t len)
{
	enum vrrp_csum form = adv->csum;
	size_t alen = addr_len(adv->family), n;
	uint16_t sum;

	if (adv->family != AF_INET && adv->family != AF_INET6)
		return -EINVAL;
	if (adv->naddrs == 0 || !adv->addrs)
		return -EINVAL;
	if (adv->version == 2) {
		/* RFC 3768 §5.3.7: whole seconds, one byte */
		if (adv->family != AF_INET || adv->adver_int == 0 || adv->adver_int > 255)
			return -EINVAL;
		form = VRRP_CSUM_PLAIN;
	} else if (adv->version == 3) {
		/* RFC 9568 §5.2.7: 12 bits of centiseconds */
		if (adv->adver_int == 0 || adv->adver_int > VRRP_V3_INT_MAX || adv->rsvd > 15)
			return -EINVAL;
		if (form != VRRP_CSUM_PHDR && form != VRRP_CSUM_PLAIN &&
			form != VRRP_CSUM_PHDR_MCAST)
			return -EINVAL;
		/* RFC 9568 §5.2.8: IPv6 always with its pseudo-header */
		if (adv->family == AF_INET6 && form != VRRP_CSUM_PHDR)
			return -EINVAL;
	} else {
		return -EINVAL;
	}
	if (form != VRRP_CSUM_PLAIN && (!ip || ip->family != adv->family))
		return -EINVAL;
	n = vrrp_packet_len(adv->version, adv->family, adv->naddrs);
	if (len < n || len - n < (adv->trailer ? adv->trailer_len : 0))
		return -ENOSPC;

	/* RFC 9568 §5.2.1-§5.2.9, RFC 3768 §5.3.1-§5.3.10 */
	buf[0] = (uint8_t)(adv->version << 4 | VRRP_TYPE_ADVERT);
	buf[1] = adv->vrid;
	buf[2] = adv->priority;
	buf[3] = adv->naddrs;
	if (adv->version == 2) {
		buf[4] = adv->auth_type;
		buf[5] = (uint8_t)adv->adver_int;
	} else {
		buf[4] = (uint8_t)(adv->rsvd << 4 | adv->adver_int >> 8);
		buf[5] = (uint8_t)adv->adver_int;
	}
	buf[6] = buf[7] = 0;
	memcpy(buf + VRRP_HDR_LEN, adv->addrs, adv->naddrs * alen);
	if (adv->version == 2)
		memcpy(buf + VRRP_HDR_LEN + adv->naddrs * alen, adv->auth_data, VRRP_AUTH_LEN);

	if (adv->trailer) {
		memcpy(buf + n, adv->trailer, adv->trailer_len);
		/* keepalived 2.4.3: the kernel sums all the IPv6 payload
		 * (IPV6_CHECKSUM); over IPv4 it sums the packet alone */
		if (adv->family == AF_INET6)
			n += adv->trailer_len;
	}
	sum = (uint16_t)~fold(sum16(buf, n, form_sum(form, ip, n)));
	buf[6] = (uint8_t)(sum >> 8);
	buf[7] = (uint8_t)sum;
	if (adv->trailer && adv->family == AF_INET)
		n += adv->trailer_len;
	return (int)n;
}

static bool csum_ok(
	const uint8_t *pkt, size_t len, enum vrrp_csum form, const struct vrrp_ipinfo *ip)
{
	return fold(sum16(pkt, len, form_sum(form, ip, len))) == 0xffff;
}

/* RFC 9568 §7.1 and RFC 3768 §7.1: the addresses in the packet are the ones
 * configured, in any order. */
static bool addrs_match(const struct vrrp_adv *a, const struct vrrp_expect *exp)
{
	size_t alen = addr_len(a->family), i, j;

	if (a->naddrs != exp->naddrs)
		return false;
	for (i = 0; i < exp->naddrs; i++) {
		for (j = 0; j < a->naddrs; j++)
			if (!memcmp(exp->addrs + i * alen, a->addrs + j * alen, alen))
				break;
		if (j == a->naddrs)
			return false;
	}
	return true;
}

enum vrrp_drop vrrp_packet_decode(const uint8_t *pkt, size_t len, const struct vrrp_ipinfo *ip,
	const struct vrrp_expect *exp, struct vrrp_adv *out)
{
	static const enum vrrp_csum order[] = { VRRP_CSUM_PHDR, VRRP_CSUM_PLAIN,
		VRRP_CSUM_PHDR_MCAST };
	unsigned accept = exp->csum_accept ? exp->csum_accept : VRRP_CSUM_ACCEPT_ALL;
	size_t alen = addr_len(exp->family), i;

	memset(out, 0, sizeof(*out));
	out->family = exp->family;
	out->csum = VRRP_CSUM_PLAIN;

	/* RFC 9568 §7.1: TTL / hop limit 255, so the sender is on the link */
	if (!(exp->flags & VRRP_EXPECT_ANY_TTL) && ip->ttl != VRRP_TTL)
		return VRRP_DROP_TTL;
	if (len < VRRP_HDR_LEN)
		return VRRP_DROP_SHORT;

	out->version = pkt[0] >> 4;
	out->vrid = pkt[1];
	out->priority = pkt[2];
	out->naddrs = pkt[3];
	out->checksum = (uint16_t)(pkt[6] << 8 | pkt[7]);
	if (exp->version == 2) {
		out->auth_type = pkt[4];
		out->adver_int = pkt[5];
	} else {
		out->rsvd = pkt[4] >> 4;
		out->adver_int = (uint16_t)((pkt[4] & 0x0f) << 8 | pkt[5]);
	}

	/* RFC 9568 §7.1: the version; VRRPv2 exists only over IPv4 (RFC 3768) */
	if (out->version != exp->version || ip->family != exp->family ||
		(exp->version == 2 && exp->family != AF_INET) ||
		(exp->family != AF_INET && exp->family != AF_INET6))
		return VRRP_DROP_VERSION;
	/* RFC 9568 §5.2.2: unknown types are discarded */
	if ((pkt[0] & 0x0f) != VRRP_TYPE_ADVERT)
		return VRRP_DROP_TYPE;
	/* RFC 9568 §5.2.5: at least one address */
	if (out->naddrs == 0)
		return VRRP_DROP_NO_ADDRS;
	/* RFC 9568 §7.1: the complete packet, IPvX addresses included; RFC 3768
	 * §7.1: and the authentication data. Nothing after it, as keepalived. */
	if (len != vrrp_packet_len(exp->version, exp->family, out->naddrs) + exp->trailer_len)
		return VRRP_DROP_LENGTH;
	/* the IPv4 checksum stops before a trailer, the IPv6 one does not */
	if (exp->family == AF_INET)
		len -= exp->trailer_len;
	out->addrs = pkt + VRRP_HDR_LEN;
	if (exp->version == 2)
		memcpy(out->auth_data, pkt + VRRP_HDR_LEN + out->naddrs * alen, VRRP_AUTH_LEN);

	/* RFC 9568 §7.1, §5.2.8; RFC 3768 §5.3.8 */
	if (exp->version == 2) {
		if (!csum_ok(pkt, len, VRRP_CSUM_PLAIN, ip))
			return VRRP_DROP_CHECKSUM;
	} else if (exp->family == AF_INET6) {
		out->csum = VRRP_CSUM_PHDR;
		if (!csum_ok(pkt, len, VRRP_CSUM_PHDR, ip))
			return VRRP_DROP_CHECKSUM;
	} else {
		for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
			if (!(accept & (1u << order[i])))
				continue;
			/* for multicast PHDR_MCAST is PHDR: already tried */
			if (order[i] == VRRP_CSUM_PHDR_MCAST && !memcmp(ip->dst, mcast4, 4) &&
				(accept & VRRP_CSUM_ACCEPT_PHDR))
				continue;
			if (csum_ok(pkt, len, order[i], ip))
				break;
		}
		if (i == sizeof(order) / sizeof(order[0]))
			return VRRP_DROP_CHECKSUM;
		out->csum = order[i];
	}

	/* RFC 9568 §7.1: our VRID, and we are not the owner */
	if (out->vrid != exp->vrid)
		return VRRP_DROP_VRID;
	if (exp->flags & VRRP_EXPECT_OWNER)
		return VRRP_DROP_OWNER;

	/* RFC 3768 §7.1: the authentication type, then the password (RFC 2338
	 * §5.3.6.2; keepalived compares all 8 bytes, NUL padding included) */
	if (exp->version == 2) {
		if (out->auth_type != exp->auth_type)
			return VRRP_DROP_AUTH_TYPE;
		if (exp->auth_type == VRRP_AUTH_PASS &&
			memcmp(out->auth_data, exp->auth_pass, VRRP_AUTH_LEN))
			return VRRP_DROP_AUTH_PASS;
	}

	/* 0 is no interval (RFC 9568 §5.2.7, RFC 3768 §5.3.7): a v3 backup
	 * adopting it would take over after Skew_Time alone */
	if (out->adver_int == 0)
		return VRRP_DROP_INTERVAL_ZERO;

	/* RFC 9568 §7.1, RFC 3768 §7.1: MAY check the addresses; if they differ
	 * and the sender is not the owner, MUST drop */
	if (exp->addrs && !addrs_match(out, exp)) {
		if (out->priority != VRRP_PRIO_OWNER)
			return VRRP_DROP_ADDR_LIST;
		out->addr_mismatch = true;
	}

	/* RFC 3768 §7.1: VRRPv2 intervals must agree (v3 backups adopt the
	 * master's instead, RFC 9568 §6.4.2) */
	if (exp->version == 2 && out->adver_int != exp->adver_int)
		return VRRP_DROP_INTERVAL_MISMATCH;
	return VRRP_OK;
}
