/* The reading helpers of the cluster description (desc.c): typed values
 * of libyaml's document nodes, each error at its line and column, and the
 * table walk every mapping goes through. Internal to control-plane/. */
#ifndef CPHA_DESC_READ_H
#define CPHA_DESC_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <yaml.h>

#include "cluster.h"

struct rd { /* one reading: the document, its file, where messages go, the model */
	yaml_document_t *doc;
	const char *file;
	struct cpha_msgs *d;
	struct cp_cluster *c;
};

/* One key a mapping may hold, and what reads its value. */
struct key {
	const char *name;
	int (*fn)(struct rd *r, const yaml_node_t *v, void *obj, const char *key);
};

struct cpha_pos desc_pos(const yaml_node_t *n);
void desc_err(struct rd *r, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void *desc_calloc(size_t n, size_t sz);
char *desc_strdup(const char *s);
const char *desc_type_name(const yaml_node_t *n);
const char *desc_scalar(struct rd *r, const yaml_node_t *n, const char *key);
bool desc_is_null(const yaml_node_t *n);
int desc_str(struct rd *r, const yaml_node_t *n, const char *key, char **out);
int desc_uint(struct rd *r, const yaml_node_t *n, const char *key, unsigned lo, unsigned hi,
	unsigned *out);
int desc_bool(struct rd *r, const yaml_node_t *n, const char *key, bool *out);
int desc_duration(struct rd *r, const yaml_node_t *n, const char *key, uint64_t *out);
int desc_enum(
	struct rd *r, const yaml_node_t *n, const char *key, const char *const *names, int *out);
int desc_strv(struct rd *r, const yaml_node_t *n, const char *key, char ***out);
/* The sections read in files of their own, into the cluster: kubernetes:
 * (desc_kubernetes.c), fencing: (desc_fencing.c), monitoring:
 * (desc_monitoring.c), qdevice: (below). */
int desc_kubernetes(struct rd *r, const yaml_node_t *v, void *cluster, const char *key);
int desc_fencing(struct rd *r, const yaml_node_t *v, void *cluster, const char *key);
/* fencing.load_balancers: none against the rest of the description (once
 * every section is read): there must be load-balancer hosts, and nothing
 * may need their corosync cluster (vip: pacemaker, qdevice:). */
int desc_lbs_unfenced_check(struct rd *r, const struct cp_cluster *c);
int desc_monitoring(struct rd *r, const yaml_node_t *v, void *cluster, const char *key);
/* qdevice: (desc_qdevice.c); desc_qdevice_resolve() runs once every host
 * is read: the address or host name of corosync-qnetd, which must not be
 * a host of the cluster it serves, and the tie_breaker's node id. */
int desc_qdevice(struct rd *r, const yaml_node_t *v, void *cluster, const char *key);
int desc_qdevice_resolve(struct rd *r, struct cp_cluster *c);

int desc_walk(
	struct rd *r, const yaml_node_t *m, const char *what, const struct key *keys, void *obj);

#endif
