/* Internal to the etcd agent: its state, and the calls to etcd's v3 JSON
 * gateway (etcd_api.c) that etcd.c builds its actions on. */
#ifndef CPHA_OCF_ETCD_INTERNAL_H
#define CPHA_OCF_ETCD_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "buf.h"
#include "etcd_member.h"
#include "etcd_record.h"
#include "ocf.h"
#include "ocf_args.h"
#include "ocf_proc.h"

/* s unless it is NULL or empty, else dflt. */
static inline const char *str_or(const char *s, const char *dflt)
{
	return s && *s ? s : dflt;
}

#define ETCD_ENV_PATH   "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#define ETCD_CALL_USEC  3000000U /* one API call to a member */
#define ETCD_PROBE_USEC 1500000U /* one /health probe of another member */

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

struct api_res {
	long status;          /* HTTP status; 0: no answer */
	struct cpha_buf body; /* the answer */
	char error[256];      /* transport error */
};

uint64_t etcd_api_timeout(const struct etcd *e, uint64_t want);

int etcd_api_tls_call(const struct etcd_tls *t, const char *base_url, const char *path,
	const char *json, uint64_t timeout_usec, struct api_res *res);

int etcd_api_call(const struct etcd *e, const char *base_url, const char *path, const char *json,
	uint64_t timeout_usec, struct api_res *res);

int etcd_api_peer_version(const struct etcd *e, struct api_res *res);

const char *etcd_api_error(const struct api_res *res, char *buf, size_t len);

int etcd_api_health(const struct etcd *e, const char *url, uint64_t timeout, struct api_res *res);

int etcd_api_cluster_call(
	const struct etcd *e, const char *url, const char *path, json_t *body, struct api_res *res);

int etcd_api_member_list(
	const struct etcd *e, const char *url, struct etcd_members *l, struct api_res *res);

json_t *etcd_api_id_body(uint64_t id);

const char *etcd_api_client_url(const struct etcd *e, const struct etcd_member *m);

void etcd_api_probe_members(const struct etcd *e, struct etcd_members *l, const char *via);

/* etcd_cib.c: the cluster ID record (crm_attribute), the data dir's
 * cluster ID (its WAL; 0 when it cannot be read), another member whose etcd
 * answers on its peer URL (its name, or NULL) */
enum etcd_record_state etcd_record_read(const struct etcd *e, uint64_t *id);
int etcd_record_write(const struct etcd *e, uint64_t id);
uint64_t etcd_data_cluster_id(const struct etcd *e);
const char *etcd_peer_running(const struct etcd *e);

/* What a start's ID gate keeps from one round to the next: the data dir's
 * cluster (read once), since when no member has shown data, and node_map
 * as --initial-cluster for the instructions. Zeroed at first; free with
 * etcd_id_round_free(). */
struct etcd_id_round {
	uint64_t data_id;
	bool data_read;
	uint64_t lost_since; /* ocf_now() when no data was first seen anywhere; 0 */
	char *initial;
};
void etcd_id_round_free(struct etcd_id_round *r);

/* Gather the ID gate's view for the start's decision d (over v and l)
 * and judge it (etcd_id_gate()) into *out. */
void etcd_cib_gate(struct etcd *e, struct etcd_id_round *r, const struct etcd_view *v,
	const struct etcd_decision *d, const struct etcd_members *l, struct etcd_id_decision *out);

/* A refusal of the gate: its help in the log, line by line; returns
 * OCF_ERR_GENERIC with the short reason (see the agent's longdesc). */
int etcd_cib_refuse(const struct etcd_id_decision *g);

/* A running member in cluster cluster_id (0: not known yet): the record
 * read afresh and written when missing. ETCD_ID_DIFFERS (why) when the
 * record names another cluster. */
enum etcd_id_after etcd_cib_after(const struct etcd *e, uint64_t cluster_id, char *why, size_t len);

/* etcd_setup.c: parameters, validation and the etcd command line */
int etcd_port_param(struct etcd *e, const char *name, unsigned *out);
int etcd_init(struct etcd *e, struct ocf_ctx *c);
void etcd_free(struct etcd *e);
int etcd_validate(struct etcd *e);
int etcd_validate_all(struct etcd *e);
int etcd_build_argv(struct etcd *e, const char *initial, const char *state);

/* Whether the operator set the parameter (not just its default). */
static inline bool is_set(const struct etcd *e, const char *name)
{
	return ocf_is_set(e->c, name);
}

#endif
