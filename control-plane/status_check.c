/* cpha status, the judgement: no I/O. A snapshot of what each source said
 * goes in; per-host states, the role table's notes, the problem lines and
 * the worst state come out. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "flags.h"
#include "status.h"

const char *status_level_name(enum st_level l)
{
	return l == ST_HEALTHY ? "healthy" : l == ST_DEGRADED ? "degraded" : "down";
}

const char *status_host_state_name(enum st_host_state s)
{
	static const char *const names[] = {
		[ST_HOST_UNKNOWN] = "unknown",
		[ST_HOST_RUNNING] = "running",
		[ST_HOST_STOPPED] = "stopped",
		[ST_HOST_FAILED] = "failed",
	};
	return names[s];
}

const struct st_etcd *status_etcd_lister(const struct st_snapshot *s)
{
	for (size_t i = 0; i < s->netcd; i++)
		if (s->etcd[i].listed)
			return &s->etcd[i];
	return NULL;
}

bool status_etcd_members(const struct st_snapshot *s, unsigned *voting, unsigned *learners)
{
	const struct st_etcd *e = status_etcd_lister(s);

	if (!e)
		return false;
	*voting = e->voting;
	*learners = e->learners;
	return true;
}

unsigned status_etcd_healthy(const struct st_snapshot *s)
{
	unsigned n = 0;

	for (size_t i = 0; i < s->netcd; i++)
		n += s->etcd[i].reach == ST_ANSWERED && s->etcd[i].healthy;
	return n;
}

const struct st_cert *status_cert_earliest(const struct st_snapshot *s)
{
	const struct st_cert *best = NULL;

	for (size_t i = 0; i < s->ncerts; i++)
		if (!best || s->certs[i].not_after < best->not_after)
			best = &s->certs[i];
	return best;
}

static const char *reach_name(enum st_reach r)
{
	return r == ST_REFUSED ? "not running" : r == ST_UNREACHABLE ? "unreachable" : "answered";
}

static void problem(struct st_report *r, enum st_level level, const char *role, const char *fmt,
	...) __attribute__((format(printf, 4, 5)));

static void problem(
	struct st_report *r, enum st_level level, const char *role, const char *fmt, ...)
{
	struct st_problem *p;
	va_list ap;

	if (level > r->worst)
		r->worst = level;
	if (r->problems.n == ST_MAX_PROBLEMS)
		return;
	p = &r->problems.v[r->problems.n++];
	p->level = level;
	snprintf(p->role, sizeof(p->role), "%s", role);
	va_start(ap, fmt);
	vsnprintf(p->text, sizeof(p->text), fmt, ap);
	va_end(ap);
}

/* Append to a role's notes, "; "-separated. */
static void note(struct st_role *ro, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(struct st_role *ro, const char *fmt, ...)
{
	size_t n = strlen(ro->notes);
	va_list ap;

	if (n && n + 2 < sizeof(ro->notes)) {
		memcpy(ro->notes + n, "; ", 3);
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(ro->notes + n, sizeof(ro->notes) - n, fmt, ap);
	va_end(ap);
}

static void raise_level(struct st_role *ro, enum st_level l)
{
	if (l > ro->level)
		ro->level = l;
}

enum { R_ETCD, R_API, R_KCM, R_SCHED, R_LB, R_VIP, R_FENCE };

/* etcd's member list against the description: a learner is a membership
 * change in progress (a master added or rebuilt), noted; a voting member
 * the description does not name, a master with no member and an even
 * voting count the description does not have are problems. */
static void check_members(const struct st_snapshot *s, struct st_report *r, struct st_role *ro)
{
	const struct st_etcd *l = status_etcd_lister(s);
	bool bad = false;

	if (!l)
		return;
	for (size_t i = 0; i < l->nmembers; i++) {
		const struct st_member *m = &l->member[i];
		bool named = false;

		for (size_t j = 0; j < s->netcd && !named; j++)
			named = !strcmp(s->etcd[j].host, m->name);
		if (m->learner) {
			note(ro, "membership change in progress: %s is a learner, not promoted yet",
				m->name);
		} else if (!named) {
			problem(r, ST_DEGRADED, "etcd",
				"etcd's voting member %s is not a host of the description: a "
				"master "
				"taken out of it is still a member of etcd",
				m->name);
			bad = true;
		}
	}
	/* a list longer than what was kept of it may hold any name */
	for (size_t j = 0; j < s->netcd && l->nmembers && l->nmembers == l->voting + l->learners;
		j++) {
		bool found = false;

		for (size_t i = 0; i < l->nmembers && !found; i++)
			found = !strcmp(s->etcd[j].host, l->member[i].name);
		if (!found) {
			problem(r, ST_DEGRADED, "etcd", "etcd's member list has no member for %s",
				s->etcd[j].host);
			bad = true;
		}
	}
	if (l->voting % 2 == 0 && l->voting != s->netcd) {
		problem(r, ST_DEGRADED, "etcd",
			"etcd's member list has %u voting members: an even count tolerates no "
			"more failures than %u",
			l->voting, l->voting ? l->voting - 1 : 0);
		bad = true;
	}
	if (bad)
		raise_level(ro, ST_DEGRADED);
}

static void check_etcd(const struct st_snapshot *s, struct st_report *r, struct st_role *ro)
{
	size_t i, healthy = 0, answered = 0, quorum = s->netcd / 2 + 1;
	uint64_t leader = 0, term = 0;
	bool disagree = false;
	const char *leader_host = NULL;

	if (s->netcd % 2 == 0)
		problem(r, ST_DEGRADED, "etcd",
			"etcd has %zu members: an even count tolerates no more failures than "
			"%zu",
			s->netcd, s->netcd ? s->netcd - 1 : 0);
	for (i = 0; i < s->netcd; i++) {
		const struct st_etcd *e = &s->etcd[i];

		if (e->reach != ST_ANSWERED) {
			problem(r, ST_DEGRADED, "etcd", "etcd member on %s: %s%s%s", e->host,
				reach_name(e->reach), *e->error ? ": " : "", e->error);
			continue;
		}
		answered++;
		if (!e->healthy)
			problem(r, ST_DEGRADED, "etcd", "etcd member on %s is unhealthy%s%s",
				e->host, *e->error ? ": " : "", e->error);
		else
			healthy++;
		if (e->term > term)
			term = e->term;
		if (!leader)
			leader = e->leader;
		else if (e->leader != leader)
			disagree = true;
	}
	for (i = 0; i < s->netcd; i++)
		if (s->etcd[i].reach == ST_ANSWERED && s->etcd[i].id == leader && leader)
			leader_host = s->etcd[i].host;
	if (disagree) {
		char list[ST_TEXT] = "";
		size_t n = 0;

		for (i = 0; i < s->netcd; i++)
			if (s->etcd[i].reach == ST_ANSWERED)
				n += (size_t)snprintf(list + n,
					n < sizeof(list) ? sizeof(list) - n : 0, "%s%s=%" PRIx64,
					n ? ", " : "", s->etcd[i].host, s->etcd[i].leader);
		problem(r, ST_DEGRADED, "etcd", "etcd members disagree on the leader (%s)", list);
	}
	if (answered && !leader)
		problem(r, ST_DOWN, "etcd", "etcd has no leader");
	if (healthy < quorum)
		problem(r, ST_DOWN, "etcd", "etcd: %zu of %zu members healthy, quorum needs %zu",
			healthy, s->netcd, quorum);
	note(ro, "%zu/%zu healthy, quorum %zu", healthy, s->netcd, quorum);
	if (leader)
		note(ro, "leader %s%s, term %" PRIu64, leader_host ? leader_host : "(unknown id)",
			disagree ? " (not agreed)" : "", term);
	raise_level(ro, healthy < quorum || !leader                           ? ST_DOWN
			: healthy < s->netcd || disagree || s->netcd % 2 == 0 ? ST_DEGRADED
									      : ST_HEALTHY);
	check_members(s, r, ro);
}

/* An apiserver's state in one lbd: NULL when lbd has no such server. */
static const char *lbd_state(const struct st_lb *lb, const char *host)
{
	for (size_t j = 0; j < lb->nservers; j++)
		if (strcmp(lb->servers[j].name, host) == 0)
			return lb->servers[j].state;
	return NULL;
}

/* The minor an apiserver's /version names: 0 when it gave none, -1 when it
 * is not a Kubernetes version. A build suffix ("-rc.1", "+k3s1") is the
 * vendor's: the minor decides. */
static int api_minor(const struct st_api *a)
{
	unsigned minor, patch;
	bool has_patch;
	char base[ST_NAME];

	if (!*a->version)
		return 0;
	snprintf(base, sizeof(base), "%.*s", (int)strcspn(a->version, "-+"), a->version);
	if (flags_k8s_parse(base, &minor, &patch, &has_patch) < 0)
		return -1;
	return (int)minor;
}

/* The apiservers' versions against kubernetes.version, whose flags they
 * run. A minor upgrade (or its rollback) rolls one apiserver at a time, as
 * Kubernetes' version skew policy allows: while the description and every
 * answering apiserver span two neighbouring minors, the ones not yet rolled
 * are an operation in progress, named in the row. Any other minor is
 * degraded: its flags were made for another version, and one it lacks
 * stops its next restart. */
static void check_api_versions(const struct st_snapshot *s, struct st_report *r, struct st_role *ro)
{
	int lo = (int)s->k8s_minor, hi = (int)s->k8s_minor;
	char odd[ST_TEXT] = "";
	size_t i, w = 0;

	if (!s->k8s_minor)
		return;
	for (i = 0; i < s->napi; i++) {
		int m = s->api[i].readyz == 200 ? api_minor(&s->api[i]) : 0;

		if (m < 0)
			problem(r, ST_DEGRADED, "apiserver",
				"kube-apiserver on %s: /version says '%s', not a Kubernetes "
				"version",
				s->api[i].host, s->api[i].version);
		if (m <= 0)
			continue;
		lo = m < lo ? m : lo;
		hi = m > hi ? m : hi;
	}
	for (i = 0; i < s->napi; i++) {
		const struct st_api *a = &s->api[i];
		int m = a->readyz == 200 ? api_minor(a) : 0;

		if (m <= 0 || m == (int)s->k8s_minor)
			continue;
		if (hi - lo > 1)
			problem(r, ST_DEGRADED, "apiserver",
				"kube-apiserver on %s runs %s, but kubernetes.version is 1.%u: its "
				"flags were rendered for 1.%u",
				a->host, a->version, s->k8s_minor, s->k8s_minor);
		else if (w < sizeof(odd))
			w += (size_t)snprintf(odd + w, sizeof(odd) - w, "%s%s %s", w ? ", " : "",
				a->host, a->version);
	}
	if (w)
		note(ro,
			"version change in progress: kubernetes.version is 1.%u, not yet on it: %s",
			s->k8s_minor, odd);
}

static void check_api(const struct st_snapshot *s, struct st_report *r, struct st_role *ro)
{
	size_t i, j, ready = 0;

	for (i = 0; i < s->napi; i++) {
		const struct st_api *a = &s->api[i];

		if (a->readyz != 200) {
			if (a->readyz)
				problem(r, ST_DEGRADED, "apiserver",
					"kube-apiserver on %s: /readyz %ld", a->host, a->readyz);
			else
				problem(r, ST_DEGRADED, "apiserver", "kube-apiserver on %s: %s%s%s",
					a->host, a->refused ? "not running" : "unreachable",
					*a->error ? ": " : "", a->error);
			continue;
		}
		ready++;
		/* ready, yet a load balancer does not send to it */
		for (j = 0; j < s->nlbs; j++) {
			const char *st = s->lbs[j].lbd == ST_ANSWERED
						 ? lbd_state(&s->lbs[j], a->host)
						 : NULL;

			if (st && (strcmp(st, "DOWN") == 0 || strcmp(st, "MAINT") == 0))
				problem(r, ST_DEGRADED, "lb",
					"kube-apiserver on %s is ready but %s in lbd on %s: out of "
					"rotation",
					a->host, st, s->lbs[j].host);
		}
	}
	if (s->napi && !ready)
		problem(r, ST_DOWN, "apiserver", "no kube-apiserver is ready");
	if (s->vip_readyz != 200 && s->vip_readyz)
		problem(r, ST_DOWN, "apiserver", "/readyz through the VIP %s: HTTP %ld", s->vip,
			s->vip_readyz);
	else if (s->vip_readyz != 200)
		problem(r, ST_DOWN, "apiserver", "/readyz through the VIP %s: no answer%s%s",
			s->vip, *s->vip_error ? ": " : "", s->vip_error);
	/* a dual-stack cluster's second VIP: its family's clients are cut
	 * off, the other family's are served */
	if (*s->vip2 && s->vip2_readyz != 200 && s->vip2_readyz)
		problem(r, ST_DEGRADED, "apiserver", "/readyz through the VIP %s: HTTP %ld",
			s->vip2, s->vip2_readyz);
	else if (*s->vip2 && s->vip2_readyz != 200)
		problem(r, ST_DEGRADED, "apiserver", "/readyz through the VIP %s: no answer%s%s",
			s->vip2, *s->vip2_error ? ": " : "", s->vip2_error);
	check_api_versions(s, r, ro);
	note(ro, "%zu/%zu ready directly", ready, s->napi);
	note(ro, "via VIP: %s", s->vip_readyz == 200 ? "ready" : "NOT ready");
	if (*s->vip2)
		note(ro, "via VIP %s: %s", s->vip2, s->vip2_readyz == 200 ? "ready" : "NOT ready");
	if (*s->vip2 && s->vip2_readyz != 200)
		raise_level(ro, ST_DEGRADED);
	raise_level(ro, !ready || s->vip_readyz != 200 ? ST_DOWN
			: ready < s->napi              ? ST_DEGRADED
						       : ST_HEALTHY);
}

static void check_lease(const struct st_snapshot *s, const struct st_lease *l, struct st_report *r,
	struct st_role *ro)
{
	const char *role = strcmp(l->name, "kube-scheduler") == 0 ? "scheduler" : "controllers";

	if (!s->leader_elect) {
		note(ro, "leader election off (one instance, the manager's choice)");
		ro->state = "n/a";
		return;
	}
	if (l->reach != ST_ANSWERED) {
		problem(r, ST_DEGRADED, role, "Lease %s: %s%s%s", l->name, reach_name(l->reach),
			*l->error ? ": " : "", l->error);
		note(ro, "Lease unreadable");
		raise_level(ro, ST_DEGRADED);
		return;
	}
	if (!l->found || !*l->holder) {
		problem(r, ST_DEGRADED, role, "Lease %s: no holder (no %s leads)", l->name,
			l->name);
		note(ro, "no leader");
		raise_level(ro, ST_DEGRADED);
		return;
	}
	note(ro, "leader %s, %ld transitions, renewed %.0fs ago", l->holder, l->transitions,
		l->renew_age);
	if (l->renew_age < 0 || l->renew_age > (double)l->duration) {
		problem(r, ST_DEGRADED, role,
			"Lease %s: holder %s stopped renewing (renewed %.1fs ago, lease %lds)",
			l->name, l->holder, l->renew_age, l->duration);
		raise_level(ro, ST_DEGRADED);
	}
}

static void check_lb(
	const struct st_snapshot *s, struct st_report *r, struct st_role *rlb, struct st_role *rvip)
{
	size_t i, j, holders = 0, lbd_up = 0, mon_up = 0, mon_asked = 0, lbd_asked = 0;
	size_t vipd_asked = 0, holders2 = 0;
	char list[ST_TEXT] = "", list2[ST_TEXT] = "";
	const char *holder = "", *holder2 = "";
	size_t n = 0, n2 = 0;

	for (i = 0; i < s->nlbs; i++) {
		const struct st_lb *lb = &s->lbs[i];

		mon_asked += lb->monitor != ST_NOT_ASKED;
		lbd_asked += lb->lbd != ST_NOT_ASKED;
		vipd_asked += lb->vipd != ST_NOT_ASKED;
		if (lb->lbd != ST_NOT_ASKED) {
			if (lb->lbd != ST_ANSWERED) {
				problem(r, ST_DEGRADED, "lb", "lbd on %s: %s%s%s", lb->host,
					reach_name(lb->lbd), *lb->lbd_error ? ": " : "",
					lb->lbd_error);
			} else {
				size_t up = 0, w = 0;
				char drained[ST_TEXT] = "";

				/* DRAIN: up, and out of rotation by `cpha drain`, an
				 * operation in progress rather than a fault */
				for (j = 0; j < lb->nservers; j++) {
					up += strcmp(lb->servers[j].state, "UP") == 0;
					if (strcmp(lb->servers[j].state, "DRAIN") == 0 &&
						w < sizeof(drained))
						w += (size_t)snprintf(drained + w,
							sizeof(drained) - w, " %s",
							lb->servers[j].name);
				}
				lbd_up++;
				note(rlb, "%s: %zu/%zu up%s%s%s", lb->host, up, lb->nservers,
					w ? " (drained:" : "", drained, w ? ")" : "");
				if (!up)
					problem(r, ST_DEGRADED, "lb",
						"lbd on %s has no apiserver up", lb->host);
			}
		}
		if (lb->monitor != ST_NOT_ASKED) {
			if (lb->monitor != ST_ANSWERED) {
				problem(r, ST_DEGRADED, "lb", "HAProxy on %s: %s%s%s", lb->host,
					reach_name(lb->monitor), *lb->monitor_error ? ": " : "",
					lb->monitor_error);
			} else {
				mon_up++;
				note(rlb, "%s: %s", lb->host,
					lb->healthz == 200 ? "an apiserver up" : "NO apiserver up");
				if (lb->healthz != 200)
					problem(r, ST_DEGRADED, "lb",
						"HAProxy on %s has no apiserver up (/healthz %ld)",
						lb->host, lb->healthz);
			}
		}
		if (lb->vipd == ST_NOT_ASKED)
			continue;
		if (lb->vipd != ST_ANSWERED) {
			problem(r, ST_DEGRADED, "vip", "vipd on %s: %s%s%s", lb->host,
				reach_name(lb->vipd), *lb->vipd_error ? ": " : "", lb->vipd_error);
			continue;
		}
		if (lb->drained)
			note(rvip, "%s: drained (cpha undrain %s ends it)", lb->host, lb->host);
		if (lb->vip_present) {
			holders++;
			holder = lb->host;
			n += (size_t)snprintf(list + n, n < sizeof(list) ? sizeof(list) - n : 0,
				"%s%s (%s)", n ? ", " : "", lb->host, lb->vrrp);
		}
		if (lb->vip2_present) {
			holders2++;
			holder2 = lb->host;
			n2 += (size_t)snprintf(list2 + n2,
				n2 < sizeof(list2) ? sizeof(list2) - n2 : 0, "%s%s", n2 ? ", " : "",
				lb->host);
		}
	}
	if (s->lb_lbd && !lbd_asked && s->mon_local_only) {
		/* their /status is on loopback of each LB host, none of them this one */
		note(rlb, "lbd: /status on loopback of each LB host: not read from here");
		rlb->state = "unknown";
	} else if (s->lb_lbd) {
		raise_level(rlb, lbd_up == 0          ? ST_DOWN
				 : lbd_up < lbd_asked ? ST_DEGRADED
						      : ST_HEALTHY);
		if (!lbd_up)
			note(rlb, "no lbd answers");
		if (lbd_asked < s->nlbs)
			note(rlb, "only this host's lbd read (/status on loopback)");
	} else if (mon_asked) {
		/* HAProxy: its monitor frontend's /healthz, no per-server states */
		raise_level(rlb, mon_up == 0          ? ST_DOWN
				 : mon_up < mon_asked ? ST_DEGRADED
						      : ST_HEALTHY);
		if (!mon_up)
			note(rlb, "no HAProxy answers");
	} else {
		note(rlb, "HAProxy: not read");
		rlb->state = "unknown";
	}
	if (!s->vip_vipd) {
		note(rvip, "not held by vipd: not read");
		rvip->state = "unknown";
		return;
	}
	if (holders > 1) {
		problem(r, ST_DEGRADED, "vip", "the VIP %s is on %zu hosts: %s", s->vip, holders,
			list);
		raise_level(rvip, ST_DEGRADED);
	} else if (holders == 0 && vipd_asked < s->nlbs && s->mon_local_only) {
		/* the others' vipd are on loopback: the VIP may be on one of them */
		note(rvip,
			"not on this host; the other hosts' vipd not read (/status on loopback)");
		rvip->state = "unknown";
		return;
	} else if (holders == 0) {
		problem(r, ST_DOWN, "vip", "the VIP %s is on no host that answers", s->vip);
		raise_level(rvip, ST_DOWN);
	}
	note(rvip, holders ? "on %s" : "on no host", list);
	if (!*s->vip2)
		return;
	/* dual stack: the second VIP, on one host, the first's */
	if (holders2 > 1)
		problem(r, ST_DEGRADED, "vip", "the VIP %s is on %zu hosts: %s", s->vip2, holders2,
			list2);
	else if (holders2 == 0)
		problem(r, ST_DEGRADED, "vip", "the VIP %s is on no host that answers", s->vip2);
	else if (holders == 1 && strcmp(holder, holder2) != 0)
		problem(r, ST_DEGRADED, "vip",
			"the VIPs are apart: %s on %s, %s on %s (their sync group moves them "
			"together)",
			s->vip, holder, s->vip2, holder2);
	if (holders2 != 1 || (holders == 1 && strcmp(holder, holder2) != 0))
		raise_level(rvip, ST_DEGRADED);
	note(rvip, holders2 ? "%s on %s" : "%s on no host", s->vip2, list2);
}

/* The quorum device seen from each fenced of the cluster it serves: it
 * must be there and give each node its vote while nothing is split. */
static bool check_qdevice(const struct st_snapshot *s, struct st_report *r, struct st_role *ro)
{
	size_t i, expected = 0, voting = 0;

	for (i = 0; i < s->nfence; i++) {
		const struct st_fence *f = &s->fence[i];

		if (!f->qdevice_expected || f->reach != ST_ANSWERED)
			continue;
		expected++;
		if (!f->qdevice_reported)
			problem(r, ST_DEGRADED, "fencing",
				"fenced on %s: its corosync has no quorum device, the description "
				"gives %s (install the rendered corosync.conf)",
				f->host, s->qdevice);
		else if (!f->qdevice_vote)
			problem(r, ST_DEGRADED, "fencing",
				"fenced on %s: the quorum device %s gives it no vote (%s)", f->host,
				s->qdevice,
				f->qdevice_alive
					? "corosync-qnetd not reached, or its vote went to "
					  "the other side of a split"
					: "corosync-qdevice not running");
		else
			voting++;
	}
	if (expected)
		note(ro, "quorum device %s votes for %zu/%zu", s->qdevice, voting, expected);
	return voting < expected;
}

static void check_fence(const struct st_snapshot *s, struct st_report *r, struct st_role *ro)
{
	size_t i, j, answered = 0, quorate = 0, pending = 0;
	bool qd_short;

	for (i = 0; i < s->nfence; i++) {
		const struct st_fence *f = &s->fence[i];

		if (f->reach == ST_NOT_ASKED) /* on loopback of another host */
			continue;
		if (f->reach != ST_ANSWERED) {
			if (s->fencing_configured)
				problem(r, ST_DEGRADED, "fencing", "fenced on %s: %s%s%s", f->host,
					reach_name(f->reach), *f->error ? ": " : "", f->error);
			continue;
		}
		answered++;
		quorate += f->quorate;
		if (!f->quorate)
			problem(r, ST_DEGRADED, "fencing", "fenced on %s: not quorate", f->host);
		for (j = 0; j < f->npending; j++) {
			const struct st_pending *p = &f->pending[j];

			pending++;
			if (p->failed)
				problem(r, ST_DEGRADED, "fencing",
					"fence of %s failed: every level of its last round (%s, "
					"seen "
					"from %s)",
					p->node, p->state, f->host);
			if (p->due_in < 0)
				problem(r, ST_DEGRADED, "fencing",
					"fence of %s pending %.0fs past its deadline (%s, seen "
					"from "
					"%s)",
					p->node, -p->due_in, p->state, f->host);
		}
	}
	if (!s->fencing_configured && !answered) {
		note(ro, "not configured (no fencing devices or watchdog described)");
		ro->state = "n/a";
		return;
	}
	size_t asked = 0;

	for (i = 0; i < s->nfence; i++)
		asked += s->fence[i].reach != ST_NOT_ASKED;
	note(ro, "%zu/%zu fenced answer, %zu quorate, %zu pending", answered, asked, quorate,
		pending);
	if (asked < s->nfence)
		note(ro, "%zu not read (/status on loopback of other hosts)", s->nfence - asked);
	if (!asked) {
		ro->state = "unknown";
		return;
	}
	qd_short = check_qdevice(s, r, ro);
	raise_level(ro, answered < asked || quorate < answered || pending || qd_short ? ST_DEGRADED
										      : ST_HEALTHY);
}

static void check_pcmk(const struct st_snapshot *s, struct st_report *r)
{
	for (size_t i = 0; i < s->npcmk; i++) {
		const struct st_pcmk_node *n = &s->pcmk_nodes[i];

		if (!n->online)
			problem(r, ST_DEGRADED, "pacemaker", "Pacemaker node %s is offline",
				n->name);
		if (n->failed)
			problem(r, ST_DEGRADED, "pacemaker",
				"Pacemaker: %u failed resource%s on %s", n->failed,
				n->failed == 1 ? "" : "s", n->name);
	}
}

static struct st_host *host_of(struct st_report *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nhosts; i++)
		if (strcmp(r->hosts[i].name, name) == 0)
			return &r->hosts[i];
	if (r->nhosts == sizeof(r->hosts) / sizeof(r->hosts[0]))
		return NULL;
	snprintf(r->hosts[r->nhosts].name, ST_NAME, "%s", name);
	r->hosts[r->nhosts].state = ST_HOST_UNKNOWN;
	return &r->hosts[r->nhosts++];
}

/* A host's state from its parts: each part running, not running (refused)
 * or failed/unreachable; every part running is running, every part not
 * running is stopped, a mix is failed. */
struct parts {
	unsigned running, stopped, failed;
	char why[ST_TEXT];
};

static void part(struct parts *p, const char *what, enum st_reach reach, bool ok)
{
	size_t n = strlen(p->why);

	if (reach == ST_NOT_ASKED)
		return;
	if (reach == ST_ANSWERED && ok) {
		p->running++;
		return;
	}
	if (reach == ST_REFUSED)
		p->stopped++;
	else
		p->failed++;
	snprintf(p->why + n, sizeof(p->why) - n, "%s%s %s", n ? ", " : "", what,
		reach == ST_REFUSED    ? "not running"
		: reach == ST_ANSWERED ? "unhealthy"
				       : "unreachable");
}

static void judge_hosts(const struct st_snapshot *s, struct st_report *r)
{
	static const char *const role_names[] = { "", "master", "lb", "master+lb", "etcd",
		"master+etcd", "lb+etcd", "master+lb+etcd" };
	struct parts parts[ST_MAX_HOSTS * 2] = { 0 };
	unsigned roles[ST_MAX_HOSTS * 2] = { 0 };
	struct st_host *h;
	size_t i;

	for (i = 0; i < s->napi; i++)
		if ((h = host_of(r, s->api[i].host))) {
			roles[h - r->hosts] |= CP_ROLE_MASTER;
			part(&parts[h - r->hosts], "kube-apiserver",
				s->api[i].readyz    ? ST_ANSWERED
				: s->api[i].refused ? ST_REFUSED
						    : ST_UNREACHABLE,
				s->api[i].readyz == 200);
		}
	for (i = 0; i < s->netcd; i++)
		if ((h = host_of(r, s->etcd[i].host))) {
			roles[h - r->hosts] |= CP_ROLE_ETCD;
			part(&parts[h - r->hosts], "etcd", s->etcd[i].reach, s->etcd[i].healthy);
		}
	for (i = 0; i < s->nlbs; i++)
		if ((h = host_of(r, s->lbs[i].host))) {
			roles[h - r->hosts] |= CP_ROLE_LB;
			part(&parts[h - r->hosts], "lbd", s->lbs[i].lbd, true);
			part(&parts[h - r->hosts], "haproxy", s->lbs[i].monitor,
				s->lbs[i].healthz == 200);
			part(&parts[h - r->hosts], "vipd", s->lbs[i].vipd,
				strcmp(s->lbs[i].vrrp, "FAULT") != 0);
		}
	for (i = 0; i < s->nfence; i++)
		if ((s->fencing_configured || s->fence[i].reach == ST_ANSWERED) &&
			(h = host_of(r, s->fence[i].host)))
			part(&parts[h - r->hosts], "fenced", s->fence[i].reach,
				s->fence[i].quorate);
	for (i = 0; i < s->npcmk; i++)
		if ((h = host_of(r, s->pcmk_nodes[i].name)))
			part(&parts[h - r->hosts], "pacemaker",
				s->pcmk_nodes[i].online ? ST_ANSWERED : ST_REFUSED,
				s->pcmk_nodes[i].failed == 0);
	for (i = 0; i < r->nhosts; i++) {
		struct parts *p = &parts[i];

		r->hosts[i].roles = role_names[roles[i] & 7];
		r->hosts[i].state = !p->running && !p->stopped && !p->failed ? ST_HOST_UNKNOWN
				    : !p->stopped && !p->failed              ? ST_HOST_RUNNING
				    : !p->running && !p->failed              ? ST_HOST_STOPPED
									     : ST_HOST_FAILED;
		snprintf(r->hosts[i].why, sizeof(r->hosts[i].why), "%s", p->why);
	}
}

bool status_snaps_overdue(const struct st_snaps *n)
{
	if (!n->read || *n->error)
		return false;
	return n->count == 0 || (n->newest_age > 0 && (uint64_t)n->newest_age > 2 * n->every_sec);
}

/* The snapshots `cpha etcd snapshot` keeps on this host: a restore after
 * etcd's data is lost everywhere needs a recent one. */
static void check_snaps(const struct st_snapshot *s, struct st_report *r, struct st_role *ro)
{
	const struct st_snaps *n = &s->snaps;

	if (!n->read)
		return;
	if (*n->error) {
		problem(r, ST_DEGRADED, "etcd", "etcd snapshots: %s: %s", n->dir, n->error);
	} else if (n->count == 0) {
		problem(r, ST_DEGRADED, "etcd",
			"etcd snapshots: none in %s (cpha-etcd-snapshot.timer: journalctl -u "
			"cpha-etcd-snapshot)",
			n->dir);
	} else if (status_snaps_overdue(n)) {
		problem(r, ST_DEGRADED, "etcd",
			"etcd snapshots: the newest in %s, %s, is %lld min old; "
			"etcd.snapshot.every "
			"is %llu min (cpha-etcd-snapshot.timer: journalctl -u cpha-etcd-snapshot)",
			n->dir, n->newest, (long long)(n->newest_age / 60),
			(unsigned long long)(n->every_sec / 60));
	} else {
		return;
	}
	raise_level(ro, ST_DEGRADED);
	note(ro, "snapshots %s", *n->error ? "unreadable" : "overdue");
}

void status_check(const struct st_snapshot *s, struct st_report *r)
{
	static const struct {
		const char *role, *style;
	} rows[ST_NROLES] = {
		[R_ETCD] = { "etcd", "active-active, Raft quorum" },
		[R_API] = { "kube-apiserver", "active-active behind the LB" },
		[R_KCM] = { "kube-controller-manager", "active-passive, Lease" },
		[R_SCHED] = { "kube-scheduler", "active-passive, Lease" },
		[R_LB] = { "load balancer", "active-active, one holds the VIP" },
		[R_VIP] = { "VIP", "active-passive (VRRP)" },
		[R_FENCE] = { "fencing", "fence domain on corosync" },
	};
	size_t i;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < ST_NROLES; i++) {
		r->roles[i].role = rows[i].role;
		r->roles[i].style = rows[i].style;
	}
	check_etcd(s, r, &r->roles[R_ETCD]);
	check_snaps(s, r, &r->roles[R_ETCD]);
	check_api(s, r, &r->roles[R_API]);
	for (i = 0; i < s->nleases; i++)
		check_lease(s, &s->leases[i], r,
			&r->roles[strcmp(s->leases[i].name, "kube-scheduler") == 0 ? R_SCHED
										   : R_KCM]);
	check_lb(s, r, &r->roles[R_LB], &r->roles[R_VIP]);
	check_fence(s, r, &r->roles[R_FENCE]);
	check_pcmk(s, r);
	judge_hosts(s, r);
	for (i = 0; i < ST_NROLES; i++) {
		if (r->roles[i].level > r->worst)
			r->worst = r->roles[i].level;
		if (!r->roles[i].state)
			r->roles[i].state = status_level_name(r->roles[i].level);
	}
}
