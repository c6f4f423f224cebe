/* lbd's reload (runtime.c): a reload that fails changes nothing. The
 * allocators are wrapped at link time (-Wl,--wrap, this executable only) so
 * the Nth allocation of runtime_apply() fails, for N = 1, 2, ... until the
 * reload goes through: after every failure the runtime must read exactly
 * as before (same objects, same options, checks still armed, no new
 * descriptor), and LeakSanitizer, in the ASan build, finds anything left
 * behind. A bind that fails is tried too. The runtime is built as main.c
 * builds it: an sd-event loop for checks and real worker threads that get
 * the listeners. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "cfg.h"
#include "check.h"
#include "log.h"
#include "runtime.h"
#include "server_ctl.h"
#include "worker.h"

#define NWORKERS   2
#define MAX_POINTS 100000 /* a reload that never succeeds is a bug */

/* --- failing allocations on purpose ------------------------------------ */

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);

/* Only the test's own thread counts: the workers allocate as they like. */
static _Thread_local bool armed;
static _Thread_local unsigned long calls, fail_at; /* fail_at 0: count only */

static bool fail_now(void)
{
	if (!armed)
		return false;
	calls++;
	if (fail_at && calls == fail_at) {
		errno = ENOMEM;
		return true;
	}
	return false;
}

void *__wrap_malloc(size_t n)
{
	return fail_now() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
	return fail_now() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
	return fail_now() ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
	return fail_now() ? NULL : __real_strdup(s);
}

static void arm(unsigned long at)
{
	calls = 0;
	fail_at = at;
	armed = true;
}

static void disarm(void)
{
	armed = false;
}

/* --- a runtime as main.c builds it -------------------------------------- */

static void rt_start(struct lbd_runtime *rt)
{
	unsigned i;

	memset(rt, 0, sizeof(*rt));
	assert_int_equal(sd_event_new(&rt->e), 0);
	rt->workers = calloc(NWORKERS, sizeof(*rt->workers));
	assert_non_null(rt->workers);
	for (rt->nworkers = 0; rt->nworkers < NWORKERS; rt->nworkers++)
		assert_int_equal(worker_init(&rt->workers[rt->nworkers], rt, rt->nworkers), 0);
	for (i = 0; i < rt->nworkers; i++)
		assert_int_equal(worker_start(&rt->workers[i]), 0);
}

static void rt_stop(struct lbd_runtime *rt)
{
	unsigned i;

	for (i = 0; i < rt->nworkers; i++)
		worker_post(&rt->workers[i], LBD_MSG_HARD_STOP, NULL, NULL, 0);
	for (i = 0; i < rt->nworkers; i++)
		worker_join(&rt->workers[i]);
	runtime_free(rt);
	free(rt->workers);
	sd_event_unref(rt->e);
}

/* Wait until every worker has handled what was posted to it so far: a
 * message that takes a server reference, which the worker gives back. */
static void rt_settle(struct lbd_runtime *rt, struct lbd_server *srv)
{
	struct timespec ts = { 0, 1000000 };
	int refs, tries;

	server_cut_sessions(rt, srv, "KD", false);
	for (tries = 0; tries < 10000; tries++) {
		pthread_mutex_lock(&srv->be->lock);
		refs = srv->refs;
		pthread_mutex_unlock(&srv->be->lock);
		if (refs == 1)
			return;
		nanosleep(&ts, NULL);
	}
	fail_msg("the workers did not answer");
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* --- configurations ----------------------------------------------------- */

static char ca[] = "/tmp/test_lbd_runtime.XXXXXX";
static unsigned port[3];

static unsigned free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	close(fd);
	return ntohs(a.sin_port);
}

#define HEAD                                                                                       \
	"global\n"                                                                                 \
	"    hard-stop-after 30s\n"                                                                \
	"defaults\n"                                                                               \
	"    mode tcp\n"                                                                           \
	"    timeout connect 1s\n"                                                                 \
	"    timeout client 10s\n"                                                                 \
	"    timeout server 10s\n"

/* A: two frontends, two backends. */
static struct lbd_config *cfg_a(void)
{
	struct cpha_msgs errs = { 0 };
	struct lbd_config *c = NULL;
	char text[4096];

