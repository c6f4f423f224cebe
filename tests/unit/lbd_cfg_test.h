/* Shared by test_lbd_cfg.c and test_lbd_cfg_errors.c: the sample configurations
 * and helpers that load text and look at the messages. */
#ifndef LBD_CFG_TEST_H
#define LBD_CFG_TEST_H

#include "msgs_test.h"

#define SEC CPHA_USEC_PER_SEC
#define MS  CPHA_USEC_PER_MSEC

/* tests/samples/haproxy-seed.cfg's configuration lines, as they are */
static const char seed_cfg[] =
	"# The listen section of the reference deployment's haproxy.cfg (three masters,\n"
	"# kubem00-02, behind one HAProxy host), unchanged: lbd must run it as it is.\n"
	"listen secure_kube_control_plane\n"
	"bind :6443\n"
	"mode tcp\n"
	"option tcplog\n"
	"option tcp-check\n"
	"balance roundrobin\n"
	"default-server inter 10s downinter 5s rise 2 fall 2 slowstart 60s maxconn 250 maxqueue "
	"256 weight 100\n"
	"server secure_kubem00 10.10.10.80:6443 check\n"
	"server secure_kubem01 10.10.10.81:6443 check\n"
	"server secure_kubem02 10.10.10.82:6443 check\n";

/* tests/samples/haproxy-https-readyz.cfg, as it is */
static const char readyz_cfg[] =
	"# A control-plane load balancer in the style that current Kubernetes HA guides\n"
	"# use: HTTP defaults, a TCP frontend and backend, and an HTTPS health check.\n"
	"# lbd must accept it unchanged (mode http in defaults is overridden by mode tcp\n"
	"# in the sections that carry traffic).\n"
	"global\n"
	"    log stdout format raw local0\n"
	"    daemon\n"
	"\n"
	"defaults\n"
	"    mode                    http\n"
	"    log                     global\n"
	"    option                  httplog\n"
	"    option                  dontlognull\n"
	"    option http-server-close\n"
	"    option forwardfor       except 127.0.0.0/8\n"
	"    option                  redispatch\n"
	"    retries                 1\n"
	"    timeout http-request    10s\n"
	"    timeout queue           20s\n"
	"    timeout connect         5s\n"
	"    timeout client          35s\n"
	"    timeout server          35s\n"
	"    timeout http-keep-alive 10s\n"
	"    timeout check           10s\n"
	"\n"
	"frontend apiserver\n"
	"    bind *:6443\n"
	"    mode tcp\n"
	"    option tcplog\n"
	"    default_backend apiservers\n"
	"\n"
	"backend apiservers\n"
	"    option httpchk\n"
	"    http-check connect ssl\n"
	"    http-check send meth GET uri /readyz\n"
	"    http-check expect status 200\n"
	"    mode tcp\n"
	"    balance     roundrobin\n"
	"    server m0 10.10.10.80:6443 check verify none\n"
	"    server m1 10.10.10.81:6443 check verify none\n"
	"    server m2 10.10.10.82:6443 check verify none\n";

/* A complete TCP head to put sections under. */
#define TCP_DEFAULTS                                                                               \
	"defaults\n"                                                                               \
	"    mode tcp\n"                                                                           \
	"    timeout connect 5s\n"                                                                 \
	"    timeout client 30s\n"                                                                 \
	"    timeout server 30s\n"

static __attribute__((unused)) struct lbd_config *load_ok(const char *text)
{
	struct cpha_msgs errs = { 0 };
	struct lbd_config *c = NULL;
	int r;

	r = lbd_cfg_load_mem("t.cfg", text, strlen(text), &c, &errs);
	if (r != 0)
		print_error("unexpected errors:\n%s", join_errs(&errs));
	assert_int_equal(r, 0);
	assert_non_null(c);
	assert_int_equal(errs.nerrs, 0);
	return c;
}

/* Load text that must fail: the messages, one per line; *n their count. */
static __attribute__((unused)) const char *load_bad(const char *text, size_t *n)
{
	struct cpha_msgs errs = { 0 };
	struct lbd_config *c = NULL;
	size_t i;
	int r;

	r = lbd_cfg_load_mem("t.cfg", text, strlen(text), &c, &errs);
	assert_int_equal(r, -1);
	assert_null(c);
	assert_true(errs.nerrs > 0);
	for (i = 0; i < errs.nerrs; i++)
		assert_non_null(strstr(errs.errs[i].text, "t.cfg:"));
	if (n)
		*n = errs.nerrs;
	join_errs(&errs);
	cpha_msgs_free(&errs);
	return joined;
}

static __attribute__((unused)) void expect_in(const char *all, const char *needle)
{
	if (!strstr(all, needle)) {
		print_error("missing: %s\nin:\n%s", needle, all);
		fail();
	}
}

/* text fails with a message holding needle (which starts "t.cfg:LINE: "). */
static __attribute__((unused)) void expect_error(const char *text, const char *needle)
{
	expect_in(load_bad(text, NULL), needle);
}

static __attribute__((unused)) const char *notices(const struct lbd_config *c)
{
	return join(c->notices, c->nnotices);
}

/* text loads with a notice holding needle (which starts "t.cfg:LINE: "). */
static __attribute__((unused)) void expect_notice(const char *text, const char *needle)
{
	struct lbd_config *c = load_ok(text);

	expect_in(notices(c), needle);
	lbd_cfg_free(c);
}

static __attribute__((unused)) const char *addr(const struct cpha_addr *a)
{
	static char buf[CPHA_ADDR_STRLEN];

	return cpha_addr_format(a, buf, sizeof(buf));
}

#endif
