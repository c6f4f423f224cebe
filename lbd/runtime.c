#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "cfg.h"
#include "check.h"
#include "log.h"
#include "runtime.h"
#include "stick.h"
#include "tlog.h"
#include "worker.h"

static void backend_unref(struct lbd_backend_rt *be);

static void backend_free(struct lbd_backend_rt *be)
{
	size_t i;

	for (i = 0; i < be->nservers; i++) {
		check_free(be->servers[i]);
		server_free(be->servers[i]);
	}
	free(be->servers);
	stick_free(be->stick);
	pthread_mutex_destroy(&be->lock);
	free(be->name);
	free(be);
}

static void backend_unref(struct lbd_backend_rt *be)
{
	if (__atomic_sub_fetch(&be->refs, 1, __ATOMIC_ACQ_REL) == 0)
		backend_free(be);
}

void fe_params_free(struct lbd_fe_params *fp)
{
	tlog_free(fp->log);
	if (fp->be)
		backend_unref(fp->be);
	free(fp);
}

struct lbd_backend_rt *runtime_backend(const struct lbd_runtime *rt, const char *name)
{
	size_t i;

	for (i = 0; i < rt->nbackends; i++)
		if (!rt->backends[i]->removed && strcmp(rt->backends[i]->name, name) == 0)
			return rt->backends[i];
	return NULL;
}

struct lbd_server *runtime_server(
	const struct lbd_runtime *rt, const char *backend, const char *server)
{
	struct lbd_backend_rt *be = runtime_backend(rt, backend);
	size_t i;

	if (!be)
		return NULL;
	for (i = 0; i < be->nservers; i++)
		if (strcmp(be->servers[i]->name, server) == 0)
			return be->servers[i];
	return NULL;
}

const struct lbd_backend *runtime_backend_cfg(
	const struct lbd_runtime *rt, const struct lbd_backend_rt *be)
{
	return lbd_cfg_backend(rt->cfg, be->name);
}

static int copy_opts(struct lbd_server_opts *dst, const struct lbd_server_opts *src)
{
	*dst = *src;
	dst->ca_file = src->ca_file ? strdup(src->ca_file) : NULL;
	dst->crt = src->crt ? strdup(src->crt) : NULL;
	if ((src->ca_file && !dst->ca_file) || (src->crt && !dst->crt))
		return -ENOMEM;
	return 0;
}

static struct lbd_server *server_new(struct lbd_backend_rt *be, const struct lbd_server_cfg *sc)
{
	struct lbd_server *srv = calloc(1, sizeof(*srv));
	size_t i;

	if (!srv)
		return NULL;
	srv->be = be;
	srv->name = strdup(sc->name);
	srv->refs = 1; /* the backend's */
	for (i = 0; i < LBD_MAX_THREADS; i++)
		cpha_list_init(&srv->sessions[i]);
	/* as in HAProxy, a server starts up (one failed check downs it) */
	atomic_store(&srv->up, true);
	health_init(&srv->health, sc->o.rise, sc->o.fall, true);
	atomic_store(&srv->admin, sc->o.disabled ? LBD_ADMIN_MAINT : LBD_ADMIN_READY);
	snprintf(srv->last_reason, sizeof(srv->last_reason), "starting");
	return srv;
}

/* Remember a removed server whose sessions are cut at a deadline. */
static int doom(struct lbd_runtime *rt, struct lbd_server *srv, uint64_t at)
{
	struct lbd_server **d = realloc(rt->doomed, (rt->ndoomed + 1) * sizeof(*d));
	uint64_t *t;

	if (!d)
		return -ENOMEM;
	rt->doomed = d;
	t = realloc(rt->doomed_at, (rt->ndoomed + 1) * sizeof(*t));
	if (!t)
		return -ENOMEM;
	rt->doomed_at = t;
	rt->doomed[rt->ndoomed] = srv;
	rt->doomed_at[rt->ndoomed++] = at;
	return 0;
}

