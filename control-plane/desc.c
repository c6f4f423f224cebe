/* Reading /etc/cpha/cluster.yaml with libyaml's document API: each mapping
 * is walked through a table of the keys it may hold, so an unknown key, a
 * wrong type or a bad value is an error at its own line and column. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <yaml.h>

#include "cluster.h"
#include "cfgmsg.h"
#include "desc_check.h"
#include "desc_read.h"
#include "duration.h"
#include "flags.h"
#include "snapshot_keep.h"

/* ---- cluster: ---- */

static int k_cluster_name(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_cluster *c = o;
	c->name_pos = desc_pos(v);
	if (desc_str(r, v, k, &c->name) < 0)
		return -1;
	for (const char *p = c->name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-')) {
			desc_err(r, v,
				"name: '%s': use lower-case letters, digits and '-' (it names "
				"corosync clusters and certificates)",
				c->name);
			return -1;
		}
	return 0;
}

static int k_domain(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	return desc_str(r, v, k, &((struct cp_cluster *)o)->domain);
}

static const struct key cluster_keys[] = {
	{ "name", k_cluster_name },
	{ "domain", k_domain },
	{ NULL, NULL },
};

static int s_cluster(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	(void)k;
	return desc_walk(r, v, "cluster", cluster_keys, o);
}

/* ---- api: ---- */

static int k_api_name(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	return desc_str(r, v, k, &((struct cp_cluster *)o)->api_name);
}

/* One VIP with its prefix length: 0, or -1 with an error at v. */
static int one_vip(struct rd *r, const yaml_node_t *v, const char *k, struct cpha_addr *a,
	unsigned *prefix, char **text)
{
	const char *s = desc_scalar(r, v, k), *why = NULL;

	if (!s)
		return -1;
	if (!strchr(s, '/')) {
		desc_err(r, v,
			"vip: '%s': give the prefix length too (10.10.10.2/24): the VIP is "
			"added with it",
			s);
		return -1;
	}
	if (cpha_parse_prefix(s, a, prefix, &why) < 0) {
		desc_err(r, v, "vip: '%s': %s", s, why);
		return -1;
	}
	free(*text);
	*text = desc_strdup(s);
	return 0;
}

/* vip: ADDR/LEN, or a dual-stack pair [IPv4/LEN, IPv6/LEN] (either order:
 * the first is of the hosts' family and the one VRRP speaks over unicast) */
static int k_vip(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_cluster *c = o;
	const yaml_node_t *e[2];
	size_t n;

	c->vip_pos = desc_pos(v);
	if (v->type != YAML_SEQUENCE_NODE)
		return one_vip(r, v, k, &c->vip, &c->vip_prefix, &c->vip_text);
	n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
	if (n < 1 || n > 2) {
		desc_err(r, v,
			"vip: give one address, or two of different families for a dual-stack "
			"cluster ([10.10.10.2/24, 2001:db8:10::2/64]); %zu given",
			n);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		e[i] = yaml_document_get_node(r->doc, v->data.sequence.items.start[i]);
	c->vip_pos = desc_pos(e[0]);
	if (one_vip(r, e[0], k, &c->vip, &c->vip_prefix, &c->vip_text) < 0)
		return -1;
	if (n == 1)
		return 0;
	c->vip2_pos = desc_pos(e[1]);
	if (one_vip(r, e[1], k, &c->vip2, &c->vip2_prefix, &c->vip2_text) < 0)
		return -1;
	if (cpha_addr_family(&c->vip) == cpha_addr_family(&c->vip2)) {
		desc_err(r, e[1],
			"vip: '%s' and '%s' are of one family: a dual-stack cluster has an IPv4 "
			"and an IPv6 VIP",
			c->vip_text, c->vip2_text);
		return -1;
	}
	c->has_vip2 = true;
	return 0;
}

static int k_port(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	return desc_uint(r, v, k, 1, 65535, &((struct cp_cluster *)o)->api_port);
}

static int k_interface(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_cluster *c = o;
	const char *s = desc_scalar(r, v, k), *why = NULL;

	if (!s)
		return -1;
	c->interface_pos = desc_pos(v);
	/* the kernel's rules (dev_valid_name()): vipd, keepalived and
	 * IPaddr2 would all fail on the host instead */
	if (!cluster_ifname_valid(s, &why)) {
		desc_err(r, v, "interface: '%s' is not an interface name: %s", s, why);
		return -1;
	}
	free(c->interface);
	c->interface = desc_strdup(s);
	return 0;
}

static int k_vrid(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_cluster *c = o;
	c->vrid_pos = desc_pos(v);
	c->vrid_derived = false;
	return desc_uint(r, v, k, 1, 255, &c->vrid);
}

static const struct key api_keys[] = {
	{ "name", k_api_name },
	{ "vip", k_vip },
	{ "port", k_port },
	{ "interface", k_interface },
	{ "vrid", k_vrid },
	{ NULL, NULL },
};

static int s_api(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	(void)k;
	return desc_walk(r, v, "api", api_keys, o);
}

/* ---- masters: / load_balancers: ---- */

static int k_host_name(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_host *h = o;
	h->name_pos = desc_pos(v);
	if (desc_str(r, v, k, &h->name) < 0)
		return -1;
	for (const char *p = h->name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			    (*p >= '0' && *p <= '9') || *p == '-' || *p == '.')) {
			desc_err(r, v, "name: '%s' is not a host name", h->name);
			return -1;
		}
	return 0;
}

