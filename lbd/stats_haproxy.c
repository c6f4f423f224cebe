/* haproxy_exporter's metric names on lbd's /metrics (stats_haproxy.h). Each
 * family is one table row: its name after "haproxy_<level>_", its type and
 * the CSV column it comes from, and how lbd reads that fact. A row whose
 * getter has nothing for an object writes no series for it, as the
 * exporter writes none for an empty CSV field. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "metrics.h"
#include "server.h"
#include "stats_haproxy.h"

int stats_haproxy_status_up(const char *status)
{
	/* haproxy_exporter 0.14's parseStatusField(), the whole list */
	static const char *const up[] = { "UP", "UP 1/3", "UP 2/3", "OPEN", "no check", "DRAIN" };
	size_t i;

	for (i = 0; status && i < sizeof(up) / sizeof(up[0]); i++)
		if (strcmp(status, up[i]) == 0)
			return 1;
	return 0;
}

const char *stats_haproxy_backend_status(unsigned act, unsigned bck)
{
	return act + bck ? "UP" : "DOWN";
}

unsigned stats_haproxy_backend_weight(const struct lbd_backend_rt *be)
{
	unsigned act = 0, bck = 0;
	size_t i;

	for (i = 0; i < be->nservers; i++) {
		const struct lbd_server *s = be->servers[i];

		if (!server_usable(s))
			continue;
		if (s->o.backup)
			bck += s->o.weight;
		else
			act += s->o.weight;
	}
	return act ? act : bck;
}

/* A family written on its first series, so an empty one is not written. */
struct fam {
	struct cpha_buf *o;
	char name[96];
	const char *type, *help;
	bool started;
};

static void fam_put(
	struct fam *f, double v, const char *k1, const char *v1, const char *k2, const char *v2)
{
	if (!f->started) {
		cpha_prom_family(f->o, f->name, f->type, f->help);
		f->started = true;
	}
	cpha_prom_sample(f->o, f->name, v, k1, v1, k2, v2, (char *)NULL);
}

/* A getter: false when the object has no value for the family. */
typedef bool (*getter_fn)(const struct lbd_runtime *rt, const void *obj, double *v);

struct row {
	const char *suffix, *type, *help; /* help names the CSV column */
	getter_fn get;
};

#define COUNTER(obj_type, field)                                                                   \
	static bool get_##obj_type##_##field(                                                      \
		const struct lbd_runtime *rt, const void *obj, double *v)                          \
	{                                                                                          \
		const struct lbd_##obj_type *x = obj;                                              \
                                                                                                   \
		(void)rt;                                                                          \
		*v = (double)atomic_load(&x->cnt.field);                                           \
		return true;                                                                       \
	}
COUNTER(frontend_rt, sessions_total)
COUNTER(frontend_rt, bytes_in)
COUNTER(frontend_rt, bytes_out)
COUNTER(backend_rt, sessions_total)
COUNTER(backend_rt, bytes_in)
COUNTER(backend_rt, bytes_out)
COUNTER(backend_rt, connect_errors)
COUNTER(backend_rt, retries)
COUNTER(backend_rt, redispatches)
COUNTER(server, sessions_total)
COUNTER(server, bytes_in)
COUNTER(server, bytes_out)
COUNTER(server, connect_errors)
COUNTER(server, retries)
COUNTER(server, redispatches)
#undef COUNTER

static bool get_fe_cur(const struct lbd_runtime *rt, const void *obj, double *v)
{
	const struct lbd_frontend_rt *fe = obj;

	(void)rt;
	*v = atomic_load(&fe->cur);
	return true;
}

/* slim: the frontend's maxconn, else the process's */
static bool get_fe_slim(const struct lbd_runtime *rt, const void *obj, double *v)
{
	const struct lbd_frontend_rt *fe = obj;
	const struct lbd_fe_params *fp = atomic_load(&fe->params);

	*v = fp && fp->maxconn ? fp->maxconn : rt->maxconn;
	return true;
}

/* dreq: lbd has no rule that denies a connection (tcp-request is refused
 * by its parser), so none is ever denied */
static bool get_zero(const struct lbd_runtime *rt, const void *obj, double *v)
{
	(void)rt;
	(void)obj;
	*v = 0;
	return true;
}

static bool get_be_queue(const struct lbd_runtime *rt, const void *obj, double *v)
{
	struct lbd_backend_rt *be = (struct lbd_backend_rt *)obj;

	(void)rt;
	pthread_mutex_lock(&be->lock);
	*v = be->queued;
	pthread_mutex_unlock(&be->lock);
	return true;
}

