/* BFD: control packets (RFC 5880 §4.1, the reception checks of §6.8.6,
 * RFC 5881 §5's TTL rule) and the session state machine (RFC 5880 §6),
 * driven with explicit times in microseconds and fixed random numbers. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "bfd_packet.h"
#include "bfd_session.h"

#define MS 1000ull
#define S  1000000ull
#define T0 (1000 * S)

/* An FRR bfdd packet as it goes on the wire: Down, no discriminator known
 * yet, 300 ms / 300 ms, multiplier 3 (the bytes as RFC 5880 §4.1 lays them) */
static const uint8_t frr_down[24] = {
	0x20,
	0x40,
	0x03,
	0x18,
	0x00,
	0x00,
	0x00,
	0x2a,
	0x00,
	0x00,
	0x00,
	0x00,
	0x00,
	0x04,
	0x93,
	0xe0,
	0x00,
	0x04,
	0x93,
	0xe0,
	0x00,
	0x00,
	0xc3,
	0x50,
};

static void test_packet_decode_encode(void **state)
{
	struct bfd_pkt p;
	uint8_t out[BFD_PKT_LEN];

	(void)state;
	assert_int_equal(bfd_packet_decode(frr_down, sizeof(frr_down), 255, 255, &p), BFD_PKT_OK);
	assert_int_equal(p.state, BFD_STATE_DOWN);
	assert_int_equal(p.diag, 0);
	assert_int_equal(p.detect_mult, 3);
	assert_int_equal(p.my_disc, 42);
	assert_int_equal(p.your_disc, 0);
	assert_int_equal(p.desired_min_tx, 300000);
	assert_int_equal(p.required_min_rx, 300000);
	assert_int_equal(p.required_min_echo_rx, 50000);
	assert_int_equal(bfd_packet_encode(&p, out), BFD_PKT_LEN);
	assert_memory_equal(out, frr_down, sizeof(out));

	/* Up with Poll and diag 3: the bits land where §4.1 puts them */
	p.state = BFD_STATE_UP;
	p.flags = BFD_FLAG_POLL;
	p.diag = BFD_DIAG_NEIGHBOR_DOWN;
	bfd_packet_encode(&p, out);
	assert_int_equal(out[0], 0x23);
	assert_int_equal(out[1], 0xe0);
	/* A and M are never sent */
	p.flags = BFD_FLAG_AUTH | BFD_FLAG_MULTIPOINT | BFD_FLAG_FINAL;
	bfd_packet_encode(&p, out);
	assert_int_equal(out[1], 0xd0);
}

