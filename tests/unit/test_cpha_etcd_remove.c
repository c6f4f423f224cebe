/* cpha etcd remove (etcd_remove.c): etcdctl's member list and which named
 * members to remove, in which order, or why not. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "etcd_remove.h"

#define N(a)       (sizeof(a) / sizeof((a)[0]))
#define FILE_      "/etc/cpha/cluster.yaml"
#define NAMES(...) ((const char *const[]){ __VA_ARGS__ }), N(((const char *const[]){ __VA_ARGS__ }))

/* Five masters m1..m5, as etcdctl 3.4 prints them (-w simple). */
static const char FIVE[] =
	"8e9e05c52164694d, started, m1, https://198.18.0.11:2380, https://198.18.0.11:2379, false\n"
	"91bc3c398fb3c146, started, m2, https://198.18.0.12:2380, https://198.18.0.12:2379, false\n"
	"fd422379fda50e48, started, m3, https://198.18.0.13:2380, https://198.18.0.13:2379, false\n"
	"2c3a1a0d41ef6f63, started, m4, https://198.18.0.14:2380, https://198.18.0.14:2379, false\n"
	"a1b2c3d4e5f60718, started, m5, https://198.18.0.15:2380, https://198.18.0.15:2379, "
	"false\n";

/* seven members a-g, all voting */
static const char SEVEN[] =
	"1, started, a, https://198.18.0.1:2380, https://198.18.0.1:2379, false\n"
	"2, started, b, https://198.18.0.2:2380, https://198.18.0.2:2379, false\n"
	"3, started, c, https://198.18.0.3:2380, https://198.18.0.3:2379, false\n"
	"4, started, d, https://198.18.0.4:2380, https://198.18.0.4:2379, false\n"
	"5, started, e, https://198.18.0.5:2380, https://198.18.0.5:2379, false\n"
	"6, started, f, https://198.18.0.6:2380, https://198.18.0.6:2379, false\n"
	"7, started, g, https://198.18.0.7:2380, https://198.18.0.7:2379, false\n";

static const char *const DESC3[] = { "m1", "m2", "m3" };
static const char *const DESC3_PEERS[] = { "https://198.18.0.11:2380", "https://198.18.0.12:2380",
	"https://198.18.0.13:2380" };

/* A member list from etcdctl's text, healthy but for the names in down
 * (space-separated, each followed by a space: "m4 m5 "). */
static void members(struct etcd_remove_members *l, const char *text, const char *down)
{
	char why[256];

	memset(l, 0, sizeof(*l));
	assert_int_equal(etcd_remove_parse(text, l, why, sizeof(why)), 0);
	for (size_t i = 0; i < l->n; i++) {
		char word[64];

		snprintf(word, sizeof(word), "%s ", etcd_remove_label(&l->v[i]));
		l->v[i].healthy = *l->v[i].client && !strstr(down, word);
	}
}

struct run {
	struct etcd_remove_members l;
	struct etcd_remove_plan p;
	char order[256]; /* labels of the plan, space-separated */
};

/* Decide removing names from text's members, down as members(), the
 * description's etcd members desc (peers may be NULL). */
static void decide(struct run *r, const char *text, const char *down, const char *const *names,
	size_t nnames, const char *const *desc, const char *const *peers, size_t ndesc)
{
	struct etcd_remove_input in = { .members = &r->l,
		.names = names,
		.nnames = nnames,
		.desc_names = desc,
		.desc_peers = peers,
		.ndesc = ndesc,
		.file = FILE_ };

	members(&r->l, text, down);
	assert_int_equal(etcd_remove_decide(&in, &r->p), 0);
	r->order[0] = '\0';
	for (size_t i = 0; i < r->p.n; i++) {
		assert_true(r->p.steps[i].member < r->l.n);
		assert_true(r->p.steps[i].name < nnames);
		if (i)
			strcat(r->order, " ");
		strcat(r->order, etcd_remove_label(&r->l.v[r->p.steps[i].member]));
	}
	/* a refusal says why and plans nothing; a go has no refusal */
	if (r->p.go)
		assert_int_equal(r->p.why.len, 0);
	else
		assert_true(r->p.why.len > 0 && r->p.n == 0);
}

