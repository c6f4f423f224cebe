/* cpha status, the facts: every source asked at once (one thread per
 * request, each writing only its own part of the snapshot), each within the
 * timeout. etcd's v3 JSON API and the apiservers over TLS with the client
 * certificates of `cpha pki`; the daemons' /status where the description's
 * monitoring: puts it (HTTP or HTTPS, basic auth); Pacemaker
 * through crm_mon when it is installed here and answers. */
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "duration.h"
#include "flags.h"
#include "httpc.h"
#include "render_ha.h"
#include "render_text.h"
#include "run.h"
#include "status.h"

#define LEASE_PATH "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/"

struct collect {
	const struct cp_cluster *c;
	uint64_t timeout;
	struct cpha_http_tls etcd_tls, admin_tls, none;
	char ca[4096], etcd_cert[4096], etcd_key[4096], admin_cert[4096], admin_key[4096];
	/* the daemons' /status: http or https (monitoring.tls, verified with
	 * the cluster CA), basic auth (monitoring.basic_auth) */
	struct cpha_http_tls mon_tls;
	const char *mon_scheme;
	char userpwd[512];
	char mon_error[ST_TEXT]; /* why the password could not be read; "" */
	struct ifaddrs *local;   /* this host's addresses */
	bool pki_given;          /* the certificates of a PKI directory, not as installed */
};

struct job {
	void (*fn)(struct collect *k, struct job *j);
	struct collect *k;
	const struct cp_host *h;
	void *out;
	pthread_t t;
	bool started;
};

/* Copy a message, cut to the room there is. */
static void set_err(char *err, size_t len, const char *msg)
{
	size_t n = strnlen(msg, len - 1);

	memcpy(err, msg, n);
	err[n] = '\0';
}

/* One request; the reach it had. A body that is not a JSON object with
 * status 200 is "unreachable" when want_json is set (*root NULL). */
static enum st_reach ask(struct collect *k, const struct cpha_http_tls *tls, const char *url,
	const char *post, long *status, json_t **root, char *err, size_t errlen)
{
	struct cpha_http_res res = { 0 };
	enum st_reach reach;
	int r = cpha_http_call(tls, url, post, k->timeout, &res);

	if (status)
		*status = res.status;
	if (root)
		*root = NULL;
	if (r == -ECONNREFUSED) {
		set_err(err, errlen, res.error);
		reach = ST_REFUSED;
	} else if (r < 0) {
		set_err(err, errlen, res.error);
		reach = ST_UNREACHABLE;
	} else if (root && res.status != 200) {
		snprintf(err, errlen, "HTTP %ld", res.status);
		reach = ST_UNREACHABLE;
	} else if (root && !(*root = json_loads(res.body.data, 0, NULL))) {
		snprintf(err, errlen, "the answer is not JSON");
		reach = ST_UNREACHABLE;
	} else {
		reach = ST_ANSWERED;
	}
	cpha_buf_free(&res.body);
	return reach;
}

static void url_of(char *buf, size_t len, const char *scheme, const struct cpha_addr *a,
	unsigned port, const char *path)
{
	char hp[CPHA_ADDR_STRLEN + 8];

	snprintf(
		buf, len, "%s://%s%s", scheme, render_text_hostport(a, port, hp, sizeof(hp)), path);
}

/* o[key] as a string, or dflt when it is not one. */
static const char *jstr(json_t *o, const char *key, const char *dflt)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v ? v : dflt;
}

/* etcd's JSON gateway writes 64-bit numbers as strings. */
static uint64_t u64_of(json_t *v)
{
	if (json_is_string(v))
		return strtoull(json_string_value(v), NULL, 10);
	return json_is_integer(v) ? (uint64_t)json_integer_value(v) : 0;
}

/* The member list this member knows: voting members and learners
 * (etcd's Member.isLearner; a false one is left out of the JSON). Its
 * failure leaves e->listed false and the member's own error alone. */
