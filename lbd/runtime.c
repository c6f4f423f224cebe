#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "cfg.h"
#include "check.h"
#include "clock.h"
#include "log.h"
#include "runtime.h"
#include "server.h"
#include "server_ctl.h"
#include "stick.h"
#include "tlog.h"
#include "worker.h"

/* One server of a backend of the new configuration. */
struct plan_server {
	struct lbd_server *srv;   /* running (kept by name) or made for the plan */
	bool fresh;               /* made for the plan: freed if it is dropped */
	struct lbd_server_opts o; /* its options, strings owned */
	struct lbd_check *check;  /* made for the plan, given at commit (or NULL) */
};

/* One backend of the new configuration. */
struct plan_backend {
	const struct lbd_backend *bc;
	struct lbd_backend_rt *be; /* running (kept by name) or made for the plan */
	bool fresh;
	struct stick_table *stick;   /* the table after commit */
	bool new_stick;              /* stick was made for the plan */
	struct lbd_server **servers; /* be->servers after commit (bc->nservers) */
	struct plan_server *srv;     /* bc->nservers */
};

/* One frontend of the new configuration. */
struct plan_frontend {
	const struct lbd_frontend *fc;
	struct lbd_frontend_rt *fe; /* running (kept by name) or made for the plan */
	bool fresh;
	struct lbd_fe_params *fp; /* fp->be is set; its reference is taken at commit */
};

struct lbd_runtime_plan {
	struct lbd_config *cfg;
	struct plan_backend *be;    /* cfg->nbackends */
	struct plan_frontend *fe;   /* cfg->nfrontends */
	struct lbd_listener **newl; /* sockets open, not yet posted to the workers */
	size_t nnewl;
	/* the runtime's arrays after commit, with room for all they will hold */
	struct lbd_backend_rt **backends;
	struct lbd_frontend_rt **frontends;
	struct lbd_listener **listeners;
	struct lbd_server **doomed; /* NULL: no server is doomed by this reload */
	uint64_t *doomed_at;
	size_t doomed_cap;
	struct lbd_msg *msgs; /* for the workers: one per worker and listener started or stopped */
};

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

/* The rules a frontend's parameters hold (not the backends). */
static void fe_params_rules_free(struct lbd_fe_params *fp)
{
	size_t i;

	for (i = 0; fp->sw_be_rules && i < fp->rules->nsw; i++)
		rules_unref(fp->sw_be_rules[i]);
	free(fp->sw_be_rules);
	rules_unref(fp->be_rules);
	rules_unref(fp->rules);
}

