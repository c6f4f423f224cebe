/* etcd's v3 JSON gateway as the etcd agent calls it: one request to a
 * member (its client or peer URL) with the agent's certificates. */
#ifndef CPHA_OCF_ETCD_API_H
#define CPHA_OCF_ETCD_API_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "buf.h"
#include "etcd_agent.h"
#include "etcd_member.h"

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

#endif
