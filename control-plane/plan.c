/* `cpha plan`: the availability matrix (role, hosts, style,
 * failure tolerance) and the design rules, checked with no I/O. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include "cfgmsg.h"
#include "flags.h"
#include "plan.h"
#include "quorum.h"

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s;

	va_start(ap, f);
	if (vasprintf(&s, f, ap) < 0)
		cpha_oom();
	va_end(ap);
	return s;
}

static void add_role(struct plan *p, char *role, char *hosts, char *style, unsigned members,
	unsigned tolerates, char *tolerance)
{
	struct plan_role *v = realloc(p->roles, (p->nroles + 1) * sizeof(*v));
	if (!v)
		cpha_oom();
	p->roles = v;
	p->roles[p->nroles++] =
		(struct plan_role){ role, hosts, style, tolerance, members, tolerates };
}

static void add_note(struct plan *p, char *note)
{
	char **v = realloc(p->notes, (p->nnotes + 1) * sizeof(*v));
	if (!v)
		cpha_oom();
	p->notes = v;
	p->notes[p->nnotes++] = note;
}

/* Names of the hosts with a role, space-separated. */
static char *names(const struct cp_cluster *c, unsigned role)
{
	size_t len = 1;
	char *s;

	for (size_t i = 0; i < c->nhosts; i++)
		if (c->hosts[i].roles & role)
			len += strlen(c->hosts[i].name) + 1;
	s = calloc(1, len);
	if (!s)
		cpha_oom();
	for (size_t i = 0; i < c->nhosts; i++)
		if (c->hosts[i].roles & role) {
			if (*s)
				strcat(s, " ");
			strcat(s, c->hosts[i].name);
		}
	return s;
}

static const char *plural(unsigned n)
{
	return n == 1 ? "" : "s";
}

/* True when a lies in the network net/prefix (same family). */
static bool in_subnet(const struct cpha_addr *a, const struct cpha_addr *net, unsigned prefix)
{
	const unsigned char *x, *y;
	unsigned bytes, bits;

	if (cpha_addr_family(a) != cpha_addr_family(net))
		return false;
	if (cpha_addr_family(a) == AF_INET) {
		x = (const unsigned char *)&((const struct sockaddr_in *)&a->ss)->sin_addr;
		y = (const unsigned char *)&((const struct sockaddr_in *)&net->ss)->sin_addr;
	} else {
		x = (const unsigned char *)&((const struct sockaddr_in6 *)&a->ss)->sin6_addr;
		y = (const unsigned char *)&((const struct sockaddr_in6 *)&net->ss)->sin6_addr;
	}
	bytes = prefix / 8;
	bits = prefix % 8;
	if (memcmp(x, y, bytes))
		return false;
	if (bits && ((x[bytes] ^ y[bytes]) & (0xffu << (8 - bits)) & 0xffu))
		return false;
	return true;
}

static bool same_addr(const struct cpha_addr *a, const struct cpha_addr *b)
{
	return in_subnet(a, b, cpha_addr_family(a) == AF_INET ? 32 : 128);
}

/* VRIDs that examples and defaults use: keepalived's sample (51), the
 * ends of the range, round numbers. */
static bool common_vrid(unsigned v)
{
	static const unsigned common[] = { 1, 2, 10, 50, 51, 52, 100, 101, 200, 254, 255 };
	for (size_t i = 0; i < sizeof(common) / sizeof(common[0]); i++)
		if (common[i] == v)
			return true;
	return false;
}

static void check_hosts(const struct cp_cluster *c, struct cpha_msgs *d)
{
	const char *f = c->file;

	for (size_t i = 0; i < c->nhosts; i++) {
		const struct cp_host *a = &c->hosts[i];
		for (size_t j = 0; j < i; j++) {
			const struct cp_host *b = &c->hosts[j];
			if (!strcmp(a->name, b->name))
				cpha_msgs_err(d, f, a->name_pos,
					"host name '%s' is used twice (first at line %u)", a->name,
					b->name_pos.line);
			if (same_addr(&a->addr, &b->addr))
				cpha_msgs_err(d, f, a->addr_pos,
					"address %s of %s is also the address of %s (line %u)",
					a->address, a->name, b->name, b->addr_pos.line);
		}
		if (same_addr(&a->addr, &c->vip))
			cpha_msgs_err(d, f, c->vip_pos,
				"the VIP %s is the address of host %s: it must be an address no "
				"host owns, or the holder changes nothing",
				c->vip_text, a->name);
	}
}

