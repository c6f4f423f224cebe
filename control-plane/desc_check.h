/* The rules of the cluster description that need every value read: the
 * pod and service networks against each other and against the hosts, and
 * the VRRP priorities of the hosts that may hold the VIP. cluster_load()
 * applies them; a design rule about availability is plan's (plan.c). */
#ifndef CPHA_DESC_CHECK_H
#define CPHA_DESC_CHECK_H

#include "cluster.h"

/* Check c, whose values are each valid on their own. Errors go into d at
 * the place they concern. Returns 0, or -1 when an error was found. Pure. */
int desc_check(const struct cp_cluster *c, struct cpha_msgs *d);

#endif
