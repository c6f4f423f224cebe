/* cpha drain / undrain (drain.c): `show servers state` as HAProxy 2.6 and
 * lbd write it, and what is done with a server. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "drain.h"
#include "lbdrain.h"

/* HAProxy 2.6's answer to `show servers state apiserver`: m1 up, m2 down
 * (its check failed), m3 drained by the operator and up. */
static const char haproxy26[] =
	"1\n"
	"# be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state srv_uweight "
	"srv_iweight srv_time_since_last_change srv_check_status srv_check_result "
	"srv_check_health srv_check_state srv_agent_state bk_f_forced_id srv_f_forced_id "
	"srv_fqdn srv_port srvrecord srv_use_ssl srv_check_port srv_check_addr srv_agent_addr "
	"srv_agent_port\n"
	"3 apiserver 1 m1 198.18.1.11 2 0 100 100 532 15 3 4 6 0 0 0 - 6443 - 0 0 - - 0\n"
	"3 apiserver 2 m2 198.18.1.12 0 0 100 100 12 8 2 0 6 0 0 0 - 6443 - 0 0 - - 0\n"
	"3 apiserver 3 m3 198.18.1.13 2 8 100 100 40 15 3 4 6 0 0 0 - 6443 - 0 0 - - 0\n"
	"4 other 1 m1 198.18.1.11 0 1 100 100 40 15 3 4 6 0 0 0 - 80 - 0 0 - - 0\n";

#define N 16

static int parse(const char *text, struct drain_server *s, char *err)
{
	return drain_parse_state(text, "apiserver", s, N, err, 256);
}

static void parses_haproxy_and_lbd(void **state)
{
	struct drain_server s[N];
	char err[256] = "";

	(void)state;
	assert_int_equal(parse(haproxy26, s, err), 3);
	assert_string_equal(s[0].name, "m1");
	assert_int_equal(s[0].op, DRAIN_OP_RUNNING);
	assert_int_equal(s[1].op, DRAIN_OP_STOPPED);
	assert_int_equal(s[2].admin, DRAIN_ADM_FDRAIN);
	assert_true(drain_in_rotation(&s[0]));
	assert_false(drain_in_rotation(&s[1]));
	assert_false(drain_in_rotation(&s[2]));
	/* only the backend asked for */
	assert_int_equal(drain_parse_state(haproxy26, "other", s, N, err, sizeof(err)), 1);
	assert_int_equal(s[0].admin, DRAIN_ADM_FMAINT);
	/* no server at all: the version and the header only */
	assert_int_equal(parse("1\n# be_id be_name\n", s, err), 0);
	/* CRLF and a short buffer */
	assert_int_equal(parse("1\r\n3 apiserver 1 m1 - 1 0\r\n", s, err), 1);
	assert_int_equal(s[0].op, DRAIN_OP_STARTING);
	assert_true(drain_in_rotation(&s[0]));
	assert_int_equal(drain_parse_state(haproxy26, "apiserver", s, 1, err, sizeof(err)), 1);
}

static void refuses_what_is_not_the_answer(void **state)
{
	struct drain_server s[N];
	char err[256];

	(void)state;
	/* HAProxy's answer for a backend it lacks */
	assert_int_equal(parse("Can't find backend.\n", s, err), -1);
	assert_non_null(strstr(err, "line 1"));
	assert_non_null(strstr(err, "Can't find backend."));
	assert_int_equal(parse("", s, err), -1);
	assert_int_equal(parse("2\n", s, err), -1);
	assert_int_equal(parse("1\n3 apiserver 1 m1 - 2\n", s, err), -1);
	assert_non_null(strstr(err, "line 2"));
	assert_int_equal(parse("1\n# h\n3 apiserver 1 m1 - 7 0\n", s, err), -1);
	assert_non_null(strstr(err, "line 3: srv_op_state '7'"));
	assert_int_equal(parse("1\n3 apiserver 1 m1 - 2 x\n", s, err), -1);
	assert_non_null(strstr(err, "srv_admin_state 'x'"));
}

static enum drain_verdict decide(
	const char *text, const char *name, int drain, int force, char *cmd, char *why)
{
	struct drain_server s[N];
	char err[256];
	int n = parse(text, s, err);

	assert_true(n >= 0);
	return drain_decide(s, (size_t)n, "apiserver", name, drain, force, cmd, 256, why, 1024);
}

#define SRV(name, op, adm) "3 apiserver 1 " name " - " #op " " #adm " 100 100 0\n"

