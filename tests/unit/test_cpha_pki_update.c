/* `cpha pki` on a directory already issued: renew and add-san keeping
 * keys and names, the CA's key or certificate missing, foreign or expired,
 * a changed plan, an existing RSA key, and the directory rules. */
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

/* --------------------------------------------------------------- renew -- */

static void test_renew(void **state)
{
	struct snap s[NFILES];
	struct pki_report r;
	EVP_PKEY *k;
	char name[64];
	time_t before;
	X509 *x;

	(void)state;
	load_plan(YAML3);
	issue();
	reissue_as(pki_plan_find(&plan, "admin"), now - 350 * DAY, 365);
	x = read_cert("admin.pem");
	before = not_after(x);
	X509_free(x);
	snap_all(s);

	assert_int_equal(run_op(PKI_OP_RENEW, false, NULL, &r), 0);
	assert_non_null(find(&r, PKI_INFO, "admin.pem", "renewed"));
	assert_int_equal(r.n, 1);
	pki_report_free(&r);
	x = read_cert("admin.pem");
	k = read_key("admin-key.pem");
	assert_int_equal(EVP_PKEY_eq(X509_get0_pubkey(x), k), 1);
	assert_true(not_after(x) > before + 300 * DAY);
	X509_free(x);
	EVP_PKEY_free(k);
	for (size_t i = 0; i < NFILES; i++) {
		bool renewed = !strcmp(file_name(i, name, sizeof(name)), "admin.pem");
		assert_true(same_file(name, &s[i]) != renewed);
	}
	check_ok();

	/* nothing expiring: nothing renewed, nothing touched */
	snap_all(s);
	assert_int_equal(run_op(PKI_OP_RENEW, false, NULL, &r), 0);
	assert_non_null(find(&r, PKI_INFO, "", "nothing renewed"));
	pki_report_free(&r);
	assert_all_same(s);

	/* --force: every certificate, the CA too, every key kept */
	now += 10 * DAY;
	assert_int_equal(run_op(PKI_OP_RENEW, true, NULL, &r), 0);
	assert_int_equal(count(&r, PKI_INFO, "renewed"), NCERTS);
	pki_report_free(&r);
	for (size_t i = 0; i < NFILES; i++) {
		/* certificates: the even ones up to the service-account pair */
		bool renewed = i < NCERTS * 2 && i % 2 == 0;
		assert_true(same_file(file_name(i, name, sizeof(name)), &s[i]) != renewed);
	}
	check_ok();
}

/* renew --rekey: every certificate renewed gets a new key, but the CAs'
 * (their certificates renewed on the same key: what they signed stays
 * valid) and the service-account key (its tokens stay valid). */
static void test_renew_rekey(void **state)
{
	struct pki_run o = { .op = PKI_OP_RENEW, .force = true, .rekey = true };
	struct snap s[NFILES];
	struct pki_report r;
	char name[64];
	EVP_PKEY *k;
	X509 *x;
	int rc;

	(void)state;
	load_plan(YAML3);
	issue();
	snap_all(s);
	now += 10 * DAY;
	o.now = now;
	memset(&r, 0, sizeof(r));
	rc = pki_dir_run(&plan, dir, &o, &r);
	dump(&r);
	assert_int_equal(rc, 0);
	assert_int_equal(count(&r, PKI_INFO, "renewed"), NCERTS);
	assert_int_equal(count(&r, PKI_INFO, "renewed with a new key"), NCERTS - 2);
	assert_non_null(find(&r, PKI_INFO, "admin-key.pem", "replaced"));
	assert_null(find(&r, PKI_INFO, "ca-key.pem", "replaced"));
	pki_report_free(&r);
	for (size_t i = 0; i < NFILES; i++) {
		bool ca = i < 4, cert = i < NCERTS * 2 && i % 2 == 0;
		bool key = i < NCERTS * 2 && i % 2 == 1;
		bool changed = cert || (key && !ca);

		file_name(i, name, sizeof(name));
		assert_true(same_file(name, &s[i]) != changed);
	}
	/* each new certificate carries its new key */
	x = read_cert("apiserver.pem");
	k = read_key("apiserver-key.pem");
	assert_int_equal(EVP_PKEY_eq(X509_get0_pubkey(x), k), 1);
	X509_free(x);
	EVP_PKEY_free(k);
	check_ok();
}

/* --------------------------------------------------------------- CA key -- */

