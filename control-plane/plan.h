/* `cpha plan`: the availability of each role of the control plane, and the
 * design rules that a cluster description must meet before anything runs.
 * Pure: it reads the model and returns rows and findings, no I/O. */
#ifndef CPHA_PLAN_H
#define CPHA_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "cluster.h"

/* One row of the availability matrix. */
struct plan_role {
	char *role;      /* "etcd", "kube-apiserver", "load balancer (lbd)", ... */
	char *hosts;     /* "kubem00 kubem01 kubem02" */
	char *style;     /* "active-active, Raft quorum" */
	char *tolerance; /* "3 members, quorum 2, tolerates 1 failure" */
	unsigned members, tolerates;
};

struct plan {
	struct plan_role *roles;
	size_t nroles;
	/* the control plane as a whole: the host failures every role above
	 * survives at once, and which one limits it ("1 host failure (etcd
	 * quorum 2 of 3)") */
	unsigned tolerates;
	char *tolerance;
	char **notes; /* things worth saying that are neither errors nor warnings */
	size_t nnotes;
};

struct plan_opts {
	bool allow_even;   /* accept an even etcd member count */
	const char *today; /* "YYYY-MM-DD": judge the Kubernetes version's end of life on
			    * this day; NULL: not judged */
};

/* The Kubernetes version of c against the table of the minors cpha knows
 * (flags.h): an error when the table does not know the minor (naming the
 * ones it knows), a warning when today ("YYYY-MM-DD", or NULL: no warning)
 * is past the minor's upstream end of life. Pure: today is an argument. */
void plan_check_version(const struct cp_cluster *c, const char *today, struct cpha_msgs *d);

/* With static pods, a warning when kubernetes.etcd_image's tag names
 * another etcd release line than etcd.version (the flags are rendered for
 * etcd.version's). Pure. */
void plan_check_etcd_image(const struct cp_cluster *c, struct cpha_msgs *d);

/* Build the matrix and check every rule: errors and warnings go into d
 * with the place in the description they concern. Returns 0, or -1 when an
 * error was found. */
int plan_build(
	const struct cp_cluster *c, const struct plan_opts *o, struct plan *p, struct cpha_msgs *d);

void plan_free(struct plan *p);

#endif
