/* etcdctl for the etcd commands: snapshot and verify (etcd_cmd.c),
 * restore (etcd_restore.c) and remove (etcd_remove_cmd.c). */
#ifndef CPHA_ETCD_CTL_H
#define CPHA_ETCD_CTL_H

#include <stdbool.h>
#include <stddef.h>

#include "cluster.h"
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

/* Flags that bound a short request: a dial that fails waits for the
 * command's timeout too (etcdctl 3.4); a run is killed a little after
 * CPHA_ETCDCTL_SHORT_SEC. */
#define CPHA_ETCDCTL_DIAL_TIMEOUT "--dial-timeout=5s"
#define CPHA_ETCDCTL_CMD_TIMEOUT  "--command-timeout=5s"
#define CPHA_ETCDCTL_SHORT_SEC    (5 + 30)

/* Whether the member at ep (--endpoints=URL) is healthy: it answers a
 * read that needs quorum (etcdctl endpoint health), so a member cut off
 * from the others, whose data may be old, is not. ca, cert and key are
 * etcdctl's --cacert=, --cert= and --key= flags. Returns 0, or -1 with why
 * set. */
int cpha_etcd_healthy(const char *ep, const char *ca, const char *cert, const char *key, char *why,
	size_t whylen);

/* etcd's client certificate is readable in pki (ca.pem, etcd-client.pem,
 * etcd-client-key.pem): 0, or -1 after saying on stderr, after prog
 * ("cpha etcd snapshot"), which file is not. */
int cpha_etcd_pki_check(const char *prog, const char *pki);

/* The client URL of the description's etcd member i (c->etcd[i]),
 * "https://ADDRESS:2379", an IPv6 address in brackets, into buf; with
 * peer, its peer URL (port 2380). Returns buf. */
char *cpha_etcd_url(const struct cp_cluster *c, size_t i, bool peer, char *buf, size_t len);

/* What etcdctl said about a snapshot (snapshot status -w json). */
struct cpha_snap_status {
	unsigned long long hash, revision, keys, size;
};

/* etcdctl snapshot status of path. Returns 0, or -1 with why set. */
int cpha_etcd_snap_status(const char *path, struct cpha_snap_status *st, char *why, size_t whylen);

/* `cpha etcd verify` of one file: a line on stdout; 0 when it passes. */
int cpha_etcd_verify_one(const char *file, bool no_sidecar);

#endif