static bool get_be_cur(const struct lbd_runtime *rt, const void *obj, double *v)
{
	const struct lbd_backend_rt *be = obj;

	(void)rt;
	*v = atomic_load(&be->cur);
	return true;
}

static bool get_be_up(const struct lbd_runtime *rt, const void *obj, double *v)
{
	unsigned act, bck;

	(void)rt;
	server_count_usable(obj, &act, &bck);
	*v = stats_haproxy_status_up(stats_haproxy_backend_status(act, bck));
	return true;
}

static bool get_be_weight(const struct lbd_runtime *rt, const void *obj, double *v)
{
	(void)rt;
	*v = stats_haproxy_backend_weight(obj);
	return true;
}

static bool get_be_act(const struct lbd_runtime *rt, const void *obj, double *v)
{
	unsigned act, bck;

	(void)rt;
	server_count_usable(obj, &act, &bck);
	*v = act;
	return true;
}

static bool get_srv_cur(const struct lbd_runtime *rt, const void *obj, double *v)
{
	const struct lbd_server *s = obj;

	(void)rt;
	pthread_mutex_lock(&s->be->lock);
	*v = s->cur;
	pthread_mutex_unlock(&s->be->lock);
	return true;
}

static bool get_srv_slim(const struct lbd_runtime *rt, const void *obj, double *v)
{
	const struct lbd_server *s = obj;

	(void)rt;
	*v = s->o.maxconn;
	return s->o.maxconn != 0;
}

static bool get_srv_up(const struct lbd_runtime *rt, const void *obj, double *v)
{
	(void)rt;
	*v = stats_haproxy_status_up(server_state_name(obj));
	return true;
}

static bool get_srv_weight(const struct lbd_runtime *rt, const void *obj, double *v)
{
	const struct lbd_server *s = obj;

	(void)rt;
	pthread_mutex_lock(&s->be->lock);
	*v = s->o.weight;
	pthread_mutex_unlock(&s->be->lock);
	return true;
}

/* chkfail and check_duration: only for a server with checks, as HAProxy */
static bool get_srv_chkfail(const struct lbd_runtime *rt, const void *obj, double *v)
{
	const struct lbd_server *s = obj;

	(void)rt;
	*v = (double)atomic_load(&s->checks_failed);
	return s->o.check;
}

static bool get_srv_downtime(const struct lbd_runtime *rt, const void *obj, double *v)
{
	const struct lbd_server *s = obj;

	(void)rt;
	*v = (double)server_downtime_sec(s, lbd_now());
	return s->o.check;
}

static bool get_srv_chkdur(const struct lbd_runtime *rt, const void *obj, double *v)
{
	const struct lbd_server *s = obj;

	(void)rt;
	/* whole milliseconds, as the CSV column the exporter reads; none
	 * before a check has finished (a server disabled from the start) */
	*v = (double)(atomic_load(&s->check_duration_us) / 1000) / 1000.0;
	return s->o.check && s->last_check[0];
}

static const struct row fe_rows[] = {
	{ "current_sessions", "gauge", "Current sessions (CSV scur).", get_fe_cur },
	{ "limit_sessions", "gauge", "Session limit, maxconn (CSV slim).", get_fe_slim },
	{ "sessions_total", "counter", "Sessions (CSV stot).", get_frontend_rt_sessions_total },
	{ "bytes_in_total", "counter", "Bytes from clients (CSV bin).", get_frontend_rt_bytes_in },
	{ "bytes_out_total", "counter", "Bytes to clients (CSV bout).", get_frontend_rt_bytes_out },
	{ "requests_denied_total", "counter", "Connections denied by rules (CSV dreq).", get_zero },
};

static const struct row be_rows[] = {
	{ "current_queue", "gauge", "Sessions waiting for a server (CSV qcur).", get_be_queue },
	{ "current_sessions", "gauge", "Current sessions (CSV scur).", get_be_cur },
	{ "sessions_total", "counter", "Sessions (CSV stot).", get_backend_rt_sessions_total },
	{ "bytes_in_total", "counter", "Bytes from clients (CSV bin).", get_backend_rt_bytes_in },
	{ "bytes_out_total", "counter", "Bytes to clients (CSV bout).", get_backend_rt_bytes_out },
	{ "connection_errors_total", "counter", "Failed connects to servers (CSV econ).",
		get_backend_rt_connect_errors },
	{ "retry_warnings_total", "counter", "Connect retries (CSV wretr).",
		get_backend_rt_retries },
	{ "redispatch_warnings_total", "counter", "Retries sent to another server (CSV wredis).",
		get_backend_rt_redispatches },
	{ "up", "gauge", "1 while the backend has a usable server (CSV status).", get_be_up },
	{ "weight", "gauge", "Summed weight of the servers in use (CSV weight).", get_be_weight },
	{ "current_server", "gauge", "Usable primary servers (CSV act).", get_be_act },
};

