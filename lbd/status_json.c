/* lbd's /status: the admin socket's JSON, narrowed to what `cpha status`
 * reads, so there is one implementation of the numbers. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "backend.h"
#include "cli.h"
#include "clock.h"
#include "runtime.h"
#include "stats.h"
#include "status_json.h"

/* Run an admin command (read-only, user level) and parse its JSON reply. */
static json_t *admin_json(struct lbd_runtime *rt, const char *line)
{
	struct cpha_buf b = { 0 };
	json_t *j = NULL;

	cli_command(rt, NULL, line, &b);
	if (b.data)
		j = json_loads(b.data, 0, NULL);
	cpha_buf_free(&b);
	return j;
}

/* "DOWN (DRAIN)" is down, "MAINT (resolution)" is maintenance. */
static const char *short_state(const char *s)
{
	if (!s)
		return "DOWN";
	if (strncmp(s, "MAINT", 5) == 0)
		return "MAINT";
	if (strncmp(s, "DOWN", 4) == 0)
		return "DOWN";
	if (strcmp(s, "DRAIN") == 0)
		return "DRAIN";
	return strcmp(s, "UP") == 0 ? "UP" : "DOWN";
}

static json_t *server_status(struct lbd_runtime *rt, const char *be, json_t *s)
{
	const char *name = json_string_value(json_object_get(s, "server"));
	struct lbd_server *srv = name ? runtime_server(rt, be, name) : NULL;
	uint64_t now = lbd_now(), last = srv ? atomic_load(&srv->last_change) : 0;
	json_t *o = json_pack("{s:s?,s:O?,s:s,s:O?,s:O?}", "name", name, "address",
		json_object_get(s, "address"), "state",
		short_state(json_string_value(json_object_get(s, "status"))), "check",
		json_object_get(s, "last_check"), "current_sessions",
		json_object_get(s, "current_sessions"));

	if (o && srv && last && last <= now)
		json_object_set_new(o, "last_change_age", json_real((double)(now - last) / 1e6));
	return o;
}

void status_json(void *userdata, struct cpha_buf *out)
{
	struct lbd_runtime *rt = userdata;
	json_t *info = admin_json(rt, "show info json"), *stat = admin_json(rt, "show stat json");
	json_t *root, *fes = json_array(), *bes = json_array(), *v;
	size_t i, j;
	char *s;

	json_array_foreach(json_object_get(stat, "frontends"), i, v) json_array_append_new(
		fes, json_pack("{s:O?,s:O?}", "name", json_object_get(v, "frontend"),
			     "current_sessions", json_object_get(v, "current_sessions")));
	json_array_foreach(json_object_get(stat, "backends"), i, v)
	{
		const char *be = json_string_value(json_object_get(v, "backend"));
		json_t *srvs = json_array(), *sv;

		json_array_foreach(json_object_get(v, "servers"), j, sv)
			json_array_append_new(srvs, server_status(rt, be ? be : "", sv));
		json_array_append_new(
			bes, json_pack("{s:s?,s:O?,s:O?,s:o}", "name", be, "current_sessions",
				     json_object_get(v, "current_sessions"), "active_servers",
				     json_object_get(v, "active_servers"), "servers", srvs));
	}
	root = json_pack("{s:s,s:s,s:i,s:O?,s:O?,s:O?,s:b,s:o,s:o}", "daemon", "lbd", "version",
		CPHA_VERSION, "pid", (int)getpid(), "uptime", json_object_get(info, "Uptime_sec"),
		"config_sha256", json_object_get(info, "Config_sha256"), "current_sessions",
		json_object_get(info, "CurrConns"), "stats_ok", info && stat, "frontends", fes,
		"backends", bes);
	s = root ? json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	if (s)
		cpha_buf_printf(out, "%s\n", s);
	free(s);
	json_decref(root);
	json_decref(info);
	json_decref(stat);
}