static void test_ca_key_missing(void **state)
{
	struct snap ca;
	struct pki_report r;

	(void)state;
	load_plan(YAML3);
	issue();
	/* an expiring certificate first, while the CA key is here */
	reissue_as(pki_plan_find(&plan, "etcd-client"), now, 5);
	assert_int_equal(unlink(path_in("ca-key.pem")), 0);
	snap_file("ca.pem", &ca);

	/* checked without it */
	assert_int_equal(run_op(PKI_OP_CHECK, false, NULL, &r), -1);
	assert_int_equal(r.nproblems, 1);
	assert_non_null(
		find(&r, PKI_INFO, "ca-key.pem", "certificates can be checked, not issued"));
	pki_report_free(&r);

	/* not issued nor renewed without it, and no new CA made */
	assert_int_equal(unlink(path_in("apiserver.pem")), 0);
	assert_int_equal(run_op(PKI_OP_ISSUE, false, NULL, &r), -1);
	assert_non_null(find(&r, PKI_ERROR, "apiserver.pem", "ca-key.pem is missing"));
	assert_int_equal(r.nerrors, 1);
	pki_report_free(&r);
	assert_int_equal(run_op(PKI_OP_RENEW, false, NULL, &r), -1);
	assert_non_null(
		find(&r, PKI_ERROR, "etcd-client.pem", "cannot be renewed: ca-key.pem is missing"));
	pki_report_free(&r);
	assert_int_equal(access(path_in("ca-key.pem"), F_OK), -1);
	assert_int_equal(access(path_in("apiserver.pem"), F_OK), -1);
	assert_true(same_file("ca.pem", &ca));
}

static void test_ca_key_of_another_ca(void **state)
{
	struct snap ca;
	struct pki_report r;
	EVP_PKEY *k = pki_key_new();

	(void)state;
	load_plan(YAML3);
	issue();
	snap_file("ca.pem", &ca);
	assert_int_equal(unlink(path_in("ca-key.pem")), 0);
	write_key("ca-key.pem", k, 0600);
	check_finds("ca-key.pem", "is not the key of ca.pem");
	assert_int_equal(unlink(path_in("admin.pem")), 0);
	assert_int_equal(run_op(PKI_OP_ISSUE, false, NULL, &r), -1);
	assert_non_null(find(&r, PKI_ERROR, "ca-key.pem", "is not the key of ca.pem"));
	assert_non_null(find(&r, PKI_ERROR, "admin.pem", "cannot be issued"));
	pki_report_free(&r);
	assert_true(same_file("ca.pem", &ca));
	EVP_PKEY_free(k);
}

static void test_ca_cert_missing(void **state)
{
	struct snap s[NFILES];
	struct pki_report r;
	char name[64];

	(void)state;
	load_plan(YAML3);
	issue();
	snap_all(s);
	/* made again from ca-key.pem: everything it signed still verifies */
	assert_int_equal(unlink(path_in("ca.pem")), 0);
	assert_int_equal(run_op(PKI_OP_ISSUE, false, NULL, &r), 0);
	assert_non_null(find(&r, PKI_INFO, "ca.pem", "issued for the existing ca-key.pem"));
	pki_report_free(&r);
	for (size_t i = 2; i < NFILES; i++)
		assert_true(same_file(file_name(i, name, sizeof(name)), &s[i]));
	check_ok();
}

static void test_ca_expired(void **state)
{
	struct pki_report r;
	EVP_PKEY *cak;
	X509 *ca, *x;
	const char *why;

	(void)state;
	load_plan(YAML3);
	issue();
	/* the same CA, long expired */
	cak = read_key("ca-key.pem");
	ca = read_cert("ca.pem");
	x = pki_issue_ca(X509_get_subject_name(ca), NULL, cak, now - 4000 * DAY, 3650, &why);
	assert_non_null(x);
	write_cert("ca.pem", x);
	X509_free(ca);
	EVP_PKEY_free(cak);
	check_finds("ca.pem", "expired on");
	/* nothing is issued by it: it would be born expired */
	assert_int_equal(unlink(path_in("admin.pem")), 0);
	assert_int_equal(run_op(PKI_OP_ISSUE, false, NULL, &r), -1);
	assert_non_null(
		find(&r, PKI_ERROR, "admin.pem", "ca.pem has expired (run cpha pki renew)"));
	pki_report_free(&r);
	/* renewed with its key and name, the others still verify */
	assert_int_equal(run_op(PKI_OP_RENEW, false, NULL, &r), -1);
	assert_non_null(find(&r, PKI_INFO, "ca.pem", "renewed"));
	assert_non_null(find(&r, PKI_ERROR, "admin.pem", "nothing to renew"));
	pki_report_free(&r);
	issue();
	check_ok();
}