void fe_params_free(struct lbd_fe_params *fp)
{
	size_t i;

	tlog_free(fp->log);
	if (fp->be)
		backend_unref(fp->be);
	for (i = 0; fp->sw_be && i < fp->rules->nsw; i++)
		backend_unref(fp->sw_be[i]);
	free(fp->sw_be);
	fe_params_rules_free(fp);
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

static struct lbd_listener *listener_find(struct lbd_runtime *rt, const struct cpha_addr *a)
{
	size_t i;

	for (i = 0; i < rt->nlisteners; i++)
		if (cpha_addr_equal(&rt->listeners[i]->addr, a))
			return rt->listeners[i];
	return NULL;
}

/* An array of n pointers (at least one, so an empty one is not NULL). */
static void *array_new(size_t n, size_t size)
{
	return calloc(n ? n : 1, size);
}

/* --- prepare: everything that can fail, nothing anyone else can see --- */

static struct lbd_server *server_new(struct lbd_backend_rt *be, const struct lbd_server_cfg *sc)
{
	struct lbd_server *srv = calloc(1, sizeof(*srv));
	size_t i;

	if (!srv)
		return NULL;
	srv->name = strdup(sc->name);
	if (!srv->name) {
		free(srv);
		return NULL;
	}
	srv->be = be;
	srv->refs = 1; /* the backend's */
	for (i = 0; i < LBD_MAX_THREADS; i++)
		cpha_list_init(&srv->sessions[i]);
	/* as in HAProxy, a server starts up (one failed check downs it) */
	atomic_store(&srv->up, true);
	health_init(&srv->health, sc->o.rise, sc->o.fall, true);
	atomic_store(&srv->admin, sc->o.disabled ? LBD_ADMIN_MAINT : LBD_ADMIN_READY);
	/* init-addr none: out of rotation until DNS gives it an address */
	atomic_store(&srv->dns_maint, sc->unresolved != 0);
	server_downtime_note(srv, lbd_now()); /* disabled: stopped from the start */
	snprintf(srv->last_reason, sizeof(srv->last_reason), "starting");
	return srv;
}

static struct lbd_backend_rt *backend_new(const char *name)
{
	struct lbd_backend_rt *be = calloc(1, sizeof(*be));

	if (!be)
		return NULL;
	be->name = strdup(name);
	if (!be->name) {
		free(be);
		return NULL;
	}
	be->refs = 1; /* the runtime's */
	be->handoff = worker_hand_slot;
	pthread_mutex_init(&be->lock, NULL);
	cpha_list_init(&be->queue);
	return be;
}

/* The running server of be named name that no earlier server of the plan
 * has taken, or NULL. */
static struct lbd_server *server_take(const struct lbd_backend_rt *be,
	const struct plan_backend *pb, size_t upto, const char *name)
{
	size_t i, k;

	for (i = 0; i < be->nservers; i++) {
		struct lbd_server *srv = be->servers[i];
		bool taken = false;

		if (strcmp(srv->name, name) != 0)
			continue;
		for (k = 0; k < upto && !taken; k++)
			taken = pb->srv[k].srv == srv;
		if (!taken)
			return srv;
	}
	return NULL;
}

/* Everything one backend needs; *ngone counts the running servers it drops. */
static int prepare_backend(struct lbd_runtime *rt, struct plan_backend *pb,
	const struct lbd_backend *bc, size_t *ngone)
{
	const struct lbd_stick_cfg *stc = &bc->stick;
	struct lbd_backend_rt *be;
	struct stick_table *st;
	size_t i, kept = 0;

	pb->bc = bc;
	pb->be = be = runtime_backend(rt, bc->name);
	if (!be) {
		pb->be = be = backend_new(bc->name);
		if (!be)
			return -ENOMEM;
		pb->fresh = true;
	}
	/* a stick table survives a reload that leaves its definition alone */
	st = be->stick;
	pb->stick = st;
	if (!stc->family || !st || stick_family(st) != stc->family || stick_size(st) != stc->size ||
		stick_expire(st) != stc->expire || stick_nopurge(st) != !!stc->nopurge) {
		pb->stick = NULL;
		if (stc->family) {
			pb->stick = stick_new(stc->family, stc->size, stc->expire, stc->nopurge);
			if (!pb->stick)
				return -ENOMEM;
			pb->new_stick = true;
		}
	}
	pb->servers = array_new(bc->nservers, sizeof(*pb->servers));
	pb->srv = array_new(bc->nservers, sizeof(*pb->srv));
	if (!pb->servers || !pb->srv)
		return -ENOMEM;
	for (i = 0; i < bc->nservers; i++) {
		const struct lbd_server_cfg *sc = &bc->servers[i];
		struct plan_server *ps = &pb->srv[i];

		ps->srv = pb->fresh ? NULL : server_take(be, pb, i, sc->name);
		if (ps->srv) {
			kept++;
		} else {
			ps->srv = server_new(be, sc);
			if (!ps->srv)
				return -ENOMEM;
			ps->fresh = true;
		}
		if (lbd_cfg_server_opts_dup(&ps->o, &sc->o) < 0)
			return -ENOMEM;
		if (sc->o.check && !ps->srv->check) {
			ps->check = check_new(rt);
			if (!ps->check)
				return -ENOMEM;
		}
		pb->servers[i] = ps->srv;
	}
	*ngone += be->nservers - kept;
	return 0;
}

static void unprepare_backend(struct plan_backend *pb)
{
	size_t i;

	if (!pb->be)
		return;
	for (i = 0; pb->srv && i < pb->bc->nservers; i++) {
		struct plan_server *ps = &pb->srv[i];

		lbd_cfg_server_opts_free(&ps->o);
		check_discard(ps->check);
		if (ps->fresh)
			server_free(ps->srv);
	}
	free(pb->srv);
	free(pb->servers);
	if (pb->new_stick)
		stick_free(pb->stick);
	if (pb->fresh)
		backend_free(pb->be); /* no servers yet */
}

/* The frontend named name, removed or not, so a name that comes back
 * finds its counters. */
static struct lbd_frontend_rt *frontend_find(struct lbd_runtime *rt, const char *name)
{
	size_t i;

	for (i = 0; i < rt->nfrontends; i++)
		if (strcmp(rt->frontends[i]->name, name) == 0)
			return rt->frontends[i];
	return NULL;
}

static int prepare_frontend(struct lbd_runtime *rt, struct lbd_runtime_plan *p,
	struct plan_frontend *pf, const struct lbd_frontend *fc)
{
	struct lbd_fe_params *fp;
	size_t i, j;

	pf->fc = fc;
	pf->fe = frontend_find(rt, fc->name);
	if (!pf->fe) {
		pf->fe = calloc(1, sizeof(*pf->fe));
		if (!pf->fe)
			return -ENOMEM;
		pf->fresh = true;
		pf->fe->name = strdup(fc->name);
		if (!pf->fe->name)
			return -ENOMEM;
	}
	pf->fp = fp = calloc(1, sizeof(*fp));
	if (!fp)
		return -ENOMEM;
	atomic_store(&fp->refs, 1);
	fp->release = fe_params_free;
	fp->timeouts = fc->timeouts;
	fp->maxconn = fc->maxconn;
	fp->tcplog = fc->tcplog || fc->log_format; /* a traffic line per session */
	fp->dontlognull = fc->dontlognull;
	fp->log = tlog_open(fc->logs, fc->nlogs, fc->log_format, fc->dontlog_normal);
	if (fc->nlogs && !fp->log)
		return -ENOMEM;
	for (i = 0; fc->backend && i < p->cfg->nbackends; i++)
		if (strcmp(p->be[i].bc->name, fc->backend->name) == 0) {
			fp->be = p->be[i].be;
			/* a listen's content rules are its frontend's */
			if (!fc->from_listen)
				fp->be_rules = rules_ref(p->be[i].bc->rules);
		}
	if (fc->rules) {
		fp->rules = rules_ref(fc->rules);
		fp->inspect = rules_inspect(fc->rules);
		if (fc->rules->nsw && (!(fp->sw_be = calloc(fc->rules->nsw, sizeof(*fp->sw_be))) ||
					      !(fp->sw_be_rules = calloc(
							fc->rules->nsw, sizeof(*fp->sw_be_rules)))))
			return -ENOMEM;
		for (j = 0; j < fc->rules->nsw; j++)
			for (i = 0; i < p->cfg->nbackends; i++)
				if (strcmp(p->be[i].bc->name, fc->rules->sw[j].backend) == 0) {
					fp->sw_be[j] = p->be[i].be;
					fp->sw_be_rules[j] = rules_ref(p->be[i].bc->rules);
				}
	}
	return 0;
}

static void unprepare_frontend(struct plan_frontend *pf)
{
	if (pf->fp) {
		tlog_free(pf->fp->log);
		fe_params_rules_free(pf->fp);
		free(pf->fp->sw_be);
		free(pf->fp); /* no backend reference taken yet */
	}
	if (pf->fresh) {
		free(pf->fe->name);
		free(pf->fe);
	}
}

/* Open the sockets of every new bind address, one per worker. */
static int prepare_listeners(struct lbd_runtime *rt, struct lbd_runtime_plan *p)
{
	const struct lbd_config *cfg = p->cfg;
	size_t f, b, n = 0;
	char a[CPHA_ADDR_STRLEN];
	unsigned w;
	int fd;

	for (f = 0; f < cfg->nfrontends; f++)
		n += cfg->frontends[f].nbinds;
	p->newl = array_new(n, sizeof(*p->newl));
	if (!p->newl)
		return -ENOMEM;
	for (f = 0; f < cfg->nfrontends; f++) {
		for (b = 0; b < cfg->frontends[f].nbinds; b++) {
			const struct lbd_bind *bind = &cfg->frontends[f].binds[b];
			struct lbd_listener *l;

			if (listener_find(rt, &bind->addr))
				continue;
			l = calloc(1, sizeof(*l));
			if (!l)
				return -ENOMEM;
			p->newl[p->nnewl++] = l;
			l->addr = bind->addr;
			for (w = 0; w < LBD_MAX_THREADS; w++)
				l->fds[w] = -1;
			for (w = 0; w < rt->nworkers; w++) {
				fd = worker_listen_socket(
					&bind->addr, bind->v6only, cfg->frontends[f].smart_accept);
				if (fd < 0) {
					log_err("%s:%u: cannot listen on %s: %s", cfg->file,
						bind->line,
						cpha_addr_format(&bind->addr, a, sizeof(a)),
						strerror(-fd));
					return -EADDRINUSE;
				}
				l->fds[w] = fd;
			}
		}
	}
	return 0;
}

void runtime_abandon(struct lbd_runtime *rt, struct lbd_runtime_plan *p)
{
	size_t i;
	unsigned w;

	if (!p)
		return;
	for (i = 0; i < p->nnewl; i++) {
		for (w = 0; w < rt->nworkers; w++)
			if (p->newl[i]->fds[w] >= 0)
				close(p->newl[i]->fds[w]);
		free(p->newl[i]);
	}
	free(p->newl);
	for (i = 0; p->fe && i < p->cfg->nfrontends; i++)
		unprepare_frontend(&p->fe[i]);
	free(p->fe);
	for (i = 0; p->be && i < p->cfg->nbackends; i++)
		unprepare_backend(&p->be[i]);
	free(p->be);
	free(p->backends);
	free(p->frontends);
	free(p->listeners);
	free(p->doomed);
	free(p->doomed_at);
	worker_pool_free(&p->msgs);
	free(p);
}

int runtime_prepare(struct lbd_runtime *rt, struct lbd_config *cfg, struct lbd_runtime_plan **out)
{
	struct lbd_runtime_plan *p = calloc(1, sizeof(*p));
	size_t i, ngone = 0, nfreshbe = 0, nfreshfe = 0;
	int r = -ENOMEM;

	*out = NULL;
	if (!p)
		goto fail;
	p->cfg = cfg;
	r = prepare_listeners(rt, p);
	if (r < 0)
		goto fail;
	r = -ENOMEM;
	p->be = array_new(cfg->nbackends, sizeof(*p->be));
	p->fe = array_new(cfg->nfrontends, sizeof(*p->fe));
	if (!p->be || !p->fe)
		goto fail;
	for (i = 0; i < cfg->nbackends; i++) {
		r = prepare_backend(rt, &p->be[i], &cfg->backends[i], &ngone);
		if (r < 0)
			goto fail;
		nfreshbe += p->be[i].fresh;
	}
	for (i = 0; i < cfg->nfrontends; i++) {
		r = prepare_frontend(rt, p, &p->fe[i], &cfg->frontends[i]);
		if (r < 0)
			goto fail;
		nfreshfe += p->fe[i].fresh;
	}
	r = -ENOMEM;
	p->backends = array_new(rt->nbackends + nfreshbe, sizeof(*p->backends));
	p->frontends = array_new(rt->nfrontends + nfreshfe, sizeof(*p->frontends));
	p->listeners = array_new(rt->nlisteners + p->nnewl, sizeof(*p->listeners));
	if (!p->backends || !p->frontends || !p->listeners ||
		worker_pool_fill(&p->msgs, rt->nworkers * (rt->nlisteners + p->nnewl)) < 0)
		goto fail;
	if (cfg->global.hard_stop_after && ngone) {
		p->doomed_cap = rt->ndoomed + ngone;
		p->doomed = calloc(p->doomed_cap, sizeof(*p->doomed));
		p->doomed_at = calloc(p->doomed_cap, sizeof(*p->doomed_at));
		if (!p->doomed || !p->doomed_at)
			goto fail;
	}
	*out = p;
	return 0;
fail:
	runtime_abandon(rt, p); /* NULL allowed */
	if (r == -ENOMEM)
		log_err("%s: out of memory while preparing the configuration", cfg->file);
	return r;
}

/* --- commit: nothing here may fail --- */

static bool holds(struct lbd_server *const *a, size_t n, const struct lbd_server *srv)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i] == srv)
			return true;
	return false;
}

