/* ocf:cpha:etcd — one etcd member per master, run as a Pacemaker clone
 * (interleave, notify). Membership goes through etcd's v3 JSON gateway
 * (libcurl + jansson); the decisions are etcd_member.c's. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <jansson.h>

#include "buf.h"
#include "etcd_agent.h"
#include "etcd_api.h"
#include "etcd_cib.h"
#include "etcd_params.h"
#include "etcd_setup.h"
#include "etcd_member.h"
#include "etcd_parse.h"
#include "etcd_record.h"
#include "log.h"
#include "ocf.h"
#include "ocf_args.h"
#include "ocf_proc.h"
#include "ocf_urls.h"
#include "quorum.h"

#define ETCD_TRIES 3 /* /health probes before the monitor calls it failed */

/* --------------------------------------------------------------- start -- */

static bool data_dir_has_member(const struct etcd *e)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/member", e->data_dir);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* What the start decides from: the data dir, a healthy member's list and
 * the health of every member, the notify variables. */
static void gather(struct etcd *e, struct etcd_members *l, bool *reachable)
{
	struct api_res res = { 0 };
	size_t i;

	*reachable = false;
	free(e->via);
	e->via = NULL;
	for (i = 0; i < e->map.n && !*reachable; i++) {
		const struct etcd_node *n = &e->map.v[i];

		if (n == e->me || ocf_left(e->c) == 0)
			continue;
		if (etcd_api_health(e, n->client_url, etcd_api_timeout(e, ETCD_PROBE_USEC), &res) !=
			1)
			continue;
		if (etcd_api_member_list(e, n->client_url, l, &res) < 0) {
			char err[300];

			log_info("member %s is healthy but its member list failed: %s", n->name,
				etcd_api_error(&res, err, sizeof(err)));
			continue;
		}
		e->via = strdup(n->client_url);
		*reachable = e->via != NULL;
		if (!*reachable)
			etcd_members_free(l);
	}
	cpha_buf_free(&res.body);
	if (*reachable)
		etcd_api_probe_members(e, l, e->via);
}

/* Start the daemon with the command line built. */
static int launch(struct etcd *e, pid_t *pid)
{
	int r;

	r = ocf_mkdir_p(e->data_dir, 0700);
	if (r < 0)
		return ocf_fail(
			PCMK_OCF_INSUFFICIENT_PRIV, "data_dir %s: %s", e->data_dir, strerror(-r));
	chmod(e->data_dir, 0700);
	e->log_start = ocf_file_size(e->logfile);
	r = ocf_daemon_start(&e->d, pid);
	if (r == -ENOENT || r == -EACCES || r == -ENOEXEC)
		return ocf_fail(
			PCMK_OCF_NOT_INSTALLED, "cannot run %s: %s", e->binary, strerror(-r));
	if (r < 0)
		return ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "starting %s: %s", e->binary, strerror(-r));
	log_info("started etcd (pid %d) as member %s, log %s", (int)*pid, e->name, e->logfile);
	return PCMK_OCF_OK;
}

static int died(struct etcd *e, pid_t pid)
{
	char text[8192], last[512];
	int st;

	ocf_pid_wait_gone(pid, ocf_now(), &st);
	/* the line that says why, not the last one (a flag error is followed
	 * by etcd's usage text), without its timestamp: Pacemaker keeps 128
	 * characters of the reason */
	ocf_tail_text(e->logfile, e->log_start, text, sizeof(text));
	etcd_log_reason(text, last, sizeof(last));
	unlink(e->pidfile);
	if (st != -1 && WIFEXITED(st))
		return ocf_fail(PCMK_OCF_UNKNOWN_ERROR,
			"etcd exited with status %d during start: %s", WEXITSTATUS(st),
			str_or(last, "(empty log)"));
	return ocf_fail(
		PCMK_OCF_UNKNOWN_ERROR, "etcd died during start: %s", str_or(last, "(empty log)"));
}

/* Promote this learner through another member (a learner serves neither
 * the member list nor promote; a voter forwards it to the leader):
 * 1 promoted, 0 not yet (catching up), -1 could not ask. */
static int promote(struct etcd *e, uint64_t self, char *why, size_t len)
{
	struct api_res res = { 0 };
	size_t i;
	int rc = -1;

	snprintf(why, len, "no other member answers");
	for (i = 0; i < e->map.n && rc == -1; i++) {
		const struct etcd_node *n = &e->map.v[i];

		if (n == e->me || ocf_left(e->c) == 0)
			continue;
		if (etcd_api_cluster_call(e, n->client_url, "/v3/cluster/member/promote",
			    etcd_api_id_body(self), &res) == 0) {
			log_notice("member %s (%" PRIx64 ") promoted from learner to voting "
				   "member through %s",
				e->name, self, n->client_url);
			rc = 1;
			break;
		}
		etcd_api_error(&res, why, len);
		/* 412 "can only promote a learner member which is in sync with
		 * leader": asked the right one, not yet */
		if (res.status == 412)
			rc = 0;
	}
	cpha_buf_free(&res.body);
	return rc;
}