static const struct row srv_rows[] = {
	{ "current_queue", "gauge", "Sessions queued on this server (CSV qcur): 0.", get_zero },
	{ "current_sessions", "gauge", "Current sessions (CSV scur).", get_srv_cur },
	{ "limit_sessions", "gauge", "Session limit, maxconn (CSV slim).", get_srv_slim },
	{ "sessions_total", "counter", "Sessions (CSV stot).", get_server_sessions_total },
	{ "bytes_in_total", "counter", "Bytes from clients (CSV bin).", get_server_bytes_in },
	{ "bytes_out_total", "counter", "Bytes to clients (CSV bout).", get_server_bytes_out },
	{ "connection_errors_total", "counter", "Failed connects (CSV econ).",
		get_server_connect_errors },
	{ "retry_warnings_total", "counter", "Connect retries (CSV wretr).", get_server_retries },
	{ "redispatch_warnings_total", "counter", "Retries sent to another server (CSV wredis).",
		get_server_redispatches },
	{ "up", "gauge", "1 for UP, DRAIN and no check, 0 for DOWN and MAINT (CSV status).",
		get_srv_up },
	{ "weight", "gauge", "Weight (CSV weight).", get_srv_weight },
	{ "check_failures_total", "counter", "Failed health checks (CSV chkfail).",
		get_srv_chkfail },
	{ "downtime_seconds_total", "counter",
		"Seconds down by checks or in maintenance (CSV downtime).", get_srv_downtime },
	{ "server_selected_total", "counter", "Times the server was chosen (CSV lbtot).",
		get_server_sessions_total },
	{ "check_duration_seconds", "gauge", "Last health check's duration (CSV check_duration).",
		get_srv_chkdur },
};

static void fam_init(struct fam *f, struct cpha_buf *o, const char *level, const struct row *r)
{
	f->o = o;
	snprintf(f->name, sizeof(f->name), "haproxy_%s_%s", level, r->suffix);
	f->type = r->type;
	f->help = r->help;
	f->started = false;
}

void stats_haproxy_prometheus(struct lbd_runtime *rt, struct cpha_buf *o)
{
	struct fam f;
	size_t r, i, j;
	double v;

	/* the exporter's haproxy_up: its last read of the statistics worked,
	 * which lbd answering them means */
	cpha_prom_family(o, "haproxy_up", "gauge", "1: the statistics were read.");
	cpha_prom_sample(o, "haproxy_up", 1, NULL);

	for (r = 0; r < sizeof(fe_rows) / sizeof(fe_rows[0]); r++) {
		fam_init(&f, o, "frontend", &fe_rows[r]);
		for (i = 0; i < rt->nfrontends; i++) {
			const struct lbd_frontend_rt *fe = rt->frontends[i];

			if (!fe->removed && atomic_load(&fe->params) && fe_rows[r].get(rt, fe, &v))
				fam_put(&f, v, "frontend", fe->name, NULL, NULL);
		}
	}
	for (r = 0; r < sizeof(be_rows) / sizeof(be_rows[0]); r++) {
		fam_init(&f, o, "backend", &be_rows[r]);
		for (i = 0; i < rt->nbackends; i++) {
			const struct lbd_backend_rt *be = rt->backends[i];

			if (!be->removed && be_rows[r].get(rt, be, &v))
				fam_put(&f, v, "backend", be->name, NULL, NULL);
		}
	}
	for (r = 0; r < sizeof(srv_rows) / sizeof(srv_rows[0]); r++) {
		fam_init(&f, o, "server", &srv_rows[r]);
		for (i = 0; i < rt->nbackends; i++) {
			const struct lbd_backend_rt *be = rt->backends[i];

			if (be->removed)
				continue;
			for (j = 0; j < be->nservers; j++)
				if (srv_rows[r].get(rt, be->servers[j], &v))
					fam_put(&f, v, "backend", be->name, "server",
						be->servers[j]->name);
		}
	}
}
