/* What etcd says, turned into plain structures: the v3 JSON gateway's
 * answers (member list, member add, status, health, errors) and the reason
 * etcd's log gives for a stop. Pure. */
#ifndef CPHA_ETCD_PARSE_H
#define CPHA_ETCD_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etcd_member.h"

/* The members of a /v3/cluster/member/list, .../add, .../promote or
 * .../remove answer ("members": [...]). IDs are accepted as JSON strings
 * (what the gateway sends for uint64) or numbers. Returns 0, -EINVAL
 * (*why) or -ENOMEM. */
int etcd_members_parse(const char *json, struct etcd_members *out, const char **why);

/* The ID of "member" in a /v3/cluster/member/add answer. */
int etcd_added_id(const char *json, uint64_t *id, const char **why);

/* /v3/maintenance/status of one member. */
struct etcd_status {
	uint64_t member_id;  /* header.member_id */
	uint64_t cluster_id; /* header.cluster_id; 0: none */
	uint64_t leader;     /* 0: no leader known */
	uint64_t raft_index;
	uint64_t applied_index;
	bool learner;
	char version[32];
};
int etcd_status_parse(const char *json, struct etcd_status *st, const char **why);

/* GET /health: {"health":"true"}. Returns 0 with *healthy, -EINVAL. */
int etcd_health_parse(const char *json, bool *healthy);

/* The message of a gateway error ({"error": "...", "code": N}), into msg;
 * returns the gRPC code, or -1 when the text is not such an error. */
int etcd_error_parse(const char *json, char *msg, size_t len);

/* Why etcd stopped, from text (its log since the start), short enough for
 * an exit reason: the last line at the gravest level found (fatal: capnslog
 * "C", zap "fatal"/"panic", a flag error; then error: "E", "error"; then
 * any line), without its timestamp ("etcdmain: message", or zap's
 * "msg: error"). "" when text has no line. Pure. */
void etcd_log_reason(const char *text, char *out, size_t len);

#endif
