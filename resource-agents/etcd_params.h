/* The etcd agent's parameters, for its meta-data. */
#ifndef CPHA_OCF_ETCD_PARAMS_H
#define CPHA_OCF_ETCD_PARAMS_H

#include "ocf.h"

/* Every parameter of ocf:cpha:etcd with its default and descriptions,
 * ended by one whose name is NULL. */
extern const struct ocf_param etcd_params[];

#endif
