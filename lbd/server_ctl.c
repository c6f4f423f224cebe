/* Server state changes, made on the main thread: health results, the
 * administrator's commands, DNS maintenance, and what follows from them
 * (the log line, cutting sessions, restarting checks, dispatching the
 * queue). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

#include "backend.h"
#include "check.h"
#include "clock.h"
#include "event.h"
#include "log.h"
#include "server.h"
#include "server_ctl.h"
#include "worker.h"

void server_cut_sessions(
	struct lbd_runtime *rt, struct lbd_server *srv, const char *term, bool spread)
{
	unsigned i;

	for (i = 0; i < rt->nworkers; i++) {
		server_ref(srv); /* dropped by the worker */
		worker_post(&rt->workers[i], LBD_MSG_CUT_SERVER, srv, (void *)term,
			spread ? srv->o.shutdown_spread : 0);
	}
}

void server_set_up(struct lbd_runtime *rt, struct lbd_server *srv, bool up, const char *reason)
{
	struct lbd_backend_rt *be = srv->be;
	unsigned active, backup;
	size_t i;

	if (atomic_load(&srv->up) == up)
		return;
	if (up)
		atomic_store(&srv->up_since, srv->o.slowstart ? lbd_now() : 0);
	atomic_store(&srv->up, up);
	server_downtime_note(srv, lbd_now());
	atomic_fetch_add(&srv->state_changes, 1);
	atomic_store(&srv->last_change, lbd_now());
	snprintf(srv->last_reason, sizeof(srv->last_reason), "%s", reason);
	health_force(&srv->health, up);
	server_count_usable(be, &active, &backup);
	log_notice("server %s/%s is %s: %s; %u active and %u backup servers online", be->name,
		srv->name, up ? "UP" : "DOWN", reason, active, backup);
	if (!up && active + backup == 0)
		log_err("backend %s has no server available", be->name);
	if (!up && srv->o.on_down_shutdown)
		server_cut_sessions(rt, srv, "DD", true);
	if (up && !srv->o.backup) {
		/* on-marked-up shutdown-backup-sessions: back to the primaries */
		for (i = 0; i < be->nservers; i++)
			if (be->servers[i]->o.backup && srv->o.on_up_shutdown_backup)
				server_cut_sessions(rt, be->servers[i], "DD", true);
	}
	if (up)
		backend_dispatch(be);
	cpha_notify_status("server %s/%s %s", be->name, srv->name, up ? "UP" : "DOWN");
}

void server_check_result(struct lbd_runtime *rt, struct lbd_server *srv, bool ok,
	const char *reason, uint64_t duration_usec)
{
	enum lbd_health_change c;

	atomic_store(&srv->check_duration_us, duration_usec);
	snprintf(srv->last_check, sizeof(srv->last_check), "%s", reason);
	if (!ok)
		atomic_fetch_add(&srv->checks_failed, 1);
	c = health_report(&srv->health, ok);
	if (c == LBD_HEALTH_UP)
		server_set_up(rt, srv, true, reason);
	else if (c == LBD_HEALTH_DOWN)
		server_set_up(rt, srv, false, reason);
}

void server_set_admin(struct lbd_runtime *rt, struct lbd_server *srv, enum lbd_admin_state st)
{
	static const char *const names[] = { "ready", "drain", "maint" };
	enum lbd_admin_state old = atomic_load(&srv->admin);

	if (old == st)
		return;
	atomic_store(&srv->admin, st);
	server_downtime_note(srv, lbd_now());
	atomic_fetch_add(&srv->state_changes, 1);
	atomic_store(&srv->last_change, lbd_now());
	log_notice("server %s/%s: administrative state %s (was %s)", srv->be->name, srv->name,
		names[st], names[old]);
	if (st == LBD_ADMIN_MAINT)
		check_stop(srv);
	else if (old == LBD_ADMIN_MAINT)
		check_resume(rt, srv);
	if (st == LBD_ADMIN_READY)
		backend_dispatch(srv->be);
}

