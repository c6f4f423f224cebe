/* `cpha pki`: the plan, issuing into a directory, check passing, then
 * check catching each broken rule with a certificate made here; a second
 * run changing nothing. Renew, add-san, the CA's problems and the
 * directory rules are in test_cpha_pki_update.c. */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "cpha_test.h"
#include "install_plan.h"
#include "pki.h"
#include "pki_dir.h"
#include "pki_test.h"

/* ---------------------------------------------------------------- plan -- */

static void test_names(void **state)
{
	struct pki_names n = { 0 };
	char buf[64];

	(void)state;
	assert_int_equal(pki_names_add(&n, "API.Lab.Example"), 0);
	assert_string_equal(n.dns[0], "api.lab.example");
	assert_int_equal(pki_names_add(&n, "api.lab.example"), 0); /* a duplicate */
	assert_int_equal(n.ndns, 1);
	assert_int_equal(pki_names_add(&n, "*.apps.lab.example"), 0);
	assert_int_equal(pki_names_add(&n, "2001:db8::5"), 0);
	assert_int_equal(pki_names_add(&n, "198.18.0.100"), 0);
	assert_int_equal(n.nip, 2);
	assert_string_equal(pki_ip_format(&n.ip[0], buf, sizeof(buf)), "2001:db8::5");
	assert_int_equal(pki_names_add(&n, "198.18.0.300"), -EINVAL); /* a mistyped address */
	assert_int_equal(pki_names_add(&n, "198.18.0.0/24"), -EINVAL);
	assert_int_equal(pki_names_add(&n, "a..b"), -EINVAL);
	assert_int_equal(pki_names_add(&n, ""), -EINVAL);
	assert_int_equal(pki_names_add(&n, "a b"), -EINVAL);
	assert_int_equal(pki_names_add(&n, "x.example."), -EINVAL);
	assert_int_equal(n.ndns, 2);
	pki_names_free(&n);
}

static void test_plan(void **state)
{
	const struct pki_spec *s;
	static const char *const api[] = { "198.18.0.2", "api.lab.example", "kubernetes",
		"kubernetes.default", "kubernetes.default.svc",
		"kubernetes.default.svc.lab.example", "10.32.0.1", "198.18.0.11", "198.18.0.12",
		"198.18.0.13", "m1", "m2", "m3", "127.0.0.1", "localhost" };
	static const char *const etcd[] = { "127.0.0.1", "localhost", "m1", "m2", "m3",
		"198.18.0.11", "198.18.0.12", "198.18.0.13" };

	(void)state;
	load_plan(YAML3);
	assert_string_equal(plan.ca_cn, "lab-ca");
	assert_int_equal(plan.n, NCERTS - 2);
	assert_string_equal(plan.fp_ca_cn, "lab-front-proxy-ca");
	s = pki_plan_find(&plan, "apiserver");
	assert_non_null(s);
	assert_int_equal(s->eku, PKI_EKU_SERVER);
	for (size_t i = 0; i < sizeof(api) / sizeof(api[0]); i++) {
		struct pki_names one = { 0 };
		assert_int_equal(pki_names_add(&one, api[i]), 0);
		assert_true(one.ndns ? pki_names_has_dns(&s->sans, one.dns[0])
				     : pki_names_has_ip(&s->sans, &one.ip[0]));
		pki_names_free(&one);
	}
	assert_int_equal(s->sans.ndns + s->sans.nip, sizeof(api) / sizeof(api[0]));
	s = pki_plan_find(&plan, "etcd-server");
	assert_int_equal(s->eku, PKI_EKU_SERVER | PKI_EKU_CLIENT);
	assert_int_equal(s->sans.ndns + s->sans.nip, sizeof(etcd) / sizeof(etcd[0]));
	s = pki_plan_find(&plan, "kubelet-client");
	assert_string_equal(s->cn, "kube-apiserver-kubelet-client");
	assert_string_equal(s->o, "system:masters");
	assert_int_equal(s->eku, PKI_EKU_CLIENT);
	s = pki_plan_find(&plan, "controller-manager");
	assert_string_equal(s->cn, "system:kube-controller-manager");
	assert_null(s->o);
	assert_string_equal(pki_plan_find(&plan, "scheduler")->cn, "system:kube-scheduler");
	/* kubeadm since 1.29: admin is bound by RBAC, super-admin is the break-glass */
	assert_string_equal(pki_plan_find(&plan, "admin")->o, "kubeadm:cluster-admins");
	assert_string_equal(pki_plan_find(&plan, "super-admin")->o, "system:masters");
	assert_string_equal(pki_plan_find(&plan, "etcd-client")->cn, "etcd-client");
	s = pki_plan_find(&plan, "front-proxy-client");
	assert_string_equal(s->cn, "front-proxy-client");
	assert_null(s->o);
	assert_true(s->front_proxy && s->client);
	assert_false(pki_plan_find(&plan, "apiserver")->front_proxy);
	s = pki_plan_find(&plan, "node-m2");
	assert_string_equal(s->cn, "system:node:m2");
	assert_string_equal(s->o, "system:nodes");
	assert_int_equal(s->eku, PKI_EKU_CLIENT);
}