static void test_packet_rejects(void **state)
{
	uint8_t b[32];
	struct bfd_pkt p;

	(void)state;
	memcpy(b, frr_down, 24);
	assert_int_equal(bfd_packet_decode(b, 23, 255, 255, &p), BFD_PKT_SHORT);
	/* RFC 5881 §5: single hop needs TTL 255; unknown TTL is refused too */
	assert_int_equal(bfd_packet_decode(b, 24, 254, 255, &p), BFD_PKT_TTL);
	assert_int_equal(bfd_packet_decode(b, 24, -1, 255, &p), BFD_PKT_TTL);
	/* keepalived's IPv6 hop limit 64 with max_hops 0; min_ttl 0: any */
	assert_int_equal(bfd_packet_decode(b, 24, 64, 64, &p), BFD_PKT_OK);
	assert_int_equal(bfd_packet_decode(b, 24, 63, 64, &p), BFD_PKT_TTL);
	assert_int_equal(bfd_packet_decode(b, 24, 1, 0, &p), BFD_PKT_OK);
	b[0] = 0x40; /* version 2 */
	assert_int_equal(bfd_packet_decode(b, 24, 255, 255, &p), BFD_PKT_VERSION);
	b[0] = 0x00; /* version 0 */
	assert_int_equal(bfd_packet_decode(b, 24, 255, 255, &p), BFD_PKT_VERSION);
	memcpy(b, frr_down, 24);
	b[3] = 23;
	assert_int_equal(bfd_packet_decode(b, 24, 255, 255, &p), BFD_PKT_LENGTH);
	b[3] = 25; /* more than received */
	assert_int_equal(bfd_packet_decode(b, 24, 255, 255, &p), BFD_PKT_LENGTH);
	/* a longer datagram with Length 24: fine (the rest is not BFD's) */
	memset(b + 24, 0xff, 8);
	b[3] = 24;
	assert_int_equal(bfd_packet_decode(b, 32, 255, 255, &p), BFD_PKT_OK);
	/* A needs at least 26 bytes, then is refused: no authentication here */
	b[1] |= BFD_FLAG_AUTH;
	assert_int_equal(bfd_packet_decode(b, 32, 255, 255, &p), BFD_PKT_LENGTH);
	b[3] = 26;
	assert_int_equal(bfd_packet_decode(b, 32, 255, 255, &p), BFD_PKT_AUTH);
	memcpy(b, frr_down, 24);
	b[2] = 0;
	assert_int_equal(bfd_packet_decode(b, 24, 255, 255, &p), BFD_PKT_MULT);
	memcpy(b, frr_down, 24);
	b[1] |= BFD_FLAG_MULTIPOINT;
	assert_int_equal(bfd_packet_decode(b, 24, 255, 255, &p), BFD_PKT_MULTIPOINT);
	memcpy(b, frr_down, 24);
	b[7] = 0;
	assert_int_equal(bfd_packet_decode(b, 24, 255, 255, &p), BFD_PKT_MY_DISC);
	assert_string_equal(
		bfd_packet_strerror(BFD_PKT_TTL), "TTL / hop limit too low (single hop wants 255)");
	assert_string_equal(bfd_state_name(BFD_STATE_ADMIN_DOWN), "AdminDown");
}

/* 50 ms / 50 ms / x3, idle 1 s: what cpha render writes */
static struct bfd_session_config cfg50(uint32_t disc)
{
	struct bfd_session_config c = { 0 };

	c.min_tx = 50 * MS;
	c.min_rx = 50 * MS;
	c.idle_tx = 1000 * MS;
	c.mult = 3;
	c.my_disc = disc;
	return c;
}

/* What s would send, as the remote receives it. */
static struct bfd_pkt wire(const struct bfd_out *o)
{
	uint8_t b[BFD_PKT_LEN];
	struct bfd_pkt p;

	assert_true(o->send);
	bfd_packet_encode(&o->pkt, b);
	assert_int_equal(bfd_packet_decode(b, sizeof(b), 255, 255, &p), BFD_PKT_OK);
	return p;
}

/* Two sessions talk until both are Up (a may be running already: its
 * next periodic packet starts it); returns the time. */
static uint64_t bring_up(struct bfd_session *a, struct bfd_session *b)
{
	struct bfd_out oa, ob, o;
	struct bfd_pkt p;
	uint64_t now = T0;

	if (a->state == BFD_STATE_ADMIN_DOWN) {
		bfd_session_start(a, now, 0, &oa);
	} else {
		now = a->tx_timer;
		bfd_session_timer(a, now, 0, &oa);
	}
	bfd_session_start(b, now, 0, &ob);
	/* a's Down reaches b: b goes Init and says so at once */
	assert_int_equal(bfd_session_receive(b, now, (p = wire(&oa), &p), 0, &o), 0);
	assert_true(o.changed);
	assert_int_equal(o.to, BFD_STATE_INIT);
	/* b's Init reaches a: a goes Up (and polls: its tx interval changes) */
	assert_int_equal(bfd_session_receive(a, now, (p = wire(&o), &p), 0, &oa), 0);
	assert_int_equal(oa.to, BFD_STATE_UP);
	assert_true(oa.pkt.flags & BFD_FLAG_POLL);
	/* a's Up+P reaches b: b goes Up and answers with F */
	assert_int_equal(bfd_session_receive(b, now, (p = wire(&oa), &p), 0, &ob), 0);
	assert_int_equal(ob.to, BFD_STATE_UP);
	assert_true(ob.pkt.flags & BFD_FLAG_FINAL);
	/* §6.8.7: never P with F; b's own poll goes in its next packet */
	assert_false(ob.pkt.flags & BFD_FLAG_POLL);
	assert_true(b->polling);
	assert_int_equal(bfd_session_receive(a, now, (p = wire(&ob), &p), 0, &oa), 0);
	assert_false(a->polling);
	bfd_session_timer(b, b->tx_timer, 0, &ob);
	assert_true(ob.pkt.flags & BFD_FLAG_POLL);
	assert_false(ob.pkt.flags & BFD_FLAG_FINAL);
	assert_int_equal(bfd_session_receive(a, now, (p = wire(&ob), &p), 0, &oa), 0);
	assert_true(oa.pkt.flags & BFD_FLAG_FINAL);
	assert_false(oa.pkt.flags & BFD_FLAG_POLL);
	assert_int_equal(bfd_session_receive(b, now, (p = wire(&oa), &p), 0, &ob), 0);
	assert_false(b->polling);
	return now;
}

