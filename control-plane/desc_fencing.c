/* fencing: in the cluster description: the fence devices (agent, host,
 * level, parameters), the fence delays and the watchdog. */
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

/* ---- fencing: ---- */

static int k_dev_name(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_fence_device *f = o;
	f->name_pos = desc_pos(v);
	return desc_str(r, v, k, &f->name);
}

static int k_dev_agent(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_fence_device *f = o;
	f->agent_pos = desc_pos(v);
	if (desc_str(r, v, k, &f->agent) < 0)
		return -1;
	if (strncmp(f->agent, "fence_", 6) || strchr(f->agent, '/')) {
		desc_err(r, v, "agent: '%s' is not a fence agent name (fence_ipmilan, ...)",
			f->agent);
		return -1;
	}
	return 0;
}

static int k_dev_host(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_fence_device *f = o;
	f->host_pos = desc_pos(v);
	return desc_str(r, v, k, &f->host);
}

static int k_dev_level(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	return desc_uint(r, v, k, 1, 9, &((struct cp_fence_device *)o)->level);
}

static int k_dev_params(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_fence_device *f = o;
	size_t n;
	int rc = 0;

	if (v->type != YAML_MAPPING_NODE) {
		desc_err(r, v, "%s: expected a mapping of agent parameters, found %s", k,
			desc_type_name(v));
		return -1;
	}
	n = (size_t)(v->data.mapping.pairs.top - v->data.mapping.pairs.start);
	f->params = desc_calloc(n, sizeof(*f->params));
	for (size_t i = 0; i < n; i++) {
		yaml_node_pair_t *p = &v->data.mapping.pairs.start[i];
		yaml_node_t *kn = yaml_document_get_node(r->doc, p->key);
		yaml_node_t *vn = yaml_document_get_node(r->doc, p->value);
		const char *ks = desc_scalar(r, kn, "params"), *vs = desc_scalar(r, vn, "params");

		if (!ks || !vs) {
			rc = -1;
			continue;
		}
		for (size_t j = 0; j < f->nparams; j++)
			if (!strcmp(f->params[j].key, ks)) {
				desc_err(r, kn, "params: '%s' given twice", ks);
				rc = -1;
			}
		if (!strcmp(ks, "password") || !strcmp(ks, "community") || !strcmp(ks, "passwd")) {
			desc_err(r, kn,
				"params: '%s' would put a secret in cluster.yaml and on a command "
				"line; give %s_file: PATH",
				ks, ks);
			rc = -1;
			continue;
		}
		f->params[f->nparams].key = desc_strdup(ks);
		f->params[f->nparams].value = desc_strdup(vs);
		f->params[f->nparams].pos = desc_pos(kn);
		f->nparams++;
	}
	return rc;
}

static const struct key dev_keys[] = {
	{ "name", k_dev_name },
	{ "agent", k_dev_agent },
	{ "host", k_dev_host },
	{ "level", k_dev_level },
	{ "params", k_dev_params },
	{ NULL, NULL },
};

static int k_devices(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_cluster *c = o;
	size_t n;
	int rc = 0;

	if (v->type != YAML_SEQUENCE_NODE) {
		desc_err(r, v, "%s: expected a list of devices, found %s", k, desc_type_name(v));
		return -1;
	}
	n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
	c->devices = desc_calloc(n, sizeof(*c->devices));
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *e = yaml_document_get_node(r->doc, v->data.sequence.items.start[i]);
		struct cp_fence_device *f = &c->devices[c->ndevices++];

		f->pos = desc_pos(e);
		f->level = 1;
		if (desc_walk(r, e, "fencing.devices", dev_keys, f) < 0) {
			rc = -1;
			continue;
		}
		if (!f->name || !f->agent || !f->host) {
			desc_err(r, e, "fencing.devices: a device needs name, agent and host");
			rc = -1;
		}
	}
	return rc;
}

static int k_fence_delay(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_cluster *c = o;
	c->fence_delay_set = true;
	c->fence_delay_pos = desc_pos(v);
	return desc_duration(r, v, k, &c->fence_delay_usec);
}

static int k_priority_delay(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_cluster *c = o;
	c->priority_delay_set = true;
	c->priority_delay_pos = desc_pos(v);
	return desc_duration(r, v, k, &c->priority_delay_usec);
}

static int k_watchdog_device(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_cluster *c = o;
	if (desc_str(r, v, k, &c->watchdog_device) < 0)
		return -1;
	if (c->watchdog_device[0] != '/') {
		desc_err(r, v, "watchdog: '%s' is not a device path", c->watchdog_device);
		return -1;
	}
	return 0;
}

static int k_watchdog_timeout(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	return desc_duration(r, v, k, &((struct cp_cluster *)o)->watchdog_timeout_usec);
}

static int k_fence_lbs(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_cluster *c = o;
	const char *s = desc_scalar(r, v, k);

	if (!s)
		return -1;
	c->lbs_unfenced_pos = desc_pos(v);
	if (!strcmp(s, "none"))
		c->lbs_unfenced = true;
	else if (strcmp(s, "fenced") != 0) {
		desc_err(r, v, "fencing.load_balancers: '%s' is neither fenced nor none", s);
		return -1;
	}
	return 0;
}

int desc_lbs_unfenced_check(struct rd *r, const struct cp_cluster *c)
{
	const char *why = NULL;

	if (c->lb_on_masters)
		why = "there are no load_balancers: the VIP daemon runs on the masters, in "
		      "their corosync cluster";
	else if (c->vipd == CP_VIP_PACEMAKER)
		why = "vip: pacemaker runs the VIP in the load-balancer hosts' Pacemaker "
		      "cluster, which needs corosync there";
	else if (c->qdevice.on)
		why = "qdevice: serves the load-balancer hosts' corosync cluster, which this "
		      "leaves out";
	if (!why)
		return 0;
	cpha_msgs_err(r->d, r->file, c->lbs_unfenced_pos, "fencing.load_balancers: none: %s", why);
	return -1;
}

static const struct key fencing_keys[] = {
	{ "devices", k_devices },
	{ "delay", k_fence_delay },
	{ "priority_delay_vip", k_priority_delay },
	{ "watchdog", k_watchdog_device },
	{ "watchdog_timeout", k_watchdog_timeout },
	{ "load_balancers", k_fence_lbs },
	{ NULL, NULL },
};

int desc_fencing(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_cluster *c = o;
	(void)k;
	c->fencing_pos = desc_pos(v);
	return desc_walk(r, v, "fencing", fencing_keys, o);
}