static int k_host_address(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_host *h = o;
	const char *s = desc_scalar(r, v, k), *why = NULL;
	unsigned len;

	if (!s)
		return -1;
	h->addr_pos = desc_pos(v);
	if (strchr(s, '/') || cpha_parse_prefix(s, &h->addr, &len, &why) < 0) {
		desc_err(r, v, "address: '%s' is not an IPv4 or IPv6 address", s);
		return -1;
	}
	free(h->address);
	h->address = desc_strdup(s);
	return 0;
}

static int k_host_zone(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	return desc_str(r, v, k, &((struct cp_host *)o)->zone);
}

static int k_host_node_id(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	return desc_uint(r, v, k, 1, 0x7fffffff, &((struct cp_host *)o)->node_id);
}

static int k_host_priority(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_host *h = o;
	h->priority_pos = desc_pos(v);
	return desc_uint(r, v, k, 1, 254, &h->priority);
}

static const struct key host_keys[] = {
	{ "name", k_host_name },
	{ "address", k_host_address },
	{ "zone", k_host_zone },
	{ "node_id", k_host_node_id },
	{ "priority", k_host_priority },
	{ NULL, NULL },
};

/* Append the hosts of a list with roles. */
static int read_hosts(struct rd *r, const yaml_node_t *v, const char *what, unsigned roles)
{
	struct cp_cluster *c = r->c;
	size_t n, base = c->nhosts;
	int rc = 0;

	if (v->type != YAML_SEQUENCE_NODE) {
		desc_err(r, v, "%s: expected a list of hosts, found %s", what, desc_type_name(v));
		return -1;
	}
	n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
	if (!n) {
		desc_err(r, v, "%s: the list is empty", what);
		return -1;
	}
	struct cp_host *hv = realloc(c->hosts, (c->nhosts + n) * sizeof(*hv));
	if (!hv)
		cpha_oom();
	c->hosts = hv;
	memset(c->hosts + base, 0, n * sizeof(*hv));
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *e = yaml_document_get_node(r->doc, v->data.sequence.items.start[i]);
		struct cp_host *h = &c->hosts[base + i];

		h->roles = roles;
		h->pos = desc_pos(e);
		c->nhosts++;
		if (desc_walk(r, e, what, host_keys, h) < 0) {
			rc = -1;
			continue;
		}
		if (!h->name) {
			desc_err(r, e, "%s: a host needs a name", what);
			rc = -1;
		}
		if (!h->address) {
			desc_err(
				r, e, "%s: host %s needs an address", what, h->name ? h->name : "");
			rc = -1;
		}
	}
	return rc;
}