/* Cut a removed server's sessions at a deadline: the reference goes with
 * it. False when there is no room (not planned: drop it at once). */
static bool doom(struct lbd_runtime *rt, const struct lbd_runtime_plan *p, struct lbd_server *srv,
	uint64_t at)
{
	if (rt->ndoomed >= p->doomed_cap) /* commit_backends() made the room */
		return false;
	rt->doomed[rt->ndoomed] = srv;
	rt->doomed_at[rt->ndoomed++] = at;
	return true;
}

/* The weight the running configuration gives srv (~0u: none), as HAProxy
 * compares the state file's srv_iweight with the new configuration's. */
static unsigned old_weight(
	const struct lbd_runtime *rt, const struct lbd_backend_rt *be, const struct lbd_server *srv)
{
	const struct lbd_backend *obc = rt->cfg ? lbd_cfg_backend(rt->cfg, be->name) : NULL;

	if (!obc || srv->id < 1 || srv->id > obc->nservers ||
		strcmp(obc->servers[srv->id - 1].name, srv->name) != 0)
		return ~0u;
	return obc->servers[srv->id - 1].o.weight;
}

/* Update one backend (running, or made for the plan) under its lock;
 * servers gone from the configuration are cut at hard-stop-after or
 * dropped. */
static void commit_backend(
	struct lbd_runtime *rt, const struct lbd_runtime_plan *p, struct plan_backend *pb)
{
	const struct lbd_backend *bc = pb->bc;
	struct lbd_backend_rt *be = pb->be;
	struct stick_table *old_st = be->stick != pb->stick ? be->stick : NULL;
	uint64_t hard_stop_after = p->cfg->global.hard_stop_after;
	bool keep_weight;
	unsigned weight;
	size_t i;