/* ---------------------------------------------------------- remove-san -- */

/* Four masters down to three: m4's name and address leave the
 * certificates that had them (etcd-server.pem and apiserver.pem), for
 * the same keys; a name add-san gave stays. A name the description
 * still uses is refused, nothing written. */
static void test_remove_san(void **state)
{
	static const char *const had[] = { "etcd-server.pem", "apiserver.pem" };
	struct pki_names add = { 0 }, rm = { 0 }, used = { 0 };
	struct snap s[NFILES];
	struct pki_report r;
	EVP_PKEY *k;
	X509 *x;

	(void)state;
	load_plan(YAML4);
	issue();
	assert_int_equal(pki_names_add(&add, "api.example.test"), 0);
	assert_int_equal(run_op(PKI_OP_ADD_SAN, false, &add, &r), 0);
	pki_report_free(&r);
	/* the description loses m4; cpha pki keeps every name it had */
	load_plan(YAML3);
	issue();
	for (size_t i = 0; i < 2; i++) {
		x = read_cert(had[i]);
		assert_true(has_san(x, "m4") && has_san(x, "198.18.0.14"));
		X509_free(x);
	}

	/* m3 is in use: refused as a whole, m4 is not taken off either */
	assert_int_equal(pki_names_add(&used, "m4"), 0);
	assert_int_equal(pki_names_add(&used, "M3"), 0);
	snap_all(s);
	assert_int_equal(run_op(PKI_OP_REMOVE_SAN, false, &used, &r), -1);
	assert_non_null(find(&r, PKI_ERROR, "etcd-server.pem", "DNS:m3 is in use"));
	assert_non_null(find(&r, PKI_ERROR, "apiserver.pem", "DNS:m3 is in use"));
	assert_int_equal(r.nerrors, 2);
	pki_report_free(&r);
	assert_all_same(s);

	/* m4's name and address */
	k = read_key("apiserver-key.pem");
	assert_int_equal(pki_names_add(&rm, "m4"), 0);
	assert_int_equal(pki_names_add(&rm, "198.18.0.14"), 0);
	assert_int_equal(run_op(PKI_OP_REMOVE_SAN, false, &rm, &r), 0);
	for (size_t i = 0; i < 2; i++)
		assert_non_null(find(&r, PKI_INFO, had[i],
			"re-issued for the existing key without DNS:m4, IP:198.18.0.14"));
	assert_int_equal(r.n, 2);
	pki_report_free(&r);
	for (size_t i = 0; i < 2; i++) {
		x = read_cert(had[i]);
		assert_false(has_san(x, "m4") || has_san(x, "198.18.0.14"));
		assert_true(has_san(x, "m3") && has_san(x, "198.18.0.13")); /* the plan's */
		X509_free(x);
	}
	x = read_cert("apiserver.pem");
	assert_true(has_san(x, "api.example.test")); /* add-san's */
	assert_int_equal(EVP_PKEY_eq(X509_get0_pubkey(x), k), 1);
	X509_free(x);
	EVP_PKEY_free(k);
	check_ok();

	/* again: nothing has them, nothing written */
	snap_all(s);
	assert_int_equal(run_op(PKI_OP_REMOVE_SAN, false, &rm, &r), 0);
	assert_non_null(find(&r, PKI_INFO, "", "no certificate has DNS:m4, IP:198.18.0.14"));
	pki_report_free(&r);
	assert_all_same(s);

	/* a renew does not bring them back */
	now += DAY;
	assert_int_equal(run_op(PKI_OP_RENEW, true, NULL, &r), 0);
	pki_report_free(&r);
	x = read_cert("etcd-server.pem");
	assert_false(has_san(x, "m4") || has_san(x, "198.18.0.14"));
	X509_free(x);
	pki_names_free(&add);
	pki_names_free(&rm);
	pki_names_free(&used);
}

/* ------------------------------------------------------------- add-san -- */