	snprintf(text, sizeof(text),
		HEAD "frontend fe1\n"
		     "    bind 127.0.0.1:%u\n"
		     "    default_backend be1\n"
		     "frontend fe3\n"
		     "    bind 127.0.0.1:%u\n"
		     "    default_backend be3\n"
		     "backend be1\n"
		     "    server s1 127.0.0.1:1 check\n"
		     "    server s2 127.0.0.1:2 check\n"
		     "backend be3\n"
		     "    server t1 127.0.0.1:3 check\n",
		port[0], port[2]);
	assert_int_equal(lbd_cfg_load_mem("a.cfg", text, strlen(text), &c, &errs), 0);
	cpha_msgs_free(&errs);
	return c;
}

/* B: fe3 and be3 gone, s2 gone, fe2 (two binds, a log) and be2 (a stick
 * table) new, s3 and s4 new in be1, fe1 moved to be2, s1's options
 * changed. */
static struct lbd_config *cfg_b(void)
{
	struct cpha_msgs errs = { 0 };
	struct lbd_config *c = NULL;
	char text[4096];

	snprintf(text, sizeof(text),
		HEAD "frontend fe1\n"
		     "    bind 127.0.0.1:%u\n"
		     "    default_backend be2\n"
		     "frontend fe2\n"
		     "    bind 127.0.0.1:%u\n"
		     "    bind 127.0.0.2:%u\n"
		     "    log stdout format raw local0\n"
		     "    default_backend be1\n"
		     "backend be1\n"
		     "    balance leastconn\n"
		     "    server s1 127.0.0.1:1 check weight 5 ca-file %s\n"
		     "    server s3 127.0.0.1:4 check crt %s\n"
		     "    server s4 127.0.0.1:5 check disabled\n"
		     "backend be2\n"
		     "    stick-table type ip size 1k expire 10m\n"
		     "    stick on src\n"
		     "    server u1 127.0.0.1:6 check\n"
		     "    server u2 127.0.0.1:7\n",
		port[0], port[1], port[1], ca, ca);
	assert_int_equal(lbd_cfg_load_mem("b.cfg", text, strlen(text), &c, &errs), 0);
	cpha_msgs_free(&errs);
	return c;
}

/* --- what the runtime looks like ---------------------------------------- */

struct snap {
	char s[32768];
	size_t n;
};

static void __attribute__((format(printf, 2, 3))) add(struct snap *sn, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(sn->s + sn->n, sizeof(sn->s) - sn->n, fmt, ap);
	va_end(ap);
	assert_true(r >= 0 && (size_t)r < sizeof(sn->s) - sn->n);
	sn->n += (size_t)r;
}

static void snap_check(struct snap *sn, const struct lbd_check *c)
{
	int en = -1;

	if (!c) {
		add(sn, " nocheck");
		return;
	}
	if (c->timer)
		assert_true(sd_event_source_get_enabled(c->timer, &en) >= 0);
	add(sn, " check=%p stopped=%d timer=%d bcfg=%p", (const void *)c, c->stopped, en,
		(const void *)c->bcfg);
}

