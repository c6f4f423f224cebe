/* Removing departed etcd members after the control plane shrank (5
 * masters to 3): `cpha etcd remove NAME...`, after the hosts were taken
 * out of the description and it was rendered.
 * No I/O: etcd_remove_cmd.c runs `etcdctl member list -w simple`, parses
 * it here, asks each member that matters for its health (etcdctl endpoint
 * health), asks etcd_remove_decide(), removes the first member of the plan
 * and gathers again before the next.
 *
 * The rules, each refusal naming the member:
 * 1. A name that is still an etcd member in the description is refused:
 *    the description says it belongs, and render and the etcd agent would
 *    add it back. A member is in the description when its name, or one of
 *    its peer URLs, is one of the description's etcd members'.
 * 2. A name that is not in etcd's member list is no error: it was removed
 *    already (a note says so). When no named member is left, the plan is
 *    to go with nothing to do.
 * 3. A named member that is healthy (it still answers) is refused: a
 *    running member that is removed refuses its own data when it restarts
 *    and tries to join again. Stop it first.
 * 4. Quorum (as etcd_removal_safe() of the etcd agent): of the voting
 *    members not named (voters left), the healthy ones must be a majority,
 *    and a majority of today's voters too, since each removal is committed
 *    by the cluster as it is then. No voter may be left at all is refused.
 *    A learner's removal changes no quorum.
 * 5. An even count: 2n voters tolerate n-1 failures, as 2n-1 do, and need
 *    one vote more. Removals that leave an even number of voters, all of
 *    them in the description, are refused. When a voter outside the
 *    description that was not named is left, the removals go on with a
 *    note: etcd is even until that one is removed too.
 * 6. Order: learners first (they hold no vote), then the voting members;
 *    otherwise in the order the names were given. A name given twice, or
 *    two names of one member, remove it once.
 * A name is a member's name, one of its peer URLs (a member added but
 * never started has no name), or its ID in hex. */
#ifndef CPHA_ETCD_REMOVE_H
#define CPHA_ETCD_REMOVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "buf.h"

/* A member as `etcdctl member list -w simple` lists it. */
struct etcd_remove_member {
	uint64_t id;
	char *name;   /* "" for a member added but never started */
	char *peers;  /* its peer URLs, comma-separated, as listed */
	char *client; /* its first client URL; "" when it has none (never started) */
	bool learner;
	bool healthy; /* set by the caller: its client URL answered etcdctl endpoint health */
};

struct etcd_remove_members {
	struct etcd_remove_member *v;
	size_t n;
};

/* Parse the output of `etcdctl member list -w simple`: a line per member,
 * "ID, STATUS, NAME, PEER ADDRS, CLIENT ADDRS, IS LEARNER", ID in hex,
 * addresses comma-separated (empty for a member never started), IS
 * LEARNER true or false. Blank lines are skipped; healthy is false. Into
 * *out (emptied first). Returns 0, -EINVAL with why saying which line is
 * not as expected, or -ENOMEM. */
int etcd_remove_parse(const char *text, struct etcd_remove_members *out, char *why, size_t len);

void etcd_remove_members_free(struct etcd_remove_members *l);

/* How a member is named in messages: its name, else its peer URLs. */
const char *etcd_remove_label(const struct etcd_remove_member *m);

/* Index of the member name stands for (its name, else one of its peer
 * URLs, else its ID in hex); -1 when none, -2 when it names several. */
ssize_t etcd_remove_find(const struct etcd_remove_members *l, const char *name);

/* What a removal is decided on. */
struct etcd_remove_input {
	const struct etcd_remove_members *members;
	const char *const *names; /* to remove, as given */
	size_t nnames;
	/* the description's etcd members: their names and peer URLs
	 * (https://ADDRESS:2380; desc_peers may be NULL) */
	const char *const *desc_names;
	const char *const *desc_peers;
	size_t ndesc;
	const char *file; /* the description, as messages name it */
};

/* Whether member i's health plays a part in the decision (a voting
 * member, or a named one). */
bool etcd_remove_health_needed(const struct etcd_remove_input *in, size_t i);

/* One removal of a plan. */
struct etcd_remove_step {
	size_t member;       /* index in the members */
	size_t name;         /* index in the names of the name that named it */
	size_t voters_after; /* voting members once it is removed */
};

struct etcd_remove_plan {
	bool go;                        /* false: refused, why says why */
	struct etcd_remove_step *steps; /* go: the removals, in order */
	size_t n;
	size_t voters_left, healthy_left; /* of the voting members not named */
	struct cpha_buf notes;            /* lines, each a sentence ending in '\n' */
	struct cpha_buf why;              /* refused: a line per problem */
};

/* Decide which of the named members to remove, in which order, or refuse
 * (the rules above). Never changes anything; free p with
 * etcd_remove_plan_free() either way. Returns 0 or -ENOMEM. */
int etcd_remove_decide(const struct etcd_remove_input *in, struct etcd_remove_plan *p);

void etcd_remove_plan_free(struct etcd_remove_plan *p);

#endif