static void drain_rules(void **state)
{
	char cmd[256], why[1024];

	(void)state;
	/* m1 up with m3 drained and m2 down: m1 is the last one in rotation */
	assert_int_equal(decide(haproxy26, "m1", 1, 0, cmd, why), DRAIN_REFUSE);
	assert_string_equal(cmd, "");
	assert_non_null(strstr(why, "only server in rotation here (m2 down, m3 drained)"));
	assert_non_null(strstr(why, "--force"));
	assert_int_equal(decide(haproxy26, "m1", 1, 1, cmd, why), DRAIN_SEND);
	assert_string_equal(cmd, "set server apiserver/m1 state drain");
	/* a down one may go: it takes nothing now */
	assert_int_equal(decide(haproxy26, "m2", 1, 0, cmd, why), DRAIN_SEND);
	assert_string_equal(cmd, "set server apiserver/m2 state drain");
	assert_non_null(strstr(why, "1 other server in rotation"));
	assert_int_equal(decide(haproxy26, "m3", 1, 0, cmd, why), DRAIN_NOTHING);
	assert_non_null(strstr(why, "drained already"));
	assert_int_equal(decide(haproxy26, "m9", 1, 1, cmd, why), DRAIN_REFUSE);
	assert_string_equal(why, "apiserver has no server m9");

	const char *all = SRV("m1", 2, 0) SRV("m2", 2, 0) SRV("m3", 1, 0);
	char text[512] = "1\n";
	strcat(text, all);
	assert_int_equal(decide(text, "m2", 1, 0, cmd, why), DRAIN_SEND);
	assert_non_null(strstr(why, "2 other servers in rotation"));

	/* in maintenance: out already */
	strcpy(text, "1\n" SRV("m1", 0, 1) SRV("m2", 2, 0));
	assert_int_equal(decide(text, "m1", 1, 0, cmd, why), DRAIN_NOTHING);
	assert_non_null(strstr(why, "maintenance"));
	/* m2's only companion in maintenance, one stopping: m2 is the last */
	strcpy(text, "1\n" SRV("m1", 0, 1) SRV("m2", 2, 0) SRV("m3", 3, 0));
	assert_int_equal(decide(text, "m2", 1, 0, cmd, why), DRAIN_REFUSE);
	assert_non_null(strstr(why, "(m1 in maintenance, m3 stopping)"));
}

static void undrain_rules(void **state)
{
	char cmd[256], why[1024], text[512];

	(void)state;
	assert_int_equal(decide(haproxy26, "m3", 0, 0, cmd, why), DRAIN_SEND);
	assert_string_equal(cmd, "set server apiserver/m3 state ready");
	assert_string_equal(why, "apiserver/m3 back in rotation");
	assert_int_equal(decide(haproxy26, "m1", 0, 0, cmd, why), DRAIN_NOTHING);
	assert_string_equal(cmd, "");
	assert_string_equal(why, "apiserver/m1 is not drained");
	/* drained and down (restarting): back once its checks pass */
	strcpy(text, "1\n" SRV("m1", 0, 8) SRV("m2", 2, 0));
	assert_int_equal(decide(text, "m1", 0, 0, cmd, why), DRAIN_SEND);
	assert_non_null(strstr(why, "once its checks pass"));
	/* drained and in maintenance: `state ready` would end both */
	strcpy(text, "1\n" SRV("m1", 0, 9) SRV("m2", 2, 0));
	assert_int_equal(decide(text, "m1", 0, 0, cmd, why), DRAIN_REFUSE);
	assert_string_equal(cmd, "");
	assert_non_null(strstr(why, "also in maintenance"));
	strcpy(text, "1\n" SRV("m1", 0, 1));
	assert_int_equal(decide(text, "m1", 0, 0, cmd, why), DRAIN_NOTHING);
	assert_non_null(strstr(why, "in maintenance, left as it is"));
	assert_int_equal(decide(text, "m5", 0, 0, cmd, why), DRAIN_REFUSE);
}

/* cpha drain LBHOST (lbdrain.c): lb1 and the other LB hosts as their
 * vipd /status has them. */
static enum lbdrain_verdict lb(bool drain, bool force, bool drained, bool holds, bool known,
	const struct lbdrain_peer *p, size_t n, char *why)
{
	const struct lbdrain_in in = { .host = "lb1",
		.drain = drain,
		.force = force,
		.drained = drained,
		.holds_vip = holds,
		.peers_known = known,
		.peers = p,
		.npeers = n };

	return lbdrain_decide(&in, why, 512);
}

