/* `cpha pki`: issuing into a directory, check passing, then check catching
 * each broken rule with a certificate made here; renew and add-san keeping
 * keys and names; a second run changing nothing; the directory rules. */
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

#define DAY 86400

/* CPHA_TEST_BASE with a domain and a service range of its own */
#define YAML3                                                                                      \
	"cluster: {name: lab, domain: lab.example}\n"                                              \
	"api: {name: api.lab.example, vip: 198.18.0.2/24}\n"                                       \
	"kubernetes: {service_cidr: 10.32.0.0/16}\n"                                               \
	"masters:\n"                                                                               \
	"  - {name: m1, address: 198.18.0.11}\n"                                                   \
	"  - {name: m2, address: 198.18.0.12}\n"                                                   \
	"  - {name: m3, address: 198.18.0.13}\n"
#define YAML4 YAML3 "  - {name: m4, address: 198.18.0.14}\n"

/* YAML3's files: two CAs, then the plan's certificates */
static const char *const certs[] = { "ca", "front-proxy-ca", "etcd-server", "etcd-client",
	"apiserver", "kubelet-client", "controller-manager", "scheduler", "admin", "super-admin",
	"front-proxy-client", "node-m1", "node-m2", "node-m3" };
#define NCERTS (sizeof(certs) / sizeof(certs[0]))

static char root[64], dir[256];
static struct pki_plan plan;
static time_t now;

/* ------------------------------------------------------------- helpers -- */

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/cpha-test-pki-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(dir, sizeof(dir), "%s/pki", root);
	now = time(NULL);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	pki_plan_free(&plan);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void load_plan(const char *yaml)
{
	struct cpha_msgs d = { 0 };
	struct cp_cluster *c = cpha_test_load(yaml, &d, NULL);
	const char *why = NULL;

	for (size_t i = 0; i < d.nerrs; i++)
		print_message("error: %s\n", d.errs[i].text);
	assert_non_null(c);
	pki_plan_free(&plan);
	assert_int_equal(pki_plan_build(c, &plan, &why), 0);
	cluster_free(c);
	cpha_msgs_free(&d);
}

static void dump(const struct pki_report *r)
{
	static const char *const kind[] = { "info", "warn", "PROBLEM", "ERROR" };

	for (size_t i = 0; i < r->n; i++)
		print_message("  %s %s: %s\n", kind[r->v[i].kind], r->v[i].file, r->v[i].text);
}

static int run_op(enum pki_op op, bool force, const struct pki_names *add, struct pki_report *r)
{
	struct pki_run o = { .op = op, .force = force, .add = add, .now = now };
	int rc;

	memset(r, 0, sizeof(*r));
	rc = pki_dir_run(&plan, dir, &o, r);
	dump(r);
	return rc;
}

/* The line of kind k about file whose text contains text, or NULL. */
static const struct pki_line *find(
	const struct pki_report *r, enum pki_kind k, const char *file, const char *text)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].kind == k && !strcmp(r->v[i].file, file) && strstr(r->v[i].text, text))
			return &r->v[i];
	return NULL;
}

static size_t count(const struct pki_report *r, enum pki_kind k, const char *text)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].kind == k && strstr(r->v[i].text, text))
			n++;
	return n;
}

static void issue(void)
{
	struct pki_report r;

	assert_int_equal(run_op(PKI_OP_ISSUE, false, NULL, &r), 0);
	pki_report_free(&r);
}

static void check_ok(void)
{
	struct pki_report r;

	assert_int_equal(run_op(PKI_OP_CHECK, false, NULL, &r), 0);
	assert_int_equal(r.nproblems, 0);
	assert_int_equal(r.nerrors, 0);
	/* the CAs, the plan's certificates, sa.key and the authkey */
	assert_int_equal(count(&r, PKI_INFO, "ok"), 2 + plan.n + 2);
	pki_report_free(&r);
}

/* check finds exactly one problem: file's, saying text */
static void check_finds(const char *file, const char *text)
{
	struct pki_report r;

	assert_int_equal(run_op(PKI_OP_CHECK, false, NULL, &r), -1);
	assert_int_equal(r.nerrors, 0);
	assert_int_equal(r.nproblems, 1);
	assert_non_null(find(&r, PKI_PROBLEM, file, text));
	pki_report_free(&r);
}

static char *path_in(const char *name)
{
	static char p[4][PATH_MAX];
	static int i;

	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s", dir, name);
	return p[i];
}

static X509 *read_cert(const char *name)
{
	FILE *f = fopen(path_in(name), "r");
	X509 *x;

	assert_non_null(f);
	x = PEM_read_X509(f, NULL, NULL, NULL);
	fclose(f);
	assert_non_null(x);
	return x;
}

static EVP_PKEY *read_key(const char *name)
{
	FILE *f = fopen(path_in(name), "r");
	EVP_PKEY *k;

	assert_non_null(f);
	k = PEM_read_PrivateKey(f, NULL, NULL, NULL);
	fclose(f);
	assert_non_null(k);
	return k;
}

/* Replace a certificate of the directory with x (freed). */
static void write_cert(const char *name, X509 *x)
{
	FILE *f = fopen(path_in(name), "w");

	assert_non_null(f);
	assert_int_equal(PEM_write_X509(f, x), 1);
	assert_int_equal(fclose(f), 0);
	X509_free(x);
}

static void write_key(const char *name, EVP_PKEY *k, mode_t mode)
{
	int fd = open(path_in(name), O_WRONLY | O_CREAT | O_TRUNC, mode);
	FILE *f;

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(PEM_write_PrivateKey(f, k, NULL, NULL, 0, NULL, NULL), 1);
	assert_int_equal(fclose(f), 0);
}

