/* A server at run time: its lifetime (references taken by sessions, checks
 * and messages; freed at the last one once removed) and the facts the
 * balancer and the status output read (usable, weight now, state name).
 * Safe from any thread; no I/O. */
#include <pthread.h>
#include <stdlib.h>

#include "balance.h"
#include "cfg.h"
#include "server.h"

bool server_usable(const struct lbd_server *srv)
{
	return !srv->removed && atomic_load_explicit(&srv->up, memory_order_relaxed) &&
	       atomic_load_explicit(&srv->admin, memory_order_relaxed) == LBD_ADMIN_READY &&
	       !atomic_load_explicit(&srv->dns_maint, memory_order_relaxed);
}

static uint64_t since_up(const struct lbd_server *srv, uint64_t now)
{
	uint64_t t = atomic_load_explicit(&srv->up_since, memory_order_relaxed);

	return t == 0 || now < t ? UINT64_MAX : now - t;
}

unsigned server_weight(const struct lbd_server *srv, uint64_t now)
{
	return balance_slowstart_weight(
		srv->o.weight * BALANCE_WEIGHT_SCALE, since_up(srv, now), srv->o.slowstart);
}

unsigned server_maxconn(const struct lbd_server *srv, uint64_t now)
{
	return balance_slowstart_maxconn(srv->o.maxconn, since_up(srv, now), srv->o.slowstart);
}

void server_free(struct lbd_server *srv)
{
	free(srv->name);
	lbd_cfg_server_opts_free(&srv->o);
	free(srv);
}

void server_unref_locked(struct lbd_server *srv)
{
	if (--srv->refs == 0 && srv->removed)
		server_free(srv);
}

void server_ref(struct lbd_server *srv)
{
	pthread_mutex_lock(&srv->be->lock);
	srv->refs++;
	pthread_mutex_unlock(&srv->be->lock);
}

void server_unref(struct lbd_server *srv)
{
	struct lbd_backend_rt *be = srv->be;

	pthread_mutex_lock(&be->lock);
	server_unref_locked(srv);
	pthread_mutex_unlock(&be->lock);
}

void server_target(struct lbd_server *srv, struct cpha_addr *addr, int *send_proxy)
{
	pthread_mutex_lock(&srv->be->lock);
	*addr = srv->addr;
	*send_proxy = srv->o.send_proxy_v2 ? 2 : srv->o.send_proxy ? 1 : 0;
	pthread_mutex_unlock(&srv->be->lock);
}

bool server_stopped(const struct lbd_server *srv)
{
	return !atomic_load(&srv->up) || atomic_load(&srv->admin) == LBD_ADMIN_MAINT ||
	       atomic_load(&srv->dns_maint);
}

void server_downtime_note(struct lbd_server *srv, uint64_t now)
{
	bool stopped = server_stopped(srv);

	if (stopped && !srv->down_since) {
		srv->down_since = now ? now : 1;
	} else if (!stopped && srv->down_since) {
		if (now > srv->down_since)
			srv->down_usec += now - srv->down_since;
		srv->down_since = 0;
	}
}

uint64_t server_downtime_sec(const struct lbd_server *srv, uint64_t now)
{
	uint64_t t = srv->down_usec;

	if (srv->down_since && now > srv->down_since)
		t += now - srv->down_since;
	return t / 1000000;
}

void server_count_usable(const struct lbd_backend_rt *be, unsigned *active, unsigned *backup)
{
	size_t i;

	*active = *backup = 0;
	for (i = 0; i < be->nservers; i++)
		if (server_usable(be->servers[i]))
			(*(be->servers[i]->o.backup ? backup : active))++;
}

const char *server_state_name(const struct lbd_server *srv)
{
	enum lbd_admin_state a = atomic_load(&srv->admin);

	if (a == LBD_ADMIN_MAINT)
		return "MAINT";
	if (atomic_load(&srv->dns_maint))
		return "MAINT (resolution)";
	if (!atomic_load(&srv->up))
		return a == LBD_ADMIN_DRAIN ? "DOWN (DRAIN)" : "DOWN";
	if (a == LBD_ADMIN_DRAIN)
		return "DRAIN";
	return "UP";
}
