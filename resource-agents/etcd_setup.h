/* The etcd agent's parameters, their validation and etcd's command line. */
#ifndef CPHA_OCF_ETCD_SETUP_H
#define CPHA_OCF_ETCD_SETUP_H

#include "etcd_agent.h"
#include "ocf.h"

/* Parameters (etcd_init reads them into e, etcd_free releases them),
 * their validation (validate-all: etcd_validate_all) and the etcd command
 * line of a start (etcd_build_argv). */
int etcd_port_param(struct etcd *e, const char *name, unsigned *out);
int etcd_init(struct etcd *e, struct ocf_ctx *c);
void etcd_free(struct etcd *e);
int etcd_validate(struct etcd *e);
int etcd_validate_all(struct etcd *e);
int etcd_build_argv(struct etcd *e, const char *initial, const char *state);

#endif
