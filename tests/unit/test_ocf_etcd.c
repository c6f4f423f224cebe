/* The etcd agent's membership logic: node maps, etcd's JSON answers,
 * --initial-cluster strings, quorum sizing, the start decisions and what
 * an even size lets each of them do. */
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
#include "etcd_parse.h"

static const struct etcd_url_spec tls = { "https", "https", 2380, 2379 };
static const struct etcd_url_spec plain = { "http", "http", 12380, 12379 };

/* A member list as etcd 3.4.23's gateway sends it (IDs as strings). */
static const char *const list3 =
	"{\"header\":{\"cluster_id\":\"13457599788668729686\",\"member_id\":"
	"\"11268113552013673373\",\"raft_term\":\"2\"},\"members\":["
	"{\"ID\":\"11268113552013673373\",\"name\":\"m0\",\"peerURLs\":[\"https://198.18.0.11:"
	"2380\"],\"clientURLs\":[\"https://198.18.0.11:2379\"]},"
	"{\"ID\":\"11405214779465829\",\"name\":\"m1\",\"peerURLs\":[\"https://198.18.0.12:2380\"],"
	"\"clientURLs\":[\"https://198.18.0.12:2379\"]},"
	"{\"ID\":\"200\",\"name\":\"m2\",\"peerURLs\":[\"https://198.18.0.13:2380\"],"
	"\"clientURLs\":[\"https://198.18.0.13:2379\"]}]}";

static void map3(struct etcd_map *m)
{
	const char *why;

	assert_int_equal(
		etcd_map_parse("m0=198.18.0.11 m1=198.18.0.12 m2=198.18.0.13", &tls, m, &why), 0);
}

static void parse_list(const char *json, struct etcd_members *l)
{
	const char *why = NULL;

	assert_int_equal(etcd_members_parse(json, l, &why), 0);
}

static void healthy(struct etcd_members *l, const char *pattern)
{
	size_t i;

	/* pattern: one character per member, 'y' healthy */
	for (i = 0; i < l->n; i++)
		l->v[i].healthy = pattern[i] == 'y';
}

/* ----------------------------------------------------------- node map -- */

static void test_map_forms(void **state)
{
	struct etcd_map m = { 0 };
	const char *why;

	(void)state;
	assert_int_equal(etcd_map_parse("m0=198.18.0.11; m1=2001:db8::12\tm2=[2001:db8::13]\n"
					"m3=m3.example m4=https://198.18.0.15:7001/",
				 &tls, &m, &why),
		0);
	assert_int_equal(m.n, 5);
	assert_string_equal(m.v[0].name, "m0");
	assert_string_equal(m.v[0].peer_url, "https://198.18.0.11:2380");
	assert_string_equal(m.v[0].client_url, "https://198.18.0.11:2379");
	assert_string_equal(m.v[1].host, "[2001:db8::12]");
	assert_string_equal(m.v[1].peer_url, "https://[2001:db8::12]:2380");
	assert_string_equal(m.v[2].client_url, "https://[2001:db8::13]:2379");
	assert_string_equal(m.v[3].peer_url, "https://m3.example:2380");
	/* a peer URL as the value: kept (without the slash), client URL made */
	assert_string_equal(m.v[4].peer_url, "https://198.18.0.15:7001");
	assert_string_equal(m.v[4].client_url, "https://198.18.0.15:2379");
	assert_ptr_equal(etcd_map_find(&m, "m3"), &m.v[3]);
	assert_null(etcd_map_find(&m, "m9"));
	assert_ptr_equal(etcd_map_find_peer(&m, "HTTPS://198.18.0.15:7001/"), &m.v[4]);
	etcd_map_free(&m);

	assert_int_equal(etcd_map_parse("a=198.18.0.11", &plain, &m, &why), 0);
	assert_string_equal(m.v[0].peer_url, "http://198.18.0.11:12380");
	assert_string_equal(m.v[0].client_url, "http://198.18.0.11:12379");
	etcd_map_free(&m);
}

static void test_map_errors(void **state)
{
	static const char *const bad[][2] = {
		{ "", "no members" },
		{ "   ;  ", "no members" },
		{ "m0=198.18.0.11 m0=198.18.0.12", "a name is listed twice" },
		{ "m0=198.18.0.11 m1=198.18.0.11", "two members have the same peer URL" },
		{ "m0=198.18.0.11 m1=https://198.18.0.11:2380",
			"two members have the same peer URL" },
		{ "m0", "expected name=value" },
		{ "=198.18.0.11", "expected name=value" },
		{ "m0=", "expected name=value" },
		{ "m0=300.1.1.1", "bad address" },
		{ "m0=198.18.0.11:2380", "bad address" },
		{ "m0=[2001:db8::1", "bad IPv6 address" },
		{ "m0=[198.18.0.11]", "bad IPv6 address" },
		{ "m0=a/b", "bad address" },
		{ "m,0=198.18.0.11", "a member name cannot hold" },
		{ "m0=ftp://198.18.0.11:2380", "http or https" },
		{ "m0=https://198.18.0.11:23x0", "bad port" },
		{ "m0=https://198.18.0.11:2380/path", "no path" },
		{ "m0=https://[zz::1]:2380", "bad IPv6" },
	};
	struct etcd_map m = { 0 };
	const char *why;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why = NULL;
		assert_int_equal(etcd_map_parse(bad[i][0], &tls, &m, &why), -EINVAL);
		assert_non_null(why);
		if (!strstr(why, bad[i][1]))
			fail_msg("%s: \"%s\" does not say \"%s\"", bad[i][0], why, bad[i][1]);
		assert_int_equal(m.n, 0);
		assert_null(m.v);
	}
}

