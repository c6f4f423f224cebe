/* Shared by test_cpha_pki.c and test_cpha_pki_update.c: a plan of three
 * masters, a temporary directory per test, `cpha pki` run on it, and the
 * certificates and keys read, written and compared. */
#ifndef CPHA_PKI_TEST_H
#define CPHA_PKI_TEST_H

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

static __attribute__((unused)) int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/cpha-test-pki-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(dir, sizeof(dir), "%s/pki", root);
	now = time(NULL);
	return 0;
}

static __attribute__((unused)) int teardown(void **state)
{
	char cmd[128];

	(void)state;
	pki_plan_free(&plan);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static __attribute__((unused)) void load_plan(const char *yaml)
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

static __attribute__((unused)) void dump(const struct pki_report *r)
{
	static const char *const kind[] = { "info", "warn", "PROBLEM", "ERROR" };

	for (size_t i = 0; i < r->n; i++)
		print_message("  %s %s: %s\n", kind[r->v[i].kind], r->v[i].file, r->v[i].text);
}

static __attribute__((unused)) int run_op(
	enum pki_op op, bool force, const struct pki_names *add, struct pki_report *r)
{
	struct pki_run o = { .op = op, .force = force, .add = add, .now = now };
	int rc;

	memset(r, 0, sizeof(*r));
	rc = pki_dir_run(&plan, dir, &o, r);
	dump(r);
	return rc;
}

/* The line of kind k about file whose text contains text, or NULL. */
static __attribute__((unused)) const struct pki_line *find(
	const struct pki_report *r, enum pki_kind k, const char *file, const char *text)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].kind == k && !strcmp(r->v[i].file, file) && strstr(r->v[i].text, text))
			return &r->v[i];
	return NULL;
}

static __attribute__((unused)) size_t count(
	const struct pki_report *r, enum pki_kind k, const char *text)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].kind == k && strstr(r->v[i].text, text))
			n++;
	return n;
}

static __attribute__((unused)) void issue(void)
{
	struct pki_report r;

	assert_int_equal(run_op(PKI_OP_ISSUE, false, NULL, &r), 0);
	pki_report_free(&r);
}

static __attribute__((unused)) void check_ok(void)
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
static __attribute__((unused)) void check_finds(const char *file, const char *text)
{
	struct pki_report r;

	assert_int_equal(run_op(PKI_OP_CHECK, false, NULL, &r), -1);
	assert_int_equal(r.nerrors, 0);
	assert_int_equal(r.nproblems, 1);
	assert_non_null(find(&r, PKI_PROBLEM, file, text));
	pki_report_free(&r);
}

static __attribute__((unused)) char *path_in(const char *name)
{
	static char p[4][PATH_MAX];
	static int i;

	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s", dir, name);
	return p[i];
}

static __attribute__((unused)) X509 *read_cert(const char *name)
{
	FILE *f = fopen(path_in(name), "r");
	X509 *x;

	assert_non_null(f);
	x = PEM_read_X509(f, NULL, NULL, NULL);
	fclose(f);
	assert_non_null(x);
	return x;
}

static __attribute__((unused)) EVP_PKEY *read_key(const char *name)
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
static __attribute__((unused)) void write_cert(const char *name, X509 *x)
{
	FILE *f = fopen(path_in(name), "w");

	assert_non_null(f);
	assert_int_equal(PEM_write_X509(f, x), 1);
	assert_int_equal(fclose(f), 0);
	X509_free(x);
}

static __attribute__((unused)) void write_key(const char *name, EVP_PKEY *k, mode_t mode)
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
static __attribute__((unused)) struct pki_spec spec_copy(const char *stem)
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
static __attribute__((unused)) void reissue_as(const struct pki_spec *s, time_t t, unsigned days)
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

static __attribute__((unused)) void snap_file(const char *name, struct snap *s)
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

static __attribute__((unused)) bool same_file(const char *name, const struct snap *s)
{
	struct snap now_;

	snap_file(name, &now_);
	return now_.len == s->len && !memcmp(now_.data, s->data, s->len) &&
	       now_.st.st_ino == s->st.st_ino && now_.st.st_mtim.tv_sec == s->st.st_mtim.tv_sec &&
	       now_.st.st_mtim.tv_nsec == s->st.st_mtim.tv_nsec;
}

/* Every file of the directory, in a fixed order. */
static __attribute__((unused)) const char *file_name(size_t i, char *buf, size_t len)
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

/* Every file of the plan (file_name()) into s[NFILES]. */
static __attribute__((unused)) void snap_all(struct snap *s)
{
	char name[64];

	for (size_t i = 0; i < NFILES; i++)
		snap_file(file_name(i, name, sizeof(name)), &s[i]);
}

/* Every file of the plan is as snap_all() found it. */
static __attribute__((unused)) void assert_all_same(const struct snap *s)
{
	char name[64];

	for (size_t i = 0; i < NFILES; i++)
		assert_true(same_file(file_name(i, name, sizeof(name)), &s[i]));
}

static __attribute__((unused)) bool has_san(X509 *x, const char *name)
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

static __attribute__((unused)) time_t not_after(X509 *x)
{
	struct tm tm;

	assert_int_equal(ASN1_TIME_to_tm(X509_get0_notAfter(x), &tm), 1);
	return timegm(&tm);
}

static __attribute__((unused)) void no_temp_files(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			assert_true(e->d_name[0] != '.');
	closedir(d);
}

#endif
