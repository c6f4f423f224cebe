/* Snapshot names and retention (snapshot_keep.c): which names are
 * snapshots, their times, and which K stay. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "snapshot_keep.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The names chosen for deletion, in the order given, joined by spaces. */
static const char *chosen(const char *const *names, size_t n, unsigned keep, const char *protect)
{
	static char out[4096];
	size_t del[64], k;

	assert_true(n <= N(del));
	k = snapshot_keep(names, n, keep, protect, del);
	out[0] = '\0';
	for (size_t i = 0; i < k; i++) {
		assert_true(del[i] < n);
		if (i)
			strcat(out, " ");
		strcat(out, names[del[i]]);
	}
	return out;
}

static void names_and_times(void **state)
{
	int64_t t = -1;
	char buf[SNAPSHOT_NAME_LEN + 1];

	(void)state;
	assert_true(snapshot_name_time("etcd-snapshot-19700101T000000Z.db", &t));
	assert_int_equal(t, 0);
	assert_true(snapshot_name_time("etcd-snapshot-20261129T210216Z.db", &t));
	assert_int_equal(t, 1795986136);
	assert_true(snapshot_name_time("etcd-snapshot-20240229T235959Z.db", &t)); /* leap day */
	assert_int_equal(t, 1709251199);
	assert_string_equal(
		snapshot_name(1795986136, buf, sizeof(buf)), "etcd-snapshot-20261129T210216Z.db");
	assert_string_equal(
		snapshot_name(0, buf, sizeof(buf)), "etcd-snapshot-19700101T000000Z.db");
	assert_string_equal(
		snapshot_name(-1, buf, sizeof(buf)), "etcd-snapshot-19691231T235959Z.db");
	assert_null(snapshot_name(0, buf, sizeof(buf) - 1));
	assert_null(snapshot_name(253402300800LL, buf, sizeof(buf))); /* year 10000 */
	/* every name round-trips over some years, across leap days */
	for (int64_t s = 946684800; s < 1893456000; s += 86400 * 7 + 3601) {
		assert_non_null(snapshot_name(s, buf, sizeof(buf)));
		assert_true(snapshot_name_time(buf, &t));
		assert_int_equal(t, s);
	}
}

static void malformed_names(void **state)
{
	static const char *const bad[] = {
		"etcd-snapshot-20261329T000000Z.db", /* month 13 */
		"etcd-snapshot-20260029T000000Z.db", /* month 0 */
		"etcd-snapshot-20260230T000000Z.db", /* 30 February */
		"etcd-snapshot-20250229T000000Z.db", /* not a leap year */
		"etcd-snapshot-21000229T000000Z.db", /* nor is 2100 */
		"etcd-snapshot-20260100T000000Z.db", /* day 0 */
		"etcd-snapshot-20260101T240000Z.db", /* hour 24 */
		"etcd-snapshot-20260101T006000Z.db", /* minute 60 */
		"etcd-snapshot-20260101T000060Z.db", /* second 60 */
		"etcd-snapshot-20260101T000000.db",  /* no Z */
		"etcd-snapshot-20260101 000000Z.db", /* no T */
		"etcd-snapshot-2026010T1000000Z.db", /* T misplaced */
		"etcd-snapshot-2026-1-01T00000Z.db", /* not digits */
		"etcd-snapshot-20260101T000000Z.db.sha256",
		"etcd-snapshot-20260101T000000Z.dbx",
		".etcd-snapshot-20260101T000000Z.db.part",
		"etcd-snapshot-20260101T000000Z",
		"xtcd-snapshot-20260101T000000Z.db",
		"etcd-snapshot-+0260101T000000Z.db",
		"",
	};

	(void)state;
	for (size_t i = 0; i < N(bad); i++) {
		int64_t t = 42;

		if (snapshot_name_time(bad[i], &t))
			fail_msg("'%s' taken for a snapshot's name", bad[i]);
		assert_int_equal(t, 42);
	}
	assert_true(snapshot_name_time("etcd-snapshot-20000229T000000Z.db", NULL));
}

