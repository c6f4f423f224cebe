/* A node's power answer from its devices' status reads: see power_level.h. */
#include "power_level.h"

enum level_state {
	LEVEL_PENDING, /* reads run or wait, none settles it yet */
	LEVEL_ON,
	LEVEL_OFF,
	LEVEL_UNABLE, /* a device failed and none read on */
};

/* The state of the level made of uses [from, to); *by: the use that
 * settled it (ON: the first that read on; OFF: the last; UNABLE: the
 * first that failed). */
static enum level_state level_state(
	const struct fenced_pread_use *u, size_t from, size_t to, size_t *by)
{
	size_t i, failed = to;
	bool all_off = true;

	for (i = from; i < to; i++) {
		if (u[i].st == FENCED_PREAD_ON) {
			*by = i;
			return LEVEL_ON;
		}
		if (u[i].st == FENCED_PREAD_FAILED && failed == to)
			failed = i;
		if (u[i].st != FENCED_PREAD_OFF)
			all_off = false;
	}
	if (failed < to) {
		*by = failed;
		return LEVEL_UNABLE;
	}
	if (all_off) {
		*by = to - 1;
		return LEVEL_OFF;
	}
	for (i = from; i < to; i++)
		if (u[i].st == FENCED_PREAD_WAITING || u[i].st == FENCED_PREAD_RUNNING)
			return LEVEL_PENDING;
	/* dropped reads and no answer: no device of it to name */
	*by = (size_t)-1;
	return LEVEL_UNABLE;
}

/* The end of the level that starts at use i. */
static size_t level_end(const struct fenced_pread_use *u, size_t n, size_t i)
{
	size_t j = i;

	while (j < n && u[j].level == u[i].level)
		j++;
	return j;
}

/* Stop the reads of uses [from, to): their answer is not needed. */
static void drop(struct fenced_pread_use *u, size_t from, size_t to, enum fenced_pread_act *act)
{
	size_t i;

	for (i = from; i < to; i++) {
		if (u[i].st == FENCED_PREAD_RUNNING) {
			u[i].st = FENCED_PREAD_DROPPED;
			act[i] = FENCED_PACT_CANCEL;
		} else if (u[i].st == FENCED_PREAD_WAITING) {
			u[i].st = FENCED_PREAD_DROPPED;
		}
	}
}

static bool device_busy(const struct fenced_pread_use *u, size_t n, size_t device)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (u[i].device == device && u[i].st == FENCED_PREAD_RUNNING)
			return true;
	return false;
}

void fenced_plevel_decide(struct fenced_pread_use *u, size_t nuses, enum fenced_pread_act *act,
	struct fenced_pdecision *out)
{
	size_t i, end, by = 0, first_failed = nuses;
	bool settled = false;

	out->answer = FENCED_POWER_UNKNOWN;
	out->by = nuses;
	for (i = 0; i < nuses; i++)
		act[i] = FENCED_PACT_NONE;

	/* the node's answer: the first level, in order, that can answer */
	for (i = 0; i < nuses && !settled; i = end) {
		end = level_end(u, nuses, i);
		switch (level_state(u, i, end, &by)) {
		case LEVEL_ON:
			out->answer = FENCED_POWER_ON;
			out->by = by;
			settled = true;
			break;
		case LEVEL_OFF:
			out->answer = FENCED_POWER_OFF;
			out->by = by;
			settled = true;
			break;
		case LEVEL_UNABLE:
			if (first_failed == nuses && by < nuses)
				first_failed = by;
			break;
		case LEVEL_PENDING:
			out->answer = FENCED_POWER_CHECKING;
			settled = true; /* not an answer: what follows waits for it */
			break;
		}
	}
	if (out->answer == FENCED_POWER_UNKNOWN)
		out->by = first_failed;
	if (out->answer != FENCED_POWER_CHECKING) {
		drop(u, 0, nuses, act);
		return;
	}

	/* still checking: a level already settled needs no more reads, and
	 * every pending level reads at once (see the header for why) */
	for (i = 0; i < nuses; i = end) {
		end = level_end(u, nuses, i);
		if (level_state(u, i, end, &by) != LEVEL_PENDING)
			drop(u, i, end, act);
	}
	for (i = 0; i < nuses; i++)
		if (u[i].st == FENCED_PREAD_WAITING && !device_busy(u, nuses, u[i].device)) {
			u[i].st = FENCED_PREAD_RUNNING;
			act[i] = FENCED_PACT_START;
		}
}
