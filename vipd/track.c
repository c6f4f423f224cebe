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
#include "command.h"
#include "log.h"
#include "spawn.h"
#include "track_process.h"
#include "vipd.h"

#define TRACK_POLL_USEC 1000000ULL /* track files and lbd, once a second */
#define LBD_QUERY_USEC  500000ULL  /* a question lbd has not answered in this is unanswered */

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

static void tracks_of_script_changed(struct vipd *d, const struct vipd_script_rt *sr)
{
	size_t i, j;

	for (i = 0; i < d->ninst; i++)
		for (j = 0; j < d->inst[i]->ntracks; j++)
			if (d->inst[i]->tracks[j].script == sr) {
				d->up.track_changed(d->inst[i]);
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
			tracks_of_script_changed(sr->d, sr);
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

/* track_lbd: does lbd's "show stat json" reply (NULL: none) say the
 * backend is served by at least min_up usable servers? */
bool track_lbd_healthy(const char *reply, const char *backend, unsigned min_up)
{
	json_t *j, *backends, *b;
	size_t i;
	bool ok = false;

	if (!reply || !(j = json_loads(reply, 0, NULL)))
		return false;
	backends = json_object_get(j, "backends");
	json_array_foreach(backends, i, b)
	{
		const char *name = json_string_value(json_object_get(b, "backend"));
		json_int_t act = json_integer_value(json_object_get(b, "active_servers"));

		if (name && strcmp(name, backend) == 0)
			ok = act >= (json_int_t)min_up;
	}
	json_decref(j);
	return ok;
}

/* Ask lbd in line: only when tracking is attached, so an instance starts
 * from lbd's real state. */
static bool lbd_healthy_now(const struct vipd_track *t)
{
	char *reply = NULL;
	bool ok = false;

	if (cpha_admin_query(t->lbd_socket, "show stat json", LBD_QUERY_USEC, &reply) == 0)
		ok = track_lbd_healthy(reply, t->name, t->lbd_min_up);
	free(reply);
	return ok;
}

/* track_lbd after one question to lbd: r is the question's outcome (0: the
 * reply; -ETIMEDOUT: no answer within LBD_QUERY_USEC; anything else: no lbd
 * on the socket, or the connection broke). An answer counts at once, and so
 * does a socket nobody listens on: that lbd is not running. A question left
 * unanswered counts only once LBD_UNANSWERED_DOWN in a row have been: an lbd
 * busy with a reload, or a loaded machine, still forwards, and giving the
 * VIP up would cause the outage the track is there to avoid (HAProxy's
 * "fall 3"). *unanswered counts them. Returns whether the track is up. */
bool track_lbd_step(bool up, unsigned *unanswered, int r, const char *reply, const char *backend,
	unsigned min_up)
{
	if (r == -ETIMEDOUT) {
		if (*unanswered < LBD_UNANSWERED_DOWN)
			(*unanswered)++;
		return *unanswered >= LBD_UNANSWERED_DOWN ? false : up;
	}
	*unanswered = 0;
	return r >= 0 && track_lbd_healthy(reply, backend, min_up);
}

static void lbd_answered(void *userdata, int r, char *reply)
{
	struct vipd_track_state *t = userdata;
	struct vipd_inst *in = t->in;
	unsigned before = t->lbd_unanswered;
	bool up = track_lbd_step(
		t->up, &t->lbd_unanswered, r, reply, t->cfg->name, t->cfg->lbd_min_up);

	free(reply);
	t->lbd_req = NULL;
	if (t->lbd_unanswered > before && up)
		log_warn("instance %s: lbd did not answer within %llu ms (%u in a row; "
			 "%u make backend %s unhealthy)",
			in->name, LBD_QUERY_USEC / 1000, t->lbd_unanswered, LBD_UNANSWERED_DOWN,
			t->cfg->name);
	if (up == t->up)
		return;
	if (!up && t->lbd_unanswered >= LBD_UNANSWERED_DOWN)
		log_notice("instance %s: lbd backend %s is not healthy: lbd did not answer "
			   "%u questions in a row",
			in->name, t->cfg->name, t->lbd_unanswered);
	else
		log_notice("instance %s: lbd backend %s is %s", in->name, t->cfg->name,
			up ? "healthy" : "not healthy enough");
	t->up = up;
	in->d->up.track_changed(in);
}

/* Ask lbd without waiting (the VRRP loop never blocks on it); the answer
 * comes to lbd_answered(). One question out at a time: an lbd that has not
 * answered the last one is not asked again until it does or times out. */
static void lbd_ask(struct vipd_track_state *t)
{
	int r;

	if (t->lbd_req)
		return;
	r = cpha_admin_query_async(t->in->d->e, t->cfg->lbd_socket, "show stat json",
		LBD_QUERY_USEC, lbd_answered, t, &t->lbd_req);
	if (r < 0)
		lbd_answered(t, r, NULL);
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
				lbd_ask(t);
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
		if (changed)
			in->d->up.track_changed(in);
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

/* The tracks an instance had before a reload (track_reattach). */
struct track_carry {
	const struct vipd_track_state *old;
	size_t n;
};

/* A track_lbd of the old configuration asking the same lbd the same thing. */
static const struct vipd_track_state *carried_lbd(
	const struct track_carry *carry, const struct vipd_track *t)
{
	size_t i;

	for (i = 0; carry && i < carry->n; i++) {
		const struct vipd_track *o = carry->old[i].cfg;

		if (o && o->lbd_socket && strcmp(o->lbd_socket, t->lbd_socket) == 0 &&
			strcmp(o->name, t->name) == 0 && o->lbd_min_up == t->lbd_min_up)
			return &carry->old[i];
	}
	return NULL;
}

static int add_tracks(struct vipd_inst *in, const struct vipd_track *t, size_t n, char kind,
	const struct track_carry *carry)
{
	const struct vipd_track_state *was;
	struct vipd_track_state *ts;
	size_t i;

	for (i = 0; i < n; i++) {
		ts = realloc(in->tracks, (in->ntracks + 1) * sizeof(*ts));
		if (!ts)
			return -ENOMEM;
		in->tracks = ts;
		ts = &in->tracks[in->ntracks++];
		memset(ts, 0, sizeof(*ts));
		ts->in = in;
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
			/* kept across a reload: lbd, perhaps reloading at this
			 * very moment, is asked at the next poll, not in line */
			if ((was = carried_lbd(carry, &t[i]))) {
				ts->up = was->up;
				ts->lbd_unanswered = was->lbd_unanswered;
			} else {
				ts->up = lbd_healthy_now(&t[i]);
			}
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

void track_detach(struct vipd_inst *in)
{
	size_t i;

	for (i = 0; i < in->ntracks; i++)
		cpha_admin_req_cancel(in->tracks[i].lbd_req);
	free(in->tracks);
	in->tracks = NULL;
	in->ntracks = 0;
}

static int attach(struct vipd_inst *in, const struct track_carry *carry)
{
	const struct vipd_instance *c = in->cfg;
	int r;

	r = add_tracks(in, c->track_script, c->ntrack_script, 's', carry);
	if (r == 0)
		r = add_tracks(in, c->track_interface, c->ntrack_interface, 'i', carry);
	if (r == 0)
		r = add_tracks(in, c->track_file, c->ntrack_file, 'f', carry);
	if (r == 0)
		r = add_tracks(in, c->track_lbd, c->ntrack_lbd, 'l', carry);
	if (r == 0)
		r = add_tracks(in, c->track_process, c->ntrack_process, 'p', carry);
	if (r == 0)
		r = add_tracks(in, c->track_bfd, c->ntrack_bfd, 'b', carry);
	/* a sync group's tracking applies to each of its members */
	for (size_t g = 0; r == 0 && c->sync_group && g < in->d->cfg->ngroups; g++) {
		const struct vipd_sync_group *sg = &in->d->cfg->groups[g];

		if (strcmp(sg->name, c->sync_group) != 0)
			continue;
		r = add_tracks(in, sg->track_script, sg->ntrack_script, 's', carry);
		if (r == 0)
			r = add_tracks(in, sg->track_interface, sg->ntrack_interface, 'i', carry);
		if (r == 0)
			r = add_tracks(in, sg->track_file, sg->ntrack_file, 'f', carry);
		if (r == 0)
			r = add_tracks(in, sg->track_process, sg->ntrack_process, 'p', carry);
		if (r == 0)
			r = add_tracks(in, sg->track_bfd, sg->ntrack_bfd, 'b', carry);
	}
	if (r == 0)
		fenced_link_attach(in);
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

int track_attach(struct vipd_inst *in)
{
	return attach(in, NULL);
}

int track_reattach(struct vipd_inst *in)
{
	struct track_carry carry = { in->tracks, in->ntracks };
	size_t i;
	int r;

	for (i = 0; i < carry.n; i++) {
		cpha_admin_req_cancel(in->tracks[i].lbd_req);
		in->tracks[i].lbd_req = NULL;
	}
	in->tracks = NULL;
	in->ntracks = 0;
	r = attach(in, &carry);
	free((void *)carry.old);
	return r;
}

void track_evaluate(const struct vipd_inst *in, int *priority, bool *fault, bool *planned)
{
	bool other = false, asked = false; /* a fault from elsewhere; from a track_file */
	const struct vipd_instance *c = in->cfg;
	int prio = (int)c->priority;
	size_t i;

	for (i = 0; i < in->ntracks; i++) {
		const struct vipd_track_state *t = &in->tracks[i];
		const struct vipd_track *tc = t->cfg;
		int w;

		if (!tc) { /* the instance's interface, and our address on it */
			if ((!t->up && !c->dont_track_primary) || !in->src_ready)
				other = true;
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
					other = true;
			} else if (w > 0 && ok) {
				prio += w; /* keepalived: positive weights add on success */
			} else if (w < 0 && !ok) {
				prio += w; /* negative weights subtract on failure */
			}
		} else if (t->ifindex) {
			w = tc->weight_set ? tc->weight : 0;
			if (w == 0) {
				if (!t->up)
					other = true;
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
					other = true;
			} else if (w > 0 && ok) {
				prio += w;
			} else if (w < 0 && !ok) {
				prio += w;
			}
		} else if (tc->lbd_socket) {
			w = tc->weight_set ? tc->weight : 0;
			if (!t->up) {
				if (w == 0)
					other = true;
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
					asked = true;
			} else {
				prio += (int)(t->file_value * w);
			}
		}
	}
	/* fenced says no quorum: no MASTER here (an fenced that does not
	 * answer only holds takeovers: dropping the VIP for it would be an
	 * outage caused by a safety check) */
	if (c->fenced_socket && in->fenced.g.known && !in->fenced.g.quorate)
		other = true;
	*fault = other || asked;
	if (planned)
		*planned = asked && !other;
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
			in->d->up.track_changed(in);
		}
	}
}
