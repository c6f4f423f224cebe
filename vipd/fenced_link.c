/* track_fenced's link to fenced: the questions fenced_gate.c decides to
 * ask go out on fenced's admin socket without blocking the VRRP loop
 * (cpha_admin_query_async), the answers come back to the gate, and what
 * the gate returns is done here: logged, applied to the instance's state
 * machine, and its deadline set on the instance's timer. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin.h"
#include "event.h"
#include "log.h"
#include "vipd.h"

#define FENCED_POLL_USEC  1000000ULL /* fenced asked once a second */
#define FENCED_HELD_USEC  100000ULL  /* while a takeover waits on it */
#define FENCED_FAST_USEC  20000ULL   /* while a power read is out, or a fence is about to end */
#define FENCED_QUERY_USEC 500000ULL  /* a fenced that does not answer in this did not answer */

/* fenced's answer to "power-check": this, then the node's name */
#define POWER_CHECK_OK "ok: reading the power state of "

static void carry_out(struct vipd_inst *in, const struct fg_out *out);

/* vipd extension: is the master that fenced proved off the only other
 * router this instance talks to? Then no other backup can contend for the
 * VIP and Skew_Time (which orders contending backups) is a wait for
 * nobody. Multicast instances never know that. */
static bool sole_backup(const struct vipd_inst *in)
{
	const struct vipd_instance *c = in->cfg;
	uint8_t peers[VIPD_SOLE_PEERS_MAX * 16], ours[16];
	size_t i, alen = in->sm.cfg.family == AF_INET6 ? 16 : 4;
	int fam = in->sm.cfg.family;

	if (!c->unicast || !c->npeers || c->npeers > VIPD_SOLE_PEERS_MAX || !in->sm.master_seen ||
		cpha_addr_family(&in->src) != fam)
		return false;
	for (i = 0; i < c->npeers; i++) {
		if (cpha_addr_family(&c->peers[i]) != fam)
			return false;
		memcpy(peers + i * alen,
			fam == AF_INET
				? (const void *)&((const struct sockaddr_in *)&c->peers[i].ss)
					  ->sin_addr
				: (const void *)&((const struct sockaddr_in6 *)&c->peers[i].ss)
					  ->sin6_addr,
			alen);
	}
	memcpy(ours,
		fam == AF_INET
			? (const void *)&((const struct sockaddr_in *)&in->src.ss)->sin_addr
			: (const void *)&((const struct sockaddr_in6 *)&in->src.ss)->sin6_addr,
		alen);
	return vrrp_sole_backup(fam, true, peers, c->npeers, ours, in->sm.master_addr);
}

/* The instance as the gate sees it. */
static struct fg_vrrp view(const struct vipd_inst *in)
{
	const struct vrrp_sm *sm = &in->sm;
	struct fg_vrrp v = { 0 };
	uint64_t now = vipd_now(in->d);

	v.backup = sm->state == VRRP_STATE_BACKUP;
	v.want_master = sm->want_master;
	/* preempting a master still heard; with preempt_handover, only one that
	 * resigned: a handover ended by silence may be two lost adverts, the
	 * master still holding the addresses, and fenced decides as after any
	 * silence (it knows who holds them). A master that resigned (priority
	 * 0: drained, stopped) is alive and holds nothing either: no need to
	 * wait until fenced's view of the holders has caught up */
	v.preempting =
		(in->last_lower_advert_at && now - in->last_lower_advert_at < sm->master_down_int &&
			(!sm->cfg.preempt_handover || sm->resigned)) ||
		sm->resigned;
	v.sole_backup = sole_backup(in);
	/* Skew_Time, from Master_Down_Interval = 3 x interval + Skew_Time */
	if (!v.sole_backup && sm->master_down_int > 3 * sm->master_adver_int)
		v.skew = sm->master_down_int - 3 * sm->master_adver_int;
	v.silence = sm->master_adver_int * 3 / 2;
	return v;
}

