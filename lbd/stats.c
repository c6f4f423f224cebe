/* Statistics of the running process, read by the admin socket (cli.c), the
 * stats page (http.c) and Prometheus: show info, show stat, show servers
 * state, show table, and the metrics text. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "clock.h"
#include "duration.h"
#include "cfg.h"
#include "metrics.h"
#include "server.h"
#include "server_state.h"
#include "stats.h"
#include "stats_haproxy.h"
#include "stick.h"

void stats_put_json(struct cpha_buf *reply, json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);

	if (s) {
		cpha_buf_puts(reply, s);
		cpha_buf_puts(reply, "\n");
		free(s);
	}
	json_decref(j);
}

void stats_show_info(struct lbd_runtime *rt, struct cpha_buf *reply, bool json)
{
	uint64_t up = (cpha_now_usec(CLOCK_REALTIME) - rt->started) / 1000000;
	unsigned cur = atomic_load(&rt->cur);
	unsigned long long total = atomic_load(&rt->sessions_total);
	unsigned long long maxsock = rt->cfg ? rt->cfg->global.maxsock : 0;
	unsigned maxpipes = atomic_load(&rt->maxpipes), pipes = atomic_load(&rt->npipes);
	struct rlimit rl = { 0, 0 };

	getrlimit(RLIMIT_NOFILE, &rl);
	/* HAProxy's names; Ulimit-n, Maxsock and Maxpipes as its show info */
	if (json) {
		stats_put_json(reply,
			json_pack("{s:s,s:s,s:I,s:i,s:i,s:I,s:I,s:i,s:i,s:i,s:i,s:I,s:I,s:s,s:s}",
				"Name", "lbd", "Version", CPHA_VERSION, "Uptime_sec",
				(json_int_t)up, "Pid", (int)getpid(), "Nbthread",
				(int)rt->nworkers, "Ulimit-n", (json_int_t)rl.rlim_cur, "Maxsock",
				(json_int_t)maxsock, "Maxconn", (int)rt->maxconn, "Maxpipes",
				(int)maxpipes, "PipesUsed", (int)pipes, "CurrConns", (int)cur,
				"CumConns", (json_int_t)total, "Reloads", (json_int_t)rt->reloads,
				"Config", rt->cfg ? rt->cfg->file : "", "Config_sha256",
				rt->cfg ? rt->cfg->digest : ""));
		return;
	}
	cpha_buf_printf(reply,
		"Name: lbd\nVersion: %s\nUptime_sec: %llu\nPid: %d\nNbthread: %u\nUlimit-n: %llu\n"
		"Maxsock: %llu\nMaxconn: %u\nMaxpipes: %u\nPipesUsed: %u\nCurrConns: %u\n"
		"CumConns: %llu\nReloads: %llu\nConfig: %s\nConfig_sha256: %s\n",
		CPHA_VERSION, (unsigned long long)up, (int)getpid(), rt->nworkers,
		(unsigned long long)rl.rlim_cur, maxsock, rt->maxconn, maxpipes, pipes, cur, total,
		(unsigned long long)rt->reloads, rt->cfg ? rt->cfg->file : "",
		rt->cfg ? rt->cfg->digest : "");
}

/* One server as JSON (show stat json / show servers state json). */
static json_t *server_json(struct lbd_server *srv)
{
	char addr[CPHA_ADDR_STRLEN];
	unsigned cur, weight;

	pthread_mutex_lock(&srv->be->lock);
	cur = srv->cur;
	weight = srv->o.weight;
	cpha_addr_format(&srv->addr, addr, sizeof(addr));
	pthread_mutex_unlock(&srv->be->lock);
	return json_pack("{s:s,s:s,s:i,s:s,s:s,s:b,s:s,s:i,s:i,s:b,s:I,s:I,s:I,s:I,s:I,s:I,s:I,"
			 "s:I,s:s,s:s,s:I,s:I}",
		"backend", srv->be->name, "server", srv->name, "id", (int)srv->id, "address", addr,
		"status", server_state_name(srv), "up", atomic_load(&srv->up), "admin",
		atomic_load(&srv->admin) == LBD_ADMIN_READY   ? "ready"
		: atomic_load(&srv->admin) == LBD_ADMIN_DRAIN ? "drain"
							      : "maint",
		"weight", (int)weight, "current_sessions", (int)cur, "backup", srv->o.backup,
		"sessions_total", (json_int_t)atomic_load(&srv->cnt.sessions_total), "bytes_in",
		(json_int_t)atomic_load(&srv->cnt.bytes_in), "bytes_out",
		(json_int_t)atomic_load(&srv->cnt.bytes_out), "connect_errors",
		(json_int_t)atomic_load(&srv->cnt.connect_errors), "retries",
		(json_int_t)atomic_load(&srv->cnt.retries), "redispatches",
		(json_int_t)atomic_load(&srv->cnt.redispatches), "check_failures",
		(json_int_t)atomic_load(&srv->checks_failed), "check_duration_ms",
		(json_int_t)(atomic_load(&srv->check_duration_us) / 1000), "last_change_reason",
		srv->last_reason, "last_check", srv->last_check, "hanafail",
		(json_int_t)atomic_load(&srv->hana_failed), "hedges",
		(json_int_t)atomic_load(&srv->cnt.hedges));
}

