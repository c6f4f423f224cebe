/* A node's power state from its fence devices: see power.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "power.h"

#define STATUS_ON  0 /* fence-agents: EC_STATUS is 0 when on... */
#define STATUS_OFF 2 /* ...and 2 (EC_STATUS_OFF) when off */

struct fenced_power_run {
	sd_event *e;
	const struct fenced_config *c;
	const struct fenced_node *n;
	uint64_t timeout;
	size_t level, use; /* the device being read */
	struct fenced_agent_run *cur;
	fenced_power_done_fn done;
	void *ud;
	char failed[200]; /* the last device that could not answer, and why */
};

static void finish(struct fenced_power_run *pr, enum fenced_power st, const char *msg)
{
	pr->done(pr->ud, st, msg);
	free(pr);
}

static void on_status(void *ud, const struct fenced_agent_result *r);

/* Start the device at (level, use); past the last level: UNKNOWN. Returns
 * false when it finished (done called). */
static bool step(struct fenced_power_run *pr)
{
	struct fenced_agent_result r;

	while (pr->level < pr->n->nlevels) {
		const struct fenced_level *lv = &pr->n->levels[pr->level];
		const struct fenced_use *u;

		if (pr->use >= lv->nuses) {
			pr->level++;
			pr->use = 0;
			continue;
		}
		u = &lv->uses[pr->use];
		if (fenced_agent_run(pr->e, &pr->c->devices[u->device], u, "status", pr->timeout,
			    on_status, pr, &pr->cur, &r) == 0)
			return true;
		pr->cur = NULL;
		snprintf(pr->failed, sizeof(pr->failed), "%.60s: %.130s",
			pr->c->devices[u->device].name, r.msg);
		pr->level++; /* this level cannot answer */
		pr->use = 0;
	}
	finish(pr, FENCED_POWER_UNKNOWN,
		pr->failed[0] ? pr->failed : "no fence device to read the power state from");
	return false;
}

static void on_status(void *ud, const struct fenced_agent_result *r)
{
	struct fenced_power_run *pr = ud;
	const struct fenced_level *lv = &pr->n->levels[pr->level];
	const char *dev = pr->c->devices[lv->uses[pr->use].device].name;
	char msg[200];

	pr->cur = NULL; /* the agent run frees itself */
	if (!r->timed_out && r->exit_code == STATUS_ON) {
		snprintf(msg, sizeof(msg), "%.60s: on", dev);
		finish(pr, FENCED_POWER_ON, msg);
		return;
	}
	if (!r->timed_out && r->exit_code == STATUS_OFF) {
		if (++pr->use < lv->nuses) {
			step(pr);
			return;
		}
		snprintf(msg, sizeof(msg), "%.60s%s: off", dev,
			lv->nuses > 1 ? " and every other device of its level" : "");
		finish(pr, FENCED_POWER_OFF, msg);
		return;
	}
	snprintf(pr->failed, sizeof(pr->failed), "%.60s: %.130s", dev, r->msg);
	pr->level++;
	pr->use = 0;
	step(pr);
}

int fenced_power_check(sd_event *e, const struct fenced_config *c, const struct fenced_node *n,
	uint64_t timeout, fenced_power_done_fn done, void *ud, struct fenced_power_run **out,
	char *why, size_t whylen)
{
	struct fenced_power_run *pr;

	*out = NULL;
	if (!n || !n->nlevels) {
		snprintf(why, whylen, "it has no fence device");
		return -EINVAL;
	}
	pr = calloc(1, sizeof(*pr));
	if (!pr) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	pr->e = e;
	pr->c = c;
	pr->n = n;
	pr->timeout = timeout;
	pr->done = done;
	pr->ud = ud;
	/* nothing could start: done was called (with why) and pr is gone;
	 * *out stays NULL, so done may start another check into it */
	if (step(pr))
		*out = pr;
	return 0;
}

void fenced_power_cancel(struct fenced_power_run *pr)
{
	if (!pr)
		return;
	fenced_agent_cancel(pr->cur);
	free(pr);
}

const char *fenced_power_name(enum fenced_power st)
{
	switch (st) {
	case FENCED_POWER_CHECKING:
		return "checking";
	case FENCED_POWER_ON:
		return "on";
	case FENCED_POWER_OFF:
		return "off";
	default:
		return "unknown";
	}
}
