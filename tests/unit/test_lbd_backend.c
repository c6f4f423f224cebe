/* lbd's backend choice for a hedge (backend_assign_other): another server
 * by the backend's algorithm, never the session's own, one it tried, a
 * down or full one; a slot is taken and given back. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend.h"
#include "balance.h"
#include "session-types.h"

#define NSRV 3

struct bed {
	struct lbd_backend_rt be;
	struct lbd_server srv[NSRV];
	struct lbd_server *ptr[NSRV];
	struct lbd_session s;
};

static void bed_init(struct bed *b, enum lbd_balance algo)
{
	size_t i;

	memset(b, 0, sizeof(*b));
	pthread_mutex_init(&b->be.lock, NULL);
	b->be.algo = algo;
	balance_init(&b->be.bal, algo, 1);
	cpha_list_init(&b->be.queue);
	for (i = 0; i < NSRV; i++) {
		b->srv[i].be = &b->be;
		b->srv[i].id = (unsigned)i + 1;
		b->srv[i].refs = 1; /* the backend's */
		b->srv[i].o.weight = 1;
		atomic_store(&b->srv[i].up, true);
		b->ptr[i] = &b->srv[i];
	}
	b->be.servers = b->ptr;
	b->be.nservers = NSRV;
}

static void bed_free(struct bed *b)
{
	pthread_mutex_destroy(&b->be.lock);
}

static void test_never_the_same_server(void **state)
{
	struct lbd_server *h;
	struct bed b;
	int i, seen[NSRV] = { 0 };

	(void)state;
	bed_init(&b, LBD_BAL_ROUNDROBIN);
	b.s.srv = &b.srv[0];
	for (i = 0; i < 20; i++) {
		assert_int_equal(backend_assign_other(&b.be, &b.s, 1, &h), 0);
		assert_ptr_not_equal(h, &b.srv[0]);
		seen[h - b.srv]++;
		assert_int_equal(h->cur, 1); /* a slot while the hedge runs */
		assert_int_equal(h->refs, 2);
		backend_release_server(&b.be, h);
		assert_int_equal(h->cur, 0);
		assert_int_equal(h->refs, 1);
	}
	/* round robin over the others */
	assert_int_equal(seen[0], 0);
	assert_int_equal(seen[1], 10);
	assert_int_equal(seen[2], 10);
	bed_free(&b);
}

static void test_skips_down_tried_and_full(void **state)
{
	struct lbd_server *h;
	struct bed b;

	(void)state;
	bed_init(&b, LBD_BAL_LEASTCONN);
	b.s.srv = &b.srv[0];
	atomic_store(&b.srv[1].up, false);
	assert_int_equal(backend_assign_other(&b.be, &b.s, 1, &h), 0);
	assert_ptr_equal(h, &b.srv[2]);
	backend_release_server(&b.be, h);
	/* s3 tried already: nowhere else to go */
	b.s.tried[3 / 8] |= 1u << 3;
	assert_int_equal(backend_assign_other(&b.be, &b.s, 1, &h), BALANCE_NONE);
	assert_null(h);
	/* s2 up again but full: no hedge (a hedge never queues) */
	memset(b.s.tried, 0, sizeof(b.s.tried));
	atomic_store(&b.srv[1].up, true);
	atomic_store(&b.srv[2].admin, LBD_ADMIN_MAINT);
	b.srv[1].o.maxconn = 1;
	b.srv[1].cur = 1;
	assert_int_equal(backend_assign_other(&b.be, &b.s, 1, &h), BALANCE_FULL);
	/* the session's own server is never the answer, even when alone */
	b.srv[1].cur = 0;
	atomic_store(&b.srv[1].up, false);
	assert_int_equal(backend_assign_other(&b.be, &b.s, 1, &h), BALANCE_NONE);
	assert_int_equal(b.srv[0].cur, 0);
	bed_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_never_the_same_server),
		cmocka_unit_test(test_skips_down_tried_and_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