	pthread_mutex_lock(&be->lock);
	be->stick = pb->stick;
	pb->new_stick = false; /* the backend's now */
	be->stick_match = bc->stick.match;
	be->stick_store = bc->stick.store;
	if (be->algo != bc->balance || !be->servers)
		balance_init(&be->bal, bc->balance, (uint64_t)lbd_now() ^ (uintptr_t)be);
	be->algo = bc->balance;
	be->retries = bc->retries;
	be->redispatch = bc->redispatch;
	be->persist = bc->persist;
	be->smart_connect = bc->smart_connect;
	be->timeouts = bc->timeouts;
	be->check_kind = bc->check_kind;
	for (i = 0; i < bc->nservers; i++) {
		const struct lbd_server_cfg *sc = &bc->servers[i];
		struct plan_server *ps = &pb->srv[i];
		struct lbd_server *srv = ps->srv;

		if (!ps->fresh) {
			srv->health.rise = sc->o.rise;
			srv->health.fall = sc->o.fall;
			if (srv->health.health > sc->o.rise + sc->o.fall - 1)
				srv->health.health = sc->o.rise + sc->o.fall - 1;
		}
		weight = srv->o.weight;
		keep_weight = !ps->fresh && old_weight(rt, be, srv) == sc->o.weight;
		ps->fresh = false; /* the backend's now */
		free(srv->o.ca_file);
		free(srv->o.crt);
		srv->o = ps->o;
		ps->o.ca_file = ps->o.crt = NULL;
		if (keep_weight) /* set at run time; a new configured weight wins */
			srv->o.weight = weight;
		srv->addr = sc->addr;
		srv->id = sc->id;
		if (!srv->check) {
			srv->check = ps->check;
			ps->check = NULL;
		}
	}
	for (i = 0; i < be->nservers; i++) {
		struct lbd_server *srv = be->servers[i];

		if (holds(pb->servers, bc->nservers, srv))
			continue;
		srv->removed = true;
		check_free(srv);
		if (hard_stop_after && doom(rt, p, srv, lbd_now() + hard_stop_after))
			continue;
		server_unref_locked(srv);
	}
	free(be->servers);
	be->servers = pb->servers;
	pb->servers = NULL;
	be->nservers = bc->nservers;
	pthread_mutex_unlock(&be->lock);
	stick_free(old_st);
}