/* show servers state [BACKEND]: HAProxy 2.6's version 1 text
 * (server_state.c), or lbd's JSON. */
void stats_show_servers_state(
	struct lbd_runtime *rt, const char *only, struct cpha_buf *reply, bool json)
{
	json_t *arr;
	size_t i, j;

	if (!json) {
		server_state_show(rt, only, reply);
		return;
	}
	arr = json_array();
	for (i = 0; i < rt->nbackends; i++) {
		struct lbd_backend_rt *be = rt->backends[i];

		if (be->removed || (only && strcmp(only, be->name) != 0))
			continue;
		for (j = 0; j < be->nservers; j++)
			json_array_append_new(arr, server_json(be->servers[j]));
	}
	stats_put_json(reply, arr);
}

#define CSV_HEADER                                                                                 \
	"# pxname,svname,qcur,qmax,scur,smax,slim,stot,bin,bout,dreq,dresp,ereq,econ,eresp,"       \
	"wretr,wredis,status,weight,act,bck,chkfail,chkdown,lastchg,downtime,qlimit,pid,"          \
	"iid,sid,throttle,lbtot,tracked,type,rate,rate_lim,rate_max,check_status,"                 \
	"check_code,check_duration,hanafail,\n"

static void csv_counters(struct cpha_buf *r, const struct lbd_counters *c)
{
	cpha_buf_printf(r, "%llu,%llu,%llu,", (unsigned long long)atomic_load(&c->sessions_total),
		(unsigned long long)atomic_load(&c->bytes_in),
		(unsigned long long)atomic_load(&c->bytes_out));
}

