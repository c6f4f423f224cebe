/* BFD control packets on the wire: RFC 5880 §4.1 (the mandatory section;
 * no authentication), carried over UDP as RFC 5881 says for single-hop
 * sessions. Build them and check received ones (the reception checks of
 * RFC 5880 §6.8.6 that need no session). No sockets here. */
#ifndef VIPD_BFD_PACKET_H
#define VIPD_BFD_PACKET_H

#include <stddef.h>
#include <stdint.h>

#define BFD_VERSION      1     /* RFC 5880 §4.1 */
#define BFD_PKT_LEN      24    /* the mandatory section */
#define BFD_PORT         3784  /* RFC 5881 §4: control packets, single hop */
#define BFD_SRC_PORT_MIN 49152 /* RFC 5881 §4: source ports 49152..65535 */
#define BFD_SRC_PORT_MAX 65535
#define BFD_TTL          255 /* RFC 5881 §5: sent and required on receipt */

/* Session states (RFC 5880 §4.1 "Sta") */
enum bfd_state {
	BFD_STATE_ADMIN_DOWN = 0,
	BFD_STATE_DOWN = 1,
	BFD_STATE_INIT = 2,
	BFD_STATE_UP = 3,
};

/* Diagnostic codes (RFC 5880 §4.1 "Diag"), those a session sets */
enum bfd_diag {
	BFD_DIAG_NONE = 0,
	BFD_DIAG_TIME_EXPIRED = 1,  /* Control Detection Time Expired */
	BFD_DIAG_NEIGHBOR_DOWN = 3, /* Neighbor Signaled Session Down */
	BFD_DIAG_ADMIN_DOWN = 7,    /* Administratively Down */
};

/* Flag bits of byte 1 (RFC 5880 §4.1) */
#define BFD_FLAG_POLL       0x20 /* P: Poll */
#define BFD_FLAG_FINAL      0x10 /* F: Final */
#define BFD_FLAG_CPI        0x08 /* C: Control Plane Independent */
#define BFD_FLAG_AUTH       0x04 /* A: Authentication Present */
#define BFD_FLAG_DEMAND     0x02 /* D: Demand */
#define BFD_FLAG_MULTIPOINT 0x01 /* M: Multipoint, must be zero */

/* The fields of a control packet; intervals in microseconds as on the wire. */
struct bfd_pkt {
	unsigned diag; /* 0..31 */
	enum bfd_state state;
	unsigned flags;       /* BFD_FLAG_* */
	unsigned detect_mult; /* 1..255 */
	uint32_t my_disc;
	uint32_t your_disc;
	uint32_t desired_min_tx;
	uint32_t required_min_rx;
	uint32_t required_min_echo_rx;
};

/* Why a received packet is discarded (RFC 5880 §6.8.6), or BFD_PKT_OK. */
enum bfd_pkt_err {
	BFD_PKT_OK = 0,
	BFD_PKT_SHORT,      /* fewer bytes than the Length field or than 24 */
	BFD_PKT_VERSION,    /* version is not 1 */
	BFD_PKT_LENGTH,     /* Length below 24 (26 with A) or above the bytes received */
	BFD_PKT_MULT,       /* Detect Mult is zero */
	BFD_PKT_MULTIPOINT, /* M is set */
	BFD_PKT_MY_DISC,    /* My Discriminator is zero */
	BFD_PKT_AUTH,       /* A is set: authentication is not configured here */
	BFD_PKT_TTL,        /* TTL / hop limit below the least accepted (RFC 5881 §5: 255) */
};

/* Write p into buf (at least BFD_PKT_LEN bytes); returns BFD_PKT_LEN. */
size_t bfd_packet_encode(const struct bfd_pkt *p, uint8_t *buf);

/* Check len bytes received with TTL / hop limit ttl (-1: unknown) and fill
 * p. min_ttl is the least TTL accepted: BFD_TTL for single hop as RFC 5881
 * §5 wants; keepalived accepts its configured ttl less max_hops (0: any).
 * Checks what needs no session; the caller then finds the session
 * (bfd_session_receive() checks Your Discriminator against it). */
enum bfd_pkt_err bfd_packet_decode(
	const uint8_t *buf, size_t len, int ttl, int min_ttl, struct bfd_pkt *p);

/* "ok", "too short", ... for a log line */
const char *bfd_packet_strerror(enum bfd_pkt_err e);

/* "AdminDown", "Down", "Init", "Up" */
const char *bfd_state_name(enum bfd_state s);

#endif
