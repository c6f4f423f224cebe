/* `cpha etcd restore` (etcd_restore.c). */
#ifndef CPHA_ETCD_RESTORE_H
#define CPHA_ETCD_RESTORE_H

#include <stdbool.h>

struct etcd_restore_opts {
	const char *snapshot;
	const char *name;     /* the member restored; NULL: this host's name */
	const char *data_dir; /* NULL: the description's etcd.data_dir */
	bool no_sidecar;
};
int cpha_etcd_restore(const char *file, const struct etcd_restore_opts *o);

#endif