static void check_vip(const struct cp_cluster *c, struct cpha_msgs *d)
{
	const struct cp_host *h0 = cluster_lb_count(c) ? cluster_lb_host(c, 0) : NULL;

	if (c->has_vip2 && h0 && cpha_addr_family(&h0->addr) != cpha_addr_family(&c->vip)) {
		cpha_msgs_err(d, c->file, c->vip_pos,
			"vip: list the VIP of the hosts' family first (%s is IPv%c, %s has an "
			"IPv%c address): VRRP runs over the hosts' addresses for it",
			c->vip_text, cpha_addr_family(&c->vip) == AF_INET6 ? '6' : '4', h0->name,
			cpha_addr_family(&h0->addr) == AF_INET6 ? '6' : '4');
		return;
	}
	for (size_t i = 0; i < cluster_lb_count(c); i++) {
		const struct cp_host *h = cluster_lb_host(c, i);
		if (!in_subnet(&h->addr, &c->vip, c->vip_prefix))
			cpha_msgs_err(d, c->file, c->vip_pos,
				"the VIP %s is outside the subnet of %s (%s): VRRP only moves an "
				"address between hosts of one segment",
				c->vip_text, h->name, h->address);
	}
	if (c->vipd == CP_VIP_PACEMAKER && (c->manager != CP_MGR_PACEMAKER || !c->lb_on_masters))
		cpha_msgs_err(d, c->file, c->components_pos,
			"components.vip: pacemaker needs manager: pacemaker and the load "
			"balancer on the masters (leave load_balancers out): the VIP is a "
			"resource of the masters' Pacemaker cluster");
}

static void check_fencing(const struct cp_cluster *c, struct cpha_msgs *d)
{
	for (size_t i = 0; i < c->ndevices; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp(c->devices[i].name, c->devices[j].name))
				cpha_msgs_err(d, c->file, c->devices[i].name_pos,
					"fence device '%s' is defined twice (first at line %u)",
					c->devices[i].name, c->devices[j].name_pos.line);
	for (size_t i = 0; i < c->nhosts; i++) {
		const struct cp_host *h = &c->hosts[i];
		bool found = false;

		if (!(h->roles & (CP_ROLE_MASTER | CP_ROLE_LB)))
			continue; /* an etcd-only host is in no corosync cluster */
		if (!(h->roles & CP_ROLE_MASTER) && c->lbs_unfenced)
			continue; /* fencing.load_balancers: none, warned once */
		for (size_t j = 0; j < c->ndevices; j++)
			if (!strcmp(c->devices[j].host, h->name))
				found = true;
		if (!found)
			cpha_msgs_warn(d, c->file, h->pos,
				"host %s has no fence device: %s cannot power it off when it stops "
				"answering%s",
				h->name,
				(h->roles & CP_ROLE_MASTER) && c->manager == CP_MGR_PACEMAKER
					? "Pacemaker"
					: "fenced",
				c->watchdog_device ? ", only its own watchdog stops it"
						   : ", and there is no watchdog");
	}
}

/* NodeRestriction is not among kube-apiserver's default admission plugins:
 * without it the Node authorizer lets a kubelet's credentials modify the
 * Node objects of other nodes and pods bound to them
 * (https://kubernetes.io/docs/reference/access-authn-authz/admission-controllers/#noderestriction).
 */