static void test_url_equal(void **state)
{
	(void)state;
	assert_true(etcd_url_equal("https://198.18.0.11:2380", "https://198.18.0.11:2380/"));
	assert_true(etcd_url_equal("HTTPS://M0.Example:2380", "https://m0.example:2380"));
	assert_false(etcd_url_equal("https://198.18.0.11:2380", "http://198.18.0.11:2380"));
	assert_false(etcd_url_equal("https://198.18.0.11:2380", "https://198.18.0.11:23800"));
	assert_false(etcd_url_equal(NULL, "https://a:1"));
}

/* --------------------------------------------------------------- JSON -- */

static void test_members_json(void **state)
{
	struct etcd_members l = { 0 };
	const char *why;
	uint64_t id = 0;

	(void)state;
	parse_list(list3, &l);
	assert_int_equal(l.n, 3);
	assert_true(l.answered_by == 11268113552013673373ULL);
	assert_true(l.cluster_id == 13457599788668729686ULL); /* the record's check */
	assert_true(l.v[0].id == 11268113552013673373ULL);
	assert_string_equal(l.v[0].name, "m0");
	assert_int_equal(l.v[0].peer_urls.n, 1);
	assert_string_equal(l.v[1].client_urls.v[0], "https://198.18.0.12:2379");
	assert_false(l.v[1].learner);
	assert_int_equal(etcd_members_find(&l, NULL, "https://198.18.0.13:2380"), 2);
	assert_int_equal(etcd_members_find(&l, "m1", NULL), 1);
	assert_int_equal(etcd_members_find(&l, "m1", "https://198.18.0.99:2380"), 1);
	assert_int_equal(etcd_members_find(&l, "zz", "https://198.18.0.99:2380"), -1);
	etcd_members_free(&l);

	/* a learner added but never started: no name, no client URLs; numeric ID */
	parse_list("{\"members\":[{\"ID\":42,\"peerURLs\":[\"https://198.18.0.14:2380\"],"
		   "\"isLearner\":true}]}",
		&l);
	assert_int_equal(l.n, 1);
	assert_true(l.v[0].id == 42);
	assert_string_equal(l.v[0].name, "");
	assert_int_equal(l.v[0].client_urls.n, 0);
	assert_true(l.v[0].learner);
	assert_int_equal(etcd_members_find(&l, "", NULL), -1);
	etcd_members_free(&l);

	assert_int_equal(etcd_members_parse("{}", &l, &why), -EINVAL);
	assert_string_equal(why, "no \"members\" list");
	assert_int_equal(etcd_members_parse("not json", &l, &why), -EINVAL);
	assert_int_equal(etcd_members_parse("{\"members\":[{\"name\":\"x\"}]}", &l, &why), -EINVAL);
	assert_int_equal(
		etcd_members_parse("{\"members\":[{\"ID\":\"-1\",\"name\":\"x\"}]}", &l, &why),
		-EINVAL);
	assert_int_equal(
		etcd_members_parse("{\"members\":[{\"ID\":\"7\",\"peerURLs\":[1]}]}", &l, &why),
		-EINVAL);
	assert_int_equal(l.n, 0);

	assert_int_equal(etcd_added_id("{\"header\":{},\"member\":{\"ID\":\"11405214779465829\","
				       "\"peerURLs\":[\"https://198.18.0.12:2380\"],\"isLearner\":"
				       "true},\"members\":[]}",
				 &id, &why),
		0);
	assert_true(id == 11405214779465829ULL);
	assert_int_equal(etcd_added_id("{\"members\":[]}", &id, &why), -EINVAL);
}

static void test_status_health_errors(void **state)
{
	struct etcd_status st;
	const char *why;
	char msg[128];
	bool h = false;

	(void)state;
	assert_int_equal(
		etcd_status_parse(
			"{\"header\":{\"cluster_id\":\"1\",\"member_id\":\"11405214779465829\","
			"\"revision\":\"1\",\"raft_term\":\"2\"},\"version\":\"3.4.23\","
			"\"dbSize\":\"20480\",\"leader\":\"11268113552013673373\","
			"\"raftIndex\":\"10\",\"raftTerm\":\"2\",\"raftAppliedIndex\":"
			"\"9\",\"dbSizeInUse\":\"16384\",\"isLearner\":true}",
			&st, &why),
		0);
	assert_true(st.member_id == 11405214779465829ULL);
	assert_true(st.cluster_id == 1);
	assert_true(st.leader == 11268113552013673373ULL);
	assert_true(st.raft_index == 10 && st.applied_index == 9);
	assert_true(st.learner);
	assert_string_equal(st.version, "3.4.23");
	assert_int_equal(etcd_status_parse("{\"leader\":\"1\"}", &st, &why), -EINVAL);
	assert_int_equal(etcd_status_parse("[]", &st, &why), -EINVAL);

	assert_int_equal(etcd_health_parse("{\"health\":\"true\"}", &h), 0);
	assert_true(h);
	assert_int_equal(etcd_health_parse("{\"health\":\"false\",\"reason\":\"x\"}", &h), 0);
	assert_false(h);
	assert_int_equal(etcd_health_parse("{\"health\":true}", &h), 0);
	assert_true(h);
	assert_int_equal(etcd_health_parse("<html>", &h), -EINVAL);

	assert_int_equal(etcd_error_parse("{\"error\":\"etcdserver: can only promote a learner "
					  "member which is in sync with leader\",\"message\":"
					  "\"etcdserver: can only promote a learner member which "
					  "is in sync with leader\",\"code\":9}",
				 msg, sizeof(msg)),
		9);
	assert_non_null(strstr(msg, "in sync with leader"));
	assert_int_equal(etcd_error_parse("{\"health\":\"true\"}", msg, sizeof(msg)), -1);
	assert_string_equal(msg, "");
}