/* The newest K stay, whatever the order of the directory's listing. */
static void newest_kept(void **state)
{
	static const char *const names[] = {
		"etcd-snapshot-20261129T100000Z.db",
		"etcd-snapshot-20261129T090000Z.db",
		"etcd-snapshot-20261130T000000Z.db",
		"etcd-snapshot-20251231T235959Z.db",
		"etcd-snapshot-20261129T095959Z.db",
	};

	(void)state;
	assert_string_equal(chosen(names, N(names), 3, NULL),
		"etcd-snapshot-20251231T235959Z.db etcd-snapshot-20261129T090000Z.db");
	assert_string_equal(chosen(names, N(names), 1, NULL),
		"etcd-snapshot-20251231T235959Z.db etcd-snapshot-20261129T090000Z.db "
		"etcd-snapshot-20261129T095959Z.db etcd-snapshot-20261129T100000Z.db");
	assert_string_equal(chosen(names, N(names), 4, NULL), "etcd-snapshot-20251231T235959Z.db");
}

/* Sidecars, the partial file, other files and bad dates are not snapshots:
 * they are neither deleted nor counted. */
static void foreign_ignored(void **state)
{
	static const char *const names[] = {
		"notes.txt",
		"etcd-snapshot-20261129T100000Z.db.sha256",
		"etcd-snapshot-20261129T100000Z.db",
		".etcd-snapshot-20261129T110000Z.db.part",
		"etcd-snapshot-20261129T090000Z.db",
		"etcd-snapshot-20261129T090000Z.db.sha256",
		"etcd-snapshot-20261329T000000Z.db", /* month 13 */
		"etcd-snapshot-20261129T080000Z.db",
		"etcd-snapshot-latest.db",
		"..",
		".",
	};

	(void)state;
	assert_string_equal(chosen(names, N(names), 2, NULL), "etcd-snapshot-20261129T080000Z.db");
	assert_string_equal(chosen(names, N(names), 1, NULL),
		"etcd-snapshot-20261129T080000Z.db etcd-snapshot-20261129T090000Z.db");
	/* with month 13 counted it would be kept as the newest, or deleted */
	assert_string_equal(chosen(names, N(names), 3, NULL), "");
}

static void keep_more_than_there_are(void **state)
{
	static const char *const names[] = {
		"etcd-snapshot-20261129T100000Z.db",
		"etcd-snapshot-20261129T090000Z.db",
		"other",
	};
	size_t del[3] = { 7, 7, 7 };

	(void)state;
	assert_string_equal(chosen(names, N(names), 2, NULL), "");
	assert_string_equal(chosen(names, N(names), 3, NULL), "");
	assert_string_equal(chosen(names, N(names), 100000, NULL), "");
	assert_int_equal(snapshot_keep(names, 0, 1, NULL, del), 0);
	assert_int_equal(del[0], 7);
}

/* A name listed twice is one snapshot: never deleted when it is kept (that
 * would delete the kept file), and chosen once when it goes. */
static void equal_names(void **state)
{
	static const char *const twice_newest[] = {
		"etcd-snapshot-20261129T100000Z.db",
		"etcd-snapshot-20261129T090000Z.db",
		"etcd-snapshot-20261129T100000Z.db",
	};
	static const char *const twice_oldest[] = {
		"etcd-snapshot-20261129T080000Z.db",
		"etcd-snapshot-20261129T100000Z.db",
		"etcd-snapshot-20261129T080000Z.db",
		"etcd-snapshot-20261129T090000Z.db",
	};

	(void)state;
	assert_string_equal(chosen(twice_newest, N(twice_newest), 1, NULL),
		"etcd-snapshot-20261129T090000Z.db");
	assert_string_equal(chosen(twice_newest, N(twice_newest), 2, NULL), "");
	assert_string_equal(chosen(twice_oldest, N(twice_oldest), 2, NULL),
		"etcd-snapshot-20261129T080000Z.db");
	assert_string_equal(chosen(twice_oldest, N(twice_oldest), 3, NULL), "");
}

/* The snapshot just taken stays even when the others look newer (the
 * clock went back), and it is one of the K. */