static void done(struct run *r)
{
	etcd_remove_plan_free(&r->p);
	etcd_remove_members_free(&r->l);
}

static const char *notes(const struct run *r)
{
	return r->p.notes.data ? r->p.notes.data : "";
}

static const char *why(const struct run *r)
{
	return r->p.why.data ? r->p.why.data : "";
}

/* ---- parsing ---- */

static void parse_real_output(void **state)
{
	static const char text[] =
		"8e9e05c52164694d, started, m1, https://198.18.0.11:2380, "
		"https://198.18.0.11:2379,https://127.0.0.1:2379, false\n"
		"fd422379fda50e48, started, m2, https://198.18.0.12:2380, "
		"https://198.18.0.12:2379, "
		"true\n"
		"\n"
		"2c3a1a0d41ef6f63, unstarted, , https://198.18.0.14:2380, , false\r\n";
	struct etcd_remove_members l = { 0 };
	char why[256];

	(void)state;
	assert_int_equal(etcd_remove_parse(text, &l, why, sizeof(why)), 0);
	assert_int_equal(l.n, 3);
	assert_true(l.v[0].id == 0x8e9e05c52164694dULL);
	assert_string_equal(l.v[0].name, "m1");
	assert_string_equal(l.v[0].peers, "https://198.18.0.11:2380");
	assert_string_equal(l.v[0].client, "https://198.18.0.11:2379");
	assert_false(l.v[0].learner);
	assert_false(l.v[0].healthy);
	/* above 2^63: no JSON integer holds it */
	assert_true(l.v[1].id == 0xfd422379fda50e48ULL);
	assert_true(l.v[1].learner);
	assert_string_equal(l.v[2].name, "");
	assert_string_equal(l.v[2].client, "");
	assert_string_equal(l.v[2].peers, "https://198.18.0.14:2380");
	assert_string_equal(etcd_remove_label(&l.v[2]), "https://198.18.0.14:2380");
	assert_false(l.v[2].learner);
	/* parsing again empties first */
	assert_int_equal(etcd_remove_parse("", &l, why, sizeof(why)), 0);
	assert_int_equal(l.n, 0);
	etcd_remove_members_free(&l);
}

static void parse_name_with_separator(void **state)
{
	struct etcd_remove_members l = { 0 };
	char why[256];

	(void)state;
	assert_int_equal(etcd_remove_parse("1, started, a, b, https://h:2380, https://h:2379, "
					   "false\n",
				 &l, why, sizeof(why)),
		0);
	assert_int_equal(l.n, 1);
	assert_true(l.v[0].id == 1);
	assert_string_equal(l.v[0].name, "a, b");
	etcd_remove_members_free(&l);
}

static void parse_refuses_what_is_not_a_member(void **state)
{
	static const char *const bad[] = {
		"ID, Status, Name, Peer Addrs, Client Addrs, Is Learner\n", /* a table header */
		"8e9e05c52164694d, started, m1, https://h:2380, https://h:2379\n",
		"8e9e05c52164694d, started, m1, https://h:2380, https://h:2379, maybe\n",
		"0x8e9e05c52164694d, started, m1, https://h:2380, https://h:2379, false\n",
		"18e9e05c52164694d, started, m1, https://h:2380, https://h:2379, false\n",
		"8e9e05c52164694d, running, m1, https://h:2380, https://h:2379, false\n",
		"8e9e05c52164694d, started, m1, , https://h:2379, false\n",
		"{\"members\":[]}\n",
		"8e9e05c52164694d,started,m1,https://h:2380,https://h:2379,false\n",
	};
	struct etcd_remove_members l = { 0 };
	char why[256];

	(void)state;
	for (size_t i = 0; i < N(bad); i++) {
		char text[512];

		/* a good line first: the error names the second */
		snprintf(text, sizeof(text), "%.*s%s", (int)strcspn(FIVE, "\n") + 1, FIVE, bad[i]);
		why[0] = '\0';
		assert_int_equal(etcd_remove_parse(text, &l, why, sizeof(why)), -EINVAL);
		assert_int_equal(l.n, 0);
		assert_non_null(strstr(why, "line 2 "));
	}
}