/* ----------------------------------------------------- initial cluster -- */

static void test_initial_cluster(void **state)
{
	struct etcd_members l = { 0 };
	struct ocf_strv only = { 0 };
	struct etcd_map m = { 0 };
	char *s;

	(void)state;
	map3(&m);
	s = etcd_initial_cluster_map(&m, NULL);
	assert_string_equal(s, "m0=https://198.18.0.11:2380,m1=https://198.18.0.12:2380,"
			       "m2=https://198.18.0.13:2380");
	free(s);
	ocf_strv_push(&only, "m2");
	ocf_strv_push(&only, "m0");
	s = etcd_initial_cluster_map(&m, &only);
	assert_string_equal(s, "m0=https://198.18.0.11:2380,m2=https://198.18.0.13:2380");
	free(s);
	ocf_strv_free(&only);

	/* joining: every member, the new one (no name yet) named from the map,
	 * one not in the map by its ID; a member with two peer URLs twice */
	parse_list("{\"members\":["
		   "{\"ID\":\"10\",\"name\":\"m0\",\"peerURLs\":[\"https://198.18.0.11:2380\","
		   "\"https://[2001:db8::11]:2380\"]},"
		   "{\"ID\":\"11\",\"peerURLs\":[\"https://198.18.0.12:2380\"],\"isLearner\":true},"
		   "{\"ID\":\"255\",\"peerURLs\":[\"https://198.18.0.99:2380\"]}]}",
		&l);
	s = etcd_initial_cluster_members(&l, &m);
	assert_string_equal(s, "m0=https://198.18.0.11:2380,m0=https://[2001:db8::11]:2380,"
			       "m1=https://198.18.0.12:2380,member-ff=https://198.18.0.99:2380");
	free(s);
	etcd_members_free(&l);
	etcd_map_free(&m);
}

/* ------------------------------------------------------------- quorum -- */

static void test_size_check(void **state)
{
	struct ocf_clone clone = { .is_clone = true, .max = 3, .node_max = 1 };
	struct etcd_size sz;

	(void)state;
	assert_int_equal(etcd_size_check(&clone, 3, false, &sz), 0);
	assert_string_equal(sz.fix, "");
	assert_string_equal(sz.why, "");
	/* 4 members tolerate one failure, like 3, but need 3 for quorum; the
	 * fix comes first (Pacemaker keeps 128 characters of a reason) */
	clone.max = 4;
	assert_int_equal(etcd_size_check(&clone, 5, false, &sz), -EDOM);
	assert_int_equal(sz.n, 4);
	assert_string_equal(sz.fix, "even etcd size 4 refused: set clone-max to 3 or 5");
	assert_string_equal(sz.why, "4 survive 1 failure as 3 do, but need 3 votes; or "
				    "allow_even=true");
	assert_int_equal(etcd_size_check(&clone, 5, true, &sz), 0);
	clone.max = 3;
	assert_int_equal(etcd_size_check(&clone, 4, false, &sz), -EDOM);
	assert_string_equal(sz.fix, "even etcd size 4 refused: list 3 or 5 members in node_map");
	assert_int_equal(etcd_size_check(&clone, 4, true, &sz), 0);
	/* both even: clone-max is named (it is what Pacemaker runs) */
	clone.max = 6;
	assert_int_equal(etcd_size_check(&clone, 4, false, &sz), -EDOM);
	assert_string_equal(sz.fix, "even etcd size 6 refused: set clone-max to 5 or 7");
	assert_non_null(strstr(sz.why, "6 survive 2 failures as 5 do, but need 4 votes"));
	clone.max = 2;
	assert_int_equal(etcd_size_check(&clone, 3, false, &sz), -EDOM);
	assert_string_equal(sz.fix, "even etcd size 2 refused: set clone-max to 3 (or 1)");
	assert_non_null(strstr(sz.why, "2 survive 0 failures as 1 does, but need 2 votes"));
	/* more instances than members: a warning, not an even size */
	clone.max = 5;
	assert_int_equal(etcd_size_check(&clone, 3, false, &sz), -EINVAL);
	assert_non_null(strstr(sz.why, "clone-max=5 is more than the 3 members"));
	clone.max = 0;
	assert_int_equal(etcd_size_check(&clone, 3, false, &sz), -EINVAL);
	/* not a clone: the map alone */
	clone.is_clone = false;
	assert_int_equal(etcd_size_check(&clone, 1, false, &sz), 0);
	assert_int_equal(etcd_size_check(&clone, 2, false, &sz), -EDOM);
	assert_int_equal(etcd_size_check(NULL, 0, true, &sz), -EINVAL);
	/* validate-all's reason, "fix (why)", fits in Pacemaker's 128 characters */
	clone.is_clone = true;
	clone.max = 4;
	assert_int_equal(etcd_size_check(&clone, 3, false, &sz), -EDOM);
	assert_true(strlen(sz.fix) + strlen(sz.why) + 3 <= 128);
	clone.max = 3;
	assert_int_equal(etcd_size_check(&clone, 4, false, &sz), -EDOM);
	assert_true(strlen(sz.fix) + strlen(sz.why) + 3 <= 128);
	/* every reason starts with its fix and keeps it within 128 characters */
	for (clone.max = 2, clone.is_clone = true; clone.max < 100; clone.max += 2) {
		assert_int_equal(etcd_size_check(&clone, 3, false, &sz), -EDOM);
		assert_true(strlen(sz.fix) < 64);
	}
}

