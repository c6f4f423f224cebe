/* The rules over the whole cluster description (desc_check.h). */
#include <stdio.h>
#include <string.h>

#include <arpa/inet.h>

#include "desc_check.h"

/* One of the cluster's own networks: what it is called, its value, where
 * it was written (0/0: the default). */
struct knet {
	const char *key;
	const char *text;
	struct cp_net net;
	struct cpha_pos pos;
};

/* "service_cidr 10.32.0.0/16 (line 17)" or "the default service_cidr
 * 10.96.0.0/12". */
static const char *knet_name(const struct knet *k, char *buf, size_t len)
{
	if (k->pos.line)
		snprintf(buf, len, "%s %s (line %u)", k->key, k->text, k->pos.line);
	else
		snprintf(buf, len, "the default %s %s", k->key, k->text);
	return buf;
}

static void check_pods_services(const struct cp_cluster *c, const struct knet *svc,
	const struct knet *pod, struct cpha_msgs *d)
{
	/* the later written one is the place (both defaults never overlap) */
	const struct knet *at = pod, *other = svc;
	char name[160];

	if (!cp_net_overlap(&svc->net, &pod->net))
		return;
	if (!pod->pos.line || (svc->pos.line && svc->pos.line > pod->pos.line))
		at = svc, other = pod;
	if (svc->net.prefix == pod->net.prefix)
		cpha_msgs_err(d, c->file, at->pos,
			"kubernetes.%s: %s is the same network as %s: pods and services "
			"each need a network of their own",
			at->key, at->text, knet_name(other, name, sizeof(name)));
	else
		cpha_msgs_err(d, c->file, at->pos,
			"kubernetes.%s: %s overlaps %s: a pod and a service could be given "
			"one address; give two networks that do not overlap",
			at->key, at->text, knet_name(other, name, sizeof(name)));
}

/* A pod or service network must hold no address of the hosts' own network:
 * traffic to a host would be routed into the cluster network instead. */
static void check_host_network(
	const struct cp_cluster *c, const struct knet *k, struct cpha_msgs *d)
{
	struct cp_net vipnet, h;
	const struct cp_host *first = NULL;
	size_t more = 0;
	char name[160], text[INET6_ADDRSTRLEN + 5], others[64] = "";

	/* the segment the VIP is added to: the LB hosts' network */
	cp_net_of_addr(&c->vip, c->vip_prefix, &vipnet);
	cp_net_mask(&vipnet);
	if (cp_net_overlap(&k->net, &vipnet)) {
		const char *what = !strcmp(k->key, "service_cidr") ? "services" : "pods";

		cp_net_format(&vipnet, true, text, sizeof(text));
		if (k->pos.line)
			cpha_msgs_err(d, c->file, k->pos,
				"kubernetes.%s: %s overlaps the hosts' network %s (api.vip %s, "
				"line %u): hosts and %s must not share addresses; give "
				"kubernetes.%s a network of its own",
				k->key, k->text, text, c->vip_text, c->vip_pos.line, what, k->key);
		else
			cpha_msgs_err(d, c->file, c->vip_pos,
				"api.vip: the hosts' network %s overlaps %s: hosts and %s must "
				"not share addresses; set kubernetes.%s to a network of its own",
				text, knet_name(k, name, sizeof(name)), what, k->key);
	}
	/* hosts off that segment (masters elsewhere, external etcd) */
	for (size_t i = 0; i < c->nhosts; i++) {
		cp_net_of_addr(&c->hosts[i].addr, 128, &h);
		if (cp_net_overlap(&h, &vipnet) || !cp_net_overlap(&h, &k->net))
			continue;
		if (!first)
			first = &c->hosts[i];
		else
			more++;
	}
	if (!first)
		return;
	if (more)
		snprintf(others, sizeof(others), " and those of %zu other host%s", more,
			more == 1 ? "" : "s");
	if (k->pos.line)
		cpha_msgs_err(d, c->file, k->pos,
			"kubernetes.%s: %s holds the address %s of host %s (line %u)%s: give "
			"the cluster's %s a network no host is on",
			k->key, k->text, first->address, first->name, first->addr_pos.line, others,
			!strcmp(k->key, "service_cidr") ? "services" : "pods");
	else
		cpha_msgs_err(d, c->file, first->addr_pos,
			"address %s of host %s is in %s: set kubernetes.%s to a network no "
			"host is on",
			first->address, first->name, knet_name(k, name, sizeof(name)), k->key);
}

static void check_priorities(const struct cp_cluster *c, struct cpha_msgs *d)
{
	size_t n = cluster_lb_count(c);

	if (c->vipd == CP_VIP_PACEMAKER)
		return; /* IPaddr2: Pacemaker places the VIP, no VRRP priority */
	for (size_t i = 0; i < n; i++) {
		const struct cp_host *a = cluster_lb_host(c, i);
		for (size_t j = 0; j < i; j++) {
			const struct cp_host *b = cluster_lb_host(c, j);
			struct cpha_pos at = a->priority_pos.line   ? a->priority_pos
					     : b->priority_pos.line ? b->priority_pos
								    : a->pos;
			if (a->priority != b->priority)
				continue;
			/* RFC 5798 §6.4.3: equal priorities, the higher primary
			 * address wins */
			cpha_msgs_err(d, c->file, at,
				"VRRP priority %u of %s is also the priority of %s (line %u)%s: "
				"keepalived and vipd would pick the VIP holder by the higher "
				"address, which nobody chose; give each a priority of its own",
				a->priority, a->name, b->name,
				b->priority_pos.line ? b->priority_pos.line : b->pos.line,
				a->priority_pos.line && b->priority_pos.line
					? ""
					: " (a priority left out is 150, 140, 130, ... in list "
					  "order)");
		}
	}
}

int desc_check(const struct cp_cluster *c, struct cpha_msgs *d)
{
	size_t errs = d->nerrs;
	const char *why;
	struct knet svc = { "service_cidr", c->service_cidr, { 0 }, c->service_cidr_pos };
	struct knet pod = { "cluster_cidr", c->cluster_cidr, { 0 }, c->cluster_cidr_pos };

	/* each was read as a network (or is a default) */
	if (cp_net_parse(c->service_cidr, &svc.net, &why) == 0 &&
		cp_net_parse(c->cluster_cidr, &pod.net, &why) == 0) {
		check_pods_services(c, &svc, &pod, d);
		check_host_network(c, &svc, d);
		check_host_network(c, &pod, d);
	}
	check_priorities(c, d);
	return d->nerrs > errs ? -1 : 0;
}
