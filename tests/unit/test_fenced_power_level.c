/* A node's power answer from its devices' status reads (power_level.c):
 * which reads start, which are cancelled, and when the answer is certain,
 * driven read by read with no agent and no clock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "power_level.h"

#define MAXU 8

static struct fenced_pread_use u[MAXU];
static enum fenced_pread_act act[MAXU];
static struct fenced_pdecision d;
static size_t n;

/* The uses, as "LEVEL:DEVICE" pairs: setup("0:0 0:1 1:2") is level 1 of
 * devices 0 and 1, level 2 of device 2. All wait. */
static void setup(const char *spec)
{
	const char *p = spec;

	memset(u, 0, sizeof(u));
	n = 0;
	while (*p) {
		assert_true(n < MAXU);
		u[n].level = (unsigned)(p[0] - '0');
		u[n].device = (size_t)(p[2] - '0');
		u[n].st = FENCED_PREAD_WAITING;
		n++;
		p += 3;
		while (*p == ' ')
			p++;
	}
}

static void decide(void)
{
	fenced_plevel_decide(u, n, act, &d);
}

/* The acts, one letter per use: '.' none, 'S' start, 'C' cancel. */
static void acts(const char *want)
{
	char got[MAXU + 1];
	size_t i;

	for (i = 0; i < n; i++)
		got[i] = act[i] == FENCED_PACT_START    ? 'S'
			 : act[i] == FENCED_PACT_CANCEL ? 'C'
							: '.';
	got[n] = '\0';
	assert_string_equal(got, want);
}

/* The states, one letter per use: w waiting, r running, 1 on, 0 off,
 * f failed, d dropped. */
static void states(const char *want)
{
	static const char letter[] = { 'w', 'r', '1', '0', 'f', 'd' };
	char got[MAXU + 1];
	size_t i;

	for (i = 0; i < n; i++)
		got[i] = letter[u[i].st];
	got[n] = '\0';
	assert_string_equal(got, want);
}

/* Once the answer is settled nothing runs or waits, and deciding again
 * changes nothing. */
static void settled(enum fenced_power answer, size_t by)
{
	struct fenced_pdecision again;
	size_t i;

	assert_int_equal(d.answer, answer);
	assert_int_equal(d.by, by);
	for (i = 0; i < n; i++)
		assert_true(u[i].st != FENCED_PREAD_WAITING && u[i].st != FENCED_PREAD_RUNNING);
	fenced_plevel_decide(u, n, act, &again);
	assert_int_equal(again.answer, answer);
	assert_int_equal(again.by, by);
	for (i = 0; i < n; i++)
		assert_int_equal(act[i], FENCED_PACT_NONE);
}

static void test_one_device(void **state)
{
	(void)state;
	setup("0:0");
	decide();
	assert_int_equal(d.answer, FENCED_POWER_CHECKING);
	acts("S");
	states("r");
	decide(); /* nothing new: nothing to do */
	acts(".");
	u[0].st = FENCED_PREAD_OFF;
	decide();
	acts(".");
	settled(FENCED_POWER_OFF, 0);

	setup("0:0");
	decide();
	u[0].st = FENCED_PREAD_ON;
	decide();
	settled(FENCED_POWER_ON, 0);

	/* an error or a timeout: no level left, unknown, naming it */
	setup("0:0");
	decide();
	u[0].st = FENCED_PREAD_FAILED;
	decide();
	settled(FENCED_POWER_UNKNOWN, 0);

	/* nothing to read at all */
	setup("");
	decide();
	assert_int_equal(d.answer, FENCED_POWER_UNKNOWN);
	assert_int_equal(d.by, 0);
}

/* Two PDU outlets feed the host: both read at once; off only when both
 * are off. */
static void test_two_devices_off(void **state)
{
	(void)state;
	setup("0:0 0:1");
	decide();
	acts("SS");
	u[1].st = FENCED_PREAD_OFF; /* one outlet off proves nothing yet */
	decide();
	assert_int_equal(d.answer, FENCED_POWER_CHECKING);
	acts("..");
	states("r0");
	u[0].st = FENCED_PREAD_OFF;
	decide();
	settled(FENCED_POWER_OFF, 1); /* the last of its level */
}

/* One outlet on powers the host: on at once, the other read cancelled,
 * whichever answers first. */
static void test_two_devices_on(void **state)
{
	(void)state;
	setup("0:0 0:1");
	decide();
	u[1].st = FENCED_PREAD_ON;
	decide();
	acts("C.");
	states("d1");
	settled(FENCED_POWER_ON, 1);

	setup("0:0 0:1");
	decide();
	u[0].st = FENCED_PREAD_OFF;
	decide();
	u[1].st = FENCED_PREAD_ON;
	decide();
	acts("..");
	settled(FENCED_POWER_ON, 1);
}

/* A device that hangs does not delay an answer another device of its
 * level makes certain: the hanging read is cancelled. */
static void test_hang_and_on(void **state)
{
	(void)state;
	setup("0:0 0:1 1:2");
	decide();
	acts("SSS");
	u[1].st = FENCED_PREAD_ON; /* device 0 still runs (hangs) */
	decide();
	acts("C.C");
	states("d1d");
	settled(FENCED_POWER_ON, 1);
}

/* A failed device leaves its level unable to answer: the level's other
 * reads are cancelled, the next level (already reading) answers. */