static void members(struct collect *k, const struct cp_host *h, struct st_etcd *e)
{
	char url[512], err[ST_TEXT];
	json_t *root, *m;
	size_t i;

	url_of(url, sizeof(url), "https", &h->addr, FLAGS_ETCD_CLIENT_PORT,
		"/v3/cluster/member/list");
	if (ask(k, &k->etcd_tls, url, "{}", NULL, &root, err, sizeof(err)) != ST_ANSWERED)
		return;
	json_array_foreach(json_object_get(root, "members"), i, m)
	{
		bool learner = json_is_true(json_object_get(m, "isLearner")) ||
			       json_is_true(json_object_get(m, "is_learner"));
		const char *name = jstr(m, "name", "");

		if (learner)
			e->learners++;
		else
			e->voting++;
		if (e->nmembers < ST_MAX_HOSTS) {
			struct st_member *sm = &e->member[e->nmembers++];

			if (!*name)
				name = json_string_value(
					json_array_get(json_object_get(m, "peerURLs"), 0));
			snprintf(sm->name, sizeof(sm->name), "%s", name ? name : "?");
			sm->learner = learner;
		}
	}
	e->listed = json_is_array(json_object_get(root, "members"));
	json_decref(root);
}

static void job_etcd(struct collect *k, struct job *j)
{
	struct st_etcd *e = j->out;
	char url[512];
	json_t *root, *health;

	url_of(url, sizeof(url), "https", &j->h->addr, FLAGS_ETCD_CLIENT_PORT,
		"/v3/maintenance/status");
	e->reach = ask(k, &k->etcd_tls, url, "{}", NULL, &root, e->error, sizeof(e->error));
	if (e->reach != ST_ANSWERED)
		return;
	e->id = u64_of(json_object_get(json_object_get(root, "header"), "member_id"));
	e->leader = u64_of(json_object_get(root, "leader"));
	e->term = u64_of(json_object_get(root, "raftTerm"));
	json_decref(root);
	members(k, j->h, e);
	url_of(url, sizeof(url), "https", &j->h->addr, FLAGS_ETCD_CLIENT_PORT, "/health");
	if (ask(k, &k->etcd_tls, url, NULL, NULL, &health, e->error, sizeof(e->error)) ==
		ST_ANSWERED) {
		json_t *v = json_object_get(health, "health");

		e->healthy = json_is_string(v) && strcmp(json_string_value(v), "true") == 0;
		if (!e->healthy)
			snprintf(e->error, sizeof(e->error), "/health: %s",
				jstr(health, "reason", "false"));
		json_decref(health);
	}
}

static void job_api(struct collect *k, struct job *j)
{
	struct st_api *a = j->out;
	char url[512];

	url_of(url, sizeof(url), "https", &j->h->addr, k->c->api_port, "/readyz");
	a->refused = ask(k, &k->admin_tls, url, NULL, &a->readyz, NULL, a->error,
			     sizeof(a->error)) == ST_REFUSED;
	if (a->readyz) {
		/* the version it runs, against the one its flags were made for */
		char err[ST_TEXT];
		json_t *root;

		url_of(url, sizeof(url), "https", &j->h->addr, k->c->api_port, "/version");
		if (ask(k, &k->admin_tls, url, NULL, NULL, &root, err, sizeof(err)) ==
			ST_ANSWERED) {
			snprintf(
				a->version, sizeof(a->version), "%s", jstr(root, "gitVersion", ""));
			json_decref(root);
		}
	}
}

static void job_vip(struct collect *k, struct job *j)
{
	struct st_snapshot *s = j->out;
	char url[512];

	url_of(url, sizeof(url), "https", &k->c->vip, k->c->api_port, "/readyz");
	ask(k, &k->admin_tls, url, NULL, &s->vip_readyz, NULL, s->vip_error, sizeof(s->vip_error));
	if (!k->c->has_vip2)
		return;
	url_of(url, sizeof(url), "https", &k->c->vip2, k->c->api_port, "/readyz");
	ask(k, &k->admin_tls, url, NULL, &s->vip2_readyz, NULL, s->vip2_error,
		sizeof(s->vip2_error));
}

/* RFC 3339 with optional fraction ("2024-05-01T10:00:00.123456Z"), UTC. */
static double parse_time(const char *t)
{
	struct tm tm = { 0 };
	double frac = 0;
	const char *dot;

	if (!t || sscanf(t, "%d-%d-%dT%d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
			  &tm.tm_min, &tm.tm_sec) != 6)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	dot = strchr(t, '.');
	if (dot)
		frac = strtod(dot, NULL);
	return (double)timegm(&tm) + frac;
}

