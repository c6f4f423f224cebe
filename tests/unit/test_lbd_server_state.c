#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "server_state.h"

#define HEADER                                                                                     \
	"# be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state srv_uweight "       \
	"srv_iweight srv_time_since_last_change srv_check_status srv_check_result "                \
	"srv_check_health srv_check_state srv_agent_state bk_f_forced_id srv_f_forced_id "         \
	"srv_fqdn srv_port srvrecord srv_use_ssl srv_check_port srv_check_addr srv_agent_addr "    \
	"srv_agent_port\n"

/* What haproxy 2.6.12 printed after 'disable server b/m2', 'set server
 * b/m1 state drain' and 'set weight b/m3 7', with its closing empty line. */
#define HAPROXY_DUMP                                                                               \
	"1\n" HEADER "3 b 1 m1 127.0.0.1 0 8 1 1 2 8 2 0 6 0 0 0 - 18001 - 0 0 - - 0\n"            \
	"3 b 2 m2 127.0.0.1 0 1 50 50 7 8 2 0 14 0 0 0 - 18002 - 0 0 - - 0\n"                      \
	"3 b 3 m3 127.0.0.1 0 0 7 1 7 8 2 0 6 0 0 0 localhost 18003 - 0 0 - - 0\n"                 \
	"\n"

static int parse(const char *text, struct srvstate_file *f, unsigned *bad)
{
	char *copy = strdup(text);

	assert_non_null(copy);
	return srvstate_parse(copy, strlen(text), f, bad);
}

static void test_parse_haproxy_dump(void **state)
{
	struct srvstate_file f;
	struct srvstate_line *l;
	unsigned bad;

	(void)state;
	assert_int_equal(parse(HAPROXY_DUMP, &f, &bad), 0);
	assert_int_equal(f.nlines, 3);
	l = srvstate_find(&f, "b", "m3");
	assert_non_null(l);
	assert_int_equal(l->lineno, 5);
	assert_int_equal(l->n, 25);
	assert_string_equal(l->f[17], "localhost");
	assert_null(srvstate_find(&f, "b", "m9"));
	assert_null(srvstate_find(&f, "c", "m1"));
	l->used = true;
	assert_null(srvstate_find(&f, "b", "m3")); /* a duplicate would be the next one */
	srvstate_file_free(&f);
}

static void test_parse_bad_files(void **state)
{
	struct srvstate_file f;
	unsigned bad;
	char longline[700];

	(void)state;
	assert_int_equal(parse("", &f, &bad), -1);
	srvstate_file_free(&f);
	assert_int_equal(parse("2\n" HEADER, &f, &bad), -2);
	srvstate_file_free(&f);
	assert_int_equal(parse("1 \n", &f, &bad), -2);
	srvstate_file_free(&f);
	assert_int_equal(parse("v1\n", &f, &bad), -2);
	srvstate_file_free(&f);
	/* 19 fields: corrupt, at its line */
	assert_int_equal(
		parse("1\n" HEADER "\n3 b 1 m1 127.0.0.1 0 8 1 1 2 8 2 0 6 0 0 0 - 18001\n", &f,
			&bad),
		-3);
	assert_int_equal(bad, 4);
	srvstate_file_free(&f);
	/* 26 fields */
	assert_int_equal(
		parse("1\n3 b 1 m1 127.0.0.1 0 8 1 1 2 8 2 0 6 0 0 0 - 18001 - 0 0 - - 0 9\n", &f,
			&bad),
		-3);
	assert_int_equal(bad, 2);
	srvstate_file_free(&f);
	/* the last line cut short (no newline): corrupt, as in HAProxy */
	assert_int_equal(parse("1\n3 b 1 m1 127.0.0.1 0 8 1 1 2 8 2 0 6 0 0 0 - 18001 - 0 0 - - 0",
				 &f, &bad),
		-3);
	assert_int_equal(bad, 2);
	srvstate_file_free(&f);
	/* longer than HAProxy's line buffer */
	memset(longline, 'x', sizeof(longline));
	memcpy(longline, "1\n", 2);
	longline[sizeof(longline) - 2] = '\n';
	longline[sizeof(longline) - 1] = '\0';
	assert_int_equal(parse(longline, &f, &bad), -3);
	assert_int_equal(bad, 2);
	srvstate_file_free(&f);
}