/* Backends by name: kept ones updated in place, new ones added, removed
 * ones marked (their reference is dropped by commit_drop_backends). */
static void commit_backends(struct lbd_runtime *rt, struct lbd_runtime_plan *p)
{
	size_t i, n = 0;

	if (p->doomed) {
		for (i = 0; i < rt->ndoomed; i++) {
			p->doomed[i] = rt->doomed[i];
			p->doomed_at[i] = rt->doomed_at[i];
		}
		free(rt->doomed);
		free(rt->doomed_at);
		rt->doomed = p->doomed;
		rt->doomed_at = p->doomed_at;
		p->doomed = NULL;
		p->doomed_at = NULL;
	}
	for (i = 0; i < rt->nbackends; i++) {
		rt->backends[i]->removed = !lbd_cfg_backend(p->cfg, rt->backends[i]->name);
		p->backends[n++] = rt->backends[i];
	}
	for (i = 0; i < p->cfg->nbackends; i++) {
		struct plan_backend *pb = &p->be[i];

		commit_backend(rt, p, pb);
		if (pb->fresh)
			p->backends[n++] = pb->be;
		pb->fresh = false;
	}
	free(rt->backends);
	rt->backends = p->backends;
	rt->nbackends = n;
	p->backends = NULL;
}

/* After the frontends let go of them: backends gone from the
 * configuration lose the runtime's reference. */
