/* cpha status, shown: the role table, the hosts, the details each source
 * gave and the problem lines, as text for a terminal or as one JSON
 * object. Only states, names and addresses: no secret is ever read, so
 * none can be printed. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "status.h"

static const char *reach_text(enum st_reach r)
{
	static const char *const names[] = {
		[ST_NOT_ASKED] = "not asked",
		[ST_ANSWERED] = "answered",
		[ST_REFUSED] = "not running",
		[ST_UNREACHABLE] = "unreachable",
	};
	return names[r];
}

static const char *upper_level(enum st_level l)
{
	return l == ST_HEALTHY ? "HEALTHY" : l == ST_DEGRADED ? "DEGRADED" : "DOWN";
}

static void now_text(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

static void day_text(int64_t t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

/* "certificates: earliest expiry 2027-... (admin.pem), 14 read" */
static void text_certs(const struct st_snapshot *s, struct cpha_buf *b)
{
	const struct st_cert *c = status_cert_earliest(s);
	char when[64];

	if (c) {
		day_text(c->not_after, when, sizeof(when));
		cpha_buf_printf(b, "\ncertificates: earliest expiry %s (%s), %zu read", when,
			c->file, s->ncerts);
	} else {
		cpha_buf_puts(b, "\ncertificates: none read");
	}
	if (*s->cert_error)
		cpha_buf_printf(b, "; %s", s->cert_error);
	cpha_buf_puts(b, "\n");
}

/* "etcd snapshots: 8 in /var/lib/etcd-snapshots, newest
 * etcd-snapshot-...db (12 min old)", when this host has them */
static void text_snaps(const struct st_snapshot *s, struct cpha_buf *b)
{
	const struct st_snaps *n = &s->snaps;

	if (!n->read)
		return;
	if (*n->error)
		cpha_buf_printf(b, "etcd snapshots: %s: %s\n", n->dir, n->error);
	else if (!n->count)
		cpha_buf_printf(b, "etcd snapshots: none in %s\n", n->dir);
	else
		cpha_buf_printf(b, "etcd snapshots: %u in %s, newest %s (%lld min old)%s\n",
			n->count, n->dir, n->newest, (long long)(n->newest_age / 60),
			status_snaps_overdue(n) ? ", overdue" : "");
}

/* {dir, count, newest, newest_unix, age_seconds, every_seconds, overdue,
 * error}, or null when this host has none to show */
static json_t *snaps_json(const struct st_snapshot *s)
{
	const struct st_snaps *n = &s->snaps;

	if (!n->read)
		return json_null();
	return json_pack("{s:s,s:i,s:o,s:o,s:o,s:I,s:b,s:s}", "dir", n->dir, "count", (int)n->count,
		"newest", *n->newest ? json_string(n->newest) : json_null(), "newest_unix",
		*n->newest ? json_integer(n->newest_time) : json_null(), "age_seconds",
		*n->newest ? json_integer(n->newest_age) : json_null(), "every_seconds",
		(json_int_t)n->every_sec, "overdue", status_snaps_overdue(n), "error", n->error);
}

