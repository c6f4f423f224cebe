/* `cpha install`: puts one host's files in place, on the host, from the
 * output of `cpha render` and the PKI directory the operator copied there.
 * install_plan.c decides what goes where; this file checks the sources and
 * the destinations (all of them, before anything is written) and acts. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "cpha.h"
#include "fileio.h"
#include "install.h"
#include "install_plan.h"
#include "render.h"

#define INSTALL_MAX_FILE (16u << 20) /* no file of a host is near this */

static void oom(void)
{
	fputs("cpha install: out of memory\n", stderr);
	exit(CPHA_EXIT_SOFTWARE);
}

/* a/b, with one slash between them ("/" and "/etc" make "/etc"). */
static char *join(const char *a, const char *b)
{
	size_t n = strlen(a);
	char *p;

	while (n > 0 && a[n - 1] == '/')
		n--;
	while (*b == '/')
		b++;
	if (asprintf(&p, "%.*s/%s", (int)n, a, b) < 0)
		oom();
	return p;
}

/* Read a whole regular file. Returns 0 or -errno (-EFBIG past the limit). */
static int slurp(const char *path, struct cpha_buf *b)
{
	int r = cpha_buf_read_file(b, path, O_NOFOLLOW, INSTALL_MAX_FILE);

	if (r == -ENOMEM)
		oom();
	return r;
}

/* True when p is rroot or below it (both real paths). */
static bool inside(const char *rroot, const char *p)
{
	size_t n = strlen(rroot);

	if (!strcmp(rroot, "/"))
		return true;
	return !strncmp(p, rroot, n) && (p[n] == 0 || p[n] == '/');
}

/* Walk the directories of rel (absolute, as on the host) from the real
 * root, following a symbolic link only when it stays inside the root.
 * The whole of rel is walked when whole, else its directory part. With
 * create, missing directories are made (0755); without, the walk stops at
 * the first missing one. *real gets the real path reached (to free), and
 * *complete whether every component was there. Returns 0, or -1 with a
 * reason in why. */
