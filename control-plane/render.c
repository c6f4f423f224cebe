/* `cpha render`: collect every file from the render modules, check each
 * with its own checker in a staging directory, then move them into place
 * under DIR/HOST/<path> and DIR/cluster/. Nothing is written into DIR
 * unless every check passed. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "cfgmsg.h"
#include "cpha.h"
#include "fileio.h"
#include "plan.h"
#include "render.h"
#include "run.h"
#include "spawn.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: cpha render [-f FILE] [--out DIR] [--host NAME] [--no-check] "
		   "[--allow-even]\n"
		   "  --out DIR     write DIR/HOST/<path as installed> and DIR/cluster/ "
		   "(default ./render)\n"
		   "  --host NAME   only that host's files and the cluster-wide ones\n"
		   "  --no-check    write the files without running their checkers; a file "
		   "whose\n"
		   "                maker is not installed (cib.xml: cibadmin, pcs) is left out, "
		   "said\n"
		   "  --allow-even  accept an even etcd member count, as cpha plan does\n");
}

int render_all(const struct cp_cluster *c, struct render_set *s, struct cpha_msgs *d)
{
	int rc = 0;

	if (render_masters(c, s, d) < 0)
		rc = -1;
	if (render_lb(c, s, d) < 0)
		rc = -1;
	if (render_ha(c, s, d) < 0)
		rc = -1;
	if (render_etcd_snapshot(c, s, d) < 0)
		rc = -1;
	/* last: it reads which daemons each host got */
	if (render_prom(c, s, d) < 0)
		rc = -1;
	for (size_t i = 0; i < s->n; i++)
		if (!s->v[i].text.data && cpha_buf_puts(&s->v[i].text, "") < 0)
			cpha_oom();
	return rc;
}

/* DIR/HOST/path or DIR/cluster/path. */
static char *out_path(const char *dir, const struct render_file *f)
{
	char *p;

	if (asprintf(&p, "%s/%s%s%s", dir, f->host ? f->host : "cluster",
		    f->path[0] == '/' ? "" : "/", f->path) < 0)
		cpha_oom();
	return p;
}

/* mkdir -p of the directory part of path; 0755 unless private. */
static int mkdirs(const char *path, mode_t mode)
{
	char *p = strdup(path), *s;
	int rc = 0;

	if (!p)
		cpha_oom();
	for (s = p + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		if (mkdir(p, mode) == -1 && errno != EEXIST) {
			rc = -errno;
			break;
		}
		*s = '/';
	}
	free(p);
	return rc;
}

static int write_file(const char *path, const struct render_file *f)
{
	int fd, rc;

	if (mkdirs(path, 0755) < 0)
		return -errno;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, f->mode);
	if (fd == -1)
		return -errno;
	rc = cpha_write_all(fd, f->text.data, f->text.len);
	if (!rc && fchmod(fd, f->mode) == -1)
		rc = -errno;
	if (close(fd) == -1 && !rc)
		rc = -errno;
	return rc;
}

/* A YAML document that libyaml reads without an error. */
static int check_yaml(const char *path, char *why, size_t len)
{
	yaml_parser_t p;
	yaml_document_t doc;
	FILE *f = fopen(path, "re");
	int rc = 0;

	if (!f) {
		snprintf(why, len, "%s", strerror(errno));
		return -1;
	}
	yaml_parser_initialize(&p);
	yaml_parser_set_input_file(&p, f);
	for (;;) {
		if (!yaml_parser_load(&p, &doc)) {
			snprintf(why, len, "line %lu: %s", (unsigned long)p.problem_mark.line + 1,
				p.problem ? p.problem : "YAML error");
			rc = -1;
			break;
		}
		bool end = !yaml_document_get_root_node(&doc);
		yaml_document_delete(&doc);
		if (end)
			break;
	}
	yaml_parser_delete(&p);
	fclose(f);
	return rc;
}

/* Run a file's checker on its staged copy. Returns 0, or -1 with the
 * checker's output printed. */
