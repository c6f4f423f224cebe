/* lbd's stick tables (stick.c): hits and misses, expiry over simulated
 * time, purging when full, IPv4 and IPv6 keys; and the stick-table and
 * stick lines of the configuration (cfg_stick.c). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "cfg.h"
#include "duration.h"
#include "lbd_cfg_test.h"
#include "stick.h"

static const struct sockaddr *sa_of(const char *ip)
{
	static struct sockaddr_storage ss[4];
	static unsigned k;
	struct sockaddr_storage *s = &ss[k++ % 4];

	memset(s, 0, sizeof(*s));
	if (strchr(ip, ':')) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)s;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(40000);
		assert_int_equal(inet_pton(AF_INET6, ip, &a->sin6_addr), 1);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)s;

		a->sin_family = AF_INET;
		a->sin_port = htons(40000);
		assert_int_equal(inet_pton(AF_INET, ip, &a->sin_addr), 1);
	}
	return (const struct sockaddr *)s;
}

static void test_hit_and_miss(void **state)
{
	struct stick_table *t = stick_new(AF_INET, 100, 0, false);
	unsigned id = 0;

	(void)state;
	assert_non_null(t);
	assert_int_equal(stick_lookup(t, sa_of("198.18.0.1"), 1, &id), 0);
	assert_int_equal(stick_store(t, sa_of("198.18.0.1"), 2, 1), 0);
	assert_int_equal(stick_store(t, sa_of("198.18.0.2"), 3, 1), 0);
	assert_int_equal(stick_lookup(t, sa_of("198.18.0.1"), 2, &id), 1);
	assert_int_equal(id, 2);
	assert_int_equal(stick_lookup(t, sa_of("198.18.0.2"), 2, &id), 1);
	assert_int_equal(id, 3);
	assert_int_equal(stick_lookup(t, sa_of("198.18.0.3"), 2, &id), 0);
	/* a store updates the server; the port does not matter */
	assert_int_equal(stick_store(t, sa_of("198.18.0.1"), 1, 3), 0);
	assert_int_equal(stick_lookup(t, sa_of("198.18.0.1"), 4, &id), 1);
	assert_int_equal(id, 1);
	assert_int_equal(stick_used(t, 4), 2);
	/* no expire: an entry stays however long */
	assert_int_equal(
		stick_lookup(t, sa_of("198.18.0.2"), 100 * CPHA_USEC_PER_SEC * 86400, &id), 1);
	stick_free(t);
	stick_free(NULL);
	assert_null(stick_new(AF_INET, 0, 0, false));
	assert_null(stick_new(AF_UNIX, 10, 0, false));
}

static void test_expiry(void **state)
{
	uint64_t s = CPHA_USEC_PER_SEC;
	struct stick_table *t = stick_new(AF_INET, 100, 3 * s, false);
	unsigned id = 0;

	(void)state;
	assert_int_equal(stick_store(t, sa_of("198.18.0.1"), 1, 10 * s), 0);
	assert_int_equal(stick_store(t, sa_of("198.18.0.2"), 2, 10 * s), 0);
	/* a match refreshes the entry: 198.18.0.1 lives on */
	assert_int_equal(stick_lookup(t, sa_of("198.18.0.1"), 12 * s, &id), 1);
	assert_int_equal(stick_used(t, 12 * s + s / 2), 2);
	assert_int_equal(stick_lookup(t, sa_of("198.18.0.2"), 13 * s, &id), 0);
	assert_int_equal(stick_lookup(t, sa_of("198.18.0.1"), 14 * s, &id), 1);
	assert_int_equal(id, 1);
	assert_int_equal(stick_used(t, 14 * s), 1);
	/* three seconds without use: gone */
	assert_int_equal(stick_used(t, 17 * s), 0);
	assert_int_equal(stick_lookup(t, sa_of("198.18.0.1"), 17 * s, &id), 0);
	stick_free(t);
}