static void test_add_san(void **state)
{
	struct pki_names add = { 0 }, more = { 0 };
	struct pki_report r;
	struct snap s;
	EVP_PKEY *k;
	X509 *x;

	(void)state;
	load_plan(YAML3);
	issue();
	k = read_key("apiserver-key.pem");
	assert_int_equal(pki_names_add(&add, "api.example.test"), 0);
	assert_int_equal(pki_names_add(&add, "198.18.0.100"), 0);
	assert_int_equal(pki_names_add(&add, "2001:db8::5"), 0);
	assert_int_equal(run_op(PKI_OP_ADD_SAN, false, &add, &r), 0);
	assert_non_null(find(&r, PKI_INFO, "apiserver.pem",
		"with DNS:api.example.test, IP:198.18.0.100, IP:2001:db8::5 added"));
	assert_int_equal(r.n, 1);
	pki_report_free(&r);
	x = read_cert("apiserver.pem");
	assert_int_equal(EVP_PKEY_eq(X509_get0_pubkey(x), k), 1);
	assert_true(has_san(x, "api.example.test") && has_san(x, "198.18.0.100"));
	assert_true(has_san(x, "2001:db8::5"));
	assert_true(has_san(x, "m3") && has_san(x, "10.32.0.1")); /* the plan's */
	X509_free(x);
	check_ok(); /* extra names are fine */

	/* more: the first ones stay */
	assert_int_equal(pki_names_add(&more, "second.example.test"), 0);
	assert_int_equal(run_op(PKI_OP_ADD_SAN, false, &more, &r), 0);
	pki_report_free(&r);
	x = read_cert("apiserver.pem");
	assert_true(has_san(x, "second.example.test") && has_san(x, "api.example.test"));
	assert_true(has_san(x, "198.18.0.100"));
	assert_int_equal(EVP_PKEY_eq(X509_get0_pubkey(x), k), 1);
	X509_free(x);

	/* names it has: nothing written */
	snap_file("apiserver.pem", &s);
	assert_int_equal(run_op(PKI_OP_ADD_SAN, false, &add, &r), 0);
	assert_non_null(find(&r, PKI_INFO, "apiserver.pem", "unchanged"));
	pki_report_free(&r);
	assert_true(same_file("apiserver.pem", &s));

	/* renewing and a changed plan keep them too */
	assert_int_equal(run_op(PKI_OP_RENEW, true, NULL, &r), 0);
	pki_report_free(&r);
	load_plan(YAML4);
	issue();
	x = read_cert("apiserver.pem");
	assert_true(has_san(x, "second.example.test") && has_san(x, "2001:db8::5"));
	assert_true(has_san(x, "m4") && has_san(x, "198.18.0.14"));
	assert_int_equal(EVP_PKEY_eq(X509_get0_pubkey(x), k), 1);
	X509_free(x);
	check_ok();
	EVP_PKEY_free(k);
	pki_names_free(&add);
	pki_names_free(&more);
}

/* Every file the directory holds has a place on the hosts (but the
 * front-proxy CA's key, which nothing on a host signs with), and every
 * place names a file the directory holds, with a key's mode for a key. */
static void test_places(void **state)
{
	struct stat st;
	char name[PKI_STEMLEN + 16];
	DIR *d;
	struct dirent *e;

	(void)state;
	/* with monitoring.tls: every file cpha pki can make */
	load_plan(YAML3 "monitoring: {listen: host, tls: true}\n");
	issue();
	for (size_t i = 0; i < install_table_n; i++) {
		const struct install_row *p = &install_table[i];

		if (p->src != INSTALL_SRC_PKI)
			continue;
		/* a file per master ("%s": its name), or one for all */
		assert_true((p->on == INSTALL_ON_KUBELET) == (strstr(p->source, "%s") != NULL));
		assert_int_equal(
			stat(path_in(install_source_name(p, "m2", name, sizeof(name))), &st), 0);
		assert_int_equal(p->mode, st.st_mode & 07777);
		assert_true(p->dest[0] == '/');
	}
	d = opendir(dir);
	assert_non_null(d);
	while ((e = readdir(d))) {
		bool placed = false;

		/* kept in the PKI directory: nothing on a host signs with the
		 * front-proxy CA */
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "front-proxy-ca-key.pem"))
			continue;
		for (size_t i = 0; i < install_table_n && !placed; i++) {
			const struct install_row *p = &install_table[i];
			char want[PKI_STEMLEN + 16];

			if (p->src != INSTALL_SRC_PKI)
				continue;
			for (int m = 1; m <= 3 && !placed; m++) {
				char host[8];

				snprintf(host, sizeof(host), "m%d", m);
				placed = !strcmp(install_source_name(p, host, want, sizeof(want)),
					e->d_name);
			}
		}
		if (!placed)
			print_error("%s has no place on the hosts\n", e->d_name);
		assert_true(placed);
	}
	closedir(d);
}