void stats_show_stat(struct lbd_runtime *rt, struct cpha_buf *reply, bool json)
{
	json_t *fes = NULL, *bes = NULL;
	size_t i, j;
	int pid = (int)getpid();

	if (json) {
		fes = json_array();
		bes = json_array();
	} else {
		cpha_buf_puts(reply, CSV_HEADER);
	}
	for (i = 0; i < rt->nfrontends; i++) {
		struct lbd_frontend_rt *fe = rt->frontends[i];
		struct lbd_fe_params *fp = atomic_load(&fe->params);

		if (fe->removed || !fp)
			continue;
		if (json) {
			json_array_append_new(fes,
				json_pack("{s:s,s:i,s:I,s:I,s:I,s:i}", "frontend", fe->name,
					"current_sessions", (int)atomic_load(&fe->cur),
					"sessions_total",
					(json_int_t)atomic_load(&fe->cnt.sessions_total),
					"bytes_in", (json_int_t)atomic_load(&fe->cnt.bytes_in),
					"bytes_out", (json_int_t)atomic_load(&fe->cnt.bytes_out),
					"maxconn", (int)fp->maxconn));
			continue;
		}
		cpha_buf_printf(reply, "%s,FRONTEND,,,%u,,%u,", fe->name, atomic_load(&fe->cur),
			fp->maxconn ? fp->maxconn : rt->maxconn);
		csv_counters(reply, &fe->cnt);
		cpha_buf_printf(reply, "0,,0,,,,,OPEN,,,,,,,,,%d,%zu,0,,,,0,,,,,,,,\n", pid, i + 1);
	}
	for (i = 0; i < rt->nbackends; i++) {
		struct lbd_backend_rt *be = rt->backends[i];
		json_t *srvs = json ? json_array() : NULL;
		unsigned act, bck, queued;

		server_count_usable(be, &act, &bck);
		pthread_mutex_lock(&be->lock);
		queued = be->queued;
		pthread_mutex_unlock(&be->lock);
		for (j = 0; j < be->nservers; j++) {
			struct lbd_server *srv = be->servers[j];
			unsigned cur, weight;
			uint64_t dur = atomic_load(&srv->check_duration_us) / 1000;

			if (json) {
				json_array_append_new(srvs, server_json(srv));
				continue;
			}
			pthread_mutex_lock(&be->lock);
			cur = srv->cur;
			weight = srv->o.weight;
			pthread_mutex_unlock(&be->lock);
			cpha_buf_printf(reply, "%s,%s,0,,%u,,", be->name, srv->name, cur);
			if (srv->o.maxconn)
				cpha_buf_printf(reply, "%u", srv->o.maxconn);
			cpha_buf_puts(reply, ",");
			csv_counters(reply, &srv->cnt);
			cpha_buf_printf(reply, ",,,%llu,,%llu,%llu,%s,%u,%d,%d,%llu,%llu,,",
				(unsigned long long)atomic_load(&srv->cnt.connect_errors),
				(unsigned long long)atomic_load(&srv->cnt.retries),
				(unsigned long long)atomic_load(&srv->cnt.redispatches),
				server_state_name(srv), weight, !srv->o.backup, srv->o.backup,
				(unsigned long long)atomic_load(&srv->checks_failed),
				(unsigned long long)atomic_load(&srv->state_changes));
			/* downtime: with checks, as HAProxy */
			if (srv->o.check)
				cpha_buf_printf(reply, "%llu",
					(unsigned long long)server_downtime_sec(srv, lbd_now()));
			cpha_buf_puts(reply, ",");
			if (srv->o.maxqueue)
				cpha_buf_printf(reply, "%u", srv->o.maxqueue);
			cpha_buf_printf(reply, ",%d,%zu,%u,,%llu,,2,,,,%s,,", pid, i + 1, srv->id,
				(unsigned long long)atomic_load(&srv->cnt.sessions_total),
				srv->o.check ? srv->last_check : "");
			if (srv->o.check)
				cpha_buf_printf(reply, "%llu", (unsigned long long)dur);
			cpha_buf_puts(reply, ",");
			/* hanafail: on-error actions taken (observe) */
			if (srv->o.check)
				cpha_buf_printf(reply, "%llu",
					(unsigned long long)atomic_load(&srv->hana_failed));
			cpha_buf_puts(reply, ",\n");
		}
		if (json) {
			json_array_append_new(bes,
				json_pack("{s:s,s:s,s:i,s:i,s:i,s:i,"
					  "s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:o}",
					"backend", be->name, "balance", lbd_balance_name(be->algo),
					"current_sessions", (int)atomic_load(&be->cur), "queued",
					(int)queued, "active_servers", (int)act, "backup_servers",
					(int)bck, "sessions_total",
					(json_int_t)atomic_load(&be->cnt.sessions_total),
					"bytes_in", (json_int_t)atomic_load(&be->cnt.bytes_in),
					"bytes_out", (json_int_t)atomic_load(&be->cnt.bytes_out),
					"connect_errors",
					(json_int_t)atomic_load(&be->cnt.connect_errors), "retries",
					(json_int_t)atomic_load(&be->cnt.retries), "redispatches",
					(json_int_t)atomic_load(&be->cnt.redispatches), "denied",
					(json_int_t)atomic_load(&be->cnt.denied), "hedges",
					(json_int_t)atomic_load(&be->cnt.hedges), "servers", srvs));
			continue;
		}
		cpha_buf_printf(
			reply, "%s,BACKEND,%u,,%u,,,", be->name, queued, atomic_load(&be->cur));
		csv_counters(reply, &be->cnt);
		cpha_buf_printf(reply,
			"%llu,,,%llu,,%llu,%llu,%s,,%u,%u,,,,,,%d,%zu,0,,,,1,,,,,,,,\n",
			(unsigned long long)atomic_load(&be->cnt.denied),
			(unsigned long long)atomic_load(&be->cnt.connect_errors),
			(unsigned long long)atomic_load(&be->cnt.retries),
			(unsigned long long)atomic_load(&be->cnt.redispatches),
			stats_haproxy_backend_status(act, bck), act, bck, pid, i + 1);
	}
	if (json)
		stats_put_json(reply, json_pack("{s:o,s:o}", "frontends", fes, "backends", bes));
}

struct table_dump {
	struct cpha_buf *reply;
	json_t *entries; /* NULL: text */
};

static void table_entry(void *arg, const char *key, unsigned srv_id, uint64_t left, uintptr_t id)
{
	struct table_dump *d = arg;
	long exp = (long)((left + 999) / 1000);

	/* HAProxy's table_dump_entry_to_buffer(): lbd holds no entry in use
	 * between sessions, so use is 0 */
	if (d->entries)
		json_array_append_new(
			d->entries, json_pack("{s:s,s:i,s:I,s:i}", "key", key, "use", 0, "exp",
					    (json_int_t)exp, "server_id", (int)srv_id));
	else
		cpha_buf_printf(d->reply, "0x%lx: key=%s use=0 exp=%ld server_id=%u\n",
			(unsigned long)id, key, exp, srv_id);
}

