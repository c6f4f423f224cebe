/* libFuzzer target: VRRP advertisement decoding (untrusted: anyone on the
 * link can send them), in every mode.
 *
 * Input: one control byte, then the VRRP bytes. Control bits:
 *   0-1  mode: 0 VRRPv2 IPv4 multicast, 1 VRRPv3 IPv4 multicast,
 *        2 VRRPv3 IPv4 unicast, 3 VRRPv3 IPv6 multicast
 *   2    fix the checksum first (for the mode's preferred form), so the
 *        checks after it are reached
 *   3    check the address list against the packet's own, reversed
 *   4    TTL 64 instead of 255
 *   5    VRRP_EXPECT_ANY_TTL
 *   6-7  csum_accept: all, PHDR, PLAIN, PHDR_MCAST
 * The expectation takes VRID, v2 auth type and v2 interval from the packet
 * so a valid packet passes; the v2 password is "secret".
 *
 * Invariants: no crash; a reason has a name; a packet that decodes
 * re-encodes to the same bytes, and decodes again accepting only the form
 * that matched. Seeds: tests/fuzz/seeds/vipd_packet, made from the captured
 * keepalived packets by tests/vipd-vectors/extract.py --seeds. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "vrrp_packet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t src4[4] = { 198, 18, 0, 1 }, mcast4[4] = { 224, 0, 0, 18 },
		     ucast4[4] = { 198, 18, 0, 2 };
static const uint8_t src6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 },
		     mcast6[16] = { 0xff, 0x02, [15] = 0x12 };

static uint16_t sum(const uint8_t *p, size_t n, uint32_t acc)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		acc += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		acc += (uint32_t)p[n - 1] << 8;
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)acc;
}

/* The checksum the mode expects by default: v2 plain, v3 with the
 * pseudo-header of the real destination. */
static void fix_checksum(uint8_t *pkt, size_t len, int version, const struct vrrp_ipinfo *ip)
{
	uint8_t ph[40] = { 0 };
	size_t phlen = 0;
	uint16_t s;

	if (len < 8)
		return;
	if (version == 3 && ip->family == AF_INET) {
		memcpy(ph, ip->src, 4);
		memcpy(ph + 4, ip->dst, 4);
		ph[9] = 112;
		ph[10] = (uint8_t)(len >> 8);
		ph[11] = (uint8_t)len;
		phlen = 12;
	} else if (version == 3) {
		memcpy(ph, ip->src, 16);
		memcpy(ph + 16, ip->dst, 16);
		ph[34] = (uint8_t)(len >> 8);
		ph[35] = (uint8_t)len;
		ph[39] = 112;
		phlen = 40;
	}
	pkt[6] = pkt[7] = 0;
	s = (uint16_t)~sum(pkt, len, sum(ph, phlen, 0));
	pkt[6] = (uint8_t)(s >> 8);
	pkt[7] = (uint8_t)s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned accepts[4] = { 0, VRRP_CSUM_ACCEPT_PHDR, VRRP_CSUM_ACCEPT_PLAIN,
		VRRP_CSUM_ACCEPT_PHDR_MCAST };
	static uint8_t pkt[VRRP_PKT_MAX + 64], again[VRRP_PKT_MAX + 64], rev[VRRP_PKT_MAX];
	struct vrrp_ipinfo ip = { 0 };
	struct vrrp_expect x = { 0 };
	struct vrrp_adv a, b;
	enum vrrp_drop r;
	unsigned ctl, mode;
	size_t len, alen, i;
	int n;

	if (size < 1 || size - 1 > sizeof(pkt))
		return 0;
	ctl = data[0];
	len = size - 1;
	memcpy(pkt, data + 1, len);
	mode = ctl & 3;

	x.version = mode == 0 ? 2 : 3;
	x.family = ip.family = mode == 3 ? AF_INET6 : AF_INET;
	alen = mode == 3 ? 16 : 4;
	if (mode == 3) {
		memcpy(ip.src, src6, 16);
		memcpy(ip.dst, mcast6, 16);
	} else {
		memcpy(ip.src, src4, 4);
		memcpy(ip.dst, mode == 2 ? ucast4 : mcast4, 4);
	}
	ip.ttl = ctl & 0x10 ? 64 : 255;
	x.flags = ctl & 0x20 ? VRRP_EXPECT_ANY_TTL : 0;
	x.csum_accept = accepts[ctl >> 6];
	memcpy(x.auth_pass, "secret\0\0", 8);
	if (len >= 8) {
		x.vrid = pkt[1];
		x.auth_type = pkt[4];
		x.adver_int = pkt[5];
	}
	if (ctl & 4)
		fix_checksum(pkt, len, x.version, &ip);
	if ((ctl & 8) && len >= 8 && len >= 8 + (size_t)pkt[3] * alen) {
		for (i = 0; i < pkt[3]; i++)
			memcpy(rev + i * alen, pkt + 8 + (pkt[3] - 1 - i) * alen, alen);
		x.addrs = rev;
		x.naddrs = pkt[3];
	}

	r = vrrp_packet_decode(pkt, len, &ip, &x, &a);
	if (!strcmp(vrrp_packet_drop_str(r), "unknown"))
		__builtin_trap();
	if (r != VRRP_OK)
		return 0;

	if (a.addrs != pkt + 8 || a.naddrs == 0 || a.adver_int == 0 || a.vrid != x.vrid)
		__builtin_trap();
	n = vrrp_packet_encode(&a, &ip, again, sizeof(again));
	if (n < 0 || (size_t)n != len)
		__builtin_trap();
	/* the same bytes; a checksum of 0x0000 and 0xffff verify alike */
	if (memcmp(again, pkt, 6) || memcmp(again + 8, pkt + 8, len - 8))
		__builtin_trap();
	if (memcmp(again + 6, pkt + 6, 2) &&
		!((again[6] == 0 && again[7] == 0 && pkt[6] == 0xff && pkt[7] == 0xff) ||
			(again[6] == 0xff && again[7] == 0xff && pkt[6] == 0 && pkt[7] == 0)))
		__builtin_trap();

	x.csum_accept = 1u << a.csum;
	if (vrrp_packet_decode(pkt, len, &ip, &x, &b) != VRRP_OK || b.csum != a.csum)
		__builtin_trap();
	return 0;
}
