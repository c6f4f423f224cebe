/* The etcd cluster ID the ocf:cpha:etcd agent records in Pacemaker's CIB
 * (the cluster property etcd-cluster-id, in crm_config: cluster-wide, kept
 * by every node, lost with no node), and the rules that keep a start from
 * bootstrapping a new, empty cluster where one existed. Pure: the agent
 * reads the record (crm_attribute), its data dir's WAL and the members'
 * answers, this module decides, the agent acts.
 *
 * The rules, for a start whose membership plan (etcd_decide()) is known:
 *  1. No record, and the plan bootstraps: go; the new cluster's ID is
 *     recorded once its member runs.
 *  2. A record, and the plan bootstraps (no member answers, this data dir
 *     is empty): no new cluster, ever. While another member's etcd runs
 *     (its peer URL answers: it has data and waits for a majority), or for
 *     ETCD_LOST_GRACE_USEC of the start (the other members' starts launch
 *     etcd with their data within it), wait; then refuse: the data is gone
 *     on every member, and only a restore from a snapshot (or the record
 *     cleared on purpose) lets etcd start again.
 *  3. A record, and this data dir's WAL (or the running cluster that
 *     answers) names another cluster ID: refuse, whatever the plan (a
 *     member of another cluster neither restarts, nor is set aside, nor
 *     joins; no member of a cluster other than the recorded one is removed
 *     or added).
 *  4. No record, and this member has data or joins a running cluster: go;
 *     that cluster's ID is recorded once the member runs (an agent upgraded
 *     under a running cluster).
 *  5. The record cannot be read (the CIB does not answer although
 *     Pacemaker runs the agent, or its value is not an ID): a bootstrap
 *     waits (it cannot be checked); other plans go unchecked.
 *     Run by hand with no CIB to ask, the record is not kept at all.
 *
 * etcd derives a member's ID from its peer URLs and --initial-cluster-token
 * and the cluster ID from its members' IDs, so a cluster bootstrapped again
 * with the same node_map and token gets the same ID: the ID names the
 * cluster's configuration, not its data. Rule 2 is what keeps an empty
 * cluster from replacing a lost one; the ID check catches a data dir or a
 * running cluster of another configuration. */
#ifndef CPHA_ETCD_RECORD_H
#define CPHA_ETCD_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etcd_member.h"

/* The cluster property (crm_attribute --type crm_config --name ...). */
#define ETCD_RECORD_NAME "etcd-cluster-id"

/* How long a start that would bootstrap waits, with a record, for another
 * member's etcd to show it has data before it refuses. */
#define ETCD_LOST_GRACE_USEC 15000000ULL

/* What the CIB said. */
enum etcd_record_state {
	ETCD_REC_NONE,       /* no record (crm_attribute: no such property) */
	ETCD_REC_SET,        /* recorded: the ID */
	ETCD_REC_UNREADABLE, /* run by Pacemaker, but the CIB did not answer, or the value
			      * is not an ID */
	ETCD_REC_OFF,        /* run by hand: no CIB to keep a record in */
};

const char *etcd_record_state_name(enum etcd_record_state s);

/* A cluster or member ID as etcd prints it (hex, "5485ed9a2f08260c"),
 * with or without "0x". Returns 0, or -EINVAL for anything else (empty,
 * not hex, more than 64 bits, zero). */
int etcd_id_parse(const char *text, uint64_t *id);

/* The IDs in the metadata record at the head of an etcd WAL file (every
 * file of member/wal/ starts with it: a CRC record, then the metadata).
 * buf holds the file's first bytes (4 KiB is plenty). Returns 0 with
 * *cluster and *member, -EINVAL (*why) for anything else. */
int etcd_wal_ids(
	const void *buf, size_t len, uint64_t *cluster, uint64_t *member, const char **why);

/* What a start's ID check knows. */
struct etcd_id_view {
	enum etcd_record_state record;
	uint64_t recorded;     /* REC_SET: the recorded ID */
	enum etcd_plan plan;   /* etcd_decide()'s plan */
	bool has_data;         /* this data dir holds a member */
	uint64_t data_id;      /* its cluster ID from the WAL; 0: unknown */
	uint64_t running_id;   /* cluster ID of the members that answered; 0: none */
	bool data_elsewhere;   /* another member's etcd runs (its peer URL answers) */
	const char *elsewhere; /* data_elsewhere: which member, for the log */
	uint64_t lost_usec;    /* how long this start has found no data anywhere */
	/* for the refusal's instructions: this member as the agent runs it */
	const char *name;     /* --name */
	const char *data_dir; /* --data-dir */
	const char *peer_url; /* --initial-advertise-peer-urls */
	const char *initial;  /* node_map as --initial-cluster */
	const char *token;    /* --initial-cluster-token */
};

enum etcd_id_verdict {
	ETCD_ID_GO,       /* carry out the plan */
	ETCD_ID_WAIT,     /* gather again (why says what for) */
	ETCD_ID_LOST,     /* rule 2: refuse; help says how to restore or clear */
	ETCD_ID_MISMATCH, /* rule 3: refuse */
};

const char *etcd_id_verdict_name(enum etcd_id_verdict v);

struct etcd_id_decision {
	enum etcd_id_verdict verdict;
	bool record;     /* GO: record the cluster ID once the member runs */
	char why[256];   /* one line; its start is the exit reason (Pacemaker keeps
			  * 128 characters) */
	char help[2048]; /* LOST, MISMATCH: what the operator can do, lines
			  * separated by '\n' */
};

/* Judge a start's plan against the record (the rules above). Pure. */
void etcd_id_gate(const struct etcd_id_view *v, struct etcd_id_decision *d);

/* What to do about the cluster a running member is in. */
enum etcd_id_after {
	ETCD_ID_KEEP,    /* recorded and equal, or nothing to do (no record kept,
			  * unreadable, or the ID not known yet) */
	ETCD_ID_RECORD,  /* no record: write running_id */
	ETCD_ID_DIFFERS, /* recorded, and the member runs in another cluster */
};

/* After a start, and in the leader's monitor: judge the running member's
 * cluster ID (0: not known yet) against a fresh read of the record; why
 * says what (or is ""). Pure. */
enum etcd_id_after etcd_id_check(enum etcd_record_state record, uint64_t recorded,
	uint64_t running_id, char *why, size_t len);

#endif