static void test_values(void **state)
{
	struct srvstate_file f;
	struct srvstate_vals v;
	unsigned bad;
	char err[512];

	(void)state;
	assert_int_equal(parse(HAPROXY_DUMP, &f, &bad), 0);
	assert_int_equal(srvstate_values(srvstate_find(&f, "b", "m2"), &v, err, sizeof(err)), 0);
	assert_int_equal(v.op, SRVSTATE_OP_STOPPED);
	assert_int_equal(v.admin, SRVSTATE_ADM_FMAINT);
	assert_int_equal(v.uweight, 50);
	assert_int_equal(v.iweight, 50);
	assert_int_equal(v.since, 7);
	assert_int_equal(v.check_status, 8);
	assert_int_equal(v.check_result, SRVSTATE_RES_FAILED);
	assert_int_equal(v.check_state, 14);
	assert_string_equal(v.addr, "127.0.0.1");
	assert_null(v.fqdn);
	assert_int_equal(v.port, 18002);
	assert_int_equal(srvstate_values(srvstate_find(&f, "b", "m3"), &v, err, sizeof(err)), 0);
	assert_string_equal(v.fqdn, "localhost");
	srvstate_file_free(&f);

	/* each bad field named, as HAProxy's warning does */
	assert_int_equal(
		parse("1\n3 b 1 m1 127.0.0.1 4 2 300 1 2 99 7 0 64 0 0 0 - 18001 - 0 0 - - 0\n", &f,
			&bad),
		0);
	assert_int_equal(srvstate_values(&f.lines[0], &v, err, sizeof(err)), -1);
	assert_non_null(strstr(err, ", invalid srv_op_state value '4'"));
	assert_null(strstr(err, "srv_admin_state")); /* 2: inherited maint, dropped */
	assert_non_null(strstr(err, ", invalid srv_uweight value '300'"));
	assert_non_null(strstr(err, ", invalid srv_check_status value '99'"));
	assert_non_null(strstr(err, ", invalid srv_check_result value '7'"));
	assert_non_null(strstr(err, ", invalid srv_check_state value '64'"));
	srvstate_file_free(&f);
	/* inherited and resolution bits are dropped; drain with maint is not a state */
	assert_int_equal(parse("1\n3 b 1 m1 - 0 34 1 1 2 1 0 0 0 0 0 0 - 0 - 0 0 - - 0\n"
			       "3 b 2 m2 - 0 9 1 1 2 1 0 0 0 0 0 0 - 0 - 0 0 - - 0\n",
				 &f, &bad),
		0);
	assert_int_equal(srvstate_values(&f.lines[0], &v, err, sizeof(err)), 0);
	assert_int_equal(v.admin, 0);
	assert_null(v.addr);
	assert_int_equal(srvstate_values(&f.lines[1], &v, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "srv_admin_state"));
	srvstate_file_free(&f);
}

static struct srvstate_decision decide(
	int op, int admin, unsigned uw, unsigned iw, int health, const struct srvstate_target *t)
{
	struct srvstate_vals v = { 0 };
	struct srvstate_decision d;

	v.op = op;
	v.admin = admin;
	v.uweight = uw;
	v.iweight = iw;
	v.health = health;
	srvstate_decide(&v, t, &d);
	return d;
}