static int s_masters(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_cluster *c = o;
	(void)k;
	c->masters_pos = desc_pos(v);
	return read_hosts(r, v, "masters", CP_ROLE_MASTER);
}

static int s_load_balancers(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_cluster *c = o;
	(void)k;
	c->lbs_pos = desc_pos(v);
	c->lb_on_masters = false;
	return read_hosts(r, v, "load_balancers", CP_ROLE_LB);
}

/* ---- etcd: ---- */

/* The etcd hosts are read after every host list: keep the node; and the
 * snapshot directory's, to check it against data_dir once both are read. */
struct etcd_read {
	struct cp_cluster *c;
	const yaml_node_t *hosts;
	const yaml_node_t *snap_dir;
};

static int k_etcd_hosts(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	(void)r;
	(void)k;
	((struct etcd_read *)o)->hosts = v;
	return 0;
}

static int k_etcd_token(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	return desc_str(r, v, k, &((struct etcd_read *)o)->c->etcd_token);
}

static int k_etcd_data_dir(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_cluster *c = ((struct etcd_read *)o)->c;
	if (desc_str(r, v, k, &c->etcd_data_dir) < 0)
		return -1;
	if (c->etcd_data_dir[0] != '/') {
		desc_err(r, v, "data_dir: '%s' is not an absolute path", c->etcd_data_dir);
		return -1;
	}
	return 0;
}

/* etcd.version: the release line, "3.4", "3.5" or "3.6" (a patch, as
 * 3.4.23 or v3.5.24, is taken and names the same line). */
static int k_etcd_version(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_cluster *c = ((struct etcd_read *)o)->c;
	const char *written = desc_scalar(r, v, k), *s = written;
	unsigned maj, min, patch;
	int n = 0;

	if (!s)
		return -1;
	if (*s == 'v')
		s++;
	if ((sscanf(s, "%u.%u%n", &maj, &min, &n) != 2 || s[n]) &&
		(sscanf(s, "%u.%u.%u%n", &maj, &min, &patch, &n) != 3 || s[n]))
		maj = 0;
	if (maj != 3 || min < FLAGS_ETCD_MINOR_MIN || min > FLAGS_ETCD_MINOR_MAX || !isdigit(*s) ||
		strspn(s, "0123456789.") != strlen(s)) {
		desc_err(r, v, "version: '%s': give the etcd release line, 3.4, 3.5 or 3.6",
			written);
		return -1;
	}
	c->etcd_minor = min;
	return 0;
}

/* etcd.snapshot: {every, keep, dir}: cpha etcd snapshot's timer on every
 * member, and the defaults of that command. */
static int k_snap_every(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	uint64_t *every = &((struct etcd_read *)o)->c->snap.every_usec;

	if (desc_duration(r, v, k, every) < 0)
		return -1;
	/* a timer's whole seconds; a snapshot is seconds of work for etcd */
	if (*every < SNAPSHOT_EVERY_MIN_SEC * CPHA_USEC_PER_SEC || *every % CPHA_USEC_PER_SEC) {
		desc_err(r, v, "%s: give whole seconds, at least %um (30m, 1h)", k,
			SNAPSHOT_EVERY_MIN_SEC / 60);
		return -1;
	}
	return 0;
}

static int k_snap_keep(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	return desc_uint(r, v, k, 1, SNAPSHOT_KEEP_MAX, &((struct etcd_read *)o)->c->snap.keep);
}

static int k_snap_dir(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct etcd_read *e = o;
	struct cp_cluster *c = e->c;

	free(c->snap.dir);
	c->snap.dir = NULL;
	if (desc_str(r, v, k, &c->snap.dir) < 0)
		return -1;
	/* it may be written into a unit file: nothing systemd would expand */
	if (c->snap.dir[0] != '/' || strpbrk(c->snap.dir, " \t\n\"'\\%$")) {
		desc_err(r, v, "%s: '%s': give an absolute path without spaces, quotes, %% or $", k,
			c->snap.dir);
		return -1;
	}
	e->snap_dir = v;
	return 0;
}

