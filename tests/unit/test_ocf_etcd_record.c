/* The etcd agent's cluster ID record: the ID format, the WAL's metadata,
 * and the rules that keep a start from bootstrapping an empty cluster
 * where one was recorded (etcd_record.h), alone and after etcd_decide(). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "etcd_member.h"
#include "etcd_record.h"

#define REC   0xf68a727a17953d73ULL /* the cluster of wal_3_4 */
#define OTHER 0x1c2d3e4f5a6b7c8dULL

/* The first 80 bytes of a WAL file etcd 3.4.23 wrote when it bootstrapped
 * member p0 (http://127.0.0.1:23801, token tok1): the CRC record, the
 * metadata record (member 5485ed9a2f08260c, cluster f68a727a17953d73),
 * the start of the snapshot record. */
static const unsigned char wal_3_4[] =
	"\x04\x00\x00\x00\x00\x00\x00\x84\x08\x04\x10\x00\x00\x00\x00\x00"
	"\x1f\x00\x00\x00\x00\x00\x00\x81\x08\x01\x10\xa9\xc4\xbd\x81\x04"
	"\x1a\x15\x08\x8c\xcc\xa0\xf8\xa2\xb3\xfb\xc2\x54\x10\xf3\xfa\xd4"
	"\xbc\xa1\xcf\x9c\xc5\xf6\x01\x00\x0e\x00\x00\x00\x00\x00\x00\x82"
	"\x08\x05\x10\xf6\xb3\x97\xe8\x0c\x1a\x04\x08\x00\x10\x00\x00\x00";

static struct etcd_id_view view(enum etcd_record_state rec, enum etcd_plan plan)
{
	struct etcd_id_view v = {
		.record = rec,
		.recorded = rec == ETCD_REC_SET ? REC : 0,
		.plan = plan,
		.name = "m0",
		.data_dir = "/var/lib/etcd",
		.peer_url = "https://198.18.0.11:2380",
		.initial = "m0=https://198.18.0.11:2380,m1=https://198.18.0.12:2380,"
			   "m2=https://198.18.0.13:2380",
		.token = "etcd-cluster-token",
	};

	return v;
}

/* --------------------------------------------------------------- format -- */

static void test_id_parse(void **state)
{
	uint64_t id = 1;

	(void)state;
	assert_int_equal(etcd_id_parse("f68a727a17953d73", &id), 0);
	assert_true(id == REC);
	assert_int_equal(etcd_id_parse("0xF68A727A17953D73", &id), 0);
	assert_true(id == REC);
	assert_int_equal(etcd_id_parse("ff", &id), 0);
	assert_true(id == 0xff);
	id = 7;
	assert_int_equal(etcd_id_parse("", &id), -EINVAL);
	assert_int_equal(etcd_id_parse("0x", &id), -EINVAL);
	assert_int_equal(etcd_id_parse("0", &id), -EINVAL);
	assert_int_equal(etcd_id_parse("f68a727a17953d73 ", &id), -EINVAL);
	assert_int_equal(etcd_id_parse("17765137548823575923z", &id), -EINVAL);
	assert_int_equal(etcd_id_parse("1f68a727a17953d73", &id), -EINVAL); /* 65 bits */
	assert_int_equal(etcd_id_parse(NULL, &id), -EINVAL);
	assert_true(id == 7);
}

static void test_wal_ids(void **state)
{
	unsigned char buf[sizeof(wal_3_4)];
	uint64_t cluster = 0, member = 0;
	const char *why = NULL;

	(void)state;
	assert_int_equal(etcd_wal_ids(wal_3_4, sizeof(wal_3_4) - 1, &cluster, &member, &why), 0);
	assert_true(cluster == REC);
	assert_true(member == 0x5485ed9a2f08260cULL);
	/* cut inside the metadata record */
	assert_int_equal(etcd_wal_ids(wal_3_4, 40, &cluster, &member, &why), -EINVAL);
	assert_non_null(why);
	/* a preallocated, never written file: zeros */
	memset(buf, 0, sizeof(buf));
	assert_int_equal(etcd_wal_ids(buf, sizeof(buf), &cluster, &member, &why), -EINVAL);
	assert_string_equal(why, "an empty WAL (no record)");
	/* a frame length beyond the bytes read */
	memcpy(buf, wal_3_4, sizeof(buf));
	buf[16] = 0xff;
	assert_int_equal(etcd_wal_ids(buf, sizeof(buf) - 1, &cluster, &member, &why), -EINVAL);
	assert_string_equal(why, "the WAL's first record is cut short");
	/* not protobuf: a wire type walpb.Record does not use */
	memcpy(buf, wal_3_4, sizeof(buf));
	buf[8] = 0x0d;
	assert_int_equal(etcd_wal_ids(buf, sizeof(buf) - 1, &cluster, &member, &why), -EINVAL);
	/* the metadata without its cluster ID (field 2 renumbered to 4) */
	memcpy(buf, wal_3_4, sizeof(buf));
	buf[44] = 0x20;
	assert_int_equal(etcd_wal_ids(buf, sizeof(buf) - 1, &cluster, &member, &why), -EINVAL);
	assert_string_equal(why, "a WAL metadata record without a cluster ID");
	assert_int_equal(etcd_wal_ids(buf, 0, &cluster, &member, &why), -EINVAL);
}