/* monitoring.tls: one more serving certificate, for the daemons' /metrics
 * and /status on every master (and LB host) and on loopback; none without. */
static void test_plan_metrics(void **state)
{
	static const char *const names[] = { "127.0.0.1", "::1", "localhost", "m1", "m2", "m3",
		"198.18.0.11", "198.18.0.12", "198.18.0.13" };
	const struct pki_spec *s;

	(void)state;
	load_plan(YAML3);
	assert_null(pki_plan_find(&plan, "metrics"));
	load_plan(YAML3 "monitoring: {listen: host, tls: true}\n");
	assert_int_equal(plan.n, NCERTS - 2 + 1); /* the CAs are not in the plan */
	s = pki_plan_find(&plan, "metrics");
	assert_non_null(s);
	assert_int_equal(s->eku, PKI_EKU_SERVER);
	assert_false(s->client);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct pki_names one = { 0 };
		assert_int_equal(pki_names_add(&one, names[i]), 0);
		assert_true(one.ndns ? pki_names_has_dns(&s->sans, one.dns[0])
				     : pki_names_has_ip(&s->sans, &one.ip[0]));
		pki_names_free(&one);
	}
	assert_int_equal(s->sans.ndns + s->sans.nip, sizeof(names) / sizeof(names[0]));
}

static void test_decide(void **state)
{
	(void)state;
	/* issue: a missing key means a new pair; a certificate follows its key */
	assert_int_equal(pki_decide(PKI_OP_ISSUE, false, false, false, PKI_BAD_MISSING), PKI_NEW);
	assert_int_equal(pki_decide(PKI_OP_ISSUE, false, false, true, PKI_BAD_MISSING), PKI_ISSUE);
	assert_int_equal(pki_decide(PKI_OP_ISSUE, false, false, true, PKI_BAD_KEY), PKI_REISSUE);
	assert_int_equal(pki_decide(PKI_OP_ISSUE, false, false, true, PKI_BAD_CHAIN), PKI_REISSUE);
	assert_int_equal(pki_decide(PKI_OP_ISSUE, false, false, true, PKI_BAD_EXPIRY), PKI_KEEP);
	assert_int_equal(pki_decide(PKI_OP_ISSUE, false, false, true, PKI_BAD_MODE), PKI_KEEP);
	/* ca.pem without its key is kept; a CA key of another CA is refused */
	assert_int_equal(pki_decide(PKI_OP_ISSUE, false, true, false, 0), PKI_KEEP);
	assert_int_equal(pki_decide(PKI_OP_ISSUE, false, true, false, PKI_BAD_MISSING), PKI_NEW);
	assert_int_equal(pki_decide(PKI_OP_ISSUE, false, true, true, PKI_BAD_KEY), PKI_REFUSE);
	/* renew */
	assert_int_equal(pki_decide(PKI_OP_RENEW, false, false, true, 0), PKI_KEEP);
	assert_int_equal(pki_decide(PKI_OP_RENEW, true, false, true, 0), PKI_RENEW);
	assert_int_equal(pki_decide(PKI_OP_RENEW, false, false, true, PKI_BAD_EXPIRY), PKI_RENEW);
	assert_int_equal(pki_decide(PKI_OP_RENEW, false, false, false, PKI_BAD_EXPIRY), PKI_REFUSE);
	assert_int_equal(pki_decide(PKI_OP_RENEW, true, false, true, PKI_BAD_MISSING), PKI_REFUSE);
	assert_int_equal(pki_decide(PKI_OP_RENEW, false, true, false, 0), PKI_KEEP);
	assert_int_equal(pki_decide(PKI_OP_CHECK, true, false, false, PKI_BAD_MISSING), PKI_KEEP);
}