static void find_by_name_peer_or_id(void **state)
{
	static const char text[] =
		"8e9e05c52164694d, started, m1, https://198.18.0.11:2380, "
		"https://198.18.0.11:2379, "
		"false\n"
		"2c3a1a0d41ef6f63, unstarted, , "
		"https://198.18.0.14:2380,https://[2001:db8::14]:2380, "
		", false\n"
		"a1, started, twin, https://198.18.0.21:2380, https://198.18.0.21:2379, false\n"
		"a2, started, twin, https://198.18.0.22:2380, https://198.18.0.22:2379, false\n";
	struct etcd_remove_members l;

	(void)state;
	members(&l, text, "");
	assert_int_equal(etcd_remove_find(&l, "m1"), 0);
	assert_int_equal(etcd_remove_find(&l, "https://198.18.0.14:2380"), 1);
	assert_int_equal(etcd_remove_find(&l, "HTTPS://198.18.0.14:2380/"), 1);
	assert_int_equal(etcd_remove_find(&l, "https://[2001:db8::14]:2380"), 1);
	assert_int_equal(etcd_remove_find(&l, "2c3a1a0d41ef6f63"), 1);
	assert_int_equal(etcd_remove_find(&l, "8E9E05C52164694D"), 0);
	assert_int_equal(etcd_remove_find(&l, "twin"), -2);
	assert_int_equal(etcd_remove_find(&l, "a2"), 3);
	assert_int_equal(etcd_remove_find(&l, "m9"), -1);
	assert_int_equal(etcd_remove_find(&l, ""), -1);
	etcd_remove_members_free(&l);
}

/* ---- the rules ---- */

/* 1: still in the description, by name or by its peer URL */
static void refused_while_in_description(void **state)
{
	struct run r;

	(void)state;
	decide(&r, FIVE, "m3 m4 m5 ", NAMES("m3"), DESC3, DESC3_PEERS, 3);
	assert_false(r.p.go);
	assert_string_equal(why(&r),
		"m3 is still an etcd member in " FILE_
		": remove it from masters: there (or from etcd: hosts:) and render first\n");
	done(&r);

	/* named by its ID; the description knows its address */
	decide(&r, FIVE, "m3 m4 m5 ", NAMES("fd422379fda50e48"), (const char *const[]){ "x1" },
		(const char *const[]){ "https://198.18.0.13:2380/" }, 1);
	assert_false(r.p.go);
	assert_non_null(strstr(why(&r), "m3 is still an etcd member in " FILE_ ": "));
	done(&r);

	/* in the description but no longer in etcd: still refused */
	decide(&r, FIVE, "m4 m5 ", NAMES("m4", "m7"),
		(const char *const[]){ "m1", "m2", "m3", "m7", "m4" }, NULL, 5);
	assert_false(r.p.go);
	assert_string_equal(why(&r),
		"m4 is still an etcd member in " FILE_
		": remove it from masters: there (or from etcd: hosts:) and render first\n"
		"m7 is still an etcd member in " FILE_
		": remove it from masters: there (or from etcd: hosts:) and render first\n");
	done(&r);
}