static void text_details(const struct st_snapshot *s, struct cpha_buf *b)
{
	unsigned voting, learners;
	size_t i, j;

	cpha_buf_puts(b, "\netcd members\n");
	for (i = 0; i < s->netcd; i++) {
		const struct st_etcd *e = &s->etcd[i];

		if (e->reach != ST_ANSWERED)
			cpha_buf_printf(
				b, "  %-12s %s: %s\n", e->host, reach_text(e->reach), e->error);
		else
			cpha_buf_printf(b,
				"  %-12s %-9s id %016" PRIx64 "  leader %016" PRIx64
				"  term %" PRIu64 "%s%s\n",
				e->host, e->healthy ? "healthy" : "UNHEALTHY", e->id, e->leader,
				e->term, *e->error ? "  " : "", e->error);
	}
	if (status_etcd_members(s, &voting, &learners)) {
		const struct st_etcd *l = status_etcd_lister(s);
		const char *sep = " (";

		cpha_buf_printf(b, "  member list: %u voting, %u learner%s", voting, learners,
			learners == 1 ? "" : "s");
		for (j = 0; j < l->nmembers; j++)
			if (l->member[j].learner) {
				cpha_buf_printf(b, "%s%s", sep, l->member[j].name);
				sep = ", ";
			}
		cpha_buf_puts(b, *sep == ',' ? ")\n" : "\n");
	}
	cpha_buf_puts(b, "\nkube-apiserver /readyz\n");
	for (i = 0; i < s->napi; i++) {
		const struct st_api *a = &s->api[i];

		if (a->readyz)
			cpha_buf_printf(b, "  %-12s HTTP %ld%s%s", a->host, a->readyz,
				*a->version ? "  " : "", a->version);
		else
			cpha_buf_printf(b, "  %-12s %s: %s", a->host,
				a->refused ? "not running" : "no answer", a->error);
		for (j = 0; j < s->nlbs; j++)
			for (size_t k = 0; k < s->lbs[j].nservers; k++)
				if (strcmp(s->lbs[j].servers[k].name, a->host) == 0)
					cpha_buf_printf(b, "  [lbd %s: %s]", s->lbs[j].host,
						s->lbs[j].servers[k].state);
		cpha_buf_puts(b, "\n");
	}
	if (s->vip_readyz)
		cpha_buf_printf(b, "  via VIP %-4s HTTP %ld\n", s->vip, s->vip_readyz);
	else
		cpha_buf_printf(b, "  via VIP %s: no answer: %s\n", s->vip, s->vip_error);
	if (*s->vip2 && s->vip2_readyz)
		cpha_buf_printf(b, "  via VIP %-4s HTTP %ld\n", s->vip2, s->vip2_readyz);
	else if (*s->vip2)
		cpha_buf_printf(b, "  via VIP %s: no answer: %s\n", s->vip2, s->vip2_error);
	if (s->leader_elect) {
		cpha_buf_puts(b, "\nleases (kube-system)\n");
		for (i = 0; i < s->nleases; i++) {
			const struct st_lease *l = &s->leases[i];

			if (l->reach != ST_ANSWERED)
				cpha_buf_printf(b, "  %-24s %s: %s\n", l->name,
					reach_text(l->reach), l->error);
			else if (!l->found)
				cpha_buf_printf(b, "  %-24s none (via %s)\n", l->name, l->via);
			else
				cpha_buf_printf(b,
					"  %-24s holder %s, %ld transitions, renewed %.1fs ago "
					"(lease %lds, via %s)\n",
					l->name, l->holder, l->transitions, l->renew_age,
					l->duration, l->via);
		}
	}
	cpha_buf_puts(b, "\nload balancers\n");
	for (i = 0; i < s->nlbs; i++) {
		const struct st_lb *lb = &s->lbs[i];

		cpha_buf_printf(b, "  %-12s", lb->host);
		if (lb->lbd == ST_ANSWERED) {
			cpha_buf_puts(b, " lbd:");
			for (j = 0; j < lb->nservers; j++)
				cpha_buf_printf(
					b, " %s=%s", lb->servers[j].name, lb->servers[j].state);
		} else if (lb->lbd != ST_NOT_ASKED) {
			cpha_buf_printf(b, " lbd %s", reach_text(lb->lbd));
		}
		if (lb->monitor == ST_ANSWERED)
			cpha_buf_printf(b, " haproxy: /healthz %ld", lb->healthz);
		else if (lb->monitor != ST_NOT_ASKED)
			cpha_buf_printf(b, " haproxy %s", reach_text(lb->monitor));
		if (lb->vipd == ST_ANSWERED)
			cpha_buf_printf(b, "  vipd: %s priority %d (effective %d), VIP %s",
				lb->vrrp, lb->priority, lb->effective_priority,
				lb->vip_present ? "PRESENT" : "absent");
		else if (lb->vipd != ST_NOT_ASKED)
			cpha_buf_printf(b, "  vipd %s", reach_text(lb->vipd));
		cpha_buf_puts(b, "\n");
	}
	cpha_buf_puts(b, "\nfencing (fenced)\n");
	for (i = 0; i < s->nfence; i++) {
		const struct st_fence *f = &s->fence[i];

		if (f->reach != ST_ANSWERED) {
			cpha_buf_printf(b, "  %-12s %s\n", f->host, reach_text(f->reach));
			continue;
		}
		cpha_buf_printf(b, "  %-12s %s, %u members, %zu pending", f->host,
			f->quorate ? "quorate" : "NOT quorate", f->members, f->npending);
		for (j = 0; j < f->npending; j++)
			cpha_buf_printf(b, " [%s %s, due in %.0fs%s%s]", f->pending[j].node,
				f->pending[j].state, f->pending[j].due_in,
				f->pending[j].failed ? ", FAILED" : "",
				f->pending[j].overdue ? ", overdue" : "");
		if (f->qdevice_expected)
			cpha_buf_printf(b, "; quorum device: %s",
				!f->qdevice_reported ? "NONE in corosync"
				: f->qdevice_vote    ? "votes"
				: f->qdevice_alive   ? "NO vote"
						     : "NOT alive");
		if (*f->last)
			cpha_buf_printf(b, "; last: %s", f->last);
		cpha_buf_puts(b, "\n");
	}
	if (s->pcmk) {
		cpha_buf_puts(b, "\npacemaker (crm_mon)\n");
		for (i = 0; i < s->npcmk; i++)
			cpha_buf_printf(b, "  %-12s %s, %u resources running, %u failed\n",
				s->pcmk_nodes[i].name,
				s->pcmk_nodes[i].online ? "online" : "OFFLINE",
				s->pcmk_nodes[i].started, s->pcmk_nodes[i].failed);
	}
	text_certs(s, b);
	text_snaps(s, b);
}