/* Every field a reload may touch, pointers included. */
static void snap_take(const struct lbd_runtime *rt, struct snap *sn)
{
	char a[CPHA_ADDR_STRLEN];
	size_t i, j;
	unsigned w;

	sn->n = 0;
	add(sn, "cfg=%p maxconn=%u doomed=%zu:", (const void *)rt->cfg, rt->maxconn, rt->ndoomed);
	for (i = 0; i < rt->ndoomed; i++)
		add(sn, " %p", (const void *)rt->doomed[i]);
	add(sn, "\n");
	for (i = 0; i < rt->nbackends; i++) {
		const struct lbd_backend_rt *be = rt->backends[i];

		add(sn, "backend %s %p removed=%d refs=%d algo=%d stick=%p servers=%p/%zu\n",
			be->name, (const void *)be, be->removed, be->refs, (int)be->algo,
			(const void *)be->stick, (const void *)be->servers, be->nservers);
		for (j = 0; j < be->nservers; j++) {
			const struct lbd_server *s = be->servers[j];

			add(sn, "  server %s %p id=%u addr=%s weight=%u check=%d ca=%s crt=%s",
				s->name, (const void *)s, s->id,
				cpha_addr_format(&s->addr, a, sizeof(a)), s->o.weight, s->o.check,
				s->o.ca_file ? s->o.ca_file : "-", s->o.crt ? s->o.crt : "-");
			add(sn, " up=%d admin=%d health=%u/%u/%u refs=%d removed=%d",
				(int)atomic_load(&s->up), (int)atomic_load(&s->admin),
				s->health.health, s->health.rise, s->health.fall, s->refs,
				s->removed);
			snap_check(sn, s->check);
			add(sn, "\n");
		}
	}
	for (i = 0; i < rt->nfrontends; i++) {
		const struct lbd_frontend_rt *fe = rt->frontends[i];
		struct lbd_fe_params *fp = atomic_load(&fe->params);

		add(sn, "frontend %s %p removed=%d params=%p be=%p log=%p\n", fe->name,
			(const void *)fe, fe->removed, (void *)fp, (void *)fp->be, (void *)fp->log);
	}
	for (i = 0; i < rt->nlisteners; i++) {
		const struct lbd_listener *l = rt->listeners[i];

		add(sn, "listener %s %p fe=%p fds", cpha_addr_format(&l->addr, a, sizeof(a)),
			(const void *)l, (void *)atomic_load(&l->fe));
		for (w = 0; w < rt->nworkers; w++)
			add(sn, " %d", l->fds[w]);
		add(sn, "\n");
	}
}

/* The armed check of a server: a timer waiting to fire. */
static void assert_checking(const struct lbd_server *s)
{
	int en = -1;

	assert_non_null(s->check);
	assert_false(s->check->stopped);
	assert_non_null(s->check->timer);
	assert_true(sd_event_source_get_enabled(s->check->timer, &en) >= 0);
	assert_int_equal(en, SD_EVENT_ONESHOT);
}

/* Apply next to rt, failing the 1st, 2nd, ... allocation until it goes
 * through; every failure must leave rt as it was. Returns the number of
 * failure points. */
static unsigned long apply_failing(struct lbd_runtime *rt, struct lbd_config *next)
{
	static struct snap before, after;
	unsigned long at;
	int fds, r = -1;

	rt_settle(rt, rt->backends[0]->servers[0]);
	snap_take(rt, &before);
	fds = count_fds();
	for (at = 1; at < MAX_POINTS; at++) {
		arm(at);
		r = runtime_apply(rt, next);
		disarm();
		if (r == 0)
			break;
		assert_int_equal(r, -ENOMEM);
		snap_take(rt, &after);
		if (strcmp(before.s, after.s) != 0) {
			print_error("allocation %lu failed: the runtime changed\n--- before\n%s"
				    "--- after\n%s",
				at, before.s, after.s);
			fail();
		}
		assert_int_equal(count_fds(), fds);
	}
	assert_int_equal(r, 0);
	assert_true(calls < at); /* the last round failed nothing */
	return at - 1;
}

/* --- tests -------------------------------------------------------------- */