/* 2: gone already is a note, and nothing left is nothing to do */
static void removed_already_is_nothing_to_do(void **state)
{
	static const char three[] = "8e9e05c52164694d, started, m1, https://198.18.0.11:2380, "
				    "https://198.18.0.11:2379, "
				    "false\n"
				    "91bc3c398fb3c146, started, m2, https://198.18.0.12:2380, "
				    "https://198.18.0.12:2379, "
				    "false\n"
				    "fd422379fda50e48, started, m3, https://198.18.0.13:2380, "
				    "https://198.18.0.13:2379, "
				    "false\n";
	struct run r;

	(void)state;
	decide(&r, three, "", NAMES("m4", "m5"), DESC3, DESC3_PEERS, 3);
	assert_true(r.p.go);
	assert_int_equal(r.p.n, 0);
	assert_string_equal(notes(&r),
		"m4: not a member (removed already)\nm5: not a member (removed already)\n");
	assert_int_equal(r.p.voters_left, 3);
	assert_int_equal(r.p.healthy_left, 3);
	done(&r);

	/* one gone, the other still there */
	decide(&r, FIVE, "m5 ", NAMES("m4", "m5"), (const char *const[]){ "m1", "m2", "m3", "m4" },
		NULL, 4);
	assert_false(r.p.go); /* m4 is in that description */
	done(&r);
	decide(&r, FIVE, "m4 m5 ", NAMES("m6", "m5", "m4"), DESC3, DESC3_PEERS, 3);
	assert_true(r.p.go);
	assert_string_equal(r.order, "m5 m4");
	assert_string_equal(notes(&r), "m6: not a member (removed already)\n");
	done(&r);
}

/* 3: a member that still answers is not removed */
static void refused_while_running(void **state)
{
	struct run r;

	(void)state;
	decide(&r, FIVE, "m5 ", NAMES("m4", "m5"), DESC3, DESC3_PEERS, 3);
	assert_false(r.p.go);
	assert_string_equal(why(&r), "m4's member still runs: stop it first (pcs node standby m4, "
				     "or stop etcd there), then remove it\n");
	done(&r);
}

/* 4: the members that stay keep a quorum */
static void refused_without_quorum(void **state)
{
	struct run r;

	(void)state;
	/* two of the three that stay are down */
	decide(&r, FIVE, "m2 m3 m4 m5 ", NAMES("m4", "m5"), DESC3, DESC3_PEERS, 3);
	assert_false(r.p.go);
	assert_string_equal(why(&r), "removing m4 and m5 would leave 1 healthy of 3 voting "
				     "members: no quorum (2 needed; m2 and m3 do not answer)\n");
	assert_int_equal(r.p.voters_left, 3);
	assert_int_equal(r.p.healthy_left, 1);
	done(&r);

	/* one of them down: 2 of the 3 left would be a quorum, but 2 of
	 * today's 5 are not, and the first removal needs them */
	decide(&r, FIVE, "m3 m4 m5 ", NAMES("m4", "m5"), DESC3, DESC3_PEERS, 3);
	assert_false(r.p.go);
	assert_string_equal(why(&r), "etcd has 2 healthy of 5 voting members: no quorum (3 "
				     "needed) to commit a removal (m3, m4 and m5 do not answer)\n");
	assert_int_equal(r.p.voters_left, 3);
	assert_int_equal(r.p.healthy_left, 2);
	done(&r);

	/* the last voter */
	decide(&r,
		"8e9e05c52164694d, started, m1, https://198.18.0.11:2380, "
		"https://198.18.0.11:2379, "
		"false\n",
		"m1 ", NAMES("m1"), (const char *const[]){ "n1" }, NULL, 1);
	assert_false(r.p.go);
	assert_string_equal(why(&r), "removing m1 would leave etcd no voting member: keep one\n");
	done(&r);

	/* the four that stay have a quorum (3 of 4), but the seven of now do
	 * not (3 of 7): the first removal could not be committed */
	decide(&r, SEVEN, "d e f g ", NAMES("e", "f", "g"),
		(const char *const[]){ "a", "b", "c", "d" }, NULL, 4);
	assert_false(r.p.go);
	assert_string_equal(why(&r), "etcd has 3 healthy of 7 voting members: no quorum (4 "
				     "needed) to commit a removal (d, e, f and g do not answer)\n");
	done(&r);
}

