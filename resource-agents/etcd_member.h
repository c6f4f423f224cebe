/* etcd membership for the ocf:cpha:etcd agent, as pure decisions: the node
 * map (which node runs which member, at which URLs), the member list
 * (etcd_parse.h turns etcd's answers into it), the --initial-cluster
 * strings, quorum sizing and the plan a
 * start follows (bootstrap, join as a learner, restart with the data,
 * replace a dead member, wait). No I/O: the agent gathers a view, this
 * module decides, the agent acts and gathers again. */
#ifndef CPHA_ETCD_MEMBER_H
#define CPHA_ETCD_MEMBER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ocf.h"

/* How a node map's addresses become URLs. */
struct etcd_url_spec {
	const char *peer_scheme;   /* "https" when peer TLS is configured, else "http" */
	const char *client_scheme; /* "https" when client TLS is configured, else "http" */
	unsigned peer_port;        /* 2380 */
	unsigned client_port;      /* 2379 */
};

/* One entry of the node map: a node (its name is the member's name) and
 * where its member listens. */
struct etcd_node {
	char *name;       /* Pacemaker node name = etcd member name */
	char *host;       /* as written in a URL: "198.18.0.11", "[2001:db8::11]", "m1" */
	char *peer_url;   /* "https://198.18.0.11:2380" */
	char *client_url; /* "https://198.18.0.11:2379" */
};

struct etcd_map {
	struct etcd_node *v;
	size_t n;
};

/* Parse a node map: "name=address" pairs separated by blanks or ';'. The
 * address is an IPv4 address, an IPv6 address (bare or in brackets), a host
 * name, or a peer URL ("https://198.18.0.11:2380"), in which case the client
 * URL is the same host with the client scheme and port. Names and peer URLs
 * are unique. Returns 0, -EINVAL (*why) or -ENOMEM. */
int etcd_map_parse(
	const char *text, const struct etcd_url_spec *spec, struct etcd_map *out, const char **why);
const struct etcd_node *etcd_map_find(const struct etcd_map *m, const char *name);
const struct etcd_node *etcd_map_find_peer(const struct etcd_map *m, const char *peer_url);
void etcd_map_free(struct etcd_map *m);

/* Two URLs name the same endpoint: equal but for the case of the scheme
 * and host and a trailing '/'. */
bool etcd_url_equal(const char *a, const char *b);

/* A member as etcd lists it. */
struct etcd_member {
	uint64_t id;
	char *name; /* "" for a member added but never started */
	struct ocf_strv peer_urls;
	struct ocf_strv client_urls;
	bool learner;
	bool healthy; /* set by the caller: its /health answered true */
};

struct etcd_members {
	struct etcd_member *v;
	size_t n;
	uint64_t answered_by; /* header.member_id of the answer */
	uint64_t cluster_id;  /* header.cluster_id of the answer; 0: none */
};

/* Free the members of l. */
void etcd_members_free(struct etcd_members *l);

/* Index of the member with this peer URL (or, when url is NULL or no peer
 * URL matches, this non-empty name); -1 when none. */
ssize_t etcd_members_find(const struct etcd_members *l, const char *name, const char *peer_url);

/* --initial-cluster for a new cluster: "name=peer_url,..." for the map's
 * nodes in map order, only those listed in only (NULL: all). Returns a
 * malloc'd string, NULL on -ENOMEM. */
char *etcd_initial_cluster_map(const struct etcd_map *m, const struct ocf_strv *only);

/* --initial-cluster for joining a running cluster: every member of l (etcd
 * checks that the count and every peer URL match its own list), named by
 * its name, else by the map's name for its peer URL, else "member-<id>".
 * Returns a malloc'd string, NULL on -ENOMEM. */
char *etcd_initial_cluster_members(const struct etcd_members *l, const struct etcd_map *m);

/* Quorum after removing member idx: the voters left that are healthy are a
 * majority of the voters left (a learner's removal changes no quorum). */
bool etcd_removal_safe(const struct etcd_members *l, size_t idx);

/* Quorum while member idx is stopped (it stays a member, and its vote
 * counts in the majority): the healthy voters other than it are a
 * majority of all voters (a learner's stop changes no quorum). */
bool etcd_stop_safe(const struct etcd_members *l, size_t idx);