static void check_admission(const struct cp_cluster *c, struct cpha_msgs *d)
{
	for (char **a = c->admission; a && *a; a++)
		if (!strcmp(*a, "NodeRestriction"))
			return;
	cpha_msgs_warn(d, c->file, c->admission_pos,
		"kubernetes.admission leaves out NodeRestriction: a node's credentials can "
		"then modify other nodes' objects (their Node objects, labels and the pods "
		"bound to them); add NodeRestriction to the list");
}

/* "m1 198.18.0.11:5403", or the address alone when it names no host. */
static const char *qdevice_where(const struct cp_qdevice *q, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];

	cpha_addr_format(&q->addr, ip, sizeof(ip));
	snprintf(buf, len, cpha_addr_family(&q->addr) == AF_INET6 ? "%s%s[%s]:%u" : "%s%s%s:%u",
		q->host ? q->host : "", q->host ? " " : "", ip, q->port);
	return buf;
}

/* The corosync cluster of role that the quorum device serves: its row,
 * and the node counts corosync-qdevice(8) advises against. */
static void qdevice_role(const struct cp_cluster *c, struct plan *p, struct cpha_msgs *d,
	unsigned role, const char *what, unsigned n)
{
	const struct cp_qdevice *q = &c->qdevice;
	/* ffsplit gives one vote, lms n - 1 (corosync's default) */
	unsigned dv = q->algorithm == CP_QD_FFSPLIT ? 1 : (n > 1 ? n - 1 : 1);
	unsigned quorum = (n + dv) / 2 + 1;
	/* nodes that may fail while the device votes for the rest */
	unsigned tol = n + dv - quorum < n - 1 ? n + dv - quorum : n - 1;
	char a[64];

	add_role(p, fmt("corosync (%s)", what), names(c, role),
		fmt("votequorum with a quorum device (%s, corosync-qnetd at %s)",
			cluster_qd_algorithm_name(q->algorithm), qdevice_where(q, a, sizeof(a))),
		n, tol,
		fmt("%u node%s and %u device vote%s, quorum %u, tolerates %u failure%s (the "
		    "side corosync-qnetd votes for keeps quorum)",
			n, plural(n), dv, plural(dv), quorum, tol, plural(tol)));
	if (q->algorithm == CP_QD_FFSPLIT && n % 2)
		cpha_msgs_warn(d, c->file, q->algorithm_pos.line ? q->algorithm_pos : q->pos,
			"qdevice: algorithm ffsplit with %u %s: corosync-qdevice(8) says ffsplit "
			"makes sense only for an even node count (the device's one vote then "
			"decides nothing a majority would not, and losing the qnetd host and "
			"one node loses quorum); use algorithm: lms, or leave qdevice out",
			n, what);
	/* the fence-race delays are not rendered where the device decides */
	if (n == 2 && c->fence_delay_set && c->fence_delay_usec)
		cpha_msgs_warn(d, c->file, c->fence_delay_pos,
			"fencing.delay is left out of the %s' fenced.conf: their quorum device "
			"decides a split, and a delay would only hold back the side that keeps "
			"quorum",
			what);
	if (c->priority_delay_set && c->priority_delay_usec && c->vipd == CP_VIP_VIPD)
		cpha_msgs_warn(d, c->file, c->priority_delay_pos,
			"fencing.priority_delay_vip is left out of the %s' fenced.conf: their "
			"quorum device decides a split (its heuristics favour the VIP holder), "
			"and a delay would only hold back the side that keeps quorum",
			what);
}