void status_show_text(const struct st_snapshot *s, const struct st_report *r, struct cpha_buf *b)
{
	char when[64];
	size_t i;

	now_text(when, sizeof(when));
	cpha_buf_printf(b, "cluster %s: %s    %s\n\n", s->cluster, upper_level(r->worst), when);
	cpha_buf_printf(b, "%-24s %-33s %-9s %s\n", "ROLE", "STYLE", "STATE", "NOTES");
	for (i = 0; i < ST_NROLES; i++)
		cpha_buf_printf(b, "%-24s %-33s %-9s %s\n", r->roles[i].role, r->roles[i].style,
			r->roles[i].state, r->roles[i].notes);
	cpha_buf_printf(b, "\n%-12s %-16s %-9s %s\n", "HOST", "ROLES", "STATE", "WHY");
	for (i = 0; i < r->nhosts; i++)
		cpha_buf_printf(b, "%-12s %-16s %-9s %s\n", r->hosts[i].name, r->hosts[i].roles,
			status_host_state_name(r->hosts[i].state), r->hosts[i].why);
	text_details(s, b);
	cpha_buf_printf(b, "\nproblems: %zu\n", r->problems.n);
	for (i = 0; i < r->problems.n; i++)
		cpha_buf_printf(b, "  %-8s %s\n", status_level_name(r->problems.v[i].level),
			r->problems.v[i].text);
}

static json_t *etcd_json(const struct st_etcd *e)
{
	char id[20], leader[20];

	snprintf(id, sizeof(id), "%016" PRIx64, e->id);
	snprintf(leader, sizeof(leader), "%016" PRIx64, e->leader);
	return json_pack("{s:s,s:s,s:b,s:s,s:s,s:I,s:s}", "host", e->host, "reach",
		reach_text(e->reach), "healthy", e->healthy, "id", id, "leader", leader,
		"raft_term", (json_int_t)e->term, "error", e->error);
}

