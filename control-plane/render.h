/* `cpha render`: every file of the cluster, made in memory from the model
 * (deterministic: the same description gives the same bytes), then checked
 * by each file's own checker and written under DIR/HOST/<path as installed>
 * and DIR/cluster/.
 *
 * Each render_*.c module adds files to a set; render.c orders, checks and
 * writes them. */
#ifndef CPHA_RENDER_H
#define CPHA_RENDER_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "cluster.h"

#include "render_paths.h"
#include "render_set.h"

/* The modules: each adds its files for the whole cluster. They return 0,
 * or -1 after adding an error to d. */
int render_masters(const struct cp_cluster *c, struct render_set *s, struct cpha_msgs *d);
int render_lb(const struct cp_cluster *c, struct render_set *s, struct cpha_msgs *d);
int render_ha(const struct cp_cluster *c, struct render_set *s, struct cpha_msgs *d);
/* etcd.snapshot: the snapshot timer of every etcd member
 * (render_snapshot.c) */
int render_etcd_snapshot(const struct cp_cluster *c, struct render_set *s, struct cpha_msgs *d);
/* monitoring.prometheus (render_prom.c), after the others */
int render_prom(const struct cp_cluster *c, struct render_set *s, struct cpha_msgs *d);

/* Everything, in a stable order. */
int render_all(const struct cp_cluster *c, struct render_set *s, struct cpha_msgs *d);

/* Stage the files (of one host and the cluster-wide ones when host is
 * given) under dir, run each checker when check, and move them into place
 * only when every check passed. Prints what went wrong; returns 0 or -1. */
int render_write(const struct render_set *s, const char *dir, const char *host, bool check);

#endif
