/* cpha status, the judgement (status_check.c): a healthy snapshot gives no
 * problem and exit 0; each cross-check fires on its own fault. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "status.h"

/* Three masters (etcd members, apiservers), two LB hosts with lbd and vipd
 * (lb0 holds the VIP), fenced on all five, both Leases fresh. */
static struct st_snapshot *healthy(void)
{
	static const char *const masters[] = { "m0", "m1", "m2" };
	static const char *const lbs[] = { "lb0", "lb1" };
	struct st_snapshot *s = calloc(1, sizeof(*s));
	size_t i, j;

	assert_non_null(s);
	snprintf(s->cluster, sizeof(s->cluster), "lab");
	snprintf(s->vip, sizeof(s->vip), "198.18.0.2");
	s->leader_elect = s->fencing_configured = s->lb_lbd = s->vip_vipd = true;
	for (i = 0; i < 3; i++) {
		struct st_etcd *e = &s->etcd[s->netcd++];
		struct st_api *a = &s->api[s->napi++];

		snprintf(e->host, sizeof(e->host), "%s", masters[i]);
		e->reach = ST_ANSWERED;
		e->healthy = true;
		e->id = 0x100 + i;
		e->leader = 0x101;
		e->term = 4;
		snprintf(a->host, sizeof(a->host), "%s", masters[i]);
		a->readyz = 200;
		snprintf(a->version, sizeof(a->version), "v1.36.4");
	}
	s->k8s_minor = 36;
	s->vip_readyz = 200;
	for (i = 0; i < 2; i++) {
		struct st_lease *l = &s->leases[s->nleases++];

		snprintf(l->name, sizeof(l->name), "%s",
			i ? "kube-scheduler" : "kube-controller-manager");
		l->reach = ST_ANSWERED;
		l->found = true;
		snprintf(l->holder, sizeof(l->holder), "m%zu_1234", i);
		l->renew_age = 1.5;
		l->duration = 15;
	}
	for (i = 0; i < 2; i++) {
		struct st_lb *lb = &s->lbs[s->nlbs++];

		snprintf(lb->host, sizeof(lb->host), "%s", lbs[i]);
		lb->lbd = lb->vipd = ST_ANSWERED;
		for (j = 0; j < 3; j++) {
			snprintf(lb->servers[j].name, ST_NAME, "%s", masters[j]);
			snprintf(lb->servers[j].state, 16, "UP");
		}
		lb->nservers = 3;
		snprintf(lb->vrrp, sizeof(lb->vrrp), "%s", i ? "BACKUP" : "MASTER");
		lb->vip_present = i == 0;
	}
	for (i = 0; i < 5; i++) {
		struct st_fence *f = &s->fence[s->nfence++];

		snprintf(f->host, sizeof(f->host), "%s", i < 3 ? masters[i] : lbs[i - 3]);
		f->reach = ST_ANSWERED;
		f->quorate = true;
		f->members = i < 3 ? 3 : 2;
	}
	return s;
}

/* Judge s and return how many problem lines contain needle. */
static size_t judge(const struct st_snapshot *s, struct st_report *r, const char *needle)
{
	size_t i, n = 0;

	status_check(s, r);
	for (i = 0; i < r->problems.n; i++)
		if (strstr(r->problems.v[i].text, needle))
			n++;
	return n;
}

static void dump(const struct st_report *r)
{
	for (size_t i = 0; i < r->problems.n; i++)
		print_message("problem: %s\n", r->problems.v[i].text);
}

static void test_healthy(void **state)
{
	struct st_snapshot *s = healthy();
	struct st_report *r = calloc(1, sizeof(*r));

	(void)state;
	status_check(s, r);
	dump(r);
	assert_int_equal(r->problems.n, 0);
	assert_int_equal(r->worst, ST_HEALTHY);
	assert_int_equal(r->nhosts, 5);
	for (size_t i = 0; i < r->nhosts; i++)
		assert_int_equal(r->hosts[i].state, ST_HOST_RUNNING);
	assert_string_equal(r->hosts[0].roles, "master+etcd");
	assert_string_equal(r->hosts[3].roles, "lb");
	assert_non_null(strstr(r->roles[0].notes, "3/3 healthy, quorum 2"));
	assert_non_null(strstr(r->roles[0].notes, "leader m1"));
	assert_non_null(strstr(r->roles[5].notes, "on lb0 (MASTER)"));
	free(r);
	free(s);
}

static void test_vip_on_two_hosts(void **state)
{
	struct st_snapshot *s = healthy();
	struct st_report *r = calloc(1, sizeof(*r));

	(void)state;
	s->lbs[1].vip_present = true; /* added by hand: vipd says BACKUP */
	assert_int_equal(judge(s, r, "is on 2 hosts: lb0 (MASTER), lb1 (BACKUP)"), 1);
	assert_int_equal(r->problems.n, 1);
	assert_int_equal(r->worst, ST_DEGRADED);
	/* and on none */
	s->lbs[0].vip_present = s->lbs[1].vip_present = false;
	assert_int_equal(judge(s, r, "on no host"), 1);
	assert_int_equal(r->worst, ST_DOWN);
	free(r);
	free(s);
}