/* The corosync clusters: the masters, and the LB tier when separate. */
static void check_corosync(const struct cp_cluster *c, struct plan *p, struct cpha_msgs *d)
{
	struct {
		unsigned role;
		const char *what;
		bool lb;
	} tiers[2] = { { CP_ROLE_MASTER, "masters", c->lb_on_masters },
		{ CP_ROLE_LB, "load balancers", true } };

	for (size_t t = 0; t < 2; t++) {
		unsigned n = (unsigned)cluster_role_count(c, tiers[t].role);
		bool delay;

		if (!n || (t == 1 && c->lb_on_masters))
			continue;
		if (t == 1 && c->lbs_unfenced) {
			add_role(p, fmt("load-balancer hosts"), names(c, tiers[t].role),
				fmt("not fenced (fencing.load_balancers: none): %s alone decides",
					c->vipd == CP_VIP_VIPD ? "vipd" : "keepalived"),
				n, n - 1,
				fmt("%u hosts, no corosync, no fenced: tolerates %u failure%s", n,
					n - 1, plural(n - 1)));
			cpha_msgs_warn(d, c->file, c->lbs_unfenced_pos,
				"fencing.load_balancers: none: no fenced powers off a "
				"load-balancer "
				"host that stops answering; one that hangs with its links up keeps "
				"the VIP beside its successor until it recovers");
			continue;
		}
		for (size_t i = 0; i < c->nhosts; i++)
			for (size_t j = 0; j < i; j++)
				if ((c->hosts[i].roles & tiers[t].role) &&
					(c->hosts[j].roles & tiers[t].role) &&
					c->hosts[i].node_id == c->hosts[j].node_id)
					cpha_msgs_err(d, c->file, c->hosts[i].pos,
						"node_id %u of %s is also the node id of %s in the "
						"same corosync cluster",
						c->hosts[i].node_id, c->hosts[i].name,
						c->hosts[j].name);
		if (cluster_qdevice_serves(c, tiers[t].role)) {
			qdevice_role(c, p, d, tiers[t].role, tiers[t].what, n);
		} else if (n == 2) {
			delay = c->fence_delay_set && c->fence_delay_usec;
			/* fenced's VIP priority delay counts where fenced decides the
			 * race and knows the VIP holder (vipd's socket: render
			 * writes it for vipd only): the LB tier, or masters not run
			 * by Pacemaker */
			if (tiers[t].lb && c->priority_delay_usec && c->vipd == CP_VIP_VIPD &&
				!(tiers[t].role == CP_ROLE_MASTER &&
					c->manager == CP_MGR_PACEMAKER))
				delay = true;
			add_role(p, fmt("corosync (%s)", tiers[t].what), names(c, tiers[t].role),
				fmt("two_node: each keeps quorum alone; the fence race decides"), 2,
				1,
				fmt("2 nodes, tolerates 1 failure only if it fences the other "
				    "first"));
			if (!delay)
				cpha_msgs_warn(d, c->file,
					tiers[t].role == CP_ROLE_LB ? c->lbs_pos : c->masters_pos,
					"two-node corosync cluster (%s) without a fence delay: on "
					"a "
					"split both sides fence each other at once and both may go "
					"down; set fencing.delay%s%s",
					tiers[t].what,
					tiers[t].lb && c->vipd == CP_VIP_VIPD
						? " or fencing.priority_delay_vip"
						: "",
					tiers[t].lb ? ", or give it a quorum device (qdevice:)"
						    : "");
			else if (tiers[t].lb)
				cpha_msgs_warn(d, c->file,
					tiers[t].role == CP_ROLE_LB ? c->lbs_pos : c->masters_pos,
					"two-node corosync cluster (%s): a partition is decided by "
					"a fence race (%s), and a side that loses it was cut off, "
					"not down; a quorum device on a third host (qdevice:) "
					"gives quorum to one side only",
					tiers[t].what,
					c->fence_delay_set && c->fence_delay_usec
						? "fencing.delay"
						: "fencing.priority_delay_vip: the VIP holder "
						  "fences first");
		} else {
			add_role(p, fmt("corosync (%s)", tiers[t].what), names(c, tiers[t].role),
				fmt("votequorum membership"), n, cpha_quorum_tolerance(n),
				fmt("%u node%s, quorum %u, tolerates %u failure%s", n, plural(n),
					cpha_quorum_majority(n), cpha_quorum_tolerance(n),
					plural(cpha_quorum_tolerance(n))));
		}
	}
}