static void test_decide(void **state)
{
	struct srvstate_target t = { .rise = 2, .fall = 3, .checked = true, .cfg_weight = 1 };
	struct srvstate_decision d;

	(void)state;
	d = decide(SRVSTATE_OP_RUNNING, 0, 7, 1, 0, &t);
	assert_true(d.set_up);
	assert_true(d.up);
	assert_int_equal(d.health, 4); /* rise + fall - 1 */
	assert_int_equal(d.admin, LBD_ADMIN_READY);
	assert_true(d.set_weight);
	assert_int_equal(d.weight, 7);
	/* the configured weight changed: it wins */
	d = decide(SRVSTATE_OP_RUNNING, 0, 7, 5, 0, &t);
	assert_false(d.set_weight);
	d = decide(SRVSTATE_OP_STOPPED, SRVSTATE_ADM_FMAINT, 1, 1, 3, &t);
	assert_false(d.up);
	assert_int_equal(d.health, 0);
	assert_int_equal(d.admin, LBD_ADMIN_MAINT);
	d = decide(SRVSTATE_OP_STOPPED, SRVSTATE_ADM_FDRAIN, 1, 1, 0, &t);
	assert_int_equal(d.admin, LBD_ADMIN_DRAIN);
	/* drain that came from a weight of 0 the configuration raised */
	d = decide(SRVSTATE_OP_RUNNING, SRVSTATE_ADM_FDRAIN, 0, 0, 0, &t);
	assert_int_equal(d.admin, LBD_ADMIN_READY);
	/* starting: up only with rise 1; health kept below rise */
	d = decide(SRVSTATE_OP_STARTING, 0, 1, 1, 3, &t);
	assert_false(d.up);
	assert_int_equal(d.health, 1);
	d = decide(SRVSTATE_OP_STOPPING, 0, 1, 1, 0, &t);
	assert_true(d.up);
	assert_int_equal(d.health, 2);
	/* 'disabled' in the configuration: file without CMAINT -> config wins */
	t.cfg_disabled = true;
	d = decide(SRVSTATE_OP_RUNNING, 0, 1, 1, 0, &t);
	assert_int_equal(d.admin, LBD_ADMIN_MAINT);
	/* same CMAINT, no forced maint: the administrator enabled it */
	d = decide(SRVSTATE_OP_RUNNING, SRVSTATE_ADM_CMAINT, 1, 1, 0, &t);
	assert_int_equal(d.admin, LBD_ADMIN_READY);
	d = decide(SRVSTATE_OP_RUNNING, SRVSTATE_ADM_CMAINT | SRVSTATE_ADM_FMAINT, 1, 1, 0, &t);
	assert_int_equal(d.admin, LBD_ADMIN_MAINT);
	/* 'disabled' removed from the configuration: ready */
	t.cfg_disabled = false;
	d = decide(SRVSTATE_OP_STOPPED, SRVSTATE_ADM_CMAINT | SRVSTATE_ADM_FMAINT, 1, 1, 0, &t);
	assert_int_equal(d.admin, LBD_ADMIN_READY);
	/* unchecked servers keep lbd's rule: always up */
	t.checked = false;
	d = decide(SRVSTATE_OP_STOPPED, 0, 1, 1, 0, &t);
	assert_false(d.set_up);
}

static void test_status_codes(void **state)
{
	(void)state;
	assert_int_equal(srvstate_status_code("Layer4 connection problem: Connection refused"), 8);
	assert_int_equal(srvstate_status_code("Layer4 check passed"), 6);
	assert_int_equal(srvstate_status_code("Layer4 timeout"), 7);
	assert_int_equal(srvstate_status_code("Layer7 check passed: 200"), 15);
	assert_int_equal(srvstate_status_code("Layer7 wrong status: 503"), 17);
	assert_int_equal(srvstate_status_code("Layer7 wrong content (status 200)"), 17);
	assert_int_equal(srvstate_status_code("Layer6 invalid response: TLS error: x"), 11);
	assert_int_equal(srvstate_status_code("starting"), SRVSTATE_HCHK_INI);
	assert_int_equal(srvstate_status_result(8), SRVSTATE_RES_FAILED);
	assert_int_equal(srvstate_status_result(15), SRVSTATE_RES_PASSED);
	assert_int_equal(srvstate_status_result(SRVSTATE_HCHK_INI), SRVSTATE_RES_UNKNOWN);
	assert_string_equal(srvstate_status_text(8), "Layer4 connection problem");
	assert_int_equal(srvstate_status_code(srvstate_status_text(12)), 12);
	assert_null(srvstate_status_text(1));
	assert_null(srvstate_status_text(99));
}

/* Garbage of every shape: the parser and the field checks stay in bounds
 * (run under ASan) and never accept a file without the version line. */
static void test_garbage(void **state)
{
	static const char alphabet[] = "0123456789 \t\n#-ab.:";
	struct srvstate_file f;
	struct srvstate_vals v;
	unsigned seed = 12345, bad, i, k, len;
	char err[512], *text;
	size_t j;
	int r;

	(void)state;
	for (i = 0; i < 3000; i++) {
		len = (seed = seed * 1103515245u + 12345u) % 700;
		text = malloc(len + 3);
		assert_non_null(text);
		memcpy(text, "1\n", 2);
		for (k = 2; k < len + 2; k++) {
			seed = seed * 1103515245u + 12345u;
			text[k] = (seed >> 16) % 50 == 0
					  ? (char)(seed >> 8)
					  : alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
		}
		text[len + 2] = '\0';
		r = srvstate_parse(text, len + 2, &f, &bad);
		assert_true(r == 0 || r == -3);
		for (j = 0; r == 0 && j < f.nlines; j++) {
			assert_in_range(f.lines[j].n, SRVSTATE_FIELDS_MIN, SRVSTATE_FIELDS_MAX);
			srvstate_values(&f.lines[j], &v, err, sizeof(err));
		}
		srvstate_file_free(&f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_haproxy_dump),
		cmocka_unit_test(test_parse_bad_files),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_status_codes),
		cmocka_unit_test(test_garbage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
