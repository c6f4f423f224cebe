/* Tracking: vrrp_script checks run through lib's child runner, interfaces
 * through netlink link events, keepalived's track files and tracked
 * processes (track_process.c), and vipd's own track_lbd (lbd's admin
 * socket: enough healthy servers in a backend). */
#include <errno.h>
#include <jansson.h>
#include <net/if.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "admin.h"
#include "event.h"
#include "cfg.h"
#include "conf_lex.h"
#include "log.h"
#include "spawn.h"
#include "track_process.h"
#include "vipd.h"

#define TRACK_POLL_USEC 1000000ULL /* track files and lbd, once a second */
#define LBD_QUERY_USEC  500000ULL  /* an lbd that does not answer in this is unhealthy */

char **vipd_split_command(const char *cmd)
{
	struct cpha_lex lx;
	struct cpha_lex_line l;
	char **w;
	size_t i;

	if (cpha_lex_open_mem(&lx, "command", cmd, strlen(cmd), 0) < 0)
		return NULL;
	if (cpha_lex_next(&lx, &l) != 1) {
		cpha_lex_free(&lx);
		return NULL;
	}
	w = calloc(l.n + 1, sizeof(*w));
	for (i = 0; w && i < l.n; i++)
		w[i] = strdup(l.tok[i].text);
	cpha_lex_free(&lx);
	return w;
}

void vipd_free_words(char **w)
{
	size_t i;

	for (i = 0; w && w[i]; i++)
		free(w[i]);
	free(w);
}

/* enable_script_security: the script and every directory above it must
 * be writable by root only (keepalived's rule), or a local user could get
 * a script run as root. */
static bool script_secure(const char *path, const char **why)
{
	char buf[4096], *slash;
	struct stat st;

	if (path[0] != '/') {
		*why = "not an absolute path";
		return false;
	}
	snprintf(buf, sizeof(buf), "%s", path);
	for (;;) {
		if (stat(buf[0] ? buf : "/", &st) == -1) {
			*why = "cannot be examined";
			return false;
		}
		if (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH))) {
			*why = "it or a directory above it is writable by someone other than root";
			return false;
		}
		slash = strrchr(buf, '/');
		if (!slash || slash == buf)
			break;
		*slash = '\0';
	}
	return true;
}

static void script_schedule(struct vipd_script_rt *sr, uint64_t delay);

static void affect(struct vipd *d, const struct vipd_script_rt *sr)
{
	size_t i, j;

	for (i = 0; i < d->ninst; i++)
		for (j = 0; j < d->inst[i]->ntracks; j++)
			if (d->inst[i]->tracks[j].script == sr) {
				inst_track_changed(d->inst[i]);
				break;
			}
}

static void script_done(void *userdata, const struct cpha_spawn_result *r)
{
	struct vipd_script_rt *sr = userdata;
	bool ok = r->exited && r->exit_code == 0;
	unsigned need;

	sr->running = NULL;
	sr->runs++;
	if (!ok)
		sr->failures++;
	if (ok == sr->ok) {
		sr->streak = 0;
	} else {
		need = ok ? sr->cfg->rise : sr->cfg->fall;
		if (++sr->streak >= (need ? need : 1)) {
			sr->ok = ok;
			sr->streak = 0;
			log_notice("script %s: now %s (%s)", sr->name,
				ok ? "succeeding" : "failing",
				r->timed_out ? "timed out"
				: r->exited  ? (ok ? "exit 0" : "non-zero exit")
					     : "killed by a signal");
			affect(sr->d, sr);
		}
	}
	script_schedule(sr, sr->cfg->interval);
}

static int on_script_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct vipd_script_rt *sr = userdata;
	struct cpha_spawn_opts o = { 0 };
	int r;

	(void)s;
	(void)usec;
	if (sr->running || sr->disabled)
		return 0;
	o.argv = (const char *const *)sr->argv;
	o.timeout_usec = sr->cfg->timeout ? sr->cfg->timeout : sr->cfg->interval;
	vipd_runas_opts(sr->d, sr->cfg->user, sr->cfg->group, &o);
	r = cpha_spawn(sr->d->e, &o, script_done, sr, &sr->running);
	if (r < 0) {
		struct cpha_spawn_result fake = { .exited = 1, .exit_code = 127 };

		log_warn("script %s: cannot run %s: %s", sr->name, sr->argv[0], strerror(-r));
		script_done(sr, &fake);
	}
	return 0;
}