void plan_check_version(const struct cp_cluster *c, const char *today, struct cpha_msgs *d)
{
	const struct flags_k8s_minor *m = flags_k8s_minor(c->k8s_minor);
	struct cpha_pos at = c->k8s_version_pos;
	char known[128];

	if (!m) {
		cpha_msgs_err(d, c->file, at,
			"kubernetes.version: cpha does not know the flags of Kubernetes 1.%u; it "
			"knows %s",
			c->k8s_minor, flags_k8s_known(known, sizeof(known)));
		return;
	}
	if (today && flags_k8s_past_eol(m, today))
		cpha_msgs_warn(d, c->file, at,
			"kubernetes.version: Kubernetes 1.%u reached its end of life on %s: no "
			"more security fixes upstream (https://kubernetes.io/releases/); "
			"cpha knows %s",
			m->minor, m->eol, flags_k8s_known(known, sizeof(known)));
}

void plan_check_etcd_image(const struct cp_cluster *c, struct cpha_msgs *d)
{
	const char *tag = c->etcd_image ? strrchr(c->etcd_image, ':') : NULL;
	unsigned maj, min;
	char dot;

	if (c->manager != CP_MGR_STATIC_PODS || !tag || strchr(tag, '/'))
		return;
	tag++;
	if (*tag == 'v')
		tag++;
	if (sscanf(tag, "%u.%u%c", &maj, &min, &dot) != 3 || dot != '.' || maj != 3)
		return; /* a tag that names no version: nothing to compare */
	if (min != c->etcd_minor)
		cpha_msgs_warn(d, c->file, c->etcd_image_pos.line ? c->etcd_image_pos : c->etcd_pos,
			"kubernetes.etcd_image: %s runs etcd 3.%u, but etcd.version is 3.%u: its "
			"flags are rendered for 3.%u",
			c->etcd_image, min, c->etcd_minor, c->etcd_minor);
}

/* Failures a corosync cluster of n nodes keeps quorum through: a majority,
 * or with two_node (n == 2) the one that fenced the other. */
static unsigned corosync_tolerance(unsigned n)
{
	return n == 2 ? 1 : cpha_quorum_tolerance(n);
}

/* What the processes on the masters need besides their own host: etcd's
 * quorum when etcd runs on the masters (losing masters loses members), and
 * the masters' Pacemaker quorum when Pacemaker runs them (no-quorum-policy
 * stop). Returns the master failures that leave both, and in why the
 * reason when it is below nm - 1 (else ""). */
static unsigned masters_need(const struct cp_cluster *c, char *why, size_t len)
{
	unsigned nm = (unsigned)c->nmasters, ne = (unsigned)c->netcd, cap = nm ? nm - 1 : 0;
	unsigned te = cpha_quorum_tolerance(ne), stacked = 0;

	*why = 0;
	for (size_t i = 0; i < c->netcd; i++)
		if (c->hosts[c->etcd[i]].roles & CP_ROLE_MASTER)
			stacked++;
	/* failing masters fail their etcd members too */
	if (stacked > te && te < cap) {
		cap = te;
		snprintf(why, len, "etcd runs on the masters and they need its quorum, %u of %u",
			cpha_quorum_majority(ne), ne);
	}
	if (c->manager == CP_MGR_PACEMAKER && corosync_tolerance(nm) < cap) {
		cap = corosync_tolerance(nm);
		snprintf(why, len, "Pacemaker stops them without the masters' quorum, %u of %u",
			cpha_quorum_majority(nm), nm);
	}
	return cap;
}

/* Keep the smallest tolerance and what it comes from (the first one wins
 * a tie: the order of the calls is the order of importance). */
static void limit(unsigned *t, char **why, unsigned v, char *reason)
{
	if (!*why || v < *t) {
		free(*why);
		*t = v;
		*why = reason;
	} else {
		free(reason);
	}
}

/* The control plane as a whole survives f host failures when every part
 * does: etcd, the masters' Pacemaker, the apiservers, the load balancers
 * and the VIP, each counted on its own hosts. */
