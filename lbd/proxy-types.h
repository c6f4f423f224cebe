/* lbd's run-time objects: frontends, backends, servers, workers, sessions.
 * Types only. Servers, backends and frontends live across reloads (matched
 * by name) and carry their state; a reload updates them in place. */
#ifndef LBD_PROXY_TYPES_H
#define LBD_PROXY_TYPES_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include <systemd/sd-event.h>

#include "balance.h"
#include "cfg-types.h"
#include "health.h"
#include "list.h"

#define LBD_MAX_THREADS   64
#define LBD_MAX_LISTENERS 256 /* bind addresses in one configuration */

struct lbd_session;
struct lbd_worker;
struct lbd_check;
struct lbd_logger;
struct stick_table;
struct lbd_runtime;
struct lbd_server;

/* A queued session was given a slot on s->srv: tell its worker (backend.c
 * calls it after unlocking; worker.c's worker_hand_slot). */
typedef void lbd_handoff_fn(struct lbd_session *s);

/* A health check's result for srv (check.c calls it; server_ctl.c's
 * server_check_result changes the server's state). */
typedef void lbd_check_result_fn(struct lbd_runtime *rt, struct lbd_server *srv, bool ok,
	const char *reason, uint64_t duration_usec);

/* Administrative state set from the admin socket. */
enum lbd_admin_state {
	LBD_ADMIN_READY, /* in service */
	LBD_ADMIN_DRAIN, /* no new sessions; existing ones go on; checks go on */
	LBD_ADMIN_MAINT, /* no new sessions, no checks; existing ones go on */
};

/* Counters shared by frontends, backends and servers (relaxed atomics). */
struct lbd_counters {
	atomic_uint_fast64_t sessions_total;
	atomic_uint_fast64_t bytes_in;  /* from clients */
	atomic_uint_fast64_t bytes_out; /* to clients */
	atomic_uint_fast64_t connect_errors;
	atomic_uint_fast64_t retries;
	atomic_uint_fast64_t redispatches;
	atomic_uint_fast64_t denied; /* no server, queue full or queue timeout */
	atomic_uint_fast64_t hedges; /* hedge: second connects started elsewhere */
};

struct lbd_server {
	struct lbd_backend_rt *be;
	char *name;
	unsigned id;
	int refs;     /* backend's + sessions'; under be->lock */
	bool removed; /* gone from the configuration after a reload */

	/* read by workers under be->lock, written by the main thread under it */
	struct cpha_addr addr;    /* port 0: use the port the client connected to */
	struct lbd_server_opts o; /* options after inheritance (strings owned here) */
	unsigned cur;             /* sessions holding a slot (connecting or established) */
	int64_t rr;               /* round-robin credit */

	/* state: written by the main thread, read by everyone */
	atomic_bool up; /* health checks pass (or no checks) */
	_Atomic enum lbd_admin_state admin;
	atomic_bool dns_maint;     /* in maintenance until DNS gives it an address (resolver.c) */
	_Atomic uint64_t up_since; /* CLOCK_MONOTONIC usec when it last came up */
	atomic_uint_fast64_t state_changes;
	/* CLOCK_MONOTONIC usec of the last state change; 0: none since start */
	_Atomic uint64_t last_change;
	char last_reason[128];    /* of the last state change (main thread) */
	char last_check[128];     /* result of the last check (main thread) */
	struct lbd_health health; /* main thread only */
	struct lbd_check *check;  /* main thread only */

	struct lbd_counters cnt;
	atomic_uint_fast64_t check_duration_us; /* of the last completed check */
	atomic_uint_fast64_t checks_failed;
	/* downtime, as HAProxy counts it (server_downtime_note): usec
	 * stopped before down_since, and when the current stop began
	 * (CLOCK_MONOTONIC usec; 0: not stopped). Main thread only. */
	uint64_t down_usec, down_since;

	/* passive health (observe layer4): consecutive layer-4 errors counted
	 * by the workers' sessions; at error-limit they set hana_due and ring
	 * rt->hana_efd, and the main thread applies on-error */
	atomic_uint hana_errors;
	atomic_bool hana_due;
	atomic_uint_fast64_t hana_failed; /* on-error actions taken (CSV hanafail) */