static void test_session_up_and_intervals(void **state)
{
	struct bfd_session a, b;
	struct bfd_out o;

	(void)state;
	assert_int_equal(bfd_session_init(&a, &(struct bfd_session_config){ 0 }), -EINVAL);
	assert_int_equal(
		bfd_session_init(&a, &(struct bfd_session_config){ .min_tx = 1, .mult = 3 }),
		-EINVAL); /* no discriminator */
	assert_int_equal(bfd_session_init(&a, &(struct bfd_session_config){ 0 }), -EINVAL);
	assert_int_equal(
		bfd_session_init(
			&a, &(struct bfd_session_config){ .min_tx = 1, .mult = 3, .my_disc = 1 }),
		0);
	assert_int_equal(a.state, BFD_STATE_ADMIN_DOWN);
	assert_int_equal(a.desired_tx, BFD_SLOW_TX_MIN); /* idle_tx 0 raised to 1 s */

	bfd_session_init(&a, &(struct bfd_session_config){ 0 });
	assert_int_equal(
		bfd_session_init(&a,
			&(struct bfd_session_config){
				.min_tx = 50 * MS, .mult = 3, .my_disc = 7, .idle_tx = 2 * S }),
		0);
	assert_int_equal(a.desired_tx, 2 * S); /* above 1 s: as configured */

	bfd_session_init(&a, (struct bfd_session_config[]){ cfg50(11) });
	bfd_session_init(&b, (struct bfd_session_config[]){ cfg50(22) });
	/* while not Up: 1 s, with 0..25% jitter; the random number picks it */
	bfd_session_start(&a, T0, 0, &o);
	assert_true(o.send);
	assert_int_equal(o.pkt.state, BFD_STATE_DOWN);
	assert_int_equal(o.pkt.your_disc, 0);
	assert_int_equal(o.pkt.desired_min_tx, 1 * S);
	assert_int_equal(o.pkt.required_min_rx, 50 * MS);
	assert_int_equal(o.deadline, T0 + 750 * MS);
	bfd_session_init(&a, (struct bfd_session_config[]){ cfg50(11) });
	bfd_session_start(&a, T0, 25, &o);
	assert_int_equal(o.deadline, T0 + 1 * S);

	bfd_session_init(&a, (struct bfd_session_config[]){ cfg50(11) });
	bring_up(&a, &b);
	assert_int_equal(a.state, BFD_STATE_UP);
	assert_int_equal(b.state, BFD_STATE_UP);
	assert_int_equal(a.remote_disc, 22);
	assert_int_equal(b.remote_disc, 11);
	assert_int_equal(a.desired_tx, 50 * MS);
	/* detection: remote mult 3 x max(our 50 ms rx, their 50 ms tx) */
	assert_int_equal(a.detect_time, 150 * MS);
	assert_int_equal(a.detect_timer, T0 + 150 * MS);
	/* the next periodic packet: 50 ms less jitter (rnd 0: 75%) */
	bfd_session_timer(&a, a.tx_timer, 0, &o);
	assert_true(o.send);
	assert_int_equal(o.pkt.state, BFD_STATE_UP);
	assert_false(o.pkt.flags & (BFD_FLAG_POLL | BFD_FLAG_FINAL));
	assert_int_equal(a.up_count, 1);
}