/* Update one backend from its configuration (under its lock). */
static int backend_update(struct lbd_runtime *rt, struct lbd_backend_rt *be,
	const struct lbd_backend *bc, uint64_t hard_stop_after)
{
	const struct lbd_stick_cfg *stc = &bc->stick;
	struct stick_table *st = be->stick, *old_st = NULL;
	struct lbd_server **nsrv;
	size_t i, j;

	/* a stick table survives a reload that leaves its definition alone */
	if (!stc->family || !st || stick_family(st) != stc->family || stick_size(st) != stc->size ||
		stick_expire(st) != stc->expire || stick_nopurge(st) != !!stc->nopurge) {
		old_st = st;
		st = stc->family ? stick_new(stc->family, stc->size, stc->expire, stc->nopurge)
				 : NULL;
		if (stc->family && !st)
			return -ENOMEM;
	}
	nsrv = calloc(bc->nservers ? bc->nservers : 1, sizeof(*nsrv));
	if (!nsrv) {
		if (st != be->stick)
			stick_free(st);
		return -ENOMEM;
	}
	pthread_mutex_lock(&be->lock);
	be->stick = st;
	be->stick_match = stc->match;
	be->stick_store = stc->store;
	if (be->algo != bc->balance || !be->servers)
		balance_init(&be->bal, bc->balance, (uint64_t)lbd_now() ^ (uintptr_t)be);
	be->algo = bc->balance;
	be->retries = bc->retries;
	be->redispatch = bc->redispatch;
	be->timeouts = bc->timeouts;
	be->check_kind = bc->check_kind;
	for (i = 0; i < bc->nservers; i++) {
		const struct lbd_server_cfg *sc = &bc->servers[i];
		struct lbd_server *srv = NULL;

		for (j = 0; j < be->nservers; j++)
			if (be->servers[j] && strcmp(be->servers[j]->name, sc->name) == 0) {
				srv = be->servers[j];
				be->servers[j] = NULL; /* taken */
				break;
			}
		if (!srv) {
			srv = server_new(be, sc);
			if (!srv)
				goto oom;
		} else {
			free(srv->o.ca_file);
			free(srv->o.crt);
			srv->o.ca_file = srv->o.crt = NULL;
			srv->health.rise = sc->o.rise;
			srv->health.fall = sc->o.fall;
			if (srv->health.health > sc->o.rise + sc->o.fall - 1)
				srv->health.health = sc->o.rise + sc->o.fall - 1;
		}
		if (copy_opts(&srv->o, &sc->o) < 0) {
			nsrv[i] = srv;
			goto oom;
		}
		srv->addr = sc->addr;
		srv->id = sc->id;
		nsrv[i] = srv;
	}
	/* servers gone from the configuration */
	for (j = 0; j < be->nservers; j++) {
		struct lbd_server *srv = be->servers[j];

		if (!srv)
			continue;
		srv->removed = true;
		check_free(srv);
		if (hard_stop_after && doom(rt, srv, lbd_now() + hard_stop_after) == 0)
			continue; /* the reference goes with it */
		server_unref_locked(srv);
	}
	free(be->servers);
	be->servers = nsrv;
	be->nservers = bc->nservers;
	pthread_mutex_unlock(&be->lock);
	stick_free(old_st);
	return 0;
oom:
	pthread_mutex_unlock(&be->lock);
	stick_free(old_st);
	log_err("backend %s: out of memory while applying the configuration", be->name);
	free(nsrv);
	return -ENOMEM;
}

static struct lbd_backend_rt *backend_new(const char *name)
{
	struct lbd_backend_rt *be = calloc(1, sizeof(*be));

	if (!be)
		return NULL;
	be->name = strdup(name);
	be->refs = 1; /* the runtime's */
	pthread_mutex_init(&be->lock, NULL);
	cpha_list_init(&be->queue);
	return be;
}

static struct lbd_frontend_rt *frontend_find(struct lbd_runtime *rt, const char *name)
{
	size_t i;

	for (i = 0; i < rt->nfrontends; i++)
		if (!rt->frontends[i]->removed && strcmp(rt->frontends[i]->name, name) == 0)
			return rt->frontends[i];
	return NULL;
}

static struct lbd_listener *listener_find(struct lbd_runtime *rt, const struct cpha_addr *a)
{
	size_t i;

	for (i = 0; i < rt->nlisteners; i++)
		if (cpha_addr_equal(&rt->listeners[i]->addr, a))
			return rt->listeners[i];
	return NULL;
}

static void *grow(void *arr, size_t n, size_t size)
{
	return realloc(arr, (n + 1) * size);
}

/* Open the sockets of every new bind address first, so a reload whose
 * binds fail changes nothing. */
static int open_new_listeners(
	struct lbd_runtime *rt, struct lbd_config *cfg, struct lbd_listener ***out, size_t *nout)
{
	struct lbd_listener **nl = NULL, *l;
	size_t n = 0, f, b, k;
	unsigned w;
	char a[CPHA_ADDR_STRLEN];
	int fd;