static const struct key snap_keys[] = {
	{ "every", k_snap_every },
	{ "keep", k_snap_keep },
	{ "dir", k_snap_dir },
	{ NULL, NULL },
};

static int k_etcd_snapshot(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_etcd_snapshot *sn = &((struct etcd_read *)o)->c->snap;

	(void)k;
	sn->on = true;
	sn->pos = desc_pos(v);
	return desc_is_null(v) ? 0 : desc_walk(r, v, "etcd.snapshot", snap_keys, o);
}

/* Whether path is dir or below it. */
static bool path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static const struct key etcd_keys[] = {
	{ "hosts", k_etcd_hosts },
	{ "version", k_etcd_version },
	{ "token", k_etcd_token },
	{ "data_dir", k_etcd_data_dir },
	{ "snapshot", k_etcd_snapshot },
	{ NULL, NULL },
};

/* etcd.hosts: "masters", or a list whose entries are master names or
 * {name, address} mappings for hosts that run only etcd. */
static int read_etcd_hosts(struct rd *r, const yaml_node_t *v)
{
	struct cp_cluster *c = r->c;
	size_t n;
	int rc = 0;

	if (!v || (v->type == YAML_SCALAR_NODE &&
			  !strcmp((const char *)v->data.scalar.value, "masters"))) {
		c->etcd = desc_calloc(c->nmasters, sizeof(*c->etcd));
		for (size_t i = 0; i < c->nhosts; i++)
			if (c->hosts[i].roles & CP_ROLE_MASTER) {
				c->hosts[i].roles |= CP_ROLE_ETCD;
				c->etcd[c->netcd++] = i;
			}
		return 0;
	}
	if (v->type != YAML_SEQUENCE_NODE) {
		desc_err(r, v, "etcd.hosts: give 'masters' or a list of host names");
		return -1;
	}
	n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
	if (!n) {
		desc_err(r, v, "etcd.hosts: the list is empty");
		return -1;
	}
	c->etcd = desc_calloc(n, sizeof(*c->etcd));
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *e = yaml_document_get_node(r->doc, v->data.sequence.items.start[i]);
		struct cp_host *h;

		if (e->type == YAML_MAPPING_NODE) {
			size_t before = c->nhosts;
			yaml_node_t one;
			yaml_node_item_t item = v->data.sequence.items.start[i];

			/* a one-entry list of it, read as a host list */
			memset(&one, 0, sizeof(one));
			one.type = YAML_SEQUENCE_NODE;
			one.data.sequence.items.start = &item;
			one.data.sequence.items.top = &item + 1;
			one.start_mark = e->start_mark;
			if (read_hosts(r, &one, "etcd.hosts", CP_ROLE_ETCD) < 0) {
				rc = -1;
				continue;
			}
			c->etcd[c->netcd++] = before;
			continue;
		}
		const char *name = desc_scalar(r, e, "etcd.hosts");
		if (!name) {
			rc = -1;
			continue;
		}
		h = cluster_host(c, name);
		if (!h || !(h->roles & CP_ROLE_MASTER)) {
			desc_err(r, e,
				"etcd.hosts: '%s' is not a master; a host that runs only etcd is "
				"written as {name: NAME, address: ADDRESS}",
				name);
			rc = -1;
			continue;
		}
		if (h->roles & CP_ROLE_ETCD) {
			desc_err(r, e, "etcd.hosts: '%s' is listed twice", name);
			rc = -1;
			continue;
		}
		h->roles |= CP_ROLE_ETCD;
		c->etcd[c->netcd++] = (size_t)(h - c->hosts);
	}
	return rc;
}

/* ---- components: ---- */

static const char *const lb_names[] = { "lbd", "haproxy", NULL };
static const char *const vip_names[] = { "vipd", "keepalived", "pacemaker", NULL };
static const char *const mgr_names[] = { "pacemaker", "systemd", "static-pods", NULL };

static int k_comp_lb(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	int x;
	if (desc_enum(r, v, k, lb_names, &x) < 0)
		return -1;
	((struct cp_cluster *)o)->lb = (enum cp_lb)x;
	return 0;
}

