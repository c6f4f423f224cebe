/* kubernetes: in the cluster description: the version, the service and
 * pod ranges, the node port range, admission, authorization, leader
 * election, where the binaries and images come from. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <yaml.h>

#include "cluster.h"
#include "desc_check.h"
#include "desc_read.h"
#include "flags.h"

/* ---- kubernetes: ---- */

static int k_version(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_cluster *c = o;
	unsigned minor, patch;
	bool has_patch;
	char known[128];

	if (desc_str(r, v, k, &c->k8s_version) < 0)
		return -1;
	c->k8s_version_pos = desc_pos(v);
	if (flags_k8s_parse(c->k8s_version, &minor, &patch, &has_patch) < 0) {
		desc_err(r, v,
			"version: '%s' is not a Kubernetes version: give 1.Y, 1.Y.Z or v1.Y.Z, "
			"as %u.%u",
			c->k8s_version, 1, flags_k8s_default_minor());
		return -1;
	}
	if (!flags_k8s_minor(minor)) {
		desc_err(r, v,
			"version: '%s': cpha does not know the flags of Kubernetes 1.%u; it knows "
			"%s",
			c->k8s_version, minor, flags_k8s_known(known, sizeof(known)));
		return -1;
	}
	c->k8s_minor = minor;
	c->k8s_patch = patch;
	c->k8s_patch_set = has_patch;
	return 0;
}

/* A network as ip route and kube-apiserver take it: address/prefix with no
 * host bits (ip route refuses them; Go's net.ParseCIDR drops them without a
 * word, so 10.32.0.1/16 would quietly mean 10.32.0.0/16). */
static int k_cidr(struct rd *r, const yaml_node_t *v, char **out, const char *k, struct cp_net *net)
{
	const char *s = desc_scalar(r, v, k), *why = NULL;
	char fixed[INET6_ADDRSTRLEN + 5];
	struct cp_net n;

	if (!s)
		return -1;
	if (!strchr(s, '/') || cp_net_parse(s, &n, &why) < 0) {
		desc_err(r, v, "%s: '%s' is not a network address/prefix-length", k, s);
		return -1;
	}
	if (cp_net_mask(&n)) {
		desc_err(r, v, "%s: %s has host bits set; did you mean %s?", k, s,
			cp_net_format(&n, true, fixed, sizeof(fixed)));
		return -1;
	}
	free(*out);
	*out = desc_strdup(s);
	if (net)
		*net = n;
	return 0;
}

static int k_service_cidr(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_cluster *c = o;
	struct cp_net n;

	c->service_cidr_pos = desc_pos(v);
	if (k_cidr(r, v, &c->service_cidr, k, &n) < 0)
		return -1;
	/* kube-apiserver's validateMaxCIDRRange() (and kubeadm's
	 * ValidateServiceSubnetSize()): at most 20 host bits */
	if (cp_net_host_bits(&n) > CP_SERVICE_CIDR_MAX_HOST_BITS) {
		unsigned bits = n.family == AF_INET ? 32 : 128;
		desc_err(r, v,
			"%s: %s is too large: kube-apiserver refuses a service range with more "
			"than %u host bits; give a prefix of /%u or longer",
			k, c->service_cidr, CP_SERVICE_CIDR_MAX_HOST_BITS,
			bits - CP_SERVICE_CIDR_MAX_HOST_BITS);
		return -1;
	}
	return 0;
}

static int k_cluster_cidr(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_cluster *c = o;
	c->cluster_cidr_pos = desc_pos(v);
	return k_cidr(r, v, &c->cluster_cidr, k, NULL);
}

static int k_node_port_range(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_cluster *c = o;
	const char *s = desc_scalar(r, v, k);
	unsigned lo, hi;
	char tail;

	if (!s)
		return -1;
	if (sscanf(s, "%u-%u%c", &lo, &hi, &tail) != 2 || !lo || lo > hi || hi > 65535) {
		desc_err(r, v, "node_port_range: '%s' is not FIRST-LAST (30000-32767)", s);
		return -1;
	}
	free(c->node_port_range);
	c->node_port_range = desc_strdup(s);
	return 0;
}

static int k_admission(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_cluster *c = o;
	c->admission_pos = desc_pos(v);
	return desc_strv(r, v, k, &c->admission);
}

static int k_authorization(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	return desc_strv(r, v, k, &((struct cp_cluster *)o)->authorization);
}

static int k_leader_elect(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	return desc_bool(r, v, k, &((struct cp_cluster *)o)->leader_elect);
}

static int k_bin_dir(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_cluster *c = o;
	if (desc_str(r, v, k, &c->bin_dir) < 0)
		return -1;
	if (c->bin_dir[0] != '/') {
		desc_err(r, v, "bin_dir: '%s' is not an absolute path", c->bin_dir);
		return -1;
	}
	return 0;
}

static int k_image_repository(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	return desc_str(r, v, k, &((struct cp_cluster *)o)->image_repository);
}

static int k_etcd_image(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	((struct cp_cluster *)o)->etcd_image_pos = desc_pos(v);
	return desc_str(r, v, k, &((struct cp_cluster *)o)->etcd_image);
}

static const struct key k8s_keys[] = {
	{ "version", k_version },
	{ "service_cidr", k_service_cidr },
	{ "cluster_cidr", k_cluster_cidr },
	{ "node_port_range", k_node_port_range },
	{ "admission", k_admission },
	{ "authorization", k_authorization },
	{ "leader_elect", k_leader_elect },
	{ "bin_dir", k_bin_dir },
	{ "image_repository", k_image_repository },
	{ "etcd_image", k_etcd_image },
	{ NULL, NULL },
};

int desc_kubernetes(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	(void)k;
	return desc_walk(r, v, "kubernetes", k8s_keys, o);
}
