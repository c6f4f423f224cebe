/* vipd's configuration: the auth_hmac block (keepalived 2.4.3), what it
 * gives, its defaults, and every value keepalived refuses, at its line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cfg.h"
#include "vipd_cfg_test.h"

#define KEY32 "vipd-test-key-0123456789abcdefgh"

static struct vipd_config *load_good(const char *text)
{
	struct cpha_msgs errs = { 0 };
	struct vipd_config *c = NULL;
	int r;

	r = vipd_cfg_load_mem("t.conf", text, strlen(text), &c, &errs);
	if (r != 0)
		fail_msg("unexpected errors:\n%s", join_errs(&errs));
	cpha_msgs_free(&errs);
	assert_non_null(c);
	return c;
}

/* text must fail with want among its errors (a bad key also leaves
 * active_key without its key: a second error). */
static void assert_bad(const char *text, const char *want)
{
	struct cpha_msgs errs = { 0 };
	struct vipd_config *c = NULL;
	const char *got;
	int r;

	r = vipd_cfg_load_mem("t.conf", text, strlen(text), &c, &errs);
	if (r == 0)
		fail_msg("accepted:\n%s", text);
	assert_null(c);
	got = join_errs(&errs);
	if (!strstr(got, want))
		fail_msg("'%s' not in:\n%s", want, got);
	cpha_msgs_free(&errs);
}

static void test_defaults(void **state)
{
	struct vipd_config *c;
	struct vipd_instance *v;

	(void)state;
	c = load_good(INST("  auth_hmac {\n"
			   "    key 1 " KEY32 "\n"
			   "    active_key 1\n"
			   "  }\n"));
	v = &c->instances[0];
	assert_true(v->auth_hmac);
	assert_int_equal(v->hmac.mode, VRRP_HMAC_ENFORCE);
	assert_true(v->hmac.anti_replay_time);
	assert_int_equal(v->hmac.time_window, 5); /* 3 x 1 s, at least 5 */
	assert_int_equal(v->hmac.nkeys, 1);
	assert_int_equal(v->hmac.keys[0].id, 1);
	assert_int_equal(v->hmac.keys[0].len, 32);
	assert_memory_equal(v->hmac.keys[0].data, KEY32, 32);
	vipd_cfg_free(c);

	/* no auth_hmac: none */
	c = load_good(INST(""));
	assert_false(c->instances[0].auth_hmac);
	vipd_cfg_free(c);
}

static void test_all_options(void **state)
{
	char path[] = "vipd-hmac-key-XXXXXX", text[1024];
	struct vipd_config *c;
	struct vipd_instance *v;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd,
				 "hex:00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f "
				 "101112131415161718191a1b1c1d1e1f\r\n",
				 86),
		86);
	close(fd);
	snprintf(text, sizeof(text),
		INST("  advert_int 20\n"
		     "  auth_hmac {\n"
		     "    key 1 " KEY32 "\n"
		     "    key 255 file:%s\n"
		     "    mode permissive\n"
		     "  }\n"
		     "  auth_hmac {\n"
		     "    active_key 255\n"
		     "    anti_replay monotonic\n"
		     "    anti_replay time\n"
		     "    mode receive-only\n"
		     "  }\n"),
		path);
	c = load_good(text);
	unlink(path);
	v = &c->instances[0];
	assert_int_equal(v->hmac.mode, VRRP_HMAC_RECEIVE_ONLY);
	assert_int_equal(v->hmac.active_key, 255);
	assert_int_equal(v->hmac.nkeys, 2);
	assert_int_equal(v->hmac.keys[1].len, 32);
	assert_int_equal(v->hmac.keys[1].data[31], 0x1f);
	assert_int_equal(v->hmac.time_window, 60);
	vipd_cfg_free(c);

	c = load_good(INST("  auth_hmac {\n"
			   "    key 2 hex:"
			   "000102030405060708090a0b0c0d0e0f000102030405060708090a0b0c0d0e0f"
			   "000102030405060708090a0b0c0d0e0f000102030405060708090a0b0c0d0e0f\n"
			   "    active_key 2\n"
			   "    time_window 300\n"
			   "    anti_replay monotonic\n"
			   "  }\n"));
	assert_int_equal(c->instances[0].hmac.keys[0].len, 64);
	assert_int_equal(c->instances[0].hmac.time_window, 300);
	assert_false(c->instances[0].hmac.anti_replay_time);
	vipd_cfg_free(c);
}

