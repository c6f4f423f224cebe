/* lbd's and vipd's parsers linked into one program: no symbol of one
 * clashes with the other's (each carries its daemon's prefix), and each
 * still parses its own language and places its errors at file:line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../lbd/cfg.h"
#include "../../vipd/cfg.h"

static const char lbd_text[] = "defaults\n"
			       "  mode tcp\n"
			       "  timeout connect 5s\n"
			       "  timeout client 30s\n"
			       "  timeout server 30s\n"
			       "listen api\n"
			       "  bind :6443\n"
			       "  balance leastconn\n"
			       "  server m1 10.10.10.80:6443 weight 7\n"
			       "  server m2 10.10.10.81:6443\n";

static const char vipd_text[] = "vrrp_instance VI_1 {\n"
				"  state BACKUP\n"
				"  interface eth0\n"
				"  virtual_router_id 51\n"
				"  priority 150\n"
				"  virtual_ipaddress {\n"
				"    198.18.0.10\n"
				"  }\n"
				"}\n";

static int has(const struct cpha_msgs *m, const char *want)
{
	size_t i;

	for (i = 0; i < m->nerrs; i++)
		if (strstr(m->errs[i].text, want))
			return 1;
	return 0;
}

static void test_both_parse(void **state)
{
	struct lbd_config *lc = NULL;
	struct vipd_config *vc = NULL;
	struct cpha_msgs lerr = { 0 };
	struct cpha_msgs verr = { 0 };
	const struct vipd_instance *vi;
	struct lbd_backend *b;
	struct lbd_server_cfg *s;

	(void)state;
	assert_int_equal(lbd_cfg_load_mem("lbd.cfg", lbd_text, strlen(lbd_text), &lc, &lerr), 0);
	assert_int_equal(
		vipd_cfg_load_mem("vipd.conf", vipd_text, strlen(vipd_text), &vc, &verr), 0);
	assert_int_equal(lerr.nerrs, 0);
	assert_int_equal(verr.nerrs, 0);

	b = lbd_cfg_backend(lc, "api");
	assert_non_null(b);
	assert_int_equal(b->balance, LBD_BAL_LEASTCONN);
	assert_int_equal(b->nservers, 2);
	s = lbd_cfg_server(b, "m1");
	assert_non_null(s);
	assert_int_equal(s->o.weight, 7);
	assert_int_equal(s->line, 9);

	vi = vipd_cfg_instance(vc, "VI_1");
	assert_non_null(vi);
	assert_int_equal(vi->vrid, 51);
	assert_int_equal(vi->priority, 150);
	assert_string_equal(vi->interface, "eth0");

	lbd_cfg_free(lc);
	vipd_cfg_free(vc);
}

static void test_both_errors(void **state)
{
	static const char lbad[] = "listen api\n"
				   "  bind :6443\n"
				   "  balance nosuch\n"
				   "  server m1 10.10.10.80:6443\n"
				   "frontend fe\n"
				   "  bind :8443\n"
				   "  balance roundrobin\n"
				   "  default_backend api\n";
	static const char vbad[] = "vrrp_instance VI_1 {\n"
				   "  interface eth0\n"
				   "  virtual_router_id 51\n"
				   "  priority 900\n"
				   "  virtual_ipaddress {\n"
				   "    198.18.0.10\n"
				   "  }\n"
				   "}\n";
	struct lbd_config *lc = NULL;
	struct vipd_config *vc = NULL;
	struct cpha_msgs lerr = { 0 };
	struct cpha_msgs verr = { 0 };

	(void)state;
	assert_int_equal(lbd_cfg_load_mem("lbd.cfg", lbad, strlen(lbad), &lc, &lerr), -1);
	assert_null(lc);
	assert_true(lerr.nerrs >= 1);
	assert_true(has(&lerr, "lbd.cfg:3: "));
	assert_true(has(&lerr, "nosuch"));
	/* known, but not allowed here: said so, not "unknown" */
	assert_true(has(&lerr, "lbd.cfg:7: 'balance' is not allowed in a frontend section"));

	assert_int_equal(vipd_cfg_load_mem("vipd.conf", vbad, strlen(vbad), &vc, &verr), -1);
	assert_null(vc);
	assert_true(verr.nerrs >= 1);
	assert_true(has(&verr, "vipd.conf:4: "));
	assert_true(has(&verr, "priority"));

	cpha_msgs_free(&lerr);
	cpha_msgs_free(&verr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_both_parse),
		cmocka_unit_test(test_both_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