static void script_schedule(struct vipd_script_rt *sr, uint64_t delay)
{
	if (sr->disabled)
		return;
	if (!sr->timer) {
		if (sd_event_add_time_relative(sr->d->e, &sr->timer, CLOCK_MONOTONIC, delay, 1000,
			    on_script_timer, sr) < 0)
			log_err("script %s: cannot arm its timer", sr->name);
		return;
	}
	cpha_timer_rearm(sr->timer, delay);
}

static struct vipd_script_rt *script_find(struct vipd *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->nscripts; i++)
		if (strcmp(d->scripts[i]->name, name) == 0)
			return d->scripts[i];
	return NULL;
}

/* Read a track file: a number (keepalived); missing or unreadable counts
 * as 0. */
static long read_track_file(const char *path)
{
	FILE *f = fopen(path, "re");
	long v = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%ld", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

/* track_lbd: is the backend served by at least min_up usable servers? */
static bool lbd_healthy(const struct vipd_track *t)
{
	json_t *j, *backends, *b;
	json_error_t err;
	char *reply = NULL;
	size_t i;
	bool ok = false;

	if (cpha_admin_query(t->lbd_socket, "show stat json", LBD_QUERY_USEC, &reply) < 0)
		return false;
	j = json_loads(reply, 0, &err);
	free(reply);
	if (!j)
		return false;
	backends = json_object_get(j, "backends");
	json_array_foreach(backends, i, b)
	{
		const char *name = json_string_value(json_object_get(b, "backend"));
		json_int_t act = json_integer_value(json_object_get(b, "active_servers"));

		if (name && strcmp(name, t->name) == 0)
			ok = act >= (json_int_t)t->lbd_min_up;
	}
	json_decref(j);
	return ok;
}

/* track_fenced: ask fenced. false when it does not answer. */
static bool fenced_poll(struct vipd_inst *in)
{
	json_t *j, *q, *p, *nodes, *nd;
	char *reply = NULL;
	bool known = false, quorate = false, other = false;
	unsigned pending = 0;
	const char *self;
	size_t k;

	if (cpha_admin_query(in->cfg->fenced_socket, "show json", LBD_QUERY_USEC, &reply) == 0 &&
		(j = json_loads(reply, 0, NULL))) {
		q = json_object_get(j, "quorate");
		p = json_object_get(j, "pending");
		if (json_is_boolean(q) && json_is_array(p)) {
			known = true;
			quorate = json_is_true(q);
			pending = (unsigned)json_array_size(p);
			/* another node fenced says holds the VIP: its master may
			 * still be alive even if corosync has not noticed yet */
			self = json_string_value(json_object_get(j, "node"));
			nodes = json_object_get(j, "nodes");
			json_array_foreach(nodes, k, nd)
			{
				const char *name = json_string_value(json_object_get(nd, "name"));
				const char *power = json_string_value(json_object_get(nd, "power"));

				if (json_is_true(json_object_get(nd, "vip")) && name &&
					(!self || strcmp(name, self) != 0))
					other = true;
				if (in->power_node[0] && name && strcmp(name, in->power_node) == 0)
					snprintf(in->power_state, sizeof(in->power_state), "%s",
						power ? power : "unknown");
			}
		}
		json_decref(j);
	}
	free(reply);
	if (known != in->fenced_known || quorate != in->fenced_quorate)
		log_notice("instance %s: fenced %s", in->name,
			!known    ? "does not answer: no takeover until it does"
			: quorate ? "says this partition is quorate"
				  : "says this partition has NO quorum: no MASTER here");
	if (known && pending != in->fenced_pending)
		log_info("instance %s: fenced has %u node%s waiting to be fenced", in->name,
			pending, pending == 1 ? "" : "s");
	in->fenced_pending = known ? pending : 0;
	in->fenced_other_holder = known && other;
	if (known != in->fenced_known || quorate != in->fenced_quorate) {
		in->fenced_known = known;
		in->fenced_quorate = quorate;
		return true;
	}
	return false;
}

bool track_fenced_allows_master(const struct vipd_inst *in)
{
	if (!in->cfg->fenced_socket)
		return true;
	/* preempting a master we still hear (a lower priority) is plain VRRP:
	 * it is alive and steps down when it hears us; fenced matters only
	 * when the master fell silent */
	if (in->last_lower_advert_at &&
		inst_now(in->d) - in->last_lower_advert_at < in->sm.master_down_int &&
		in->sm.state == VRRP_STATE_BACKUP)
		return in->fenced_known && in->fenced_quorate;
	return in->fenced_known && in->fenced_quorate && in->fenced_pending == 0 &&
	       !in->fenced_other_holder;
}

#define FENCED_HELD_POLL_USEC 100000ULL /* a takeover waits on fenced */
/* a power read is out, or a fence fenced is about to end: either answer
 * ends a takeover's wait, and each poll is a local round trip */
#define FENCED_POWER_POLL_USEC 20000ULL

/* How soon to ask fenced again. */
static uint64_t fenced_poll_usec(const struct vipd_inst *in)
{
	if (in->power_node[0] && strcmp(in->power_state, "checking") == 0)
		return FENCED_POWER_POLL_USEC;
	return in->fenced_held && in->fenced_pending ? FENCED_POWER_POLL_USEC
						     : FENCED_HELD_POLL_USEC;
}

static int on_fenced_timer(sd_event_source *s, uint64_t usec, void *userdata);

static void fenced_poll_soon(struct vipd_inst *in)
{
	if (!in->fenced_timer)
		sd_event_add_time_relative(in->d->e, &in->fenced_timer, CLOCK_MONOTONIC,
			fenced_poll_usec(in), 1000, on_fenced_timer, in);
	else
		cpha_timer_rearm(in->fenced_timer, fenced_poll_usec(in));
}

static int on_fenced_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct vipd_inst *in = userdata;

	(void)s;
	(void)usec;
	if (fenced_poll(in))
		inst_track_changed(in);
	track_fenced_try_master(in);
	return 0;
}

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