/* After etcd was started (or found running): healthy, and a voter. may_wait:
 * a member that restarted with its data or bootstraps ends the start still
 * waiting for a majority of its cluster (the other members come later)
 * after ETCD_MAJORITY_WAIT_USEC, or at the end of the timeout: a restart
 * would not help, monitor reports it degraded. */
static int wait_member(struct etcd *e, pid_t pid, bool may_wait)
{
	struct api_res res = { 0 };
	struct etcd_status st;
	char detail[300] = "no answer yet", why[300] = "";
	const char *perr;
	bool learner_seen = false, waiting = false;
	uint64_t waiting_since = 0;
	int h, p, rc;

	for (;;) {
		if (!ocf_pid_alive(pid)) {
			rc = died(e, pid);
			break;
		}
		/* etcd serves clients only once it has joined its cluster; its
		 * peer URL tells whether it still waits for a majority */
		p = etcd_api_peer_version(e, &res);
		if (p == 0) {
			if (!waiting)
				waiting_since = ocf_now();
			waiting = true;
			snprintf(detail, sizeof(detail),
				"waiting for a majority of its cluster (the peer URL answers, no "
				"cluster decided yet)");
			h = -EAGAIN;
		} else {
			if (p == 1)
				waiting = false;
			h = etcd_api_health(
				e, e->me->client_url, etcd_api_timeout(e, ETCD_PROBE_USEC), &res);
			if (h < 0)
				snprintf(detail, sizeof(detail), "%s", res.error);
			else if (h == 0)
				snprintf(detail, sizeof(detail), "/health: %.200s", res.body.data);
		}
		if (h == 1 &&
			etcd_api_call(e, e->me->client_url, "/v3/maintenance/status", "{}",
				etcd_api_timeout(e, ETCD_CALL_USEC), &res) == 0 &&
			res.status == 200 && etcd_status_parse(res.body.data, &st, &perr) == 0) {
			e->cluster_id = st.cluster_id;
			if (!st.learner) {
				log_info("member %s (%" PRIx64 ") is healthy%s (etcd %s, pid %d)",
					e->name, st.member_id,
					learner_seen ? " and a voting member" : "", st.version,
					(int)pid);
				rc = PCMK_OCF_OK;
				break;
			}
			if (!learner_seen)
				log_info("member %s (%" PRIx64 ") runs as a learner; promoting it "
					 "once it has caught up",
					e->name, st.member_id);
			learner_seen = true;
			p = promote(e, st.member_id, why, sizeof(why));
			if (p == 1)
				continue; /* check the status once more */
			snprintf(detail, sizeof(detail), "a learner, not promoted yet: %s", why);
		}
		if (may_wait && waiting && ocf_now() - waiting_since >= ETCD_MAJORITY_WAIT_USEC) {
			log_warn("member %s is still %s after %u s: the start ends here, so that "
				 "the other members can start too; it joins when a majority runs "
				 "(monitor: degraded until then)",
				e->name, detail, ETCD_MAJORITY_WAIT_USEC / 1000000U);
			rc = PCMK_OCF_OK;
			break;
		}
		if (!ocf_sleep(e->c, 500000)) {
			if (learner_seen && ocf_pid_alive(pid)) {
				/* it runs and catches up: monitor promotes it later */
				log_warn("member %s is still a learner at the end of the start "
					 "timeout (%s); monitor promotes it",
					e->name, why);
				rc = PCMK_OCF_OK;
			} else if (may_wait && waiting && ocf_pid_alive(pid)) {
				log_warn("member %s is still %s at the end of the start timeout; "
					 "it joins when a majority runs (monitor: degraded until "
					 "then)",
					e->name, detail);
				rc = PCMK_OCF_OK;
			} else {
				rc = ocf_fail(PCMK_OCF_UNKNOWN_ERROR,
					"etcd member %s not healthy within the start timeout: %s",
					e->name, detail);
			}
			break;
		}
	}
	cpha_buf_free(&res.body);
	return rc;
}

