/* One BFD session in asynchronous mode: RFC 5880 §6 (single hop, RFC 5881),
 * without demand mode, echo or authentication. Pure: no I/O, no clock and
 * no random source. The daemon passes the time (monotonic microseconds)
 * and a random number (for the transmit jitter) into every call and gets
 * back what to do (struct bfd_out: a packet to send, a state change, the
 * next deadline at which to call bfd_session_timer()).
 *
 * The rules:
 * - States AdminDown, Down, Init, Up and their changes as RFC 5880 §6.8.6
 *   lists them; the detection timer expiring in Init or Up goes Down with
 *   diagnostic 1 and forgets the remote discriminator (§6.8.1, §6.8.4).
 * - bfd.DesiredMinTxInterval is min_tx while Up and idle_tx otherwise, never
 *   under 1 s while not Up (§6.8.3). A change of it while Up starts a Poll
 *   Sequence: our packets carry P until one with F comes back (§6.5).
 * - Transmit interval = max(DesiredMinTxInterval, the remote's Required
 *   Min RX), less 0-25% jitter (10-25% when our multiplier is 1) (§6.8.7);
 *   nothing periodic while the remote's Required Min RX is 0, nor while
 *   passive and the remote discriminator is unknown. A packet with P is
 *   answered at once with F, and a state change is told at once.
 * - Detection time = the remote's Detect Mult × max(our Required Min RX,
 *   the remote's last Desired Min TX) (§6.8.4).
 * - A received packet whose Your Discriminator is non-zero and not ours,
 *   or zero while its State is Init or Up, is discarded (§6.8.6). */
#ifndef VIPD_BFD_SESSION_H
#define VIPD_BFD_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "bfd_packet.h"

#define BFD_NEVER       UINT64_MAX /* a deadline that never comes */
#define BFD_SLOW_TX_MIN 1000000u   /* us: RFC 5880 §6.8.3, while not Up */

struct bfd_session_config {
	uint32_t min_tx;  /* us: Desired Min TX while Up; > 0 */
	uint32_t min_rx;  /* us: Required Min RX; 0: we do not want packets */
	uint32_t idle_tx; /* us: Desired Min TX while not Up (raised to 1 s) */
	unsigned mult;    /* Detect Mult, 1..255 */
	bool passive;     /* wait for the remote's first packet (§6.1) */
	uint32_t my_disc; /* non-zero, unique on this system (§6.3) */
};

struct bfd_session {
	struct bfd_session_config cfg;
	enum bfd_state state;
	enum bfd_state remote_state;
	enum bfd_diag diag;            /* bfd.LocalDiag */
	uint32_t remote_disc;          /* 0: unknown */
	unsigned remote_mult;          /* last Detect Mult received */
	uint32_t remote_min_rx;        /* bfd.RemoteMinRxInterval, us (1 at start) */
	uint32_t remote_desired_tx;    /* last Desired Min TX received, us */
	uint32_t desired_tx;           /* bfd.DesiredMinTxInterval now, us */
	bool polling;                  /* a Poll Sequence is running */
	uint64_t tx_timer;             /* when to send next; BFD_NEVER: not sending */
	uint64_t detect_timer;         /* when the remote is declared down; BFD_NEVER */
	uint64_t detect_time;          /* us, the last computed */
	uint64_t last_rx;              /* when the last accepted packet came; 0: never */
	uint64_t up_count, down_count; /* times it went Up, and from Up/Init to Down */
};

/* What a call asks the daemon to do. */
struct bfd_out {
	bool send; /* send pkt now */
	struct bfd_pkt pkt;
	bool changed; /* the state went from .from to .to */
	enum bfd_state from, to;
	uint64_t deadline; /* call bfd_session_timer() then; BFD_NEVER: no timer */
};

/* Check cfg and set s up in AdminDown. Returns 0, or -EINVAL for a zero
 * min_tx, multiplier or discriminator. */
int bfd_session_init(struct bfd_session *s, const struct bfd_session_config *cfg);

/* Start (AdminDown to Down): an active session sends its first packet now. */
void bfd_session_start(struct bfd_session *s, uint64_t now, uint32_t rnd, struct bfd_out *out);

/* Stop (to AdminDown, diagnostic 7): one last packet tells the remote. */
void bfd_session_stop(struct bfd_session *s, uint64_t now, struct bfd_out *out);

/* A packet that bfd_packet_decode() accepted, for this session (the caller
 * picked it by Your Discriminator or by the addresses). Returns 0, or -1
 * when §6.8.6 discards it (nothing changes then; out holds the deadline). */
int bfd_session_receive(struct bfd_session *s, uint64_t now, const struct bfd_pkt *p, uint32_t rnd,
	struct bfd_out *out);

/* The deadline from the last bfd_out came (or passed): send, or detect the
 * remote's silence. Calls before the deadline only recompute it. */
void bfd_session_timer(struct bfd_session *s, uint64_t now, uint32_t rnd, struct bfd_out *out);

/* The earliest pending deadline, or BFD_NEVER. */
uint64_t bfd_session_deadline(const struct bfd_session *s);

#endif