/* The Lease through the VIP, else from each apiserver in turn. */
static void job_lease(struct collect *k, struct job *j)
{
	struct st_lease *l = j->out;
	char url[512], path[256];
	json_t *root = NULL, *spec;
	long status = 0;
	double renewed;

	snprintf(path, sizeof(path), LEASE_PATH "%s", l->name);
	for (size_t i = 0; i <= k->c->nhosts; i++) {
		const struct cp_host *h = i ? &k->c->hosts[i - 1] : NULL;

		if (h && !(h->roles & CP_ROLE_MASTER))
			continue;
		url_of(url, sizeof(url), "https", h ? &h->addr : &k->c->vip, k->c->api_port, path);
		l->reach = ask(
			k, &k->admin_tls, url, NULL, &status, &root, l->error, sizeof(l->error));
		if (status == 404)
			l->reach = ST_ANSWERED; /* nobody ever led */
		if (l->reach == ST_ANSWERED) {
			snprintf(l->via, sizeof(l->via), "%s", h ? h->name : "VIP");
			break;
		}
	}
	if (!root)
		return;
	spec = json_object_get(root, "spec");
	l->found = true;
	snprintf(l->holder, sizeof(l->holder), "%s", jstr(spec, "holderIdentity", ""));
	l->transitions = (long)json_integer_value(json_object_get(spec, "leaseTransitions"));
	l->duration = (long)json_integer_value(json_object_get(spec, "leaseDurationSeconds"));
	renewed = parse_time(json_string_value(json_object_get(spec, "renewTime")));
	l->renew_age = renewed < 0 ? -1 : (double)cpha_now_usec(CLOCK_REALTIME) / 1e6 - renewed;
	if (renewed >= 0 && l->renew_age < 0)
		l->renew_age = 0; /* clocks a little apart */
	json_decref(root);
}

static bool is_local(const struct collect *k, const struct cp_host *h)
{
	for (const struct ifaddrs *i = k->local; i; i = i->ifa_next)
		if (cpha_addr_same_ip(&h->addr, i->ifa_addr))
			return true;
	return false;
}

/* The URL of a daemon's /status on host h (monitoring.listen), or false
 * when it cannot be read from here: on loopback of another host. */
static bool mon_url(
	struct collect *k, const struct cp_host *h, unsigned port, char *url, size_t len)
{
	struct cpha_addr a;

	if (!render_mon_reach(k->c, h, is_local(k, h), &a))
		return false;
	url_of(url, len, k->mon_scheme, &a, port, "/status");
	return true;
}

/* ask() a daemon's /status, with the password's problem added to a 401. */
static enum st_reach ask_mon(
	struct collect *k, const char *url, json_t **root, char *err, size_t errlen)
{
	long status = 0;
	enum st_reach r = ask(k, &k->mon_tls, url, NULL, &status, root, err, errlen);

	if (status == 401 && *k->mon_error)
		snprintf(err, errlen, "HTTP 401: %.180s", k->mon_error);
	return r;
}

static void job_lbd(struct collect *k, struct job *j)
{
	struct st_lb *lb = j->out;
	json_t *root, *be, *srv;
	char url[512];
	size_t i, n;

	if (!mon_url(k, j->h, RENDER_LBD_METRICS_PORT, url, sizeof(url)))
		return; /* ST_NOT_ASKED */
	lb->lbd = ask_mon(k, url, &root, lb->lbd_error, sizeof(lb->lbd_error));
	if (lb->lbd != ST_ANSWERED)
		return;
	json_array_foreach(json_object_get(root, "backends"), i, be)
	{
		const char *name = json_string_value(json_object_get(be, "name"));

		if (!name || strcmp(name, RENDER_LB_PROXY) != 0)
			continue;
		json_array_foreach(json_object_get(be, "servers"), n, srv)
		{
			struct st_lbd_server *s;
			const char *v;

			if (lb->nservers == ST_MAX_SERVERS)
				break;
			s = &lb->servers[lb->nservers++];
			v = json_string_value(json_object_get(srv, "name"));
			snprintf(s->name, sizeof(s->name), "%s", v ? v : "");
			v = json_string_value(json_object_get(srv, "state"));
			snprintf(s->state, sizeof(s->state), "%s", v ? v : "DOWN");
			v = json_string_value(json_object_get(srv, "check"));
			snprintf(s->check, sizeof(s->check), "%s", v ? v : "");
		}
	}
	json_decref(root);
}

/* HAProxy's monitor frontend (rendered on the host's address too):
 * /healthz is 200 while an apiserver is up behind it, 503 when none is. */
