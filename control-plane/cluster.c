/* The cluster model's lookups, names and diagnostics (desc.c reads it). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

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
	free(c->mon.cert_file);
	free(c->mon.key_file);
	free(c->mon.user);
	free(c->mon.password_hash);
	free(c->mon.password_file);
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

int cluster_first_service_ip(const struct cp_cluster *c, char *buf, size_t len)
{
	char net[64], *slash;
	unsigned char a[16];
	int fam;

	snprintf(net, sizeof(net), "%s", c->service_cidr);
	slash = strchr(net, '/');
	if (!slash)
		return -EINVAL;
	*slash = 0;
	fam = strchr(net, ':') ? AF_INET6 : AF_INET;
	if (inet_pton(fam, net, a) != 1)
		return -EINVAL;
	/* the network address plus one, as the apiserver allocates it */
	for (int i = (fam == AF_INET ? 4 : 16) - 1; i >= 0; i--)
		if (++a[i])
			break;
	if (!inet_ntop(fam, a, buf, (socklen_t)len))
		return -EINVAL;
	return 0;
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

static void add(char ***v, size_t *n, const char *file, struct cp_pos p, const char *fmt,
	va_list ap) __attribute__((format(printf, 5, 0)));
static void add(
	char ***v, size_t *n, const char *file, struct cp_pos p, const char *fmt, va_list ap)
{
	char text[1024], *line;
	char **nv;

	vsnprintf(text, sizeof(text), fmt, ap);
	if (p.line && asprintf(&line, "%s:%u:%u: %s", file, p.line, p.col, text) < 0)
		line = NULL;
	else if (!p.line && asprintf(&line, "%s: %s", file, text) < 0)
		line = NULL;
	nv = realloc(*v, (*n + 1) * sizeof(*nv));
	if (!line || !nv) {
		fputs("cpha: out of memory\n", stderr);
		exit(70);
	}
	nv[(*n)++] = line;
	*v = nv;
}

void cp_diag_err(struct cp_diag *d, const char *file, struct cp_pos p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	add(&d->errs, &d->nerrs, file, p, fmt, ap);
	va_end(ap);
}

void cp_diag_warn(struct cp_diag *d, const char *file, struct cp_pos p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	add(&d->warns, &d->nwarns, file, p, fmt, ap);
	va_end(ap);
}

void cp_diag_free(struct cp_diag *d)
{
	for (size_t i = 0; i < d->nerrs; i++)
		free(d->errs[i]);
	for (size_t i = 0; i < d->nwarns; i++)
		free(d->warns[i]);
	free(d->errs);
	free(d->warns);
	memset(d, 0, sizeof(*d));
}
