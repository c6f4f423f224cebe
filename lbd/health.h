/* Health state of a checked server: HAProxy's rise/fall counter. Pure. */
#ifndef LBD_HEALTH_H
#define LBD_HEALTH_H

#include <stdbool.h>
#include <stdint.h>

/* The counter runs from 0 to rise + fall - 1. A server is up once the
 * counter reaches rise and stays up until it drops below rise; successes
 * move it up, failures down, so alternating results do not flap. */
struct lbd_health {
	unsigned health;
	unsigned rise, fall;
	bool up;
};

enum lbd_health_change {
	LBD_HEALTH_SAME, /* no state change */
	LBD_HEALTH_UP,   /* just went up */
	LBD_HEALTH_DOWN, /* just went down */
};

/* Start a server. As in HAProxy, a server starts up but one failed check
 * puts it down (counter at rise); start_up false starts it fully down. */
void health_init(struct lbd_health *h, unsigned rise, unsigned fall, bool start_up);

/* Account one check result and say whether the state changed. */
enum lbd_health_change health_report(struct lbd_health *h, bool ok);

/* How long until the next check: downinter while fully down, fastinter
 * while between states, inter while fully up. */
uint64_t health_interval(
	const struct lbd_health *h, uint64_t inter, uint64_t fastinter, uint64_t downinter);

/* Force a state (admin "set server ... health", reload carrying state). */
void health_force(struct lbd_health *h, bool up);

/* Delay before the next check, from the interval: with spread-checks
 * (percent, 1..50) anywhere within +/- that share of it, r choosing
 * where; without (0), up to 5% early. */
uint64_t health_jitter(uint64_t interval, unsigned spread, uint64_t r);

/* shutdown-sessions-spread: when the i-th of k sessions of a thread is
 * cut (usec after the server went down): evenly over the window, the first
 * at once, but never more than HEALTH_CUT_GAP_USEC apart, so that a handful
 * of sessions is not held up for the whole window while thousands still
 * reconnect one at a time. */
#define HEALTH_CUT_GAP_USEC 1000ULL /* one cut per millisecond and thread */
uint64_t health_cut_offset(uint64_t i, uint64_t k, uint64_t spread_usec);

/* option log-health-checks: whether a check result is logged, as HAProxy
 * does: a failure unless the counter was already 0 (fully down) before it,
 * a success unless it was already at its top (fully up). */
bool health_log_result(const struct lbd_health *h, unsigned before, bool ok);

#endif