static int walk(const char *rroot, const char *rel, bool whole, bool create, char **real,
	bool *complete, char *why, size_t whylen)
{
	char *copy = strdup(rel), *save = NULL, *comp, *cur = strdup(rroot), *last;
	int rc = 0;

	if (!copy || !cur)
		oom();
	*complete = true;
	last = strrchr(copy, '/');
	if (!whole && last)
		*last = 0; /* the directory part */
	for (comp = strtok_r(copy, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
		char *next = join(cur, comp);
		struct stat st;

		if (!strcmp(comp, "..") || !strcmp(comp, ".")) {
			snprintf(why, whylen, "%s: '%s' in a destination", rel, comp);
			free(next);
			rc = -1;
			break;
		}
		if (lstat(next, &st) == -1) {
			if (errno != ENOENT) {
				snprintf(why, whylen, "%s: %s", next, strerror(errno));
				free(next);
				rc = -1;
				break;
			}
			if (!create) {
				*complete = false;
				free(next);
				break;
			}
			if (mkdir(next, 0755) == -1 || chmod(next, 0755) == -1) {
				snprintf(why, whylen, "%s: cannot make the directory: %s", next,
					strerror(errno));
				free(next);
				rc = -1;
				break;
			}
			st.st_mode = S_IFDIR | 0755;
		}
		if (S_ISLNK(st.st_mode)) {
			char *r = realpath(next, NULL);
			if (!r) {
				snprintf(why, whylen, "%s: a symbolic link that leads nowhere (%s)",
					next, strerror(errno));
				free(next);
				rc = -1;
				break;
			}
			if (!inside(rroot, r)) {
				snprintf(why, whylen,
					"%s: a symbolic link to %s, out of the root %s: refused",
					next, r, rroot);
				free(r);
				free(next);
				rc = -1;
				break;
			}
			if (stat(r, &st) == -1) {
				snprintf(why, whylen, "%s: %s", r, strerror(errno));
				free(r);
				free(next);
				rc = -1;
				break;
			}
			free(next);
			next = r;
		}
		if (!S_ISDIR(st.st_mode)) {
			snprintf(why, whylen, "%s: not a directory", next);
			free(next);
			rc = -1;
			break;
		}
		free(cur);
		cur = next;
	}
	free(copy);
	if (rc < 0) {
		free(cur);
		return -1;
	}
	*real = cur;
	return 0;
}

/* The state of one action, found while checking. */
struct act {
	char *src;   /* the source path, NULL for a directory */
	char *shown; /* the destination as printed: ROOT/dest */
	bool skip;   /* an optional source that is missing */
	uid_t uid;
	gid_t gid;
};

static const char *src_base(const struct install_action *a, const struct install_opts *o)
{
	switch (a->src) {
	case INSTALL_SRC_RENDER:
		return o->render_dir;
	case INSTALL_SRC_PKI:
		return o->pki_dir;
	default:
		return NULL;
	}
}

/* Check one action without writing. Returns 0, or -1 after printing. */
static int check_action(const char *rroot, const struct install_action *a,
	const struct install_opts *o, struct act *t)
{
	char why[PATH_MAX + 256], *real = NULL;
	bool complete;
	struct stat st;

	t->uid = (uid_t)-1;
	t->gid = (gid_t)-1;
	if (a->owner) {
		struct passwd *pw = getpwnam(a->owner);
		if (!pw) {
			fprintf(stderr, "cpha install: %s: owner '%s': no such user\n", t->shown,
				a->owner);
			return -1;
		}
		t->uid = pw->pw_uid;
		t->gid = pw->pw_gid;
	}
	if (!(a->flags & INSTALL_DIR)) {
		t->src = a->src == INSTALL_SRC_DESC ? strdup(o->desc)
						    : join(src_base(a, o), a->source);
		if (!t->src)
			oom();
		if (stat(t->src, &st) == -1) {
			if (errno == ENOENT && (a->flags & INSTALL_OPTIONAL)) {
				fprintf(stderr,
					"cpha install: warning: %s: missing: %s is not installed "
					"(make it with cpha pki, then install again)\n",
					t->src, a->dest);
				t->skip = true;
				return 0;
			}
			fprintf(stderr, "cpha install: %s: %s (the source of %s)\n", t->src,
				errno == ENOENT ? "missing" : strerror(errno), a->dest);
			return -1;
		}
		if (!S_ISREG(st.st_mode)) {
			fprintf(stderr, "cpha install: %s: not a regular file (the source of %s)\n",
				t->src, a->dest);
			return -1;
		}
		if (access(t->src, R_OK) == -1) {
			fprintf(stderr, "cpha install: %s: %s\n", t->src, strerror(errno));
			return -1;
		}
	}
	if (walk(rroot, a->dest, a->flags & INSTALL_DIR, false, &real, &complete, why,
		    sizeof(why)) < 0) {
		fprintf(stderr, "cpha install: %s: %s\n", t->shown, why);
		return -1;
	}
	if (complete && !(a->flags & INSTALL_DIR)) {
		char *p = join(real, strrchr(a->dest, '/') + 1);
		int r = lstat(p, &st);
		if (r == 0 && !S_ISREG(st.st_mode)) {
			fprintf(stderr, "cpha install: %s: %s: install writes regular files only\n",
				t->shown,
				S_ISLNK(st.st_mode)   ? "a symbolic link"
				: S_ISDIR(st.st_mode) ? "a directory"
						      : "not a regular file");
			free(p);
			free(real);
			return -1;
		}
		free(p);
	}
	free(real);
	return 0;
}

/* Write data to dir/name whole (cpha_write_file_atomic: a temporary file
 * beside it, owner, mode, fsync, rename). Returns 0 or -errno. */
static int write_whole(const char *dir, const char *name, const struct cpha_buf *data,
	unsigned mode, uid_t uid, gid_t gid)
{
	char *dst = join(dir, name);
	int r = cpha_write_file_atomic(dst, data->data ? data->data : "", data->len, mode, uid,
		gid);

	free(dst);
	return r;
}

static void print_mode_owner(FILE *f, unsigned mode, const char *owner)
{
	fprintf(f, "-m %04o", mode);
	if (owner)
		fprintf(f, " -o %s -g %s", owner, owner);
}

/* Make one checked action (or, dry, say what it would do). Counts what it
 * changed in *changed. Returns 0, or -1 after printing. */
static int do_action(const char *rroot, const struct install_action *a,
	const struct install_opts *o, const struct act *t, size_t *changed)
{
	char why[PATH_MAX + 256], *real = NULL, *dst = NULL;
	struct cpha_buf want = { 0 }, have = { 0 };
	bool complete, made, same_text = false, same_meta = false, exists;
	struct stat st;
	int r, rc = -1;

	/* first without making anything: whether it is there decides what is said */
	r = walk(rroot, a->dest, a->flags & INSTALL_DIR, false, &real, &complete, why, sizeof(why));
	if (r == 0 && !complete && !o->dry_run) {
		free(real);
		real = NULL;
		r = walk(rroot, a->dest, a->flags & INSTALL_DIR, true, &real, &made, why,
			sizeof(why));
	}
	if (r < 0) {
		fprintf(stderr, "cpha install: %s: %s\n", t->shown, why);
		return -1;
	}
	if (a->flags & INSTALL_DIR) {
		exists = complete && stat(real, &st) == 0;
		same_meta = exists && (st.st_mode & 07777) == a->mode &&
			    (t->uid == (uid_t)-1 || (st.st_uid == t->uid && st.st_gid == t->gid));
		if (same_meta) {
			fprintf(o->out, "unchanged %s\n", t->shown);
			rc = 0;
			goto out;
		}
		if (!exists) {
			fprintf(o->out, "install -d ");
			print_mode_owner(o->out, a->mode, a->owner);
			fprintf(o->out, " %s\n", t->shown);
		} else {
			if (t->uid != (uid_t)-1 && (st.st_uid != t->uid || st.st_gid != t->gid))
				fprintf(o->out, "chown %s:%s %s\n", a->owner, a->owner, t->shown);
			if ((st.st_mode & 07777) != a->mode)
				fprintf(o->out, "chmod %04o %s\n", a->mode, t->shown);
		}
		(*changed)++;
		if (o->dry_run) {
			rc = 0;
			goto out;
		}
		/* walk() made it 0755 when it was missing */
		if ((t->uid != (uid_t)-1 && chown(real, t->uid, t->gid) == -1) ||
			chmod(real, a->mode) == -1) {
			fprintf(stderr, "cpha install: %s: %s\n", t->shown, strerror(errno));
			goto out;
		}
		rc = 0;
		goto out;
	}
	r = slurp(t->src, &want);
	if (r < 0) {
		fprintf(stderr, "cpha install: %s: %s\n", t->src, strerror(-r));
		goto out;
	}
	if (complete) {
		dst = join(real, strrchr(a->dest, '/') + 1);
		r = lstat(dst, &st);
		exists = r == 0;
		if (exists && !S_ISREG(st.st_mode)) {
			fprintf(stderr, "cpha install: %s: no longer a regular file\n", t->shown);
			goto out;
		}
		if (exists && (r = slurp(dst, &have)) < 0) {
			fprintf(stderr, "cpha install: %s: %s\n", t->shown, strerror(-r));
			goto out;
		}
		same_text =
			exists && have.len == want.len && !memcmp(have.data, want.data, want.len);
		same_meta = exists && (st.st_mode & 07777) == a->mode &&
			    (t->uid == (uid_t)-1 || (st.st_uid == t->uid && st.st_gid == t->gid));
	}
	if (same_text && same_meta) {
		fprintf(o->out, "unchanged %s\n", t->shown);
		rc = 0;
		goto out;
	}
	(*changed)++;
	if (same_text) {
		/* only the mode or the owner: no new copy */
		if (t->uid != (uid_t)-1 && (st.st_uid != t->uid || st.st_gid != t->gid))
			fprintf(o->out, "chown %s:%s %s\n", a->owner, a->owner, t->shown);
		if ((st.st_mode & 07777) != a->mode)
			fprintf(o->out, "chmod %04o %s\n", a->mode, t->shown);
		if (o->dry_run) {
			rc = 0;
			goto out;
		}
		int fd = open(dst, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd == -1 || (t->uid != (uid_t)-1 && fchown(fd, t->uid, t->gid) == -1) ||
			fchmod(fd, a->mode) == -1) {
			fprintf(stderr, "cpha install: %s: %s\n", t->shown, strerror(errno));
			if (fd != -1)
				close(fd);
			goto out;
		}
		close(fd);
		rc = 0;
		goto out;
	}
	fprintf(o->out, "install ");
	print_mode_owner(o->out, a->mode, a->owner);
	fprintf(o->out, " %s %s\n", t->src, t->shown);
	if (o->dry_run) {
		rc = 0;
		goto out;
	}
	r = write_whole(real, strrchr(a->dest, '/') + 1, &want, a->mode, t->uid, t->gid);
	if (r < 0) {
		fprintf(stderr, "cpha install: %s: cannot write it: %s\n", t->shown, strerror(-r));
		goto out;
	}
	rc = 0;
out:
	cpha_buf_free(&want);
	cpha_buf_free(&have);
	free(real);
	free(dst);
	return rc;
}

/* The secrets the host's configuration reads that are not under the root
 * (or that others may read). */
static void note_secrets(const char *root, const struct install_plan *p)
{
	size_t missing = 0;

	for (size_t i = 0; i < p->nsecrets; i++) {
		char *s = join(root, p->secrets[i]);
		struct stat st;

		if (stat(s, &st) == -1)
			missing++;
		else if (st.st_mode & 077)
			fprintf(stderr,
				"cpha install: warning: %s: a secret that group or others may "
				"read (mode %04o): chmod 0600 it\n",
				s, (unsigned)(st.st_mode & 07777));
		free(s);
	}
	if (!missing)
		return;
	fprintf(stderr,
		"cpha install: note: %s: the rendered configuration reads %zu secret file%s "
		"that cpha does not make and that %s not under %s yet; write %s yourself (the "
		"BMC or PDU secret, mode 0600, owner root):\n",
		p->host, missing, missing == 1 ? "" : "s", missing == 1 ? "is" : "are", root,
		missing == 1 ? "it" : "them");
	for (size_t i = 0; i < p->nsecrets; i++) {
		char *s = join(root, p->secrets[i]);
		struct stat st;

		if (stat(s, &st) == -1)
			fprintf(stderr, "  %s\n", s);
		free(s);
	}
}

int install_run(const struct install_plan *p, const struct install_opts *o)
{
	struct act *t = calloc(p->n ? p->n : 1, sizeof(*t));
	char *rroot = realpath(o->root, NULL);
	size_t changed = 0, unchanged = 0, skipped = 0, bad = 0;
	struct stat st;
	int rc = -1;

	if (!t)
		oom();
	if (!rroot || stat(rroot, &st) == -1 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "cpha install: --root %s: %s\n", o->root,
			rroot ? "not a directory" : strerror(errno));
		goto out;
	}
	/* everything is checked before anything is written */
	for (size_t i = 0; i < p->n; i++) {
		t[i].shown = join(o->root, p->v[i].dest);
		if (check_action(rroot, &p->v[i], o, &t[i]) < 0)
			bad++;
	}
	if (bad) {
		fprintf(stderr, "cpha install: %s: %zu problem%s: nothing was written\n", p->host,
			bad, bad == 1 ? "" : "s");
		goto out;
	}
	for (size_t i = 0; i < p->n; i++) {
		size_t before = changed;

		if (t[i].skip) {
			skipped++;
			continue;
		}
		if (do_action(rroot, &p->v[i], o, &t[i], &changed) < 0) {
			fprintf(stderr, "cpha install: %s: stopped at %s; what is above was done\n",
				p->host, t[i].shown);
			goto out;
		}
		if (changed == before)
			unchanged++;
	}
	note_secrets(o->root, p);
	fprintf(o->out, "%s: %zu %s, %zu unchanged%s%s\n", p->host, changed,
		o->dry_run ? "to change" : "changed", unchanged,
		skipped ? ", some optional files missing (see above)" : "",
		o->dry_run ? " (dry run: nothing was written)" : "");
	rc = 0;
out:
	for (size_t i = 0; i < p->n; i++) {
		free(t[i].src);
		free(t[i].shown);
	}
	free(t);
	free(rroot);
	return rc;
}