/* fenced was asked for the silent master's power: act on its answer.
 * Returns true while the answer is still to come (keep asking). */
static bool power_answer(struct vipd_inst *in)
{
	struct vrrp_out out = { 0 };
	char node[sizeof(in->power_node)];

	if (!in->power_node[0] || in->sm.state != VRRP_STATE_BACKUP)
		return false;
	if (strcmp(in->power_state, "checking") == 0)
		return true;
	/* answered: once per silence (cleared first: acting may come back here) */
	snprintf(node, sizeof(node), "%s", in->power_node);
	in->power_node[0] = '\0';
	if (strcmp(in->power_state, "off") == 0 && track_fenced_allows_master(in)) {
		if (sole_backup(in)) {
			log_notice("instance %s: fenced read %s's power: off. The master is gone "
				   "and was our only peer: taking over now",
				in->name, node);
			vrrp_state_master_gone_sole(&in->sm, inst_now(in->d), &out);
		} else {
			log_notice("instance %s: fenced read %s's power: off. The master is gone: "
				   "taking over after Skew_Time, as after a priority 0 advert",
				in->name, node);
			vrrp_state_master_gone(&in->sm, inst_now(in->d), &out);
		}
		inst_apply(in, &out);
	} else {
		log_notice("instance %s: fenced read %s's power: %s; waiting for the master-down "
			   "timer%s",
			in->name, node, in->power_state,
			strcmp(in->power_state, "off") == 0 ? " and fenced" : " and for corosync");
	}
	return false;
}

/* fenced's answer to "power-check": this, then the node's name */
#define POWER_CHECK_OK "ok: reading the power state of "

