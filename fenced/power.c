/* A node's power state from its fence devices: see power.h. The decisions
 * are power_level.c's; this runs the reads it asks for. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "power.h"

#define STATUS_ON  0 /* fence-agents: EC_STATUS is 0 when on... */
#define STATUS_OFF 2 /* ...and 2 (EC_STATUS_OFF) when off */

struct fenced_power_run;

/* One device of one level: its read. */
struct pread {
	struct fenced_power_run *pr;
	const struct fenced_use *use;
	struct fenced_agent_run *run; /* while it runs */
	char msg[160];                /* why it failed */
};

struct fenced_power_run {
	sd_event *e;
	const struct fenced_config *c;
	uint64_t deadline; /* CLOCK_MONOTONIC us: every read is over by then */
	size_t nuses;      /* every use of every level, in order */
	struct fenced_pread_use *u;
	enum fenced_pread_act *act;
	struct pread *rd;
	fenced_power_done_fn done;
	void *ud;
};

static uint64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static const char *dev_name(const struct fenced_power_run *pr, size_t i)
{
	return pr->c->devices[pr->u[i].device].name;
}

static void run_free(struct fenced_power_run *pr)
{
	size_t i;

	for (i = 0; pr->rd && i < pr->nuses; i++)
		fenced_agent_cancel(pr->rd[i].run);
	free(pr->u);
	free(pr->act);
	free(pr->rd);
	free(pr);
}

/* Whether a use of use i's level before it failed too. */
static bool level_failed_before(const struct fenced_power_run *pr, size_t i)
{
	size_t k;

	for (k = 0; k < i; k++)
		if (pr->u[k].level == pr->u[i].level && pr->u[k].st == FENCED_PREAD_FAILED)
			return true;
	return false;
}

/* What settled the answer, for the history and the log. */
static void answer_msg(
	const struct fenced_power_run *pr, const struct fenced_pdecision *d, char *msg, size_t len)
{
	size_t i, n = 0;

	msg[0] = '\0';
	if (d->answer == FENCED_POWER_ON) {
		snprintf(msg, len, "%.60s: on", dev_name(pr, d->by));
		return;
	}
	if (d->answer == FENCED_POWER_OFF) {
		/* every device of the level that settled it */
		for (i = 0; i < pr->nuses && n < len; i++)
			if (pr->u[i].level == pr->u[d->by].level)
				n += (size_t)snprintf(msg + n, len - n, "%s%.60s", n ? " and " : "",
					dev_name(pr, i));
		if (n < len)
			snprintf(msg + n, len - n, ": off");
		return;
	}
	/* unknown: the first failure of each level */
	for (i = 0; i < pr->nuses && n < len; i++) {
		if (pr->u[i].st != FENCED_PREAD_FAILED || level_failed_before(pr, i))
			continue;
		n += (size_t)snprintf(msg + n, len - n, "%s%.60s: %s", n ? "; " : "",
			dev_name(pr, i), pr->rd[i].msg);
	}
	if (!msg[0])
		snprintf(msg, len, "no fence device to read the power state from");
}

static void on_status(void *ud, const struct fenced_agent_result *r);

/* Ask power_level.c what now, act on it until nothing changes: cancel,
 * start (a start that fails is a failed read: ask again). When the answer
 * is certain, done is called and pr freed: returns false. */
static bool advance(struct fenced_power_run *pr)
{
	struct fenced_agent_result r;
	struct fenced_pdecision d;
	char msg[200];
	uint64_t now;
	bool again;
	size_t i;

	do {
		again = false;
		fenced_plevel_decide(pr->u, pr->nuses, pr->act, &d);
		for (i = 0; i < pr->nuses; i++)
			if (pr->act[i] == FENCED_PACT_CANCEL) {
				fenced_agent_cancel(pr->rd[i].run); /* killed by its PID */
				pr->rd[i].run = NULL;
			}
		for (i = 0; i < pr->nuses; i++) {
			if (pr->act[i] != FENCED_PACT_START)
				continue;
			now = mono_us();
			if (now >= pr->deadline) {
				snprintf(pr->rd[i].msg, sizeof(pr->rd[i].msg),
					"not started: power_check_timeout reached");
			} else if (fenced_agent_run(pr->e, &pr->c->devices[pr->u[i].device],
					   pr->rd[i].use, "status", pr->deadline - now, on_status,
					   &pr->rd[i], &pr->rd[i].run, &r) == 0) {
				continue;
			} else {
				pr->rd[i].run = NULL;
				snprintf(pr->rd[i].msg, sizeof(pr->rd[i].msg), "%.150s", r.msg);
			}
			pr->u[i].st = FENCED_PREAD_FAILED;
			again = true;
		}
	} while (again);
	if (d.answer == FENCED_POWER_CHECKING)
		return true;
	answer_msg(pr, &d, msg, sizeof(msg));
	pr->done(pr->ud, d.answer, msg);
	run_free(pr);
	return false;
}

static void on_status(void *ud, const struct fenced_agent_result *r)
{
	struct pread *rd = ud;
	struct fenced_power_run *pr = rd->pr;
	size_t i = (size_t)(rd - pr->rd);

	rd->run = NULL; /* the agent run frees itself */
	if (!r->timed_out && r->exit_code == STATUS_ON) {
		pr->u[i].st = FENCED_PREAD_ON;
	} else if (!r->timed_out && r->exit_code == STATUS_OFF) {
		pr->u[i].st = FENCED_PREAD_OFF;
	} else {
		pr->u[i].st = FENCED_PREAD_FAILED;
		snprintf(rd->msg, sizeof(rd->msg), "%.150s", r->msg);
	}
	advance(pr);
}

int fenced_power_check(sd_event *e, const struct fenced_config *c, const struct fenced_node *n,
	uint64_t timeout, fenced_power_done_fn done, void *ud, struct fenced_power_run **out,
	char *why, size_t whylen)
{
	struct fenced_power_run *pr;
	size_t l, k, i = 0;

	*out = NULL;
	if (!n || !n->nlevels) {
		snprintf(why, whylen, "it has no fence device");
		return -EINVAL;
	}
	pr = calloc(1, sizeof(*pr));
	for (l = 0; pr && l < n->nlevels; l++)
		pr->nuses += n->levels[l].nuses;
	if (pr && pr->nuses) {
		pr->u = calloc(pr->nuses, sizeof(*pr->u));
		pr->act = calloc(pr->nuses, sizeof(*pr->act));
		pr->rd = calloc(pr->nuses, sizeof(*pr->rd));
	}
	if (pr && !pr->nuses) {
		snprintf(why, whylen, "it has no fence device");
		run_free(pr);
		return -EINVAL;
	}
	if (!pr || !pr->u || !pr->act || !pr->rd) {
		snprintf(why, whylen, "out of memory");
		if (pr)
			run_free(pr);
		return -ENOMEM;
	}
	pr->e = e;
	pr->c = c;
	pr->deadline = mono_us() + timeout;
	pr->done = done;
	pr->ud = ud;
	for (l = 0; l < n->nlevels; l++)
		for (k = 0; k < n->levels[l].nuses; k++, i++) {
			pr->u[i].level = (unsigned)l;
			pr->u[i].device = n->levels[l].uses[k].device;
			pr->rd[i].pr = pr;
			pr->rd[i].use = &n->levels[l].uses[k];
		}
	/* nothing could start: done was called (with why) and pr is gone;
	 * *out stays NULL, so done may start another check into it */
	if (advance(pr))
		*out = pr;
	return 0;
}

void fenced_power_cancel(struct fenced_power_run *pr)
{
	if (pr)
		run_free(pr);
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
