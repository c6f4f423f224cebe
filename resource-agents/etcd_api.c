/* The etcd agent's calls to etcd's v3 JSON gateway, through libcurl and
 * jansson (no etcdctl). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "etcd_agent.h"
#include "etcd_api.h"
#include "etcd_parse.h"
#include "httpc.h"
#include "log.h"

uint64_t etcd_api_timeout(const struct etcd *e, uint64_t want)
{
	uint64_t left = ocf_left(e->c);

	if (left == 0)
		return 1000;
	return left < want ? left : want;
}

/* One request to base_url + path with the certificates of t: a POST of
 * json when json is set, else a GET (lib's cpha_http_call). Returns 0 when
 * an HTTP answer came, -errno when none did. */
int etcd_api_tls_call(const struct etcd_tls *t, const char *base_url, const char *path,
	const char *json, uint64_t timeout_usec, struct api_res *res)
{
	const struct cpha_http_tls tls = { .ca = t->ca, .cert = t->cert, .key = t->key };
	struct cpha_http_res hr = { .body = res->body };
	size_t bl = strlen(base_url);
	char url[1024];
	int ret;

	while (bl && base_url[bl - 1] == '/')
		bl--;
	snprintf(url, sizeof(url), "%.*s%s", (int)bl, base_url, path);
	ret = cpha_http_call(&tls, url, json, timeout_usec, &hr);
	res->status = hr.status;
	res->body = hr.body;
	snprintf(res->error, sizeof(res->error), "%s", hr.error);
	return ret;
}

/* A call to a client URL. */
int etcd_api_call(const struct etcd *e, const char *base_url, const char *path, const char *json,
	uint64_t timeout_usec, struct api_res *res)
{
	return etcd_api_tls_call(&e->api, base_url, path, json, timeout_usec, res);
}

/* GET <own peer URL>/version, which etcd serves before it has a cluster:
 * 1 the member has joined its cluster, 0 it is still waiting for one
 * ("etcdcluster":"not_decided": no majority reached yet), -errno no answer. */
int etcd_api_peer_version(const struct etcd *e, struct api_res *res)
{
	json_error_t err;
	json_t *root, *v;
	int r = etcd_api_tls_call(&e->peer, e->me->peer_url, "/version", NULL,
		etcd_api_timeout(e, ETCD_PROBE_USEC), res);

	if (r < 0)
		return r;
	if (res->status != 200)
		return -EIO;
	root = json_loads(res->body.data, 0, &err);
	v = root ? json_object_get(root, "etcdcluster") : NULL;
	r = json_is_string(v) && strcmp(json_string_value(v), "not_decided") != 0 ? 1 : 0;
	json_decref(root);
	return r;
}

/* A one-line description of a failed call, for logs and exit reasons. */
const char *etcd_api_error(const struct api_res *res, char *buf, size_t len)
{
	char msg[256];

	if (res->status == 0)
		snprintf(buf, len, "%s", str_or(res->error, "no answer"));
	else if (etcd_error_parse(res->body.data, msg, sizeof(msg)) >= 0)
		snprintf(buf, len, "HTTP %ld: %s", res->status, msg);
	else
		snprintf(buf, len, "HTTP %ld: %.200s", res->status, str_or(res->body.data, ""));
	return buf;
}

/* GET /health: 1 healthy, 0 answered unhealthy, -errno no answer. */
int etcd_api_health(const struct etcd *e, const char *url, uint64_t timeout, struct api_res *res)
{
	bool ok = false;
	int r = etcd_api_call(e, url, "/health", NULL, timeout, res);

	if (r < 0)
		return r;
	if (etcd_health_parse(res->body.data, &ok) < 0)
		return 0;
	return ok && res->status == 200 ? 1 : 0;
}

/* POST a cluster call; 0 and the answer in res, or -1 (res says why). */
int etcd_api_cluster_call(
	const struct etcd *e, const char *url, const char *path, json_t *body, struct api_res *res)
{
	char *json = json_dumps(body, JSON_COMPACT);
	int r;

	json_decref(body);
	if (!json)
		return -1;
	r = etcd_api_call(e, url, path, json, etcd_api_timeout(e, ETCD_CALL_USEC), res);
	free(json);
	return r == 0 && res->status == 200 ? 0 : -1;
}

int etcd_api_member_list(
	const struct etcd *e, const char *url, struct etcd_members *l, struct api_res *res)
{
	const char *why;

	if (etcd_api_cluster_call(e, url, "/v3/cluster/member/list", json_object(), res) < 0)
		return -1;
	if (etcd_members_parse(res->body.data, l, &why) < 0) {
		snprintf(res->error, sizeof(res->error), "member list: %s",
			str_or(why, "no memory"));
		res->status = 0;
		return -1;
	}
	return 0;
}

json_t *etcd_api_id_body(uint64_t id)
{
	char s[32];

	snprintf(s, sizeof(s), "%" PRIu64, id);
	return json_pack("{s:s}", "ID", s);
}

/* The first client URL of a member, else the map's for its peer URL. */
const char *etcd_api_client_url(const struct etcd *e, const struct etcd_member *m)
{
	const struct etcd_node *n;
	size_t j;

	if (m->client_urls.n)
		return m->client_urls.v[0];
	for (j = 0; j < m->peer_urls.n; j++) {
		n = etcd_map_find_peer(&e->map, m->peer_urls.v[j]);
		if (n)
			return n->client_url;
	}
	return NULL;
}

/* Fill healthy[] of every member of l: via answered already. */
void etcd_api_probe_members(const struct etcd *e, struct etcd_members *l, const char *via)
{
	struct api_res res = { 0 };
	const char *url;
	size_t i, j;

	for (i = 0; i < l->n; i++) {
		struct etcd_member *m = &l->v[i];

		m->healthy = false;
		for (j = 0; via && j < m->client_urls.n; j++) {
			if (etcd_url_equal(m->client_urls.v[j], via))
				m->healthy = true;
		}
		if (m->healthy || !*m->name)
			continue; /* never started: nothing to ask */
		url = etcd_api_client_url(e, m);
		if (url && etcd_api_health(e, url, etcd_api_timeout(e, ETCD_PROBE_USEC), &res) == 1)
			m->healthy = true;
	}
	cpha_buf_free(&res.body);
}