struct walked {
	char keys[8][64];
	unsigned ids[8];
	uint64_t left[8];
	size_t n;
};

static void walk_fn(void *arg, const char *key, unsigned srv_id, uint64_t left, uintptr_t id)
{
	struct walked *w = arg;

	assert_true(id != 0);
	if (w->n < 8) {
		snprintf(w->keys[w->n], sizeof(w->keys[w->n]), "%s", key);
		w->ids[w->n] = srv_id;
		w->left[w->n++] = left;
	}
}

static void test_purge_when_full(void **state)
{
	struct stick_table *t = stick_new(AF_INET, 3, 0, false), *np;
	struct walked w = { 0 };
	unsigned id = 0;

	(void)state;
	assert_int_equal(stick_store(t, sa_of("198.18.0.1"), 1, 1), 0);
	assert_int_equal(stick_store(t, sa_of("198.18.0.2"), 2, 2), 0);
	assert_int_equal(stick_store(t, sa_of("198.18.0.3"), 3, 3), 0);
	/* .1 is used again: .2 becomes the oldest */
	assert_int_equal(stick_lookup(t, sa_of("198.18.0.1"), 4, &id), 1);
	assert_int_equal(stick_store(t, sa_of("198.18.0.4"), 1, 5), 0);
	assert_int_equal(stick_used(t, 5), 3);
	assert_int_equal(stick_lookup(t, sa_of("198.18.0.2"), 6, &id), 0);
	assert_int_equal(stick_lookup(t, sa_of("198.18.0.1"), 6, &id), 1);
	assert_int_equal(stick_lookup(t, sa_of("198.18.0.3"), 6, &id), 1);
	assert_int_equal(stick_lookup(t, sa_of("198.18.0.4"), 6, &id), 1);
	stick_walk(t, 7, walk_fn, &w);
	assert_int_equal(w.n, 3);
	assert_string_equal(w.keys[0], "198.18.0.1");
	assert_string_equal(w.keys[2], "198.18.0.4");
	assert_int_equal(w.ids[2], 1);
	assert_int_equal(w.left[0], 0);
	stick_free(t);

	/* nopurge: a full table takes nothing new, keeps what it has */
	np = stick_new(AF_INET, 2, 0, true);
	assert_true(stick_nopurge(np));
	assert_int_equal(stick_store(np, sa_of("198.18.0.1"), 1, 1), 0);
	assert_int_equal(stick_store(np, sa_of("198.18.0.2"), 2, 2), 0);
	assert_int_equal(stick_store(np, sa_of("198.18.0.3"), 3, 3), -1);
	assert_int_equal(stick_store(np, sa_of("198.18.0.1"), 2, 4), 0); /* update is fine */
	assert_int_equal(stick_lookup(np, sa_of("198.18.0.1"), 5, &id), 1);
	assert_int_equal(id, 2);
	assert_int_equal(stick_lookup(np, sa_of("198.18.0.3"), 5, &id), 0);
	stick_free(np);
}

static void test_many(void **state)
{
	struct stick_table *t = stick_new(AF_INET, 1000, 0, false);
	char ip[32];
	unsigned i, id;

	(void)state;
	for (i = 0; i < 1500; i++) {
		snprintf(ip, sizeof(ip), "198.18.%u.%u", i / 250, i % 250);
		assert_int_equal(stick_store(t, sa_of(ip), i, i + 1), 0);
	}
	assert_int_equal(stick_used(t, 2000), 1000);
	for (i = 0; i < 1500; i++) {
		snprintf(ip, sizeof(ip), "198.18.%u.%u", i / 250, i % 250);
		assert_int_equal(stick_lookup(t, sa_of(ip), 2000 + i, &id), i >= 500);
		if (i >= 500)
			assert_int_equal(id, i);
	}
	stick_free(t);
}

