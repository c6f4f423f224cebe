/* The etcd agent's state, shared by its files: the actions (etcd.c), the
 * parameters and command line (etcd_setup.c), the calls to etcd's v3 JSON
 * gateway (etcd_api.c) and the cluster ID record (etcd_cib.c). Types and
 * small helpers only. */
#ifndef CPHA_OCF_ETCD_AGENT_H
#define CPHA_OCF_ETCD_AGENT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "etcd_member.h"
#include "ocf.h"
#include "ocf_args.h"
#include "ocf_proc.h"

/* s unless it is NULL or empty, else dflt. */
static inline const char *str_or(const char *s, const char *dflt)
{
	return s && *s ? s : dflt;
}

#define ETCD_ENV_PATH           "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#define ETCD_CALL_USEC          3000000U /* one API call to a member */
#define ETCD_PROBE_USEC         1500000U /* one /health probe of another member */
/* How long a start that restarted a member with its data, or bootstrapped
 * one, waits for a majority of its cluster before it ends anyway: the
 * others start in parallel and join within seconds, unless Pacemaker starts
 * one instance at a time (its throttle under load, batch-limit), when they
 * start only once this start is over */
#define ETCD_MAJORITY_WAIT_USEC 10000000U

/* The certificates of a call. */
struct etcd_tls {
	const char *ca, *cert, *key;
};

struct etcd {
	struct ocf_ctx *c;
	const char *binary;
	const char *name;
	const char *data_dir;
	struct etcd_url_spec spec;
	struct etcd_map map;
	const struct etcd_node *me;
	struct etcd_tls api;  /* TLS of the agent's calls to client URLs */
	struct etcd_tls peer; /* ... and to its own peer URL */
	struct ocf_strv argv, envp;
	char *pidfile, *statefile, *logfile;
	struct ocf_daemon d;
	off_t log_start;
	char *via;             /* client URL of the healthy member that answered last */
	struct etcd_size size; /* quorum sizing (etcd_validate()) */
	uint64_t cluster_id;   /* header.cluster_id of this member's last status; 0: none */
};

/* Whether the operator set the parameter (not just its default). */
static inline bool is_set(const struct etcd *e, const char *name)
{
	return ocf_is_set(e->c, name);
}

#endif
