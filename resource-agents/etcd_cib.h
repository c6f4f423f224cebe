/* The etcd agent's cluster ID record in the CIB and its ID gate. */
#ifndef CPHA_OCF_ETCD_CIB_H
#define CPHA_OCF_ETCD_CIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etcd_agent.h"
#include "etcd_member.h"
#include "etcd_record.h"

/* The cluster ID record (crm_attribute), the data dir's
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

#endif
