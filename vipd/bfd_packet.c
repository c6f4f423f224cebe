/* BFD control packets: RFC 5880 §4.1 and §6.8.6. */
#include <string.h>

#include "bfd_packet.h"

static void put32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

size_t bfd_packet_encode(const struct bfd_pkt *p, uint8_t *buf)
{
	buf[0] = (uint8_t)(BFD_VERSION << 5 | (p->diag & 0x1f));
	/* we send neither A (no authentication) nor M (RFC 5880 §6.8.7) */
	buf[1] = (uint8_t)((unsigned)p->state << 6 |
			   (p->flags & (BFD_FLAG_POLL | BFD_FLAG_FINAL | BFD_FLAG_CPI |
					       BFD_FLAG_DEMAND)));
	buf[2] = (uint8_t)p->detect_mult;
	buf[3] = BFD_PKT_LEN;
	put32(buf + 4, p->my_disc);
	put32(buf + 8, p->your_disc);
	put32(buf + 12, p->desired_min_tx);
	put32(buf + 16, p->required_min_rx);
	put32(buf + 20, p->required_min_echo_rx);
	return BFD_PKT_LEN;
}

enum bfd_pkt_err bfd_packet_decode(
	const uint8_t *buf, size_t len, int ttl, int min_ttl, struct bfd_pkt *p)
{
	unsigned plen;

	memset(p, 0, sizeof(*p));
	if (len < BFD_PKT_LEN)
		return BFD_PKT_SHORT;
	/* RFC 5881 §5: single hop, the GTSM rule (RFC 5082) */
	if (min_ttl > 0 && ttl < min_ttl)
		return BFD_PKT_TTL;
	if (buf[0] >> 5 != BFD_VERSION)
		return BFD_PKT_VERSION;
	plen = buf[3];
	if (plen < ((buf[1] & BFD_FLAG_AUTH) ? BFD_PKT_LEN + 2u : BFD_PKT_LEN) || plen > len)
		return BFD_PKT_LENGTH;
	if (buf[2] == 0)
		return BFD_PKT_MULT;
	if (buf[1] & BFD_FLAG_MULTIPOINT)
		return BFD_PKT_MULTIPOINT;
	p->diag = buf[0] & 0x1f;
	p->state = (enum bfd_state)(buf[1] >> 6);
	p->flags = buf[1] & 0x3f;
	p->detect_mult = buf[2];
	p->my_disc = get32(buf + 4);
	p->your_disc = get32(buf + 8);
	p->desired_min_tx = get32(buf + 12);
	p->required_min_rx = get32(buf + 16);
	p->required_min_echo_rx = get32(buf + 20);
	if (p->my_disc == 0)
		return BFD_PKT_MY_DISC;
	/* RFC 5880 §6.8.6: A set and no authentication in use: discard */
	if (p->flags & BFD_FLAG_AUTH)
		return BFD_PKT_AUTH;
	return BFD_PKT_OK;
}

const char *bfd_packet_strerror(enum bfd_pkt_err e)
{
	switch (e) {
	case BFD_PKT_OK:
		return "ok";
	case BFD_PKT_SHORT:
		return "too short";
	case BFD_PKT_VERSION:
		return "version is not 1";
	case BFD_PKT_LENGTH:
		return "bad length field";
	case BFD_PKT_MULT:
		return "detect multiplier is 0";
	case BFD_PKT_MULTIPOINT:
		return "multipoint bit set";
	case BFD_PKT_MY_DISC:
		return "my discriminator is 0";
	case BFD_PKT_AUTH:
		return "authentication present but not configured";
	case BFD_PKT_TTL:
		return "TTL / hop limit too low (single hop wants 255)";
	}
	return "?";
}

const char *bfd_state_name(enum bfd_state s)
{
	switch (s) {
	case BFD_STATE_ADMIN_DOWN:
		return "AdminDown";
	case BFD_STATE_DOWN:
		return "Down";
	case BFD_STATE_INIT:
		return "Init";
	case BFD_STATE_UP:
		return "Up";
	}
	return "?";
}
