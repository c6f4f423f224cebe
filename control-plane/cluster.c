/* The cluster model's lookups, names and diagnostics (desc.c reads it). */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <net/if.h>

#include "cluster.h"

static void free_host(struct cp_host *h)
{
	free(h->name);
	free(h->address);
	free(h->zone);
}

static void free_strv(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

void cluster_free(struct cp_cluster *c)
{
	if (!c)
		return;
	free(c->file);
	free(c->name);
	free(c->domain);
	free(c->api_name);
	free(c->vip_text);
	free(c->vip2_text);
	free(c->interface);
	free(c->k8s_version);
	free(c->service_cidr);
	free(c->cluster_cidr);
	free(c->node_port_range);
	free_strv(c->admission);
	free_strv(c->authorization);
	free(c->bin_dir);
	free(c->image_repository);
	free(c->etcd_image);
	for (size_t i = 0; i < c->nhosts; i++)
		free_host(&c->hosts[i]);
	free(c->hosts);
	free(c->etcd);
	free(c->etcd_token);
	free(c->etcd_data_dir);
	free(c->snap.dir);
	free(c->mon.cert_file);
	free(c->mon.key_file);
	free(c->mon.user);
	free(c->mon.password_hash);
	free(c->mon.password_file);
	for (char **a = c->mon.prom.alertmanagers; a && *a; a++)
		free(*a);
	free(c->mon.prom.alertmanagers);
	free(c->mon.prom.dir);
	free(c->mon.prom.textfile_dir);
	for (size_t i = 0; i < c->ndevices; i++) {
		struct cp_fence_device *f = &c->devices[i];
		free(f->name);
		free(f->agent);
		free(f->host);
		for (size_t j = 0; j < f->nparams; j++) {
			free(f->params[j].key);
			free(f->params[j].value);
		}
		free(f->params);
	}
	free(c->devices);
	free(c->watchdog_device);
	free(c->qdevice.address);
	free(c);
}

struct cp_host *cluster_host(const struct cp_cluster *c, const char *name)
{
	for (size_t i = 0; i < c->nhosts; i++)
		if (c->hosts[i].name && !strcmp(c->hosts[i].name, name))
			return &c->hosts[i];
	return NULL;
}

struct cp_host *cluster_role_host(const struct cp_cluster *c, unsigned r, size_t i)
{
	for (size_t k = 0; k < c->nhosts; k++)
		if (c->hosts[k].roles & r) {
			if (!i)
				return &c->hosts[k];
			i--;
		}
	return NULL;
}

size_t cluster_role_count(const struct cp_cluster *c, unsigned r)
{
	size_t n = 0;
	for (size_t k = 0; k < c->nhosts; k++)
		if (c->hosts[k].roles & r)
			n++;
	return n;
}

size_t cluster_lb_count(const struct cp_cluster *c)
{
	return cluster_role_count(c, c->lb_on_masters ? CP_ROLE_MASTER : CP_ROLE_LB);
}

struct cp_host *cluster_lb_host(const struct cp_cluster *c, size_t i)
{
	return cluster_role_host(c, c->lb_on_masters ? CP_ROLE_MASTER : CP_ROLE_LB, i);
}

const char *cluster_lb_name(enum cp_lb v)
{
	return v == CP_LB_HAPROXY ? "haproxy" : "lbd";
}

const char *cluster_vip_name(enum cp_vip v)
{
	switch (v) {
	case CP_VIP_KEEPALIVED:
		return "keepalived";
	case CP_VIP_PACEMAKER:
		return "pacemaker";
	default:
		return "vipd";
	}
}

const char *cluster_mgr_name(enum cp_mgr v)
{
	switch (v) {
	case CP_MGR_SYSTEMD:
		return "systemd";
	case CP_MGR_STATIC_PODS:
		return "static-pods";
	default:
		return "pacemaker";
	}
}

bool cluster_qdevice_serves(const struct cp_cluster *c, unsigned role)
{
	if (!c->qdevice.on)
		return false;
	return role == (c->lb_on_masters ? CP_ROLE_MASTER : CP_ROLE_LB);
}

const char *cluster_qd_algorithm_name(enum cp_qd_algorithm v)
{
	return v == CP_QD_LMS ? "lms" : "ffsplit";
}

const char *cluster_qd_tls_name(enum cp_qd_tls v)
{
	switch (v) {
	case CP_QD_TLS_OFF:
		return "off";
	case CP_QD_TLS_REQUIRED:
		return "required";
	default:
		return "on";
	}
}

const char *cluster_qd_tie_text(const struct cp_qdevice *q, char *buf, size_t len)
{
	if (q->tie_breaker == CP_QD_TIE_NODE)
		snprintf(buf, len, "%u", q->tie_node);
	else
		snprintf(
			buf, len, "%s", q->tie_breaker == CP_QD_TIE_HIGHEST ? "highest" : "lowest");
	return buf;
}

int cluster_first_service_ip(const struct cp_cluster *c, char *buf, size_t len)
{
	const char *why;
	struct cp_net n;

	if (!c->service_cidr || !strchr(c->service_cidr, '/') ||
		cp_net_parse(c->service_cidr, &n, &why) < 0)
		return -EINVAL;
	/* the network address plus one, as the apiserver allocates it: Go's
	 * net.ParseCIDR drops host bits, so 10.32.0.1/16 gives 10.32.0.1 too */
	cp_net_mask(&n);
	for (int i = (n.family == AF_INET ? 4 : 16) - 1; i >= 0; i--)
		if (++n.a[i])
			break;
	n.prefix = n.family == AF_INET ? 32 : 128;
	if (!cp_net_format(&n, false, buf, len))
		return -EINVAL;
	return 0;
}

static unsigned net_bits(const struct cp_net *n)
{
	return n->family == AF_INET ? 32 : 128;
}

void cp_net_of_addr(const struct cpha_addr *a, unsigned prefix, struct cp_net *n)
{
	memset(n, 0, sizeof(*n));
	n->family = cpha_addr_family(a);
	if (n->family == AF_INET)
		memcpy(n->a, &((const struct sockaddr_in *)&a->ss)->sin_addr, 4);
	else
		memcpy(n->a, &((const struct sockaddr_in6 *)&a->ss)->sin6_addr, 16);
	n->prefix = prefix > net_bits(n) ? net_bits(n) : prefix;
}

int cp_net_parse(const char *s, struct cp_net *n, const char **why)
{
	struct cpha_addr a;
	unsigned len;

	if (cpha_parse_prefix(s, &a, &len, why) < 0)
		return -EINVAL;
	cp_net_of_addr(&a, len, n);
	return 0;
}

bool cp_net_mask(struct cp_net *n)
{
	bool set = false;

	for (unsigned i = 0; i < net_bits(n) / 8; i++) {
		/* the bits of byte i inside the prefix */
		unsigned keep = n->prefix >= 8 * (i + 1) ? 8
				: n->prefix > 8 * i      ? n->prefix - 8 * i
							 : 0;
		unsigned char mask = keep ? (unsigned char)(0xffu << (8 - keep)) : 0;

		if (n->a[i] & ~mask)
			set = true;
		n->a[i] &= mask;
	}
	return set;
}

unsigned cp_net_host_bits(const struct cp_net *n)
{
	return net_bits(n) - n->prefix;
}

bool cp_net_overlap(const struct cp_net *x, const struct cp_net *y)
{
	struct cp_net a = *x, b = *y;

	if (x->family != y->family)
		return false;
	/* both cut to the shorter prefix: the same network then */
	a.prefix = b.prefix = x->prefix < y->prefix ? x->prefix : y->prefix;
	cp_net_mask(&a);
	cp_net_mask(&b);
	return !memcmp(a.a, b.a, sizeof(a.a));
}

char *cp_net_format(const struct cp_net *n, bool with_prefix, char *buf, size_t len)
{
	char text[INET6_ADDRSTRLEN];

	if (!inet_ntop(n->family, n->a, text, sizeof(text)))
		return NULL;
	if (with_prefix)
		snprintf(buf, len, "%s/%u", text, n->prefix);
	else
		snprintf(buf, len, "%s", text);
	return buf;
}

bool cluster_ifname_valid(const char *name, const char **why)
{
	if (!*name) {
		*why = "an interface name cannot be empty";
		return false;
	}
	if (strlen(name) >= IFNAMSIZ) {
		*why = "Linux interface names are at most 15 bytes (IFNAMSIZ 16 with its NUL)";
		return false;
	}
	if (!strcmp(name, ".") || !strcmp(name, "..")) {
		*why = "'.' and '..' are not interface names";
		return false;
	}
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		/* the kernel's isspace() also counts Latin-1's no-break space */
		if (*p == '/' || *p == ':' || isspace(*p) || *p == 0xa0) {
			*why = "Linux refuses '/', ':' and white space in an interface name "
			       "(':' would read as an address label, as in eth0:1)";
			return false;
		}
	}
	return true;
}

unsigned cluster_derive_vrid(const char *name)
{
	/* FNV-1a: stable across builds and machines, unlike a seeded hash */
	uint32_t h = 2166136261u;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		h ^= *p;
		h *= 16777619u;
	}
	return 1 + h % 255;
}
