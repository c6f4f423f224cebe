/* A node's power answer from the status reads of its fence devices, pure:
 * no I/O, no clock. power.c runs the agents and feeds their results in;
 * fenced_plevel_decide() says what the node's power is (or that it must
 * wait), which reads to start and which to cancel.
 *
 * The rules:
 * - A level reads OFF only when every device of it reads off: a host fed
 *   by two PDU outlets is off only when both are.
 * - A device of a level reading ON makes the level ON at once, whatever
 *   its other devices would say: that device proves the host has power.
 * - A device that fails (an agent error, killed at the timeout, or it
 *   could not start) leaves its level unable to answer, unless another of
 *   its devices already read ON; its level's other reads are cancelled.
 * - The node's answer is the answer of its first level, in the levels'
 *   order, that can answer; UNKNOWN when none can.
 * - Every level is read at once, in parallel with the levels before it:
 *   a level 1 device that hangs until the timeout would otherwise make
 *   level 2 start only then, and the answer come a whole read later. The
 *   order of trust still holds, because a later level's answer is used
 *   only once every earlier level is known to be unable to answer: level
 *   2's PDU outlet reading on while level 1's BMC is still being read is
 *   not an answer (the BMC may yet say the host is off behind a live
 *   outlet). A level whose answer is settled (ON, OFF, or unable) has its
 *   remaining reads cancelled; once the node's answer is settled, every
 *   read is.
 * - One read per device at a time, as Pacemaker's fencer does by default
 *   (pcmk_action_limit 1): many PDUs and BMCs take one session at a time.
 *   A device used twice (two outlets of one PDU) is read once after the
 *   other, the earlier level and use first. */
#ifndef FENCED_POWER_LEVEL_H
#define FENCED_POWER_LEVEL_H

#include <stdbool.h>
#include <stddef.h>

enum fenced_power {
	FENCED_POWER_UNKNOWN,  /* never read, or no device answered */
	FENCED_POWER_CHECKING, /* a check runs: the answer is not settled yet */
	FENCED_POWER_ON,
	FENCED_POWER_OFF,
};

/* One device of one level, and its read. */
enum fenced_pread {
	FENCED_PREAD_WAITING, /* not started */
	FENCED_PREAD_RUNNING,
	FENCED_PREAD_ON,      /* fence-agents' status exit 0 */
	FENCED_PREAD_OFF,     /* status exit 2 */
	FENCED_PREAD_FAILED,  /* any other exit, killed at the timeout, not started */
	FENCED_PREAD_DROPPED, /* cancelled, or never to start: not needed */
};

struct fenced_pread_use {
	unsigned level; /* its level's place in the order of trust: 0 first; the
			 * uses are sorted by it */
	size_t device;  /* which device: one read per device at a time */
	enum fenced_pread st;
};

/* What fenced_plevel_decide() asks of the caller, per use. */
enum fenced_pread_act {
	FENCED_PACT_NONE,
	FENCED_PACT_START,  /* start its read (st is now RUNNING) */
	FENCED_PACT_CANCEL, /* kill its running read (st is now DROPPED) */
};

struct fenced_pdecision {
	enum fenced_power answer; /* CHECKING: wait for the running reads */
	size_t by;                /* ON/OFF: the use that settled it (for OFF, the
				   * last of its level); UNKNOWN: the first use that
				   * failed, or nuses when none did */
};

/* Apply the rules to the uses (their states as known now) and fill
 * act[i] for each; the states change as the acts say (START: RUNNING,
 * CANCEL: DROPPED; a WAITING use never needed becomes DROPPED with no
 * act). When the answer is settled no use is left RUNNING or WAITING.
 * Call it again after each change the caller makes (a read ends, a start
 * fails). */
void fenced_plevel_decide(struct fenced_pread_use *u, size_t nuses, enum fenced_pread_act *act,
	struct fenced_pdecision *out);

#endif