/* fenced answered power-check (asynchronously: fenced may ask vipd who
 * holds the VIP while it reads, and two loops waiting on each other would
 * both time out). */
static void power_asked(void *userdata, int r, char *reply)
{
	struct vipd_inst *in = userdata;
	const char *p;
	size_t n;

	in->power_req = NULL;
	if (r < 0) {
		log_info("instance %s: %s; fenced does not answer power-check: %s", in->name,
			in->power_why, strerror(-r));
		free(reply);
		return;
	}
	p = reply ? strstr(reply, POWER_CHECK_OK) : NULL;
	if (!p) {
		n = reply ? strcspn(reply, "\n") : 0;
		log_info("instance %s: %s; fenced cannot read its power: %.*s", in->name,
			in->power_why, (int)(n < 200 ? n : 200), reply ? reply : "");
		free(reply);
		return;
	}
	p += strlen(POWER_CHECK_OK);
	n = strcspn(p, " \n");
	snprintf(in->power_node, sizeof(in->power_node), "%.*s", (int)n, p);
	snprintf(in->power_state, sizeof(in->power_state), "checking");
	free(reply);
	log_notice("instance %s: %s: fenced reads %s's power", in->name, in->power_why,
		in->power_node);
	/* ask fenced for the answer often while the read is out */
	fenced_poll_soon(in);
}

/* Ask fenced to read the power of the node that holds the VIP; its answer
 * comes through fenced_poll (power_state) and power_answer(). why: what
 * made us ask, for the log. One request at a time. */
static void power_ask(struct vipd_inst *in, const char *why)
{
	int r;

	if (in->power_req)
		return;
	snprintf(in->power_why, sizeof(in->power_why), "%s", why);
	r = cpha_admin_query_async(in->d->e, in->cfg->fenced_socket, "power-check", LBD_QUERY_USEC,
		power_asked, in, &in->power_req);
	if (r < 0)
		log_info("instance %s: %s; cannot ask fenced power-check: %s", in->name, why,
			strerror(-r));
}

static int on_power_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct vipd_inst *in = userdata;
	char why[80];

	(void)s;
	(void)usec;
	if (in->sm.state != VRRP_STATE_BACKUP || in->sm.want_master || in->power_node[0])
		return 0; /* not a backup, or already taking over, or asked */
	snprintf(why, sizeof(why), "no advert from the master for %.1f s",
		(double)(in->sm.master_adver_int * 3 / 2) / 1e6);
	power_ask(in, why);
	return 0;
}

void track_fenced_master_heard(struct vipd_inst *in)
{
	uint64_t after = in->sm.master_adver_int * 3 / 2;

	if (in->power_node[0])
		log_notice("instance %s: the master speaks again", in->name);
	in->power_node[0] = '\0';
	if (!in->power_timer)
		sd_event_add_time_relative(in->d->e, &in->power_timer, CLOCK_MONOTONIC, after,
			10000, on_power_timer, in);
	else
		cpha_timer_rearm(in->power_timer, after);
}

void track_bfd_changed(struct vipd *d, const char *name, bool up)
{
	size_t i, j;

	for (i = 0; i < d->ninst; i++) {
		bool hit = false;

		for (j = 0; j < d->inst[i]->ntracks; j++) {
			struct vipd_track_state *t = &d->inst[i]->tracks[j];

			if (t->cfg && t->cfg->bfd && strcmp(t->cfg->name, name) == 0 &&
				t->up != up) {
				t->up = up;
				hit = true;
			}
		}
		if (hit)
			inst_track_changed(d->inst[i]);
	}
}

void track_fenced_bfd_down(struct vipd *d, int family, const uint8_t *addr, const char *session)
{
	char why[96];
	size_t i;

	for (i = 0; i < d->ninst; i++) {
		struct vipd_inst *in = d->inst[i];

		/* a backup that hears its master at addr, and has not asked yet */
		if (!in->cfg->fenced_socket || in->power_node[0] ||
			!vrrp_state_master_at(&in->sm, family, addr))
			continue;
		snprintf(why, sizeof(why), "BFD session %s to the master went down", session);
		power_ask(in, why);
	}
}