static void test_ipv6(void **state)
{
	struct stick_table *t6 = stick_new(AF_INET6, 10, 0, false);
	struct stick_table *t4 = stick_new(AF_INET, 10, 0, false);
	struct walked w = { 0 };
	unsigned id = 0;

	(void)state;
	assert_int_equal(stick_store(t6, sa_of("2001:db8::1"), 1, 1), 0);
	assert_int_equal(stick_store(t6, sa_of("2001:db8::2"), 2, 1), 0);
	assert_int_equal(stick_lookup(t6, sa_of("2001:db8::1"), 2, &id), 1);
	assert_int_equal(id, 1);
	assert_int_equal(stick_lookup(t6, sa_of("2001:db8::3"), 2, &id), 0);
	/* an IPv6 table keys IPv4 clients as IPv4-mapped addresses */
	assert_int_equal(stick_store(t6, sa_of("198.18.0.1"), 3, 3), 0);
	assert_int_equal(stick_lookup(t6, sa_of("::ffff:198.18.0.1"), 4, &id), 1);
	assert_int_equal(id, 3);
	stick_walk(t6, 5, walk_fn, &w);
	assert_int_equal(w.n, 3);
	assert_string_equal(w.keys[0], "2001:db8::2");
	assert_string_equal(w.keys[2], "::ffff:198.18.0.1");
	/* an IPv4 table takes IPv4-mapped addresses, not other IPv6 ones */
	assert_int_equal(stick_store(t4, sa_of("::ffff:198.18.0.9"), 4, 1), 0);
	assert_int_equal(stick_lookup(t4, sa_of("198.18.0.9"), 2, &id), 1);
	assert_int_equal(id, 4);
	assert_int_equal(stick_store(t4, sa_of("2001:db8::1"), 1, 1), -1);
	assert_int_equal(stick_lookup(t4, sa_of("2001:db8::1"), 1, &id), -1);
	assert_int_equal(stick_lookup(t4, NULL, 1, &id), -1);
	stick_free(t6);
	stick_free(t4);
}

#define STICK_BE(lines)                                                                            \
	TCP_DEFAULTS "frontend f\n"                                                                \
		     "    bind 127.0.0.1:18400\n"                                                  \
		     "    default_backend b\n"                                                     \
		     "backend b\n" lines "    server s1 127.0.0.1:18401\n"

static void test_cfg_parsed(void **state)
{
	struct lbd_config *c;
	const struct lbd_stick_cfg *st;

	(void)state;
	c = load_ok(STICK_BE("    stick-table type ip size 200k expire 30m\n"
			     "    stick on src\n"));
	st = &c->backends[0].stick;
	assert_int_equal(st->family, AF_INET);
	assert_int_equal(st->size, 200 * 1024);
	assert_int_equal(st->expire, 30ull * 60 * CPHA_USEC_PER_SEC);
	assert_int_equal(st->nopurge, 0);
	assert_true(st->match && st->store);
	assert_int_equal(st->line, 10);
	lbd_cfg_free(c);

	c = load_ok(STICK_BE(
		"    stick match src table b\n"
		"    stick-table type ipv6 size 1m nopurge store server_id srvkey addr\n"));
	st = &c->backends[0].stick;
	assert_int_equal(st->family, AF_INET6);
	assert_int_equal(st->size, 1024 * 1024);
	assert_int_equal(st->expire, 0);
	assert_int_equal(st->nopurge, 1);
	assert_true(st->match && !st->store);
	lbd_cfg_free(c);

	c = load_ok(STICK_BE("    stick-table type ip size 10\n"
			     "    stick store-request src if TRUE\n"
			     "    stick match src unless TRUE\n"));
	st = &c->backends[0].stick;
	assert_true(!st->match && st->store);
	lbd_cfg_free(c);

	/* a listen section holds its own table */
	c = load_ok(TCP_DEFAULTS "listen l\n"
				 "    bind 127.0.0.1:18400\n"
				 "    stick-table type ip size 10 expire 3s\n"
				 "    stick on src\n"
				 "    server s1 127.0.0.1:18401\n");
	assert_int_equal(c->backends[0].stick.expire, 3 * CPHA_USEC_PER_SEC);
	lbd_cfg_free(c);

	expect_notice(STICK_BE("    stick-table type ip size 10\n"),
		"t.cfg:10: stick-table of backend 'b' is used by no 'stick' rule");
}