/* dual stack: the second VIP served, on one host, with the first */
static void test_dual_stack_vips(void **state)
{
	struct st_snapshot *s = healthy();
	struct st_report *r = calloc(1, sizeof(*r));

	(void)state;
	snprintf(s->vip2, sizeof(s->vip2), "2001:db8:10::2");
	s->vip2_readyz = 200;
	s->lbs[0].vip2_present = true;
	assert_int_equal(judge(s, r, ""), 0);
	assert_int_equal(r->worst, ST_HEALTHY);
	assert_non_null(strstr(r->roles[5].notes, "2001:db8:10::2 on lb0"));
	/* apart: each VIP on another host */
	s->lbs[0].vip2_present = false;
	s->lbs[1].vip2_present = true;
	assert_int_equal(judge(s, r,
				 "the VIPs are apart: 198.18.0.2 on lb0, 2001:db8:10::2 on "
				 "lb1"),
		1);
	assert_int_equal(r->worst, ST_DEGRADED);
	/* on no host, and not served: the other family's clients are cut off */
	s->lbs[1].vip2_present = false;
	s->vip2_readyz = 0;
	snprintf(s->vip2_error, sizeof(s->vip2_error), "Connection refused");
	assert_int_equal(judge(s, r, "the VIP 2001:db8:10::2 is on no host that answers"), 1);
	assert_int_equal(judge(s, r,
				 "/readyz through the VIP 2001:db8:10::2: no answer: "
				 "Connection refused"),
		1);
	assert_int_equal(r->worst, ST_DEGRADED);
	free(r);
	free(s);
}

static void test_lease_not_renewed(void **state)
{
	struct st_snapshot *s = healthy();
	struct st_report *r = calloc(1, sizeof(*r));

	(void)state;
	s->leases[0].renew_age = 15; /* exactly the duration: still fine */
	assert_int_equal(judge(s, r, "stopped renewing"), 0);
	s->leases[0].renew_age = 22;
	assert_int_equal(judge(s, r,
				 "Lease kube-controller-manager: holder m0_1234 stopped "
				 "renewing (renewed 22.0s ago, lease 15s)"),
		1);
	assert_int_equal(r->problems.n, 1);
	assert_int_equal(r->worst, ST_DEGRADED);
	/* a Lease nobody holds, and one that cannot be read */
	s->leases[0].renew_age = 1;
	s->leases[1].found = false;
	assert_int_equal(judge(s, r, "Lease kube-scheduler: no holder"), 1);
	s->leases[1].reach = ST_UNREACHABLE;
	assert_int_equal(judge(s, r, "Lease kube-scheduler: unreachable"), 1);
	/* leader election off: no Lease to judge */
	s->leader_elect = false;
	status_check(s, r);
	assert_int_equal(r->problems.n, 0);
	assert_string_equal(r->roles[2].state, "n/a");
	free(r);
	free(s);
}

static void test_etcd(void **state)
{
	struct st_snapshot *s = healthy();
	struct st_report *r = calloc(1, sizeof(*r));

	(void)state;
	/* an even member count */
	s->etcd[3] = s->etcd[2];
	snprintf(s->etcd[3].host, ST_NAME, "m3");
	s->etcd[3].id = 0x103;
	s->netcd = 4;
	assert_int_equal(judge(s, r, "4 members: an even count"), 1);
	assert_int_equal(r->worst, ST_DEGRADED);
	s->netcd = 3;
	/* an unhealthy member */
	s->etcd[2].healthy = false;
	assert_int_equal(judge(s, r, "etcd member on m2 is unhealthy"), 1);
	assert_int_equal(r->worst, ST_DEGRADED);
	s->etcd[2].healthy = true;
	/* members disagree on the leader */
	s->etcd[2].leader = 0x102;
	assert_int_equal(judge(s, r, "disagree on the leader (m0=101, m1=101, m2=102)"), 1);
	assert_int_equal(r->worst, ST_DEGRADED);
	s->etcd[2].leader = 0x101;
	/* unreachable members: below quorum is down */
	s->etcd[1].reach = ST_REFUSED;
	s->etcd[2].reach = ST_UNREACHABLE;
	assert_int_equal(judge(s, r, "etcd member on m1: not running"), 1);
	assert_int_equal(judge(s, r, "1 of 3 members healthy, quorum needs 2"), 1);
	assert_int_equal(r->worst, ST_DOWN);
	assert_int_equal(r->hosts[1].state, ST_HOST_FAILED); /* apiserver up, etcd not */
	free(r);
	free(s);
}

/* Give the member list etcd's m0 reads: names, "L" before a learner's. */
static void list_members(struct st_snapshot *s, const char *const *names, size_t n)
{
	struct st_etcd *e = &s->etcd[0];

	e->listed = true;
	e->voting = e->learners = 0;
	e->nmembers = n;
	for (size_t i = 0; i < n; i++) {
		bool learner = names[i][0] == 'L';

		snprintf(e->member[i].name, ST_NAME, "%s", names[i] + learner);
		e->member[i].learner = learner;
		if (learner)
			e->learners++;
		else
			e->voting++;
	}
}

