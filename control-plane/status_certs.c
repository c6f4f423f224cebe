/* cpha status, the certificates: the notAfter of every certificate under
 * the PKI directory it reads, for the earliest expiry it shows and the
 * cpha_cert_expiry_timestamp_seconds series. Only certificates are read:
 * a file named *-key.pem is never opened, and a .pem without a certificate
 * (a key under another name) is skipped. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "status.h"

#define CERTS_MAX_DEPTH 4 /* subdirectories followed below the PKI directory */

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && strcmp(s + n - t, tail) == 0;
}

static void cert_error(struct st_snapshot *s, const char *file, const char *why)
{
	if (!*s->cert_error)
		snprintf(s->cert_error, sizeof(s->cert_error), "%.120s: %.70s", file, why);
}

/* Read path's first certificate; rel names it in the snapshot. */
static void read_cert(struct st_snapshot *s, const char *path, const char *rel)
{
	struct st_cert *c;
	struct tm tm;
	X509 *x = NULL;
	BIO *in;

	for (size_t i = 0; i < s->ncerts; i++)
		if (strcmp(s->certs[i].file, rel) == 0)
			return; /* ca.pem in both installed directories: the same CA */
	errno = 0;
	in = BIO_new_file(path, "r");
	if (!in) {
		cert_error(s, path, strerror(errno ? errno : EIO));
		ERR_clear_error();
		return;
	}
	x = PEM_read_bio_X509(in, NULL, NULL, NULL);
	BIO_free(in);
	ERR_clear_error(); /* no certificate in it: a key or parameters */
	if (!x)
		return;
	if (s->ncerts == ST_MAX_CERTS) {
		cert_error(s, path, "too many certificates, not shown");
	} else if (!ASN1_TIME_to_tm(X509_get0_notAfter(x), &tm)) {
		cert_error(s, path, "its notAfter cannot be read");
		ERR_clear_error();
	} else {
		c = &s->certs[s->ncerts++];
		snprintf(c->file, sizeof(c->file), "%s", rel);
		c->not_after = (int64_t)timegm(&tm);
	}
	X509_free(x);
}

/* Every *.pem under dir/sub, depth levels of subdirectories at most. */
static void scan(struct st_snapshot *s, const char *dir, const char *sub, int depth)
{
	char path[4096], rel[ST_TEXT];
	struct dirent *de;
	struct stat st;
	DIR *d;

	snprintf(path, sizeof(path), "%s%s%s", dir, *sub ? "/" : "", sub);
	d = opendir(path);
	if (!d) {
		if (errno != ENOENT || !*sub)
			cert_error(s, path, strerror(errno));
		return;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(rel, sizeof(rel), "%s%s%s", sub, *sub ? "/" : "",
			    de->d_name) >= sizeof(rel))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, rel);
		if (stat(path, &st) == -1)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (depth > 0)
				scan(s, dir, rel, depth - 1);
		} else if (S_ISREG(st.st_mode) && ends_with(de->d_name, ".pem") &&
			   !ends_with(de->d_name, "-key.pem")) {
			read_cert(s, path, rel);
		}
	}
	closedir(d);
}

static int by_file(const void *a, const void *b)
{
	return strcmp(((const struct st_cert *)a)->file, ((const struct st_cert *)b)->file);
}

void status_collect_certs(const char *pki, struct st_snapshot *s)
{
	s->ncerts = 0;
	s->cert_error[0] = '\0';
	if (pki) {
		scan(s, pki, "", CERTS_MAX_DEPTH);
	} else {
		scan(s, STATUS_INSTALLED_K8S_PKI, "", CERTS_MAX_DEPTH);
		scan(s, STATUS_INSTALLED_ETCD_PKI, "", CERTS_MAX_DEPTH);
	}
	qsort(s->certs, s->ncerts, sizeof(s->certs[0]), by_file);
}