/* ----------------------------------------------------------- the rules -- */

/* Rule 1: no record, every data dir empty: the new cluster goes, and its
 * ID is recorded once it runs. */
static void test_fresh_cluster(void **state)
{
	struct etcd_id_view v = view(ETCD_REC_NONE, ETCD_PLAN_BOOTSTRAP);
	struct etcd_id_decision d;

	(void)state;
	etcd_id_gate(&v, &d);
	assert_int_equal(d.verdict, ETCD_ID_GO);
	assert_true(d.record);
	assert_string_equal(d.why, "no cluster ID recorded yet: the new cluster's is recorded");
}

/* Rule 2: a record and every data dir empty: wait for a member with data
 * through the grace, then refuse with the way out. */
static void test_recorded_all_empty(void **state)
{
	struct etcd_id_view v = view(ETCD_REC_SET, ETCD_PLAN_BOOTSTRAP);
	struct etcd_id_decision d;

	(void)state;
	v.lost_usec = 0;
	etcd_id_gate(&v, &d);
	assert_int_equal(d.verdict, ETCD_ID_WAIT);
	assert_false(d.record);
	assert_non_null(strstr(d.why, "no new cluster"));
	v.lost_usec = ETCD_LOST_GRACE_USEC - 1;
	etcd_id_gate(&v, &d);
	assert_int_equal(d.verdict, ETCD_ID_WAIT);

	v.lost_usec = ETCD_LOST_GRACE_USEC;
	etcd_id_gate(&v, &d);
	assert_int_equal(d.verdict, ETCD_ID_LOST);
	assert_false(d.record);
	assert_string_equal(d.why, "etcd data lost on every member: cluster f68a727a17953d73 is "
				   "recorded, no empty one bootstrapped; restore a snapshot (see "
				   "log)");
	assert_true(strlen(d.why) <= 128); /* Pacemaker keeps 128 characters */
	/* the record, the data gone, the restore for this member's layout,
	 * both tools, and how to clear the record on purpose */
	assert_non_null(strstr(d.help, "cluster f68a727a17953d73 is recorded in the CIB"));
	assert_non_null(strstr(d.help, "member m0's data dir /var/lib/etcd is empty"));
	assert_non_null(strstr(d.help,
		"etcdutl snapshot restore SNAPSHOT --name m0 --data-dir /var/lib/etcd "
		"--initial-cluster m0=https://198.18.0.11:2380,m1=https://198.18.0.12:2380,"
		"m2=https://198.18.0.13:2380 --initial-cluster-token etcd-cluster-token "
		"--initial-advertise-peer-urls https://198.18.0.11:2380"));
	assert_non_null(strstr(d.help, "ETCDCTL_API=3 etcdctl snapshot restore"));
	assert_non_null(strstr(d.help, "cpha etcd restore"));
	assert_non_null(
		strstr(d.help, "crm_attribute --type crm_config --name etcd-cluster-id --delete"));
	assert_non_null(strchr(d.help, '\n'));
}

/* Rule 2: another member's etcd runs (it has data): wait, never bootstrap,
 * never refuse, however long. */
static void test_recorded_data_elsewhere(void **state)
{
	struct etcd_id_view v = view(ETCD_REC_SET, ETCD_PLAN_BOOTSTRAP);
	struct etcd_id_decision d;

	(void)state;
	v.data_elsewhere = true;
	v.elsewhere = "m2";
	v.lost_usec = 10 * ETCD_LOST_GRACE_USEC;
	etcd_id_gate(&v, &d);
	assert_int_equal(d.verdict, ETCD_ID_WAIT);
	assert_string_equal(d.why, "cluster f68a727a17953d73 is recorded and etcd runs on m2: "
				   "waiting for a majority of it, no new cluster");
}