/* Move the data of a removed member out of etcd's way (kept, not deleted). */
static int discard_data(struct etcd *e)
{
	char from[PATH_MAX], to[PATH_MAX];

	snprintf(from, sizeof(from), "%s/member", e->data_dir);
	snprintf(to, sizeof(to), "%s/member.removed-%ld", e->data_dir, (long)time(NULL));
	if (rename(from, to) == -1)
		return ocf_fail(
			PCMK_OCF_UNKNOWN_ERROR, "moving %s aside: %s", from, strerror(errno));
	log_warn("moved the data of removed member %s to %s", e->name, to);
	return PCMK_OCF_OK;
}

static int do_remove(struct etcd *e, const struct etcd_member *m)
{
	struct api_res res = { 0 };
	char err[300];
	int r;

	r = etcd_api_cluster_call(
		e, e->via, "/v3/cluster/member/remove", etcd_api_id_body(m->id), &res);
	if (r == 0)
		log_notice("removed member %s (%" PRIx64 ", %s) through %s", str_or(m->name, "-"),
			m->id, m->peer_urls.n ? m->peer_urls.v[0] : "?", e->via);
	else
		log_warn("removing member %" PRIx64 ": %s", m->id,
			etcd_api_error(&res, err, sizeof(err)));
	cpha_buf_free(&res.body);
	return r;
}

/* member add through e->via; the new list's --initial-cluster in *initial. */
static int do_join(struct etcd *e, char **initial)
{
	struct etcd_members l = { 0 };
	struct api_res res = { 0 };
	bool learner = true;
	const char *why;
	char err[300];
	json_t *body;
	uint64_t id = 0;
	int r;

	ocf_get_bool(e->c, "join_as_learner", &learner);
	body = json_pack("{s:[s],s:b}", "peerURLs", e->me->peer_url, "isLearner", learner);
	r = etcd_api_cluster_call(e, e->via, "/v3/cluster/member/add", body, &res);
	if (r < 0) {
		log_warn("member add %s: %s", e->me->peer_url,
			etcd_api_error(&res, err, sizeof(err)));
		goto out;
	}
	if (etcd_added_id(res.body.data, &id, &why) < 0 ||
		etcd_members_parse(res.body.data, &l, &why) < 0) {
		log_warn("member add: unexpected answer (%s): %.200s", str_or(why, "no memory"),
			res.body.data);
		r = -1;
		goto out;
	}
	log_notice("added member %s (%" PRIx64 ") at %s as a %s through %s", e->name, id,
		e->me->peer_url, learner ? "learner" : "voting member", e->via);
	*initial = etcd_initial_cluster_members(&l, &e->map);
	r = *initial ? 0 : -1;
out:
	etcd_members_free(&l);
	cpha_buf_free(&res.body);
	return r;
}

static bool notify_known(const struct ocf_ctx *c)
{
	char key[] = "OCF_RESKEY_CRM_meta_notify_start_uname";

	return ocf_env(c, key) != NULL;
}

/* One plan carried out: PCMK_OCF_OK after a launch (*pid set), -1 to
 * gather again, or an OCF code to return. */
static int carry_out(
	struct etcd *e, const struct etcd_decision *d, struct etcd_members *l, pid_t *pid)
{
	char *initial = NULL;
	const char *state = NULL;
	int rc = -1;

	switch (d->plan) {
	case ETCD_PLAN_WAIT:
		return ocf_sleep(e->c, 1000000)
			       ? -1
			       : ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "start timed out: %s", d->why);
	case ETCD_PLAN_REFUSE:
		return ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "%s", d->why);
	case ETCD_PLAN_DISCARD:
		rc = discard_data(e);
		return rc == PCMK_OCF_OK ? -1 : rc;
	case ETCD_PLAN_REMOVE:
		if (do_remove(e, &l->v[d->target]) < 0)
			ocf_sleep(e->c, 1000000);
		return -1;
	case ETCD_PLAN_BOOTSTRAP:
		initial = etcd_initial_cluster_map(&e->map, &d->initial);
		state = "new";
		break;
	case ETCD_PLAN_RESTART:
		/* etcd reads its membership from the data; the flags only need to agree */
		initial = etcd_initial_cluster_map(&e->map, NULL);
		break;
	case ETCD_PLAN_START_LISTED:
		initial = etcd_initial_cluster_members(l, &e->map);
		state = "existing";
		break;
	case ETCD_PLAN_JOIN:
		if (do_join(e, &initial) < 0)
			return ocf_sleep(e->c, 1000000)
				       ? -1
				       : ocf_fail(PCMK_OCF_UNKNOWN_ERROR,
						 "member add of %s failed until the start "
						 "timeout (the log says why)",
						 e->name);
		state = "existing";
		break;
	}
	if (!initial || etcd_build_argv(e, initial, state) < 0) {
		free(initial);
		return ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
	}
	log_info("--initial-cluster=%s%s%s", initial, state ? " --initial-cluster-state=" : "",
		state ? state : "");
	free(initial);
	return launch(e, pid);
}