static int k_comp_vip(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	int x;
	if (desc_enum(r, v, k, vip_names, &x) < 0)
		return -1;
	((struct cp_cluster *)o)->vipd = (enum cp_vip)x;
	return 0;
}

static int k_comp_mgr(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	int x;
	if (desc_enum(r, v, k, mgr_names, &x) < 0)
		return -1;
	((struct cp_cluster *)o)->manager = (enum cp_mgr)x;
	return 0;
}

static const struct key comp_keys[] = {
	{ "load_balancer", k_comp_lb },
	{ "vip", k_comp_vip },
	{ "manager", k_comp_mgr },
	{ NULL, NULL },
};

static int s_components(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_cluster *c = o;
	(void)k;
	c->components_pos = desc_pos(v);
	return desc_walk(r, v, "components", comp_keys, o);
}

/* ---- pki: ---- */

static int k_ca_days(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	return desc_uint(r, v, k, 1, 36500, &((struct cp_cluster *)o)->ca_days);
}

static int k_cert_days(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	return desc_uint(r, v, k, 1, 36500, &((struct cp_cluster *)o)->cert_days);
}

static int k_renew_days(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	return desc_uint(r, v, k, 1, 36500, &((struct cp_cluster *)o)->renew_days);
}

static const struct key pki_keys[] = {
	{ "ca_days", k_ca_days },
	{ "cert_days", k_cert_days },
	{ "renew_days", k_renew_days },
	{ NULL, NULL },
};

static int s_pki(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	(void)k;
	return desc_walk(r, v, "pki", pki_keys, o);
}

/* ---- the document ---- */

struct top {
	struct cp_cluster *c;
	struct etcd_read etcd;
	bool have_etcd;
};

static int t_cluster(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	return s_cluster(r, v, ((struct top *)o)->c, k);
}
static int t_api(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	return s_api(r, v, ((struct top *)o)->c, k);
}
static int t_kubernetes(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	return desc_kubernetes(r, v, ((struct top *)o)->c, k);
}
static int t_masters(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	return s_masters(r, v, ((struct top *)o)->c, k);
}
static int t_lbs(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	/* null or [] : the load balancer runs on the masters */
	if (desc_is_null(v) || (v->type == YAML_SEQUENCE_NODE &&
				       v->data.sequence.items.top == v->data.sequence.items.start))
		return 0;
	return s_load_balancers(r, v, ((struct top *)o)->c, k);
}
static int t_etcd(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct top *t = o;
	(void)k;
	t->have_etcd = true;
	t->c->etcd_pos = desc_pos(v);
	return desc_walk(r, v, "etcd", etcd_keys, &t->etcd);
}
static int t_components(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	return s_components(r, v, ((struct top *)o)->c, k);
}
static int t_fencing(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	return desc_fencing(r, v, ((struct top *)o)->c, k);
}
static int t_pki(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	return s_pki(r, v, ((struct top *)o)->c, k);
}

static int t_monitoring(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	return desc_monitoring(r, v, ((struct top *)o)->c, k);
}

static int t_qdevice(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	return desc_qdevice(r, v, ((struct top *)o)->c, k);
}

static const struct key top_keys[] = {
	{ "cluster", t_cluster },
	{ "api", t_api },
	{ "kubernetes", t_kubernetes },
	{ "masters", t_masters },
	{ "load_balancers", t_lbs },
	{ "etcd", t_etcd },
	{ "components", t_components },
	{ "fencing", t_fencing },
	{ "pki", t_pki },
	{ "monitoring", t_monitoring },
	{ "qdevice", t_qdevice },
	{ NULL, NULL },
};

