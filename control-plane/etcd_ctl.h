/* etcdctl for the etcd commands: snapshot and verify (etcd_cmd.c) and
 * restore (etcd_restore.c). */
#ifndef CPHA_ETCD_CTL_H
#define CPHA_ETCD_CTL_H

#include <stdbool.h>
#include <stddef.h>

#include "spawn.h"

/* why, when etcdctl is nowhere to be found */
#define CPHA_ETCDCTL_NOT_INSTALLED "etcdctl is not installed (not in PATH, /usr/sbin or /sbin)"

/* Run etcdctl (API 3, without the caller's ETCDCTL_* variables) with args
 * (NULL-terminated), killed after timeout_sec. 0 when it ran (res says how
 * it ended), -1 with why when it could not. */
int cpha_etcdctl(const char *const *args, unsigned timeout_sec, struct cpha_run_result *res,
	char *why, size_t whylen);

/* etcdctl's own words for a run that failed. */
void cpha_etcdctl_failure(const struct cpha_run_result *res, char *buf, size_t len);

/* What etcdctl said about a snapshot (snapshot status -w json). */
struct cpha_snap_status {
	unsigned long long hash, revision, keys, size;
};

/* etcdctl snapshot status of path. Returns 0, or -1 with why set. */
int cpha_etcd_snap_status(const char *path, struct cpha_snap_status *st, char *why, size_t whylen);

/* `cpha etcd verify` of one file: a line on stdout; 0 when it passes. */
int cpha_etcd_verify_one(const char *file, bool no_sidecar);

#endif
