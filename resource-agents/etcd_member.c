/* etcd membership: node map, JSON answers, --initial-cluster, decisions. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "buf.h"
#include "etcd_member.h"
#include "ocf_args.h"
#include "ocf_quorum.h"
#include "quorum.h"

/* ------------------------------------------------------------ the map -- */

bool etcd_url_equal(const char *a, const char *b)
{
	size_t la, lb;
	const char *ha, *hb;

	if (!a || !b)
		return false;
	la = strlen(a);
	lb = strlen(b);
	while (la && a[la - 1] == '/')
		la--;
	while (lb && b[lb - 1] == '/')
		lb--;
	if (la != lb)
		return false;
	/* scheme and host compare without case, the rest (a path) exactly */
	ha = strstr(a, "://");
	hb = strstr(b, "://");
	if (!ha || !hb || ha - a != hb - b)
		return strncmp(a, b, la) == 0;
	return strncasecmp(a, b, la) == 0;
}

/* Characters of a host name or IPv4 address. */
static bool host_chars(const char *s, size_t len)
{
	size_t i;

	if (len == 0)
		return false;
	for (i = 0; i < len; i++) {
		if (!isalnum((unsigned char)s[i]) && s[i] != '.' && s[i] != '-' && s[i] != '_')
			return false;
	}
	return true;
}