static int etcd_stop(struct etcd *e);

/* After a member runs: its cluster recorded when there is no record; when
 * it runs in another cluster than the one recorded meanwhile (another
 * bootstrap won the record), a member this start launched is stopped. */
static int id_after_start(struct etcd *e, bool launched)
{
	char why[512];
	int rc;

	if (etcd_cib_after(e, e->cluster_id, why, sizeof(why)) != ETCD_ID_DIFFERS)
		return PCMK_OCF_OK;
	if (!launched) {
		log_warn("%s", why);
		return PCMK_OCF_OK;
	}
	log_err("%s; stopping member %s", why, e->name);
	rc = etcd_stop(e);
	if (rc != PCMK_OCF_OK)
		return rc;
	return ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "%s", why);
}

static int etcd_start(struct etcd *e)
{
	struct etcd_id_round idr = { 0 };
	struct etcd_id_decision g;
	struct etcd_decision d;
	struct etcd_members l = { 0 };
	struct etcd_view v = { 0 };
	char last[sizeof(d.why)] = "", why[512], last_size[sizeof(why)] = "";
	char last_id[sizeof(g.why)] = "";
	enum etcd_size_verdict sv;
	bool reachable;
	pid_t pid;
	int rc, r;

	rc = etcd_validate(e);
	if (rc != PCMK_OCF_OK)
		return rc;
	if (ocf_daemon_running(&e->d, &pid)) {
		log_info("etcd already running (pid %d)", (int)pid);
		if (etcd_size_gate(&e->size, e->name, NULL, NULL, why, sizeof(why)) != ETCD_SIZE_GO)
			log_warn("%s", why);
		rc = wait_member(e, pid, true);
		return rc == PCMK_OCF_OK ? id_after_start(e, false) : rc;
	}
	r = ocf_mkdir_p(ocf_get(e->c, "piddir"), 0755);
	if (r < 0)
		return ocf_fail(PCMK_OCF_INSUFFICIENT_PRIV, "piddir %s: %s",
			ocf_get(e->c, "piddir"), strerror(-r));
	{
		char dir[PATH_MAX], *slash;

		snprintf(dir, sizeof(dir), "%s", e->logfile);
		slash = strrchr(dir, '/');
		if (slash && slash != dir) {
			*slash = '\0';
			ocf_mkdir_p(dir, 0750);
		}
	}
	v.node = e->c->node;
	v.name = e->name;
	v.peer_url = e->me->peer_url;
	v.map = &e->map;
	v.members = &l;
	v.notify_known = notify_known(e->c);
	v.active = &e->c->notify.uname[OCF_NS_ACTIVE];
	v.stopping = &e->c->notify.uname[OCF_NS_STOP];
	v.starting = &e->c->notify.uname[OCF_NS_START];
	if (v.notify_known)
		log_debug("notify: active [%zu] start [%zu] stop [%zu]", v.active->n, v.starting->n,
			v.stopping->n);
	for (;;) {
		v.has_data = data_dir_has_member(e);
		gather(e, &l, &reachable);
		v.reachable = reachable;
		if (etcd_decide(&v, &d) < 0) {
			etcd_members_free(&l);
			etcd_id_round_free(&idr);
			return ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
		}
		if (strcmp(last, d.why) != 0)
			log_info("start: %s: %s", etcd_plan_name(d.plan), d.why);
		snprintf(last, sizeof(last), "%s", d.why);
		sv = etcd_size_gate(&e->size, e->name, &v, &d, why, sizeof(why));
		if (sv == ETCD_SIZE_NO_JOIN || sv == ETCD_SIZE_NO_BOOTSTRAP) {
			/* this node only: OCF_ERR_CONFIGURED would stop every
			 * member of the clone, and the ones that run are fine */
			ocf_strv_free(&d.initial);
			etcd_members_free(&l);
			etcd_id_round_free(&idr);
			return ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "%s", why);
		}
		if (*why && strcmp(last_size, why) != 0)
			log_warn("%s", why);
		snprintf(last_size, sizeof(last_size), "%s", why);
		etcd_cib_gate(e, &idr, &v, &d, &l, &g);
		if (strcmp(last_id, g.why) != 0)
			log_info(
				"start: cluster ID %s: %s", etcd_id_verdict_name(g.verdict), g.why);
		snprintf(last_id, sizeof(last_id), "%s", g.why);
		if (g.verdict == ETCD_ID_GO) {
			rc = carry_out(e, &d, &l, &pid);
		} else if (g.verdict == ETCD_ID_WAIT) {
			rc = ocf_sleep(e->c, 1000000) ? -1
						      : ocf_fail(PCMK_OCF_UNKNOWN_ERROR,
								"start timed out: %s", g.why);
		} else {
			rc = etcd_cib_refuse(&g);
		}
		ocf_strv_free(&d.initial);
		etcd_members_free(&l);
		if (rc == -1)
			continue;
		etcd_id_round_free(&idr);
		if (rc != PCMK_OCF_OK)
			return rc;
		rc = wait_member(
			e, pid, d.plan == ETCD_PLAN_RESTART || d.plan == ETCD_PLAN_BOOTSTRAP);
		return rc == PCMK_OCF_OK ? id_after_start(e, true) : rc;
	}
}