bool fenced_link_allows(const struct vipd_inst *in)
{
	struct fg_vrrp v;

	if (!in->cfg->fenced_socket)
		return true;
	v = view(in);
	return fg_allows(&in->fenced.g, &v);
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct vipd_inst *in = userdata;
	struct fg_vrrp v = view(in);
	struct fg_out out;

	(void)s;
	(void)usec;
	fg_timer(&in->fenced.g, &v, vipd_now(in->d), &out);
	carry_out(in, &out);
	return 0;
}

static void set_deadline(struct vipd_inst *in, uint64_t at)
{
	struct vipd_fenced *f = &in->fenced;

	if (at == FG_NEVER) {
		if (f->timer)
			sd_event_source_set_enabled(f->timer, SD_EVENT_OFF);
		return;
	}
	if (!f->timer) {
		if (sd_event_add_time(
			    in->d->e, &f->timer, CLOCK_MONOTONIC, at, 1000, on_timer, in) < 0)
			log_err("instance %s: cannot arm fenced's timer", in->name);
		return;
	}
	sd_event_source_set_time(f->timer, at);
	sd_event_source_set_enabled(f->timer, SD_EVENT_ONESHOT);
}

static void answered(struct vipd_inst *in, char *reply)
{
	struct fg_answer a;
	struct fg_vrrp v = view(in);
	struct fg_out out;

	fg_answer_read(reply, in->fenced.g.power_node, &a);
	fg_answer(&in->fenced.g, &a, &v, vipd_now(in->d), &out);
	carry_out(in, &out);
	/* now that fenced may allow it: take over, or ask the group again */
	if (!in->sync) {
		fenced_link_try_master(in);
	} else if (in->sm.state == VRRP_STATE_BACKUP && in->sm.want_master) {
		struct vrrp_out o = { .n = 1 };

		o.act[0].type = VRRP_ACT_WANT_MASTER;
		in->d->up.member_changed(in, &o);
	}
}

static void poll_done(void *userdata, int r, char *reply)
{
	struct vipd_inst *in = userdata;

	in->fenced.poll_req = NULL;
	answered(in, r < 0 ? NULL : reply);
	free(reply);
}

static void poll_send(struct vipd_inst *in)
{
	int r = cpha_admin_query_async(in->d->e, in->cfg->fenced_socket, "show json",
		FENCED_QUERY_USEC, poll_done, in, &in->fenced.poll_req);

	if (r < 0)
		answered(in, NULL); /* as if it did not answer */
}

static void power_done(void *userdata, int r, char *reply)
{
	struct vipd_inst *in = userdata;
	struct vipd_fenced *f = &in->fenced;
	struct fg_vrrp v = view(in);
	struct fg_out out;
	char node[FG_NODE_MAX] = "";
	const char *p = reply && r >= 0 ? strstr(reply, POWER_CHECK_OK) : NULL;
	size_t n;

	f->power_req = NULL;
	if (r < 0) {
		log_info("instance %s: %s; fenced does not answer power-check: %s", in->name,
			f->power_why, strerror(-r));
	} else if (!p) {
		n = reply ? strcspn(reply, "\n") : 0;
		log_info("instance %s: %s; fenced cannot read its power: %.*s", in->name,
			f->power_why, (int)(n < 200 ? n : 200), reply ? reply : "");
	} else {
		p += strlen(POWER_CHECK_OK);
		n = strcspn(p, " \n");
		snprintf(node, sizeof(node), "%.*s", (int)n, p);
		log_notice(
			"instance %s: %s: fenced reads %s's power", in->name, f->power_why, node);
	}
	free(reply);
	fg_power_asked(&f->g, node[0] ? node : NULL, &v, vipd_now(in->d), &out);
	carry_out(in, &out);
}

/* Ask fenced to read the power of the node that holds the VIP; its answer
 * comes back through the polls. power_why says what made us ask, for the
 * log. Asynchronous: fenced may ask vipd who holds the VIP while it reads,
 * and two loops waiting on each other would both time out. */
