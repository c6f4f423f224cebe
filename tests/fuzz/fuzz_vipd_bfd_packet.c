/* libFuzzer target: BFD control packet decoding (untrusted: anyone on the
 * link can send UDP to port 3784) and the session state machine fed with
 * what decodes.
 *
 * Input: one byte of TTL, then the UDP payload. Invariants: no crash; a
 * reason has a name; a packet that decodes re-encodes to the same
 * mandatory section (Length 24); the session never sends Poll and Final
 * together, keeps its state in range, and its deadline is never in the
 * past. Seeds: tests/fuzz/seeds/vipd_bfd_packet (Down from a fresh peer,
 * Init, Up with Poll, Up with Final, AdminDown, a short one). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bfd_packet.h"
#include "bfd_session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_out(const struct bfd_session *s, const struct bfd_out *o, uint64_t now)
{
	if (o->send && (o->pkt.flags & BFD_FLAG_POLL) && (o->pkt.flags & BFD_FLAG_FINAL))
		abort();
	if (s->state > BFD_STATE_UP)
		abort();
	if (o->deadline != BFD_NEVER && o->deadline < now)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bfd_session_config c = {
		.min_tx = 50000, .min_rx = 50000, .idle_tx = 1000000, .mult = 3, .my_disc = 0x1234
	};
	struct bfd_session s;
	struct bfd_out o;
	struct bfd_pkt p;
	uint8_t again[BFD_PKT_LEN];
	enum bfd_pkt_err e;
	uint64_t now = 1000000000ull;
	size_t off;

	if (size < 1)
		return 0;
	e = bfd_packet_decode(data + 1, size - 1, data[0], 255, &p);
	if (!bfd_packet_strerror(e)[0] || !bfd_state_name(p.state)[0])
		abort();
	if (e != BFD_PKT_OK)
		return 0;
	bfd_packet_encode(&p, again);
	if (memcmp(again, data + 1, 3) != 0 || again[3] != BFD_PKT_LEN ||
		memcmp(again + 4, data + 5, BFD_PKT_LEN - 4) != 0)
		abort();
	/* the session: started, then every 24-byte chunk as a packet, with
	 * the timers run between them */
	bfd_session_init(&s, &c);
	bfd_session_start(&s, now, 0, &o);
	check_out(&s, &o, now);
	for (off = 1; off + BFD_PKT_LEN <= size; off += BFD_PKT_LEN) {
		if (bfd_packet_decode(data + off, BFD_PKT_LEN, 255, 255, &p) != BFD_PKT_OK)
			continue;
		bfd_session_receive(&s, now, &p, (uint32_t)off, &o);
		check_out(&s, &o, now);
		if (o.deadline != BFD_NEVER) {
			now = o.deadline;
			bfd_session_timer(&s, now, (uint32_t)off * 7, &o);
			check_out(&s, &o, now);
		}
	}
	return 0;
}
