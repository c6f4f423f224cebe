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

/* Passive health: HAProxy's "observe layer4", "error-limit" and
 * "on-error". Every connection lbd makes to a server for a client is an
 * observed outcome: established is a success, refused, unreachable or
 * timed out (no SYN-ACK within timeout connect) is a layer-4 error. */
enum lbd_on_error {
	LBD_ONERR_FAIL_CHECK,   /* default: as one failed check */
	LBD_ONERR_FASTINTER,    /* only check at fastinter from now on */
	LBD_ONERR_SUDDEN_DEATH, /* as a pre-fatal failed check: one more failure downs it */
	LBD_ONERR_MARK_DOWN,    /* down at once */
};

#define HEALTH_ERROR_LIMIT_DEFAULT 10 /* HAProxy's error-limit default */

/* Count one observed outcome in *errors (consecutive errors so far): a
 * success starts the count over, an error adds one. True when the count
 * reached limit: the on-error action is due, and the count starts over
 * (HAProxy resets it once the action is taken). */
bool health_observe(unsigned *errors, unsigned limit, bool ok);

/* Apply an on-error action to h as HAProxy 2.6 does (all of them also
 * bring the next check forward to fastinter, which is the caller's part):
 * fail-check counts as one failed check; sudden-death first lowers a
 * server that is up to one failure above going down, then counts a failed
 * check; mark-down lowers it to the edge, then counts a failed check, so it
 * goes down; fastinter changes nothing here. Says whether the state
 * changed; *failed_check tells whether a failed check was counted (for
 * the chkfail counter, which HAProxy raises only while health > 0). */
enum lbd_health_change health_on_error(
	struct lbd_health *h, enum lbd_on_error mode, bool *failed_check);

/* hedge (lbd's own): when a connect started at t_connect (usec) with no
 * answer yet gets a second connect to another server: t_connect + hedge,
 * or 0 for never (hedge 0, or not before timeout connect ends the
 * attempt; connect_timeout 0 is none). */
uint64_t health_hedge_at(uint64_t t_connect, uint64_t hedge, uint64_t connect_timeout);

/* "fastinter", "fail-check", "sudden-death", "mark-down": the keyword of
 * an on-error mode, and back (-1 for an unknown word). */
const char *health_on_error_name(enum lbd_on_error mode);
int health_on_error_parse(const char *word);

#endif