static void job_monitor(struct collect *k, struct job *j)
{
	struct st_lb *lb = j->out;
	char url[512];

	url_of(url, sizeof(url), "http", &j->h->addr, RENDER_LB_MONITOR_PORT, "/healthz");
	lb->monitor = ask(k, &k->none, url, NULL, &lb->healthz, NULL, lb->monitor_error,
		sizeof(lb->monitor_error));
}

static void job_vipd(struct collect *k, struct job *j)
{
	struct st_lb *lb = j->out;
	json_t *root, *in, *vip, *t;
	char url[512], want[CPHA_ADDR_STRLEN], want2[CPHA_ADDR_STRLEN] = "";
	size_t i, n;

	cpha_addr_format(&k->c->vip, want, sizeof(want));
	if (k->c->has_vip2)
		cpha_addr_format(&k->c->vip2, want2, sizeof(want2));
	if (!mon_url(k, j->h, RENDER_VIPD_METRICS_PORT, url, sizeof(url)))
		return; /* ST_NOT_ASKED */
	lb->vipd = ask_mon(k, url, &root, lb->vipd_error, sizeof(lb->vipd_error));
	if (lb->vipd != ST_ANSWERED)
		return;
	json_array_foreach(json_object_get(root, "instances"), i, in)
	{
		const char *st = json_string_value(json_object_get(in, "state"));

		/* the drain file, as cpha render names its track */
		json_array_foreach(json_object_get(in, "tracks"), n, t)
		{
			const char *tn = json_string_value(json_object_get(t, "name"));

			if (tn && strcmp(tn, RENDER_LB_DRAIN_TRACK) == 0 &&
				json_is_false(json_object_get(t, "ok")))
				lb->drained = true;
		}
		json_array_foreach(json_object_get(in, "vips"), n, vip)
		{
			const char *a = json_string_value(json_object_get(vip, "address"));

			if (a && *want2 && strcmp(a, want2) == 0)
				lb->vip2_present |= json_is_true(json_object_get(vip, "present"));
			if (!a || strcmp(a, want) != 0)
				continue;
			snprintf(lb->vrrp, sizeof(lb->vrrp), "%s", st ? st : "?");
			lb->hold_ms = (long)json_integer_value(json_object_get(in, "hold_ms"));
			lb->priority = (int)json_integer_value(json_object_get(in, "priority"));
			lb->effective_priority =
				(int)json_integer_value(json_object_get(in, "effective_priority"));
			lb->vip_present |= json_is_true(json_object_get(vip, "present"));
		}
	}
	json_decref(root);
}

static void job_fenced(struct collect *k, struct job *j)
{
	struct st_fence *f = j->out;
	json_t *root, *p, *last;
	char url[512];
	size_t i;

	if (!mon_url(k, j->h, RENDER_FENCED_METRICS_PORT, url, sizeof(url)))
		return; /* ST_NOT_ASKED */
	f->reach = ask_mon(k, url, &root, f->error, sizeof(f->error));
	if (f->reach != ST_ANSWERED)
		return;
	f->quorate = json_is_true(json_object_get(root, "quorate"));
	f->members = (unsigned)json_array_size(json_object_get(root, "members"));
	p = json_object_get(root, "qdevice");
	f->qdevice_reported = json_is_object(p);
	f->qdevice_alive = json_is_true(json_object_get(p, "alive"));
	f->qdevice_vote = json_is_true(json_object_get(p, "cast_vote"));
	json_array_foreach(json_object_get(root, "pending"), i, p)
	{
		struct st_pending *d;
		const char *v;

		if (f->npending == ST_MAX_PENDING)
			break;
		d = &f->pending[f->npending++];
		v = json_string_value(json_object_get(p, "node"));
		snprintf(d->node, sizeof(d->node), "%s", v ? v : "?");
		v = json_string_value(json_object_get(p, "state"));
		snprintf(d->state, sizeof(d->state), "%s", v ? v : "?");
		d->due_in = json_number_value(json_object_get(p, "due_in"));
		d->overdue = json_is_true(json_object_get(p, "overdue"));
		d->failed = json_is_true(json_object_get(p, "failed"));
	}
	last = json_array_get(json_object_get(root, "history"),
		json_array_size(json_object_get(root, "history")) - 1);
	if (last)
		snprintf(f->last, sizeof(f->last), "%s %s %s %s", jstr(last, "time", ""),
			jstr(last, "node", ""), jstr(last, "event", ""),
			json_is_true(json_object_get(last, "ok")) ? "ok" : "failed");
	json_decref(root);
}

