/* The auth_hmac trailer: see vrrp_hmac.h. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "vrrp_hmac.h"
#include "vrrp_packet.h"

static const char *const result_str[VRRP_HMAC_RESULT_MAX] = {
	[VRRP_HMAC_OK] = "ok",
	[VRRP_HMAC_MISSING] = "missing",
	[VRRP_HMAC_MALFORMED] = "malformed",
	[VRRP_HMAC_STALE] = "stale",
	[VRRP_HMAC_UNKNOWN_KEY] = "unknown_key",
	[VRRP_HMAC_BAD_HMAC] = "bad_hmac",
	[VRRP_HMAC_REPLAY] = "replay",
};

const char *vrrp_hmac_result_str(enum vrrp_hmac_result r)
{
	if ((unsigned)r >= VRRP_HMAC_RESULT_MAX)
		return "unknown";
	return result_str[r];
}

const char *vrrp_hmac_mode_str(enum vrrp_hmac_mode m)
{
	switch (m) {
	case VRRP_HMAC_RECEIVE_ONLY:
		return "receive-only";
	case VRRP_HMAC_PERMISSIVE:
		return "permissive";
	case VRRP_HMAC_ENFORCE:
		break;
	}
	return "enforce";
}

bool vrrp_hmac_signs(enum vrrp_hmac_mode m)
{
	return m != VRRP_HMAC_RECEIVE_ONLY;
}

unsigned vrrp_hmac_window(uint64_t advert_int_us)
{
	/* keepalived counts whole seconds of the interval: 0.5 s gives 0 */
	uint64_t w = 3 * (advert_int_us / 1000000);

	if (w < VRRP_HMAC_WINDOW_FLOOR)
		return VRRP_HMAC_WINDOW_FLOOR;
	if (w > VRRP_HMAC_WINDOW_MAX)
		return VRRP_HMAC_WINDOW_MAX;
	return (unsigned)w;
}

const struct vrrp_hmac_key *vrrp_hmac_find_key(const struct vrrp_hmac_cfg *c, uint8_t id)
{
	size_t i;

	for (i = 0; i < c->nkeys; i++)
		if (c->keys[i].id == id)
			return &c->keys[i];
	return NULL;
}

static int hex_nibble(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

int vrrp_hmac_key_decode(const char *s, uint8_t *out, size_t max)
{
	size_t n = 0;
	int hi, lo;

	if (strncmp(s, "hex:", 4) != 0) {
		n = strlen(s);
		memcpy(out, s, n < max ? n : max);
		return n > 0xffff ? -EINVAL : (int)n;
	}
	for (s += 4;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		hi = hex_nibble(*s++);
		if (hi < 0)
			return -EINVAL;
		/* keepalived: a digit alone before a space (not a tab) or the
		 * end is an octet of its own */
		if (*s && *s != ' ') {
			lo = hex_nibble(*s++);
			if (lo < 0)
				return -EINVAL;
			hi = hi << 4 | lo;
		}
		if (n < max)
			out[n] = (uint8_t)hi;
		n++;
	}
	return n ? (int)n : -EINVAL;
}

uint64_t vrrp_hmac_clock_seq(int64_t sec, long nsec)
{
	uint64_t sub = ((uint64_t)nsec << 16) / 1000000000u;

	return (uint64_t)(uint32_t)sec << 32 | sub << 16;
}

/* RFC 1982 serial number arithmetic over 64 bits: a comes after b */
static bool seq_after(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b) > 0;
}

uint64_t vrrp_hmac_next_seq(uint64_t *last, uint64_t clock_seq, bool time_mode, unsigned window)
{
	int32_t ahead;

	if (seq_after(clock_seq, *last))
		return *last = clock_seq;
	/* the clock went back: receivers in time mode would drop our
	 * sequence once it is beyond their window, so start again from the
	 * clock; monotonic mode must keep growing */
	ahead = (int32_t)((uint32_t)(*last >> 32) - (uint32_t)(clock_seq >> 32));
	if (time_mode && ahead > (int32_t)window)
		return *last = clock_seq;
	return ++*last;
}

void vrrp_hmac_trailer_decode(const uint8_t *p, struct vrrp_hmac_trailer *t)
{
	t->type = p[0];
	t->key_id = p[1];
	t->reserved = (uint16_t)(p[2] << 8 | p[3]);
	t->seq = (uint64_t)p[4] << 56 | (uint64_t)p[5] << 48 | (uint64_t)p[6] << 40 |
		 (uint64_t)p[7] << 32 | (uint64_t)p[8] << 24 | (uint64_t)p[9] << 16 |
		 (uint64_t)p[10] << 8 | p[11];
	memcpy(t->hmac, p + VRRP_HMAC_PREFIX_LEN, VRRP_HMAC_LEN);
}

static void trailer_prefix(uint8_t *p, uint8_t type, uint8_t key_id, uint64_t seq)
{
	int i;

	p[0] = type;
	p[1] = key_id;
	p[2] = p[3] = 0;
	for (i = 0; i < 8; i++)
		p[4 + i] = (uint8_t)(seq >> (56 - 8 * i));
}