/* A record and data somewhere: the plans that are not a bootstrap go. */
static void test_recorded_with_data(void **state)
{
	static const enum etcd_plan plans[] = { ETCD_PLAN_RESTART, ETCD_PLAN_JOIN,
		ETCD_PLAN_START_LISTED, ETCD_PLAN_REMOVE, ETCD_PLAN_DISCARD, ETCD_PLAN_WAIT,
		ETCD_PLAN_REFUSE };
	struct etcd_id_decision d;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(plans) / sizeof(plans[0]); i++) {
		struct etcd_id_view v = view(ETCD_REC_SET, plans[i]);

		v.has_data = plans[i] == ETCD_PLAN_RESTART || plans[i] == ETCD_PLAN_DISCARD;
		v.data_id = v.has_data ? REC : 0;
		v.running_id = plans[i] == ETCD_PLAN_RESTART ? 0 : REC;
		etcd_id_gate(&v, &d);
		assert_int_equal(d.verdict, ETCD_ID_GO);
		assert_false(d.record);
	}
	/* a data dir whose WAL could not be read: checked once etcd runs */
	{
		struct etcd_id_view v = view(ETCD_REC_SET, ETCD_PLAN_RESTART);

		v.has_data = true;
		etcd_id_gate(&v, &d);
		assert_int_equal(d.verdict, ETCD_ID_GO);
		assert_string_equal(d.why, "cluster f68a727a17953d73 recorded");
	}
}

/* Rule 3: another cluster's data, or another cluster answering. */
static void test_recorded_mismatch(void **state)
{
	struct etcd_id_view v = view(ETCD_REC_SET, ETCD_PLAN_RESTART);
	struct etcd_id_decision d;

	(void)state;
	v.has_data = true;
	v.data_id = OTHER;
	etcd_id_gate(&v, &d);
	assert_int_equal(d.verdict, ETCD_ID_MISMATCH);
	assert_string_equal(d.why, "the data dir of member m0 is of etcd cluster "
				   "1c2d3e4f5a6b7c8d, the CIB records f68a727a17953d73: not "
				   "started");
	assert_non_null(strstr(d.help, "--update 1c2d3e4f5a6b7c8d"));
	assert_non_null(strstr(d.help, "move this data dir aside"));
	/* set aside as a removed member's: no, it is not of this cluster */
	v.plan = ETCD_PLAN_DISCARD;
	etcd_id_gate(&v, &d);
	assert_int_equal(d.verdict, ETCD_ID_MISMATCH);

	/* no data, a running cluster of another ID: no remove, no add */
	v = view(ETCD_REC_SET, ETCD_PLAN_JOIN);
	v.running_id = OTHER;
	etcd_id_gate(&v, &d);
	assert_int_equal(d.verdict, ETCD_ID_MISMATCH);
	assert_string_equal(d.why, "the etcd cluster that answers is 1c2d3e4f5a6b7c8d, the CIB "
				   "records f68a727a17953d73: member m0 does not join it");
	v.plan = ETCD_PLAN_REMOVE;
	etcd_id_gate(&v, &d);
	assert_int_equal(d.verdict, ETCD_ID_MISMATCH);
	v.plan = ETCD_PLAN_START_LISTED;
	etcd_id_gate(&v, &d);
	assert_int_equal(d.verdict, ETCD_ID_MISMATCH);
	assert_true(strlen(d.why) <= 128);
}

/* Rule 4: no record on an existing cluster (an agent upgraded under it):
 * it goes, and the ID is recorded. */
static void test_unrecorded_with_data(void **state)
{
	struct etcd_id_view v = view(ETCD_REC_NONE, ETCD_PLAN_RESTART);
	struct etcd_id_decision d;

	(void)state;
	v.has_data = true;
	v.data_id = OTHER;
	etcd_id_gate(&v, &d);
	assert_int_equal(d.verdict, ETCD_ID_GO);
	assert_true(d.record);
	v = view(ETCD_REC_NONE, ETCD_PLAN_JOIN);
	v.running_id = OTHER;
	etcd_id_gate(&v, &d);
	assert_int_equal(d.verdict, ETCD_ID_GO);
	assert_true(d.record);
	assert_string_equal(d.why, "no cluster ID recorded yet: the running cluster's is recorded");
}

/* Rule 5: an unreadable record under Pacemaker holds a bootstrap back;
 * run by hand, there is no record. */
static void test_unreadable_and_off(void **state)
{
	struct etcd_id_view v = view(ETCD_REC_UNREADABLE, ETCD_PLAN_BOOTSTRAP);
	struct etcd_id_decision d;

	(void)state;
	etcd_id_gate(&v, &d);
	assert_int_equal(d.verdict, ETCD_ID_WAIT);
	assert_string_equal(d.why, "the cluster ID record cannot be read (the log says why): no "
				   "new cluster until it can");
	v.lost_usec = 10 * ETCD_LOST_GRACE_USEC;
	etcd_id_gate(&v, &d);
	assert_int_equal(d.verdict, ETCD_ID_WAIT);
	v.plan = ETCD_PLAN_RESTART;
	v.has_data = true;
	v.data_id = OTHER;
	etcd_id_gate(&v, &d);
	assert_int_equal(d.verdict, ETCD_ID_GO);
	assert_false(d.record);

	v = view(ETCD_REC_OFF, ETCD_PLAN_BOOTSTRAP);
	etcd_id_gate(&v, &d);
	assert_int_equal(d.verdict, ETCD_ID_GO);
	assert_false(d.record);
}

