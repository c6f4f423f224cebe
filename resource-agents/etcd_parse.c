/* What etcd says, parsed: the v3 JSON gateway's answers and etcd's log. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "etcd_member.h"
#include "etcd_parse.h"
#include "ocf_args.h"

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