/* show table [NAME]: the header of every table (HAProxy's
 * table_dump_head_to_buffer()), and the entries of the named one. */
int stats_show_table(struct lbd_runtime *rt, const char *name, struct cpha_buf *reply, bool json)
{
	json_t *arr = json ? json_array() : NULL, *o;
	struct table_dump d = { reply, NULL };
	uint64_t now = lbd_now();
	struct stick_table *t;
	bool found = false;
	size_t i;

	for (i = 0; i < rt->nbackends; i++) {
		t = rt->backends[i]->stick;
		if (!t || rt->backends[i]->removed ||
			(name && strcmp(name, rt->backends[i]->name) != 0))
			continue;
		found = true;
		if (json) {
			o = json_pack("{s:s,s:s,s:i,s:i}", "table", rt->backends[i]->name, "type",
				stick_family(t) == AF_INET ? "ip" : "ipv6", "size",
				(int)stick_size(t), "used", (int)stick_used(t, now));
			if (name) {
				d.entries = json_array();
				stick_walk(t, now, table_entry, &d);
				json_object_set_new(o, "entries", d.entries);
			}
			json_array_append_new(arr, o);
			continue;
		}
		cpha_buf_printf(reply, "# table: %s, type: %s, size:%u, used:%u\n",
			rt->backends[i]->name, stick_family(t) == AF_INET ? "ip" : "ipv6",
			stick_size(t), stick_used(t, now));
		if (name)
			stick_walk(t, now, table_entry, &d);
	}
	if (name && !found) {
		json_decref(arr);
		return -1;
	}
	if (json)
		stats_put_json(reply, json_pack("{s:o}", "tables", arr));
	else
		cpha_buf_puts(reply, "\n");
	return 0;
}

/* One object's labels and counters, for the counter families. */
struct prom_obj {
	const char *k1, *v1, *k2, *v2;
	const struct lbd_counters *c;
};

static const struct {
	const char *suffix, *help;
	size_t off;
} prom_fields[] = {
	{ "sessions_total", "Sessions", offsetof(struct lbd_counters, sessions_total) },
	{ "bytes_in_total", "Bytes from clients", offsetof(struct lbd_counters, bytes_in) },
	{ "bytes_out_total", "Bytes to clients", offsetof(struct lbd_counters, bytes_out) },
	{ "connection_errors_total", "Failed connects to servers",
		offsetof(struct lbd_counters, connect_errors) },
	{ "retries_total", "Connect retries", offsetof(struct lbd_counters, retries) },
	{ "redispatches_total", "Retries sent to another server",
		offsetof(struct lbd_counters, redispatches) },
	{ "denied_total", "Sessions closed for want of a server or a queue slot",
		offsetof(struct lbd_counters, denied) },
	{ "hedges_total",
		"Second connects started elsewhere because the first had no answer "
		"within hedge (lbd's own)",
		offsetof(struct lbd_counters, hedges) },
};

/* Every counter family for a set of objects, each family in one group as
 * the text format requires. */
static void prom_counter_families(
	struct cpha_buf *o, const char *prefix, const struct prom_obj *obj, size_t n)
{
	char name[96];
	size_t f, i;

	for (f = 0; f < sizeof(prom_fields) / sizeof(prom_fields[0]); f++) {
		snprintf(name, sizeof(name), "%s_%s", prefix, prom_fields[f].suffix);
		cpha_prom_family(o, name, "counter", prom_fields[f].help);
		for (i = 0; i < n; i++) {
			const atomic_uint_fast64_t *v =
				(const void *)((const char *)obj[i].c + prom_fields[f].off);

			cpha_prom_sample(o, name, (double)atomic_load(v), obj[i].k1, obj[i].v1,
				obj[i].k2, obj[i].v2, (char *)NULL);
		}
	}
}