static void control_plane(const struct cp_cluster *c, struct plan *p, unsigned t_api,
	unsigned t_vip, const char *vip_why)
{
	unsigned ne = (unsigned)c->netcd, nm = (unsigned)c->nmasters;
	unsigned nl = (unsigned)cluster_lb_count(c), t = 0;
	char *why = NULL;

	limit(&t, &why, cpha_quorum_tolerance(ne),
		fmt("etcd quorum %u of %u", cpha_quorum_majority(ne), ne));
	if (c->manager == CP_MGR_PACEMAKER)
		limit(&t, &why, corosync_tolerance(nm),
			nm == 2 ? fmt("the masters' two-node Pacemaker cluster, only if one "
				      "fences the other first")
				: fmt("the masters' Pacemaker quorum %u of %u",
					  cpha_quorum_majority(nm), nm));
	limit(&t, &why, t_api, fmt("%u kube-apiserver%s", nm, plural(nm)));
	limit(&t, &why, nl ? nl - 1 : 0, fmt("%u load balancer%s", nl, plural(nl)));
	limit(&t, &why, t_vip,
		*vip_why ? fmt("the VIP: %s", vip_why)
			 : fmt("%u host%s for the VIP", nl, plural(nl)));
	p->tolerates = t;
	p->tolerance = fmt("tolerates %u host failure%s (%s)", t, plural(t), why);
	free(why);
}

