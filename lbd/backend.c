#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "clock.h"
#include "server.h"
#include "session-types.h"
#include "stick.h"

static bool was_tried(const struct lbd_server *srv, const uint8_t *tried)
{
	return tried && srv->id < 256 && (tried[srv->id / 8] & (1u << (srv->id % 8)));
}

/* Under be->lock: the server client's stick-table entry names, when it may
 * take the session. As HAProxy's stick match: a server that is not
 * stopped (up, not in maintenance; drain is fine: it takes persistent
 * clients), or any server with option persist (HAProxy's PR_O_PERSIST: down
 * and in maintenance too), and lbd's retries skip a server that refused
 * this session. */
static struct lbd_server *sticky_locked(struct lbd_backend_rt *be, const struct sockaddr *client,
	const uint8_t *tried, uint64_t now)
{
	struct lbd_server *srv;
	unsigned id;
	size_t i;

	if (!be->stick || !be->stick_match || stick_lookup(be->stick, client, now, &id) != 1)
		return NULL;
	for (i = 0; i < be->nservers; i++) {
		srv = be->servers[i];
		if (srv->id != id)
			continue;
		if (srv->removed || was_tried(srv, tried))
			return NULL;
		if (!be->persist && (!atomic_load_explicit(&srv->up, memory_order_relaxed) ||
					    atomic_load_explicit(&srv->admin, memory_order_relaxed) ==
						    LBD_ADMIN_MAINT))
			return NULL;
		return srv;
	}
	return NULL;
}

/* Under be->lock: pick and reserve. */
static int pick_locked(struct lbd_backend_rt *be, const struct sockaddr *client,
	const uint8_t *tried, uint64_t now, struct lbd_server **out)
{
	struct balance_srv bs[256];
	size_t i, n = be->nservers < 256 ? be->nservers : 256;
	/* no client (a hedge): no stick-table lookup nor store */
	struct lbd_server *srv = client ? sticky_locked(be, client, tried, now) : NULL;
	int r;

	if (srv) {
		/* a full sticky server queues its client, as HAProxy does */
		if (server_maxconn(srv, now) && srv->cur >= server_maxconn(srv, now))
			return BALANCE_FULL;
		goto reserve;
	}

	for (i = 0; i < n; i++) {
		srv = be->servers[i];
		bs[i].usable = server_usable(srv) && !was_tried(srv, tried);
		bs[i].backup = srv->o.backup;
		bs[i].weight =
			be->algo == LBD_BAL_STATIC_RR ? srv->o.weight : server_weight(srv, now);
		bs[i].maxconn = server_maxconn(srv, now);
		bs[i].cur = srv->cur;
		bs[i].rr = srv->rr;
	}
	r = balance_pick(&be->bal, bs, n, client);
	for (i = 0; i < n; i++)
		be->servers[i]->rr = bs[i].rr;
	if (r < 0)
		return r;
	srv = be->servers[r];
reserve:
	if (client && be->stick && be->stick_store)
		stick_store(be->stick, client, srv->id, now);
	srv->cur++;
	srv->refs++;
	*out = srv;
	return 0;
}

int backend_assign(struct lbd_backend_rt *be, struct lbd_session *s, uint64_t now)
{
	struct lbd_server *srv = NULL;
	int r;

	pthread_mutex_lock(&be->lock);
	r = pick_locked(be, (const struct sockaddr *)&s->peer, s->tried, now, &srv);
	pthread_mutex_unlock(&be->lock);
	if (r == 0)
		s->srv = srv;
	return r;
}

int backend_assign_other(struct lbd_backend_rt *be, const struct lbd_session *s, uint64_t now,
	struct lbd_server **out)
{
	uint8_t tried[sizeof(s->tried)];
	int r;

	memcpy(tried, s->tried, sizeof(tried));
	if (s->srv && s->srv->id < 256)
		tried[s->srv->id / 8] |= (uint8_t)(1u << (s->srv->id % 8));
	*out = NULL;
	pthread_mutex_lock(&be->lock);
	/* no stick-table here: the hedge is not where the client sticks */
	r = pick_locked(be, NULL, tried, now, out);
	pthread_mutex_unlock(&be->lock);
	return r;
}

bool backend_enqueue(struct lbd_backend_rt *be, struct lbd_session *s)
{
	unsigned limit = 0;
	bool unlimited = false, ok;
	size_t i;

	pthread_mutex_lock(&be->lock);
	for (i = 0; i < be->nservers; i++) {
		if (!server_usable(be->servers[i]))
			continue;
		if (be->servers[i]->o.maxqueue == 0)
			unlimited = true;
		limit += be->servers[i]->o.maxqueue;
	}
	ok = unlimited || be->queued < limit;
	if (ok) {
		cpha_list_append(&be->queue, &s->qlink);
		be->queued++;
		s->queued = true;
	}
	pthread_mutex_unlock(&be->lock);
	return ok;
}

int backend_unqueue(struct lbd_backend_rt *be, struct lbd_session *s)
{
	int r = 0;

	pthread_mutex_lock(&be->lock);
	if (s->queued) {
		cpha_list_del(&s->qlink);
		be->queued--;
		s->queued = false;
		r = 1;
	} else if (s->dequeued) {
		r = -1;
	}
	pthread_mutex_unlock(&be->lock);
	return r;
}

/* Under be->lock: give slots to queued sessions, oldest first. Each handed
 * session is appended to *handed (via qlink) to be messaged after unlock. */
static void dispatch_locked(struct lbd_backend_rt *be, struct cpha_list *handed, uint64_t now)
{
	struct lbd_session *s;
	struct lbd_server *srv;

	while (!cpha_list_empty(&be->queue)) {
		s = cpha_container_of(be->queue.next, struct lbd_session, qlink);
		if (pick_locked(be, (const struct sockaddr *)&s->peer, NULL, now, &srv) < 0)
			break;
		cpha_list_del(&s->qlink);
		be->queued--;
		s->queued = false;
		s->dequeued = true;
		cpha_list_append(handed, &s->qlink);
		/* the slot travels with the message; stash the server there */
		s->srv = srv;
	}
}

static void send_handed(struct lbd_backend_rt *be, struct cpha_list *handed)
{
	struct cpha_list *pos, *tmp;
	struct lbd_session *s;

	cpha_list_for_each_safe(pos, tmp, handed)
	{
		s = cpha_container_of(pos, struct lbd_session, qlink);
		cpha_list_del(pos);
		be->handoff(s);
	}
}

void backend_release(struct lbd_backend_rt *be, struct lbd_session *s)
{
	struct lbd_server *srv = s->srv;

	if (!srv)
		return;
	s->srv = NULL;
	backend_release_server(be, srv);
}

void backend_release_server(struct lbd_backend_rt *be, struct lbd_server *srv)
{
	struct cpha_list handed;

	cpha_list_init(&handed);
	pthread_mutex_lock(&be->lock);
	srv->cur--;
	server_unref_locked(srv);
	if (be->queued)
		dispatch_locked(be, &handed, lbd_now());
	pthread_mutex_unlock(&be->lock);
	send_handed(be, &handed);
}

void backend_dispatch(struct lbd_backend_rt *be)
{
	struct cpha_list handed;

	cpha_list_init(&handed);
	pthread_mutex_lock(&be->lock);
	if (be->queued)
		dispatch_locked(be, &handed, lbd_now());
	pthread_mutex_unlock(&be->lock);
	send_handed(be, &handed);
}