static void test_removal_safe(void **state)
{
	struct etcd_members l = { 0 };

	(void)state;
	parse_list(list3, &l);
	healthy(&l, "yyn");
	/* 3 voters, one dead: removing the dead one leaves 2 of 2 */
	assert_true(etcd_removal_safe(&l, 2));
	/* removing a healthy one leaves 1 healthy of 2: no majority */
	assert_false(etcd_removal_safe(&l, 0));
	healthy(&l, "ynn");
	assert_false(etcd_removal_safe(&l, 2));
	healthy(&l, "yyy");
	assert_true(etcd_removal_safe(&l, 1));
	/* a learner's removal changes no quorum */
	l.v[1].learner = true;
	healthy(&l, "nnn");
	assert_true(etcd_removal_safe(&l, 1));
	assert_false(etcd_removal_safe(&l, 7));
	etcd_members_free(&l);
}

static void test_stop_safe(void **state)
{
	struct etcd_members l = { 0 };

	(void)state;
	parse_list(list3, &l);
	/* 3 voters, all healthy: stopping one leaves 2 of 3 */
	healthy(&l, "yyy");
	assert_true(etcd_stop_safe(&l, 0));
	/* one already dead: stopping a healthy one leaves 1 of 3 */
	healthy(&l, "yyn");
	assert_false(etcd_stop_safe(&l, 0));
	/* ... but stopping the dead one changes nothing */
	assert_true(etcd_stop_safe(&l, 2));
	/* a stopped member still counts (unlike a removed one) */
	healthy(&l, "ynn");
	assert_false(etcd_stop_safe(&l, 2));
	assert_true(etcd_removal_safe(&l, 2) == false);
	/* a learner votes in nothing */
	l.v[2].learner = true;
	healthy(&l, "yyn");
	assert_true(etcd_stop_safe(&l, 2));
	assert_true(etcd_stop_safe(&l, 0) == false);
	healthy(&l, "yyy");
	assert_true(etcd_stop_safe(&l, 0) == false); /* 1 healthy voter of 2 left */
	assert_false(etcd_stop_safe(&l, 9));
	etcd_members_free(&l);
}

/* ------------------------------------------------------------ decide -- */

struct fixture {
	struct etcd_map map;
	struct etcd_members list;
	struct ocf_strv active, stopping, starting;
	struct etcd_view v;
	struct etcd_decision d;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	map3(&f->map);
	f->v.node = "m2";
	f->v.name = "m2";
	f->v.peer_url = f->map.v[2].peer_url;
	f->v.map = &f->map;
	f->v.members = &f->list;
	f->v.active = &f->active;
	f->v.stopping = &f->stopping;
	f->v.starting = &f->starting;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	etcd_map_free(&f->map);
	etcd_members_free(&f->list);
	ocf_strv_free(&f->active);
	ocf_strv_free(&f->stopping);
	ocf_strv_free(&f->starting);
	ocf_strv_free(&f->d.initial);
	free(f);
	return 0;
}

static enum etcd_plan decide(struct fixture *f)
{
	ocf_strv_free(&f->d.initial);
	assert_int_equal(etcd_decide(&f->v, &f->d), 0);
	return f->d.plan;
}

static void push_all(struct ocf_strv *v, const char *a, const char *b, const char *c)
{
	ocf_strv_free(v);
	if (a)
		ocf_strv_push(v, a);
	if (b)
		ocf_strv_push(v, b);
	if (c)
		ocf_strv_push(v, c);
}

static void test_decide_bootstrap(void **state)
{
	struct fixture *f = *state;
	char *s;

	/* no notify variables, nobody answers, no data: the whole map */
	assert_int_equal(decide(f), ETCD_PLAN_BOOTSTRAP);
	assert_int_equal(f->d.initial.n, 3);
	assert_non_null(strstr(f->d.why, "whole node_map"));
	/* the clone starts as a whole: the members starting now */
	f->v.notify_known = true;
	push_all(&f->starting, "m0", "m1", "m2");
	assert_int_equal(decide(f), ETCD_PLAN_BOOTSTRAP);
	assert_int_equal(f->d.initial.n, 3);
	/* m1 is down: a new cluster of the two that start (a majority) */
	push_all(&f->starting, "m2", "m0", NULL);
	assert_int_equal(decide(f), ETCD_PLAN_BOOTSTRAP);
	s = etcd_initial_cluster_map(&f->map, &f->d.initial);
	assert_string_equal(s, "m0=https://198.18.0.11:2380,m2=https://198.18.0.13:2380");
	free(s);
	/* alone of three: never a one-member cluster beside a possible real one */
	push_all(&f->starting, "m2", NULL, NULL);
	assert_int_equal(decide(f), ETCD_PLAN_WAIT);
	assert_non_null(strstr(f->d.why, "only 1 of the 3 members start now"));
	assert_int_equal(f->d.initial.n, 0);
	/* another instance runs: a cluster exists, only unreachable now */
	push_all(&f->starting, "m0", "m1", "m2");
	push_all(&f->active, "m0", NULL, NULL);
	assert_int_equal(decide(f), ETCD_PLAN_WAIT);
	assert_non_null(strstr(f->d.why, "instances run on m0"));
	/* ... unless it is stopping in this transition, or it is this node */
	push_all(&f->stopping, "m0", NULL, NULL);
	assert_int_equal(decide(f), ETCD_PLAN_BOOTSTRAP);
	push_all(&f->stopping, NULL, NULL, NULL);
	push_all(&f->active, "m2", NULL, NULL);
	assert_int_equal(decide(f), ETCD_PLAN_BOOTSTRAP);
}