/* The member list ({voting, learners}), or null when no member gave one. */
static json_t *members_json(const struct st_snapshot *s)
{
	unsigned voting, learners;

	const struct st_etcd *l = status_etcd_lister(s);
	json_t *names;

	if (!status_etcd_members(s, &voting, &learners))
		return json_null();
	names = json_array();
	for (size_t i = 0; i < l->nmembers; i++)
		json_array_append_new(names, json_pack("{s:s,s:b}", "name", l->member[i].name,
						     "learner", l->member[i].learner));
	return json_pack("{s:i,s:i,s:o}", "voting", (int)voting, "learners", (int)learners,
		"members", names);
}

/* {earliest: {file, not_after} or null, files: [{file, not_after}], error} */
static json_t *certs_json(const struct st_snapshot *s)
{
	const struct st_cert *c = status_cert_earliest(s);
	json_t *files = json_array(), *earliest = json_null();
	char when[64];

	for (size_t i = 0; i < s->ncerts; i++) {
		day_text(s->certs[i].not_after, when, sizeof(when));
		json_array_append_new(
			files, json_pack("{s:s,s:s,s:I}", "file", s->certs[i].file, "not_after",
				       when, "not_after_unix", (json_int_t)s->certs[i].not_after));
	}
	if (c) {
		day_text(c->not_after, when, sizeof(when));
		earliest = json_pack("{s:s,s:s,s:I}", "file", c->file, "not_after", when,
			"not_after_unix", (json_int_t)c->not_after);
	}
	return json_pack(
		"{s:o,s:o,s:s}", "earliest", earliest, "files", files, "error", s->cert_error);
}