	for (f = 0; f < cfg->nfrontends; f++) {
		for (b = 0; b < cfg->frontends[f].nbinds; b++) {
			const struct cpha_addr *addr = &cfg->frontends[f].binds[b].addr;

			if (listener_find(rt, addr))
				continue;
			l = calloc(1, sizeof(*l));
			if (!l || !(nl = grow(nl, n, sizeof(*nl)))) {
				free(l);
				goto fail;
			}
			nl[n++] = l;
			l->addr = *addr;
			for (w = 0; w < LBD_MAX_THREADS; w++)
				l->fds[w] = -1;
			for (w = 0; w < rt->nworkers; w++) {
				fd = worker_listen_socket(addr, cfg->frontends[f].binds[b].v6only,
					cfg->frontends[f].smart_accept);
				if (fd < 0) {
					log_err("%s:%u: cannot listen on %s: %s", cfg->file,
						cfg->frontends[f].binds[b].line,
						cpha_addr_format(addr, a, sizeof(a)),
						strerror(-fd));
					goto fail;
				}
				l->fds[w] = fd;
			}
		}
	}
	*out = nl;
	*nout = n;
	return 0;
fail:
	for (k = 0; k < n; k++) {
		for (w = 0; w < rt->nworkers; w++)
			if (nl[k]->fds[w] >= 0)
				close(nl[k]->fds[w]);
		free(nl[k]);
	}
	free(nl);
	return -EADDRINUSE;
}

int runtime_apply(struct lbd_runtime *rt, struct lbd_config *cfg)
{
	struct lbd_listener **newl = NULL;
	size_t nnew = 0, i, j, b;
	struct lbd_config *old = rt->cfg;
	unsigned w;
	int r;

	r = open_new_listeners(rt, cfg, &newl, &nnew);
	if (r < 0)
		return r;

	/* stop checks: they point into the old configuration */
	for (i = 0; i < rt->nbackends; i++)
		for (j = 0; j < rt->backends[i]->nservers; j++)
			check_stop(rt->backends[i]->servers[j]);

	/* backends, by name */
	for (i = 0; i < rt->nbackends; i++)
		rt->backends[i]->removed = !lbd_cfg_backend(cfg, rt->backends[i]->name);
	for (i = 0; i < cfg->nbackends; i++) {
		struct lbd_backend_rt *be = runtime_backend(rt, cfg->backends[i].name);

		if (!be) {
			struct lbd_backend_rt **nb = grow(rt->backends, rt->nbackends, sizeof(*nb));

			be = backend_new(cfg->backends[i].name);
			if (!nb || !be) {
				free(be);
				return -ENOMEM;
			}
			rt->backends = nb;
			rt->backends[rt->nbackends++] = be;
		}
		r = backend_update(rt, be, &cfg->backends[i], cfg->global.hard_stop_after);
		if (r < 0)
			return r;
	}

	/* frontends, by name, each with fresh parameters */
	for (i = 0; i < rt->nfrontends; i++) {
		bool keep = false;

		for (j = 0; j < cfg->nfrontends; j++)
			keep |= strcmp(rt->frontends[i]->name, cfg->frontends[j].name) == 0;
		rt->frontends[i]->removed = !keep;
	}
	for (i = 0; i < cfg->nfrontends; i++) {
		const struct lbd_frontend *fc = &cfg->frontends[i];
		struct lbd_frontend_rt *fe = frontend_find(rt, fc->name);
		struct lbd_fe_params *fp, *oldp;

		if (!fe) {
			struct lbd_frontend_rt **nf =
				grow(rt->frontends, rt->nfrontends, sizeof(*nf));

			fe = calloc(1, sizeof(*fe));
			if (!nf || !fe) {
				free(fe);
				return -ENOMEM;
			}
			fe->name = strdup(fc->name);
			rt->frontends = nf;
			rt->frontends[rt->nfrontends++] = fe;
		}
		fp = calloc(1, sizeof(*fp));
		if (!fp)
			return -ENOMEM;
		atomic_store(&fp->refs, 1);
		fp->timeouts = fc->timeouts;
		fp->maxconn = fc->maxconn;
		fp->tcplog = fc->tcplog || fc->log_format; /* a traffic line per session */
		fp->dontlognull = fc->dontlognull;
		fp->log = tlog_open(fc->logs, fc->nlogs, fc->log_format, fc->dontlog_normal);
		fp->be = runtime_backend(rt, fc->backend->name);
		__atomic_add_fetch(&fp->be->refs, 1, __ATOMIC_ACQ_REL);
		oldp = atomic_exchange(&fe->params, fp);
		if (oldp && atomic_fetch_sub(&oldp->refs, 1) == 1)
			fe_params_free(oldp);
	}

	/* listeners: keep those whose address stays, add the new ones */
	for (i = 0; i < rt->nlisteners; i++)
		rt->listeners[i]->keep = false;
	for (i = 0; i < cfg->nfrontends; i++) {
		struct lbd_frontend_rt *fe = frontend_find(rt, cfg->frontends[i].name);

		for (b = 0; b < cfg->frontends[i].nbinds; b++) {
			struct lbd_listener *l =
				listener_find(rt, &cfg->frontends[i].binds[b].addr);

			if (l) {
				l->keep = true;
				atomic_store(&l->fe, fe);
				continue;
			}
			for (j = 0; j < nnew; j++)
				if (cpha_addr_equal(
					    &newl[j]->addr, &cfg->frontends[i].binds[b].addr))
					atomic_store(&newl[j]->fe, fe);
		}
	}
	for (i = 0; i < rt->nlisteners;) {
		struct lbd_listener *l = rt->listeners[i];

		if (l->keep) {
			i++;
			continue;
		}
		for (w = 0; w < rt->nworkers; w++)
			worker_post(&rt->workers[w], LBD_MSG_UNLISTEN, l, NULL, 0);
		rt->listeners[i] = rt->listeners[--rt->nlisteners];
		listener_unref(l); /* the runtime's reference */
	}
	for (j = 0; j < nnew; j++) {
		struct lbd_listener **nl = grow(rt->listeners, rt->nlisteners, sizeof(*nl));

		if (!nl)
			return -ENOMEM;
		rt->listeners = nl;
		rt->listeners[rt->nlisteners++] = newl[j];
		newl[j]->keep = true;
		atomic_store(&newl[j]->refs, (int)rt->nworkers + 1);
		for (w = 0; w < rt->nworkers; w++)
			worker_post(&rt->workers[w], LBD_MSG_LISTEN, newl[j], NULL, 0);
	}
	free(newl);

	/* backends gone from the configuration: drop the runtime's reference */
	for (i = 0; i < rt->nbackends;) {
		struct lbd_backend_rt *be = rt->backends[i];

		if (!be->removed) {
			i++;
			continue;
		}
		rt->backends[i] = rt->backends[--rt->nbackends];
		for (j = 0; j < be->nservers; j++)
			check_stop(be->servers[j]);
		backend_unref(be);
	}

	rt->cfg = cfg;
	rt->maxconn = cfg->global.maxconn ? cfg->global.maxconn : 4096;
	/* checks with the new configuration; health carries over */
	for (i = 0; i < rt->nbackends; i++) {
		struct lbd_backend_rt *be = rt->backends[i];
		const struct lbd_backend *bc = lbd_cfg_backend(cfg, be->name);

		for (j = 0; j < be->nservers; j++) {
			struct lbd_server *srv = be->servers[j];

			if (!srv->o.check) {
				/* no checks: always up */
				atomic_store(&srv->up, true);
				continue;
			}
			if (atomic_load(&srv->admin) == LBD_ADMIN_MAINT) {
				if (!srv->check)
					srv->check = calloc(1, sizeof(*srv->check));
				if (srv->check) {
					srv->check->bcfg = bc;
					srv->check->fd = -1;
				}
				continue;
			}
			r = check_start(rt, srv, bc, check_first_delay(srv));
			if (r < 0)
				log_err("server %s/%s: cannot start checks: %s", be->name,
					srv->name, strerror(-r));
		}
		backend_dispatch(be);
	}
	lbd_cfg_free(old);
	return 0;
}