static void test_decide_restart(void **state)
{
	struct fixture *f = *state;

	f->v.has_data = true;
	/* nobody answers: restart with the data (a whole-cluster restart) */
	assert_int_equal(decide(f), ETCD_PLAN_RESTART);
	/* even with others active: the data knows the cluster */
	f->v.notify_known = true;
	push_all(&f->active, "m0", "m1", NULL);
	assert_int_equal(decide(f), ETCD_PLAN_RESTART);
	/* listed by the running cluster: restart, never leave and rejoin */
	parse_list(list3, &f->list);
	healthy(&f->list, "yyn");
	f->v.reachable = true;
	assert_int_equal(decide(f), ETCD_PLAN_RESTART);
	/* a learner that crashed before promotion restarts too */
	f->list.v[2].learner = true;
	assert_int_equal(decide(f), ETCD_PLAN_RESTART);
}

static void test_decide_discard(void **state)
{
	struct fixture *f = *state;

	/* the cluster no longer lists this member: its data cannot rejoin */
	parse_list(list3, &f->list);
	free(f->list.v[2].name);
	f->list.v[2].name = strdup("m7");
	ocf_strv_free(&f->list.v[2].peer_urls);
	ocf_strv_push(&f->list.v[2].peer_urls, "https://198.18.0.17:2380");
	healthy(&f->list, "yyy");
	f->v.reachable = true;
	f->v.has_data = true;
	assert_int_equal(decide(f), ETCD_PLAN_DISCARD);
	assert_non_null(strstr(f->d.why, "no longer lists"));
}

static void test_decide_replace(void **state)
{
	struct fixture *f = *state;

	/* data wiped, the cluster still lists m2 as started: remove, then join */
	parse_list(list3, &f->list);
	healthy(&f->list, "yyn");
	f->v.reachable = true;
	assert_int_equal(decide(f), ETCD_PLAN_REMOVE);
	assert_int_equal(f->d.target, 2);
	assert_non_null(strstr(f->d.why, "removing it, then joining"));
	/* not while that would cost quorum */
	healthy(&f->list, "ynn");
	assert_int_equal(decide(f), ETCD_PLAN_WAIT);
	assert_non_null(strstr(f->d.why, "short of a majority"));
	/* after the removal: not a member, nobody joining: join as a learner */
	etcd_members_free(&f->list);
	parse_list(list3, &f->list);
	f->list.n = 2;
	{
		/* the third member, dropped by hand */
		struct etcd_member *m = &f->list.v[2];

		free(m->name);
		ocf_strv_free(&m->peer_urls);
		ocf_strv_free(&m->client_urls);
		memset(m, 0, sizeof(*m));
	}
	healthy(&f->list, "yy");
	assert_int_equal(decide(f), ETCD_PLAN_JOIN);
	assert_non_null(strstr(f->d.why, "joining as a learner"));
}

static void test_decide_join(void **state)
{
	struct fixture *f = *state;

	f->v.reachable = true;
	/* listed but never started (bootstrapped with the whole map, or added
	 * by an earlier try): start, no second add */
	parse_list(
		"{\"members\":["
		"{\"ID\":\"1\",\"name\":\"m0\",\"peerURLs\":[\"https://198.18.0.11:2380\"],"
		"\"clientURLs\":[\"https://198.18.0.11:2379\"]},"
		"{\"ID\":\"2\",\"name\":\"m1\",\"peerURLs\":[\"https://198.18.0.12:2380\"],"
		"\"clientURLs\":[\"https://198.18.0.12:2379\"]},"
		"{\"ID\":\"3\",\"peerURLs\":[\"https://198.18.0.13:2380\"],\"isLearner\":true}]}",
		&f->list);
	healthy(&f->list, "yyn");
	assert_int_equal(decide(f), ETCD_PLAN_START_LISTED);
	etcd_members_free(&f->list);

	/* one change at a time: m1 still a learner, m2 waits */
	parse_list("{\"members\":["
		   "{\"ID\":\"1\",\"name\":\"m0\",\"peerURLs\":[\"https://198.18.0.11:2380\"],"
		   "\"clientURLs\":[\"https://198.18.0.11:2379\"]},"
		   "{\"ID\":\"2\",\"name\":\"m1\",\"peerURLs\":[\"https://198.18.0.12:2380\"],"
		   "\"clientURLs\":[\"https://198.18.0.12:2379\"],\"isLearner\":true}]}",
		&f->list);
	healthy(&f->list, "yy");
	assert_int_equal(decide(f), ETCD_PLAN_WAIT);
	assert_non_null(strstr(f->d.why, "still joining (a learner)"));
	f->list.v[1].learner = false;
	assert_int_equal(decide(f), ETCD_PLAN_JOIN);
	etcd_members_free(&f->list);

	/* a dead member outside the map is removed before adding (replacing
	 * a master by a new node) */
	parse_list("{\"members\":["
		   "{\"ID\":\"1\",\"name\":\"m0\",\"peerURLs\":[\"https://198.18.0.11:2380\"],"
		   "\"clientURLs\":[\"https://198.18.0.11:2379\"]},"
		   "{\"ID\":\"2\",\"name\":\"m1\",\"peerURLs\":[\"https://198.18.0.12:2380\"],"
		   "\"clientURLs\":[\"https://198.18.0.12:2379\"]},"
		   "{\"ID\":\"9\",\"name\":\"old\",\"peerURLs\":[\"https://198.18.0.19:2380\"],"
		   "\"clientURLs\":[\"https://198.18.0.19:2379\"]}]}",
		&f->list);
	healthy(&f->list, "yyn");
	assert_int_equal(decide(f), ETCD_PLAN_REMOVE);
	assert_int_equal(f->d.target, 2);
	/* alive, it stays (a node_map typo must not remove a live member) */
	healthy(&f->list, "yyy");
	assert_int_equal(decide(f), ETCD_PLAN_JOIN);
}