/* ---- the command ---- */

/* Every regular file below dir (relative names with a leading '/'),
 * appended to v. */
static void list_files(const char *dir, const char *rel, char ***v, size_t *n)
{
	char *path = join(dir, rel[0] ? rel : "/");
	DIR *d = opendir(path);
	struct dirent *e;

	free(path);
	if (!d)
		return;
	while ((e = readdir(d))) {
		char *r;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (asprintf(&r, "%s/%s", rel, e->d_name) < 0)
			oom();
		if (e->d_type == DT_DIR || e->d_type == DT_UNKNOWN) {
			struct stat st;
			char *full = join(dir, r);
			bool isdir = lstat(full, &st) == 0 && S_ISDIR(st.st_mode);
			free(full);
			if (!isdir)
				goto file;

			list_files(dir, r, v, n);
			free(r);
			continue;
		}
	file:;
		char **nv = realloc(*v, (*n + 1) * sizeof(*nv));
		if (!nv)
			oom();
		*v = nv;
		(*v)[(*n)++] = r;
	}
	closedir(d);
}

/* What is in OUT/<host> and the plan does not take, and rendered files
 * that differ from what the description renders now: warnings, not
 * errors (an operator may edit a rendered file on purpose: docs/runbook.md
 * does for a replaced etcd member). */