static void test_failure_falls_to_next_level(void **state)
{
	(void)state;
	setup("0:0 0:1 1:2");
	decide();
	acts("SSS");
	u[0].st = FENCED_PREAD_FAILED;
	decide();
	assert_int_equal(d.answer, FENCED_POWER_CHECKING);
	acts(".C.");
	states("fdr");
	u[2].st = FENCED_PREAD_OFF;
	decide();
	settled(FENCED_POWER_OFF, 2);

	/* off then a failure: the level proves nothing */
	setup("0:0 0:1 1:2");
	decide();
	u[0].st = FENCED_PREAD_OFF;
	u[1].st = FENCED_PREAD_FAILED;
	decide();
	assert_int_equal(d.answer, FENCED_POWER_CHECKING);
	u[2].st = FENCED_PREAD_ON;
	decide();
	settled(FENCED_POWER_ON, 2);

	/* on already read: a later failure of its level changes nothing */
	setup("0:0 0:1");
	decide();
	u[0].st = FENCED_PREAD_ON;
	u[1].st = FENCED_PREAD_FAILED;
	decide();
	settled(FENCED_POWER_ON, 0);

	/* every level fails: unknown, by the first failure */
	setup("0:0 1:1 1:2");
	decide();
	u[1].st = FENCED_PREAD_FAILED;
	decide();
	acts("..C");
	assert_int_equal(d.answer, FENCED_POWER_CHECKING);
	u[0].st = FENCED_PREAD_FAILED;
	decide();
	settled(FENCED_POWER_UNKNOWN, 0);
}

/* The order of trust: a later level's answer waits for every earlier
 * level to be unable; an earlier level's answer wins even when a later
 * one answered first. */
static void test_order_of_trust(void **state)
{
	(void)state;
	setup("0:0 1:1");
	decide();
	u[1].st = FENCED_PREAD_ON; /* the PDU outlet is live... */
	decide();
	assert_int_equal(d.answer, FENCED_POWER_CHECKING);
	acts("..");
	states("r1");
	u[0].st = FENCED_PREAD_OFF; /* ...but the BMC says the host is off */
	decide();
	settled(FENCED_POWER_OFF, 0);

	setup("0:0 1:1");
	decide();
	u[1].st = FENCED_PREAD_OFF;
	decide();
	assert_int_equal(d.answer, FENCED_POWER_CHECKING);
	u[0].st = FENCED_PREAD_ON;
	decide();
	settled(FENCED_POWER_ON, 0);

	/* level 1 answers while level 2 still reads: level 2 is cancelled */
	setup("0:0 1:1 1:2");
	decide();
	u[0].st = FENCED_PREAD_OFF;
	decide();
	acts(".CC");
	settled(FENCED_POWER_OFF, 0);

	/* level 2 settled (on) while level 1 reads: its other read stops,
	 * and level 1's failure then lets its answer through */
	setup("0:0 1:1 1:2");
	decide();
	u[1].st = FENCED_PREAD_ON;
	decide();
	acts("..C");
	assert_int_equal(d.answer, FENCED_POWER_CHECKING);
	u[0].st = FENCED_PREAD_FAILED; /* killed at the timeout */
	decide();
	settled(FENCED_POWER_ON, 1);
}

/* A read that timed out is a failure like any: with the levels read at
 * once, level 2's answer is there when level 1's hang is killed. */
static void test_timeout(void **state)
{
	(void)state;
	setup("0:0 1:1");
	decide();
	acts("SS");
	u[1].st = FENCED_PREAD_OFF;
	decide();
	assert_int_equal(d.answer, FENCED_POWER_CHECKING);
	u[0].st = FENCED_PREAD_FAILED;
	decide();
	settled(FENCED_POWER_OFF, 1);

	/* everything timed out */
	setup("0:0 0:1 1:2");
	decide();
	u[0].st = u[1].st = u[2].st = FENCED_PREAD_FAILED;
	decide();
	settled(FENCED_POWER_UNKNOWN, 0);
}

/* One read per device at a time (two outlets of one PDU, or one device in
 * two levels): the earlier use first, the next when it ends. */
static void test_one_read_per_device(void **state)
{
	(void)state;
	setup("0:0 0:0 1:0 1:1");
	decide();
	acts("S..S");
	states("rwwr");
	u[0].st = FENCED_PREAD_OFF;
	decide();
	acts(".S..");
	u[1].st = FENCED_PREAD_OFF;
	decide();
	settled(FENCED_POWER_OFF, 1);

	/* a failure frees the device for the next level */
	setup("0:0 0:0 1:0");
	decide();
	acts("S..");
	u[0].st = FENCED_PREAD_FAILED;
	decide();
	acts("..S"); /* level 1's second use is dropped, never started */
	states("fdr");
	u[2].st = FENCED_PREAD_ON;
	decide();
	settled(FENCED_POWER_ON, 2);
}

/* A start that fails (the agent is not installed) is a failed read: the
 * caller marks it and asks again. */
static void test_start_fails(void **state)
{
	(void)state;
	setup("0:0 1:1");
	decide();
	acts("SS");
	u[0].st = FENCED_PREAD_FAILED;
	u[1].st = FENCED_PREAD_FAILED;
	decide();
	settled(FENCED_POWER_UNKNOWN, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_device),
		cmocka_unit_test(test_two_devices_off),
		cmocka_unit_test(test_two_devices_on),
		cmocka_unit_test(test_hang_and_on),
		cmocka_unit_test(test_failure_falls_to_next_level),
		cmocka_unit_test(test_order_of_trust),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_one_read_per_device),
		cmocka_unit_test(test_start_fails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
