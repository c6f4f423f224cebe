/* vrrp_sync_group at run time: the members move together, as keepalived's
 * vrrp_sync.c moves them.
 *
 * - MASTER: a member whose Master_Down_Timer fires only asks
 *   (VRRP_ACT_WANT_MASTER). The group goes master when every member is
 *   master or asking; until then the asking ones stay backup and ask again
 *   after another Master_Down_Interval. A member that still hears a better
 *   master holds the whole group back ("prefer backup to avoid thrashing").
 * - BACKUP: a member that leaves MASTER for BACKUP (a better master
 *   appeared) takes the other masters of the group to BACKUP, without a
 *   priority 0 advert: their peers carry on as they were.
 * - FAULT: a member's fault is the group's (instance.c: inst_track_changed).
 *
 * The group's own state (FAULT if a member is, MASTER if all are, STOP when
 * all are stopped, else BACKUP) runs the group's notify commands, with
 * "GROUP NAME STATE 0" for the generic one, and goes to the notify fifos. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "vipd.h"

static const char *group_state(const struct vipd_sync *sy)
{
	size_t i, nmaster = 0, ninit = 0;

	for (i = 0; i < sy->n; i++) {
		switch (sy->members[i]->sm.state) {
		case VRRP_STATE_FAULT:
			return "FAULT";
		case VRRP_STATE_MASTER:
			nmaster++;
			break;
		case VRRP_STATE_INIT:
			ninit++;
			break;
		case VRRP_STATE_BACKUP:
			break;
		}
	}
	if (sy->n && ninit == sy->n)
		return "STOP";
	if (sy->n && nmaster == sy->n)
		return "MASTER";
	return "BACKUP";
}

static void group_notify(struct vipd *d, struct vipd_sync *sy, const char *state)
{
	const struct vipd_sync_group *g = sy->cfg;
	char *const cmds[VIPD_NOTIFY_N] = { g->notify_master, g->notify_backup, g->notify_fault,
		g->notify_stop, g->notify };
	char who[160];

	snprintf(who, sizeof(who), "sync group %s", g->name);
	vipd_notify_state(d, who, cmds, g->notify_as, "GROUP", g->name, state, 0);
}

/* The group's state after its members moved: log and notify a change. */
static void group_eval(struct vipd *d, struct vipd_sync *sy)
{
	const char *st;

	if (sy->propagating || !sy->n)
		return;
	st = group_state(sy);
	if (sy->state && strcmp(st, sy->state) == 0)
		return;
	log_notice("sync group %s: %s -> %s", sy->cfg->name, sy->state ? sy->state : "INIT", st);
	sy->state = st;
	sy->transitions++;
	group_notify(d, sy, st);
}

void sync_group_changed(struct vipd_sync *sy)
{
	if (sy->n)
		group_eval(sy->members[0]->d, sy);
}

/* keepalived's vrrp_sync_can_goto_master and vrrp_sync_master */
static void group_try_master(struct vipd *d, struct vipd_sync *sy)
{
	struct vrrp_out out;
	size_t i, nbackup = 0;

	for (i = 0; i < sy->n; i++) {
		const struct vrrp_sm *sm = &sy->members[i]->sm;

		if (!fenced_link_allows(sy->members[i]))
			return; /* fenced holds the takeover */
		if (sm->state == VRRP_STATE_BACKUP && sm->want_master)
			nbackup++;
		else if (sm->state != VRRP_STATE_MASTER)
			return; /* this one hears a better master, or is down */
	}
	if (!nbackup)
		return;
	log_notice("sync group %s: every member wants MASTER: moving the group", sy->cfg->name);
	sy->propagating = true;
	for (i = 0; i < sy->n; i++) {
		struct vipd_inst *m = sy->members[i];

		if (m->sm.state != VRRP_STATE_BACKUP)
			continue;
		memset(&out, 0, sizeof(out));
		vrrp_state_goto_master(&m->sm, vipd_now(d), &out);
		inst_apply(m, &out);
	}
	sy->propagating = false;
}

/* keepalived's vrrp_sync_backup */
static void group_to_backup(struct vipd *d, struct vipd_sync *sy, const struct vipd_inst *from)
{
	struct vrrp_out out;
	size_t i;

	sy->propagating = true;
	for (i = 0; i < sy->n; i++) {
		struct vipd_inst *m = sy->members[i];

		if (m == from || m->sm.state != VRRP_STATE_MASTER)
			continue;
		log_notice("sync group %s: %s left MASTER: %s follows", sy->cfg->name, from->name,
			m->name);
		memset(&out, 0, sizeof(out));
		vrrp_state_goto_backup(&m->sm, vipd_now(d), &out);
		inst_apply(m, &out);
	}
	sy->propagating = false;
}