/* An IPv6 address (no zone), len bytes of s. */
static bool v6_chars(const char *s, size_t len)
{
	struct in6_addr a;
	char buf[INET6_ADDRSTRLEN + 1];

	if (len < 2 || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return inet_pton(AF_INET6, buf, &a) == 1;
}

/* Dotted digits must be an IPv4 address ("300.1.1.1" is not a name). */
static bool v4_ok(const char *s, size_t len)
{
	struct in_addr a;
	char buf[INET_ADDRSTRLEN + 1];

	if (strspn(s, "0123456789.") < len)
		return true; /* a name */
	if (len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return inet_pton(AF_INET, buf, &a) == 1;
}

/* The host of a map value written as a URL: "https://h:2380" -> "h" (or "[v6]"). */
static int url_host(const char *url, char *host, size_t len, const char **why)
{
	const char *p = strstr(url, "://"), *end, *colon;
	size_t n;

	if (!p || p == url) {
		*why = "a URL needs a scheme (https://...)";
		return -EINVAL;
	}
	if ((size_t)(p - url) != 4 && (size_t)(p - url) != 5) {
		*why = "the scheme of a peer URL is http or https";
		return -EINVAL;
	}
	if (strncasecmp(url, "http://", 7) != 0 && strncasecmp(url, "https://", 8) != 0) {
		*why = "the scheme of a peer URL is http or https";
		return -EINVAL;
	}
	p += 3;
	end = p + strcspn(p, "/");
	if (*p == '[') {
		const char *rb = memchr(p, ']', (size_t)(end - p));

		if (!rb || !v6_chars(p + 1, (size_t)(rb - p - 1))) {
			*why = "bad IPv6 address in a URL";
			return -EINVAL;
		}
		n = (size_t)(rb - p + 1);
		colon = rb + 1;
	} else {
		colon = memchr(p, ':', (size_t)(end - p));
		n = colon ? (size_t)(colon - p) : (size_t)(end - p);
		if (!host_chars(p, n) || !v4_ok(p, n)) {
			*why = "bad host in a URL";
			return -EINVAL;
		}
	}
	if (colon < end && *colon == ':') {
		if (colon + 1 == end ||
			strspn(colon + 1, "0123456789") != (size_t)(end - colon - 1)) {
			*why = "bad port in a URL";
			return -EINVAL;
		}
	} else if (colon < end) {
		*why = "bad URL";
		return -EINVAL;
	}
	if (*end && strcmp(end, "/") != 0) {
		*why = "a peer URL has no path";
		return -EINVAL;
	}
	if (n + 1 > len) {
		*why = "host too long";
		return -EINVAL;
	}
	memcpy(host, p, n);
	host[n] = '\0';
	return 0;
}

static void node_free(struct etcd_node *n)
{
	free(n->name);
	free(n->host);
	free(n->peer_url);
	free(n->client_url);
}

static int node_fill(struct etcd_node *n, const char *name, const char *value,
	const struct etcd_url_spec *spec, const char **why)
{
	char host[300];
	size_t len = strlen(value), vl;
	int r;

	memset(n, 0, sizeof(*n));
	if (strpbrk(name, ",=") || strlen(name) > 253) {
		*why = "a member name cannot hold ',' or '=' (it goes into --initial-cluster)";
		return -EINVAL;
	}
	if (strstr(value, "://")) {
		r = url_host(value, host, sizeof(host), why);
		if (r < 0)
			return r;
		vl = len;
		while (vl && value[vl - 1] == '/')
			vl--;
		if (asprintf(&n->peer_url, "%.*s", (int)vl, value) < 0)
			n->peer_url = NULL;
	} else {
		if (value[0] == '[') {
			if (len < 4 || value[len - 1] != ']' || !v6_chars(value + 1, len - 2)) {
				*why = "bad IPv6 address";
				return -EINVAL;
			}
			snprintf(host, sizeof(host), "%s", value);
		} else if (strchr(value, ':')) {
			if (!v6_chars(value, len) || len + 3 > sizeof(host)) {
				*why = "bad address (an IPv6 address, an IPv4 address, a host name "
				       "or "
				       "a peer URL)";
				return -EINVAL;
			}
			snprintf(host, sizeof(host), "[%s]", value);
		} else {
			if (!host_chars(value, len) || !v4_ok(value, len) ||
				len + 1 > sizeof(host)) {
				*why = "bad address (an IPv6 address, an IPv4 address, a host name "
				       "or "
				       "a peer URL)";
				return -EINVAL;
			}
			snprintf(host, sizeof(host), "%s", value);
		}
		if (asprintf(&n->peer_url, "%s://%s:%u", spec->peer_scheme, host, spec->peer_port) <
			0)
			n->peer_url = NULL;
	}
	n->name = strdup(name);
	n->host = strdup(host);
	if (asprintf(&n->client_url, "%s://%s:%u", spec->client_scheme, host, spec->client_port) <
		0)
		n->client_url = NULL;
	if (!n->name || !n->host || !n->peer_url || !n->client_url)
		return -ENOMEM;
	return 0;
}

int etcd_map_parse(
	const char *text, const struct etcd_url_spec *spec, struct etcd_map *out, const char **why)
{
	struct ocf_kvlist kv = { 0 };
	size_t i, j;
	int r;

	*why = NULL;
	memset(out, 0, sizeof(*out));
	r = ocf_map_parse(text, &kv, why);
	if (r < 0)
		goto out;
	if (kv.n == 0) {
		*why = "no members";
		r = -EINVAL;
		goto out;
	}
	out->v = calloc(kv.n, sizeof(*out->v));
	if (!out->v) {
		r = -ENOMEM;
		goto out;
	}
	for (i = 0; i < kv.n; i++) {
		r = node_fill(&out->v[i], kv.v[i].key, kv.v[i].value, spec, why);
		out->n = i + 1;
		if (r < 0)
			goto out;
		for (j = 0; j < i; j++) {
			if (etcd_url_equal(out->v[j].peer_url, out->v[i].peer_url)) {
				*why = "two members have the same peer URL";
				r = -EINVAL;
				goto out;
			}
		}
	}
out:
	ocf_kv_free(&kv);
	if (r < 0)
		etcd_map_free(out);
	return r;
}

const struct etcd_node *etcd_map_find(const struct etcd_map *m, const char *name)
{
	size_t i;

	for (i = 0; name && i < m->n; i++) {
		if (strcmp(m->v[i].name, name) == 0)
			return &m->v[i];
	}
	return NULL;
}

const struct etcd_node *etcd_map_find_peer(const struct etcd_map *m, const char *peer_url)
{
	size_t i;

	for (i = 0; peer_url && i < m->n; i++) {
		if (etcd_url_equal(m->v[i].peer_url, peer_url))
			return &m->v[i];
	}
	return NULL;
}

void etcd_map_free(struct etcd_map *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		node_free(&m->v[i]);
	free(m->v);
	m->v = NULL;
	m->n = 0;
}

/* ---------------------------------------------------------------- JSON -- */

/* A uint64 of the gateway: a decimal string, or a number. */
static int json_u64(json_t *j, uint64_t *out)
{
	const char *s;
	char *end;
	unsigned long long v;

	if (!j) {
		*out = 0;
		return 0;
	}
	if (json_is_integer(j)) {
		if (json_integer_value(j) < 0)
			return -EINVAL;
		*out = (uint64_t)json_integer_value(j);
		return 0;
	}
	if (!json_is_string(j))
		return -EINVAL;
	s = json_string_value(j);
	if (!*s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*out = (uint64_t)v;
	return 0;
}

static int json_strv(json_t *arr, struct ocf_strv *out)
{
	size_t i;
	json_t *e;
	int r;

	if (!arr)
		return 0;
	if (!json_is_array(arr))
		return -EINVAL;
	json_array_foreach(arr, i, e)
	{
		if (!json_is_string(e))
			return -EINVAL;
		r = ocf_strv_push(out, json_string_value(e));
		if (r < 0)
			return r;
	}
	return 0;
}

static void member_free(struct etcd_member *m)
{
	free(m->name);
	ocf_strv_free(&m->peer_urls);
	ocf_strv_free(&m->client_urls);
}

static int member_from_json(json_t *o, struct etcd_member *m)
{
	json_t *name = json_object_get(o, "name");
	int r;

	memset(m, 0, sizeof(*m));
	if (!json_is_object(o) || json_u64(json_object_get(o, "ID"), &m->id) < 0 || m->id == 0)
		return -EINVAL;
	if (name && !json_is_string(name))
		return -EINVAL;
	m->name = strdup(name ? json_string_value(name) : "");
	if (!m->name)
		return -ENOMEM;
	r = json_strv(json_object_get(o, "peerURLs"), &m->peer_urls);
	if (r == 0)
		r = json_strv(json_object_get(o, "clientURLs"), &m->client_urls);
	m->learner = json_is_true(json_object_get(o, "isLearner"));
	return r;
}

int etcd_members_parse(const char *json, struct etcd_members *out, const char **why)
{
	json_t *root, *arr, *e;
	json_error_t err;
	size_t i;
	int r = 0;

	*why = NULL;
	memset(out, 0, sizeof(*out));
	root = json_loads(json ? json : "", 0, &err);
	if (!root) {
		*why = "not JSON";
		return -EINVAL;
	}
	arr = json_object_get(root, "members");
	if (!json_is_array(arr)) {
		*why = "no \"members\" list";
		r = -EINVAL;
		goto out;
	}
	json_u64(json_object_get(json_object_get(root, "header"), "member_id"), &out->answered_by);
	if (json_u64(json_object_get(json_object_get(root, "header"), "cluster_id"),
		    &out->cluster_id) < 0)
		out->cluster_id = 0;
	out->v = calloc(json_array_size(arr) + 1, sizeof(*out->v));
	if (!out->v) {
		r = -ENOMEM;
		goto out;
	}
	json_array_foreach(arr, i, e)
	{
		r = member_from_json(e, &out->v[i]);
		out->n = i + 1;
		if (r < 0) {
			*why = r == -ENOMEM ? NULL : "a member without a valid ID or URLs";
			goto out;
		}
	}
out:
	json_decref(root);
	if (r < 0)
		etcd_members_free(out);
	return r;
}

void etcd_members_free(struct etcd_members *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		member_free(&l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

int etcd_added_id(const char *json, uint64_t *id, const char **why)
{
	json_error_t err;
	json_t *root = json_loads(json ? json : "", 0, &err);
	int r = 0;

	*why = NULL;
	if (!root) {
		*why = "not JSON";
		return -EINVAL;
	}
	if (json_u64(json_object_get(json_object_get(root, "member"), "ID"), id) < 0 || *id == 0) {
		*why = "no \"member\" with an ID";
		r = -EINVAL;
	}
	json_decref(root);
	return r;
}

ssize_t etcd_members_find(const struct etcd_members *l, const char *name, const char *peer_url)
{
	size_t i, j;

	for (i = 0; peer_url && i < l->n; i++) {
		for (j = 0; j < l->v[i].peer_urls.n; j++) {
			if (etcd_url_equal(l->v[i].peer_urls.v[j], peer_url))
				return (ssize_t)i;
		}
	}
	for (i = 0; name && *name && i < l->n; i++) {
		if (strcmp(l->v[i].name, name) == 0)
			return (ssize_t)i;
	}
	return -1;
}

int etcd_status_parse(const char *json, struct etcd_status *st, const char **why)
{
	json_error_t err;
	json_t *root = json_loads(json ? json : "", 0, &err), *v;
	int r = 0;

	*why = NULL;
	memset(st, 0, sizeof(*st));
	if (!root || !json_is_object(root)) {
		json_decref(root);
		*why = "not a JSON object";
		return -EINVAL;
	}
	if (json_u64(json_object_get(json_object_get(root, "header"), "member_id"),
		    &st->member_id) < 0 ||
		st->member_id == 0 || json_u64(json_object_get(root, "leader"), &st->leader) < 0 ||
		json_u64(json_object_get(root, "raftIndex"), &st->raft_index) < 0 ||
		json_u64(json_object_get(root, "raftAppliedIndex"), &st->applied_index) < 0) {
		*why = "no member_id, or a bad number";
		r = -EINVAL;
	}
	if (json_u64(json_object_get(json_object_get(root, "header"), "cluster_id"),
		    &st->cluster_id) < 0)
		st->cluster_id = 0;
	st->learner = json_is_true(json_object_get(root, "isLearner"));
	v = json_object_get(root, "version");
	if (json_is_string(v))
		snprintf(st->version, sizeof(st->version), "%s", json_string_value(v));
	json_decref(root);
	return r;
}

int etcd_health_parse(const char *json, bool *healthy)
{
	json_error_t err;
	json_t *root = json_loads(json ? json : "", 0, &err), *h;
	int r = 0;

	h = root ? json_object_get(root, "health") : NULL;
	/* 3.4 sends "true"/"false" as strings */
	if (json_is_string(h))
		*healthy = strcmp(json_string_value(h), "true") == 0;
	else if (json_is_boolean(h))
		*healthy = json_is_true(h);
	else
		r = -EINVAL;
	json_decref(root);
	return r;
}

int etcd_error_parse(const char *json, char *msg, size_t len)
{
	json_error_t err;
	json_t *root = json_loads(json ? json : "", 0, &err), *m, *code;
	int r = -1;

	if (len)
		msg[0] = '\0';
	if (!root)
		return -1;
	m = json_object_get(root, "message");
	if (!json_is_string(m))
		m = json_object_get(root, "error");
	code = json_object_get(root, "code");
	if (json_is_string(m) && json_is_integer(code)) {
		snprintf(msg, len, "%s", json_string_value(m));
		r = (int)json_integer_value(code);
	}
	json_decref(root);
	return r;
}

/* ---------------------------------------------------------- etcd's log -- */

/* How grave a line of etcd's log is (0 info .. 2 fatal), and its text
 * without the timestamp into out. */
static int log_line(const char *line, size_t n, char *out, size_t len)
{
	char buf[2048];
	const char *bar;
	int grave = 0;

	snprintf(buf, sizeof(buf), "%.*s", (int)n, line);
	snprintf(out, len, "%s", buf);
	if (buf[0] == '{') {
		/* zap (etcd >= 3.5, or --logger=zap): {"level":..,"msg":..,"error":..} */
		json_error_t err;
		json_t *root = json_loads(buf, 0, &err);
		const char *level, *msg, *e;

		if (!root)
			return 0;
		level = json_string_value(json_object_get(root, "level"));
		msg = json_string_value(json_object_get(root, "msg"));
		e = json_string_value(json_object_get(root, "error"));
		if (level && (!strcmp(level, "fatal") || !strcmp(level, "panic")))
			grave = 2;
		else if (level && !strcmp(level, "error"))
			grave = 1;
		if (msg)
			snprintf(out, len, "%s%s%s", msg, e ? ": " : "", e ? e : "");
		json_decref(root);
		return grave;
	}
	/* capnslog (etcd 3.4): "2024-01-02 03:04:05.678901 C | etcdmain: ..." */
	bar = strstr(buf, " | ");
	if (n > 12 && buf[4] == '-' && buf[7] == '-' && bar && bar - buf < 40 && bar - buf >= 2) {
		grave = bar[-1] == 'C' ? 2 : bar[-1] == 'E' ? 1 : 0;
		snprintf(out, len, "%s", bar + 3);
		return grave;
	}
	if (strstr(buf, "flag provided but not defined") || strstr(buf, "invalid value"))
		return 2;
	return 0;
}

void etcd_log_reason(const char *text, char *out, size_t len)
{
	char line[2048];
	const char *p = text ? text : "";
	int best = -1, g;
	size_t n;

	if (len)
		out[0] = '\0';
	while (*p) {
		n = strcspn(p, "\r\n");
		if (n && strspn(p, " \t") < n) {
			g = log_line(p, n, line, sizeof(line));
			if (g >= best) {
				best = g;
				snprintf(out, len, "%s", line);
			}
		}
		p += n;
		p += strspn(p, "\r\n");
	}
}

/* ----------------------------------------------------- initial cluster -- */

char *etcd_initial_cluster_map(const struct etcd_map *m, const struct ocf_strv *only)
{
	struct cpha_buf b = { 0 };
	size_t i;
	int r = cpha_buf_puts(&b, "");

	for (i = 0; r == 0 && i < m->n; i++) {
		if (only && !ocf_strv_contains(only, m->v[i].name))
			continue;
		r = cpha_buf_printf(
			&b, "%s%s=%s", b.len ? "," : "", m->v[i].name, m->v[i].peer_url);
	}
	if (r < 0) {
		cpha_buf_free(&b);
		return NULL;
	}
	return b.data;
}

char *etcd_initial_cluster_members(const struct etcd_members *l, const struct etcd_map *m)
{
	struct cpha_buf b = { 0 };
	const struct etcd_node *n;
	char fallback[64];
	const char *name;
	size_t i, j;
	int r = cpha_buf_puts(&b, "");

	for (i = 0; r == 0 && i < l->n; i++) {
		const struct etcd_member *e = &l->v[i];

		name = e->name;
		for (j = 0; !*name && j < e->peer_urls.n; j++) {
			n = etcd_map_find_peer(m, e->peer_urls.v[j]);
			if (n)
				name = n->name;
		}
		if (!*name) {
			/* never started and not in the map: any unique name will do */
			snprintf(fallback, sizeof(fallback), "member-%" PRIx64, e->id);
			name = fallback;
		}
		for (j = 0; r == 0 && j < e->peer_urls.n; j++)
			r = cpha_buf_printf(
				&b, "%s%s=%s", b.len ? "," : "", name, e->peer_urls.v[j]);
	}
	if (r < 0) {
		cpha_buf_free(&b);
		return NULL;
	}
	return b.data;
}

/* -------------------------------------------------------------- quorum -- */

bool etcd_removal_safe(const struct etcd_members *l, size_t idx)
{
	unsigned voters = 0, healthy = 0;
	size_t i;

	if (idx >= l->n)
		return false;
	if (l->v[idx].learner)
		return true;
	for (i = 0; i < l->n; i++) {
		if (i == idx || l->v[i].learner)
			continue;
		voters++;
		if (l->v[i].healthy)
			healthy++;
	}
	return voters > 0 && healthy >= cpha_quorum_majority(voters);
}

bool etcd_stop_safe(const struct etcd_members *l, size_t idx)
{
	unsigned voters = 0, healthy = 0;
	size_t i;

	if (idx >= l->n)
		return false;
	if (l->v[idx].learner)
		return true;
	for (i = 0; i < l->n; i++) {
		if (l->v[i].learner)
			continue;
		voters++;
		if (i != idx && l->v[i].healthy)
			healthy++;
	}
	return healthy >= cpha_quorum_majority(voters);
}

/* "3 or 5" for an even n: the odd sizes next to it. */
static void odd_neighbours(unsigned n, char *buf, size_t len)
{
	if (n == 2)
		snprintf(buf, len, "3 (or 1)");
	else
		snprintf(buf, len, "%u or %u", n - 1, n + 1);
}

/* s->fix and s->why for an even n; what: "clone-max" or "node_map". */
static void size_even(struct etcd_size *s, unsigned n, bool clone)
{
	char odd[32];

	odd_neighbours(n, odd, sizeof(odd));
	s->rc = -EDOM;
	s->n = n;
	/* the fix first: Pacemaker keeps 128 characters of an exit reason */
	if (clone)
		snprintf(s->fix, sizeof(s->fix), "even etcd size %u refused: set clone-max to %s",
			n, odd);
	else
		snprintf(s->fix, sizeof(s->fix),
			"even etcd size %u refused: list %s members in node_map", n, odd);
	/* Raft: 2n members need n+1 votes and survive n-1 failures, exactly
	 * what 2n-1 members survive */
	snprintf(s->why, sizeof(s->why),
		"%u survive %u failure%s as %u do%s, but need %u votes; or allow_even=true", n,
		cpha_quorum_tolerance(n), cpha_quorum_tolerance(n) == 1 ? "" : "s", n - 1,
		n - 1 == 1 ? "es" : "", cpha_quorum_majority(n));
}

int etcd_size_check(
	const struct ocf_clone *clone, size_t map_n, bool allow_even, struct etcd_size *s)
{
	bool is_clone = clone && clone->is_clone;

	memset(s, 0, sizeof(*s));
	if (is_clone && clone->max == 0) {
		s->rc = -EINVAL;
		snprintf(s->why, sizeof(s->why), "clone-max=0: no members");
		return s->rc;
	}
	if (is_clone && clone->max % 2 == 0 && !allow_even) {
		size_even(s, clone->max, true);
		return s->rc;
	}
	if (map_n == 0) {
		s->rc = -EINVAL;
		snprintf(s->why, sizeof(s->why), "node_map names no members");
		return s->rc;
	}
	if (map_n % 2 == 0 && !allow_even) {
		size_even(s, (unsigned)map_n, false);
		return s->rc;
	}
	if (is_clone && clone->max > map_n) {
		s->rc = -EINVAL;
		snprintf(s->why, sizeof(s->why),
			"clone-max=%u is more than the %zu members of node_map: an instance on a "
			"node outside the map cannot run a member",
			clone->max, map_n);
	}
	return s->rc;
}

/* ------------------------------------------------------------ decision -- */

const char *etcd_plan_name(enum etcd_plan p)
{
	static const char *const names[] = {
		[ETCD_PLAN_WAIT] = "wait",
		[ETCD_PLAN_BOOTSTRAP] = "bootstrap",
		[ETCD_PLAN_RESTART] = "restart-with-data",
		[ETCD_PLAN_START_LISTED] = "start-listed",
		[ETCD_PLAN_JOIN] = "join-as-learner",
		[ETCD_PLAN_REMOVE] = "remove-dead-member",
		[ETCD_PLAN_DISCARD] = "discard-removed-data",
		[ETCD_PLAN_REFUSE] = "refuse",
	};

	return (unsigned)p < sizeof(names) / sizeof(names[0]) ? names[p] : "?";
}

/* A member the map knows: by one of its peer URLs, or (started) by name. */
static bool in_map(const struct etcd_member *e, const struct etcd_map *m)
{
	size_t j;

	for (j = 0; j < e->peer_urls.n; j++) {
		if (etcd_map_find_peer(m, e->peer_urls.v[j]))
			return true;
	}
	return *e->name && etcd_map_find(m, e->name);
}

static const char *member_label(const struct etcd_member *e, char *buf, size_t len)
{
	if (*e->name)
		snprintf(buf, len, "%s (%" PRIx64 ")", e->name, e->id);
	else
		snprintf(buf, len, "%" PRIx64 " at %s", e->id,
			e->peer_urls.n ? e->peer_urls.v[0] : "?");
	return buf;
}

static int decide_reachable(const struct etcd_view *v, struct etcd_decision *d, ssize_t me)
{
	const struct etcd_members *l = v->members;
	char label[320];
	size_t i;

	if (me >= 0) {
		const struct etcd_member *e = &l->v[me];

		if (!*e->name) {
			d->plan = ETCD_PLAN_START_LISTED;
			snprintf(d->why, sizeof(d->why),
				"member %s is listed but never started: starting it into the "
				"running cluster",
				member_label(e, label, sizeof(label)));
			return 0;
		}
		/* it ran before and its data is gone: replace it */
		if (!etcd_removal_safe(l, (size_t)me)) {
			d->plan = ETCD_PLAN_WAIT;
			snprintf(d->why, sizeof(d->why),
				"replacing my old member %s (empty data dir) waits: its removal "
				"now would leave the healthy voters short of a majority",
				member_label(e, label, sizeof(label)));
			return 0;
		}
		d->plan = ETCD_PLAN_REMOVE;
		d->target = (size_t)me;
		snprintf(d->why, sizeof(d->why),
			"the data dir is empty but the cluster still lists my member %s: removing "
			"it, then joining as a new member",
			member_label(e, label, sizeof(label)));
		return 0;
	}
	/* not a member: a dead member the map no longer has goes first */
	for (i = 0; i < l->n; i++) {
		if (l->v[i].healthy || in_map(&l->v[i], v->map))
			continue;
		if (!etcd_removal_safe(l, i))
			continue;
		d->plan = ETCD_PLAN_REMOVE;
		d->target = i;
		snprintf(d->why, sizeof(d->why),
			"member %s is dead and not in node_map: removing it before joining",
			member_label(&l->v[i], label, sizeof(label)));
		return 0;
	}
	/* one membership change at a time: a member still joining comes first */
	for (i = 0; i < l->n; i++) {
		if (!l->v[i].learner && *l->v[i].name)
			continue;
		d->plan = ETCD_PLAN_WAIT;
		snprintf(d->why, sizeof(d->why),
			"member %s is still joining (%s): one membership change at a time",
			member_label(&l->v[i], label, sizeof(label)),
			l->v[i].learner ? "a learner" : "never started");
		return 0;
	}
	d->plan = ETCD_PLAN_JOIN;
	snprintf(d->why, sizeof(d->why),
		"not a member of the running cluster (%zu members): joining as a learner", l->n);
	return 0;
}

static int decide_unreachable(const struct etcd_view *v, struct etcd_decision *d)
{
	struct cpha_buf others = { 0 };
	size_t i, majority = cpha_quorum_majority((unsigned)v->map->n);
	int r = 0;

	if (v->notify_known) {
		/* instances running now (and not stopping) mean a running cluster */
		for (i = 0; r == 0 && v->active && i < v->active->n; i++) {
			const char *n = v->active->v[i];

			if (strcmp(n, v->node) == 0 ||
				(v->stopping && ocf_strv_contains(v->stopping, n)))
				continue;
			r = cpha_buf_printf(&others, "%s%s", others.len ? " " : "", n);
		}
		if (r < 0)
			goto out;
		if (others.len) {
			d->plan = ETCD_PLAN_WAIT;
			snprintf(d->why, sizeof(d->why),
				"no member answers, but instances run on %s: not bootstrapping a "
				"second cluster",
				others.data);
			goto out;
		}
		for (i = 0; r == 0 && i < v->map->n; i++) {
			const char *n = v->map->v[i].name;

			if (strcmp(n, v->name) == 0 ||
				(v->starting && ocf_strv_contains(v->starting, n)))
				r = ocf_strv_push(&d->initial, n);
		}
	} else {
		/* no notify variables: the whole map, as a static bootstrap
		 * (a member then waits for a majority of it) */
		for (i = 0; r == 0 && i < v->map->n; i++)
			r = ocf_strv_push(&d->initial, v->map->v[i].name);
	}
	if (r < 0)
		goto out;
	if (d->initial.n < majority) {
		d->plan = ETCD_PLAN_WAIT;
		snprintf(d->why, sizeof(d->why),
			"no member answers and only %zu of the %zu members start now: a new "
			"cluster needs a majority (%zu)",
			d->initial.n, v->map->n, majority);
		ocf_strv_free(&d->initial);
		goto out;
	}
	d->plan = ETCD_PLAN_BOOTSTRAP;
	snprintf(d->why, sizeof(d->why),
		"no member answers and the clone starts as a whole: a new cluster of %zu "
		"member%s%s",
		d->initial.n, d->initial.n == 1 ? "" : "s",
		v->notify_known ? "" : " (no notify variables: the whole node_map)");
out:
	cpha_buf_free(&others);
	return r;
}

int etcd_decide(const struct etcd_view *v, struct etcd_decision *d)
{
	const struct etcd_members *l = v->members;
	char label[320];
	ssize_t me = -1;

	memset(d, 0, sizeof(*d));
	if (v->reachable && l) {
		me = etcd_members_find(l, NULL, v->peer_url);
		if (me >= 0 && *l->v[me].name && strcmp(l->v[me].name, v->name) != 0) {
			d->plan = ETCD_PLAN_REFUSE;
			snprintf(d->why, sizeof(d->why),
				"fix node_map or remove member %s: it holds peer URL %s, which "
				"node_map gives %s",
				member_label(&l->v[me], label, sizeof(label)), v->peer_url,
				v->name);
			return 0;
		}
		if (me < 0) {
			ssize_t same = etcd_members_find(l, v->name, NULL);

			if (same >= 0) {
				const struct etcd_member *e = &l->v[same];

				/* my name, another address: the node's address changed */
				if (!v->has_data && !e->healthy &&
					etcd_removal_safe(l, (size_t)same)) {
					d->plan = ETCD_PLAN_REMOVE;
					d->target = (size_t)same;
					snprintf(d->why, sizeof(d->why),
						"member %s is dead and registered at %s, node_map "
						"says %s: removing it, then joining",
						member_label(e, label, sizeof(label)),
						e->peer_urls.n ? e->peer_urls.v[0] : "?",
						v->peer_url);
					return 0;
				}
				d->plan = ETCD_PLAN_REFUSE;
				snprintf(d->why, sizeof(d->why),
					"fix node_map, or update or remove member %s: it is "
					"registered at %s, node_map says %s",
					member_label(e, label, sizeof(label)),
					e->peer_urls.n ? e->peer_urls.v[0] : "?", v->peer_url);
				return 0;
			}
		}
	}
	if (v->has_data) {
		if (v->reachable && l && me < 0) {
			d->plan = ETCD_PLAN_DISCARD;
			snprintf(d->why, sizeof(d->why),
				"the data dir holds a member the running cluster no longer lists "
				"(%zu members, none at %s): it was removed; setting the data aside "
				"to join anew",
				l->n, v->peer_url);
			return 0;
		}
		d->plan = ETCD_PLAN_RESTART;
		snprintf(d->why, sizeof(d->why), "the data dir holds a member%s: restarting it",
			v->reachable ? " the cluster lists" : "");
		return 0;
	}
	if (v->reachable && l)
		return decide_reachable(v, d, me);
	return decide_unreachable(v, d);
}

const char *etcd_size_verdict_name(enum etcd_size_verdict v)
{
	static const char *const names[] = {
		[ETCD_SIZE_GO] = "go",
		[ETCD_SIZE_KEEP] = "keep",
		[ETCD_SIZE_NO_JOIN] = "no-join",
		[ETCD_SIZE_NO_BOOTSTRAP] = "no-bootstrap",
	};

	return (unsigned)v < sizeof(names) / sizeof(names[0]) ? names[v] : "?";
}

enum etcd_size_verdict etcd_size_gate(const struct etcd_size *s, const char *name,
	const struct etcd_view *v, const struct etcd_decision *d, char *why, size_t len)
{
	size_t now;

	if (len)
		why[0] = '\0';
	if (s->rc != -EDOM)
		return ETCD_SIZE_GO;
	/* etcd runs here: a member, whatever the configuration says now */
	if (!d) {
		snprintf(why, len, "%s; member %s keeps running, none is added (%s)", s->fix, name,
			s->why);
		return ETCD_SIZE_KEEP;
	}
	switch (d->plan) {
	case ETCD_PLAN_RESTART:
	case ETCD_PLAN_START_LISTED:
		/* counted in the cluster already (its data, or listed by its
		 * peer URL): starting it changes no size */
		snprintf(why, len, "%s; member %s keeps running, none is added (%s)", s->fix, name,
			s->why);
		return ETCD_SIZE_KEEP;
	case ETCD_PLAN_BOOTSTRAP:
		/* nothing runs: the configuration is all there is */
		snprintf(why, len, "%s; no new cluster bootstrapped (%s)", s->fix, s->why);
		return ETCD_SIZE_NO_BOOTSTRAP;
	case ETCD_PLAN_JOIN:
		now = v && v->members ? v->members->n : 0;
		if ((now + 1) % 2 == 0) {
			snprintf(why, len,
				"%s; member %s not added: %zu members run, %zu would be even (%s)",
				s->fix, name, now, now + 1, s->why);
			return ETCD_SIZE_NO_JOIN;
		}
		snprintf(why, len, "%s; member %s joins: %zu members run, %zu is odd", s->fix, name,
			now, now + 1);
		return ETCD_SIZE_GO;
	case ETCD_PLAN_WAIT:
	case ETCD_PLAN_REMOVE:
	case ETCD_PLAN_DISCARD:
	case ETCD_PLAN_REFUSE:
		break;
	}
	snprintf(why, len, "%s; member %s: %s adds no member", s->fix, name,
		etcd_plan_name(d->plan));
	return ETCD_SIZE_GO;
}

ssize_t etcd_reconcile(const struct etcd_members *l, const struct etcd_map *m, uint64_t self_id,
	char *why, size_t len)
{
	char label[320];
	size_t i;

	if (len)
		why[0] = '\0';
	/* only dead members: a live one outside the map is more likely a typo
	 * in node_map than a node gone, and it stops on its own when Pacemaker
	 * stops its instance */
	for (i = 0; i < l->n; i++) {
		const struct etcd_member *e = &l->v[i];

		if (e->id == self_id || e->healthy || in_map(e, m))
			continue;
		if (!etcd_removal_safe(l, i)) {
			snprintf(why, len,
				"keeping dead member %s (not in node_map): removing it would leave "
				"the healthy voters short of a majority",
				member_label(e, label, sizeof(label)));
			continue;
		}
		return (ssize_t)i;
	}
	return -1;
}