/* After the start, and in the leader's monitor. */
static void test_check_running(void **state)
{
	char why[256];

	(void)state;
	assert_int_equal(etcd_id_check(ETCD_REC_NONE, 0, REC, why, sizeof(why)), ETCD_ID_RECORD);
	assert_string_equal(why, "recording etcd cluster f68a727a17953d73 in the CIB (cluster "
				 "property etcd-cluster-id)");
	assert_int_equal(etcd_id_check(ETCD_REC_SET, REC, REC, why, sizeof(why)), ETCD_ID_KEEP);
	assert_string_equal(why, "");
	assert_int_equal(
		etcd_id_check(ETCD_REC_SET, REC, OTHER, why, sizeof(why)), ETCD_ID_DIFFERS);
	assert_non_null(strstr(why, "etcd runs in cluster 1c2d3e4f5a6b7c8d, the CIB records "
				    "f68a727a17953d73"));
	/* the ID not known yet (waiting for a majority): nothing to do */
	assert_int_equal(etcd_id_check(ETCD_REC_NONE, 0, 0, why, sizeof(why)), ETCD_ID_KEEP);
	assert_int_equal(etcd_id_check(ETCD_REC_SET, REC, 0, why, sizeof(why)), ETCD_ID_KEEP);
	assert_int_equal(
		etcd_id_check(ETCD_REC_UNREADABLE, 0, OTHER, why, sizeof(why)), ETCD_ID_KEEP);
	assert_int_equal(etcd_id_check(ETCD_REC_OFF, 0, OTHER, why, sizeof(why)), ETCD_ID_KEEP);
}

/* ------------------------------------------------- after etcd_decide() -- */

/* The whole clone starts, no member answers, no data here: etcd_decide()
 * plans a bootstrap; the record turns it into a refusal, its absence lets
 * it go. */
static void test_decide_then_gate(void **state)
{
	static const struct etcd_url_spec tls = { "https", "https", 2380, 2379 };
	struct etcd_map m = { 0 };
	struct ocf_strv none = { 0 }, starting = { 0 };
	struct etcd_view ev = { 0 };
	struct etcd_decision dd;
	struct etcd_id_view v;
	struct etcd_id_decision d;
	const char *why;

	(void)state;
	assert_int_equal(
		etcd_map_parse("m0=198.18.0.11 m1=198.18.0.12 m2=198.18.0.13", &tls, &m, &why), 0);
	assert_int_equal(ocf_strv_push(&starting, "m0"), 0);
	assert_int_equal(ocf_strv_push(&starting, "m1"), 0);
	assert_int_equal(ocf_strv_push(&starting, "m2"), 0);
	ev.node = ev.name = "m0";
	ev.peer_url = m.v[0].peer_url;
	ev.map = &m;
	ev.notify_known = true;
	ev.active = &none;
	ev.stopping = &none;
	ev.starting = &starting;
	assert_int_equal(etcd_decide(&ev, &dd), 0);
	assert_int_equal(dd.plan, ETCD_PLAN_BOOTSTRAP);

	v = view(ETCD_REC_NONE, dd.plan);
	etcd_id_gate(&v, &d);
	assert_int_equal(d.verdict, ETCD_ID_GO);
	assert_true(d.record);

	v = view(ETCD_REC_SET, dd.plan);
	v.lost_usec = ETCD_LOST_GRACE_USEC;
	etcd_id_gate(&v, &d);
	assert_int_equal(d.verdict, ETCD_ID_LOST);

	/* this node has data: a restart, which the record lets go */
	ocf_strv_free(&dd.initial);
	ev.has_data = true;
	assert_int_equal(etcd_decide(&ev, &dd), 0);
	assert_int_equal(dd.plan, ETCD_PLAN_RESTART);
	v = view(ETCD_REC_SET, dd.plan);
	v.has_data = true;
	v.data_id = REC;
	etcd_id_gate(&v, &d);
	assert_int_equal(d.verdict, ETCD_ID_GO);

	ocf_strv_free(&dd.initial);
	ocf_strv_free(&starting);
	etcd_map_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_id_parse),
		cmocka_unit_test(test_wal_ids),
		cmocka_unit_test(test_fresh_cluster),
		cmocka_unit_test(test_recorded_all_empty),
		cmocka_unit_test(test_recorded_data_elsewhere),
		cmocka_unit_test(test_recorded_with_data),
		cmocka_unit_test(test_recorded_mismatch),
		cmocka_unit_test(test_unrecorded_with_data),
		cmocka_unit_test(test_unreadable_and_off),
		cmocka_unit_test(test_check_running),
		cmocka_unit_test(test_decide_then_gate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