void track_fenced_try_master(struct vipd_inst *in)
{
	struct vrrp_out out = { 0 };

	/* a power read still out keeps fenced asked often; it never holds
	 * back a takeover that fenced allows by the usual path */
	if (power_answer(in))
		fenced_poll_soon(in);
	if (in->sm.state != VRRP_STATE_BACKUP || !in->sm.want_master) {
		in->fenced_held = false; /* a master was heard, or we are one */
		in->power_asked_held = false;
		in->fenced_open_at = 0;
		return;
	}
	if (!track_fenced_allows_master(in)) {
		in->fenced_open_at = 0;
		if (!in->fenced_held)
			log_notice(
				"instance %s: the master is gone; waiting for fenced before taking "
				"over (%s)",
				in->name,
				!in->fenced_known     ? "fenced does not answer"
				: !in->fenced_quorate ? "no quorum"
				: in->fenced_pending  ? "a node is waiting to be fenced"
						      : "another node still holds the VIP");
		/* a backup that never heard the master (it started after it went
		 * silent) has had no silence to notice, and a holder corosync
		 * already lost waits for its fence and priority_delay_vip: ask
		 * for the holder's power once, now (off drops the delay) */
		if (!in->fenced_held && in->fenced_known && in->fenced_quorate &&
			(in->fenced_pending || in->fenced_other_holder) && !in->power_node[0] &&
			!in->power_asked_held) {
			in->power_asked_held = true;
			power_ask(in, "the master is gone and fenced has not let go of it");
		}
		in->fenced_held = true;
		/* the takeover waits on fenced: ask it often, not once a second */
		fenced_poll_soon(in);
		return;
	}
	if (in->fenced_held) {
		/* every held backup is let go at once: wait Skew_Time, as RFC 9568
		 * staggers backups by priority, so the best one's advert reaches
		 * the others first and only it takes over */
		uint64_t now = inst_now(in->d),
			 skew = in->sm.master_down_int > 3 * in->sm.master_adver_int
					? in->sm.master_down_int - 3 * in->sm.master_adver_int
					: 0;

		/* nobody to stagger against: the old master was our only peer */
		if (sole_backup(in))
			skew = 0;

		if (!in->fenced_open_at)
			in->fenced_open_at = now;
		if (now < in->fenced_open_at + skew) {
			cpha_timer_rearm(in->fenced_timer, in->fenced_open_at + skew - now);
			return;
		}
		log_notice("instance %s: fenced has nobody left to fence: taking over", in->name);
	}
	in->fenced_held = false;
	in->fenced_open_at = 0;
	vrrp_state_goto_master(&in->sm, inst_now(in->d), &out);
	inst_apply(in, &out);
}

/* How many processes match each vrrp_track_process, from one /proc scan;
 * NULL when none is tracked or /proc cannot be read (tracks keep their
 * state). */
static unsigned *count_processes(struct vipd *d)
{
	unsigned *counts;
	size_t i, j;
	bool any = false;

	for (i = 0; i < d->ninst && !any; i++)
		for (j = 0; j < d->inst[i]->ntracks && !any; j++)
			any = d->inst[i]->tracks[j].cfg && d->inst[i]->tracks[j].cfg->process;
	if (!any || !(counts = calloc(d->cfg->ntrack_processes, sizeof(*counts))))
		return NULL;
	if (track_process_count(d->cfg->track_processes, d->cfg->ntrack_processes, counts) == -1) {
		free(counts);
		return NULL;
	}
	return counts;
}

/* A track_process entry after a poll that counted the matching processes
 * of each definition. Between polls the track keeps its quorum in up and,
 * in file_value, how many polls the count has disagreed (the delays). */
static bool process_poll(
	struct vipd *d, const char *inst, struct vipd_track_state *t, const unsigned *counts)
{
	const struct vipd_track_process_def *p = vipd_cfg_track_process(d->cfg, t->cfg->name);
	struct track_process_state st = { .up = t->up, .streak = (unsigned)t->file_value };
	unsigned n;
	bool changed;