static void lb_drain_rules(void **state)
{
	struct lbdrain_peer up[] = { { "lb2", true, "FAULT", false, 0 },
		{ "lb3", true, "BACKUP", false, 0 } };
	struct lbdrain_peer none[] = { { "lb2", true, "FAULT", true, 0 },
		{ "lb3", false, "", false, 0 } };
	struct lbdrain_peer drained_backup[] = { { "lb2", true, "BACKUP", true, 0 } };
	struct lbdrain_peer starting[] = { { "lb2", true, "BACKUP", false, 12400 } };
	char why[512];

	(void)state;
	/* the holder with a backup up: the VIP goes there */
	assert_int_equal(lb(true, false, false, true, true, up, 2, why), LBDRAIN_WRITE);
	assert_non_null(strstr(why, "lb3 was a backup"));
	/* the holder with none: refused, naming what each other host is */
	assert_int_equal(lb(true, false, false, true, true, none, 2, why), LBDRAIN_REFUSE);
	assert_non_null(strstr(why, "lb2: FAULT, drained; lb3: no answer"));
	assert_non_null(strstr(why, "--force"));
	/* a backup that is drained itself takes nothing */
	assert_int_equal(
		lb(true, false, false, true, true, drained_backup, 1, why), LBDRAIN_REFUSE);
	/* a backup whose vipd has just started (vrrp_startup_delay) takes no
	 * VIP before its delay ends: the API would have none meanwhile */
	assert_int_equal(lb(true, false, false, true, true, starting, 1, why), LBDRAIN_REFUSE);
	assert_non_null(strstr(why, "lb2: BACKUP, starting: no master for 12.4 s more"));
	/* the only LB host */
	assert_int_equal(lb(true, false, false, true, true, NULL, 0, why), LBDRAIN_REFUSE);
	assert_non_null(strstr(why, "there is none"));
	assert_int_equal(lb(true, true, false, true, true, none, 2, why), LBDRAIN_WRITE);
	/* keepalived: nobody to ask; only --force */
	assert_int_equal(lb(true, false, false, true, false, NULL, 0, why), LBDRAIN_REFUSE);
	assert_non_null(strstr(why, "cannot be read from here (keepalived answers no /status)"));
	assert_int_equal(lb(true, true, false, true, false, NULL, 0, why), LBDRAIN_WRITE);
	/* not the holder: nothing moves, whatever the others are */
	assert_int_equal(lb(true, false, false, false, true, none, 2, why), LBDRAIN_WRITE);
	assert_non_null(strstr(why, "holds no VIP"));
	/* twice, and an undrain */
	assert_int_equal(lb(true, false, true, false, true, up, 2, why), LBDRAIN_NOTHING);
	assert_int_equal(lb(false, false, false, false, true, up, 2, why), LBDRAIN_NOTHING);
	assert_int_equal(lb(false, false, true, false, true, none, 2, why), LBDRAIN_WRITE);
}

static void lb_drain_settles(void **state)
{
	struct lbdrain_peer moved[] = { { "lb2", true, "MASTER", false, 0 } };
	struct lbdrain_peer gone[] = { { "lb2", true, "BACKUP", false, 0 } };

	(void)state;
	/* the VIP still here, or on no host yet: not yet */
	assert_false(lbdrain_settled(true, true, "FAULT", 0, moved, 1, true));
	assert_false(lbdrain_settled(true, false, "FAULT", 0, gone, 1, true));
	assert_true(lbdrain_settled(true, false, "FAULT", 0, moved, 1, true));
	/* keepalived: once it is gone from here */
	assert_true(lbdrain_settled(true, false, "", 0, NULL, 0, false));
	/* undrain: out of FAULT, and able to take the VIP (past its
	 * vrrp_startup_delay) before the next host is drained */
	assert_false(lbdrain_settled(false, false, "FAULT", 0, moved, 1, true));
	assert_false(lbdrain_settled(false, false, "BACKUP", 3000, moved, 1, true));
	assert_true(lbdrain_settled(false, false, "BACKUP", 0, moved, 1, true));
	assert_true(lbdrain_settled(false, false, "", 0, NULL, 0, false));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parses_haproxy_and_lbd),
		cmocka_unit_test(refuses_what_is_not_the_answer),
		cmocka_unit_test(drain_rules),
		cmocka_unit_test(undrain_rules),
		cmocka_unit_test(lb_drain_rules),
		cmocka_unit_test(lb_drain_settles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
