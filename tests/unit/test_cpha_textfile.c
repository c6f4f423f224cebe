/* node-exporter textfiles: cpha check's series, the atomic write that
 * cpha status and cpha check share, and the certificates cpha status reads
 * for cpha_cert_expiry_timestamp_seconds (real PEM files in a temporary
 * directory). */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
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
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "status.h"
#include "textfile.h"

static char top[64];

static int setup(void **state)
{
	(void)state;
	snprintf(top, sizeof(top), "/tmp/cpha-textfile-XXXXXX");
	return mkdtemp(top) ? 0 : -1;
}

static int rm_cb(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(p);
}

static int teardown(void **state)
{
	(void)state;
	return nftw(top, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static void put(const char *rel, const char *text)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", top, rel);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *get(const char *rel)
{
	static char data[4096];
	char p[256];
	size_t n;
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", top, rel);
	f = fopen(p, "r");
	if (!f)
		return NULL;
	n = fread(data, 1, sizeof(data) - 1, f);
	data[n] = '\0';
	fclose(f);
	return data;
}

/* The names in top (one level), sorted, joined by spaces. */
static const char *names(void)
{
	static char out[1024];
	struct dirent **v;
	int n = scandir(top, &v, NULL, alphasort);

	out[0] = '\0';
	assert_true(n >= 0);
	for (int i = 0; i < n; i++) {
		if (v[i]->d_name[0] != '.')
			snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s",
				*out ? " " : "", v[i]->d_name);
		free(v[i]);
	}
	free(v);
	return out;
}

static void test_check_text(void **state)
{
	struct cpha_buf b = { 0 };

	(void)state;
	textfile_check(&b, "kubem01", true, 1795000000);
	assert_string_equal(b.data,
		"# HELP cpha_config_drift 1 when cpha check found the host's files or daemons "
		"drifted from the description\n"
		"# TYPE cpha_config_drift gauge\n"
		"cpha_config_drift{host=\"kubem01\"} 1\n"
		"# HELP cpha_config_check_timestamp_seconds when cpha check last compared the "
		"host (unix seconds)\n"
		"# TYPE cpha_config_check_timestamp_seconds gauge\n"
		"cpha_config_check_timestamp_seconds{host=\"kubem01\"} 1795000000\n");
	cpha_buf_free(&b);
	textfile_check(&b, "lb0", false, 1795000000.25);
	assert_non_null(strstr(b.data, "\ncpha_config_drift{host=\"lb0\"} 0\n"));
	assert_non_null(strstr(
		b.data, "\ncpha_config_check_timestamp_seconds{host=\"lb0\"} 1795000000.25\n"));
	cpha_buf_free(&b);
}

static void test_write(void **state)
{
	char path[256], why[512];
	struct stat st1, st2;
	mode_t old = umask(077);

	(void)state;
	snprintf(path, sizeof(path), "%s/cpha.prom", top);
	assert_int_equal(textfile_write(path, "a 1\n", 4, why, sizeof(why)), 0);
	assert_string_equal(get("cpha.prom"), "a 1\n");
	assert_int_equal(stat(path, &st1), 0);
	assert_int_equal(st1.st_mode & 07777, 0644); /* whatever the umask */
	/* a second write replaces the file whole: a new inode, renamed over */
	assert_int_equal(textfile_write(path, "a 2\nb 3\n", 8, why, sizeof(why)), 0);
	assert_string_equal(get("cpha.prom"), "a 2\nb 3\n");
	assert_int_equal(stat(path, &st2), 0);
	assert_true(st1.st_ino != st2.st_ino);
	assert_string_equal(names(), "cpha.prom"); /* no temporary file left */

	/* a directory in the way: an error naming it, nothing left behind */
	snprintf(path, sizeof(path), "%s/dir.prom", top);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_true(textfile_write(path, "x\n", 2, why, sizeof(why)) < 0);
	assert_non_null(strstr(why, "dir.prom: "));
	assert_string_equal(names(), "cpha.prom dir.prom");
	/* no such directory */
	snprintf(path, sizeof(path), "%s/none/cpha.prom", top);
	assert_int_equal(textfile_write(path, "x\n", 2, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "none/cpha.prom: cannot write it: No such file"));
	umask(old);
}

/* A self-signed certificate valid until not_after, and its key. */
static void make_cert(const char *cert_rel, const char *key_rel, int64_t not_after)
{
	EVP_PKEY *pk = EVP_EC_gen("P-256");
	X509 *x = X509_new();
	char p[256];
	FILE *f;

	assert_non_null(pk);
	assert_non_null(x);
	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
	X509_gmtime_adj(X509_getm_notBefore(x), -60);
	assert_non_null(ASN1_TIME_set(X509_getm_notAfter(x), (time_t)not_after));
	X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
		(const unsigned char *)"t", -1, -1, 0);
	X509_set_issuer_name(x, X509_get_subject_name(x));
	X509_set_pubkey(x, pk);
	assert_true(X509_sign(x, pk, EVP_sha256()) > 0);
	snprintf(p, sizeof(p), "%s/%s", top, cert_rel);
	f = fopen(p, "w");
	assert_non_null(f);
	PEM_write_X509(f, x);
	fclose(f);
	snprintf(p, sizeof(p), "%s/%s", top, key_rel);
	f = fopen(p, "w");
	assert_non_null(f);
	PEM_write_PrivateKey(f, pk, NULL, NULL, 0, NULL, NULL);
	fclose(f);
	X509_free(x);
	EVP_PKEY_free(pk);
}

static void test_certs(void **state)
{
	struct st_snapshot *s = calloc(1, sizeof(*s));
	char dir[128];

	(void)state;
	assert_non_null(s);
	snprintf(dir, sizeof(dir), "%s/etcd", top);
	assert_int_equal(mkdir(dir, 0755), 0);
	make_cert("ca.pem", "ca-key.pem", 2145916800);                  /* 2038-01-01 */
	make_cert("etcd/peer.pem", "etcd/stray.pem", 1798761600);       /* 2027-01-01 */
	put("broken.pem", "-----BEGIN CERTIFICATE-----\nnot base64\n"); /* no certificate */
	put("sa.pub", "not a .pem file\n");
	status_collect_certs(top, s);
	assert_string_equal(s->cert_error, "");
	/* keys (by name or by content) and other files are skipped */
	assert_int_equal(s->ncerts, 2);
	assert_string_equal(s->certs[0].file, "ca.pem");
	assert_int_equal(s->certs[0].not_after, 2145916800);
	assert_string_equal(s->certs[1].file, "etcd/peer.pem");
	assert_int_equal(s->certs[1].not_after, 1798761600);
	assert_string_equal(status_cert_earliest(s)->file, "etcd/peer.pem");

	/* no such directory: said, nothing read */
	snprintf(dir, sizeof(dir), "%s/none", top);
	status_collect_certs(dir, s);
	assert_int_equal(s->ncerts, 0);
	assert_non_null(strstr(s->cert_error, "/none: No such file or directory"));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_text),
		cmocka_unit_test_setup_teardown(test_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_certs, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