/* vrrp_strict makes it enforce; legacy authentication gives way. */
static void test_strict_legacy(void **state)
{
	struct vipd_config *c;

	(void)state;
	c = load_good("global_defs {\n"
		      "  vrrp_strict\n"
		      "  vrrp_version 3\n"
		      "}\n" INST("  auth_hmac {\n"
				 "    key 1 " KEY32 "\n"
				 "    active_key 1\n"
				 "    mode permissive\n"
				 "  }\n"));
	assert_int_equal(c->instances[0].hmac.mode, VRRP_HMAC_ENFORCE);
	assert_has(join(c->notices, c->nnotices),
		"t.conf:11: auth_hmac 'mode permissive' becomes enforce");
	vipd_cfg_free(c);

	c = load_good("global_defs {\n"
		      "  vrrp_version 2\n"
		      "}\n" INST("  authentication {\n"
				 "    auth_type PASS\n"
				 "    auth_pass secret\n"
				 "  }\n"
				 "  auth_hmac {\n"
				 "    key 1 " KEY32 "\n"
				 "    active_key 1\n"
				 "  }\n"));
	assert_int_equal(c->instances[0].auth, VIPD_AUTH_NONE);
	assert_has(join(c->notices, c->nnotices),
		"t.conf:7: 'authentication' is ignored: auth_hmac replaces it");
	vipd_cfg_free(c);
}

#define HM(lines) INST("  auth_hmac {\n" lines "  }\n")

static void test_errors(void **state)
{
	(void)state;
	assert_bad(HM("    key 1 " KEY32 "\n"), "t.conf:4: auth_hmac has no 'active_key'");
	assert_bad(HM("    key 1 " KEY32 "\n    active_key 2\n"),
		"t.conf:6: 'active_key 2' is not one of the keys of auth_hmac");
	assert_bad(HM("    key 0 " KEY32 "\n    active_key 1\n"),
		"t.conf:5: 'key' must be a whole number from 1 to 255, not '0'");
	assert_bad(HM("    key 256 " KEY32 "\n    active_key 1\n"), "t.conf:5:");
	assert_bad(HM("    key 1\n    active_key 1\n"), "t.conf:5:");
	assert_bad(HM("    key 1 " KEY32 " extra\n    active_key 1\n"), "t.conf:5:");
	assert_bad(HM("    key 1 short\n    active_key 1\n"),
		"t.conf:5: 'key 1' is 5 bytes long: a key must be 32 to 64");
	assert_bad(HM("    key 1 " KEY32 KEY32 "x\n    active_key 1\n"),
		"t.conf:5: 'key 1' is 65 bytes long");
	assert_bad(HM("    key 1 hex:00zz\n    active_key 1\n"),
		"t.conf:5: 'key 1': the value after 'hex:' must be hexadecimal digits");
	assert_bad(HM("    key 1 " KEY32 "\n    key 1 " KEY32 "\n    active_key 1\n"),
		"t.conf:6: 'key 1' is given twice (auth_hmac of vrrp_instance 'VI_1'; first at "
		"line 5)");
	assert_bad(HM("    key 1 file:no-such-dir/vipd-key\n    active_key 1\n"),
		"t.conf:5: 'key 1': cannot open 'no-such-dir/vipd-key'");
	assert_bad(HM("    key 1 " KEY32 "\n    active_key 0\n"),
		"t.conf:6: 'active_key' must be a whole number from 1 to 255, not '0'");
	assert_bad(HM("    key 1 " KEY32 "\n    active_key 1\n    time_window 0\n"), "t.conf:7:");
	assert_bad(HM("    key 1 " KEY32 "\n    active_key 1\n    time_window 301\n"), "t.conf:7:");
	assert_bad(HM("    key 1 " KEY32 "\n    active_key 1\n    mode strict\n"),
		"t.conf:7: 'mode' must be enforce, permissive or receive-only, not 'strict'");
	assert_bad(HM("    key 1 " KEY32 "\n    active_key 1\n    anti_replay never\n"),
		"t.conf:7: 'anti_replay' must be time or monotonic, not 'never'");
	assert_bad(HM("    key 1 " KEY32 "\n    active_key 1\n    sign_with sha1\n"),
		"t.conf:7: 'sign_with' is not supported by vipd");
	assert_bad(INST("  auth_hmac on\n"), "t.conf:4:");
}

/* A key file others can read: a notice, and the key is used. */
static void test_key_file_mode(void **state)
{
	char path[] = "vipd-hmac-key-XXXXXX", text[512];
	struct vipd_config *c;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, KEY32 "\n", 33), 33);
	close(fd);
	assert_int_equal(chmod(path, 0644), 0);
	snprintf(text, sizeof(text), HM("    key 1 file:%s\n    active_key 1\n"), path);
	c = load_good(text);
	unlink(path);
	assert_has(join(c->notices, c->nnotices), "can be read by its group or others");
	assert_int_equal(c->instances[0].hmac.keys[0].len, 32);
	vipd_cfg_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_all_options),
		cmocka_unit_test(test_strict_legacy),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_key_file_mode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
