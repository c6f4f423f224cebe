#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "balance.h"

static void up(struct balance_srv *s, size_t n, unsigned weight)
{
	size_t i;

	memset(s, 0, n * sizeof(*s));
	for (i = 0; i < n; i++) {
		s[i].usable = true;
		s[i].weight = weight;
	}
}

static void test_roundrobin_even_and_weighted(void **state)
{
	struct balance_state b;
	struct balance_srv s[3];
	int count[3] = { 0 }, i, prev = -1;

	(void)state;
	balance_init(&b, LBD_BAL_ROUNDROBIN, 1);
	up(s, 3, 1);
	for (i = 0; i < 30; i++) {
		int p = balance_pick(&b, s, 3, NULL);

		assert_true(p >= 0);
		assert_int_not_equal(p, prev); /* equal weights alternate */
		prev = p;
		count[p]++;
	}
	assert_int_equal(count[0], 10);
	assert_int_equal(count[1], 10);
	assert_int_equal(count[2], 10);

	up(s, 3, 1);
	s[0].weight = 3;
	memset(count, 0, sizeof(count));
	for (i = 0; i < 50; i++)
		count[balance_pick(&b, s, 3, NULL)]++;
	assert_int_equal(count[0], 30);
	assert_int_equal(count[1], 10);
	assert_int_equal(count[2], 10);
}

static void test_skips_unusable_full_and_weight_zero(void **state)
{
	struct balance_state b;
	struct balance_srv s[3];
	int i;

	(void)state;
	balance_init(&b, LBD_BAL_ROUNDROBIN, 1);
	up(s, 3, 1);
	s[0].usable = false;
	s[1].weight = 0;
	for (i = 0; i < 5; i++)
		assert_int_equal(balance_pick(&b, s, 3, NULL), 2);
	s[2].maxconn = 4;
	s[2].cur = 4;
	assert_int_equal(balance_pick(&b, s, 3, NULL), BALANCE_FULL);
	s[2].usable = false;
	assert_int_equal(balance_pick(&b, s, 3, NULL), BALANCE_NONE);
}

static void test_backup_only_when_no_primary(void **state)
{
	struct balance_state b;
	struct balance_srv s[4];

	(void)state;
	balance_init(&b, LBD_BAL_ROUNDROBIN, 1);
	up(s, 4, 1);
	s[2].backup = s[3].backup = true;
	for (int i = 0; i < 6; i++)
		assert_true(balance_pick(&b, s, 4, NULL) < 2);
	s[0].usable = s[1].usable = false;
	assert_int_equal(balance_pick(&b, s, 4, NULL), 2); /* first backup only */
	assert_int_equal(balance_pick(&b, s, 4, NULL), 2);
	s[2].usable = false;
	assert_int_equal(balance_pick(&b, s, 4, NULL), 3);
	/* a full primary queues rather than spilling to the backups */
	s[0].usable = true;
	s[0].maxconn = 1;
	s[0].cur = 1;
	assert_int_equal(balance_pick(&b, s, 4, NULL), BALANCE_FULL);
}

static void test_leastconn(void **state)
{
	struct balance_state b;
	struct balance_srv s[3];
	int count[3] = { 0 }, i;

	(void)state;
	balance_init(&b, LBD_BAL_LEASTCONN, 1);
	up(s, 3, 1);
	s[0].cur = 5;
	s[1].cur = 2;
	s[2].cur = 7;
	assert_int_equal(balance_pick(&b, s, 3, NULL), 1);
	s[1].weight = 1;
	s[0].weight = 4; /* 5/4 < 2/1 */
	assert_int_equal(balance_pick(&b, s, 3, NULL), 0);
	/* ties rotate instead of always hitting the first */
	up(s, 3, 1);
	for (i = 0; i < 9; i++)
		count[balance_pick(&b, s, 3, NULL)]++;
	assert_int_equal(count[0], 3);
	assert_int_equal(count[1], 3);
	assert_int_equal(count[2], 3);
}

static void test_first(void **state)
{
	struct balance_state b;
	struct balance_srv s[3];

	(void)state;
	balance_init(&b, LBD_BAL_FIRST, 1);
	up(s, 3, 1);
	s[0].maxconn = s[1].maxconn = 2;
	assert_int_equal(balance_pick(&b, s, 3, NULL), 0);
	s[0].cur = 2;
	assert_int_equal(balance_pick(&b, s, 3, NULL), 1);
	s[1].cur = 2;
	assert_int_equal(balance_pick(&b, s, 3, NULL), 2);
}

static struct sockaddr_in client(const char *ip)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(40000) };

	inet_pton(AF_INET, ip, &sin.sin_addr);
	return sin;
}

static void test_source_affinity(void **state)
{
	struct balance_state b;
	struct balance_srv s[3];
	struct sockaddr_in c;
	char ip[32];
	int seen[3] = { 0 }, first, i;

	(void)state;
	balance_init(&b, LBD_BAL_SOURCE, 1);
	up(s, 3, 1);
	c = client("198.18.0.50");
	first = balance_pick(&b, s, 3, (struct sockaddr *)&c);
	for (i = 0; i < 20; i++) {
		c.sin_port = htons((uint16_t)(40000 + i)); /* the port does not matter */
		assert_int_equal(balance_pick(&b, s, 3, (struct sockaddr *)&c), first);
	}
	for (i = 1; i < 200; i++) {
		snprintf(ip, sizeof(ip), "198.18.1.%d", i);
		c = client(ip);
		seen[balance_pick(&b, s, 3, (struct sockaddr *)&c)]++;
	}
	for (i = 0; i < 3; i++)
		assert_true(seen[i] > 30); /* clients spread over all servers */
	c = client("198.18.0.50");
	s[first].cur = 1;
	s[first].maxconn = 1;
	assert_int_equal(balance_pick(&b, s, 3, (struct sockaddr *)&c), BALANCE_FULL);
}

static void test_random_weighted(void **state)
{
	struct balance_state b;
	struct balance_srv s[2];
	int count[2] = { 0 }, i;

	(void)state;
	balance_init(&b, LBD_BAL_RANDOM, 42);
	up(s, 2, 1);
	s[1].weight = 3;
	for (i = 0; i < 4000; i++)
		count[balance_pick(&b, s, 2, NULL)]++;
	assert_true(count[1] > 2 * count[0]);
	assert_true(count[0] > 700);
}

static void test_slowstart(void **state)
{
	(void)state;
	assert_int_equal(balance_slowstart_weight(100, 0, 60000000), 1);
	assert_int_equal(balance_slowstart_weight(100, 30000000, 60000000), 50);
	assert_int_equal(balance_slowstart_weight(100, 60000000, 60000000), 100);
	assert_int_equal(balance_slowstart_weight(100, 5, 0), 100);
	assert_int_equal(balance_slowstart_weight(0, 5, 10), 0);
	assert_int_equal(balance_slowstart_maxconn(250, 0, 60000000), 1);
	assert_int_equal(balance_slowstart_maxconn(250, 30000000, 60000000), 125);
	assert_int_equal(balance_slowstart_maxconn(0, 30000000, 60000000), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundrobin_even_and_weighted),
		cmocka_unit_test(test_skips_unusable_full_and_weight_zero),
		cmocka_unit_test(test_backup_only_when_no_primary),
		cmocka_unit_test(test_leastconn),
		cmocka_unit_test(test_first),
		cmocka_unit_test(test_source_affinity),
		cmocka_unit_test(test_random_weighted),
		cmocka_unit_test(test_slowstart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