	if (!p)
		return false;
	n = counts[p - d->cfg->track_processes];
	changed = track_process_step(p, n, TRACK_POLL_USEC, &st);
	t->up = st.up;
	t->file_value = st.streak;
	if (changed)
		log_notice("instance %s: track_process %s: %u running, %s", inst, t->cfg->name, n,
			st.up ? "quorum" : "no quorum");
	return changed;
}

static int on_poll(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct vipd *d = userdata;
	unsigned *counts = count_processes(d);
	size_t i, j;

	(void)usec;
	for (i = 0; i < d->ninst; i++) {
		struct vipd_inst *in = d->inst[i];
		bool changed = false;

		for (j = 0; j < in->ntracks; j++) {
			struct vipd_track_state *t = &in->tracks[j];

			if (!t->cfg)
				continue; /* the instance's interface: netlink tells */
			if (t->cfg->lbd_socket) {
				bool up = lbd_healthy(t->cfg);

				if (up != t->up) {
					log_notice("instance %s: lbd backend %s is %s", in->name,
						t->cfg->name,
						up ? "healthy" : "not healthy enough");
					t->up = up;
					changed = true;
				}
			} else if (t->cfg->process) {
				if (counts && process_poll(d, in->name, t, counts))
					changed = true;
			} else if (t->ifindex == 0 && !t->script) {
				const struct vipd_track_file_def *f =
					vipd_cfg_track_file(d->cfg, t->cfg->name);
				long v = f ? read_track_file(f->path) : 0;

				if (v != t->file_value) {
					t->file_value = v;
					changed = true;
				}
			}
		}
		if (in->cfg->fenced_socket) {
			if (fenced_poll(in))
				changed = true;
		}
		if (changed)
			inst_track_changed(in);
		if (in->cfg->fenced_socket && !in->sync)
			track_fenced_try_master(in);
		else if (in->cfg->fenced_socket && in->sm.want_master) {
			/* ask the group again, now that fenced may allow it */
			struct vrrp_out o = { .n = 1 };

			o.act[0].type = VRRP_ACT_WANT_MASTER;
			sync_member_changed(in, &o);
		}
	}
	free(counts);
	/* a one-shot source: moving its time alone would never fire it again */
	if (cpha_timer_rearm(s, TRACK_POLL_USEC) < 0)
		log_err("tracking: cannot re-arm the poll timer");
	return 0;
}

int track_setup(struct vipd *d)
{
	size_t i;
	const char *why;

	d->scripts = calloc(d->cfg->nscripts ? d->cfg->nscripts : 1, sizeof(*d->scripts));
	if (!d->scripts)
		return -ENOMEM;
	for (i = 0; i < d->cfg->nscripts; i++) {
		const struct vipd_script *sc = &d->cfg->scripts[i];
		struct vipd_script_rt *sr = calloc(1, sizeof(*sr));

		if (!sr)
			return -ENOMEM;
		d->scripts[d->nscripts++] = sr;
		sr->d = d;
		sr->cfg = sc;
		sr->name = strdup(sc->name);
		sr->ok = true; /* keepalived starts scripts as succeeding */
		sr->argv = vipd_split_command(sc->command);
		if (!sr->argv) {
			log_err("script %s: '%s' is not a command", sc->name, sc->command);
			sr->disabled = true;
			continue;
		}
		if (d->cfg->global.enable_script_security && !script_secure(sr->argv[0], &why)) {
			log_err("script %s: %s: refused by enable_script_security: %s; it counts "
				"as "
				"failing",
				sc->name, sr->argv[0], why);
			sr->disabled = true;
			sr->ok = false;
			continue;
		}
		script_schedule(sr, 0);
	}
	/* the first poll at once, so instances start from lbd's and the track
	 * files' real state rather than a second later */
	return sd_event_add_time_relative(
		d->e, &d->track_timer, CLOCK_MONOTONIC, 0, 100000, on_poll, d);
}

