/* `cpha pki`'s files: each certificate and key is read from the directory,
 * linted and decided on by pki.c, and what was decided is written here.
 *
 * Every name written is a fixed one, relative to a descriptor of the
 * directory, so nothing lands outside it. A file is written to a temporary
 * name in the directory, synced, then renamed over the old one
 * (certificates) or linked to its name, which fails when the name exists
 * (keys: a key is never replaced, even by a concurrent run). A key is
 * written before the certificate for it: a run cut short leaves a key that
 * the next run issues the certificate for. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/rand.h>

#include "fileio.h"
#include "pki_dir.h"

#define MAX_FILE  (1 << 20) /* a PEM file larger than this is not one of ours */
#define KEY_MODE  0600      /* private keys */
#define FILE_MODE 0644      /* certificates, sa.pub */
#define DIR_MODE  0700      /* a directory cpha creates */

/* One CA of the directory: ca (the cluster's) or front-proxy-ca (the
 * aggregation layer's, kept apart as kubeadm does so that a certificate
 * of one is never taken for an identity by the other). */
struct ca {
	const char *stem;     /* PKI_CA, PKI_FP_CA */
	const char *cn;       /* the CN of a new one */
	X509 *cert;           /* STEM.pem after the CA step; NULL when there is none */
	EVP_PKEY *key;        /* NULL: nothing can be issued, for no_issue */
	const char *no_issue; /* why: one of the texts below, or why_buf */
	char why_buf[160];
};

struct ctx {
	const char *path;
	int dfd;
	const struct pki_run *o;
	const struct pki_plan *plan;
	struct pki_report *r;
	struct ca ca, fp; /* ca.pem, front-proxy-ca.pem */
	bool wrote;
	size_t renewed;
};

/* The CA that signs s. */
static struct ca *ca_of(struct ctx *x, const struct pki_spec *s)
{
	return s && s->front_proxy ? &x->fp : &x->ca;
}

/* Set a->no_issue to a formatted reason. */
#define CA_WHY(a, ...) (snprintf((a)->why_buf, sizeof((a)->why_buf), __VA_ARGS__), (a)->why_buf)
/* A certificate and its key as found in the directory. */
struct pair {
	char cert_name[PKI_STEMLEN + 8], key_name[PKI_STEMLEN + 12];
	X509 *cert;
	EVP_PKEY *key;
	bool cert_file, key_file; /* the files exist */
	char key_err[300];        /* why an existing key file cannot be read; "" when it can */
	unsigned bad;             /* PKI_BAD_* */
	struct pki_report lint;   /* one problem per line */
};

/* ------------------------------------------------------------- reading -- */

/* The contents of name: 0, or -ENOENT, -EINVAL (not a regular file),
 * -EFBIG, another -errno. */
static int read_at(int dfd, const char *name, char **buf, size_t *len, mode_t *mode)
{
	struct stat st;
	size_t got = 0;
	ssize_t n;
	int fd, rc = 0;

	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd == -1)
		return -errno;
	if (fstat(fd, &st) == -1)
		rc = -errno;
	else if (!S_ISREG(st.st_mode))
		rc = -EINVAL;
	else if (st.st_size > MAX_FILE)
		rc = -EFBIG;
	if (rc < 0)
		goto out;
	*buf = malloc((size_t)st.st_size + 1);
	if (!*buf) {
		rc = -ENOMEM;
		goto out;
	}
	while (got < (size_t)st.st_size) {
		n = read(fd, *buf + got, (size_t)st.st_size - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			rc = -errno;
			OPENSSL_clear_free(*buf, (size_t)st.st_size + 1);
			*buf = NULL;
			goto out;
		}
		if (!n)
			break;
		got += (size_t)n;
	}
	(*buf)[got] = 0;
	*len = got;
	*mode = st.st_mode;
out:
	close(fd);
	return rc;
}

static const char *read_error(int rc)
{
	switch (rc) {
	case -EINVAL:
		return "not a regular file";
	case -EFBIG:
		return "larger than 1 MiB, not a PEM file";
	default:
		return strerror(-rc);
	}
}

static int no_pass(char *buf, int size, int rwflag, void *u)
{
	(void)buf;
	(void)size;
	(void)rwflag;
	(void)u;
	return -1;
}

enum pem_kind { PEM_CERT, PEM_KEY, PEM_PUB };

/* Read a PEM object: 1 with *out set, 0 when the file does not exist, -1
 * with why (at least 256 bytes). */
static int load_pem(
	struct ctx *x, const char *name, enum pem_kind k, void **out, mode_t *mode, char *why)
{
	char *buf = NULL;
	size_t len = 0;
	mode_t m = 0;
	BIO *b;
	int rc;