static void set_defaults(struct cp_cluster *c)
{
	c->domain = desc_strdup("cluster.local");
	c->api_port = 6443;
	c->interface = desc_strdup("eth0");
	c->vrid_derived = true;
	c->k8s_minor = flags_k8s_default_minor();
	{
		char def[16];
		snprintf(def, sizeof(def), "1.%u", c->k8s_minor);
		c->k8s_version = desc_strdup(def);
	}
	c->service_cidr = desc_strdup("10.96.0.0/12");
	c->cluster_cidr = desc_strdup("10.244.0.0/16");
	c->node_port_range = desc_strdup("30000-32767");
	c->leader_elect = true;
	c->bin_dir = desc_strdup("/usr/bin");
	c->image_repository = desc_strdup("registry.k8s.io");
	c->etcd_image = NULL; /* fill_derived(): the image of etcd.version */
	c->etcd_minor = FLAGS_ETCD_MINOR_DEFAULT;
	c->lb_on_masters = true;
	c->etcd_token = NULL;
	c->etcd_data_dir = desc_strdup("/var/lib/etcd");
	c->snap.every_usec = SNAPSHOT_DEFAULT_EVERY_SEC * CPHA_USEC_PER_SEC;
	c->snap.keep = SNAPSHOT_DEFAULT_KEEP;
	c->snap.dir = desc_strdup(SNAPSHOT_DEFAULT_DIR);
	c->lb = CP_LB_LBD;
	c->vipd = CP_VIP_VIPD;
	c->manager = CP_MGR_PACEMAKER;
	c->priority_delay_usec = 5000000;
	c->watchdog_timeout_usec = 5000000;
	c->ca_days = 3650;
	c->cert_days = 365;
	c->renew_days = 30;
}

static char **strv_of(const char *const *v)
{
	size_t n = 0;
	char **out;

	while (v[n])
		n++;
	out = desc_calloc(n + 1, sizeof(*out));
	for (size_t i = 0; i < n; i++)
		out[i] = desc_strdup(v[i]);
	return out;
}

/* What is filled in once everything has been read. */
static int fill_derived(struct rd *r, const yaml_node_t *root, struct top *t)
{
	struct cp_cluster *c = r->c;
	unsigned next_master = 1, next_lb = 1;
	size_t lb_i = 0;
	int rc = 0;

	if (!c->name) {
		desc_err(r, root, "cluster.name is required");
		rc = -1;
	}
	if (!c->api_name) {
		desc_err(r, root, "api.name is required (the name every kubeconfig uses)");
		rc = -1;
	}
	if (!c->vip_text) {
		desc_err(r, root, "api.vip is required (the floating address of the apiservers)");
		rc = -1;
	}
	if (!c->admission) {
		static const char *const adm[] = { "NodeRestriction", NULL };
		c->admission = strv_of(adm);
	}
	if (!c->authorization) {
		static const char *const az[] = { "Node", "RBAC", NULL };
		c->authorization = strv_of(az);
	}
	for (size_t i = 0; i < c->nhosts; i++) {
		if (c->hosts[i].roles & CP_ROLE_MASTER)
			c->nmasters++;
		if (c->hosts[i].roles & CP_ROLE_LB)
			c->nlbs++;
	}
	if (!c->nmasters) {
		desc_err(r, root, "masters: at least one master is required");
		rc = -1;
	}
	if (read_etcd_hosts(r, t->have_etcd ? t->etcd.hosts : NULL) < 0)
		rc = -1;
	/* etcd owns its data directory (a restore replaces it): the snapshots
	 * that would restore it live elsewhere */
	if (t->etcd.snap_dir && (path_within(c->snap.dir, c->etcd_data_dir) ||
					path_within(c->etcd_data_dir, c->snap.dir))) {
		desc_err(r, t->etcd.snap_dir,
			"etcd.snapshot.dir: '%s' overlaps etcd.data_dir '%s'; keep snapshots "
			"apart from the data they restore",
			c->snap.dir, c->etcd_data_dir);
		rc = -1;
	}
	if (!c->etcd_image)
		c->etcd_image = desc_strdup(flags_etcd_image(c->etcd_minor));
	if (!c->etcd_token && c->name) {
		size_t len = strlen(c->name) + sizeof("-etcd");
		c->etcd_token = desc_calloc(len, 1);
		snprintf(c->etcd_token, len, "%s-etcd", c->name);
	}
	if (c->vrid_derived && c->name)
		c->vrid = cluster_derive_vrid(c->name);
	/* node ids: the LB tier is its own corosync cluster unless on the masters */
	for (size_t i = 0; i < c->nhosts; i++) {
		struct cp_host *h = &c->hosts[i];
		bool lb_tier = (h->roles & CP_ROLE_LB) && !(h->roles & CP_ROLE_MASTER);

		if (!h->node_id)
			h->node_id = lb_tier ? next_lb : next_master;
		if (lb_tier)
			next_lb = h->node_id + 1;
		else if (h->roles & CP_ROLE_MASTER)
			next_master = h->node_id + 1;
	}
	for (size_t i = 0; i < cluster_lb_count(c); i++) {
		struct cp_host *h = cluster_lb_host(c, i);
		if (!h->priority)
			h->priority = lb_i < 10 ? 150 - 10 * (unsigned)lb_i : 50;
		lb_i++;
	}
	/* node ids are set: the tie_breaker may name one */
	if (desc_qdevice_resolve(r, c) < 0)
		rc = -1;
	for (size_t i = 0; i < c->ndevices; i++) {
		struct cp_fence_device *f = &c->devices[i];
		const struct cp_host *h = f->host ? cluster_host(c, f->host) : NULL;

		if (f->host && !h) {
			cpha_msgs_err(r->d, r->file, f->host_pos,
				"fencing.devices: device %s fences '%s', which is no host of this "
				"cluster",
				f->name ? f->name : "", f->host);
			rc = -1;
		} else if (h && c->lbs_unfenced && !c->lb_on_masters && (h->roles & CP_ROLE_LB) &&
			   !(h->roles & CP_ROLE_MASTER)) {
			cpha_msgs_err(r->d, r->file, f->host_pos,
				"fencing.devices: device %s fences load-balancer host %s, and "
				"fencing.load_balancers is none (line %u): nothing would use it",
				f->name ? f->name : "", f->host, c->lbs_unfenced_pos.line);
			rc = -1;
		}
	}
	if (c->lbs_unfenced && desc_lbs_unfenced_check(r, c) < 0)
		rc = -1;
	return rc;
}

