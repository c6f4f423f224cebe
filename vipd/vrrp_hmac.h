/* The auth_hmac trailer on VRRP advertisements, as keepalived 2.4.3 sends
 * and checks it (keepalived's repository: keepalived/vrrp/vrrp_auth_hmac.c,
 * keepalived/include/vrrp_auth_hmac.h, and the auth_hmac block in
 * doc/man/man5/keepalived.conf.5.in). No sockets and no clock here: the
 * caller passes the time (CLOCK_REALTIME) and the addresses.
 *
 * The trailer is 28 bytes after the VRRP packet (after the addresses, and
 * after the authentication data for VRRPv2), counted in the IP length:
 *
 *   0  type     1: HMAC-SHA256 truncated to 16 bytes (the only one)
 *   1  key id   1..255: which configured key signed it
 *   2  reserved 2 bytes, 0
 *   4  sec      4 bytes, UTC seconds          \  a 64-bit sequence,
 *   8  subsec   2 bytes, 1/65536 of a second   > network order
 *  10  ctr      2 bytes, counter in that tick /
 *  12  hmac     16 bytes
 *
 * The HMAC (RFC 2104, SHA-256, the first 16 bytes kept) covers a 20-byte
 * pseudo-header (4 or 6, VRRP version, VRID, 0, the sender's address padded
 * with zeros), then the VRRP packet with its checksum field read as zero,
 * then the trailer's first 12 bytes, then 16 zero bytes. The IP header and
 * the destination are not covered, so every unicast copy of an
 * advertisement carries the same trailer. The VRRP checksum covers the
 * trailer over IPv6 (the whole payload) and not over IPv4.
 *
 * Receiving: a packet is taken to carry a trailer when it is exactly 28
 * bytes longer than its address count says. Anti-replay: the sequence of
 * each sender must grow (serial number arithmetic, RFC 1982, over 64 bits),
 * per unicast peer, or per source in a table of 4 multicast senders (least
 * recently used goes). With "anti_replay time" (the default) the sequence's
 * seconds must also be within time_window of our clock either way. */
#ifndef VIPD_VRRP_HMAC_H
#define VIPD_VRRP_HMAC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VRRP_HMAC_TRAILER_LEN  28  /* bytes after the VRRP packet */
#define VRRP_HMAC_PREFIX_LEN   12  /* the trailer before the HMAC */
#define VRRP_HMAC_LEN          16  /* HMAC-SHA256 truncated */
#define VRRP_HMAC_TYPE_SHA256  1   /* the trailer's type byte */
#define VRRP_HMAC_PSEUDO_LEN   20  /* pseudo-header bound into the HMAC */
#define VRRP_HMAC_KEY_MIN      32  /* key length bounds, bytes (keepalived's) */
#define VRRP_HMAC_KEY_MAX      64  /* key length bounds, bytes (keepalived's) */
#define VRRP_HMAC_WINDOW_MIN   1   /* time_window bounds, seconds */
#define VRRP_HMAC_WINDOW_MAX   300 /* time_window bounds, seconds */
#define VRRP_HMAC_WINDOW_FLOOR 5   /* least window derived from advert_int */
#define VRRP_HMAC_MCAST_SLOTS  4   /* multicast senders remembered */

/* What an instance with auth_hmac sends and accepts. */
enum vrrp_hmac_mode {
	VRRP_HMAC_RECEIVE_ONLY, /* signs nothing; checks trailers, accepts adverts with none */
	VRRP_HMAC_PERMISSIVE,   /* signs; checks trailers, accepts adverts with none */
	VRRP_HMAC_ENFORCE,      /* signs; drops adverts with no valid trailer */
};

struct vrrp_hmac_key {
	uint8_t id; /* 1..255 */
	uint8_t len;
	uint8_t data[VRRP_HMAC_KEY_MAX];
};

/* An instance's auth_hmac settings. */
struct vrrp_hmac_cfg {
	enum vrrp_hmac_mode mode;
	bool anti_replay_time; /* "anti_replay time" (default); false: monotonic */
	unsigned time_window;  /* seconds; see vrrp_hmac_window() */
	uint8_t active_key;    /* the key id that signs */
	const struct vrrp_hmac_key *keys;
	size_t nkeys;
};

/* A trailer, decoded. */
struct vrrp_hmac_trailer {
	uint8_t type;
	uint8_t key_id;
	uint16_t reserved;
	uint64_t seq; /* sec << 32 | subsec << 16 | ctr */
	uint8_t hmac[VRRP_HMAC_LEN];
};

/* The highest sequence accepted from one sender. */
struct vrrp_hmac_replay {
	bool valid;
	uint64_t seq;
};