/* etcd's member list against the description, as a master is added and
 * removed: a learner is noted as a change in progress, not a problem; a
 * voting member the description lost, a master without a member and an
 * even voting count are. */
static void test_etcd_members(void **state)
{
	static const char *const three[] = { "m0", "m1", "m2" };
	static const char *const adding[] = { "m0", "m1", "m2", "Lm3" };
	static const char *const four[] = { "m0", "m1", "m2", "m3" };
	static const char *const rebuilding[] = { "m0", "m1" };
	struct st_snapshot *s = healthy();
	struct st_report *r = calloc(1, sizeof(*r));

	(void)state;
	list_members(s, three, 3);
	assert_int_equal(judge(s, r, "member"), 0);
	assert_int_equal(r->worst, ST_HEALTHY);
	assert_null(strstr(r->roles[0].notes, "in progress"));

	/* m3 joins as a learner: the operation is shown, nothing is wrong */
	list_members(s, adding, 4);
	assert_int_equal(judge(s, r, "member"), 0);
	assert_int_equal(r->worst, ST_HEALTHY);
	assert_non_null(strstr(r->roles[0].notes,
		"membership change in progress: m3 is a learner, not promoted yet"));

	/* promoted: four voting, the description not yet edited to name m3 */
	list_members(s, four, 4);
	assert_int_equal(
		judge(s, r, "etcd's voting member m3 is not a host of the description"), 1);
	assert_int_equal(judge(s, r, "4 voting members: an even count"), 1);
	assert_int_equal(r->worst, ST_DEGRADED);
	assert_string_equal(r->roles[0].state, "degraded");

	/* a master whose member was removed (and not yet added again) */
	list_members(s, rebuilding, 2);
	assert_int_equal(judge(s, r, "etcd's member list has no member for m2"), 1);
	assert_int_equal(judge(s, r, "2 voting members: an even count"), 1);
	assert_int_equal(r->worst, ST_DEGRADED);

	/* a list longer than the names kept of it: no name is said missing */
	list_members(s, three, 3);
	s->etcd[0].voting = ST_MAX_HOSTS + 1;
	assert_int_equal(judge(s, r, "has no member for"), 0);
	free(r);
	free(s);
}

static void test_ready_apiserver_out_of_rotation(void **state)
{
	struct st_snapshot *s = healthy();
	struct st_report *r = calloc(1, sizeof(*r));

	(void)state;
	snprintf(s->lbs[1].servers[2].state, 16, "MAINT");
	assert_int_equal(judge(s, r, "kube-apiserver on m2 is ready but MAINT in lbd on lb1"), 1);
	assert_int_equal(r->problems.n, 1);
	assert_int_equal(r->worst, ST_DEGRADED);
	/* drained by `cpha drain` and up: an operation in progress, named */
	snprintf(s->lbs[1].servers[2].state, 16, "DRAIN");
	assert_int_equal(judge(s, r, "out of rotation"), 0);
	assert_int_equal(r->problems.n, 0);
	assert_int_equal(r->worst, ST_HEALTHY);
	assert_non_null(strstr(r->roles[4].notes, "lb1: 2/3 up (drained: m2)"));
	/* not ready: DOWN in lbd is right, and is not the out-of-rotation fault */
	snprintf(s->lbs[1].servers[2].state, 16, "DOWN");
	s->api[2].readyz = 500;
	assert_int_equal(judge(s, r, "out of rotation"), 0);
	assert_int_equal(judge(s, r, "kube-apiserver on m2: /readyz 500"), 1);
	/* the VIP does not answer: down */
	s->vip_readyz = 0;
	assert_int_equal(judge(s, r, "/readyz through the VIP 198.18.0.2: no answer"), 1);
	assert_int_equal(r->worst, ST_DOWN);
	free(r);
	free(s);
}

/* The apiservers' minors against kubernetes.version. Another patch of the
 * same minor, or a vendor's build suffix, is fine. While they and the
 * description span two neighbouring minors (a rolling minor upgrade, one
 * apiserver at a time, or its rollback), those not yet on the description's
 * are named in the row as a change in progress, not a problem; a wider
 * spread is degraded, each named; so is a /version that is not one. */