void track_teardown(struct vipd *d)
{
	size_t i;

	d->track_timer = sd_event_source_disable_unref(d->track_timer);
	for (i = 0; i < d->nscripts; i++) {
		struct vipd_script_rt *sr = d->scripts[i];

		sd_event_source_disable_unref(sr->timer);
		cpha_spawn_cancel(sr->running);
		vipd_free_words(sr->argv);
		free(sr->name);
		free(sr);
	}
	free(d->scripts);
	d->scripts = NULL;
	d->nscripts = 0;
}

static int add_tracks(struct vipd_inst *in, const struct vipd_track *t, size_t n, char kind)
{
	struct vipd_track_state *ts;
	size_t i;

	for (i = 0; i < n; i++) {
		ts = realloc(in->tracks, (in->ntracks + 1) * sizeof(*ts));
		if (!ts)
			return -ENOMEM;
		in->tracks = ts;
		ts = &in->tracks[in->ntracks++];
		memset(ts, 0, sizeof(*ts));
		ts->cfg = &t[i];
		switch (kind) {
		case 's':
			ts->script = script_find(in->d, t[i].name);
			break;
		case 'i':
			ts->ifindex = (int)if_nametoindex(t[i].name);
			ts->up = ts->ifindex && vipd_nl_link_up(ts->ifindex);
			if (!ts->ifindex)
				ts->ifindex = -1; /* missing: down */
			break;
		case 'f': {
			const struct vipd_track_file_def *f =
				vipd_cfg_track_file(in->d->cfg, t[i].name);

			ts->file_value = f ? read_track_file(f->path) : 0;
			break;
		}
		case 'l':
			ts->up = lbd_healthy(&t[i]);
			break;
		case 'b':
			ts->up = bfd_up(in->d, t[i].name);
			break;
		case 'p': {
			const struct vipd_track_process_def *p =
				vipd_cfg_track_process(in->d->cfg, t[i].name);
			unsigned running = 0;

			/* the state at start counts at once, without the delays */
			if (p && track_process_count(p, 1, &running) == 0)
				ts->up = track_process_quorum(p, running);
			break;
		}
		}
	}
	return 0;
}

int track_attach(struct vipd_inst *in)
{
	const struct vipd_instance *c = in->cfg;
	int r;

	r = add_tracks(in, c->track_script, c->ntrack_script, 's');
	if (r == 0)
		r = add_tracks(in, c->track_interface, c->ntrack_interface, 'i');
	if (r == 0)
		r = add_tracks(in, c->track_file, c->ntrack_file, 'f');
	if (r == 0)
		r = add_tracks(in, c->track_lbd, c->ntrack_lbd, 'l');
	if (r == 0)
		r = add_tracks(in, c->track_process, c->ntrack_process, 'p');
	if (r == 0)
		r = add_tracks(in, c->track_bfd, c->ntrack_bfd, 'b');
	/* a sync group's tracking applies to each of its members */
	for (size_t g = 0; r == 0 && c->sync_group && g < in->d->cfg->ngroups; g++) {
		const struct vipd_sync_group *sg = &in->d->cfg->groups[g];

		if (strcmp(sg->name, c->sync_group) != 0)
			continue;
		r = add_tracks(in, sg->track_script, sg->ntrack_script, 's');
		if (r == 0)
			r = add_tracks(in, sg->track_interface, sg->ntrack_interface, 'i');
		if (r == 0)
			r = add_tracks(in, sg->track_file, sg->ntrack_file, 'f');
		if (r == 0)
			r = add_tracks(in, sg->track_process, sg->ntrack_process, 'p');
		if (r == 0)
			r = add_tracks(in, sg->track_bfd, sg->ntrack_bfd, 'b');
	}
	if (r == 0 && c->fenced_socket)
		fenced_poll(in);
	/* the instance's own interface going down is a fault (keepalived) */
	if (r == 0) {
		struct vipd_track_state *ts = realloc(in->tracks, (in->ntracks + 1) * sizeof(*ts));

		if (!ts)
			return -ENOMEM;
		in->tracks = ts;
		ts = &in->tracks[in->ntracks++];
		memset(ts, 0, sizeof(*ts));
		ts->ifindex = in->ifindex;
		ts->up = vipd_nl_link_up(in->ifindex);
	}
	return r;
}