/* ------------------------------------------------------- issue, check -- */

static void test_issue_then_check(void **state)
{
	struct pki_report r;
	struct stat st;
	char name[64];
	X509 *x;

	(void)state;
	load_plan(YAML3);
	assert_int_equal(run_op(PKI_OP_ISSUE, false, NULL, &r), 0);
	assert_non_null(find(&r, PKI_INFO, "", "created, mode 0700"));
	assert_non_null(find(&r, PKI_INFO, "ca.pem", "created, CN lab-ca"));
	assert_non_null(find(&r, PKI_INFO, "apiserver-key.pem", "created"));
	assert_non_null(find(&r, PKI_INFO, "sa.pub", "created"));
	assert_int_equal(count(&r, PKI_INFO, "created"), NFILES + 1);
	pki_report_free(&r);

	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	for (size_t i = 0; i < NFILES; i++) {
		file_name(i, name, sizeof(name));
		assert_int_equal(stat(path_in(name), &st), 0);
		assert_int_equal(st.st_mode & 07777,
			!strcmp(name, PKI_AUTHKEY)                        ? 0400
			: strstr(name, "key") && strcmp(name, PKI_SA_PUB) ? 0600
									  : 0644);
	}
	check_ok();

	/* what was issued, as the world sees it */
	x = read_cert("apiserver.pem");
	assert_true(has_san(x, "198.18.0.2"));
	assert_true(has_san(x, "10.32.0.1"));
	assert_true(has_san(x, "kubernetes.default.svc.lab.example"));
	assert_true(has_san(x, "m2"));
	assert_int_equal(X509_get_extended_key_usage(x), XKU_SSL_SERVER);
	assert_true(not_after(x) > now + 364 * DAY && not_after(x) <= now + 365 * DAY);
	X509_free(x);
	x = read_cert("etcd-server.pem");
	assert_int_equal(X509_get_extended_key_usage(x), XKU_SSL_SERVER | XKU_SSL_CLIENT);
	assert_true(has_san(x, "198.18.0.13") && has_san(x, "localhost"));
	X509_free(x);
	x = read_cert("ca.pem");
	assert_true(X509_get_extension_flags(x) & EXFLAG_CA);
	assert_int_equal(X509_get_key_usage(x), KU_KEY_CERT_SIGN | KU_CRL_SIGN);
	assert_true(not_after(x) > now + 3649 * DAY);
	X509_free(x);
}

static void test_second_run_changes_nothing(void **state)
{
	struct snap s[NFILES];
	struct pki_report r;

	(void)state;
	load_plan(YAML3);
	issue();
	snap_all(s);
	assert_int_equal(run_op(PKI_OP_ISSUE, false, NULL, &r), 0);
	assert_int_equal(count(&r, PKI_INFO, "kept"), NFILES);
	assert_int_equal(r.n, NFILES);
	pki_report_free(&r);
	assert_all_same(s);
	no_temp_files();
}