static void test_apiserver_version(void **state)
{
	struct st_snapshot *s = healthy();
	struct st_report *r = calloc(1, sizeof(*r));

	(void)state;
	snprintf(s->api[1].version, ST_NAME, "v1.36.9");
	snprintf(s->api[2].version, ST_NAME, "v1.36.2+k3s1");
	status_check(s, r);
	dump(r);
	assert_int_equal(r->problems.n, 0);
	assert_null(strstr(r->roles[1].notes, "in progress"));
	/* the description went to 1.37; m0 is rolled, m1 and m2 are not yet */
	s->k8s_minor = 37;
	snprintf(s->api[0].version, ST_NAME, "v1.37.1");
	status_check(s, r);
	dump(r);
	assert_int_equal(r->problems.n, 0);
	assert_int_equal(r->worst, ST_HEALTHY);
	assert_non_null(strstr(r->roles[1].notes,
		"version change in progress: kubernetes.version is 1.37, not yet on it: "
		"m1 v1.36.9, m2 v1.36.2+k3s1"));
	/* a host whose description still says 1.36 sees m0 ahead: the same */
	s->k8s_minor = 36;
	status_check(s, r);
	assert_int_equal(r->problems.n, 0);
	assert_non_null(strstr(r->roles[1].notes, "not yet on it: m0 v1.37.1"));
	/* all rolled: nothing left in progress */
	s->k8s_minor = 37;
	snprintf(s->api[1].version, ST_NAME, "v1.37.1");
	snprintf(s->api[2].version, ST_NAME, "v1.37.0");
	status_check(s, r);
	assert_int_equal(r->problems.n, 0);
	assert_null(strstr(r->roles[1].notes, "in progress"));
	/* two minors apart: degraded, each one off named */
	s->k8s_minor = 36;
	snprintf(s->api[0].version, ST_NAME, "v1.36.4");
	snprintf(s->api[1].version, ST_NAME, "v1.36.4");
	snprintf(s->api[2].version, ST_NAME, "v1.34.2");
	assert_int_equal(
		judge(s, r,
			"kube-apiserver on m2 runs v1.34.2, but kubernetes.version is 1.36: "
			"its flags were rendered for 1.36"),
		1);
	assert_int_equal(r->problems.n, 1);
	assert_int_equal(r->worst, ST_DEGRADED);
	snprintf(s->api[1].version, ST_NAME, "v1.37.0");
	status_check(s, r);
	assert_int_equal(r->problems.n, 2);
	assert_int_equal(r->worst, ST_DEGRADED);
	/* a /version that names no version */
	snprintf(s->api[2].version, ST_NAME, "v1.36.1");
	snprintf(s->api[1].version, ST_NAME, "banana");
	assert_int_equal(judge(s, r, "kube-apiserver on m1: /version says 'banana'"), 1);
	/* not asked, or no answer: nothing to compare */
	s->api[1].version[0] = 0;
	status_check(s, r);
	assert_int_equal(r->problems.n, 0);
	/* an apiserver that is not ready is judged by its readiness alone */
	snprintf(s->api[1].version, ST_NAME, "v1.34.2");
	s->api[1].readyz = 500;
	assert_int_equal(judge(s, r, "runs v1.34.2"), 0);
	free(r);
	free(s);
}

static void test_fence_past_deadline(void **state)
{
	struct st_snapshot *s = healthy();
	struct st_report *r = calloc(1, sizeof(*r));
	struct st_pending *p = &s->fence[3].pending[0];

	(void)state;
	snprintf(p->node, ST_NAME, "lb1");
	snprintf(p->state, 16, "victim");
	p->due_in = 4; /* pending, not late: the fencing note says so */
	s->fence[3].npending = 1;
	assert_int_equal(judge(s, r, "past its deadline"), 0);
	assert_int_equal(r->worst, ST_DEGRADED);
	assert_non_null(strstr(r->roles[6].notes, "1 pending"));
	p->due_in = -30;
	assert_int_equal(judge(s, r, "fence of lb1 pending 30s past its deadline"), 1);
	assert_int_equal(r->worst, ST_DEGRADED);
	/* fenced says its last round failed: said whatever its retry's time */
	assert_int_equal(judge(s, r, "failed"), 0);
	p->due_in = 8;
	p->failed = true;
	assert_int_equal(judge(s, r,
				 "fence of lb1 failed: every level of its last round (victim, seen "
				 "from lb0)"),
		1);
	assert_int_equal(r->worst, ST_DEGRADED);
	free(r);
	free(s);
}

/* A quorum device for the LB hosts' corosync: each fenced there must
 * report it, and it must give each its vote. */
static void test_qdevice(void **state)
{
	struct st_snapshot *s = healthy();
	struct st_report *r = calloc(1, sizeof(*r));
	struct cpha_buf b = { 0 };

	(void)state;
	snprintf(s->qdevice, sizeof(s->qdevice), "198.18.0.31");
	for (size_t i = 3; i < 5; i++) {
		s->fence[i].qdevice_expected = s->fence[i].qdevice_reported = true;
		s->fence[i].qdevice_alive = s->fence[i].qdevice_vote = true;
	}
	status_check(s, r);
	dump(r);
	assert_int_equal(r->problems.n, 0);
	assert_int_equal(r->worst, ST_HEALTHY);
	assert_non_null(strstr(r->roles[6].notes, "quorum device 198.18.0.31 votes for 2/2"));
	/* qnetd lost from lb1: alive, no vote */
	s->fence[4].qdevice_vote = false;
	assert_int_equal(judge(s, r,
				 "fenced on lb1: the quorum device 198.18.0.31 gives it no vote "
				 "(corosync-qnetd not reached"),
		1);
	assert_int_equal(r->worst, ST_DEGRADED);
	assert_non_null(strstr(r->roles[6].notes, "votes for 1/2"));
	status_show_text(s, r, &b);
	assert_non_null(strstr(b.data, "quorum device: NO vote"));
	cpha_buf_free(&b);
	/* corosync-qdevice stopped on lb1 */
	s->fence[4].qdevice_alive = false;
	assert_int_equal(judge(s, r, "gives it no vote (corosync-qdevice not running)"), 1);
	/* lb1's corosync.conf predates the device */
	s->fence[4].qdevice_reported = false;
	assert_int_equal(judge(s, r,
				 "fenced on lb1: its corosync has no quorum device, the "
				 "description gives 198.18.0.31"),
		1);
	status_show_json(s, r, &b);
	assert_non_null(strstr(b.data, "\"configured\": false"));
	cpha_buf_free(&b);
	/* a fenced that does not answer says so once, not also about the device */
	s->fence[4].reach = ST_REFUSED;
	assert_int_equal(judge(s, r, "quorum device"), 0);
	assert_int_equal(judge(s, r, "fenced on lb1: not running"), 1);
	free(r);
	free(s);
}