	*out = NULL;
	rc = read_at(x->dfd, name, &buf, &len, &m);
	if (rc == -ENOENT)
		return 0;
	if (rc < 0) {
		snprintf(why, 256, "%s", read_error(rc));
		return -1;
	}
	if (mode)
		*mode = m;
	b = BIO_new_mem_buf(buf, (int)len);
	if (b && k == PEM_CERT)
		*out = PEM_read_bio_X509(b, NULL, NULL, NULL);
	else if (b && k == PEM_KEY)
		*out = PEM_read_bio_PrivateKey(b, NULL, no_pass, NULL);
	else if (b)
		*out = PEM_read_bio_PUBKEY(b, NULL, NULL, NULL);
	if (!*out && k == PEM_KEY && strstr(buf, "ENCRYPTED"))
		snprintf(why, 256, "an encrypted key (cpha reads unencrypted PEM keys only)");
	else if (!*out)
		snprintf(why, 256, "not a PEM %s (%s)",
			k == PEM_CERT  ? "certificate"
			: k == PEM_KEY ? "private key"
				       : "public key",
			pki_ssl_error());
	ERR_clear_error();
	BIO_free(b);
	OPENSSL_clear_free(buf, len + 1);
	return *out ? 1 : -1;
}

/* Read STEM.pem and STEM-key.pem and lint them (s NULL: the CA STEM). */
static void pair_load(struct ctx *x, const char *stem, const struct pki_spec *s, struct pair *p)
{
	unsigned renew = x->plan->renew_days;
	char why[256];
	mode_t mode = 0;
	int rc;

	memset(p, 0, sizeof(*p));
	snprintf(p->cert_name, sizeof(p->cert_name), "%s.pem", stem);
	snprintf(p->key_name, sizeof(p->key_name), "%s-key.pem", stem);

	rc = load_pem(x, p->cert_name, PEM_CERT, (void **)&p->cert, NULL, why);
	p->cert_file = rc != 0;
	if (!rc)
		pki_report_add(&p->lint, PKI_PROBLEM, p->cert_name, "missing");
	else if (rc < 0)
		pki_report_add(&p->lint, PKI_PROBLEM, p->cert_name, "cannot be read: %s", why);

	rc = load_pem(x, p->key_name, PEM_KEY, (void **)&p->key, &mode, why);
	p->key_file = rc != 0;
	if (!rc && s)
		pki_report_add(&p->lint, PKI_PROBLEM, p->key_name, "missing");
	if (rc < 0) {
		snprintf(p->key_err, sizeof(p->key_err), "cannot be read: %s", why);
		pki_report_add(&p->lint, PKI_PROBLEM, p->key_name, "%s", p->key_err);
	} else if (rc > 0 && (mode & 077)) {
		pki_report_add(&p->lint, PKI_PROBLEM, p->key_name,
			"mode %04o: group or others may read this key; want 0600",
			(unsigned)(mode & 07777));
		p->bad |= PKI_BAD_MODE;
	}
	if (s)
		p->bad |= pki_lint_cert(
			s, p->cert, p->key, ca_of(x, s)->cert, x->o->now, renew, &p->lint);
	else
		p->bad |= pki_lint_ca(stem, p->cert, p->key, x->o->now, renew, &p->lint);
}

static void pair_free(struct pair *p)
{
	X509_free(p->cert);
	EVP_PKEY_free(p->key);
	pki_report_free(&p->lint);
}

/* The lint's lines, as lines of kind k of the run. */
static void take_lines(struct ctx *x, const struct pair *p, enum pki_kind k)
{
	for (size_t i = 0; i < p->lint.n; i++)
		pki_report_add(x->r, k, p->lint.v[i].file, "%s", p->lint.v[i].text);
}

/* The lint's findings about the certificate, "; "-joined; those about
 * other files (a key's mode) become warnings of the run. */
static const char *reasons(struct ctx *x, const struct pair *p, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (size_t i = 0; i < p->lint.n; i++)
		if (strcmp(p->lint.v[i].file, p->cert_name))
			pki_report_add(x->r, PKI_WARN, p->lint.v[i].file, "%s", p->lint.v[i].text);
		else if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "; " : "",
				p->lint.v[i].text);
	return buf;
}

/* ------------------------------------------------------------- writing -- */

/* Write name whole; keep: fail with EEXIST rather than replace it. */
static int write_at(
	struct ctx *x, const char *name, const char *data, size_t len, mode_t mode, bool keep)
{
	char tmp[PKI_STEMLEN + 48];
	unsigned char rnd[6];
	int fd = -1, e = 0;