	/* sessions on this server, one list per worker (each touched only by
	 * its own worker) */
	struct cpha_list sessions[LBD_MAX_THREADS];
};

struct lbd_backend_rt {
	char *name;
	int refs; /* frontends' + sessions' + the runtime's */
	bool removed;
	pthread_mutex_t lock; /* servers' selection fields, queue, rr state */
	struct balance_state bal;
	enum lbd_balance algo;
	struct lbd_server **servers;
	size_t nservers;
	unsigned retries;
	bool redispatch;
	bool persist;                 /* option persist */
	bool smart_connect;           /* option tcp-smart-connect */
	struct lbd_timeouts timeouts; /* merged: backend's over defaults */
	enum lbd_check_kind check_kind;
	struct cpha_list queue; /* queued sessions, oldest first */
	unsigned queued;
	struct lbd_counters cnt;
	atomic_uint cur;         /* sessions using this backend */
	lbd_handoff_fn *handoff; /* slots handed to queued sessions go here */
	/* stick-table (NULL: none): the pointer changes under lock, the
	 * table has its own lock */
	struct stick_table *stick;
	bool stick_match; /* stick on / stick match src */
	bool stick_store; /* stick on / stick store-request src */
};

/* What a frontend's sessions need, immutable once published; sessions hold a
 * reference so a reload can swap it. */
struct lbd_fe_params {
	atomic_int refs;
	struct lbd_timeouts timeouts; /* client-side; server-side come from the backend */
	unsigned maxconn;
	bool tcplog;
	bool dontlognull;
	struct lbd_logger *log;    /* traffic log destinations (may be NULL) */
	struct lbd_backend_rt *be; /* default backend: holds a reference; NULL: none */
	/* tcp-request rules and use_backend conditions (a reference; NULL:
	 * none); sw_be[i] is rules->sw[i]'s backend, each a reference */
	struct lbd_fe_rules *rules;
	struct lbd_backend_rt **sw_be;
	/* the content rules of those backends (references; NULL: none):
	 * be_rules for be, sw_be_rules[i] for sw_be[i] */
	struct lbd_fe_rules *be_rules;
	struct lbd_fe_rules **sw_be_rules;
	bool inspect; /* sessions read the client's first bytes before choosing */
	/* frees it and drops its references at the last one (runtime.c's
	 * fe_params_free: the backend's lifetime is the runtime's) */
	void (*release)(struct lbd_fe_params *fp);
};

struct lbd_frontend_rt {
	char *name;
	bool removed;
	_Atomic(struct lbd_fe_params *) params;
	atomic_uint cur; /* current sessions */
	struct lbd_counters cnt;
};

/* One bind address, with one SO_REUSEPORT socket per worker. */
struct lbd_listener {
	struct cpha_addr addr;
	_Atomic(struct lbd_frontend_rt *) fe; /* updated on reload */
	int fds[LBD_MAX_THREADS];
	atomic_int refs; /* workers accepting on it, plus the runtime */
	bool keep;       /* reload bookkeeping */
};

enum lbd_msg_type {
	LBD_MSG_LISTEN,     /* start accepting on listener (arg) */
	LBD_MSG_UNLISTEN,   /* stop accepting on listener (arg) and close our fd */
	LBD_MSG_CUT_SERVER, /* cut sessions of server (arg) spread over usec */
	LBD_MSG_DEQUEUE,    /* session (arg) got a slot on server (arg2) */
	LBD_MSG_SOFT_STOP,  /* stop accepting; exit when sessions end */
	LBD_MSG_HARD_STOP,  /* cut every session and exit */
	LBD_MSG_QUIET,      /* attach filter (arg, a struct lbd_quiet_prog *) to the listeners */
};

struct lbd_msg {
	struct lbd_msg *next;
	enum lbd_msg_type type;
	void *arg, *arg2;
	uint64_t usec;
	bool owned; /* part of another object (a session's): the worker does not free it */
};