static json_t *details_json(const struct st_snapshot *s)
{
	json_t *etcd = json_array(), *api = json_array(), *leases = json_array(),
	       *lbs = json_array(), *fence = json_array(), *pcmk = json_array();
	size_t i, j;

	for (i = 0; i < s->netcd; i++)
		json_array_append_new(etcd, etcd_json(&s->etcd[i]));
	for (i = 0; i < s->napi; i++)
		json_array_append_new(
			api, json_pack("{s:s,s:i,s:b,s:s,s:s}", "host", s->api[i].host, "readyz",
				     (int)s->api[i].readyz, "refused", s->api[i].refused, "error",
				     s->api[i].error, "version", s->api[i].version));
	for (i = 0; i < s->nleases; i++) {
		const struct st_lease *l = &s->leases[i];

		if (!s->leader_elect)
			break;
		json_array_append_new(
			leases, json_pack("{s:s,s:s,s:b,s:s,s:I,s:f,s:I,s:s,s:s}", "name", l->name,
					"reach", reach_text(l->reach), "found", l->found, "holder",
					l->holder, "transitions", (json_int_t)l->transitions,
					"renew_age", l->renew_age, "duration",
					(json_int_t)l->duration, "via", l->via, "error", l->error));
	}
	for (i = 0; i < s->nlbs; i++) {
		const struct st_lb *lb = &s->lbs[i];
		json_t *srv = json_array();

		for (j = 0; j < lb->nservers; j++)
			json_array_append_new(srv,
				json_pack("{s:s,s:s,s:s}", "name", lb->servers[j].name, "state",
					lb->servers[j].state, "check", lb->servers[j].check));
		json_array_append_new(
			lbs, json_pack("{s:s,s:s,s:s,s:o,s:s,s:i,s:s,s:s,s:s,s:i,s:i,s:b}", "host",
				     lb->host, "lbd", reach_text(lb->lbd), "lbd_error",
				     lb->lbd_error, "servers", srv, "haproxy",
				     reach_text(lb->monitor), "healthz", (int)lb->healthz, "vipd",
				     reach_text(lb->vipd), "vipd_error", lb->vipd_error, "vrrp",
				     lb->vrrp, "priority", lb->priority, "effective_priority",
				     lb->effective_priority, "vip_present", lb->vip_present));
	}
	for (i = 0; i < s->nfence; i++) {
		const struct st_fence *f = &s->fence[i];
		json_t *p = json_array();

		for (j = 0; j < f->npending; j++)
			json_array_append_new(
				p, json_pack("{s:s,s:s,s:f,s:b,s:b}", "node", f->pending[j].node,
					   "state", f->pending[j].state, "due_in",
					   f->pending[j].due_in, "overdue", f->pending[j].overdue,
					   "failed", f->pending[j].failed));
		json_array_append_new(
			fence, json_pack("{s:s,s:s,s:s,s:b,s:i,s:o,s:s,s:o}", "host", f->host,
				       "reach", reach_text(f->reach), "error", f->error, "quorate",
				       f->quorate, "members", (int)f->members, "pending", p, "last",
				       f->last, "qdevice",
				       f->qdevice_expected && f->reach == ST_ANSWERED
					       ? json_pack("{s:b,s:b,s:b}", "configured",
							 f->qdevice_reported, "alive",
							 f->qdevice_alive, "vote", f->qdevice_vote)
					       : json_null()));
	}
	for (i = 0; i < s->npcmk; i++)
		json_array_append_new(pcmk,
			json_pack("{s:s,s:b,s:i,s:i}", "node", s->pcmk_nodes[i].name, "online",
				s->pcmk_nodes[i].online, "running", (int)s->pcmk_nodes[i].started,
				"failed", (int)s->pcmk_nodes[i].failed));
	json_t *o = json_pack("{s:o,s:o,s:o,s:{s:s,s:i,s:s},s:o,s:o,s:o,s:o,s:o}", "etcd", etcd,
		"etcd_members", members_json(s), "apiservers", api, "vip", "address", s->vip,
		"readyz", (int)s->vip_readyz, "error", s->vip_error, "leases", leases,
		"load_balancers", lbs, "fencing", fence, "pacemaker", pcmk, "certificates",
		certs_json(s));

	if (o && s->snaps.read)
		json_object_set_new(o, "etcd_snapshots", snaps_json(s));
	/* a dual-stack cluster's second VIP, as the first */
	if (o && *s->vip2)
		json_object_set_new(o, "vip2",
			json_pack("{s:s,s:i,s:s}", "address", s->vip2, "readyz",
				(int)s->vip2_readyz, "error", s->vip2_error));
	return o;
}

void status_show_json(const struct st_snapshot *s, const struct st_report *r, struct cpha_buf *b)
{
	json_t *hosts = json_array(), *roles = json_array(), *problems = json_array(), *root;
	char when[64], *text;
	size_t i;

	now_text(when, sizeof(when));
	for (i = 0; i < r->nhosts; i++)
		json_array_append_new(hosts,
			json_pack("{s:s,s:s,s:s,s:s}", "name", r->hosts[i].name, "roles",
				r->hosts[i].roles, "state",
				status_host_state_name(r->hosts[i].state), "why", r->hosts[i].why));
	for (i = 0; i < ST_NROLES; i++)
		json_array_append_new(
			roles, json_pack("{s:s,s:s,s:s,s:s}", "role", r->roles[i].role, "style",
				       r->roles[i].style, "state", r->roles[i].state, "notes",
				       r->roles[i].notes));
	for (i = 0; i < r->problems.n; i++)
		json_array_append_new(
			problems, json_pack("{s:s,s:s,s:s}", "level",
					  status_level_name(r->problems.v[i].level), "role",
					  r->problems.v[i].role, "text", r->problems.v[i].text));
	root = json_pack("{s:s,s:s,s:s,s:i,s:o,s:o,s:o,s:o}", "cluster", s->cluster, "time", when,
		"worst", status_level_name(r->worst), "exit", (int)r->worst, "hosts", hosts,
		"roles", roles, "problems", problems, "details", details_json(s));
	text = root ? json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
	if (text)
		cpha_buf_printf(b, "%s\n", text);
	free(text);
	json_decref(root);
}