/* 5: an even count is refused unless a departed member is still to go */
static void even_counts(void **state)
{
	struct run r;

	(void)state;
	/* 5 to 4, all four in the description */
	decide(&r, FIVE, "m5 ", NAMES("m5"), (const char *const[]){ "m1", "m2", "m3", "m4" }, NULL,
		4);
	assert_false(r.p.go);
	assert_string_equal(why(&r),
		"removing m5 would leave etcd 4 voting members, an even number: they tolerate no "
		"more failures than 3 do and need one vote more; take one more member out of " FILE_
		" and remove it too, or keep m5\n");
	assert_int_equal(r.p.voters_left, 4);
	done(&r);

	/* 5 to 3 in two names */
	decide(&r, FIVE, "m4 m5 ", NAMES("m4", "m5"), DESC3, DESC3_PEERS, 3);
	assert_true(r.p.go);
	assert_string_equal(r.order, "m4 m5");
	assert_int_equal(r.p.steps[0].voters_after, 4);
	assert_int_equal(r.p.steps[1].voters_after, 3);
	assert_int_equal(r.p.voters_left, 3);
	assert_int_equal(r.p.healthy_left, 3);
	assert_string_equal(notes(&r), "");
	done(&r);

	/* 5 to 4 while m4, departed too, is still a member: one at a time */
	decide(&r, FIVE, "m4 m5 ", NAMES("m5"), DESC3, DESC3_PEERS, 3);
	assert_true(r.p.go);
	assert_string_equal(r.order, "m5");
	assert_string_equal(notes(&r),
		"etcd is left with 4 voting members, an even number, while m4 (not in " FILE_
		") is still a member: remove it too\n");
	done(&r);

	/* 7 to 4 with three names, all in the description: keep one of them */
	decide(&r, SEVEN, "e f g ", NAMES("e", "f", "g"),
		(const char *const[]){ "a", "b", "c", "d" }, NULL, 4);
	assert_false(r.p.go);
	assert_non_null(strstr(why(&r), "removing e, f and g would leave etcd 4 voting members, "));
	assert_non_null(strstr(why(&r), ", or keep one of e, f and g\n"));
	done(&r);
}

/* 6: learners first, then in the order given; a name twice is one removal */
static void order_and_repeats(void **state)
{
	static const char text[] =
		"8e9e05c52164694d, started, m1, https://198.18.0.11:2380, "
		"https://198.18.0.11:2379, "
		"false\n"
		"91bc3c398fb3c146, started, m2, https://198.18.0.12:2380, "
		"https://198.18.0.12:2379, "
		"false\n"
		"fd422379fda50e48, started, m3, https://198.18.0.13:2380, "
		"https://198.18.0.13:2379, "
		"false\n"
		"2c3a1a0d41ef6f63, started, m4, https://198.18.0.14:2380, "
		"https://198.18.0.14:2379, "
		"false\n"
		"a1b2c3d4e5f60718, started, m5, https://198.18.0.15:2380, "
		"https://198.18.0.15:2379, "
		"false\n"
		"5a5a5a5a5a5a5a5a, started, m6, https://198.18.0.16:2380, "
		"https://198.18.0.16:2379, "
		"true\n"
		"6b6b6b6b6b6b6b6b, unstarted, , https://198.18.0.17:2380, , true\n";
	struct run r;

	(void)state;
	decide(&r, text, "m4 m5 m6 ",
		NAMES("m5", "m4", "m6", "m5", "https://198.18.0.17:2380", "2c3a1a0d41ef6f63"),
		DESC3, DESC3_PEERS, 3);
	assert_true(r.p.go);
	assert_string_equal(r.order, "m6 https://198.18.0.17:2380 m5 m4");
	assert_int_equal(r.p.steps[0].name, 2);
	assert_int_equal(r.p.steps[1].name, 4);
	assert_int_equal(r.p.steps[2].name, 0);
	assert_int_equal(r.p.steps[3].name, 1);
	/* learners hold no vote */
	assert_int_equal(r.p.steps[0].voters_after, 5);
	assert_int_equal(r.p.steps[1].voters_after, 5);
	assert_int_equal(r.p.steps[2].voters_after, 4);
	assert_int_equal(r.p.steps[3].voters_after, 3);
	assert_string_equal(notes(&r), "");
	done(&r);

	/* the same name twice */
	decide(&r, FIVE, "m4 m5 ", NAMES("m5", "m4", "m4"), DESC3, DESC3_PEERS, 3);
	assert_true(r.p.go);
	assert_int_equal(r.p.n, 2);
	assert_string_equal(r.order, "m5 m4");
	done(&r);

	/* an unstarted learner alone changes no vote: even is not its doing */
	decide(&r, text, "m4 m5 m6 ", NAMES("https://198.18.0.17:2380"),
		(const char *const[]){ "m1", "m2", "m3", "m4" }, NULL, 4);
	assert_true(r.p.go);
	assert_string_equal(r.order, "https://198.18.0.17:2380");
	done(&r);
}