static void compare_render(const char *hostdir, const struct install_plan *p,
	const struct render_set *s, const char *file)
{
	char **v = NULL;
	size_t n = 0;

	list_files(hostdir, "", &v, &n);
	for (size_t i = 0; i < n; i++) {
		const struct install_action *a = install_plan_find(p, v[i]);
		if (!a || a->src != INSTALL_SRC_RENDER)
			fprintf(stderr,
				"cpha install: warning: %s%s: not a file that %s renders for %s: "
				"not installed\n",
				hostdir, v[i], file, p->host);
		free(v[i]);
	}
	free(v);
	for (size_t i = 0; i < p->n; i++) {
		const struct install_action *a = &p->v[i];
		const struct render_file *f;
		struct cpha_buf have = { 0 };
		char *src;

		if (a->src != INSTALL_SRC_RENDER)
			continue;
		f = render_find((struct render_set *)s, p->host, a->dest);
		src = join(hostdir, a->source);
		if (f && slurp(src, &have) == 0 &&
			(have.len != f->text.len || memcmp(have.data, f->text.data, have.len)))
			fprintf(stderr,
				"cpha install: note: %s differs from what %s renders now (edited, "
				"or rendered from another description): installed as it is\n",
				src, file);
		cpha_buf_free(&have);
		free(src);
	}
}