void track_evaluate(const struct vipd_inst *in, int *priority, bool *fault)
{
	const struct vipd_instance *c = in->cfg;
	int prio = (int)c->priority;
	size_t i;

	*fault = false;
	for (i = 0; i < in->ntracks; i++) {
		const struct vipd_track_state *t = &in->tracks[i];
		const struct vipd_track *tc = t->cfg;
		int w;

		if (!tc) { /* the instance's interface, and our address on it */
			if ((!t->up && !c->dont_track_primary) || !in->src_ready)
				*fault = true;
			continue;
		}
		if (t->script) {
			const struct vipd_script *sc = t->script->cfg;
			bool ok = t->script->ok;

			w = tc->weight_set ? tc->weight : sc->weight;
			if (tc->weight_set ? tc->weight_reverse : sc->weight_reverse)
				ok = !ok, w = -w;
			if (w == 0) {
				if (!ok)
					*fault = true;
			} else if (w > 0 && ok) {
				prio += w; /* keepalived: positive weights add on success */
			} else if (w < 0 && !ok) {
				prio += w; /* negative weights subtract on failure */
			}
		} else if (t->ifindex) {
			w = tc->weight_set ? tc->weight : 0;
			if (w == 0) {
				if (!t->up)
					*fault = true;
			} else if (w > 0 && t->up) {
				prio += w;
			} else if (w < 0 && !t->up) {
				prio += w;
			}
		} else if (tc->process || tc->bfd) {
			/* the definition's weight, or the entry's (cfg_instance.c);
			 * track_bfd: a session Up is success (keepalived) */
			bool ok = t->up;

			w = tc->weight;
			if (tc->weight_reverse)
				ok = !ok, w = -w;
			if (w == 0) {
				if (!ok)
					*fault = true;
			} else if (w > 0 && ok) {
				prio += w;
			} else if (w < 0 && !ok) {
				prio += w;
			}
		} else if (tc->lbd_socket) {
			w = tc->weight_set ? tc->weight : 0;
			if (!t->up) {
				if (w == 0)
					*fault = true;
				else
					prio -= w < 0 ? -w : w;
			}
		} else {
			/* track file: value times weight; 0 weight with a non-zero
			 * value is a fault (keepalived) */
			const struct vipd_track_file_def *f =
				vipd_cfg_track_file(in->d->cfg, tc->name);

			w = tc->weight_set ? tc->weight : (f ? f->weight : 1);
			if (tc->weight_set && tc->weight_reverse)
				w = -w;
			if (w == 0) {
				if (t->file_value)
					*fault = true;
			} else {
				prio += (int)(t->file_value * w);
			}
		}
	}
	/* fenced says no quorum: no MASTER here (an fenced that does not
	 * answer only holds takeovers: dropping the VIP for it would be an
	 * outage caused by a safety check) */
	if (c->fenced_socket && in->fenced_known && !in->fenced_quorate)
		*fault = true;
	if (c->priority == 255)
		prio = 255; /* the owner stays the owner */
	else if (prio < 1)
		prio = 1;
	else if (prio > 254)
		prio = 254;
	*priority = prio;
}

void track_netlink_link(struct vipd *d, int ifindex, bool up)
{
	size_t i, j;

	for (i = 0; i < d->ninst; i++) {
		struct vipd_inst *in = d->inst[i];
		bool changed = false;

		for (j = 0; j < in->ntracks; j++) {
			struct vipd_track_state *t = &in->tracks[j];

			if (t->ifindex == ifindex && t->up != up && !t->script) {
				t->up = up;
				changed = true;
			}
		}
		if (changed) {
			log_notice("instance %s: interface index %d is %s", in->name, ifindex,
				up ? "up" : "down");
			inst_track_changed(in);
		}
	}
}