static void ambiguous_name_refused(void **state)
{
	struct run r;

	(void)state;
	decide(&r,
		"a1, started, m1, https://198.18.0.11:2380, https://198.18.0.11:2379, false\n"
		"a2, started, m2, https://198.18.0.12:2380, https://198.18.0.12:2379, false\n"
		"a3, started, m3, https://198.18.0.13:2380, https://198.18.0.13:2379, false\n"
		"b1, started, old, https://198.18.0.21:2380, https://198.18.0.21:2379, false\n"
		"b2, started, old, https://198.18.0.22:2380, https://198.18.0.22:2379, false\n",
		"old ", NAMES("old"), DESC3, NULL, 3);
	assert_false(r.p.go);
	assert_string_equal(why(&r), "old names more than one member: give the ID of the one to "
				     "remove (etcdctl member list)\n");
	done(&r);
}

static void health_needed(void **state)
{
	static const char text[] = "8e9e05c52164694d, started, m1, https://198.18.0.11:2380, "
				   "https://198.18.0.11:2379, "
				   "false\n"
				   "5a5a5a5a5a5a5a5a, started, m6, https://198.18.0.16:2380, "
				   "https://198.18.0.16:2379, "
				   "true\n"
				   "6b6b6b6b6b6b6b6b, started, m7, https://198.18.0.17:2380, "
				   "https://198.18.0.17:2379, "
				   "true\n";
	struct etcd_remove_members l;
	struct etcd_remove_input in = {
		.members = &l, .names = (const char *const[]){ "m7" }, .nnames = 1, .file = FILE_
	};

	(void)state;
	members(&l, text, "");
	assert_true(etcd_remove_health_needed(&in, 0));  /* a voter */
	assert_false(etcd_remove_health_needed(&in, 1)); /* a learner not named */
	assert_true(etcd_remove_health_needed(&in, 2));  /* a learner named */
	etcd_remove_members_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_real_output),
		cmocka_unit_test(parse_name_with_separator),
		cmocka_unit_test(parse_refuses_what_is_not_a_member),
		cmocka_unit_test(find_by_name_peer_or_id),
		cmocka_unit_test(refused_while_in_description),
		cmocka_unit_test(removed_already_is_nothing_to_do),
		cmocka_unit_test(refused_while_running),
		cmocka_unit_test(refused_without_quorum),
		cmocka_unit_test(even_counts),
		cmocka_unit_test(order_and_repeats),
		cmocka_unit_test(ambiguous_name_refused),
		cmocka_unit_test(health_needed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
