/* vipd's track_process decisions: which processes match a
 * vrrp_track_process (comm, or the command line with full_command and
 * param_match), the quorum rule, and fork_delay / terminate_delay over a
 * run of polls. No /proc: the facts are given. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "track_process.h"

#define SEC 1000000ULL

/* A definition as cfg_process.c leaves it: quorum 1, no upper bound. */
static struct vipd_track_process_def def(const char *process)
{
	struct vipd_track_process_def p = { 0 };

	p.process = (char *)process;
	p.quorum = 1;
	p.quorum_max = UINT_MAX;
	return p;
}

/* cmdline as /proc gives it: words each ending in NUL (sizeof a literal
 * counts the last NUL). */
#define MATCH(p, comm, lit) track_process_match(&(p), comm, lit, sizeof(lit))

static void test_match_comm(void **state)
{
	struct vipd_track_process_def p = def("haproxy");

	(void)state;
	assert_true(MATCH(p, "haproxy", "/usr/sbin/haproxy\0-f\0/etc/h.cfg"));
	assert_false(MATCH(p, "haproxy2", "/usr/sbin/haproxy"));
	assert_false(MATCH(p, "hapr", "/usr/sbin/haproxy"));
	/* the name alone: argv does not matter, kernel threads count */
	assert_true(track_process_match(&p, "haproxy", "", 0));
}

static void test_match_full_command(void **state)
{
	struct vipd_track_process_def p = def("/usr/sbin/lbd");
	static const char params[] = "-f\0/etc/lbd/lbd.cfg";

	(void)state;
	/* full_command without parameters: argv[0], any parameters */
	p.full_command = true;
	assert_true(MATCH(p, "lbd", "/usr/sbin/lbd\0-f\0x"));
	assert_true(MATCH(p, "lbd", "/usr/sbin/lbd"));
	assert_false(MATCH(p, "lbd", "lbd\0-f\0x"));
	assert_false(track_process_match(&p, "lbd", "", 0));
	/* param_match alone: exactly no parameters */
	p.param_match = VIPD_PARAM_EXACT;
	assert_true(MATCH(p, "lbd", "/usr/sbin/lbd"));
	assert_false(MATCH(p, "lbd", "/usr/sbin/lbd\0-f"));

	/* process /usr/sbin/lbd -f /etc/lbd/lbd.cfg: these, no more */
	p.params = (char *)params;
	p.params_len = sizeof(params);
	assert_true(MATCH(p, "x", "/usr/sbin/lbd\0-f\0/etc/lbd/lbd.cfg"));
	assert_false(MATCH(p, "x", "/usr/sbin/lbd\0-f\0/etc/lbd/lbd.cfg\0-d"));
	assert_false(MATCH(p, "x", "/usr/sbin/lbd\0-f\0/etc/lbd/lbd.cfg.new"));
	assert_false(MATCH(p, "x", "/usr/sbin/lbd\0-f\0/etc/lbd/lbd"));
	assert_false(MATCH(p, "x", "/usr/sbin/lbd\0-f"));
	/* partial: these whole, maybe more after them */
	p.param_match = VIPD_PARAM_PARTIAL;
	assert_true(MATCH(p, "x", "/usr/sbin/lbd\0-f\0/etc/lbd/lbd.cfg"));
	assert_true(MATCH(p, "x", "/usr/sbin/lbd\0-f\0/etc/lbd/lbd.cfg\0-d"));
	assert_false(MATCH(p, "x", "/usr/sbin/lbd\0-f\0/etc/lbd/lbd.cfg.new"));
	assert_false(MATCH(p, "x", "/usr/sbin/lbd\0-d\0-f\0/etc/lbd/lbd.cfg"));
	/* initial: the last may be the start of a longer one */
	p.param_match = VIPD_PARAM_INITIAL;
	assert_true(MATCH(p, "x", "/usr/sbin/lbd\0-f\0/etc/lbd/lbd.cfg"));
	assert_true(MATCH(p, "x", "/usr/sbin/lbd\0-f\0/etc/lbd/lbd.cfg.new"));
	assert_true(MATCH(p, "x", "/usr/sbin/lbd\0-f\0/etc/lbd/lbd.cfg\0-d"));
	assert_false(MATCH(p, "x", "/usr/sbin/lbd\0-f\0/etc/lbd/lbd"));
	assert_false(MATCH(p, "x", "/usr/sbin/lbdx\0-f\0/etc/lbd/lbd.cfg"));
}

static void test_quorum(void **state)
{
	struct vipd_track_process_def p = def("x");

	(void)state;
	assert_false(track_process_quorum(&p, 0));
	assert_true(track_process_quorum(&p, 1));
	assert_true(track_process_quorum(&p, 500));
	p.quorum = 2;
	p.quorum_max = 3;
	assert_false(track_process_quorum(&p, 1));
	assert_true(track_process_quorum(&p, 2));
	assert_true(track_process_quorum(&p, 3));
	assert_false(track_process_quorum(&p, 4)); /* too many is no quorum */
	/* quorum_max 0: the process must not run */
	p.quorum = 0;
	p.quorum_max = 0;
	assert_true(track_process_quorum(&p, 0));
	assert_false(track_process_quorum(&p, 1));
}

static void test_step_no_delay(void **state)
{
	struct vipd_track_process_def p = def("x");
	struct track_process_state st = { .up = true };

	(void)state;
	assert_false(track_process_step(&p, 1, SEC, &st));
	assert_true(st.up);
	assert_true(track_process_step(&p, 0, SEC, &st)); /* lost at the first poll */
	assert_false(st.up);
	assert_false(track_process_step(&p, 0, SEC, &st));
	assert_true(track_process_step(&p, 2, SEC, &st)); /* gained at once */
	assert_true(st.up);
}

static void test_step_delays(void **state)
{
	struct vipd_track_process_def p = def("x");
	struct track_process_state st = { .up = true };
	int i;

	(void)state;
	p.terminate_delay = 2 * SEC;
	p.fork_delay = SEC / 2;
	/* lost: the first poll that sees it and two seconds more */
	assert_false(track_process_step(&p, 0, SEC, &st));
	assert_false(track_process_step(&p, 0, SEC, &st));
	assert_true(st.up);
	assert_true(track_process_step(&p, 0, SEC, &st));
	assert_false(st.up);
	/* gained: half a second rounds up to the next poll */
	assert_false(track_process_step(&p, 1, SEC, &st));
	assert_true(track_process_step(&p, 1, SEC, &st));
	assert_true(st.up);
	/* a restart within terminate_delay is never seen as a loss */
	for (i = 0; i < 5; i++) {
		assert_false(track_process_step(&p, 0, SEC, &st));
		assert_false(track_process_step(&p, 0, SEC, &st));
		assert_false(track_process_step(&p, 1, SEC, &st));
		assert_true(st.up);
		assert_int_equal(st.streak, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_match_comm),
		cmocka_unit_test(test_match_full_command),
		cmocka_unit_test(test_quorum),
		cmocka_unit_test(test_step_no_delay),
		cmocka_unit_test(test_step_delays),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
