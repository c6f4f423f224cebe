/* qdevice: in the cluster description: corosync's quorum device (model
 * net) for the corosync cluster of the hosts that hold the VIP. The keys
 * and defaults are corosync-qdevice(8)'s quorum.device.net ones; votes is
 * left to corosync. Where corosync-qnetd runs is checked against the hosts
 * once every host list is read (desc_qdevice_resolve()). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "cluster.h"
#include "desc_read.h"

static int k_address(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_qdevice *q = o;

	q->address_pos = desc_pos(v);
	return desc_str(r, v, k, &q->address);
}

static int k_algorithm(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	static const char *const names[] = { "ffsplit", "lms", NULL };
	struct cp_qdevice *q = o;
	int x;

	q->algorithm_pos = desc_pos(v);
	if (desc_enum(r, v, k, names, &x) < 0)
		return -1;
	q->algorithm = (enum cp_qd_algorithm)x;
	return 0;
}

/* lowest, highest, or a node id (corosync-qdevice(8): valid_node_id) */
static int k_tie_breaker(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_qdevice *q = o;
	const char *s = desc_scalar(r, v, k);
	char *end;
	unsigned long id;

	if (!s)
		return -1;
	q->tie_pos = desc_pos(v);
	if (!strcmp(s, "lowest") || !strcmp(s, "highest")) {
		q->tie_breaker = !strcmp(s, "lowest") ? CP_QD_TIE_LOWEST : CP_QD_TIE_HIGHEST;
		return 0;
	}
	id = strtoul(s, &end, 10);
	if (*s < '0' || *s > '9' || *end || !id || id > 0x7fffffff) {
		desc_err(r, v, "tie_breaker: '%s' is not lowest, highest or a node id", s);
		return -1;
	}
	q->tie_breaker = CP_QD_TIE_NODE;
	q->tie_node = (unsigned)id;
	return 0;
}

static int k_port(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	return desc_uint(r, v, k, 1, 65535, &((struct cp_qdevice *)o)->port);
}

static int k_tls(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	static const char *const names[] = { "on", "off", "required", NULL };
	int x;

	if (desc_enum(r, v, k, names, &x) < 0)
		return -1;
	((struct cp_qdevice *)o)->tls = (enum cp_qd_tls)x;
	return 0;
}

static int k_votes(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	(void)o;
	(void)k;
	desc_err(r, v,
		"votes: left to corosync: ffsplit gives one vote (rendered as votes: 1), lms "
		"one less than the nodes (corosync's default, which lms needs)");
	return -1;
}

static const struct key qdevice_keys[] = {
	{ "address", k_address },
	{ "algorithm", k_algorithm },
	{ "tie_breaker", k_tie_breaker },
	{ "port", k_port },
	{ "tls", k_tls },
	{ "votes", k_votes },
	{ NULL, NULL },
};

int desc_qdevice(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_cluster *c = o;
	struct cp_qdevice *q = &c->qdevice;

	(void)k;
	q->on = true;
	q->pos = desc_pos(v);
	q->port = 5403;
	if (desc_walk(r, v, "qdevice", qdevice_keys, q) < 0)
		return -1;
	if (!q->address) {
		desc_err(r, v,
			"qdevice: needs address: where corosync-qnetd runs (an address, or the "
			"name of a host of this description)");
		return -1;
	}
	return 0;
}

/* The served cluster's hosts: the LB hosts, or the masters when the load
 * balancer runs on them. */
static bool served(const struct cp_cluster *c, const struct cp_host *h)
{
	return cluster_qdevice_serves(c, c->lb_on_masters ? CP_ROLE_MASTER : CP_ROLE_LB) &&
	       (h->roles & (c->lb_on_masters ? CP_ROLE_MASTER : CP_ROLE_LB)) &&
	       (c->lb_on_masters || !(h->roles & CP_ROLE_MASTER));
}

int desc_qdevice_resolve(struct rd *r, struct cp_cluster *c)
{
	struct cp_qdevice *q = &c->qdevice;
	const char *what = c->lb_on_masters ? "masters" : "load-balancer hosts";
	const struct cp_host *h = NULL;
	const char *why = NULL;
	unsigned len;
	bool tie_found = false;

	if (!q->on || !q->address)
		return 0;
	if (!strchr(q->address, '/') && cpha_parse_prefix(q->address, &q->addr, &len, &why) == 0) {
		for (size_t i = 0; i < c->nhosts && !h; i++)
			if (cpha_addr_equal(&c->hosts[i].addr, &q->addr))
				h = &c->hosts[i];
	} else if (!(h = cluster_host(c, q->address))) {
		cpha_msgs_err(r->d, r->file, q->address_pos,
			"qdevice.address: '%s' is neither an IPv4 or IPv6 address nor a host of "
			"this description",
			q->address);
		return -1;
	} else {
		q->addr = h->addr;
	}
	if (h && served(c, h)) {
		cpha_msgs_err(r->d, r->file, q->address_pos,
			"qdevice.address: %s is %s, one of the %s whose quorum it decides: "
			"corosync-qnetd must run on a third host (a master, or another machine), "
			"or a partition that cuts it off loses its vote too",
			q->address, h->name, what);
		return -1;
	}
	if (cpha_addr_equal(&q->addr, &c->vip) ||
		(c->has_vip2 && cpha_addr_equal(&q->addr, &c->vip2))) {
		cpha_msgs_err(r->d, r->file, q->address_pos,
			"qdevice.address: %s is the VIP, which moves between the %s whose "
			"quorum it decides: give the address of a third host",
			q->address, what);
		return -1;
	}
	q->host = h ? h->name : NULL;
	if (q->tie_breaker != CP_QD_TIE_NODE)
		return 0;
	for (size_t i = 0; i < c->nhosts; i++)
		if (served(c, &c->hosts[i]) && c->hosts[i].node_id == q->tie_node)
			tie_found = true;
	if (!tie_found) {
		cpha_msgs_err(r->d, r->file, q->tie_pos,
			"qdevice.tie_breaker: node id %u is no node of the %s' corosync cluster",
			q->tie_node, what);
		return -1;
	}
	return 0;
}