static void power_send(struct vipd_inst *in)
{
	struct vipd_fenced *f = &in->fenced;
	int r = cpha_admin_query_async(in->d->e, in->cfg->fenced_socket, "power-check",
		FENCED_QUERY_USEC, power_done, in, &f->power_req);

	if (r < 0) {
		struct fg_vrrp v = view(in);
		struct fg_out out;

		log_info("instance %s: %s; cannot ask fenced power-check: %s", in->name,
			f->power_why, strerror(-r));
		fg_power_asked(&f->g, NULL, &v, vipd_now(in->d), &out);
		carry_out(in, &out);
	}
}

static const char *held_text(enum fg_why why)
{
	switch (why) {
	case FG_WHY_NO_ANSWER:
		return "fenced does not answer";
	case FG_WHY_NO_QUORUM:
		return "no quorum";
	case FG_WHY_PENDING:
		return "a node is waiting to be fenced";
	default:
		return "another node still holds the VIP";
	}
}

static void ask_why(struct vipd_inst *in, enum fg_ask ask)
{
	struct vipd_fenced *f = &in->fenced;

	switch (ask) {
	case FG_ASK_SILENCE:
		snprintf(f->power_why, sizeof(f->power_why), "no advert from the master for %.1f s",
			(double)(in->sm.master_adver_int * 3 / 2) / 1e6);
		break;
	case FG_ASK_HELD:
		snprintf(f->power_why, sizeof(f->power_why),
			"the master is gone and fenced has not let go of it");
		break;
	case FG_ASK_BFD:
		break; /* fenced_link_bfd_down() said which session */
	}
}

/* The actions that are only said. */
static void say(const struct vipd_inst *in, const struct fg_action *a)
{
	const struct fg_state *g = &in->fenced.g;

	if (a->type == FG_ACT_CHANGED)
		log_notice("instance %s: fenced %s", in->name,
			!g->known    ? "does not answer: no takeover until it does"
			: g->quorate ? "says this partition is quorate"
				     : "says this partition has NO quorum: no MASTER here");
	else if (a->type == FG_ACT_PENDING)
		log_info("instance %s: fenced has %u node%s waiting to be fenced", in->name,
			a->pending, a->pending == 1 ? "" : "s");
}

/* Do what the gate said, then set its deadline. An action may come back
 * here (applying a takeover runs the state machine, whose WANT_MASTER asks
 * the gate again): each call finishes with its own out. */
static void carry_out(struct vipd_inst *in, const struct fg_out *out)
{
	struct vrrp_out vo;
	bool gone = false;
	unsigned i;

	set_deadline(in, out->deadline);
	for (i = 0; i < out->n; i++) {
		const struct fg_action *a = &out->act[i];

		memset(&vo, 0, sizeof(vo));
		switch (a->type) {
		case FG_ACT_POLL:
			poll_send(in);
			break;
		case FG_ACT_ASK_POWER:
			ask_why(in, a->ask);
			power_send(in);
			break;
		case FG_ACT_CHANGED:
			say(in, a);
			in->d->up.track_changed(in);
			break;
		case FG_ACT_PENDING:
			say(in, a);
			break;
		case FG_ACT_HELD:
			log_notice(
				"instance %s: the master is gone; waiting for fenced before taking "
				"over (%s)",
				in->name, held_text(a->why));
			break;
		case FG_ACT_OPEN:
			log_notice("instance %s: fenced has nobody left to fence: taking over",
				in->name);
			break;
		case FG_ACT_GOTO_MASTER:
			vrrp_state_goto_master(&in->sm, vipd_now(in->d), &vo);
			in->d->up.apply(in, &vo);
			break;
		case FG_ACT_MASTER_GONE_SOLE:
			log_notice("instance %s: fenced read %s's power: off. The master is gone "
				   "and was our only peer: taking over now",
				in->name, a->node);
			vrrp_state_master_gone_sole(&in->sm, vipd_now(in->d), &vo);
			in->d->up.apply(in, &vo);
			gone = true;
			break;
		case FG_ACT_MASTER_GONE:
			log_notice("instance %s: fenced read %s's power: off. The master is gone: "
				   "taking over after Skew_Time, as after a priority 0 advert",
				in->name, a->node);
			vrrp_state_master_gone(&in->sm, vipd_now(in->d), &vo);
			in->d->up.apply(in, &vo);
			gone = true;
			break;
		case FG_ACT_POWER_READ:
			log_notice("instance %s: fenced read %s's power: %s; waiting for the "
				   "master-down timer%s",
				in->name, a->node, fg_power_name(a->power),
				a->power == FG_POWER_OFF ? " and fenced" : " and for corosync");
			break;
		case FG_ACT_SPEAKS:
			log_notice("instance %s: the master speaks again", in->name);
			break;
		}
	}
	/* the master found gone: may the takeover go ahead now? */
	if (gone && !in->sync)
		fenced_link_try_master(in);
}