static void test_session_detection(void **state)
{
	struct bfd_session a, b;
	struct bfd_out o;
	uint64_t now;

	(void)state;
	bfd_session_init(&a, (struct bfd_session_config[]){ cfg50(11) });
	bfd_session_init(&b, (struct bfd_session_config[]){ cfg50(22) });
	now = bring_up(&a, &b);
	/* b falls silent: a sends on and goes Down at 150 ms, not before */
	bfd_session_timer(&a, now + 149 * MS, 0, &o);
	assert_int_equal(a.state, BFD_STATE_UP);
	assert_false(o.changed);
	bfd_session_timer(&a, now + 150 * MS, 0, &o);
	assert_true(o.changed);
	assert_int_equal(o.from, BFD_STATE_UP);
	assert_int_equal(o.to, BFD_STATE_DOWN);
	assert_int_equal(a.diag, BFD_DIAG_TIME_EXPIRED);
	assert_int_equal(a.remote_disc, 0); /* §6.8.1 */
	assert_int_equal(a.down_count, 1);
	assert_int_equal(a.detect_timer, BFD_NEVER);
	/* it tells at once, slow again: Down, diag 1, 1 s */
	assert_true(o.send);
	assert_int_equal(o.pkt.state, BFD_STATE_DOWN);
	assert_int_equal(o.pkt.diag, BFD_DIAG_TIME_EXPIRED);
	assert_int_equal(o.pkt.desired_min_tx, 1 * S);
	assert_int_equal(o.pkt.your_disc, 0);

	/* the remote restarts with a new discriminator: Up again */
	bfd_session_init(&b, (struct bfd_session_config[]){ cfg50(33) });
	bring_up(&a, &b);
	assert_int_equal(a.state, BFD_STATE_UP);
	assert_int_equal(a.remote_disc, 33);
	assert_int_equal(a.up_count, 2);

	/* a slower remote sets the detection time: its 300 ms x its 5 */
	{
		struct bfd_pkt p = { .state = BFD_STATE_UP,
			.detect_mult = 5,
			.my_disc = 33,
			.your_disc = 11,
			.desired_min_tx = 300 * MS,
			.required_min_rx = 300 * MS };

		assert_int_equal(bfd_session_receive(&a, T0 + S, &p, 0, &o), 0);
		assert_int_equal(a.detect_time, 1500 * MS);
		assert_int_equal(a.detect_timer, T0 + S + 1500 * MS);
		/* and its 300 ms Required Min RX slows our sending */
		uint64_t t = a.tx_timer;

		bfd_session_timer(&a, t, 25, &o);
		assert_true(o.send);
		assert_int_equal(a.tx_timer, t + 300 * MS);
		assert_int_equal(o.deadline, a.tx_timer);
	}
}