static void *job_run(void *arg)
{
	struct job *j = arg;

	j->fn(j->k, j);
	return NULL;
}

/* crm_mon --output-as=xml: the nodes, and per node the resources that
 * failed on it. Not there or not answering: no Pacemaker facts. */
static void collect_pcmk(struct collect *k, struct st_snapshot *s)
{
	struct cpha_spawn_opts o = { .timeout_usec = k->timeout, .output_max = 4 << 20 };
	struct cpha_run_result res = { 0 };
	char *exe = run_which("crm_mon");
	const char *argv[] = { NULL, "--output-as=xml", NULL };

	if (!exe)
		return;
	argv[0] = exe;
	o.argv = argv;
	if (cpha_run(&o, &res) < 0 || !res.exited || res.exit_code != 0 || !res.out)
		goto out;
	status_parse_crm_mon(res.out, s);
out:
	cpha_run_free(&res);
	free(exe);
}

static void certs(struct collect *k, const char *pki)
{
	/* NULL: where docs/runbook.md installs them on a master */
	const char *k8s = pki ? pki : STATUS_INSTALLED_K8S_PKI;
	const char *etcd = pki ? pki : STATUS_INSTALLED_ETCD_PKI;

	snprintf(k->ca, sizeof(k->ca), "%s/ca.pem", k8s);
	snprintf(k->etcd_cert, sizeof(k->etcd_cert), "%s/etcd-client.pem", etcd);
	snprintf(k->etcd_key, sizeof(k->etcd_key), "%s/etcd-client-key.pem", etcd);
	snprintf(k->admin_cert, sizeof(k->admin_cert), "%s/admin.pem", k8s);
	snprintf(k->admin_key, sizeof(k->admin_key), "%s/admin-key.pem", k8s);
	k->etcd_tls =
		(struct cpha_http_tls){ .ca = k->ca, .cert = k->etcd_cert, .key = k->etcd_key };
	k->admin_tls =
		(struct cpha_http_tls){ .ca = k->ca, .cert = k->admin_cert, .key = k->admin_key };
}

/* monitoring: https with the cluster CA, and the password of basic_auth
 * from its password_file (first line). */
static void mon_setup(struct collect *k)
{
	const struct cp_monitoring *m = &k->c->mon;
	char pw[256];
	ssize_t n;
	int fd;

	k->mon_scheme = m->cert_file ? "https" : "http";
	/* as installed, the CA is also where an LB host has one */
	k->mon_tls = (struct cpha_http_tls){ .ca = !m->cert_file ? NULL
						   : access(k->ca, R_OK) == 0 || k->pki_given
							   ? k->ca
							   : RENDER_MON_CA };
	if (getifaddrs(&k->local) == -1)
		k->local = NULL;
	if (!m->user)
		return;
	if (!m->password_file) {
		snprintf(k->mon_error, sizeof(k->mon_error),
			"monitoring.basic_auth has no password_file for cpha status");
		return;
	}
	fd = open(m->password_file, O_RDONLY | O_CLOEXEC);
	n = fd == -1 ? -1 : read(fd, pw, sizeof(pw) - 1);
	if (n < 0) {
		snprintf(k->mon_error, sizeof(k->mon_error),
			"monitoring.basic_auth.password_file %s: %s", m->password_file,
			strerror(errno));
		if (fd != -1)
			close(fd);
		return;
	}
	close(fd);
	pw[n] = '\0';
	pw[strcspn(pw, "\r\n")] = '\0';
	snprintf(k->userpwd, sizeof(k->userpwd), "%s:%s", m->user, pw);
	explicit_bzero(pw, sizeof(pw));
	k->mon_tls.userpwd = k->userpwd;
}

static void collect(const struct cp_cluster *c, const char *pki, uint64_t timeout_usec,
	struct st_snapshot *s, bool lbs_only)
{
	struct collect k = { .c = c, .timeout = timeout_usec, .pki_given = pki != NULL };
	struct job jobs[ST_MAX_HOSTS * 8];
	size_t nj = 0, i;

#define JOB(f, host, o)                                                                            \
	do {                                                                                       \
		if (nj < sizeof(jobs) / sizeof(jobs[0]))                                           \
			jobs[nj++] = (struct job){ .fn = (f), .k = &k, .h = (host), .out = (o) };  \
	} while (0)