void lbd_stats_prometheus(struct lbd_runtime *rt, struct cpha_buf *o)
{
	struct prom_obj *obj;
	size_t i, j, n = 0, total = rt->nfrontends + rt->nbackends;

	for (i = 0; i < rt->nbackends; i++)
		total += rt->backends[i]->nservers;
	obj = calloc(total ? total : 1, sizeof(*obj));
	if (!obj)
		return;

	cpha_prom_family(o, "lbd_process_current_connections", "gauge", "Sessions in the process");
	cpha_prom_sample(o, "lbd_process_current_connections", atomic_load(&rt->cur), NULL);
	cpha_prom_family(o, "lbd_process_max_connections", "gauge", "Global maxconn");
	cpha_prom_sample(o, "lbd_process_max_connections", rt->maxconn, NULL);
	cpha_prom_family(o, "lbd_process_reloads_total", "counter", "Configuration reloads");
	cpha_prom_sample(o, "lbd_process_reloads_total", (double)rt->reloads, NULL);
	cpha_prom_family(o, "lbd_process_start_time_seconds", "gauge", "Start time (Unix time)");
	cpha_prom_sample(
		o, "lbd_process_start_time_seconds", (double)(rt->started / 1000000), NULL);

	cpha_prom_family(o, "lbd_frontend_current_sessions", "gauge", "Current sessions");
	for (i = 0; i < rt->nfrontends; i++) {
		struct lbd_frontend_rt *fe = rt->frontends[i];

		if (fe->removed)
			continue;
		cpha_prom_sample(o, "lbd_frontend_current_sessions", atomic_load(&fe->cur),
			"frontend", fe->name, NULL);
		obj[n++] = (struct prom_obj){ "frontend", fe->name, NULL, NULL, &fe->cnt };
	}
	prom_counter_families(o, "lbd_frontend", obj, n);

	n = 0;
	cpha_prom_family(o, "lbd_backend_current_sessions", "gauge", "Current sessions");
	for (i = 0; i < rt->nbackends; i++) {
		cpha_prom_sample(o, "lbd_backend_current_sessions",
			atomic_load(&rt->backends[i]->cur), "backend", rt->backends[i]->name, NULL);
		obj[n++] = (struct prom_obj){ "backend", rt->backends[i]->name, NULL, NULL,
			&rt->backends[i]->cnt };
	}
	cpha_prom_family(o, "lbd_backend_current_queue", "gauge", "Sessions waiting for a slot");
	for (i = 0; i < rt->nbackends; i++) {
		unsigned q;

		pthread_mutex_lock(&rt->backends[i]->lock);
		q = rt->backends[i]->queued;
		pthread_mutex_unlock(&rt->backends[i]->lock);
		cpha_prom_sample(
			o, "lbd_backend_current_queue", q, "backend", rt->backends[i]->name, NULL);
	}
	cpha_prom_family(o, "lbd_backend_active_servers", "gauge", "Usable primary servers");
	for (i = 0; i < rt->nbackends; i++) {
		unsigned act, bck;

		server_count_usable(rt->backends[i], &act, &bck);
		cpha_prom_sample(o, "lbd_backend_active_servers", act, "backend",
			rt->backends[i]->name, NULL);
	}
	prom_counter_families(o, "lbd_backend", obj, n);

	n = 0;
	for (i = 0; i < rt->nbackends; i++)
		for (j = 0; j < rt->backends[i]->nservers; j++)
			obj[n++] = (struct prom_obj){ "backend", rt->backends[i]->name, "server",
				rt->backends[i]->servers[j]->name,
				&rt->backends[i]->servers[j]->cnt };
#define SERVER_GAUGE(metric, type, help, expr)                                                     \
	cpha_prom_family(o, metric, type, help);                                                   \
	for (i = 0; i < rt->nbackends; i++)                                                        \
		for (j = 0; j < rt->backends[i]->nservers; j++) {                                  \
			struct lbd_server *s = rt->backends[i]->servers[j];                        \
			cpha_prom_sample(o, metric, (double)(expr), "backend", s->be->name,        \
				"server", s->name, NULL);                                          \
		}
	SERVER_GAUGE("lbd_server_up", "gauge", "1 when the server takes traffic by its checks",
		atomic_load(&s->up))
	SERVER_GAUGE("lbd_server_admin_state", "gauge", "0 ready, 1 drain, 2 maint",
		atomic_load(&s->admin))
	SERVER_GAUGE("lbd_server_current_sessions", "gauge", "Current sessions", s->cur)
	SERVER_GAUGE("lbd_server_weight", "gauge", "Configured weight", s->o.weight)
	SERVER_GAUGE("lbd_server_check_duration_seconds", "gauge", "Last check duration",
		(double)atomic_load(&s->check_duration_us) / 1e6)
	SERVER_GAUGE("lbd_server_check_failures_total", "counter", "Failed checks",
		atomic_load(&s->checks_failed))
	SERVER_GAUGE("lbd_server_state_changes_total", "counter", "State changes",
		atomic_load(&s->state_changes))
#undef SERVER_GAUGE
	prom_counter_families(o, "lbd_server", obj, n);
	free(obj);
	stats_haproxy_prometheus(rt, o);
}