/* Unreachable sources are never healthy; a stopped LB host is stopped. */
static void test_unreachable_is_not_healthy(void **state)
{
	struct st_snapshot *s = healthy();
	struct st_report *r = calloc(1, sizeof(*r));

	(void)state;
	s->lbs[1].lbd = ST_REFUSED;
	s->lbs[1].vipd = ST_REFUSED;
	s->fence[4].reach = ST_REFUSED;
	assert_int_equal(judge(s, r, "lbd on lb1: not running"), 1);
	assert_int_equal(judge(s, r, "vipd on lb1: not running"), 1);
	assert_int_equal(judge(s, r, "fenced on lb1: not running"), 1);
	assert_int_equal(r->worst, ST_DEGRADED);
	assert_int_equal(r->hosts[4].state, ST_HOST_STOPPED);
	/* no fencing described and no fenced answers: a note, not a problem */
	for (size_t i = 0; i < s->nfence; i++)
		s->fence[i].reach = ST_REFUSED;
	s->fencing_configured = false;
	s->lbs[1].lbd = s->lbs[1].vipd = ST_ANSWERED;
	status_check(s, r);
	dump(r);
	assert_int_equal(r->problems.n, 0);
	assert_non_null(strstr(r->roles[6].notes, "not configured"));
	assert_string_equal(r->roles[6].state, "n/a");
	assert_string_equal(r->roles[0].state, "healthy");
	free(r);
	free(s);
}

/* HAProxy and keepalived have no /status: unread, their rows and hosts are
 * unknown, which is no problem and not healthy either; HAProxy's monitor
 * /healthz, when asked, says whether an apiserver is up behind it. */
static void test_haproxy_keepalived_unknown(void **state)
{
	struct st_snapshot *s = healthy();
	struct st_report *r = calloc(1, sizeof(*r));

	(void)state;
	s->lb_lbd = s->vip_vipd = false;
	for (size_t i = 0; i < s->nlbs; i++) {
		s->lbs[i].lbd = s->lbs[i].vipd = ST_NOT_ASKED;
		s->lbs[i].nservers = 0;
		s->lbs[i].vip_present = false;
	}
	s->nfence = 3; /* fenced on the masters only */
	status_check(s, r);
	dump(r);
	assert_int_equal(r->problems.n, 0);
	assert_string_equal(r->roles[4].state, "unknown");
	assert_string_equal(r->roles[5].state, "unknown");
	assert_int_equal(r->nhosts, 5);
	assert_int_equal(r->hosts[3].state, ST_HOST_UNKNOWN);
	/* HAProxy's monitor frontend answers: /healthz 200 on lb0, 503 on lb1 */
	s->lbs[0].monitor = s->lbs[1].monitor = ST_ANSWERED;
	s->lbs[0].healthz = 200;
	s->lbs[1].healthz = 503;
	assert_int_equal(judge(s, r, "HAProxy on lb1 has no apiserver up (/healthz 503)"), 1);
	assert_int_equal(r->problems.n, 1);
	assert_string_equal(r->roles[4].state, "healthy"); /* every HAProxy answers */
	assert_string_equal(r->roles[5].state, "unknown");
	assert_int_equal(r->hosts[3].state, ST_HOST_RUNNING);
	assert_int_equal(r->hosts[4].state, ST_HOST_FAILED);
	s->lbs[1].monitor = ST_REFUSED;
	assert_int_equal(judge(s, r, "HAProxy on lb1: not running"), 1);
	assert_int_equal(r->hosts[4].state, ST_HOST_STOPPED);
	free(r);
	free(s);
}

/* crm_mon --output-as=xml as Pacemaker 2.1 writes it (trimmed): m2
 * offline, etcd failed on m1, a stopped resource that closes itself, and a
 * node history whose <node> elements are not nodes of the cluster list. */
/* /status on loopback (monitoring.listen left out), cpha status run on
 * lb1, the VIP on lb0: only lb1's daemons were asked. What was not asked
 * is no problem; the state is healthy, the VIP's unknown. The same run on
 * a master (nothing asked): unknown, not down. */