static void test_decide_conflicts(void **state)
{
	struct fixture *f = *state;

	f->v.reachable = true;
	/* my peer URL belongs to another name */
	parse_list("{\"members\":[{\"ID\":\"1\",\"name\":\"m0\",\"peerURLs\":["
		   "\"https://198.18.0.11:2380\"]},{\"ID\":\"2\",\"name\":\"x9\",\"peerURLs\":["
		   "\"https://198.18.0.13:2380\"]}]}",
		&f->list);
	healthy(&f->list, "yy");
	assert_int_equal(decide(f), ETCD_PLAN_REFUSE);
	/* the fix first: Pacemaker keeps 128 characters of an exit reason */
	assert_int_equal(strncmp(f->d.why,
				 "fix node_map or remove member x9 (2): it holds peer URL "
				 "https://198.18.0.13:2380, which node_map gives m2",
				 200),
		0);
	etcd_members_free(&f->list);
	/* my name at another address: dead and no data here -> replace it */
	parse_list("{\"members\":[{\"ID\":\"1\",\"name\":\"m0\",\"peerURLs\":["
		   "\"https://198.18.0.11:2380\"]},{\"ID\":\"5\",\"name\":\"m1\",\"peerURLs\":["
		   "\"https://198.18.0.12:2380\"]},{\"ID\":\"2\",\"name\":\"m2\",\"peerURLs\":["
		   "\"https://198.18.0.23:2380\"]}]}",
		&f->list);
	healthy(&f->list, "yyn");
	assert_int_equal(decide(f), ETCD_PLAN_REMOVE);
	assert_int_equal(f->d.target, 2);
	/* alive there, or with data here: an operator decides */
	healthy(&f->list, "yyy");
	assert_int_equal(decide(f), ETCD_PLAN_REFUSE);
	healthy(&f->list, "yyn");
	f->v.has_data = true;
	assert_int_equal(decide(f), ETCD_PLAN_REFUSE);
	assert_non_null(strstr(f->d.why, "registered at https://198.18.0.23:2380"));
	assert_int_equal(strncmp(f->d.why, "fix node_map, or update or remove member m2", 43), 0);
	assert_string_equal(etcd_plan_name(ETCD_PLAN_JOIN), "join-as-learner");
}

static void test_reconcile(void **state)
{
	struct fixture *f = *state;
	char why[512];

	parse_list("{\"members\":["
		   "{\"ID\":\"1\",\"name\":\"m0\",\"peerURLs\":[\"https://198.18.0.11:2380\"]},"
		   "{\"ID\":\"2\",\"name\":\"m1\",\"peerURLs\":[\"https://198.18.0.12:2380\"]},"
		   "{\"ID\":\"3\",\"name\":\"m2\",\"peerURLs\":[\"https://198.18.0.13:2380\"]},"
		   "{\"ID\":\"4\",\"name\":\"m3\",\"peerURLs\":[\"https://198.18.0.14:2380\"]},"
		   "{\"ID\":\"5\",\"name\":\"m4\",\"peerURLs\":[\"https://198.18.0.15:2380\"]}]}",
		&f->list);
	/* scaled 5 -> 3: m3 and m4 stopped by Pacemaker, removed one at a time */
	healthy(&f->list, "yyynn");
	assert_int_equal(etcd_reconcile(&f->list, &f->map, 1, why, sizeof(why)), 3);
	/* a dead member the map lists stays (its node comes back with its data) */
	healthy(&f->list, "ynyyy");
	assert_int_equal(etcd_reconcile(&f->list, &f->map, 1, why, sizeof(why)), -1);
	assert_string_equal(why, "");
	/* a live one outside the map stays too */
	healthy(&f->list, "yyyyy");
	assert_int_equal(etcd_reconcile(&f->list, &f->map, 1, why, sizeof(why)), -1);
	/* never at the cost of quorum: 2 healthy of 5, removing leaves 2 of 4 */
	healthy(&f->list, "yynnn");
	assert_int_equal(etcd_reconcile(&f->list, &f->map, 1, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "short of a majority"));
	/* never itself */
	healthy(&f->list, "yyynn");
	assert_int_equal(etcd_reconcile(&f->list, &f->map, 4, why, sizeof(why)), 4);
}

/* ---------------------------------------------------------- etcd's log -- */

static void test_log_reason(void **state)
{
	char out[512];

	(void)state;
	/* etcd 3.4 (capnslog): the fatal line, without its timestamp, even
	 * when errors and warnings follow it */
	etcd_log_reason("[WARNING] Deprecated '--logger=capnslog' flag is set\n"
			"2026-11-26 21:38:30.660249 I | etcdmain: etcd Version: 3.4.23\n"
			"2026-11-26 21:38:30.660249 E | rafthttp: failed to dial 1 on stream\n"
			"2026-11-26 21:38:30.660249 C | etcdmain: member x has already been "
			"bootstrapped\n"
			"2026-11-26 21:38:30.660300 W | something after\n",
		out, sizeof(out));
	assert_string_equal(out, "etcdmain: member x has already been bootstrapped");
	/* an error when nothing is fatal; the last of equals */
	etcd_log_reason("2026-11-26 21:38:30.660249 E | etcdmain: error verifying flags, one\n"
			"2026-11-26 21:38:30.660249 E | etcdmain: error verifying flags, two. "
			"See 'etcd --help'.\n\n",
		out, sizeof(out));
	assert_string_equal(out, "etcdmain: error verifying flags, two. See 'etcd --help'.");
	/* a flag error is followed by the usage text */
	etcd_log_reason("flag provided but not defined: -pre-vote\nUsage:\n\n  etcd [flags]\n"
			"    Run the stateless etcd v3 gRPC L7 reverse proxy.\n",
		out, sizeof(out));
	assert_string_equal(out, "flag provided but not defined: -pre-vote");
	/* zap (etcd 3.5): msg and error */
	etcd_log_reason("{\"level\":\"info\",\"ts\":\"2026\",\"msg\":\"starting\"}\n"
			"{\"level\":\"fatal\",\"ts\":\"2026\",\"caller\":\"etcdmain/etcd.go:204\","
			"\"msg\":\"discovery failed\",\"error\":\"member abc has already been "
			"bootstrapped\",\"stacktrace\":\"main.main\\n\\t/x.go\"}\n",
		out, sizeof(out));
	assert_string_equal(out, "discovery failed: member abc has already been bootstrapped");
	/* nothing grave: the last line, as it is */
	etcd_log_reason("one\n  \nraft2026/11/26 21:38:24 INFO: two\n", out, sizeof(out));
	assert_string_equal(out, "raft2026/11/26 21:38:24 INFO: two");
	etcd_log_reason("", out, sizeof(out));
	assert_string_equal(out, "");
	etcd_log_reason(NULL, out, sizeof(out));
	assert_string_equal(out, "");
	etcd_log_reason("{not json\n", out, sizeof(out));
	assert_string_equal(out, "{not json");
}