	for (int i = 0; i < 8 && fd == -1; i++) {
		if (RAND_bytes(rnd, sizeof(rnd)) != 1) {
			pki_report_add(
				x->r, PKI_ERROR, name, "cannot be written: %s", pki_ssl_error());
			return -1;
		}
		snprintf(tmp, sizeof(tmp), ".%s.%02x%02x%02x%02x%02x%02x", name, rnd[0], rnd[1],
			rnd[2], rnd[3], rnd[4], rnd[5]);
		fd = openat(
			x->dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
		if (fd == -1 && errno != EEXIST)
			break;
	}
	if (fd == -1) {
		pki_report_add(x->r, PKI_ERROR, name, "cannot be written: %s", strerror(errno));
		return -1;
	}
	/* the mode whatever the umask */
	if (fchmod(fd, mode) == -1 || cpha_write_all(fd, data, len) < 0 || fsync(fd) == -1) {
		e = errno;
		close(fd);
		goto fail;
	}
	if (close(fd) == -1) {
		e = errno;
		goto fail;
	}
	if (keep) {
		if (linkat(x->dfd, tmp, x->dfd, name, 0) == -1) {
			e = errno;
			goto fail;
		}
		unlinkat(x->dfd, tmp, 0);
	} else if (renameat(x->dfd, tmp, x->dfd, name) == -1) {
		e = errno;
		goto fail;
	}
	x->wrote = true;
	return 0;
fail:
	unlinkat(x->dfd, tmp, 0);
	pki_report_add(x->r, PKI_ERROR, name, "cannot be written: %s%s", strerror(e),
		keep && e == EEXIST ? " (it appeared meanwhile; a key is never replaced)" : "");
	return -1;
}

/* replace: a key that takes an existing key's place (renew --rekey);
 * otherwise a key or a public key is never written over */
static int save_pem_as(struct ctx *x, const char *name, enum pem_kind k, void *obj, bool replace)
{
	/* key material only in memory that is cleared when freed */
	BIO *b = BIO_new(k == PEM_KEY ? BIO_s_secmem() : BIO_s_mem());
	char *data = NULL;
	long len;
	int ok, rc = -1;

	if (k == PEM_CERT)
		ok = b && PEM_write_bio_X509(b, obj);
	else if (k == PEM_KEY)
		ok = b && PEM_write_bio_PrivateKey(b, obj, NULL, NULL, 0, NULL, NULL);
	else
		ok = b && PEM_write_bio_PUBKEY(b, obj);
	if (!ok) {
		pki_report_add(x->r, PKI_ERROR, name, "cannot be encoded: %s", pki_ssl_error());
		goto out;
	}
	len = BIO_get_mem_data(b, &data);
	rc = write_at(x, name, data, (size_t)len, k == PEM_KEY ? KEY_MODE : FILE_MODE,
		k != PEM_CERT && !replace);
out:
	BIO_free(b);
	return rc;
}

static int save_pem(struct ctx *x, const char *name, enum pem_kind k, void *obj)
{
	return save_pem_as(x, name, k, obj, false);
}

static EVP_PKEY *new_key(struct ctx *x, const char *name)
{
	EVP_PKEY *k = pki_key_new();

	if (!k)
		pki_report_add(x->r, PKI_ERROR, name, "cannot be made: %s", pki_ssl_error());
	return k;
}

/* ----------------------------------------------------------- directory -- */

static int open_dir(struct ctx *x)
{
	struct stat st;
	bool created = false;

	x->dfd = open(x->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (x->dfd == -1 && errno == ENOENT && x->o->op == PKI_OP_ISSUE) {
		/* only the directory itself: its parent is the operator's */
		if (mkdir(x->path, DIR_MODE) == -1) {
			pki_report_add(x->r, PKI_ERROR, "", "cannot be created: %s%s",
				strerror(errno), errno == ENOENT ? " (its parent must exist)" : "");
			return -1;
		}
		created = true;
		x->dfd = open(x->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (x->dfd == -1) {
		pki_report_add(x->r, PKI_ERROR, "", "cannot be opened: %s", strerror(errno));
		return -1;
	}
	if (fstat(x->dfd, &st) == -1 || (created && fchmod(x->dfd, DIR_MODE) == -1)) {
		pki_report_add(x->r, PKI_ERROR, "", "%s", strerror(errno));
		return -1;
	}
	if (created) {
		pki_report_add(x->r, PKI_INFO, "", "created, mode 0700");
		return 0;
	}
	if (x->o->op == PKI_OP_CHECK) {
		if (st.st_mode & 077)
			pki_report_add(x->r, PKI_PROBLEM, "",
				"mode %04o: group or others may enter it; want 0700",
				(unsigned)(st.st_mode & 07777));
		return 0;
	}
	if (st.st_uid != geteuid()) {
		pki_report_add(x->r, PKI_ERROR, "",
			"belongs to uid %u, not to this user (uid %u): cpha writes keys only into "
			"a "
			"directory of its user",
			(unsigned)st.st_uid, (unsigned)geteuid());
		return -1;
	}
	if (st.st_mode & 077) {
		pki_report_add(x->r, PKI_ERROR, "",
			"mode %04o: group or others may enter it; keys belong in a directory only "
			"its owner can use (chmod 700 %s: cpha sets the mode only of a directory "
			"it creates)",
			(unsigned)(st.st_mode & 07777), x->path);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ CA -- */

static void step_ca(struct ctx *x, struct ca *ca)
{
	const struct pki_run *o = x->o;
	time_t now = o->now;
	char d[16], d0[16], why_buf[1024];
	const char *why = NULL;
	EVP_PKEY *nk = NULL;
	X509 *nc = NULL;
	enum pki_action a;
	struct pair p;

	pair_load(x, ca->stem, NULL, &p);
	if (o->op == PKI_OP_CHECK) {
		take_lines(x, &p, PKI_PROBLEM);
		if (!p.key_file)
			pki_report_add(x->r, PKI_INFO, p.key_name,
				"absent: certificates can be checked, not issued");
		if (!p.lint.n)
			pki_report_add(x->r, PKI_INFO, p.cert_name, "ok, expires %s",
				pki_time_format(X509_get0_notAfter(p.cert), d, sizeof(d)));
		goto keep;
	}
	if (p.key_err[0]) {
		pki_report_add(
			x->r, PKI_ERROR, p.key_name, "%s; a key is never replaced", p.key_err);
		ca->no_issue = CA_WHY(ca, "%s-key.pem cannot be read", ca->stem);
		goto keep;
	}
	a = pki_decide(o->op, o->force, true, p.key_file, p.bad);
	switch (a) {
	case PKI_KEEP:
		if (!p.key)
			ca->no_issue = CA_WHY(ca,
				"%s-key.pem is missing (%s.pem exists: certificates can be "
				"checked, not issued)",
				ca->stem, ca->stem);
		/* what it signed would be born expired */
		else if (X509_cmp_time(X509_get0_notAfter(p.cert), &now) <= 0)
			ca->no_issue =
				CA_WHY(ca, "%s.pem has expired (run cpha pki renew)", ca->stem);
		if (o->op != PKI_OP_ISSUE)
			goto keep;
		pki_report_add(x->r, PKI_INFO, p.cert_name, "kept, expires %s",
			pki_time_format(X509_get0_notAfter(p.cert), d, sizeof(d)));
		if (p.key)
			pki_report_add(x->r, PKI_INFO, p.key_name, "kept");
		else
			pki_report_add(x->r, PKI_WARN, p.key_name,
				"absent: certificates can be checked, not issued");
		take_lines(x, &p, PKI_WARN);
		goto keep;
	case PKI_REFUSE:
		if (p.bad & PKI_BAD_MISSING)
			pki_report_add(x->r, PKI_ERROR, p.cert_name,
				"missing: nothing to renew (run cpha pki to make the CA)");
		else if (p.bad & PKI_BAD_KEY)
			pki_report_add(x->r, PKI_ERROR, p.key_name,
				"is not the key of %s: nothing can be issued (restore the "
				"right key, or move both away to start a new CA)",
				p.cert_name);
		else
			pki_report_add(x->r, PKI_ERROR, p.key_name, "missing: %s cannot be renewed",
				p.cert_name);
		ca->no_issue = CA_WHY(ca, "the CA is not usable (see %s.pem)", ca->stem);
		goto keep;
	case PKI_NEW:
		nk = new_key(x, p.key_name);
		if (!nk)
			goto fail;
		nc = pki_issue_ca(NULL, ca->cn, nk, o->now, x->plan->ca_days, &why);
		if (!nc) {
			pki_report_add(x->r, PKI_ERROR, p.cert_name, "cannot be issued: %s", why);
			goto fail;
		}
		if (save_pem(x, p.key_name, PEM_KEY, nk) < 0 ||
			save_pem(x, p.cert_name, PEM_CERT, nc) < 0)
			goto fail;
		pki_report_add(x->r, PKI_INFO, p.key_name, "created, ECDSA P-256");
		pki_report_add(x->r, PKI_INFO, p.cert_name, "created, CN %s, expires %s", ca->cn,
			pki_time_format(X509_get0_notAfter(nc), d, sizeof(d)));
		ca->cert = nc;
		ca->key = nk;
		pair_free(&p);
		return;
	default: /* PKI_ISSUE, PKI_REISSUE, PKI_RENEW: the same key, the same name */
		nc = pki_issue_ca(p.cert ? X509_get_subject_name(p.cert) : NULL, ca->cn, p.key,
			o->now, x->plan->ca_days, &why);
		if (!nc) {
			pki_report_add(x->r, PKI_ERROR, p.cert_name, "cannot be issued: %s", why);
			goto fail;
		}
		if (save_pem(x, p.cert_name, PEM_CERT, nc) < 0)
			goto fail;
		pki_time_format(X509_get0_notAfter(nc), d, sizeof(d));
		if (a == PKI_ISSUE)
			pki_report_add(x->r, PKI_INFO, p.cert_name,
				"issued for the existing %s, expires %s", p.key_name, d);
		else if (a == PKI_REISSUE)
			pki_report_add(x->r, PKI_INFO, p.cert_name,
				"re-issued for the existing key (%s), expires %s",
				reasons(x, &p, why_buf, sizeof(why_buf)), d);
		else
			pki_report_add(x->r, PKI_INFO, p.cert_name, "renewed, expires %s (was %s)",
				d, pki_time_format(X509_get0_notAfter(p.cert), d0, sizeof(d0)));
		if (a == PKI_RENEW)
			x->renewed++;
		ca->cert = nc;
		ca->key = p.key;
		p.key = NULL;
		pair_free(&p);
		return;
	}
fail:
	ca->no_issue = CA_WHY(ca, "the CA could not be made (see %s.pem)", ca->stem);
	X509_free(nc);
	EVP_PKEY_free(nk);
	pair_free(&p);
	return;
keep:
	ca->cert = p.cert;
	ca->key = ca->no_issue ? NULL : p.key;
	if (!ca->no_issue)
		p.key = NULL;
	p.cert = NULL;
	pair_free(&p);
}

/* ---------------------------------------------------------- leaf certs -- */

static void step_leaf(struct ctx *x, const struct pki_spec *s)
{
	const struct pki_run *o = x->o;
	struct pki_names extra = { 0 };
	char d[16], d0[16], why_buf[2048];
	const char *why = NULL, *verb;
	EVP_PKEY *nk = NULL, *key;
	struct ca *ca;
	X509 *nc = NULL;
	enum pki_action a;
	struct pair p;

	pair_load(x, s->stem, s, &p);
	if (o->op == PKI_OP_CHECK) {
		take_lines(x, &p, PKI_PROBLEM);
		if (!p.lint.n)
			pki_report_add(x->r, PKI_INFO, p.cert_name, "ok, expires %s",
				pki_time_format(X509_get0_notAfter(p.cert), d, sizeof(d)));
		goto out;
	}
	if (p.key_err[0]) {
		pki_report_add(
			x->r, PKI_ERROR, p.key_name, "%s; a key is never replaced", p.key_err);
		goto out;
	}
	a = pki_decide(o->op, o->force, false, p.key_file, p.bad);
	if (a == PKI_KEEP) {
		if (o->op != PKI_OP_ISSUE)
			goto out;
		pki_report_add(x->r, PKI_INFO, p.cert_name, "kept, expires %s",
			pki_time_format(X509_get0_notAfter(p.cert), d, sizeof(d)));
		pki_report_add(x->r, PKI_INFO, p.key_name, "kept");
		take_lines(x, &p, PKI_WARN);
		goto out;
	}
	if (a == PKI_REFUSE) {
		if (p.bad & PKI_BAD_MISSING)
			pki_report_add(x->r, PKI_ERROR, p.cert_name,
				"%s: nothing to renew (run cpha pki to issue it)",
				p.cert_file ? "unreadable" : "missing");
		else
			pki_report_add(x->r, PKI_ERROR, p.key_name,
				"missing: %s cannot be renewed without it (run cpha pki to issue "
				"both)",
				p.cert_name);
		goto out;
	}
	verb = a == PKI_RENEW ? "renewed" : "issued";
	ca = ca_of(x, s);
	if (!ca->key) {
		pki_report_add(x->r, PKI_ERROR, p.cert_name, "cannot be %s: %s", verb,
			ca->no_issue ? ca->no_issue : "no CA");
		goto out;
	}
	key = p.key;
	if (a == PKI_NEW || (a == PKI_RENEW && o->rekey)) {
		key = nk = new_key(x, p.key_name);
		if (!nk)
			goto out;
	}
	/* names added to it before (add-san) stay */
	if (p.cert)
		pki_names_of_cert(p.cert, &extra);
	nc = pki_issue(s, &extra, key, ca->cert, ca->key, o->now, x->plan->cert_days, &why);
	if (!nc) {
		pki_report_add(x->r, PKI_ERROR, p.cert_name, "cannot be %s: %s", verb, why);
		goto out;
	}
	/* the key first: should the certificate's write fail, `cpha pki`
	 * re-issues the old certificate for the new key it finds */
	if ((nk && save_pem_as(x, p.key_name, PEM_KEY, nk, a == PKI_RENEW) < 0) ||
		save_pem(x, p.cert_name, PEM_CERT, nc) < 0)
		goto out;
	pki_time_format(X509_get0_notAfter(nc), d, sizeof(d));
	switch (a) {
	case PKI_NEW:
		pki_report_add(x->r, PKI_INFO, p.key_name, "created, ECDSA P-256");
		pki_report_add(x->r, PKI_INFO, p.cert_name, "%s, expires %s",
			p.cert_file ? "replaced (its key was missing)" : "created", d);
		break;
	case PKI_ISSUE:
		pki_report_add(x->r, PKI_INFO, p.cert_name,
			"issued for the existing %s, expires %s", p.key_name, d);
		break;
	case PKI_REISSUE:
		pki_report_add(x->r, PKI_INFO, p.cert_name,
			"re-issued for the existing key (%s), expires %s",
			reasons(x, &p, why_buf, sizeof(why_buf)), d);
		break;
	default:
		pki_report_add(x->r, PKI_INFO, p.cert_name, "renewed%s, expires %s (was %s)",
			nk ? " with a new key" : "", d,
			pki_time_format(X509_get0_notAfter(p.cert), d0, sizeof(d0)));
		if (nk)
			pki_report_add(x->r, PKI_INFO, p.key_name, "replaced, ECDSA P-256");
		x->renewed++;
		break;
	}
out:
	pki_names_free(&extra);
	X509_free(nc);
	EVP_PKEY_free(nk);
	pair_free(&p);
}

/* ------------------------------------------------------------- add-san -- */

static void names_text(const struct pki_names *n, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];
	size_t used = 0;

	buf[0] = 0;
	for (size_t i = 0; i < n->ndns && used < len; i++)
		used += (size_t)snprintf(
			buf + used, len - used, "%sDNS:%s", used ? ", " : "", n->dns[i]);
	for (size_t i = 0; i < n->nip && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%sIP:%s", used ? ", " : "",
			pki_ip_format(&n->ip[i], ip, sizeof(ip)));
}

static void step_add_san(struct ctx *x)
{
	const struct pki_spec *s = pki_plan_find(x->plan, "apiserver");
	struct pki_names have = { 0 }, fresh = { 0 };
	const struct pki_names *add = x->o->add;
	char d[16], text[2048];
	const char *why = NULL;
	X509 *nc = NULL;
	struct pair p;

	pair_load(x, s->stem, s, &p);
	if (!p.cert) {
		pki_report_add(x->r, PKI_ERROR, p.cert_name, "%s: run cpha pki first",
			p.cert_file ? "unreadable" : "missing");
		goto out;
	}
	if (!p.key) {
		pki_report_add(x->r, PKI_ERROR, p.key_name, "%s: run cpha pki first",
			p.key_err[0] ? p.key_err : "missing");
		goto out;
	}
	pki_names_of_cert(p.cert, &have);
	pki_names_filter(add, &have, false, &fresh);
	if (!fresh.ndns && !fresh.nip) {
		names_text(add, text, sizeof(text));
		pki_report_add(x->r, PKI_INFO, p.cert_name, "already has %s: unchanged", text);
		goto out;
	}
	if (!x->ca.key) {
		pki_report_add(x->r, PKI_ERROR, p.cert_name, "cannot be re-issued: %s",
			x->ca.no_issue ? x->ca.no_issue : "no CA");
		goto out;
	}
	pki_names_merge(&have, &fresh);
	nc = pki_issue(s, &have, p.key, x->ca.cert, x->ca.key, x->o->now, x->plan->cert_days, &why);
	if (!nc) {
		pki_report_add(x->r, PKI_ERROR, p.cert_name, "cannot be re-issued: %s", why);
		goto out;
	}
	if (save_pem(x, p.cert_name, PEM_CERT, nc) < 0)
		goto out;
	names_text(&fresh, text, sizeof(text));
	pki_report_add(x->r, PKI_INFO, p.cert_name,
		"re-issued for the existing key with %s added, expires %s", text,
		pki_time_format(X509_get0_notAfter(nc), d, sizeof(d)));
out:
	pki_names_free(&have);
	pki_names_free(&fresh);
	X509_free(nc);
	pair_free(&p);
}

/* ---------------------------------------------------------- remove-san -- */

/* A name the description still gives a certificate is in use: the whole
 * removal is refused, nothing written. Returns whether one was found. */
static bool remove_in_use(struct ctx *x, const struct pki_names *rm)
{
	char text[2048], file[PKI_STEMLEN + 8];
	bool found = false;

	for (size_t i = 0; i < x->plan->n; i++) {
		const struct pki_spec *s = &x->plan->v[i];
		struct pki_names used = { 0 };

		pki_names_filter(rm, &s->sans, true, &used);
		if (used.ndns || used.nip) {
			names_text(&used, text, sizeof(text));
			snprintf(file, sizeof(file), "%s.pem", s->stem);
			pki_report_add(x->r, PKI_ERROR, file,
				"%s %s in use: the description gives %s to this certificate "
				"(take the host or name out of the description first); nothing "
				"was changed",
				text, used.ndns + used.nip == 1 ? "is" : "are",
				used.ndns + used.nip == 1 ? "it" : "them");
			found = true;
		}
		pki_names_free(&used);
	}
	return found;
}

/* Re-issue s's certificate, for its key, without the names of rm it has. */
static void remove_from(
	struct ctx *x, const struct pki_spec *s, const struct pki_names *rm, size_t *changed)
{
	struct pki_names have = { 0 }, gone = { 0 }, kept = { 0 };
	struct ca *ca = ca_of(x, s);
	char d[16], text[2048];
	const char *why = NULL;
	X509 *nc = NULL;
	struct pair p;

	pair_load(x, s->stem, s, &p);
	if (!p.cert)
		goto out;
	pki_names_of_cert(p.cert, &have);
	pki_names_filter(&have, rm, true, &gone);
	if (!gone.ndns && !gone.nip)
		goto out;
	names_text(&gone, text, sizeof(text));
	if (!p.key) {
		pki_report_add(x->r, PKI_ERROR, p.key_name, "%s: %s cannot be re-issued without %s",
			p.key_err[0] ? p.key_err : "missing", p.cert_name, text);
		goto out;
	}
	if (!ca->key) {
		pki_report_add(x->r, PKI_ERROR, p.cert_name, "cannot be re-issued without %s: %s",
			text, ca->no_issue ? ca->no_issue : "no CA");
		goto out;
	}
	/* the names it has that stay: the description's, and any add-san gave */
	pki_names_filter(&have, rm, false, &kept);
	nc = pki_issue(s, &kept, p.key, ca->cert, ca->key, x->o->now, x->plan->cert_days, &why);
	if (!nc) {
		pki_report_add(x->r, PKI_ERROR, p.cert_name, "cannot be re-issued: %s", why);
		goto out;
	}
	if (save_pem(x, p.cert_name, PEM_CERT, nc) < 0)
		goto out;
	pki_report_add(x->r, PKI_INFO, p.cert_name,
		"re-issued for the existing key without %s, expires %s", text,
		pki_time_format(X509_get0_notAfter(nc), d, sizeof(d)));
	(*changed)++;
out:
	pki_names_free(&have);
	pki_names_free(&gone);
	pki_names_free(&kept);
	X509_free(nc);
	pair_free(&p);
}

/* Take names (a removed master's, an old address) off every certificate
 * of the plan that has them; refused as a whole while the description
 * still gives any of them to a certificate. */
static void step_remove_san(struct ctx *x)
{
	const struct pki_names *rm = x->o->add;
	size_t changed = 0;
	char text[2048];

	if (remove_in_use(x, rm))
		return;
	for (size_t i = 0; i < x->plan->n; i++)
		remove_from(x, &x->plan->v[i], rm, &changed);
	if (!changed && !x->r->nerrors) {
		names_text(rm, text, sizeof(text));
		pki_report_add(x->r, PKI_INFO, "", "no certificate has %s: nothing changed", text);
	}
}

/* ------------------------------------------------ service-account keys -- */

static void step_sa(struct ctx *x)
{
	bool check = x->o->op == PKI_OP_CHECK;
	enum pki_kind bad_kind = check ? PKI_PROBLEM : PKI_ERROR;
	size_t before = x->r->nproblems;
	EVP_PKEY *key = NULL, *pub = NULL, *nk = NULL;
	char kwhy[256], pwhy[256];
	mode_t mode = 0;
	int rk, rp;

	rk = load_pem(x, PKI_SA_KEY, PEM_KEY, (void **)&key, &mode, kwhy);
	rp = load_pem(x, PKI_SA_PUB, PEM_PUB, (void **)&pub, NULL, pwhy);
	if (rk < 0)
		pki_report_add(x->r, bad_kind, PKI_SA_KEY, "cannot be read: %s%s", kwhy,
			check ? "" : "; a key is never replaced");
	if (!check && rk < 0)
		goto out;
	if (!rk && check)
		pki_report_add(x->r, PKI_PROBLEM, PKI_SA_KEY, "missing");
	if (!rk && !check && rp) {
		pki_report_add(x->r, PKI_ERROR, PKI_SA_PUB,
			"exists without " PKI_SA_KEY
			": a new pair would replace it (restore " PKI_SA_KEY ", or move " PKI_SA_PUB
			" away)");
		goto out;
	}
	if (!rk && !check) {
		nk = new_key(x, PKI_SA_KEY);
		if (!nk || save_pem(x, PKI_SA_KEY, PEM_KEY, nk) < 0)
			goto out;
		pki_report_add(x->r, PKI_INFO, PKI_SA_KEY, "created, ECDSA P-256");
		if (save_pem(x, PKI_SA_PUB, PEM_PUB, nk) == 0)
			pki_report_add(x->r, PKI_INFO, PKI_SA_PUB, "created");
		goto out;
	}
	if (rk > 0 && (mode & 077))
		pki_report_add(x->r, check ? PKI_PROBLEM : PKI_WARN, PKI_SA_KEY,
			"mode %04o: group or others may read this key; want 0600",
			(unsigned)(mode & 07777));
	if (rk > 0 && !check)
		pki_report_add(x->r, PKI_INFO, PKI_SA_KEY, "kept");
	if (!rp && check) {
		pki_report_add(x->r, PKI_PROBLEM, PKI_SA_PUB, "missing");
	} else if (!rp && key) {
		if (save_pem(x, PKI_SA_PUB, PEM_PUB, key) == 0)
			pki_report_add(x->r, PKI_INFO, PKI_SA_PUB, "created from " PKI_SA_KEY);
	} else if (rp < 0) {
		pki_report_add(x->r, bad_kind, PKI_SA_PUB, "cannot be read: %s%s", pwhy,
			check ? ""
			      : " (move it away to have it written again from " PKI_SA_KEY ")");
	} else if (key && EVP_PKEY_eq(key, pub) != 1) {
		pki_report_add(x->r, bad_kind, PKI_SA_PUB,
			"is not the public half of " PKI_SA_KEY
			": service-account tokens would not verify%s",
			check ? "" : " (move it away to have it written again)");
	} else if (!check) {
		pki_report_add(x->r, PKI_INFO, PKI_SA_PUB, "kept");
	}
	if (check && x->r->nproblems == before)
		pki_report_add(x->r, PKI_INFO, PKI_SA_KEY, "ok, with " PKI_SA_PUB);
out:
	ERR_clear_error();
	EVP_PKEY_free(key);
	EVP_PKEY_free(pub);
	EVP_PKEY_free(nk);
}

/* corosync's shared key (what corosync-keygen makes): the rendered
 * corosync.conf encrypts knet, so every node of a cluster needs the same
 * /etc/corosync/authkey. Made once, never replaced. */
static void step_authkey(struct ctx *x)
{
	bool check = x->o->op == PKI_OP_CHECK;
	unsigned char key[PKI_AUTHKEY_LEN];
	mode_t mode = 0;
	size_t len = 0;
	char *buf = NULL;
	int r = read_at(x->dfd, PKI_AUTHKEY, &buf, &len, &mode);

	if (r == 0 && len >= 128 && len <= 4096) {
		if (mode & 077)
			pki_report_add(x->r, check ? PKI_PROBLEM : PKI_WARN, PKI_AUTHKEY,
				"mode %04o: group or others may read this key; want 0400",
				(unsigned)(mode & 07777));
		else
			pki_report_add(x->r, PKI_INFO, PKI_AUTHKEY, check ? "ok" : "kept");
	} else if (r == 0) {
		pki_report_add(x->r, check ? PKI_PROBLEM : PKI_ERROR, PKI_AUTHKEY,
			"%zu bytes: corosync takes a key of 128 to 4096 bytes%s", len,
			check ? "" : "; a key is never replaced (move it away)");
	} else if (r != -ENOENT) {
		pki_report_add(x->r, check ? PKI_PROBLEM : PKI_ERROR, PKI_AUTHKEY,
			"cannot be read: %s", read_error(r));
	} else if (check) {
		pki_report_add(x->r, PKI_PROBLEM, PKI_AUTHKEY, "missing");
	} else if (RAND_bytes(key, sizeof(key)) != 1) {
		pki_report_add(
			x->r, PKI_ERROR, PKI_AUTHKEY, "no random bytes: %s", pki_ssl_error());
	} else if (write_at(x, PKI_AUTHKEY, (const char *)key, sizeof(key), 0400, true) == 0) {
		pki_report_add(x->r, PKI_INFO, PKI_AUTHKEY,
			"created, %zu random bytes (corosync's /etc/corosync/authkey)",
			sizeof(key));
	}
	OPENSSL_cleanse(key, sizeof(key));
	if (buf)
		OPENSSL_cleanse(buf, len);
	free(buf);
}

/* ----------------------------------------------------------------- run -- */

int pki_dir_run(
	const struct pki_plan *p, const char *dir, const struct pki_run *o, struct pki_report *r)
{
	struct ctx x = { .path = dir, .dfd = -1, .o = o, .plan = p, .r = r };

	x.ca = (struct ca){ .stem = PKI_CA, .cn = p->ca_cn };
	x.fp = (struct ca){ .stem = PKI_FP_CA, .cn = p->fp_ca_cn };
	if (open_dir(&x) < 0)
		goto out;
	step_ca(&x, &x.ca);
	if (o->op == PKI_OP_ADD_SAN) {
		step_add_san(&x);
		goto out;
	}
	/* renew --force renews it with the rest */
	step_ca(&x, &x.fp);
	if (o->op == PKI_OP_REMOVE_SAN) {
		step_remove_san(&x);
		goto sync;
	}
	for (size_t i = 0; i < p->n; i++)
		step_leaf(&x, &p->v[i]);
	if (o->op != PKI_OP_RENEW) {
		step_sa(&x);
		step_authkey(&x);
	} else if (!x.renewed && !r->nerrors)
		pki_report_add(r, PKI_INFO, "",
			"nothing expires within renew_days (%u): nothing renewed", p->renew_days);
sync:
	/* the new names last past a crash */
	if (x.wrote && fsync(x.dfd) == -1)
		pki_report_add(r, PKI_ERROR, "", "fsync: %s", strerror(errno));
out:
	if (x.dfd != -1)
		close(x.dfd);
	X509_free(x.ca.cert);
	EVP_PKEY_free(x.ca.key);
	X509_free(x.fp.cert);
	EVP_PKEY_free(x.fp.key);
	return r->nproblems || r->nerrors ? -1 : 0;
}