int cluster_load(const char *file, struct cp_cluster **out, struct cpha_msgs *d)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	struct cp_cluster *c;
	struct rd r;
	struct top t;
	FILE *f;
	int rc = -1;

	*out = NULL;
	f = fopen(file, "re");
	if (!f) {
		cpha_msgs_err(
			d, file, (struct cpha_pos){ 0, 0 }, "cannot open: %s", strerror(errno));
		return -1;
	}
	c = desc_calloc(1, sizeof(*c));
	c->file = desc_strdup(file);
	set_defaults(c);
	if (!yaml_parser_initialize(&parser)) {
		fclose(f);
		cluster_free(c);
		cpha_msgs_err(d, file, (struct cpha_pos){ 0, 0 }, "out of memory");
		return -1;
	}
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, &doc)) {
		struct cpha_pos p = { (unsigned)parser.problem_mark.line + 1,
			(unsigned)parser.problem_mark.column + 1 };
		cpha_msgs_err(d, file, p, "YAML: %s%s%s", parser.problem ? parser.problem : "error",
			parser.context ? " " : "", parser.context ? parser.context : "");
		yaml_parser_delete(&parser);
		fclose(f);
		cluster_free(c);
		return -1;
	}
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	r = (struct rd){ &doc, file, d, c };
	memset(&t, 0, sizeof(t));
	t.c = c;
	t.etcd.c = c;
	if (!root) {
		cpha_msgs_err(d, file, (struct cpha_pos){ 1, 1 }, "the file is empty");
		goto out;
	}
	if (desc_walk(&r, root, "top level", top_keys, &t) < 0 || fill_derived(&r, root, &t) < 0)
		goto out;
	if (desc_check(c, d) < 0)
		goto out;
	if (d->nerrs)
		goto out;
	*out = c;
	c = NULL;
	rc = 0;
out:
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	fclose(f);
	cluster_free(c);
	return rc;
}