static void protected_kept(void **state)
{
	static const char *const names[] = {
		"etcd-snapshot-20261129T100000Z.db",
		"etcd-snapshot-20261129T090000Z.db",
		"etcd-snapshot-20261129T080000Z.db",
		"etcd-snapshot-20261129T070000Z.db",
	};
	const char *just = "etcd-snapshot-20261129T070000Z.db";

	(void)state;
	assert_string_equal(chosen(names, N(names), 1, just),
		"etcd-snapshot-20261129T080000Z.db etcd-snapshot-20261129T090000Z.db "
		"etcd-snapshot-20261129T100000Z.db");
	assert_string_equal(chosen(names, N(names), 2, just),
		"etcd-snapshot-20261129T080000Z.db etcd-snapshot-20261129T090000Z.db");
	/* as the newest it is just one of the K */
	assert_string_equal(chosen(names, N(names), 2, "etcd-snapshot-20261129T100000Z.db"),
		"etcd-snapshot-20261129T070000Z.db etcd-snapshot-20261129T080000Z.db");
	/* not yet listed: it still counts */
	assert_string_equal(chosen(names, N(names), 3, "etcd-snapshot-20261129T110000Z.db"),
		"etcd-snapshot-20261129T070000Z.db etcd-snapshot-20261129T080000Z.db");
	/* not a snapshot's name: nothing protected */
	assert_string_equal(
		chosen(names, N(names), 3, "other"), "etcd-snapshot-20261129T070000Z.db");
}

/* Partial files left by a killed run: ours and etcdctl's own. */
static void part_names(void **state)
{
	(void)state;
	assert_true(snapshot_part_name(".etcd-snapshot-20261129T100000Z.db.part"));
	assert_true(snapshot_part_name(".etcd-snapshot-20261129T100000Z.db.part.part"));
	assert_false(snapshot_part_name("etcd-snapshot-20261129T100000Z.db.part"));
	assert_false(snapshot_part_name(".etcd-snapshot-20261329T100000Z.db.part"));
	assert_false(snapshot_part_name(".etcd-snapshot-20261129T100000Z.db.partx"));
	assert_false(snapshot_part_name(".etcd-snapshot-20261129T100000Z.db"));
	assert_false(snapshot_part_name(".part"));
	assert_false(snapshot_part_name("."));
}

#define HEX "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

static void sidecars(void **state)
{
	char buf[200], hex[65], name[64];
	const char *why = NULL;

	(void)state;
	assert_int_equal(
		snapshot_sidecar_text(HEX, "etcd-snapshot-20261129T100000Z.db", buf, sizeof(buf)),
		0);
	assert_string_equal(buf, HEX "  etcd-snapshot-20261129T100000Z.db\n");
	assert_int_equal(snapshot_sidecar_parse(buf, hex, name, sizeof(name), &why), 0);
	assert_string_equal(hex, HEX);
	assert_string_equal(name, "etcd-snapshot-20261129T100000Z.db");
	/* binary mark, upper case, no newline */
	assert_int_equal(snapshot_sidecar_parse("9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD1"
						"5D6C15B0F00A08 *a b",
				 hex, name, sizeof(name), &why),
		0);
	assert_string_equal(hex, HEX);
	assert_string_equal(name, "a b");
	static const char *const bad[] = {
		"",
		"9f86d0  x\n",
		HEX " x\n",
		HEX "  \n",
		HEX "\n",
		"g" HEX "  x\n",
		HEX "  x\n" HEX "  y\n",
	};
	for (size_t i = 0; i < N(bad); i++) {
		why = NULL;
		assert_int_equal(snapshot_sidecar_parse(bad[i], hex, name, sizeof(name), &why), -1);
		assert_non_null(why);
	}
	assert_int_equal(snapshot_sidecar_parse(HEX "  0123456789", hex, name, 10, &why), -1);
	assert_int_equal(snapshot_sidecar_text(HEX, "x", buf, 64 + 4), -1);
	assert_int_equal(snapshot_sidecar_text(HEX, "x", buf, 64 + 5), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_and_times),
		cmocka_unit_test(malformed_names),
		cmocka_unit_test(newest_kept),
		cmocka_unit_test(foreign_ignored),
		cmocka_unit_test(keep_more_than_there_are),
		cmocka_unit_test(equal_names),
		cmocka_unit_test(protected_kept),
		cmocka_unit_test(part_names),
		cmocka_unit_test(sidecars),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