/* ------------------------------------------------------ stop, monitor -- */

static int etcd_stop(struct etcd *e)
{
	uint64_t now = ocf_now(), left = ocf_left(e->c), reserve;

	/* a tenth of the budget (1 to 5 s) for SIGKILL and its wait; etcd hands
	 * its leadership over on SIGTERM */
	reserve = ocf_kill_reserve_usec(left);
	if (ocf_daemon_stop(&e->d, SIGTERM, now + left - reserve, now + left) < 0)
		return ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "etcd still running after SIGKILL");
	return PCMK_OCF_OK;
}

/* The leader's upkeep: one dead member outside the map removed. */
static void reconcile(struct etcd *e, uint64_t self, struct etcd_members *l)
{
	char why[512];
	ssize_t i;
	size_t j;
	bool outside = false;

	for (j = 0; j < l->n; j++) {
		bool in = false;
		size_t k;

		for (k = 0; k < l->v[j].peer_urls.n; k++)
			in = in || etcd_map_find_peer(&e->map, l->v[j].peer_urls.v[k]);
		outside = outside || !in;
	}
	if (!outside)
		return;
	etcd_api_probe_members(e, l, e->me->client_url);
	i = etcd_reconcile(l, &e->map, self, why, sizeof(why));
	if (i < 0) {
		if (*why)
			log_warn("%s", why);
		return;
	}
	free(e->via);
	e->via = strdup(e->me->client_url);
	if (e->via)
		do_remove(e, &l->v[i]);
}

/* A healthy member under an even size: OCF_DEGRADED with the fix, never an
 * error (the member is fine, the configuration is not, and a failure here
 * would restart or stop members that keep the cluster's quorum). */
static int size_report(struct etcd *e)
{
	char why[512];
	bool allow = false;

	/* a bad value was refused by the start; false is the safe reading */
	if (ocf_parse_bool(ocf_get(e->c, "allow_even"), &allow) < 0)
		allow = false;
	etcd_size_check(&e->c->clone, e->map.n, allow, &e->size);
	if (etcd_size_gate(&e->size, e->name, NULL, NULL, why, sizeof(why)) == ETCD_SIZE_GO)
		return PCMK_OCF_OK;
	return ocf_degraded("%s", why);
}

