/* A node's power state read from its fence devices (action "status"), for
 * the admin command "power-check": a VIP holder that fell silent and whose
 * devices say its power is off cannot hold the VIP, so vipd may take over
 * without waiting for corosync to notice (the off state is what a fence
 * proves; fence-agents' own "off" of a host already off reads exactly this
 * status and does nothing more).
 *
 * Every device of every level is read at once, one read per device at a
 * time, and the answer comes as soon as it is certain; the rules (every
 * device of a level off is off, one device on is on, a level with a
 * failed device passes to the next, the levels' order of trust) are
 * power_level.h's. fence-agents' status exits 0 for on, 2 for off,
 * anything else for an error. The whole check is bounded: every read
 * still running at the deadline given is killed and counts as failed. */
#ifndef FENCED_POWER_H
#define FENCED_POWER_H

#include <stdint.h>
#include <systemd/sd-event.h>

#include "cfg.h"
#include "power_level.h"

/* done gets the state (ON, OFF or UNKNOWN) and what said so: "DEVICE: off"
 * or why nothing could answer. */
typedef void (*fenced_power_done_fn)(void *ud, enum fenced_power st, const char *msg);

/* Check node n's power, every read over by timeout (us) from now: done is
 * called once, from the event loop, as soon as the answer is certain, and
 * the reads no longer needed are killed then. When no device could even
 * be started it is called before this returns, and *out is NULL. A
 * negative errno (no device at all, no memory): nothing runs, why says
 * what. */
struct fenced_power_run;
int fenced_power_check(sd_event *e, const struct fenced_config *c, const struct fenced_node *n,
	uint64_t timeout, fenced_power_done_fn done, void *ud, struct fenced_power_run **out,
	char *why, size_t whylen);
/* Stop a check: its running agents are killed, done never comes. */
void fenced_power_cancel(struct fenced_power_run *run);

/* "unknown", "checking", "on", "off" */
const char *fenced_power_name(enum fenced_power st);

#endif