void runtime_free(struct lbd_runtime *rt)
{
	size_t i;

	/* doomed servers lock their backend: before the backends go */
	for (i = 0; i < rt->ndoomed; i++)
		server_unref(rt->doomed[i]);
	free(rt->doomed);
	free(rt->doomed_at);
	rt->doomed = NULL;
	rt->ndoomed = 0;

	for (i = 0; i < rt->nfrontends; i++) {
		struct lbd_fe_params *fp = atomic_exchange(&rt->frontends[i]->params, NULL);

		if (fp && atomic_fetch_sub(&fp->refs, 1) == 1)
			fe_params_free(fp);
		free(rt->frontends[i]->name);
		free(rt->frontends[i]);
	}
	free(rt->frontends);
	rt->frontends = NULL;
	for (i = 0; i < rt->nbackends; i++)
		backend_unref(rt->backends[i]);
	free(rt->backends);
	rt->backends = NULL;
	for (i = 0; i < rt->nlisteners; i++) {
		unsigned w;

		for (w = 0; w < rt->nworkers; w++)
			if (rt->listeners[i]->fds[w] >= 0)
				close(rt->listeners[i]->fds[w]);
		free(rt->listeners[i]);
	}
	free(rt->listeners);
	rt->listeners = NULL;
	lbd_cfg_free(rt->cfg);
	rt->cfg = NULL;
}