	memset(s, 0, sizeof(*s));
	certs(&k, pki);
	mon_setup(&k);
	s->mon_local_only = c->mon.listen == CP_MON_LOOPBACK;
	snprintf(s->cluster, sizeof(s->cluster), "%s", c->name);
	cpha_addr_format(&c->vip, s->vip, sizeof(s->vip));
	if (c->has_vip2)
		cpha_addr_format(&c->vip2, s->vip2, sizeof(s->vip2));
	s->leader_elect = c->leader_elect;
	s->fencing_configured = c->ndevices > 0 || c->watchdog_device;
	if (c->qdevice.on)
		snprintf(s->qdevice, sizeof(s->qdevice), "%s", c->qdevice.address);
	s->lb_lbd = c->lb == CP_LB_LBD;
	s->vip_vipd = c->vipd == CP_VIP_VIPD;
	s->k8s_minor = c->k8s_minor;
	for (i = 0; i < c->netcd && s->netcd < ST_MAX_HOSTS && !lbs_only; i++) {
		const struct cp_host *h = &c->hosts[c->etcd[i]];
		struct st_etcd *e = &s->etcd[s->netcd++];

		snprintf(e->host, sizeof(e->host), "%s", h->name);
		JOB(job_etcd, h, e);
	}
	for (i = 0; i < c->nhosts && !lbs_only; i++) {
		const struct cp_host *h = &c->hosts[i];
		enum ha_tier t = ha_tier_of(c, h);

		if ((h->roles & CP_ROLE_MASTER) && s->napi < ST_MAX_HOSTS) {
			struct st_api *a = &s->api[s->napi++];

			snprintf(a->host, sizeof(a->host), "%s", h->name);
			JOB(job_api, h, a);
		}
		if (t != HA_TIER_NONE && s->nfence < ST_MAX_HOSTS) {
			struct st_fence *f = &s->fence[s->nfence++];

			snprintf(f->host, sizeof(f->host), "%s", h->name);
			f->qdevice_expected = ha_tier_qdevice(c, t);
			JOB(job_fenced, h, f);
		}
	}
	for (i = 0; i < cluster_lb_count(c) && s->nlbs < ST_MAX_HOSTS; i++) {
		const struct cp_host *h = cluster_lb_host(c, i);
		struct st_lb *lb = &s->lbs[s->nlbs++];

		snprintf(lb->host, sizeof(lb->host), "%s", h->name);
		if (s->lb_lbd)
			JOB(job_lbd, h, lb);
		else
			JOB(job_monitor, h, lb);
		if (s->vip_vipd)
			JOB(job_vipd, h, lb);
	}
	if (!lbs_only)
		JOB(job_vip, NULL, s);
	snprintf(s->leases[0].name, ST_NAME, "kube-controller-manager");
	snprintf(s->leases[1].name, ST_NAME, "kube-scheduler");
	s->nleases = 2;
	if (c->leader_elect && !lbs_only) {
		JOB(job_lease, NULL, &s->leases[0]);
		JOB(job_lease, NULL, &s->leases[1]);
	}
#undef JOB
	for (i = 0; i < nj; i++)
		jobs[i].started = pthread_create(&jobs[i].t, NULL, job_run, &jobs[i]) == 0;
	for (i = 0; i < nj; i++) {
		if (jobs[i].started)
			pthread_join(jobs[i].t, NULL);
		else
			jobs[i].fn(jobs[i].k, &jobs[i]); /* no thread: in turn */
	}
	if (!lbs_only) {
		collect_pcmk(&k, s);
		status_collect_certs(pki, s);
		status_collect_snaps(
			c, (int64_t)(cpha_now_usec(CLOCK_REALTIME) / CPHA_USEC_PER_SEC), s);
	}
	explicit_bzero(k.userpwd, sizeof(k.userpwd));
	if (k.local)
		freeifaddrs(k.local);
}

void status_collect(
	const struct cp_cluster *c, const char *pki, uint64_t timeout_usec, struct st_snapshot *s)
{
	collect(c, pki, timeout_usec, s, false);
}

void status_collect_lbs(
	const struct cp_cluster *c, const char *pki, uint64_t timeout_usec, struct st_snapshot *s)
{
	collect(c, pki, timeout_usec, s, true);
}