/* A copy of the plan's spec for stem, to break. */
static struct pki_spec spec_copy(const char *stem)
{
	const struct pki_spec *s = pki_plan_find(&plan, stem);
	struct pki_spec c;

	assert_non_null(s);
	c = *s;
	memset(&c.sans, 0, sizeof(c.sans));
	pki_names_merge(&c.sans, &s->sans);
	return c;
}

/* Issue stem.pem for spec s with its key in the directory, signed by the
 * directory's CA, at time t for days; written over stem.pem. */
static void reissue_as(const struct pki_spec *s, time_t t, unsigned days)
{
	char cert[PKI_STEMLEN + 8], key[PKI_STEMLEN + 12];
	const char *why = NULL;
	EVP_PKEY *k, *cak;
	X509 *ca, *x;

	snprintf(cert, sizeof(cert), "%s.pem", s->stem);
	snprintf(key, sizeof(key), "%s-key.pem", s->stem);
	k = read_key(key);
	ca = read_cert("ca.pem");
	cak = read_key("ca-key.pem");
	x = pki_issue(s, NULL, k, ca, cak, t, days, &why);
	if (!x)
		print_message("pki_issue: %s\n", why);
	assert_non_null(x);
	write_cert(cert, x);
	EVP_PKEY_free(k);
	EVP_PKEY_free(cak);
	X509_free(ca);
}

struct snap {
	unsigned char data[4096];
	size_t len;
	struct stat st;
};

static void snap_file(const char *name, struct snap *s)
{
	int fd = open(path_in(name), O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &s->st), 0);
	n = read(fd, s->data, sizeof(s->data));
	assert_true(n > 0 && (size_t)n < sizeof(s->data));
	s->len = (size_t)n;
	close(fd);
}

static bool same_file(const char *name, const struct snap *s)
{
	struct snap now_;

	snap_file(name, &now_);
	return now_.len == s->len && !memcmp(now_.data, s->data, s->len) &&
	       now_.st.st_ino == s->st.st_ino && now_.st.st_mtim.tv_sec == s->st.st_mtim.tv_sec &&
	       now_.st.st_mtim.tv_nsec == s->st.st_mtim.tv_nsec;
}

/* Every file of the directory, in a fixed order. */
static const char *file_name(size_t i, char *buf, size_t len)
{
	if (i < NCERTS * 2)
		snprintf(buf, len, "%s%s", certs[i / 2], i % 2 ? "-key.pem" : ".pem");
	else
		snprintf(buf, len, "%s",
			i == NCERTS * 2       ? PKI_SA_KEY
			: i == NCERTS * 2 + 1 ? PKI_SA_PUB
					      : PKI_AUTHKEY);
	return buf;
}
#define NFILES (NCERTS * 2 + 3)

static bool has_san(X509 *x, const char *name)
{
	struct pki_names n = { 0 }, want = { 0 };
	bool ok;

	pki_names_of_cert(x, &n);
	assert_int_equal(pki_names_add(&want, name), 0);
	ok = want.ndns ? pki_names_has_dns(&n, want.dns[0]) : pki_names_has_ip(&n, &want.ip[0]);
	pki_names_free(&n);
	pki_names_free(&want);
	return ok;
}

static time_t not_after(X509 *x)
{
	struct tm tm;

	assert_int_equal(ASN1_TIME_to_tm(X509_get0_notAfter(x), &tm), 1);
	return timegm(&tm);
}

static void no_temp_files(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			assert_true(e->d_name[0] != '.');
	closedir(d);
}

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
	char name[64];

	(void)state;
	load_plan(YAML3);
	issue();
	for (size_t i = 0; i < NFILES; i++)
		snap_file(file_name(i, name, sizeof(name)), &s[i]);
	assert_int_equal(run_op(PKI_OP_ISSUE, false, NULL, &r), 0);
	assert_int_equal(count(&r, PKI_INFO, "kept"), NFILES);
	assert_int_equal(r.n, NFILES);
	pki_report_free(&r);
	for (size_t i = 0; i < NFILES; i++)
		assert_true(same_file(file_name(i, name, sizeof(name)), &s[i]));
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
	for (size_t i = 0; i < NFILES; i++)
		snap_file(file_name(i, name, sizeof(name)), &s[i]);

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
	for (size_t i = 0; i < NFILES; i++)
		snap_file(file_name(i, name, sizeof(name)), &s[i]);
	assert_int_equal(run_op(PKI_OP_RENEW, false, NULL, &r), 0);
	assert_non_null(find(&r, PKI_INFO, "", "nothing renewed"));
	pki_report_free(&r);
	for (size_t i = 0; i < NFILES; i++)
		assert_true(same_file(file_name(i, name, sizeof(name)), &s[i]));

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
	for (size_t i = 0; i < NFILES; i++)
		snap_file(file_name(i, name, sizeof(name)), &s[i]);
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
				placed = !strcmp(
					install_source_name(p, host, want, sizeof(want)), e->d_name);
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
		cmocka_unit_test_setup_teardown(test_renew, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ca_key_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ca_key_of_another_ca, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ca_cert_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ca_expired, setup, teardown),
		cmocka_unit_test_setup_teardown(test_add_san, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plan_change, setup, teardown),
		cmocka_unit_test_setup_teardown(test_places, setup, teardown),
		cmocka_unit_test_setup_teardown(test_existing_rsa_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_rules, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