static void test_sample(void **state)
{
	struct pki_report r;
	struct pki_run o;
	const char *why;
	struct cpha_msgs d = { 0 };
	struct cp_cluster *c = NULL;
	X509 *x;

	(void)state;
	/* the project's sample, unchanged */
	assert_int_equal(cluster_load(CPHA_SOURCE_DIR "/tests/samples/cluster.yaml", &c, &d), 0);
	assert_int_equal(pki_plan_build(c, &plan, &why), 0);
	cluster_free(c);
	cpha_msgs_free(&d);
	issue();
	o = (struct pki_run){ .op = PKI_OP_CHECK, .now = now };
	memset(&r, 0, sizeof(r));
	assert_int_equal(pki_dir_run(&plan, dir, &o, &r), 0);
	pki_report_free(&r);
	x = read_cert("apiserver.pem");
	assert_true(has_san(x, "10.10.10.2"));
	assert_true(has_san(x, "kubernetes"));
	assert_true(has_san(x, "10.32.0.1"));
	assert_true(has_san(x, "kubernetes.default.svc.cluster.local"));
	assert_true(has_san(x, "kubem01") && has_san(x, "10.10.10.81"));
	X509_free(x);
	x = read_cert("etcd-server.pem");
	assert_true(has_san(x, "kubem02") && has_san(x, "10.10.10.82"));
	X509_free(x);
}

/* ------------------------------------------------ check, rule by rule -- */

static void test_check_missing_san(void **state)
{
	const struct pki_spec *plan_api;
	struct pki_spec s;
	EVP_PKEY *k;
	X509 *x;

	(void)state;
	load_plan(YAML3);
	issue();
	/* the plan's apiserver, but m2's name left out */
	plan_api = pki_plan_find(&plan, "apiserver");
	s = *plan_api;
	memset(&s.sans, 0, sizeof(s.sans));
	for (size_t i = 0; i < plan_api->sans.ndns; i++)
		if (strcmp(plan_api->sans.dns[i], "m2"))
			assert_int_equal(pki_names_add(&s.sans, plan_api->sans.dns[i]), 0);
	for (size_t i = 0; i < plan_api->sans.nip; i++)
		pki_names_add_ip(&s.sans, &plan_api->sans.ip[i]);
	reissue_as(&s, now, 365);
	pki_names_free(&s.sans);
	check_finds("apiserver.pem", "missing SAN DNS:m2");
	/* the default run puts it back, for the same key */
	issue();
	check_ok();
	x = read_cert("apiserver.pem");
	k = read_key("apiserver-key.pem");
	assert_true(has_san(x, "m2"));
	assert_int_equal(EVP_PKEY_eq(X509_get0_pubkey(x), k), 1);
	EVP_PKEY_free(k);
	X509_free(x);
}

static void test_check_peer_without_client_auth(void **state)
{
	struct pki_spec s;
	EVP_PKEY *k;
	X509 *x;

	(void)state;
	load_plan(YAML3);
	issue();
	s = spec_copy("etcd-server");
	s.eku = PKI_EKU_SERVER;
	reissue_as(&s, now, 365);
	pki_names_free(&s.sans);
	check_finds(
		"etcd-server.pem", "extended key usage is serverAuth; want serverAuth,clientAuth");
	issue();
	check_ok();
	x = read_cert("etcd-server.pem");
	k = read_key("etcd-server-key.pem");
	assert_int_equal(X509_get_extended_key_usage(x), XKU_SSL_SERVER | XKU_SSL_CLIENT);
	assert_int_equal(EVP_PKEY_eq(X509_get0_pubkey(x), k), 1);
	EVP_PKEY_free(k);
	X509_free(x);
}