/* ------------------------------------------------------ sizing gate -- */

/* The sizing of clone-max = max over the fixture's three-member map. */
static void size_of(struct etcd_size *sz, unsigned max, bool allow_even)
{
	struct ocf_clone clone = { .is_clone = true, .max = max, .node_max = 1 };

	etcd_size_check(&clone, 3, allow_even, sz);
}

static enum etcd_size_verdict gate(struct fixture *f, const struct etcd_size *sz, char *why)
{
	decide(f);
	return etcd_size_gate(sz, f->v.name, &f->v, &f->d, why, 512);
}

/* The reason starts with the fix, and the fix fits what Pacemaker keeps. */
static void fix_first(const struct etcd_size *sz, const char *why)
{
	assert_int_equal(strncmp(why, sz->fix, strlen(sz->fix)), 0);
	assert_true(strlen(sz->fix) < 128);
}

static void test_size_gate_new_cluster(void **state)
{
	struct fixture *f = *state;
	struct etcd_size sz;
	char why[512];

	/* nothing answers, no data here, the clone starts as a whole: a new
	 * cluster of an even clone-max is refused (this start only) */
	f->v.notify_known = true;
	push_all(&f->starting, "m0", "m1", "m2");
	size_of(&sz, 4, false);
	assert_int_equal(gate(f, &sz, why), ETCD_SIZE_NO_BOOTSTRAP);
	assert_int_equal(f->d.plan, ETCD_PLAN_BOOTSTRAP);
	fix_first(&sz, why);
	assert_non_null(strstr(why, "; no new cluster bootstrapped (4 survive 1 failure"));
	/* without notify variables (the whole map) too */
	f->v.notify_known = false;
	assert_int_equal(gate(f, &sz, why), ETCD_SIZE_NO_BOOTSTRAP);
	/* odd, or allow_even: bootstrap, and nothing to say */
	size_of(&sz, 3, false);
	assert_int_equal(gate(f, &sz, why), ETCD_SIZE_GO);
	assert_string_equal(why, "");
	size_of(&sz, 4, true);
	assert_int_equal(gate(f, &sz, why), ETCD_SIZE_GO);
	/* an even map with an odd clone-max is as even */
	{
		struct ocf_clone clone = { .is_clone = true, .max = 3, .node_max = 1 };

		etcd_size_check(&clone, 4, false, &sz);
		assert_int_equal(gate(f, &sz, why), ETCD_SIZE_NO_BOOTSTRAP);
		assert_non_null(strstr(why, "list 3 or 5 members in node_map"));
	}
	/* instances run elsewhere but nobody answers: a running cluster out
	 * of reach, never refused (the start waits for it) */
	size_of(&sz, 4, false);
	f->v.notify_known = true;
	push_all(&f->active, "m0", "m1", NULL);
	assert_int_equal(gate(f, &sz, why), ETCD_SIZE_GO);
	assert_int_equal(f->d.plan, ETCD_PLAN_WAIT);
	/* alone of three: waits, refused only if it ever comes to a bootstrap */
	push_all(&f->active, NULL, NULL, NULL);
	push_all(&f->starting, "m2", NULL, NULL);
	assert_int_equal(gate(f, &sz, why), ETCD_SIZE_GO);
	assert_int_equal(f->d.plan, ETCD_PLAN_WAIT);
}

static void test_size_gate_member(void **state)
{
	struct fixture *f = *state;
	struct etcd_size sz;
	char why[512];

	size_of(&sz, 4, false);
	/* the running cluster lists m2 and its data is here: it restarts */
	parse_list(list3, &f->list);
	healthy(&f->list, "yyn");
	f->v.reachable = true;
	f->v.has_data = true;
	assert_int_equal(gate(f, &sz, why), ETCD_SIZE_KEEP);
	assert_int_equal(f->d.plan, ETCD_PLAN_RESTART);
	fix_first(&sz, why);
	assert_non_null(strstr(why, "; member m2 keeps running, none is added ("));
	/* the whole cluster restarts (nobody answers) and m2 has its data */
	f->v.reachable = false;
	f->v.notify_known = true;
	push_all(&f->starting, "m0", "m1", "m2");
	assert_int_equal(gate(f, &sz, why), ETCD_SIZE_KEEP);
	/* listed by its peer URL but never started: counted already */
	etcd_members_free(&f->list);
	parse_list(
		"{\"members\":["
		"{\"ID\":\"1\",\"name\":\"m0\",\"peerURLs\":[\"https://198.18.0.11:2380\"]},"
		"{\"ID\":\"2\",\"name\":\"m1\",\"peerURLs\":[\"https://198.18.0.12:2380\"]},"
		"{\"ID\":\"3\",\"peerURLs\":[\"https://198.18.0.13:2380\"],\"isLearner\":true}]}",
		&f->list);
	healthy(&f->list, "yyn");
	f->v.reachable = true;
	f->v.has_data = false;
	assert_int_equal(gate(f, &sz, why), ETCD_SIZE_KEEP);
	assert_int_equal(f->d.plan, ETCD_PLAN_START_LISTED);
	/* etcd already runs here (start finds it, reload, monitor) */
	assert_int_equal(etcd_size_gate(&sz, "m2", NULL, NULL, why, sizeof(why)), ETCD_SIZE_KEEP);
	fix_first(&sz, why);
	/* what an operator needs is within Pacemaker's 128 characters */
	assert_true(strstr(why, "none is added") - why < 128);
	/* odd: no word */
	size_of(&sz, 3, false);
	assert_int_equal(etcd_size_gate(&sz, "m2", NULL, NULL, why, sizeof(why)), ETCD_SIZE_GO);
	assert_string_equal(why, "");
}