/* Replay state of multicast senders, by source address. */
struct vrrp_hmac_mcast {
	struct {
		uint8_t addr[16];
		struct vrrp_hmac_replay replay;
		unsigned last_used; /* 0: empty */
	} slot[VRRP_HMAC_MCAST_SLOTS];
	unsigned clock;
};

/* Outcome of checking a received trailer, in the order they are checked. */
enum vrrp_hmac_result {
	VRRP_HMAC_OK = 0,
	VRRP_HMAC_MISSING,     /* no trailer, and the mode is enforce */
	VRRP_HMAC_MALFORMED,   /* another type, or reserved bits set */
	VRRP_HMAC_STALE,       /* time mode: seconds out of the window */
	VRRP_HMAC_UNKNOWN_KEY, /* no key with that id */
	VRRP_HMAC_BAD_HMAC,    /* wrong HMAC: another key, or changed in transit */
	VRRP_HMAC_REPLAY,      /* the sequence did not grow */
	VRRP_HMAC_RESULT_MAX
};

/* What a received packet is about (the same fields as on sending). */
struct vrrp_hmac_pkt {
	int family; /* AF_INET or AF_INET6 */
	int version;
	uint8_t vrid;
	const uint8_t *src;   /* the IP source, 4 or 16 bytes */
	const uint8_t *vrrp;  /* the VRRP packet, without the trailer */
	size_t len;           /* its length */
	const uint8_t *trail; /* VRRP_HMAC_TRAILER_LEN bytes; NULL: none */
};

/* Short name of a result ("ok", "missing", "stale", ...), a metrics label. */
const char *vrrp_hmac_result_str(enum vrrp_hmac_result r);

/* "enforce", "permissive" or "receive-only". */
const char *vrrp_hmac_mode_str(enum vrrp_hmac_mode m);

/* Whether we send a trailer in this mode. */
bool vrrp_hmac_signs(enum vrrp_hmac_mode m);

/* The window keepalived derives when "time_window" is not given: three
 * advertisement intervals, whole seconds, within [5, 300]. */
unsigned vrrp_hmac_window(uint64_t advert_int_us);

/* The key with this id, or NULL. */
const struct vrrp_hmac_key *vrrp_hmac_find_key(const struct vrrp_hmac_cfg *c, uint8_t id);

/* Decode "hex:..." (hex digit pairs; spaces and tabs between octets; a
 * digit alone before a space or at the end is one octet) or take the text
 * as it is, as keepalived reads a key. Returns the length (possibly out of
 * [VRRP_HMAC_KEY_MIN, VRRP_HMAC_KEY_MAX]: the caller says so), or -EINVAL
 * for a bad or empty hex string; only max bytes are written, the length
 * counts them all. */
int vrrp_hmac_key_decode(const char *s, uint8_t *out, size_t max);

/* The sequence of the clock reading sec.nsec: seconds in the top 32 bits,
 * 1/65536 s in the next 16, the counter 0. */
uint64_t vrrp_hmac_clock_seq(int64_t sec, long nsec);

/* The sequence of the next advertisement: the clock's if after *last, else
 * *last + 1, except that with anti_replay_time and a *last more than window
 * seconds ahead of the clock (the clock was stepped back) it restarts from
 * the clock. Stores it in *last. */
uint64_t vrrp_hmac_next_seq(uint64_t *last, uint64_t clock_seq, bool time_mode, unsigned window);

/* Decode 28 bytes into a trailer. */
void vrrp_hmac_trailer_decode(const uint8_t *p, struct vrrp_hmac_trailer *t);

/* Write the trailer for the VRRP packet p (checksum field not read) into
 * out[VRRP_HMAC_TRAILER_LEN], signed with key. Returns 0, or -EINVAL for
 * a family or length out of range, -EIO when the digest fails. */
int vrrp_hmac_sign(
	const struct vrrp_hmac_key *key, const struct vrrp_hmac_pkt *p, uint64_t seq, uint8_t *out);

/* Whether a packet of len bytes (the IP payload) carries a trailer: it is
 * exactly VRRP_HMAC_TRAILER_LEN longer than its fields say (keepalived's
 * rule; padding cannot be that long). False when too short to tell. */
bool vrrp_hmac_has_trailer(const uint8_t *pkt, size_t len, int version, int family);

/* Check p against c. rp is the sender's replay state: a unicast peer's, or
 * NULL to use mc (multicast, by p->src); it moves only when the HMAC is
 * good. now_sec is CLOCK_REALTIME's seconds; *skew gets our clock minus the
 * sender's in time mode (0 otherwise). A packet without trailer is OK
 * unless the mode is enforce. */
enum vrrp_hmac_result vrrp_hmac_check(const struct vrrp_hmac_cfg *c, const struct vrrp_hmac_pkt *p,
	struct vrrp_hmac_replay *rp, struct vrrp_hmac_mcast *mc, int64_t now_sec, int *skew);

#endif