/* The HMAC of p with prefix as the trailer's first 12 bytes, truncated. */
static int digest(const struct vrrp_hmac_key *key, const struct vrrp_hmac_pkt *p,
	const uint8_t *prefix, uint8_t *out)
{
	uint8_t msg[VRRP_HMAC_PSEUDO_LEN + VRRP_PKT_MAX + VRRP_HMAC_TRAILER_LEN];
	uint8_t md[EVP_MAX_MD_SIZE];
	unsigned mdlen = 0;
	size_t alen = p->family == AF_INET6 ? 16 : 4, n = 0;

	if ((p->family != AF_INET && p->family != AF_INET6) || p->len < VRRP_HDR_LEN ||
		p->len > VRRP_PKT_MAX)
		return -EINVAL;
	memset(msg, 0, VRRP_HMAC_PSEUDO_LEN);
	msg[0] = p->family == AF_INET6 ? 6 : 4;
	msg[1] = (uint8_t)p->version;
	msg[2] = p->vrid;
	memcpy(msg + 4, p->src, alen);
	n = VRRP_HMAC_PSEUDO_LEN;
	memcpy(msg + n, p->vrrp, p->len);
	msg[n + 6] = msg[n + 7] = 0; /* the VRRP checksum reads as zero */
	n += p->len;
	memcpy(msg + n, prefix, VRRP_HMAC_PREFIX_LEN);
	n += VRRP_HMAC_PREFIX_LEN;
	memset(msg + n, 0, VRRP_HMAC_LEN);
	n += VRRP_HMAC_LEN;
	if (!HMAC(EVP_sha256(), key->data, key->len, msg, n, md, &mdlen) || mdlen < VRRP_HMAC_LEN) {
		OPENSSL_cleanse(md, sizeof(md));
		return -EIO;
	}
	memcpy(out, md, VRRP_HMAC_LEN);
	OPENSSL_cleanse(md, sizeof(md));
	return 0;
}

int vrrp_hmac_sign(
	const struct vrrp_hmac_key *key, const struct vrrp_hmac_pkt *p, uint64_t seq, uint8_t *out)
{
	trailer_prefix(out, VRRP_HMAC_TYPE_SHA256, key->id, seq);
	return digest(key, p, out, out + VRRP_HMAC_PREFIX_LEN);
}

bool vrrp_hmac_has_trailer(const uint8_t *pkt, size_t len, int version, int family)
{
	if (len < VRRP_HDR_LEN)
		return false;
	return len == vrrp_packet_len(version, family, pkt[3]) + VRRP_HMAC_TRAILER_LEN;
}

/* The replay state of a multicast sender, a free or the least recently
 * used slot when it is new. */
static struct vrrp_hmac_replay *mcast_slot(
	struct vrrp_hmac_mcast *mc, const uint8_t *src, size_t alen)
{
	size_t i, victim = 0;

	if (!++mc->clock)
		mc->clock = 1; /* 0 marks an empty slot */
	for (i = 0; i < VRRP_HMAC_MCAST_SLOTS; i++) {
		if (mc->slot[i].last_used && !memcmp(mc->slot[i].addr, src, alen)) {
			mc->slot[i].last_used = mc->clock;
			return &mc->slot[i].replay;
		}
		if (mc->slot[i].last_used < mc->slot[victim].last_used)
			victim = i;
	}
	memset(&mc->slot[victim], 0, sizeof(mc->slot[victim]));
	memcpy(mc->slot[victim].addr, src, alen);
	mc->slot[victim].last_used = mc->clock;
	return &mc->slot[victim].replay;
}

static bool outside(int64_t now_sec, uint32_t sec, unsigned window)
{
	int32_t d = (int32_t)((uint32_t)now_sec - sec);

	return d > (int32_t)window || d < -(int32_t)window;
}

enum vrrp_hmac_result vrrp_hmac_check(const struct vrrp_hmac_cfg *c, const struct vrrp_hmac_pkt *p,
	struct vrrp_hmac_replay *rp, struct vrrp_hmac_mcast *mc, int64_t now_sec, int *skew)
{
	const struct vrrp_hmac_key *key;
	struct vrrp_hmac_trailer t;
	uint8_t want[VRRP_HMAC_LEN];
	uint32_t sec;

	*skew = 0;
	if (!p->trail)
		return c->mode == VRRP_HMAC_ENFORCE ? VRRP_HMAC_MISSING : VRRP_HMAC_OK;
	vrrp_hmac_trailer_decode(p->trail, &t);
	if (t.type != VRRP_HMAC_TYPE_SHA256 || t.reserved != 0)
		return VRRP_HMAC_MALFORMED;
	sec = (uint32_t)(t.seq >> 32);
	/* before the HMAC, so replayed captures cost no digest; it only ever
	 * rejects, as the time is not authenticated yet */
	if (c->anti_replay_time) {
		*skew = (int32_t)((uint32_t)now_sec - sec);
		if (outside(now_sec, sec, c->time_window))
			return VRRP_HMAC_STALE;
	}
	key = vrrp_hmac_find_key(c, t.key_id);
	if (!key)
		return VRRP_HMAC_UNKNOWN_KEY;
	if (digest(key, p, p->trail, want) < 0 || CRYPTO_memcmp(want, t.hmac, VRRP_HMAC_LEN))
		return VRRP_HMAC_BAD_HMAC;
	if (!rp)
		rp = mcast_slot(mc, p->src, p->family == AF_INET6 ? 16 : 4);
	/* a mark older than the window only orders packets the window drops
	 * anyway: forgetting it lets a sender whose clock was stepped back in */
	if (rp->valid && c->anti_replay_time &&
		outside(now_sec, (uint32_t)(rp->seq >> 32), c->time_window))
		rp->valid = false;
	if (rp->valid && !seq_after(t.seq, rp->seq))
		return VRRP_HMAC_REPLAY;
	rp->valid = true;
	rp->seq = t.seq;
	return VRRP_HMAC_OK;
}