/* A socket registered in a worker's own epoll set: fn gets its events. */
struct lbd_evh {
	void (*fn)(struct lbd_evh *h, uint32_t events);
};

struct lbd_pipe {
	int fd[2];
	size_t size; /* capacity (F_GETPIPE_SZ) */
	struct lbd_pipe *next;
};

struct lbd_worker {
	unsigned id;
	pthread_t thread;
	sd_event *e;
	int efd;  /* eventfd: mailbox doorbell */
	int epfd; /* sessions' sockets: one wake-up handles a batch */
	sd_event_source *ep_src;
	bool in_batch;         /* handling epfd's events: frees wait */
	struct cpha_list dead; /* sessions closed during the batch */
	sd_event_source *efd_src;
	pthread_mutex_t mbox_lock;
	struct lbd_msg *mbox;      /* LIFO from producers; reversed on drain */
	struct cpha_list sessions; /* every session of this worker */
	unsigned nsessions;
	sd_event_source *accept_src[LBD_MAX_LISTENERS]; /* by listener slot */
	struct lbd_listener *listeners[LBD_MAX_LISTENERS];
	bool paused[LBD_MAX_LISTENERS]; /* accepting stopped by a limit */
	size_t nlisteners;
	unsigned npaused;
	sd_event_source *resume_timer;
	struct cpha_list fdwait; /* sessions waiting for a descriptor, oldest first */
	struct lbd_pipe *pipes;  /* pool of empty pipes */
	unsigned npipes;
	char *scratch; /* LBD_COPY_BUF bytes for copy-mode flows */
	bool stopping;
	struct lbd_quiet_prog *quiet; /* the listeners' filter (quiet.h), or NULL */
	struct lbd_runtime *rt;
	/* a session of this worker ended (worker_session_closed): sessions
	 * sit below the worker that runs them and call up only through it */
	void (*session_closed)(struct lbd_worker *w);
};

/* The whole process. */
struct lbd_runtime {
	struct lbd_config *cfg; /* current configuration (main thread) */
	sd_event *e;            /* main loop: checks, admin, metrics, signals */
	struct lbd_worker *workers;
	unsigned nworkers;
	struct lbd_frontend_rt **frontends;
	size_t nfrontends;
	struct lbd_backend_rt **backends;
	size_t nbackends;
	struct lbd_listener **listeners;
	size_t nlisteners;
	atomic_uint cur; /* sessions in the process */
	unsigned maxconn;
	atomic_uint maxpipes; /* pipes for splicing (pooled ones count); fits the fd limit */
	atomic_uint npipes;   /* pipes open now */
	_Atomic uint64_t fd_full_until; /* out of descriptors: no accepting until then
					 * (CLOCK_MONOTONIC usec), or a session ends */
	atomic_uint_fast64_t sessions_total;
	uint64_t started; /* CLOCK_REALTIME usec */
	uint64_t reloads;
	bool stopping;
	struct lbd_logger *global_log;
	void *admin, *metrics; /* struct cpha_admin *, struct cpha_metrics * */
	char *admin_path;
	/* servers removed by a reload whose sessions are cut at hard-stop-after */
	struct lbd_server **doomed;
	uint64_t *doomed_at;
	size_t ndoomed;
	struct lbd_resolver_rt *dns;         /* run-time DNS of servers (resolver.c) */
	lbd_check_result_fn *check_result;   /* where health checks report */
	struct cpha_curl_multi *http_checks; /* libcurl's multi handle of the HTTP
					      * checks (check_http.c) on e */
	/* passive health: workers ring it (eventfd) when a server's sessions
	 * reached its error-limit; server_ctl.c's handler acts on the main
	 * thread. hana_src is NULL until server_observe_init(). */
	int hana_efd;
	sd_event_source *hana_src;
	/* addresses quiesced (quiet.h, the admin socket's `quiesce`), and the
	 * timer of the next one's end */
	struct lbd_quiet *quiet;
	sd_event_source *quiet_timer;
};

#endif