static void commit_drop_backends(struct lbd_runtime *rt)
{
	size_t i, n = 0;

	for (i = 0; i < rt->nbackends; i++) {
		struct lbd_backend_rt *be = rt->backends[i];

		if (be->removed)
			backend_unref(be);
		else
			rt->backends[n++] = be;
	}
	rt->nbackends = n;
}

/* Frontends by name, each with its fresh parameters. */
static void commit_frontends(struct lbd_runtime *rt, struct lbd_runtime_plan *p)
{
	size_t i, j, n = 0;

	for (i = 0; i < rt->nfrontends; i++) {
		struct lbd_frontend_rt *fe = rt->frontends[i];

		fe->removed = true;
		for (j = 0; j < p->cfg->nfrontends; j++)
			if (p->fe[j].fe == fe)
				fe->removed = false;
		p->frontends[n++] = fe;
	}
	for (i = 0; i < p->cfg->nfrontends; i++) {
		struct plan_frontend *pf = &p->fe[i];
		struct lbd_fe_params *oldp;

		if (pf->fresh)
			p->frontends[n++] = pf->fe;
		pf->fresh = false;
		if (pf->fp->be)
			__atomic_add_fetch(&pf->fp->be->refs, 1, __ATOMIC_ACQ_REL);
		for (j = 0; pf->fp->sw_be && j < pf->fp->rules->nsw; j++)
			__atomic_add_fetch(&pf->fp->sw_be[j]->refs, 1, __ATOMIC_ACQ_REL);
		oldp = atomic_exchange(&pf->fe->params, pf->fp);
		pf->fp = NULL;
		if (oldp && atomic_fetch_sub(&oldp->refs, 1) == 1)
			fe_params_free(oldp);
	}
	free(rt->frontends);
	rt->frontends = p->frontends;
	rt->nfrontends = n;
	p->frontends = NULL;
}

/* Listeners: those whose address stays are kept (and may change
 * frontend), the new ones start, the others stop. */