static void test_reload_fails_at_every_allocation(void **state)
{
	struct lbd_runtime rt;
	struct lbd_server *s1, *s2;
	struct lbd_backend_rt *be1;
	unsigned long ab, ba;

	(void)state;
	rt_start(&rt);
	assert_int_equal(runtime_apply(&rt, cfg_a()), 0);
	be1 = runtime_backend(&rt, "be1");
	s1 = runtime_server(&rt, "be1", "s1");
	s2 = runtime_server(&rt, "be1", "s2");
	assert_non_null(s1);
	assert_checking(s1);
	s1->health.health = 1; /* state a reload must carry */
	atomic_fetch_add(&s1->cnt.sessions_total, 7);

	ab = apply_failing(&rt, cfg_b());
	print_message("A -> B: %lu allocation failures, each left the runtime as it was\n", ab);
	assert_true(ab > 30);
	/* B is live; what stayed kept its identity and state */
	assert_ptr_equal(runtime_backend(&rt, "be1"), be1);
	assert_ptr_equal(runtime_server(&rt, "be1", "s1"), s1);
	assert_int_equal(s1->health.health, 1);
	assert_int_equal(atomic_load(&s1->cnt.sessions_total), 7);
	assert_int_equal(s1->o.weight, 5);
	assert_string_equal(s1->o.ca_file, ca);
	assert_int_equal(be1->algo, LBD_BAL_LEASTCONN);
	assert_checking(s1);
	assert_checking(runtime_server(&rt, "be1", "s3"));
	assert_non_null(runtime_server(&rt, "be1", "s4")->check); /* maint: made, not run */
	assert_checking(runtime_server(&rt, "be2", "u1"));
	assert_null(runtime_server(&rt, "be1", "s2"));
	assert_null(runtime_backend(&rt, "be3"));
	assert_non_null(runtime_backend(&rt, "be2")->stick);
	assert_int_equal(rt.ndoomed, 1);
	assert_ptr_equal(rt.doomed[0], s2);
	assert_true(s2->removed);
	assert_int_equal(rt.nlisteners, 3);
	assert_int_equal(rt.nbackends, 2);
	assert_int_equal(rt.nfrontends, 3); /* fe3 is kept, removed, for its counters */

	ba = apply_failing(&rt, cfg_a());
	print_message("B -> A: %lu allocation failures, each left the runtime as it was\n", ba);
	assert_ptr_equal(runtime_server(&rt, "be1", "s1"), s1);
	assert_int_equal(s1->o.weight, 1);
	assert_null(s1->o.ca_file);
	assert_checking(s1);
	assert_checking(runtime_server(&rt, "be3", "t1"));
	assert_checking(runtime_server(&rt, "be1", "s2"));
	assert_null(runtime_backend(&rt, "be2"));
	assert_int_equal(rt.ndoomed, 3); /* s2 of A, s3 and s4 of B */
	assert_int_equal(rt.nlisteners, 2);
	assert_int_equal(rt.nfrontends, 3);
	rt_stop(&rt);
}

/* A bind that fails refuses the reload, sockets closed, nothing changed. */
static void test_reload_bind_fails(void **state)
{
	struct lbd_runtime rt;
	struct snap before, after;
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct lbd_config *b;
	int fd, fds;

	(void)state;
	rt_start(&rt);
	assert_int_equal(runtime_apply(&rt, cfg_a()), 0);
	/* someone else holds fe2's second address, without SO_REUSEPORT */
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	a.sin_addr.s_addr = inet_addr("127.0.0.2");
	a.sin_port = htons((uint16_t)port[1]);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fd, 1), 0);
	rt_settle(&rt, rt.backends[0]->servers[0]);
	snap_take(&rt, &before);
	fds = count_fds();
	b = cfg_b();
	assert_int_equal(runtime_apply(&rt, b), -EADDRINUSE);
	snap_take(&rt, &after);
	assert_string_equal(before.s, after.s);
	assert_int_equal(count_fds(), fds);
	assert_checking(runtime_server(&rt, "be1", "s2"));
	close(fd);
	assert_int_equal(runtime_apply(&rt, b), 0);
	assert_non_null(runtime_backend(&rt, "be2"));
	rt_stop(&rt);
}

/* Commit allocates nothing: the workers' messages (one per worker and
 * listener started or stopped) and the check objects with their timers were
 * made by prepare, so there is nothing left in commit that could fail. */
static void test_commit_allocations(void **state)
{
	struct lbd_runtime rt;
	struct lbd_runtime_plan *p;
	struct lbd_config *b;

	(void)state;
	rt_start(&rt);
	assert_int_equal(runtime_apply(&rt, cfg_a()), 0);
	b = cfg_b();
	assert_int_equal(runtime_prepare(&rt, b, &p), 0);
	arm(0);
	runtime_commit(&rt, p);
	disarm();
	assert_int_equal(calls, 0);
	/* a prepared plan may be dropped instead */
	assert_int_equal(runtime_prepare(&rt, b = cfg_a(), &p), 0);
	runtime_abandon(&rt, p);
	lbd_cfg_free(b);
	assert_non_null(runtime_backend(&rt, "be2"));
	rt_stop(&rt);
}

static int setup(void **state)
{
	int fd = mkstemp(ca);

	(void)state;
	if (fd < 0)
		return -1;
	close(fd);
	port[0] = free_port();
	port[1] = free_port();
	port[2] = free_port();
	cpha_log_set_level(LOG_CRIT); /* the failures are on purpose */
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(ca);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reload_fails_at_every_allocation),
		cmocka_unit_test(test_reload_bind_fails),
		cmocka_unit_test(test_commit_allocations),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