static int etcd_monitor(struct etcd *e)
{
	struct etcd_members l = { 0 };
	struct api_res res = { 0 };
	struct etcd_status st;
	char detail[300] = "", why[300];
	const char *perr;
	int i, h = -1, rc = PCMK_OCF_OK, p;
	pid_t pid;

	if (!ocf_daemon_running(&e->d, &pid))
		return PCMK_OCF_NOT_RUNNING;
	/* a slow answer is not a dead process: retry within the budget */
	for (i = 0; i < ETCD_TRIES; i++) {
		h = etcd_api_health(
			e, e->me->client_url, etcd_api_timeout(e, ETCD_CALL_USEC), &res);
		if (h >= 0)
			break;
		snprintf(detail, sizeof(detail), "%s", res.error);
		/* etcd serves clients only once it has joined its cluster: one
		 * that waits for a majority is not broken, and a restart would
		 * not bring the majority */
		if (etcd_api_peer_version(e, &res) == 0) {
			rc = ocf_degraded("etcd (pid %d) waits for a majority of its cluster: no "
					  "cluster decided yet, clients not served",
				(int)pid);
			goto out;
		}
		log_info("probe %d/%d: %s", i + 1, ETCD_TRIES, detail);
		if (i + 1 < ETCD_TRIES && !ocf_sleep(e->c, 1000000))
			break;
	}
	if (h < 0) {
		rc = ocf_pid_alive(pid) ? ocf_fail(PCMK_OCF_UNKNOWN_ERROR,
						  "etcd (pid %d) does not answer on %s: %s",
						  (int)pid, e->me->client_url, detail)
					: PCMK_OCF_NOT_RUNNING;
		goto out;
	}
	if (h == 0) {
		/* no leader, no quorum, an alarm: a restart would not help, and
		 * a fatal code for a passing state is an outage */
		rc = ocf_degraded("etcd (pid %d) runs but is not healthy: %.200s", (int)pid,
			str_or(res.body.data, "?"));
		goto out;
	}
	if (e->c->probe)
		goto out;
	if (etcd_api_call(e, e->me->client_url, "/v3/maintenance/status", "{}",
		    etcd_api_timeout(e, ETCD_CALL_USEC), &res) < 0 ||
		res.status != 200 || etcd_status_parse(res.body.data, &st, &perr) < 0) {
		log_info("status: %s", etcd_api_error(&res, why, sizeof(why)));
		goto out; /* healthy a moment ago: nothing to act on */
	}
	if (st.learner) {
		p = promote(e, st.member_id, why, sizeof(why));
		if (p != 1)
			rc = ocf_degraded(
				"member %s is a learner, not promoted yet: %s", e->name, why);
		goto out;
	}
	if (etcd_api_member_list(e, e->me->client_url, &l, &res) < 0) {
		log_info("member list: %s", etcd_api_error(&res, why, sizeof(why)));
		goto out;
	}
	{
		bool found = false;
		size_t j;

		for (j = 0; j < l.n; j++)
			found = found || l.v[j].id == st.member_id;
		if (!found) {
			/* etcd exits on its own when it learns it; the restart rejoins */
			rc = ocf_fail(PCMK_OCF_UNKNOWN_ERROR,
				"member %s (%" PRIx64 ") is no longer in the cluster's member list",
				e->name, st.member_id);
			goto out;
		}
	}
	if (st.leader == st.member_id) {
		reconcile(e, st.member_id, &l);
		/* a missing record written (upgrade); another cluster's is
		 * OCF_DEGRADED: the member is fine, only an operator knows
		 * whether the record or the cluster is wrong */
		if (etcd_cib_after(e, st.cluster_id, why, sizeof(why)) == ETCD_ID_DIFFERS)
			rc = ocf_degraded("%s", why);
	}
out:
	etcd_members_free(&l);
	cpha_buf_free(&res.body);
	if (rc == PCMK_OCF_OK && !e->c->probe)
		rc = size_report(e);
	return rc;
}

/* Quorum without me. The cluster's own member list decides when my etcd
 * gives it (etcd_stop_safe()): a node_map that names a node etcd does not
 * have (one added before its node exists, an even map kept running) must
 * not make every reload wait for a majority that cannot answer, fail, and
 * have Pacemaker restart all members at once. Without the list: the other
 * members of the map that answer healthy are a majority of the map. */
static bool others_keep_quorum(struct etcd *e, unsigned *healthy_out)
{
	struct etcd_members l = { 0 };
	struct api_res res = { 0 };
	unsigned healthy = 0;
	bool ok;
	ssize_t me;
	size_t i;

	if (etcd_api_member_list(e, e->me->client_url, &l, &res) == 0 &&
		(me = etcd_members_find(&l, e->name, e->me->peer_url)) >= 0) {
		etcd_api_probe_members(e, &l, NULL);
		for (i = 0; i < l.n; i++)
			healthy += i != (size_t)me && !l.v[i].learner && l.v[i].healthy;
		ok = etcd_stop_safe(&l, (size_t)me);
		goto out;
	}
	for (i = 0; i < e->map.n; i++) {
		if (&e->map.v[i] == e->me)
			continue;
		if (etcd_api_health(e, e->map.v[i].client_url, etcd_api_timeout(e, ETCD_PROBE_USEC),
			    &res) == 1)
			healthy++;
	}
	ok = healthy >= cpha_quorum_majority((unsigned)e->map.n);
out:
	etcd_members_free(&l);
	cpha_buf_free(&res.body);
	*healthy_out = healthy;
	return ok;
}

/* The same etcd command line but for --initial-cluster*, which a member
 * with data ignores. */
static bool same_command(const struct ocf_strv *a, const struct ocf_strv *b)
{
	size_t i = 0, j = 0;

	for (;;) {
		while (i < a->n && strncmp(a->v[i], "--initial-cluster=", 18) == 0)
			i++;
		while (i < a->n && strncmp(a->v[i], "--initial-cluster-state=", 24) == 0)
			i++;
		while (j < b->n && strncmp(b->v[j], "--initial-cluster=", 18) == 0)
			j++;
		while (j < b->n && strncmp(b->v[j], "--initial-cluster-state=", 24) == 0)
			j++;
		if (i == a->n || j == b->n)
			return i == a->n && j == b->n;
		if (strcmp(a->v[i++], b->v[j++]) != 0)
			return false;
	}
}