static void install_usage(FILE *f)
{
	fprintf(f, "usage: cpha [-f FILE] install --host NAME --render OUT --pki PKIDIR "
		   "[--root DIR] [--dry-run]\n");
}

int cmd_install(int argc, char **argv, const char *file)
{
	static const struct option opts[] = {
		{ "host", required_argument, NULL, 'H' },
		{ "render", required_argument, NULL, 'r' },
		{ "pki", required_argument, NULL, 'p' },
		{ "root", required_argument, NULL, 'R' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "file", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct install_opts o = { .root = "/", .out = stdout };
	const char *hname = NULL, *out = NULL;
	struct install_plan p = { 0 };
	struct render_set s = { 0 };
	struct cpha_msgs d = { 0 };
	const struct cp_host *h;
	struct cp_cluster *c;
	char *hostdir = NULL;
	struct stat st;
	int ch, rc = CPHA_EXIT_FAIL;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "f:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'H':
			hname = optarg;
			break;
		case 'r':
			out = optarg;
			break;
		case 'p':
			o.pki_dir = optarg;
			break;
		case 'R':
			o.root = optarg;
			break;
		case 'n':
			o.dry_run = true;
			break;
		case 'f':
			file = optarg;
			break;
		case 'h':
			install_usage(stdout);
			return CPHA_EXIT_OK;
		default:
			install_usage(stderr);
			return CPHA_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "cpha install: unexpected argument '%s'\n", argv[optind]);
		return CPHA_EXIT_USAGE;
	}
	if (!hname || !out || !o.pki_dir || !*o.root) {
		fprintf(stderr, "cpha install: --host, --render and --pki are needed\n");
		install_usage(stderr);
		return CPHA_EXIT_USAGE;
	}
	o.desc = file;
	c = cpha_load(file);
	if (!c)
		return CPHA_EXIT_FAIL;
	h = cluster_host(c, hname);
	if (!h) {
		fprintf(stderr, "cpha install: %s: no host '%s' in the description\n", file, hname);
		goto out;
	}
	hostdir = join(out, hname);
	if (stat(hostdir, &st) == -1 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr,
			"cpha install: %s: %s: copy the output of `cpha render --out %s` "
			"here first\n",
			hostdir, stat(hostdir, &st) == -1 ? strerror(errno) : "not a directory",
			out);
		goto out;
	}
	if (stat(o.pki_dir, &st) == -1 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "cpha install: --pki %s: %s\n", o.pki_dir,
			stat(o.pki_dir, &st) == -1 ? strerror(errno) : "not a directory");
		goto out;
	}
	o.render_dir = hostdir;
	if (install_render(c, &s, &d) < 0 || d.nerrs) {
		cpha_msgs_print(d.errs, d.nerrs, stderr);
		fprintf(stderr, "cpha install: %s: cannot tell which files %s needs\n", file,
			hname);
		goto out;
	}
	if (install_plan_build(c, h, &s, &p) < 0)
		oom();
	compare_render(hostdir, &p, &s, file);
	if (install_run(&p, &o) == 0)
		rc = CPHA_EXIT_OK;
out:
	install_plan_free(&p);
	render_set_free(&s);
	cpha_msgs_free(&d);
	free(hostdir);
	cluster_free(c);
	return rc;
}