static void test_check_client_subject(void **state)
{
	struct pki_spec s;

	(void)state;
	load_plan(YAML3);
	issue();
	/* a controller-manager in system:masters: a privilege too many */
	s = spec_copy("controller-manager");
	s.o = "system:masters";
	reissue_as(&s, now, 365);
	pki_names_free(&s.sans);
	check_finds("controller-manager.pem", "subject O is \"system:masters\"");

	issue();
	s = spec_copy("kubelet-client");
	s.cn = "kubelet";
	reissue_as(&s, now, 365);
	pki_names_free(&s.sans);
	check_finds("kubelet-client.pem", "subject CN is \"kubelet\"");

	issue();
	s = spec_copy("admin");
	s.o = NULL;
	reissue_as(&s, now, 365);
	pki_names_free(&s.sans);
	check_finds("admin.pem", "subject O is \"\"; want \"kubeadm:cluster-admins\"");

	/* a front-proxy-client signed by the cluster's CA is not one the
	 * apiserver takes for the aggregation layer */
	issue();
	{
		struct pki_spec fp = spec_copy("front-proxy-client");
		reissue_as(&fp, now, 365); /* signed by ca.pem */
		pki_names_free(&fp.sans);
	}
	check_finds("front-proxy-client.pem", "does not verify against front-proxy-ca.pem");
	issue();
	check_ok();
}

static void test_check_expired(void **state)
{
	struct pki_report r;

	(void)state;
	load_plan(YAML3);
	issue();
	reissue_as(pki_plan_find(&plan, "etcd-client"), now - 400 * DAY, 30);
	check_finds("etcd-client.pem", "expired on");
	/* the default run leaves expiry to renew, and says so */
	assert_int_equal(run_op(PKI_OP_ISSUE, false, NULL, &r), 0);
	assert_non_null(find(&r, PKI_WARN, "etcd-client.pem", "expired on"));
	pki_report_free(&r);

	reissue_as(pki_plan_find(&plan, "etcd-client"), now, 10);
	check_finds("etcd-client.pem", "within renew_days, 30");
	reissue_as(pki_plan_find(&plan, "etcd-client"), now + 2 * DAY, 365);
	check_finds("etcd-client.pem", "not valid before");
}

static void test_check_wrong_ca(void **state)
{
	struct pki_spec s;
	EVP_PKEY *cak, *k;
	const char *why;
	X509 *ca, *x;

	(void)state;
	load_plan(YAML3);
	issue();
	s = spec_copy("apiserver");
	k = read_key("apiserver-key.pem");
	/* another CA with the same name: the signature gives it away */
	cak = pki_key_new();
	ca = pki_issue_ca(NULL, "lab-ca", cak, now, 3650, &why);
	assert_non_null(ca);
	x = pki_issue(&s, NULL, k, ca, cak, now, 365, &why);
	assert_non_null(x);
	write_cert("apiserver.pem", x);
	X509_free(ca);
	check_finds("apiserver.pem", "does not verify against ca.pem");
	/* and one with another name */
	ca = pki_issue_ca(NULL, "other-ca", cak, now, 3650, &why);
	x = pki_issue(&s, NULL, k, ca, cak, now, 365, &why);
	assert_non_null(x);
	write_cert("apiserver.pem", x);
	X509_free(ca);
	check_finds("apiserver.pem", "does not verify against ca.pem: unable to get local issuer");
	issue();
	check_ok();
	pki_names_free(&s.sans);
	EVP_PKEY_free(cak);
	EVP_PKEY_free(k);
}

static void test_check_key_mismatch(void **state)
{
	EVP_PKEY *k = pki_key_new(), *k2;
	X509 *x;

	(void)state;
	load_plan(YAML3);
	issue();
	write_key("scheduler-key.pem", k, 0600);
	check_finds("scheduler.pem", "its public key is not that of scheduler-key.pem");
	/* the key stays, the certificate follows it */
	issue();
	check_ok();
	x = read_cert("scheduler.pem");
	k2 = read_key("scheduler-key.pem");
	assert_int_equal(EVP_PKEY_eq(k, k2), 1);
	assert_int_equal(EVP_PKEY_eq(X509_get0_pubkey(x), k), 1);
	X509_free(x);
	EVP_PKEY_free(k2);
	EVP_PKEY_free(k);
}