static int check_file(
	const char *stage, const struct render_file *f, const char *path, bool *missing)
{
	const char *argv[10] = { NULL };
	char why[512], *cs = NULL;
	struct cpha_run_result res;
	int rc;

	switch (f->check) {
	case RENDER_CHECK_NONE:
		return 0;
	case RENDER_CHECK_YAML:
		if (check_yaml(path, why, sizeof(why)) < 0) {
			fprintf(stderr, "cpha render: %s:%s: not valid YAML: %s\n",
				f->host ? f->host : "cluster", f->path, why);
			return -1;
		}
		return 0;
	case RENDER_CHECK_LBD:
		argv[0] = "lbd", argv[1] = "-c", argv[2] = "-f", argv[3] = path;
		break;
	case RENDER_CHECK_HAPROXY:
		argv[0] = "haproxy", argv[1] = "-c", argv[2] = "-q", argv[3] = "-f", argv[4] = path;
		break;
	case RENDER_CHECK_VIPD:
		argv[0] = "vipd", argv[1] = "-c", argv[2] = "-f", argv[3] = path;
		break;
	case RENDER_CHECK_KEEPALIVED:
		argv[0] = "keepalived", argv[1] = "-t", argv[2] = "-l", argv[3] = "-n",
		argv[4] = "-f", argv[5] = path;
		break;
	case RENDER_CHECK_FENCED:
		argv[0] = "fenced", argv[1] = "-c", argv[2] = "-f", argv[3] = path;
		if (f->host) {
			if (asprintf(&cs, "%s/%s/etc/corosync/corosync.conf", stage, f->host) < 0)
				cpha_oom();
			if (access(cs, R_OK) == 0)
				argv[4] = "-C", argv[5] = cs;
		}
		break;
	case RENDER_CHECK_CIB:
		argv[0] = "crm_verify", argv[1] = "-x", argv[2] = path;
		break;
	}
	rc = run_capture(argv, &res, missing);
	free(cs);
	if (rc < 0)
		return -1;
	/* keepalived -t exits 0 on many warnings: a clean file prints nothing */
	if (res.exited && res.exit_code == 0 &&
		!(f->check == RENDER_CHECK_KEEPALIVED && (res.err[0] || res.out[0]))) {
		cpha_run_free(&res);
		return 0;
	}
	fprintf(stderr, "cpha render: %s:%s: %s found a problem (exit %d):\n%s%s",
		f->host ? f->host : "cluster", f->path, argv[0], res.exited ? res.exit_code : -1,
		res.out, res.err);
	cpha_run_free(&res);
	return -1;
}