int plan_build(
	const struct cp_cluster *c, const struct plan_opts *o, struct plan *p, struct cpha_msgs *d)
{
	unsigned ne = (unsigned)c->netcd, nm = (unsigned)c->nmasters;
	unsigned nl = (unsigned)cluster_lb_count(c);
	size_t errs = d->nerrs;
	unsigned t_api, t_vip;
	char why[512], need[160], vip_why[160];

	memset(p, 0, sizeof(*p));
	plan_check_version(c, o->today, d);
	plan_check_etcd_image(c, d);

	/* etcd: Raft quorum */
	if (cpha_quorum_check(ne, o->allow_even, why, sizeof(why)) < 0)
		cpha_msgs_err(d, c->file, c->etcd_pos.line ? c->etcd_pos : c->masters_pos,
			"etcd: %u member%s refused: %s (--allow-even accepts it)", ne, plural(ne),
			why);
	add_role(p, fmt("etcd"), names(c, CP_ROLE_ETCD), fmt("active-active, Raft quorum"), ne,
		cpha_quorum_tolerance(ne),
		fmt("%u member%s, quorum %u, tolerates %u failure%s", ne, plural(ne),
			cpha_quorum_majority(ne), cpha_quorum_tolerance(ne),
			plural(cpha_quorum_tolerance(ne))));

	t_api = masters_need(c, need, sizeof(need));
	add_role(p, fmt("kube-apiserver"), names(c, CP_ROLE_MASTER),
		fmt("active-active behind the VIP"), nm, t_api,
		fmt("%u instance%s, tolerates %u failure%s (%s)", nm, plural(nm), t_api,
			plural(t_api), *need ? need : "while etcd keeps quorum"));
	for (int k = 0; k < 2; k++) {
		const char *role = k ? "kube-scheduler" : "kube-controller-manager";
		const char *style;
		if (c->manager == CP_MGR_PACEMAKER)
			style = c->leader_elect ? "active-passive: one Pacemaker instance, Lease "
						  "leader election"
						: "active-passive: one Pacemaker instance";
		else
			style = c->leader_elect ? "active-passive: Lease leader election"
						: "ACTIVE ON EVERY MASTER (leader_elect: false)";
		/* they work through the apiservers: the same needs */
		add_role(p, fmt("%s", role), names(c, CP_ROLE_MASTER), fmt("%s", style), nm, t_api,
			fmt("%u candidate%s, 1 active, tolerates %u failure%s%s%s%s", nm,
				plural(nm), t_api, plural(t_api), *need ? " (" : "", need,
				*need ? ")" : ""));
	}
	if (c->manager != CP_MGR_PACEMAKER && !c->leader_elect)
		cpha_msgs_err(d, c->file, c->components_pos,
			"kubernetes.leader_elect: false with manager: %s would run a "
			"controller-manager and a scheduler on every master at once",
			cluster_mgr_name(c->manager));

	add_role(p, fmt("load balancer (%s)", cluster_lb_name(c->lb)),
		names(c, c->lb_on_masters ? CP_ROLE_MASTER : CP_ROLE_LB),
		fmt("active-active; the VIP holder's instance takes the traffic"), nl,
		nl ? nl - 1 : 0,
		fmt("%u instance%s, tolerates %u failure%s", nl, plural(nl), nl ? nl - 1 : 0,
			plural(nl ? nl - 1 : 0)));
	/* vipd holds the VIP only with the quorum of its corosync cluster
	 * (it tracks fenced), IPaddr2 only with Pacemaker's; keepalived
	 * needs none */
	t_vip = nl ? nl - 1 : 0;
	*vip_why = 0;
	if (c->vipd != CP_VIP_KEEPALIVED && corosync_tolerance(nl) < t_vip) {
		t_vip = corosync_tolerance(nl);
		snprintf(vip_why, sizeof(vip_why),
			"no VIP without the quorum of its corosync cluster, %u of %u",
			cpha_quorum_majority(nl), nl);
	}
	add_role(p, fmt("VIP %s (%s, VRID %u)", c->vip_text, cluster_vip_name(c->vipd), c->vrid),
		names(c, c->lb_on_masters ? CP_ROLE_MASTER : CP_ROLE_LB),
		fmt("active-passive: one holder"), nl, t_vip,
		fmt("%u host%s, tolerates %u failure%s%s%s%s", nl, plural(nl), t_vip, plural(t_vip),
			*vip_why ? " (" : "", vip_why, *vip_why ? ")" : ""));
	control_plane(c, p, t_api, t_vip, vip_why);
	if (c->vipd != CP_VIP_PACEMAKER && c->vrid_derived)
		add_note(p, fmt("VRID %u is derived from the cluster name '%s' (api.vrid sets it)",
				    c->vrid, c->name));
	if (c->vipd != CP_VIP_PACEMAKER && common_vrid(c->vrid))
		cpha_msgs_warn(d, c->file, c->vrid_pos.line ? c->vrid_pos : c->vip_pos,
			"VRID %u is one that examples and other clusters on a segment often use; "
			"two VRRP clusters with one VRID on one segment fight over it (leave "
			"api.vrid out to derive one from the cluster name)",
			c->vrid);

	check_corosync(c, p, d);
	check_admission(c, d);
	check_hosts(c, d);
	check_vip(c, d);
	check_fencing(c, d);

	if (nl == 1)
		cpha_msgs_warn(d, c->file, c->lb_on_masters ? c->masters_pos : c->lbs_pos,
			"a single load-balancer host: the VIP and every client of the API "
			"depend on it");
	if (nm > 1) {
		const char *z0 = cluster_role_host(c, CP_ROLE_MASTER, 0)->zone;
		bool all_same = z0 != NULL, none = true;
		for (size_t i = 0; i < nm; i++) {
			const char *z = cluster_role_host(c, CP_ROLE_MASTER, i)->zone;
			if (z)
				none = false;
			if (!z || !z0 || strcmp(z, z0))
				all_same = false;
		}
		if (all_same)
			cpha_msgs_warn(d, c->file, c->masters_pos,
				"all %u masters are in zone '%s': losing it loses the control "
				"plane",
				nm, z0);
		else if (none)
			add_note(p, fmt("no master names a zone: cpha cannot tell whether one "
					"rack or room holds them all"));
	}
	return d->nerrs > errs ? -1 : 0;
}

void plan_free(struct plan *p)
{
	for (size_t i = 0; i < p->nroles; i++) {
		free(p->roles[i].role);
		free(p->roles[i].hosts);
		free(p->roles[i].style);
		free(p->roles[i].tolerance);
	}
	free(p->roles);
	for (size_t i = 0; i < p->nnotes; i++)
		free(p->notes[i]);
	free(p->notes);
	free(p->tolerance);
	memset(p, 0, sizeof(*p));
}