/* What a start does next. */
enum etcd_plan {
	ETCD_PLAN_WAIT,         /* not now: gather again (why says what for) */
	ETCD_PLAN_BOOTSTRAP,    /* a new cluster: --initial-cluster-state=new */
	ETCD_PLAN_RESTART,      /* the data dir holds a member: start it as it was */
	ETCD_PLAN_START_LISTED, /* already a member that never started: start, no add */
	ETCD_PLAN_JOIN,         /* member add (as a learner), then start */
	ETCD_PLAN_REMOVE,       /* member remove target first (a dead member) */
	ETCD_PLAN_DISCARD,      /* the data is of a member the cluster removed: set it aside */
	ETCD_PLAN_REFUSE,       /* a conflict only an operator can resolve */
};

const char *etcd_plan_name(enum etcd_plan p);

/* What a start knows when it decides. */
struct etcd_view {
	const char *node;     /* this Pacemaker node (as in the notify lists) */
	const char *name;     /* this member */
	const char *peer_url; /* its peer URL (from the map) */
	bool has_data;        /* the data dir holds a member (member/ exists) */
	const struct etcd_map *map;
	/* reachable: a healthy member answered with its list; members[].healthy
	 * says which members answered /health true */
	bool reachable;
	const struct etcd_members *members;
	/* the start's notify variables (clone with notify=true): which nodes
	 * run an instance now, which stop and which start in this transition */
	bool notify_known;
	const struct ocf_strv *active;
	const struct ocf_strv *stopping;
	const struct ocf_strv *starting;
};

struct etcd_decision {
	enum etcd_plan plan;
	size_t target;           /* REMOVE: index in members */
	struct ocf_strv initial; /* BOOTSTRAP: names of the new cluster's members */
	char why[512];           /* what was decided and why, for the log */
};

/* Decide the next step of a start. Never changes anything; free d->initial
 * with ocf_strv_free(). Returns 0 or -ENOMEM. */
int etcd_decide(const struct etcd_view *v, struct etcd_decision *d);

/* Quorum sizing of the configuration: an even clone-max (when a clone) or
 * an even node map wastes a member (2n members tolerate n-1 failures, as
 * 2n-1 do, and need one more vote for a majority), unless allow_even. */
struct etcd_size {
	int rc;        /* 0; -EDOM: an even size; -EINVAL: no members, or a clone-max
			* larger than the map (an instance outside the map refuses
			* itself: a warning, not a refusal) */
	unsigned n;    /* -EDOM: the even size */
	char fix[96];  /* -EDOM: the fix, first in every reason ("even etcd size 4
			* refused: set clone-max to 3 or 5") */
	char why[256]; /* -EDOM: why (the tolerance and the majority of n);
			* -EINVAL: the problem */
};

/* Check the configured sizes into *s (clone-max first, then the map).
 * Returns s->rc. Pure. */
int etcd_size_check(
	const struct ocf_clone *clone, size_t map_n, bool allow_even, struct etcd_size *s);

/* What the sizing lets a member do. An even size never stops a member
 * that is already in the etcd cluster, and never makes a running cluster
 * even: it refuses only the step that would. */
enum etcd_size_verdict {
	ETCD_SIZE_GO,           /* no objection: an odd size (or allow_even), or a step
				 * that adds no member (wait, remove, set data aside) or
				 * leaves the running cluster odd */
	ETCD_SIZE_KEEP,         /* even, but already a member (its data dir holds one,
				 * the cluster lists its peer URL, or it runs): it runs,
				 * and the monitor reports OCF_DEGRADED */
	ETCD_SIZE_NO_JOIN,      /* even, a running cluster this member is not in, and
				 * adding it would make that cluster even: no member add */
	ETCD_SIZE_NO_BOOTSTRAP, /* even, no member answers, no data here: no new cluster */
};

const char *etcd_size_verdict_name(enum etcd_size_verdict v);

/* Judge member name's next step against the sizing s: d is the start's
 * decision (etcd_decide() over v), or NULL when etcd already runs here (a
 * start that finds it running, a reload, a monitor; v may be NULL then).
 * why gets the reason, the fix first (Pacemaker keeps 128 characters of
 * an exit reason), or "" when the size is not even. Pure. */
enum etcd_size_verdict etcd_size_gate(const struct etcd_size *s, const char *name,
	const struct etcd_view *v, const struct etcd_decision *d, char *why, size_t len);

/* The monitor's membership upkeep, done by the leader's node only: a member
 * whose peer URL is not in the map (a node scaled away or replaced) is
 * removed, one per call, dead ones first, and only when quorum stays
 * (etcd_removal_safe()). self_id is never chosen. Returns its index, or
 * -1 (why says what blocks a removal, or is empty). */
ssize_t etcd_reconcile(const struct etcd_members *l, const struct etcd_map *m, uint64_t self_id,
	char *why, size_t len);

#endif