static void test_cfg_errors(void **state)
{
	(void)state;
	expect_error(STICK_BE("    stick on src\n"),
		"t.cfg:10: 'stick': backend 'b' has no stick-table");
	expect_error(STICK_BE("    stick-table type string len 32 size 10\n    stick on src\n"),
		"t.cfg:10: 'stick-table type string' is not supported by lbd");
	expect_error(STICK_BE("    stick-table type ip size 10 store conn_cur\n    stick on src\n"),
		"t.cfg:10: 'stick-table store conn_cur' is not supported by lbd");
	expect_error(STICK_BE("    stick-table type ip size 10 peers p\n    stick on src\n"),
		"t.cfg:10: 'stick-table peers p' is not supported by lbd");
	expect_error(STICK_BE("    stick-table type ip expire 3s\n    stick on src\n"),
		"t.cfg:10: 'stick-table' needs a size");
	expect_error(STICK_BE("    stick-table size 10\n    stick on src\n"),
		"t.cfg:10: 'stick-table' needs a type");
	expect_error(STICK_BE("    stick-table type ip size 10x\n    stick on src\n"),
		"t.cfg:10: 'stick-table size' needs a number");
	expect_error(STICK_BE("    stick-table type ip size 10 expire soon\n    stick on src\n"),
		"t.cfg:10: 'stick-table expire'");
	expect_error(STICK_BE("    stick-table type ip size 10 srvkey id\n    stick on src\n"),
		"t.cfg:10: 'stick-table srvkey' must be name or addr, not 'id'");
	expect_error(STICK_BE("    stick-table type ip size 10 color red\n    stick on src\n"),
		"t.cfg:10: 'stick-table': unknown argument 'color'");
	expect_error(STICK_BE("    stick-table type ip size 10\n    stick-table type ip size 9\n"),
		"t.cfg:11: only one 'stick-table' per section");
	expect_error(STICK_BE("    stick-table type ip size 10\n    stick on src_port\n"),
		"t.cfg:11: 'stick on src_port' is not supported by lbd");
	expect_error(STICK_BE("    stick-table type ip size 10\n    stick on src table other\n"),
		"t.cfg:11: 'stick on src table other' is not supported by lbd");
	expect_error(STICK_BE("    stick-table type ip size 10\n    stick on src if { src "
			      "198.18.0.1 }\n"),
		"t.cfg:11: 'stick on src if ...': conditions are not supported by lbd");
	expect_error(STICK_BE("    stick-table type ip size 10\n    stick store-response src\n"),
		"t.cfg:11: 'stick store-response' is not supported by lbd");
	expect_error(STICK_BE("    stick-table type ip size 10\n    stick onto src\n"),
		"t.cfg:11: 'stick onto': unknown rule");
	expect_error(TCP_DEFAULTS "    stick on src\n",
		"t.cfg:6: 'stick' is not allowed in a defaults section");
	expect_error(TCP_DEFAULTS "frontend f\n    bind 127.0.0.1:1\n    default_backend b\n"
				  "    stick-table type ip size 10\n"
				  "backend b\n    server s 127.0.0.1:2\n",
		"t.cfg:9: 'stick-table' is not allowed in a frontend section");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hit_and_miss),
		cmocka_unit_test(test_expiry),
		cmocka_unit_test(test_purge_when_full),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_ipv6),
		cmocka_unit_test(test_cfg_parsed),
		cmocka_unit_test(test_cfg_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