static int rm_cb(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void rm_rf(const char *dir)
{
	nftw(dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

int render_write(const struct render_set *s, const char *dir, const char *host, bool check)
{
	char *stage = NULL;
	bool missing = false;
	int rc = 0;

	if (mkdir(dir, 0755) == -1 && errno != EEXIST) {
		fprintf(stderr, "cpha render: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	if (asprintf(&stage, "%s/.render.XXXXXX", dir) < 0)
		cpha_oom();
	if (!mkdtemp(stage)) {
		fprintf(stderr, "cpha render: %s: %s\n", dir, strerror(errno));
		free(stage);
		return -1;
	}
	/* stage everything (a checker may read a sibling: fenced reads corosync.conf) */
	for (size_t i = 0; i < s->n && !rc; i++) {
		const struct render_file *f = &s->v[i];
		char *p;
		if (host && f->host && strcmp(host, f->host))
			continue;
		p = out_path(stage, f);
		if (write_file(p, f) < 0) {
			fprintf(stderr, "cpha render: %s: %s\n", p, strerror(errno));
			rc = -1;
		}
		free(p);
	}
	for (size_t i = 0; i < s->n && !rc && check; i++) {
		const struct render_file *f = &s->v[i];
		char *p;
		if (host && f->host && strcmp(host, f->host))
			continue;
		p = out_path(stage, f);
		if (check_file(stage, f, p, &missing) < 0)
			rc = -1;
		free(p);
	}
	for (size_t i = 0; i < s->n && !rc; i++) {
		const struct render_file *f = &s->v[i];
		char *from, *to;
		if (host && f->host && strcmp(host, f->host))
			continue;
		from = out_path(stage, f);
		to = out_path(dir, f);
		if (mkdirs(to, 0755) < 0 || rename(from, to) == -1) {
			fprintf(stderr, "cpha render: %s: %s\n", to, strerror(errno));
			rc = -1;
		}
		free(from);
		free(to);
	}
	rm_rf(stage);
	free(stage);
	if (missing)
		fprintf(stderr, "cpha render: a checker is not installed; install it, or "
				"give --no-check to write unchecked files\n");
	return rc;
}

int cmd_render(int argc, char **argv, const char *file)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "host", required_argument, NULL, 'H' },
		{ "no-check", no_argument, NULL, 'n' },
		{ "allow-even", no_argument, NULL, 'e' },
		{ "file", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = "render", *host = NULL;
	struct render_set s = { 0 };
	struct plan_opts po = { 0 };
	struct cpha_msgs d = { 0 };
	struct cp_cluster *c;
	struct plan p;
	bool check = true;
	char today[16];
	int ch, rc = CPHA_EXIT_OK;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "f:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'o':
			out = optarg;
			break;
		case 'H':
			host = optarg;
			break;
		case 'n':
			check = false;
			break;
		case 'e':
			po.allow_even = true;
			break;
		case 'f':
			file = optarg;
			break;
		case 'h':
			usage(stdout);
			return CPHA_EXIT_OK;
		default:
			usage(stderr);
			return CPHA_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "cpha render: unexpected argument '%s'\n", argv[optind]);
		return CPHA_EXIT_USAGE;
	}
	c = cpha_load(file);
	if (!c)
		return CPHA_EXIT_FAIL;
	if (host && !cluster_host(c, host)) {
		fprintf(stderr, "cpha render: %s: no host '%s' in the description\n", file, host);
		cluster_free(c);
		return CPHA_EXIT_FAIL;
	}
	/* the design first: render makes no files for one plan refuses */
	po.today = cpha_today(today, sizeof(today));
	if (plan_build(c, &po, &p, &d) < 0) {
		cpha_msgs_print(d.errs, d.nerrs, stderr);
		fprintf(stderr, "cpha render: the design is refused (see cpha plan): nothing "
				"was written\n");
		plan_free(&p);
		rc = CPHA_EXIT_FAIL;
		goto out;
	}
	if (d.nwarns)
		fprintf(stderr,
			"cpha render: %zu warning%s about the design (cpha plan lists "
			"them)\n",
			d.nwarns, d.nwarns == 1 ? "" : "s");
	plan_free(&p);
	cpha_msgs_free(&d);
	s.tools_optional = !check;
	if (render_all(c, &s, &d) < 0 || d.nerrs) {
		cpha_msgs_print(d.errs, d.nerrs, stderr);
		rc = CPHA_EXIT_FAIL;
		goto out;
	}
	if (!check)
		fprintf(stderr, "cpha render: --no-check: the files are written unchecked\n");
	for (size_t i = 0; i < s.nskipped; i++)
		fprintf(stderr, "cpha render: note: %s%s%s not written: %s\n",
			s.skipped[i].host ? s.skipped[i].host : "cluster",
			s.skipped[i].path[0] == '/' ? "" : "/", s.skipped[i].path,
			s.skipped[i].why);
	if (render_write(&s, out, host, check) < 0) {
		fprintf(stderr, "cpha render: nothing was written to %s\n", out);
		rc = CPHA_EXIT_FAIL;
		goto out;
	}
	for (size_t i = 0; i < s.n; i++)
		if (!host || !s.v[i].host || !strcmp(host, s.v[i].host))
			printf("%s/%s%s%s\n", out, s.v[i].host ? s.v[i].host : "cluster",
				s.v[i].path[0] == '/' ? "" : "/", s.v[i].path);
out:
	cpha_msgs_free(&d);
	render_set_free(&s);
	cluster_free(c);
	return rc;
}
