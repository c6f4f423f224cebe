/* A node's power state read from its fence devices (action "status"), for
 * the admin command "power-check": a VIP holder that fell silent and whose
 * devices say its power is off cannot hold the VIP, so vipd may take over
 * without waiting for corosync to notice (the off state is what a fence
 * proves; fence-agents' own "off" of a host already off reads exactly this
 * status and does nothing more).
 *
 * The levels are read in order. In a level every device must say OFF (two
 * PDU outlets that feed the host: one outlet still on powers it); a device
 * that says ON ends the check: ON. A level whose devices cannot answer
 * (an agent error, a timeout) passes to the next level; when none answers
 * the state is UNKNOWN. fence-agents' status exits 0 for on, 2 for off,
 * anything else for an error. */
#ifndef FENCED_POWER_H
#define FENCED_POWER_H

#include <stdint.h>
#include <systemd/sd-event.h>

#include "cfg.h"

enum fenced_power {
	FENCED_POWER_UNKNOWN,  /* never read, or no device answered */
	FENCED_POWER_CHECKING, /* a check runs */
	FENCED_POWER_ON,
	FENCED_POWER_OFF,
};

/* done gets the state (ON, OFF or UNKNOWN) and what said so: "DEVICE: off"
 * or why nothing could answer. */
typedef void (*fenced_power_done_fn)(void *ud, enum fenced_power st, const char *msg);

/* Check node n's power: each agent run is bounded by timeout (us). done is
 * called once, from the event loop; when no device could even be started
 * it is called before this returns, and *out is NULL. A negative errno
 * (no device at all, no memory): nothing runs, why says what. */
struct fenced_power_run;
int fenced_power_check(sd_event *e, const struct fenced_config *c, const struct fenced_node *n,
	uint64_t timeout, fenced_power_done_fn done, void *ud, struct fenced_power_run **out,
	char *why, size_t whylen);
void fenced_power_cancel(struct fenced_power_run *run);

/* "unknown", "checking", "on", "off" */
const char *fenced_power_name(enum fenced_power st);

#endif