static void test_check_key_mode(void **state)
{
	struct pki_report r;

	(void)state;
	load_plan(YAML3);
	issue();
	assert_int_equal(chmod(path_in("admin-key.pem"), 0644), 0);
	check_finds("admin-key.pem", "mode 0644");
	assert_int_equal(chmod(path_in("admin-key.pem"), 0600), 0);
	assert_int_equal(chmod(path_in("ca-key.pem"), 0640), 0);
	check_finds("ca-key.pem", "mode 0640");
	/* the default run says so and leaves the mode to the operator */
	assert_int_equal(run_op(PKI_OP_ISSUE, false, NULL, &r), 0);
	assert_non_null(find(&r, PKI_WARN, "ca-key.pem", "mode 0640"));
	pki_report_free(&r);
	assert_int_equal(chmod(path_in("ca-key.pem"), 0600), 0);
	assert_int_equal(chmod(path_in(PKI_SA_KEY), 0604), 0);
	check_finds(PKI_SA_KEY, "mode 0604");
}

static void test_check_missing_files(void **state)
{
	struct pki_report r;
	EVP_PKEY *k;
	X509 *x;

	(void)state;
	load_plan(YAML3);
	issue();
	assert_int_equal(unlink(path_in("admin.pem")), 0);
	check_finds("admin.pem", "missing");
	/* issued for the key that is there */
	k = read_key("admin-key.pem");
	assert_int_equal(run_op(PKI_OP_ISSUE, false, NULL, &r), 0);
	assert_non_null(find(&r, PKI_INFO, "admin.pem", "issued for the existing admin-key.pem"));
	pki_report_free(&r);
	x = read_cert("admin.pem");
	assert_int_equal(EVP_PKEY_eq(X509_get0_pubkey(x), k), 1);
	X509_free(x);
	EVP_PKEY_free(k);

	assert_int_equal(unlink(path_in(PKI_SA_PUB)), 0);
	check_finds(PKI_SA_PUB, "missing");
	issue();
	check_ok();

	/* sa.pub of another key */
	k = pki_key_new();
	write_key(PKI_SA_KEY ".new", k, 0600);
	assert_int_equal(unlink(path_in(PKI_SA_KEY)), 0);
	assert_int_equal(rename(path_in(PKI_SA_KEY ".new"), path_in(PKI_SA_KEY)), 0);
	check_finds(PKI_SA_PUB, "is not the public half of sa.key");
	assert_int_equal(run_op(PKI_OP_ISSUE, false, NULL, &r), -1);
	assert_non_null(find(&r, PKI_ERROR, PKI_SA_PUB, "is not the public half"));
	pki_report_free(&r);
	EVP_PKEY_free(k);

	/* sa.pub without sa.key: never replaced */
	assert_int_equal(unlink(path_in(PKI_SA_KEY)), 0);
	assert_int_equal(run_op(PKI_OP_ISSUE, false, NULL, &r), -1);
	assert_non_null(find(&r, PKI_ERROR, PKI_SA_PUB, "exists without sa.key"));
	pki_report_free(&r);
	assert_int_equal(access(path_in(PKI_SA_KEY), F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test_setup_teardown(test_plan_metrics, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plan, setup, teardown),
		cmocka_unit_test(test_decide),
		cmocka_unit_test_setup_teardown(test_issue_then_check, setup, teardown),
		cmocka_unit_test_setup_teardown(test_second_run_changes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sample, setup, teardown),
		cmocka_unit_test_setup_teardown(test_check_missing_san, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_check_peer_without_client_auth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_check_client_subject, setup, teardown),
		cmocka_unit_test_setup_teardown(test_check_expired, setup, teardown),
		cmocka_unit_test_setup_teardown(test_check_wrong_ca, setup, teardown),
		cmocka_unit_test_setup_teardown(test_check_key_mismatch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_check_key_mode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_check_missing_files, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