static void test_size_gate_join(void **state)
{
	struct fixture *f = *state;
	struct etcd_map map4 = { 0 };
	struct etcd_size sz;
	const char *perr;
	char why[512];

	size_of(&sz, 4, false);
	/* m3, a fourth node, with three members running: not added */
	assert_int_equal(etcd_map_parse("m0=198.18.0.11 m1=198.18.0.12 m2=198.18.0.13 "
					"m3=198.18.0.14",
				 &tls, &map4, &perr),
		0);
	f->v.map = &map4;
	f->v.node = f->v.name = "m3";
	f->v.peer_url = map4.v[3].peer_url;
	parse_list(list3, &f->list);
	healthy(&f->list, "yyy");
	f->v.reachable = true;
	assert_int_equal(gate(f, &sz, why), ETCD_SIZE_NO_JOIN);
	assert_int_equal(f->d.plan, ETCD_PLAN_JOIN);
	fix_first(&sz, why);
	assert_non_null(strstr(why, "; member m3 not added: 3 members run, 4 would be even"));
	assert_true(strstr(why, "would be even") - why < 128);
	/* with allow_even it joins */
	size_of(&sz, 4, true);
	assert_int_equal(gate(f, &sz, why), ETCD_SIZE_GO);
	/* an odd configuration says nothing either (a new node may join
	 * before the old one it replaces is removed) */
	size_of(&sz, 3, false);
	assert_int_equal(gate(f, &sz, why), ETCD_SIZE_GO);
	assert_string_equal(why, "");
	f->v.map = &f->map;
	f->v.node = f->v.name = "m2";
	f->v.peer_url = f->map.v[2].peer_url;
	etcd_map_free(&map4);
	etcd_members_free(&f->list);

	/* m2 replaces its old member (data wiped): the removal first ... */
	size_of(&sz, 4, false);
	parse_list(list3, &f->list);
	healthy(&f->list, "yyn");
	assert_int_equal(gate(f, &sz, why), ETCD_SIZE_GO);
	assert_int_equal(f->d.plan, ETCD_PLAN_REMOVE);
	fix_first(&sz, why);
	/* ... then the join brings 2 back to 3: odd, it goes ahead */
	f->list.n = 2;
	{
		struct etcd_member *m = &f->list.v[2];

		free(m->name);
		ocf_strv_free(&m->peer_urls);
		ocf_strv_free(&m->client_urls);
		memset(m, 0, sizeof(*m));
	}
	assert_int_equal(gate(f, &sz, why), ETCD_SIZE_GO);
	assert_int_equal(f->d.plan, ETCD_PLAN_JOIN);
	assert_non_null(strstr(why, "member m2 joins: 2 members run, 3 is odd"));
	/* data of a removed member is set aside (adds nothing); the join
	 * that follows is judged on its own */
	etcd_members_free(&f->list);
	parse_list(list3, &f->list);
	free(f->list.v[2].name);
	f->list.v[2].name = strdup("m7");
	ocf_strv_free(&f->list.v[2].peer_urls);
	ocf_strv_push(&f->list.v[2].peer_urls, "https://198.18.0.17:2380");
	healthy(&f->list, "yyy");
	f->v.has_data = true;
	assert_int_equal(gate(f, &sz, why), ETCD_SIZE_GO);
	assert_int_equal(f->d.plan, ETCD_PLAN_DISCARD);
	f->v.has_data = false;
	assert_int_equal(gate(f, &sz, why), ETCD_SIZE_NO_JOIN);
	assert_string_equal(etcd_size_verdict_name(ETCD_SIZE_NO_JOIN), "no-join");
	assert_string_equal(etcd_size_verdict_name(ETCD_SIZE_KEEP), "keep");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_forms),
		cmocka_unit_test(test_map_errors),
		cmocka_unit_test(test_url_equal),
		cmocka_unit_test(test_members_json),
		cmocka_unit_test(test_status_health_errors),
		cmocka_unit_test(test_initial_cluster),
		cmocka_unit_test(test_size_check),
		cmocka_unit_test(test_removal_safe),
		cmocka_unit_test(test_stop_safe),
		cmocka_unit_test_setup_teardown(test_decide_bootstrap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_decide_restart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_decide_discard, setup, teardown),
		cmocka_unit_test_setup_teardown(test_decide_replace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_decide_join, setup, teardown),
		cmocka_unit_test_setup_teardown(test_decide_conflicts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reconcile, setup, teardown),
		cmocka_unit_test(test_log_reason),
		cmocka_unit_test_setup_teardown(test_size_gate_new_cluster, setup, teardown),
		cmocka_unit_test_setup_teardown(test_size_gate_member, setup, teardown),
		cmocka_unit_test_setup_teardown(test_size_gate_join, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