static void test_loopback_reads_this_host(void **state)
{
	struct st_snapshot *s = healthy();
	struct st_report *r = calloc(1, sizeof(*r));
	size_t i;

	(void)state;
	s->mon_local_only = true;
	s->lbs[0].lbd = s->lbs[0].vipd = ST_NOT_ASKED;
	for (i = 0; i < 4; i++)
		s->fence[i].reach = ST_NOT_ASKED;
	status_check(s, r);
	dump(r);
	assert_int_equal(r->problems.n, 0);
	assert_int_equal(r->worst, ST_HEALTHY);
	assert_non_null(strstr(r->roles[4].notes, "only this host's lbd read"));
	assert_string_equal(r->roles[5].state, "unknown");
	assert_non_null(strstr(r->roles[5].notes, "not on this host"));

	s->lbs[1].lbd = s->lbs[1].vipd = s->fence[4].reach = ST_NOT_ASKED;
	memset(r, 0, sizeof(*r));
	status_check(s, r);
	dump(r);
	assert_int_equal(r->problems.n, 0);
	assert_string_equal(r->roles[4].state, "unknown");

	/* a daemon that was asked and did not answer is still a problem */
	s->lbs[1].lbd = ST_REFUSED;
	memset(r, 0, sizeof(*r));
	assert_int_equal(judge(s, r, "lbd on lb1: "), 1);
	free(r);
	free(s);
}

static const char crm_mon_xml[] =
	"<pacemaker-result api-version=\"2.30\" request=\"crm_mon --output-as=xml\">\n"
	"  <nodes>\n"
	"    <node name=\"m0\" id=\"1\" online=\"true\" standby=\"false\" "
	"resources_running=\"3\" type=\"member\"/>\n"
	"    <node name=\"m1\" id=\"2\" online=\"true\" resources_running=\"1\" "
	"type=\"member\"/>\n"
	"    <node name=\"m2\" id=\"3\" online=\"false\" resources_running=\"0\" "
	"type=\"member\"/>\n"
	"  </nodes>\n"
	"  <resources>\n"
	"    <clone id=\"etcd-clone\" failed=\"true\">\n"
	"      <resource id=\"etcd\" resource_agent=\"ocf:cpha:etcd\" role=\"Started\" "
	"active=\"true\" failed=\"false\" nodes_running_on=\"1\">\n"
	"        <node name=\"m0\" id=\"1\" cached=\"true\"/>\n"
	"      </resource>\n"
	"      <resource id=\"etcd\" resource_agent=\"ocf:cpha:etcd\" role=\"Started\" "
	"active=\"true\" failed=\"true\" nodes_running_on=\"1\">\n"
	"        <node name=\"m1\" id=\"2\" cached=\"true\"/>\n"
	"      </resource>\n"
	"    </clone>\n"
	"    <resource id=\"kcm\" role=\"Stopped\" failed=\"true\" nodes_running_on=\"0\"/>\n"
	"  </resources>\n"
	"  <node_history>\n"
	"    <node name=\"m9\"><resource_history id=\"etcd\"/></node>\n"
	"  </node_history>\n"
	"  <status code=\"0\" message=\"OK\"/>\n"
	"</pacemaker-result>\n";

static void test_crm_mon(void **state)
{
	struct st_snapshot *s = healthy();
	struct st_report *r = calloc(1, sizeof(*r));

	(void)state;
	status_parse_crm_mon(crm_mon_xml, s);
	assert_true(s->pcmk);
	assert_int_equal(s->npcmk, 3);
	assert_string_equal(s->pcmk_nodes[0].name, "m0");
	assert_true(s->pcmk_nodes[0].online);
	assert_int_equal(s->pcmk_nodes[0].started, 3);
	assert_int_equal(s->pcmk_nodes[0].failed, 0);
	assert_int_equal(s->pcmk_nodes[1].failed, 1);
	assert_false(s->pcmk_nodes[2].online);
	assert_int_equal(judge(s, r, "Pacemaker node m2 is offline"), 1);
	assert_int_equal(judge(s, r, "Pacemaker: 1 failed resource on m1"), 1);
	assert_int_equal(r->problems.n, 2);
	assert_int_equal(r->hosts[1].state, ST_HOST_FAILED);
	assert_int_equal(r->hosts[2].state, ST_HOST_FAILED); /* apiserver up, node offline */
	/* not Pacemaker's answer: nothing */
	memset(s->pcmk_nodes, 0, sizeof(s->pcmk_nodes));
	s->npcmk = 0;
	s->pcmk = false;
	status_parse_crm_mon("crm_mon: Error: cluster is not available on this node\n", s);
	assert_false(s->pcmk);
	assert_int_equal(s->npcmk, 0);
	free(r);
	free(s);
}

/* --textfile: the contract's series, exactly; unknown values have no
 * sample (no Lease read, no member list), certificates by file. */
/* The etcd snapshots of this host: read from the directory (names only,
 * the newest by the time in its name), judged overdue past twice
 * etcd.snapshot.every, shown in text and JSON; nothing when the directory
 * is not on this host. */