void server_set_dns_maint(struct lbd_runtime *rt, struct lbd_server *srv, bool on, const char *why)
{
	unsigned active, backup;

	if (atomic_load(&srv->dns_maint) == on)
		return;
	atomic_store(&srv->dns_maint, on);
	server_downtime_note(srv, lbd_now());
	atomic_fetch_add(&srv->state_changes, 1);
	atomic_store(&srv->last_change, lbd_now());
	snprintf(srv->last_reason, sizeof(srv->last_reason), "%s", why);
	server_count_usable(srv->be, &active, &backup);
	if (on) {
		log_warn("server %s/%s is going DOWN for maintenance (%s); %u active and %u "
			 "backup servers left",
			srv->be->name, srv->name, why, active, backup);
		check_stop(srv);
		if (active + backup == 0)
			log_err("backend %s has no server available", srv->be->name);
		return;
	}
	log_notice("server %s/%s is back from maintenance (%s); %u active and %u backup "
		   "servers online",
		srv->be->name, srv->name, why, active, backup);
	if (atomic_load(&srv->admin) == LBD_ADMIN_MAINT)
		return;
	/* as HAProxy: up at once, checked at once (one failure takes it down) */
	if (srv->o.check) {
		health_init(&srv->health, srv->o.rise, srv->o.fall, true);
		atomic_store(&srv->up, true);
		server_downtime_note(srv, lbd_now());
		check_resume(rt, srv);
	}
	backend_dispatch(srv->be);
}

void server_on_error(struct lbd_runtime *rt, struct lbd_server *srv)
{
	enum lbd_health_change c;
	char reason[128];
	bool failed;

	/* no checks (HAProxy observes nothing then), or not in service */
	if (!srv->o.check || srv->removed || atomic_load(&srv->admin) == LBD_ADMIN_MAINT ||
		atomic_load(&srv->dns_maint))
		return;
	snprintf(reason, sizeof(reason),
		"Detected %u consecutive errors, last one was: L4 unsuccessful connection",
		srv->o.error_limit);
	atomic_fetch_add(&srv->hana_failed, 1);
	c = health_on_error(&srv->health, srv->o.on_error, &failed);
	if (failed) {
		/* HAProxy counts it as a failed check (chkfail) */
		atomic_fetch_add(&srv->checks_failed, 1);
		snprintf(srv->last_check, sizeof(srv->last_check), "%s", reason);
	}
	log_notice("server %s/%s: %s; on-error %s", srv->be->name, srv->name, reason,
		health_on_error_name(srv->o.on_error));
	if (c == LBD_HEALTH_DOWN)
		server_set_up(rt, srv, false, reason);
	/* every on-error mode brings the next check forward to fastinter */
	check_hasten(srv, srv->o.fastinter);
}

static int server_observe_io(sd_event_source *src, int fd, uint32_t revents, void *userdata)
{
	struct lbd_runtime *rt = userdata;
	eventfd_t v;
	size_t i, j;

	(void)src;
	(void)revents;
	if (eventfd_read(fd, &v) == -1 && errno != EAGAIN)
		log_warn("passive health: eventfd: %m");
	for (i = 0; i < rt->nbackends; i++) {
		struct lbd_backend_rt *be = rt->backends[i];

		for (j = 0; j < be->nservers; j++)
			if (atomic_exchange(&be->servers[j]->hana_due, false))
				server_on_error(rt, be->servers[j]);
	}
	return 0;
}

int server_observe_init(struct lbd_runtime *rt)
{
	int fd, r;

	fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (fd == -1)
		return -errno;
	r = sd_event_add_io(rt->e, &rt->hana_src, fd, EPOLLIN, server_observe_io, rt);
	if (r < 0) {
		close(fd);
		return r;
	}
	rt->hana_efd = fd;
	return 0;
}

void server_observe_close(struct lbd_runtime *rt)
{
	if (!rt->hana_src)
		return;
	rt->hana_src = sd_event_source_disable_unref(rt->hana_src);
	close(rt->hana_efd);
	rt->hana_efd = -1;
}