/* reload: Pacemaker calls it when only parameters without unique="1"
 * changed. node_map, allow_even, join_as_learner and the agent's own
 * certificates take effect without touching etcd (the membership lives in
 * Raft); a changed etcd command line restarts the member with its data,
 * one member at a time: member i of the map waits i * 5 s, then until the
 * others alone are a majority. */
static int etcd_reload(struct etcd *e)
{
	struct ocf_strv saved = { 0 };
	char why[512];
	unsigned healthy = 0;
	size_t idx;
	bool same;
	pid_t pid;
	int rc;

	rc = etcd_validate(e);
	if (rc != PCMK_OCF_OK)
		return rc;
	if (!ocf_daemon_running(&e->d, &pid))
		return PCMK_OCF_OK;
	/* a running member keeps running: an even size is reported (here and
	 * by the monitor), never refused, and no member is added for it */
	if (etcd_size_gate(&e->size, e->name, NULL, NULL, why, sizeof(why)) != ETCD_SIZE_GO)
		log_warn("reload: %s", why);
	if (etcd_build_argv(e, "", NULL) < 0 || ocf_state_read(e->statefile, &saved) < 0) {
		ocf_strv_free(&saved);
		return ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "reload: cannot compare the command lines");
	}
	same = same_command(&e->argv, &saved);
	ocf_strv_free(&saved);
	if (same) {
		log_info("reload: etcd's command line is unchanged; the new parameters apply "
			 "without a restart");
		return PCMK_OCF_OK;
	}
	idx = (size_t)(e->me - e->map.v);
	log_notice("reload: etcd's command line changed; restarting member %s with its data "
		   "(turn %zu of %zu)",
		e->name, idx + 1, e->map.n);
	if (idx && !ocf_sleep(e->c, idx * 5000000ULL))
		return ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "reload: no time left for member %s's turn",
			e->name);
	while (e->map.n > 1 && !others_keep_quorum(e, &healthy)) {
		if (!ocf_sleep(e->c, 1000000))
			return ocf_fail(PCMK_OCF_UNKNOWN_ERROR,
				"reload: only %u other member%s healthy; not restarting member %s "
				"now (it would cost quorum)",
				healthy, healthy == 1 ? "" : "s", e->name);
	}
	rc = etcd_stop(e);
	return rc == PCMK_OCF_OK ? etcd_start(e) : rc;
}

/* ------------------------------------------------------------- actions -- */

typedef int (*etcd_fn)(struct etcd *e);

/* validate-all and start read the parameters; monitor and stop need only
 * the pid file, and the map when it parses (they never fail for the
 * configuration). */
static int run(struct ocf_ctx *c, etcd_fn fn, bool strict)
{
	struct etcd e;
	int rc = etcd_init(&e, c);

	if (rc == PCMK_OCF_OK && !strict && fn != etcd_stop) {
		int saved = ocf_get(c, "node_map") ? 0 : -1;
		const char *why;

		if (saved == 0 &&
			etcd_port_param(&e, "peer_port", &e.spec.peer_port) == PCMK_OCF_OK &&
			etcd_port_param(&e, "client_port", &e.spec.client_port) == PCMK_OCF_OK &&
			etcd_map_parse(ocf_get(c, "node_map"), &e.spec, &e.map, &why) == 0)
			e.me = etcd_map_find(&e.map, e.name);
		if (!e.me) {
			/* without a map entry there is nothing to probe: the process
			 * is all the monitor can check */
			pid_t pid;

			rc = ocf_daemon_running(&e.d, &pid) ? PCMK_OCF_OK : PCMK_OCF_NOT_RUNNING;
			if (rc == PCMK_OCF_OK)
				log_warn("node_map has no entry for member %s: checked the "
					 "process only",
					e.name);
			etcd_free(&e);
			return rc;
		}
	}
	if (rc == PCMK_OCF_OK)
		rc = fn(&e);
	etcd_free(&e);
	return rc;
}

static int action_start(struct ocf_ctx *c)
{
	return run(c, etcd_start, true);
}

static int action_stop(struct ocf_ctx *c)
{
	return run(c, etcd_stop, false);
}

static int action_monitor(struct ocf_ctx *c)
{
	return run(c, etcd_monitor, false);
}

static int action_validate(struct ocf_ctx *c)
{
	return run(c, etcd_validate_all, true);
}

static int action_reload(struct ocf_ctx *c)
{
	return run(c, etcd_reload, true);
}

static int action_notify(struct ocf_ctx *c)
{
	const struct ocf_notify *n = &c->notify;

	/* the start reads the same variables from its own environment */
	log_debug("notify %s-%s: active %zu, start %zu, stop %zu", ocf_notify_type_name(n->type),
		ocf_notify_op_name(n->op), n->uname[OCF_NS_ACTIVE].n, n->uname[OCF_NS_START].n,
		n->uname[OCF_NS_STOP].n);
	return PCMK_OCF_OK;
}