static void test_etcd_snapshots(void **state)
{
	static const char *const files[] = { "etcd-snapshot-20261129T200000Z.db",
		"etcd-snapshot-20261129T203000Z.db", "etcd-snapshot-20261129T203000Z.db.sha256",
		"etcd-snapshot-20261329T000000Z.db", "notes.txt",
		".etcd-snapshot-20261129T210000Z.db.part" };
	char dir[] = "/tmp/cpha-test-snaps-XXXXXX", path[256];
	struct cp_cluster c;
	struct st_snapshot *s = healthy();
	struct st_report *r = calloc(1, sizeof(*r));
	struct cpha_buf b = { 0 };
	const int64_t t2030 = 1795984200; /* 2026-11-29T20:30:00Z */

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		f = fopen(path, "w");
		assert_non_null(f);
		fclose(f);
	}
	memset(&c, 0, sizeof(c));
	c.snap.dir = dir;
	c.snap.every_usec = 1800 * 1000000ull;
	/* etcd.snapshot not described: not looked for */
	status_collect_snaps(&c, t2030 + 600, s);
	assert_false(s->snaps.read);
	c.snap.on = true;
	status_collect_snaps(&c, t2030 + 600, s);
	assert_true(s->snaps.read);
	assert_int_equal(s->snaps.count, 2);
	assert_string_equal(s->snaps.newest, "etcd-snapshot-20261129T203000Z.db");
	assert_int_equal(s->snaps.newest_age, 600);
	assert_int_equal(s->snaps.every_sec, 1800);
	status_check(s, r);
	dump(r);
	assert_int_equal(r->problems.n, 0);
	status_show_text(s, r, &b);
	assert_non_null(strstr(b.data, "\netcd snapshots: 2 in /tmp/cpha-test-snaps-"));
	assert_non_null(
		strstr(b.data, ", newest etcd-snapshot-20261129T203000Z.db (10 min old)\n"));
	cpha_buf_free(&b);
	status_show_json(s, r, &b);
	assert_non_null(strstr(b.data, "\"etcd_snapshots\""));
	assert_non_null(strstr(b.data, "\"age_seconds\": 600"));
	cpha_buf_free(&b);

	/* one run missed: still fine; two: overdue */
	s->snaps.newest_age = 3600;
	assert_int_equal(judge(s, r, "etcd snapshots"), 0);
	s->snaps.newest_age = 3601;
	assert_int_equal(judge(s, r, "etcd snapshots: the newest in "), 1);
	assert_int_equal(judge(s, r,
				 ", etcd-snapshot-20261129T203000Z.db, is 60 min old; "
				 "etcd.snapshot.every is 30 min"),
		1);
	assert_int_equal(r->worst, ST_DEGRADED);
	assert_non_null(strstr(r->roles[0].notes, "snapshots overdue"));
	status_show_text(s, r, &b);
	assert_non_null(strstr(b.data, "(60 min old), overdue\n"));
	cpha_buf_free(&b);

	/* none left in the directory */
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		assert_int_equal(unlink(path), 0);
	}
	memset(&s->snaps, 0, sizeof(s->snaps));
	status_collect_snaps(&c, t2030, s);
	assert_true(s->snaps.read);
	assert_int_equal(judge(s, r, "etcd snapshots: none in /tmp/cpha-test-snaps-"), 1);

	/* the directory is not on this host (no etcd member here) */
	assert_int_equal(rmdir(dir), 0);
	memset(&s->snaps, 0, sizeof(s->snaps));
	status_collect_snaps(&c, t2030, s);
	assert_false(s->snaps.read);
	assert_int_equal(judge(s, r, "etcd snapshots"), 0);
	assert_int_equal(r->worst, ST_HEALTHY);
	status_show_text(s, r, &b);
	assert_null(strstr(b.data, "etcd snapshots"));
	cpha_buf_free(&b);
	status_show_json(s, r, &b);
	assert_null(strstr(b.data, "etcd_snapshots"));
	cpha_buf_free(&b);
	free(r);
	free(s);
}