void fenced_link_try_master(struct vipd_inst *in)
{
	struct fg_vrrp v = view(in);
	struct fg_out out;

	fg_try_master(&in->fenced.g, &v, vipd_now(in->d), &out);
	carry_out(in, &out);
}

void fenced_link_master_heard(struct vipd_inst *in)
{
	struct fg_vrrp v = view(in);
	struct fg_out out;

	fg_master_heard(&in->fenced.g, &v, vipd_now(in->d), &out);
	carry_out(in, &out);
}

void fenced_link_bfd_down(struct vipd *d, int family, const uint8_t *addr, const char *session)
{
	size_t i;

	for (i = 0; i < d->ninst; i++) {
		struct vipd_inst *in = d->inst[i];
		struct fg_vrrp v;
		struct fg_out out;

		/* a backup that hears its master at addr */
		if (!in->cfg->fenced_socket || !vrrp_state_master_at(&in->sm, family, addr))
			continue;
		snprintf(in->fenced.power_why, sizeof(in->fenced.power_why),
			"BFD session %s to the master went down", session);
		v = view(in);
		fg_bfd_down(&in->fenced.g, &v, vipd_now(in->d), &out);
		carry_out(in, &out);
	}
}

void fenced_link_attach(struct vipd_inst *in)
{
	static const struct fg_config cfg = {
		.poll_usec = FENCED_POLL_USEC,
		.held_usec = FENCED_HELD_USEC,
		.fast_usec = FENCED_FAST_USEC,
	};
	struct vipd_fenced *f = &in->fenced;
	struct fg_answer a;
	struct fg_vrrp v;
	struct fg_out out;
	char *reply = NULL;
	unsigned i;

	if (!in->cfg->fenced_socket) {
		fenced_link_detach(in); /* a reload that dropped it */
		return;
	}
	/* a reload keeps what the gate knows, and its polls go on: a takeover
	 * held stays held, and fenced is not asked in line (the loop does not
	 * wait on a fenced that is busy just then) */
	if (f->on)
		return;
	fg_init(&f->g, &cfg, vipd_now(in->d));
	f->on = true;
	/* the first answer at once and in line, so the instance starts from
	 * fenced's real state; later ones never block the loop */
	if (cpha_admin_query(in->cfg->fenced_socket, "show json", FENCED_QUERY_USEC, &reply) < 0) {
		free(reply);
		reply = NULL;
	}
	/* a power read a kept instance had out is answered by the polls */
	fg_answer_read(reply, NULL, &a);
	free(reply);
	v = view(in);
	fg_answer(&f->g, &a, &v, vipd_now(in->d), &out);
	/* the instance is not running yet, or reads its tracking next: only
	 * say what changed; the first poll takes it from here */
	for (i = 0; i < out.n; i++)
		say(in, &out.act[i]);
	set_deadline(in, out.deadline);
}

void fenced_link_detach(struct vipd_inst *in)
{
	struct vipd_fenced *f = &in->fenced;

	f->timer = sd_event_source_disable_unref(f->timer);
	cpha_admin_req_cancel(f->poll_req);
	cpha_admin_req_cancel(f->power_req);
	f->poll_req = f->power_req = NULL;
	f->on = false;
}