static void commit_listeners(struct lbd_runtime *rt, struct lbd_runtime_plan *p)
{
	const struct lbd_config *cfg = p->cfg;
	size_t i, j, b, n = 0;
	unsigned w;

	for (i = 0; i < rt->nlisteners; i++)
		rt->listeners[i]->keep = false;
	for (i = 0; i < cfg->nfrontends; i++) {
		struct lbd_frontend_rt *fe = p->fe[i].fe;

		for (b = 0; b < cfg->frontends[i].nbinds; b++) {
			const struct cpha_addr *a = &cfg->frontends[i].binds[b].addr;
			struct lbd_listener *l = listener_find(rt, a);

			if (l) {
				l->keep = true;
				atomic_store(&l->fe, fe);
				continue;
			}
			for (j = 0; j < p->nnewl; j++)
				if (cpha_addr_equal(&p->newl[j]->addr, a))
					atomic_store(&p->newl[j]->fe, fe);
		}
	}
	for (i = 0; i < rt->nlisteners; i++) {
		struct lbd_listener *l = rt->listeners[i];

		if (l->keep) {
			p->listeners[n++] = l;
			continue;
		}
		for (w = 0; w < rt->nworkers; w++)
			worker_post_pooled(&rt->workers[w], &p->msgs, LBD_MSG_UNLISTEN, l, NULL, 0);
		listener_unref(l); /* the runtime's reference */
	}
	for (j = 0; j < p->nnewl; j++) {
		struct lbd_listener *l = p->newl[j];

		p->listeners[n++] = l;
		l->keep = true;
		atomic_store(&l->refs, (int)rt->nworkers + 1);
		for (w = 0; w < rt->nworkers; w++)
			worker_post_pooled(&rt->workers[w], &p->msgs, LBD_MSG_LISTEN, l, NULL, 0);
	}
	p->nnewl = 0;
	free(rt->listeners);
	rt->listeners = p->listeners;
	rt->nlisteners = n;
	p->listeners = NULL;
}

/* Checks with the new configuration; health carries over. */
static void commit_checks(struct lbd_runtime *rt)
{
	size_t i, j;
	int r;

	for (i = 0; i < rt->nbackends; i++) {
		struct lbd_backend_rt *be = rt->backends[i];
		const struct lbd_backend *bc = lbd_cfg_backend(rt->cfg, be->name);

		for (j = 0; j < be->nservers; j++) {
			struct lbd_server *srv = be->servers[j];

			if (!srv->o.check) {
				/* no checks: always up */
				atomic_store(&srv->up, true);
				server_downtime_note(srv, lbd_now());
				continue;
			}
			if (atomic_load(&srv->admin) == LBD_ADMIN_MAINT) {
				/* check_resume() starts it when maintenance ends */
				if (srv->check) /* made by prepare_backend() */
					srv->check->bcfg = bc;
				continue;
			}
			/* the check object and its timer were made by
			 * prepare: this cannot fail */
			r = check_start(rt, srv, bc, check_first_delay(srv));
			if (r < 0)
				log_err("server %s/%s: cannot start checks: %s", be->name,
					srv->name, strerror(-r));
		}
		backend_dispatch(be);
	}
}

void runtime_commit(struct lbd_runtime *rt, struct lbd_runtime_plan *p)
{
	struct lbd_config *old = rt->cfg;
	size_t i, j;

	rt->check_result = server_check_result;
	/* checks point into the old configuration */
	for (i = 0; i < rt->nbackends; i++)
		for (j = 0; j < rt->backends[i]->nservers; j++)
			check_stop(rt->backends[i]->servers[j]);
	commit_backends(rt, p);
	commit_frontends(rt, p);
	commit_listeners(rt, p);
	commit_drop_backends(rt);
	rt->cfg = p->cfg;
	rt->maxconn = p->cfg->global.maxconn ? p->cfg->global.maxconn : 4096;
	commit_checks(rt);
	lbd_cfg_free(old);
	runtime_abandon(rt, p); /* what is left is the plan's own bookkeeping */
}

int runtime_apply(struct lbd_runtime *rt, struct lbd_config *cfg)
{
	struct lbd_runtime_plan *p;
	int r = runtime_prepare(rt, cfg, &p);

	if (r < 0)
		return r;
	runtime_commit(rt, p);
	return 0;
}

void runtime_free(struct lbd_runtime *rt)
{
	size_t i;

	/* the quiet addresses (quiet_ctl.c) and the timer that ends them */
	sd_event_source_disable_unref(rt->quiet_timer);
	rt->quiet_timer = NULL;
	free(rt->quiet);
	rt->quiet = NULL;
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