static void test_textfile(void **state)
{
	struct st_snapshot *s = healthy();
	struct st_report *r = calloc(1, sizeof(*r));
	struct cpha_buf b = { 0 };
	const struct st_cert *c;
	unsigned voting, learners;

	(void)state;
	s->etcd[1].reach = ST_UNREACHABLE; /* not healthy, whatever /health said */
	s->etcd[2].healthy = false;
	assert_false(status_etcd_members(s, &voting, &learners));
	s->etcd[1].listed = true; /* the first member that listed counts */
	s->etcd[1].voting = 3;
	s->etcd[1].learners = 1;
	s->etcd[2].listed = true;
	s->etcd[2].voting = 2;
	assert_true(status_etcd_members(s, &voting, &learners));
	assert_int_equal(voting, 3);
	assert_int_equal(learners, 1);
	assert_int_equal(status_etcd_healthy(s), 1);
	s->leases[1].reach = ST_UNREACHABLE;
	s->leases[0].renew_age = 2.25;
	assert_null(status_cert_earliest(s));
	snprintf(s->certs[0].file, ST_TEXT, "admin.pem");
	s->certs[0].not_after = 1830297600; /* 2028-01-01 */
	snprintf(s->certs[1].file, ST_TEXT, "ca.pem");
	s->certs[1].not_after = 2145916800; /* 2038-01-01 */
	snprintf(s->certs[2].file, ST_TEXT, "etcd/peer \"x\".pem");
	s->certs[2].not_after = 1798761600; /* 2027-01-01 */
	s->ncerts = 3;
	c = status_cert_earliest(s);
	assert_non_null(c);
	assert_string_equal(c->file, "etcd/peer \"x\".pem");
	status_check(s, r);
	assert_int_equal(r->worst, ST_DOWN); /* 1 of 3 etcd members healthy */
	status_textfile(s, r, 1795000000.5, &b);
	assert_string_equal(b.data,
		"# HELP cpha_status_timestamp_seconds when cpha status wrote this file (unix "
		"seconds)\n"
		"# TYPE cpha_status_timestamp_seconds gauge\n"
		"cpha_status_timestamp_seconds 1795000000.5\n"
		"# HELP cpha_status_level the worst state cpha status found: 0 healthy, 1 "
		"degraded, 2 down\n"
		"# TYPE cpha_status_level gauge\n"
		"cpha_status_level 2\n"
		"# HELP cpha_lease_renew_age_seconds seconds since the leader renewed its Lease "
		"in kube-system\n"
		"# TYPE cpha_lease_renew_age_seconds gauge\n"
		"cpha_lease_renew_age_seconds{lease=\"kube-controller-manager\"} 2.25\n"
		"# HELP cpha_lease_duration_seconds the Lease's leaseDurationSeconds\n"
		"# TYPE cpha_lease_duration_seconds gauge\n"
		"cpha_lease_duration_seconds{lease=\"kube-controller-manager\"} 15\n"
		"# HELP cpha_etcd_voting_members voting members in etcd's member list\n"
		"# TYPE cpha_etcd_voting_members gauge\n"
		"cpha_etcd_voting_members 3\n"
		"# HELP cpha_etcd_learners learners in etcd's member list\n"
		"# TYPE cpha_etcd_learners gauge\n"
		"cpha_etcd_learners 1\n"
		"# HELP cpha_etcd_members_healthy etcd members of the description whose /health "
		"says true\n"
		"# TYPE cpha_etcd_members_healthy gauge\n"
		"cpha_etcd_members_healthy 1\n"
		"# HELP cpha_cert_expiry_timestamp_seconds notAfter of each certificate in the "
		"PKI directory (unix seconds)\n"
		"# TYPE cpha_cert_expiry_timestamp_seconds gauge\n"
		"cpha_cert_expiry_timestamp_seconds{cert=\"admin.pem\"} 1830297600\n"
		"cpha_cert_expiry_timestamp_seconds{cert=\"ca.pem\"} 2145916800\n"
		"cpha_cert_expiry_timestamp_seconds{cert=\"etcd/peer \\\"x\\\".pem\"} "
		"1798761600\n");
	cpha_buf_free(&b);

	/* nothing known: no Lease family, no member list, no certificate */
	s->leader_elect = false;
	s->etcd[1].listed = s->etcd[2].listed = false;
	s->ncerts = 0;
	status_check(s, r);
	status_textfile(s, r, 1795000000, &b);
	assert_null(strstr(b.data, "cpha_lease"));
	assert_null(strstr(b.data, "cpha_etcd_voting_members"));
	assert_null(strstr(b.data, "cpha_etcd_learners"));
	assert_null(strstr(b.data, "cpha_cert_expiry"));
	assert_non_null(strstr(b.data, "\ncpha_status_timestamp_seconds 1795000000\n"));
	assert_non_null(strstr(b.data, "\ncpha_etcd_members_healthy 1\n"));
	cpha_buf_free(&b);

	/* the text and the JSON name the earliest expiry */
	s->ncerts = 3;
	s->etcd[1].listed = true;
	s->etcd[1].nmembers = 4;
	for (size_t i = 0; i < 4; i++) {
		snprintf(s->etcd[1].member[i].name, ST_NAME, "m%zu", i);
		s->etcd[1].member[i].learner = i == 3;
	}
	status_show_text(s, r, &b);
	assert_non_null(strstr(b.data, "\ncertificates: earliest expiry 2027-01-01 00:00:00 UTC "
				       "(etcd/peer \"x\".pem), 3 read\n"));
	assert_non_null(strstr(b.data, "  member list: 3 voting, 1 learner (m3)\n"));
	cpha_buf_free(&b);
	status_show_json(s, r, &b);
	assert_non_null(strstr(b.data, "\"not_after\": \"2027-01-01 00:00:00 UTC\""));
	assert_non_null(strstr(b.data, "\"voting\": 3"));
	assert_non_null(strstr(b.data, "\"name\": \"m3\",\n"));
	assert_non_null(strstr(b.data, "\"learner\": true"));
	cpha_buf_free(&b);
	free(r);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthy),
		cmocka_unit_test(test_vip_on_two_hosts),
		cmocka_unit_test(test_dual_stack_vips),
		cmocka_unit_test(test_lease_not_renewed),
		cmocka_unit_test(test_etcd),
		cmocka_unit_test(test_etcd_members),
		cmocka_unit_test(test_ready_apiserver_out_of_rotation),
		cmocka_unit_test(test_apiserver_version),
		cmocka_unit_test(test_fence_past_deadline),
		cmocka_unit_test(test_qdevice),
		cmocka_unit_test(test_unreachable_is_not_healthy),
		cmocka_unit_test(test_haproxy_keepalived_unknown),
		cmocka_unit_test(test_crm_mon),
		cmocka_unit_test(test_loopback_reads_this_host),
		cmocka_unit_test(test_textfile),
		cmocka_unit_test(test_etcd_snapshots),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