static const struct ocf_action actions[] = {
	{ .name = "start", .timeout_s = 120, .fn = action_start },
	{ .name = "stop", .timeout_s = 60, .fn = action_stop },
	{ .name = "monitor", .timeout_s = 30, .interval_s = 10, .fn = action_monitor },
	{ .name = "notify", .timeout_s = 10, .fn = action_notify },
	{ .name = "reload", .timeout_s = 120, .fn = action_reload },
	{ .name = "validate-all", .timeout_s = 20, .fn = action_validate },
	{ .name = NULL },
};

static const struct ocf_agent agent = {
	.name = "etcd",
	.version = CPHA_VERSION,
	.shortdesc = "etcd member (cpha)",
	.longdesc =
		"Runs one etcd member per node as a clone (interleave=true notify=true, "
		"clone-max = the size of node_map). Membership goes through etcd's v3 JSON API "
		"(/v3/cluster/member/*, /v3/maintenance/status, /health) with the agent's client "
		"certificate.\n"
		"start: a member with data restarts with it (a restart never leaves and "
		"rejoins). Without data, when a healthy member answers, it joins the running "
		"cluster: a dead old member of the same name or address is removed first (only "
		"when the healthy voters keep a majority), then it is added as a learner, "
		"started with --initial-cluster-state=existing and promoted once caught up; one "
		"membership change at a time (a member still joining makes others wait). When "
		"no member answers and no other instance is active (the clone starts as a "
		"whole), a new cluster is bootstrapped from the members starting now (a "
		"majority of node_map at least).\n"
		"Cluster ID record: a new cluster's ID is recorded in the CIB as the cluster "
		"property etcd-cluster-id (crm_attribute --type crm_config; every node keeps it, "
		"the loss of any node keeps it); a member that restarts or joins records a "
		"missing one, and so does the leader's monitor (an agent upgraded under a "
		"running cluster). With a record, a start never bootstraps: when no member "
		"answers, its data dir is empty and no other member's etcd answers on its peer "
		"URL for 15 s, the data is gone on every member, and the start fails with "
		"OCF_ERR_GENERIC, the recorded ID in the exit reason and in the log the restore "
		"(etcdutl snapshot restore, or ETCDCTL_API=3 etcdctl snapshot restore with etcd "
		"3.4, with this member's --name, --data-dir, --initial-cluster, "
		"--initial-cluster-token and --initial-advertise-peer-urls) and how to clear the "
		"record for a new, empty cluster on purpose (crm_attribute --type crm_config "
		"--name etcd-cluster-id --delete). OCF_ERR_GENERIC, not OCF_ERR_CONFIGURED: a "
		"node cannot tell every data dir empty from being cut off from the members that "
		"have data, and OCF_ERR_CONFIGURED would stop those members everywhere; a failed "
		"start bans the instance from this node only (start-failure-is-fatal), and a "
		"clone instance has nowhere else to go, so Pacemaker does not retry in a loop. A "
		"data dir whose WAL names another cluster ID than the record, or a running "
		"cluster of another ID, is refused the same way (no restart, no member add or "
		"remove). Run by hand, with no CIB to ask, nothing is recorded or checked.\n"
		"monitor: the process, the member's /health (no answer three times is an error; "
		"an unhealthy answer - no leader, no quorum - is OCF_DEGRADED, never a fatal "
		"code: a passing state must not stop the clone), its membership (a learner is "
		"promoted; a member the cluster removed is an error, and the restart rejoins "
		"it); on the leader it removes a dead member that node_map no longer lists.\n"
		"stop: SIGTERM (etcd hands its leadership over), SIGKILL late in the stop "
		"timeout; the member stays in the cluster.\n"
		"reload (a change of parameters other than data_dir and the ports): node_map, "
		"allow_even and the agent's certificates apply at once; a changed etcd command "
		"line restarts the members with their data one at a time, each only while the "
		"others are a majority.\n"
		"Quorum sizing (unless allow_even=true): validate-all refuses an even clone-max "
		"or node_map (OCF_ERR_CONFIGURED). start, reload and monitor never return a fatal "
		"code for it, since one would stop every member: a member already in the cluster "
		"runs (monitor: OCF_DEGRADED, the fix first in the reason); a start that would "
		"bootstrap a new cluster, or add the member that makes a running cluster even, "
		"fails with OCF_ERR_GENERIC on that node only.",
	.params = etcd_params,
	.actions = actions,
};

int main(int argc, char **argv, char **envp)
{
	return ocf_main(&agent, argc, argv, envp);
}