void sync_member_changed(struct vipd_inst *in, const struct vrrp_out *out)
{
	struct vipd_sync *sy = in->sync;
	bool want = false, left = false, moved = false;
	unsigned i;

	if (!sy || sy->propagating)
		return;
	for (i = 0; i < out->n; i++) {
		const struct vrrp_action *a = &out->act[i];

		if (a->type == VRRP_ACT_WANT_MASTER || a->type == VRRP_ACT_BECOME_MASTER)
			want = true;
		if (a->type == VRRP_ACT_BECOME_BACKUP && a->from == VRRP_STATE_MASTER)
			left = true;
		if (a->type != VRRP_ACT_SEND_ADVERT && a->type != VRRP_ACT_WANT_MASTER &&
			a->type != VRRP_ACT_QUIESCE && a->type != VRRP_ACT_UNQUIESCE)
			moved = true;
	}
	if (left)
		group_to_backup(in->d, sy, in);
	if (want && in->sm.state != VRRP_STATE_FAULT)
		group_try_master(in->d, sy);
	if (moved || want)
		group_eval(in->d, sy);
}

int sync_setup(struct vipd *d)
{
	struct vipd_sync *old = d->syncs;
	size_t nold = d->nsyncs, g, m, i;

	/* unlink the old groups, keeping their states to carry over */
	for (g = 0; g < nold; g++)
		for (m = 0; m < old[g].n; m++)
			old[g].members[m]->sync = NULL;
	d->syncs = calloc(d->cfg->ngroups ? d->cfg->ngroups : 1, sizeof(*d->syncs));
	d->nsyncs = 0;
	if (!d->syncs) {
		d->syncs = old;
		d->nsyncs = nold;
		return -ENOMEM;
	}
	d->nsyncs = d->cfg->ngroups;
	for (i = 0; i < d->ninst; i++)
		vrrp_state_set_sync(&d->inst[i]->sm, d->inst[i]->cfg->fenced_socket != NULL);
	for (g = 0; g < d->cfg->ngroups; g++) {
		struct vipd_sync *sy = &d->syncs[g];

		sy->cfg = &d->cfg->groups[g];
		for (i = 0; i < nold; i++)
			if (strcmp(old[i].cfg->name, sy->cfg->name) == 0) {
				sy->state = old[i].state;
				sy->transitions = old[i].transitions;
			}
		sy->members =
			calloc(sy->cfg->nmembers ? sy->cfg->nmembers : 1, sizeof(*sy->members));
		if (!sy->members)
			return -ENOMEM;
		for (m = 0; m < sy->cfg->nmembers; m++)
			for (i = 0; i < d->ninst; i++)
				if (strcmp(d->inst[i]->name, sy->cfg->members[m]) == 0) {
					sy->members[sy->n++] = d->inst[i];
					d->inst[i]->sync = sy;
					vrrp_state_set_sync(&d->inst[i]->sm, true);
				}
	}
	for (g = 0; g < nold; g++)
		free(old[g].members);
	free(old);
	/* a member that started in FAULT takes the group with it */
	for (g = 0; g < d->nsyncs; g++)
		for (m = 0; m < d->syncs[g].n; m++)
			inst_track_changed(d->syncs[g].members[m]);
	for (g = 0; g < d->nsyncs; g++)
		group_eval(d, &d->syncs[g]);
	return 0;
}

void sync_freeze(struct vipd *d)
{
	size_t g;

	for (g = 0; g < d->nsyncs; g++)
		d->syncs[g].propagating = true;
}

void sync_teardown(struct vipd *d)
{
	size_t g, m;

	for (g = 0; g < d->nsyncs; g++) {
		for (m = 0; m < d->syncs[g].n; m++)
			d->syncs[g].members[m]->sync = NULL;
		free(d->syncs[g].members);
	}
	free(d->syncs);
	d->syncs = NULL;
	d->nsyncs = 0;
}

void sync_stop_all(struct vipd *d)
{
	size_t g, i;

	for (g = 0; g < d->nsyncs; g++)
		d->syncs[g].propagating = true;
	for (i = 0; i < d->ninst; i++)
		inst_stop(d->inst[i], true);
	for (g = 0; g < d->nsyncs; g++) {
		d->syncs[g].propagating = false;
		group_eval(d, &d->syncs[g]);
	}
}

void sync_write_states(struct vipd *d)
{
	size_t i;

	for (i = 0; i < d->ninst; i++)
		if (d->inst[i]->running)
			vipd_fifo_write(d, "INSTANCE", d->inst[i]->name,
				inst_state_name(d->inst[i]), d->inst[i]->priority);
	for (i = 0; i < d->nsyncs; i++)
		if (d->syncs[i].state)
			vipd_fifo_write(d, "GROUP", d->syncs[i].cfg->name, d->syncs[i].state, 0);
}