static void test_plan_change(void **state)
{
	struct pki_report r;
	struct snap s;
	EVP_PKEY *k;
	X509 *x;

	(void)state;
	load_plan(YAML3);
	issue();
	snap_file("admin.pem", &s);
	k = read_key("etcd-server-key.pem");
	load_plan(YAML4);
	assert_int_equal(run_op(PKI_OP_CHECK, false, NULL, &r), -1);
	/* and m4's kubelet has no certificate yet */
	assert_int_equal(r.nproblems, 6);
	assert_non_null(find(&r, PKI_PROBLEM, "node-m4.pem", "missing"));
	assert_non_null(find(&r, PKI_PROBLEM, "node-m4-key.pem", "missing"));
	assert_non_null(find(&r, PKI_PROBLEM, "etcd-server.pem", "missing SAN DNS:m4"));
	assert_non_null(find(&r, PKI_PROBLEM, "etcd-server.pem", "missing SAN IP:198.18.0.14"));
	assert_non_null(find(&r, PKI_PROBLEM, "apiserver.pem", "missing SAN DNS:m4"));
	assert_non_null(find(&r, PKI_PROBLEM, "apiserver.pem", "missing SAN IP:198.18.0.14"));
	pki_report_free(&r);
	assert_int_equal(run_op(PKI_OP_ISSUE, false, NULL, &r), 0);
	assert_non_null(find(&r, PKI_INFO, "etcd-server.pem",
		"re-issued for the existing key (missing SAN DNS:m4; missing SAN IP:198.18.0.14)"));
	assert_non_null(find(&r, PKI_INFO, "apiserver.pem", "re-issued"));
	assert_int_equal(count(&r, PKI_INFO, "re-issued"), 2);
	pki_report_free(&r);
	x = read_cert("etcd-server.pem");
	assert_int_equal(EVP_PKEY_eq(X509_get0_pubkey(x), k), 1);
	X509_free(x);
	EVP_PKEY_free(k);
	assert_true(same_file("admin.pem", &s));
	check_ok();
}

/* A key the operator brings (RSA 2048, as cfssl made it) is used as it is. */
static void test_existing_rsa_key(void **state)
{
	EVP_PKEY *k = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048);
	X509 *x;

	(void)state;
	load_plan(YAML3);
	assert_int_equal(mkdir(dir, 0700), 0);
	write_key("apiserver-key.pem", k, 0600);
	issue();
	x = read_cert("apiserver.pem");
	assert_int_equal(EVP_PKEY_eq(X509_get0_pubkey(x), k), 1);
	assert_true(X509_get_key_usage(x) & KU_KEY_ENCIPHERMENT);
	X509_free(x);
	check_ok();
	EVP_PKEY_free(k);
}

/* ----------------------------------------------------------- directory -- */

static void test_dir_rules(void **state)
{
	struct pki_report r;
	struct stat st;

	(void)state;
	load_plan(YAML3);
	/* a directory others may enter is refused, and nothing written */
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(run_op(PKI_OP_ISSUE, false, NULL, &r), -1);
	assert_non_null(find(&r, PKI_ERROR, "", "mode 0755: group or others may enter it"));
	assert_int_equal(r.n, 1);
	pki_report_free(&r);
	assert_int_equal(access(path_in("ca-key.pem"), F_OK), -1);
	assert_int_equal(chmod(dir, 0700), 0);
	issue();
	assert_int_equal(chmod(dir, 0750), 0);
	check_finds("", "mode 0750");
	assert_int_equal(chmod(dir, 0700), 0);

	/* only the directory is made, not its parents */
	snprintf(dir, sizeof(dir), "%s/no/pki", root);
	assert_int_equal(run_op(PKI_OP_ISSUE, false, NULL, &r), -1);
	assert_non_null(find(&r, PKI_ERROR, "", "its parent must exist"));
	pki_report_free(&r);
	assert_int_equal(stat(dir, &st), -1);
	/* check makes nothing */
	snprintf(dir, sizeof(dir), "%s/none", root);
	assert_int_equal(run_op(PKI_OP_CHECK, false, NULL, &r), -1);
	assert_int_equal(r.nerrors, 1);
	pki_report_free(&r);
	assert_int_equal(stat(dir, &st), -1);
	/* no temporary file is left behind */
	snprintf(dir, sizeof(dir), "%s/pki", root);
	no_temp_files();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_renew, setup, teardown),
		cmocka_unit_test_setup_teardown(test_renew_rekey, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ca_key_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ca_key_of_another_ca, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ca_cert_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ca_expired, setup, teardown),
		cmocka_unit_test_setup_teardown(test_add_san, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remove_san, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plan_change, setup, teardown),
		cmocka_unit_test_setup_teardown(test_places, setup, teardown),
		cmocka_unit_test_setup_teardown(test_existing_rsa_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_rules, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
