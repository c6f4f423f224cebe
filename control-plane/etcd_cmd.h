/* What `cpha etcd restore` shares with snapshot and verify (etcd_cmd.c). */
#ifndef CPHA_ETCD_CMD_H
#define CPHA_ETCD_CMD_H

#include <stdbool.h>
#include <stddef.h>

#include "spawn.h"

/* Run etcdctl (API 3, without the caller's ETCDCTL_* variables) with args
 * (NULL-terminated), killed after timeout_sec. 0 when it ran (res says how
 * it ended), -1 with why when it could not. */
int cpha_etcdctl(const char *const *args, unsigned timeout_sec, struct cpha_run_result *res,
	char *why, size_t whylen);

/* etcdctl's own words for a run that failed. */
void cpha_etcdctl_failure(const struct cpha_run_result *res, char *buf, size_t len);

/* `cpha etcd verify` of one file: a line on stdout; 0 when it passes. */
int cpha_etcd_verify_one(const char *file, bool no_sidecar);

/* `cpha etcd restore`. */
struct etcd_restore_opts {
	const char *snapshot;
	const char *name;     /* the member restored; NULL: this host's name */
	const char *data_dir; /* NULL: the description's etcd.data_dir */
	bool no_sidecar;
};
int cpha_etcd_restore(const char *file, const struct etcd_restore_opts *o);

#endif