static void test_session_remote_down_and_discards(void **state)
{
	struct bfd_session a, b;
	struct bfd_out o;
	struct bfd_pkt p;
	uint64_t now;

	(void)state;
	bfd_session_init(&a, (struct bfd_session_config[]){ cfg50(11) });
	bfd_session_init(&b, (struct bfd_session_config[]){ cfg50(22) });
	now = bring_up(&a, &b);
	/* wrong Your Discriminator: discarded, nothing changes */
	p = (struct bfd_pkt){ .state = BFD_STATE_DOWN,
		.detect_mult = 3,
		.my_disc = 22,
		.your_disc = 99,
		.desired_min_tx = S,
		.required_min_rx = 50 * MS };
	assert_int_equal(bfd_session_receive(&a, now, &p, 0, &o), -1);
	assert_int_equal(a.state, BFD_STATE_UP);
	assert_false(o.send);
	assert_int_equal(o.deadline, bfd_session_deadline(&a)); /* still told */
	/* zero Your Discriminator with State Up: discarded (§6.8.6) */
	p.your_disc = 0;
	p.state = BFD_STATE_UP;
	assert_int_equal(bfd_session_receive(&a, now, &p, 0, &o), -1);
	/* the remote says Down: Down with diag 3 */
	p.state = BFD_STATE_DOWN;
	assert_int_equal(bfd_session_receive(&a, now, &p, 0, &o), 0);
	assert_int_equal(o.to, BFD_STATE_DOWN);
	assert_int_equal(a.diag, BFD_DIAG_NEIGHBOR_DOWN);
	/* then Down from the remote again: Init (the three-way handshake) */
	assert_int_equal(bfd_session_receive(&a, now, &p, 0, &o), 0);
	assert_int_equal(o.to, BFD_STATE_INIT);
	/* Init ignores Down, goes Up on Init or Up */
	assert_int_equal(bfd_session_receive(&a, now, &p, 0, &o), 0);
	assert_false(o.changed);
	p.state = BFD_STATE_UP;
	p.your_disc = 11;
	assert_int_equal(bfd_session_receive(&a, now, &p, 0, &o), 0);
	assert_int_equal(o.to, BFD_STATE_UP);
	/* AdminDown from the remote: Down, diag 3 */
	p.state = BFD_STATE_ADMIN_DOWN;
	assert_int_equal(bfd_session_receive(&a, now, &p, 0, &o), 0);
	assert_int_equal(o.to, BFD_STATE_DOWN);
	assert_int_equal(a.diag, BFD_DIAG_NEIGHBOR_DOWN);
	/* Down ignores AdminDown and Up */
	assert_int_equal(bfd_session_receive(&a, now, &p, 0, &o), 0);
	assert_false(o.changed);
	/* stop: AdminDown, diag 7, told once */
	bfd_session_stop(&a, now, &o);
	assert_true(o.send);
	assert_int_equal(o.pkt.state, BFD_STATE_ADMIN_DOWN);
	assert_int_equal(o.pkt.diag, BFD_DIAG_ADMIN_DOWN);
	assert_int_equal(o.deadline, BFD_NEVER);
}

static void test_session_passive_and_jitter(void **state)
{
	struct bfd_session a;
	struct bfd_session_config c = cfg50(11);
	struct bfd_out o;
	struct bfd_pkt p = { .state = BFD_STATE_DOWN,
		.detect_mult = 3,
		.my_disc = 5,
		.desired_min_tx = S,
		.required_min_rx = 50 * MS };

	(void)state;
	/* passive: silent until the remote speaks (§6.1, §6.8.7) */
	c.passive = true;
	bfd_session_init(&a, &c);
	bfd_session_start(&a, T0, 0, &o);
	assert_false(o.send);
	assert_int_equal(o.deadline, BFD_NEVER);
	assert_int_equal(bfd_session_receive(&a, T0, &p, 0, &o), 0);
	assert_true(o.send);
	assert_int_equal(o.pkt.state, BFD_STATE_INIT);
	assert_int_equal(o.pkt.your_disc, 5);

	/* multiplier 1: at most 90% of the interval (§6.8.7) */
	c = cfg50(11);
	c.mult = 1;
	bfd_session_init(&a, &c);
	bfd_session_start(&a, T0, 25, &o);
	assert_int_equal(o.deadline, T0 + 840 * MS); /* 75 + 25 % 16 = 84% */
	bfd_session_init(&a, &c);
	bfd_session_start(&a, T0, 15, &o);
	assert_int_equal(o.deadline, T0 + 900 * MS);

	/* a remote Required Min RX of 0: no periodic packets (§6.8.7) */
	c = cfg50(11);
	bfd_session_init(&a, &c);
	bfd_session_start(&a, T0, 0, &o);
	p.required_min_rx = 0;
	assert_int_equal(bfd_session_receive(&a, T0, &p, 0, &o), 0);
	assert_true(o.send); /* the state change (Init) is still told */
	assert_int_equal(a.tx_timer, BFD_NEVER);
	assert_int_equal(o.deadline, T0 + 3 * S); /* only detection remains */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_packet_decode_encode),
		cmocka_unit_test(test_packet_rejects),
		cmocka_unit_test(test_session_up_and_intervals),
		cmocka_unit_test(test_session_detection),
		cmocka_unit_test(test_session_remote_down_and_discards),
		cmocka_unit_test(test_session_passive_and_jitter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
