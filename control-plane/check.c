/* `cpha check`: what is installed on a host against what `cpha render`
 * makes for it, file by file, and the configuration a
 * running lbd or vipd has loaded against the file on disk. Any difference
 * is drift: the host is "degraded" and the exit status is 1. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "admin.h"
#include "buf.h"
#include "cpha.h"
#include "digest.h"
#include "duration.h"
#include "fileio.h"
#include "render.h"
#include "run.h"
#include "textfile.h"

/* Print `diff -u` of the installed file against the rendered text. */
static void print_diff(const char *installed, const char *path, const struct cpha_buf *want)
{
	char tmp[] = "/tmp/cpha-check-XXXXXX", l1[4200], l2[4200];
	struct cpha_run_result res;
	int fd = mkstemp(tmp);
	bool missing = false;

	if (fd == -1 || cpha_write_all(fd, want->data, want->len) < 0) {
		if (fd != -1) {
			close(fd);
			unlink(tmp);
		}
		return;
	}
	close(fd);
	snprintf(l1, sizeof(l1), "installed %s", path);
	snprintf(l2, sizeof(l2), "rendered %s", path);
	const char *argv[] = { "diff", "-u", "--label", l1, "--label", l2, installed, tmp, NULL };
	if (run_capture(argv, &res, &missing) == 0) {
		fputs(res.out, stdout);
		cpha_run_free(&res);
	}
	unlink(tmp);
}

/* The path of a directive's first argument in a config text ("stats socket
 * /run/lbd/admin.sock level admin" → /run/lbd/admin.sock); NULL if none. */
static char *directive_arg(const char *text, const char *directive)
{
	size_t dl = strlen(directive);

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *p = l + strspn(l, " \t");
		if (strncmp(p, directive, dl) || (p[dl] != ' ' && p[dl] != '\t'))
			continue;
		p += dl + strspn(p + dl, " \t");
		size_t n = strcspn(p, " \t\r\n");
		return n ? strndup(p, n) : NULL;
	}
	return NULL;
}

/* The admin socket a configuration names (or dflt); under --root, the one
 * below the root when it is there (a host's files kept in a directory). */
static char *socket_of(const char *root, const char *text, const char *directive, const char *dflt)
{
	char *sock = directive_arg(text, directive), *rooted;
	struct stat st;

	if (!sock && dflt)
		sock = strdup(dflt);
	if (!sock || !*root)
		return sock;
	if (asprintf(&rooted, "%s%s", root, sock) < 0)
		return sock;
	if (stat(rooted, &st) == 0 && S_ISSOCK(st.st_mode)) {
		free(sock);
		return rooted;
	}
	free(rooted);
	return sock;
}

/* Ask a running daemon which configuration bytes it loaded and compare them
 * with the file. Returns 1 on drift, 0 when the same or not running. */
static int check_running(
	const char *what, const char *file, const char *socket, const char *cmd, const char *key)
{
	char want[CPHA_DIGEST_HEXLEN], *reply = NULL;
	json_t *j;
	const char *have;
	int r, drift = 0;

	r = cpha_admin_query(socket, cmd, 2000000, &reply);
	if (r < 0) {
		printf("%s: not running (admin socket %s: %s): nothing loaded to compare\n", what,
			socket, strerror(-r));
		return 0;
	}
	j = json_loads(reply, 0, NULL);
	have = j ? json_string_value(json_object_get(j, key)) : NULL;
	if (!have || !*have) {
		printf("%s: DRIFT: the running daemon does not say which configuration it loaded "
		       "(%s)\n",
			what, socket);
		drift = 1;
	} else if (cpha_digest_file(file, want) < 0) {
		printf("%s: DRIFT: running, but %s cannot be read\n", what, file);
		drift = 1;
	} else if (strcmp(want, have)) {
		printf("%s: DRIFT: the running daemon loaded other bytes than %s holds (sha256 "
		       "%.12s "
		       "running, %.12s on disk): reload it\n",
			what, file, have, want);
		drift = 1;
	} else {
		printf("%s: running with %s as on disk\n", what, file);
	}
	json_decref(j);
	free(reply);
	return drift;
}

/* The host this runs on: the description's host whose name is this
 * machine's host name (short or full). */
static const struct cp_host *local_host(const struct cp_cluster *c)
{
	char name[256];

	if (gethostname(name, sizeof(name)) == -1)
		return NULL;
	name[sizeof(name) - 1] = 0;
	if (cluster_host(c, name))
		return cluster_host(c, name);
	name[strcspn(name, ".")] = 0;
	return cluster_host(c, name);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: cpha check [-f FILE] [--host NAME] [--root DIR] [--textfile FILE]\n"
		   "  --host NAME  the host whose installed files are compared (default: this "
		   "machine's\n"
		   "               host name)\n"
		   "  --root DIR   prefix every installed path with DIR (a host's files "
		   "copied there)\n"
		   "  --textfile FILE  also write cpha_config_drift and\n"
		   "               cpha_config_check_timestamp_seconds there for node-exporter's\n"
		   "               textfile collector, atomically\n"
		   "exit status: 0 ok, 1 drift or an error\n");
}

int cmd_check(int argc, char **argv, const char *file)
{
	static const struct option opts[] = {
		{ "host", required_argument, NULL, 'H' },
		{ "root", required_argument, NULL, 'r' },
		{ "textfile", required_argument, NULL, 'T' },
		{ "file", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *root = "", *hname = NULL, *textfile = NULL;
	const struct cp_host *h;
	struct render_set s = { 0 };
	struct cpha_msgs d = { 0 };
	struct cp_cluster *c;
	size_t drift = 0, same = 0;
	int ch, rc = CPHA_EXIT_FAIL;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "f:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'H':
			hname = optarg;
			break;
		case 'r':
			root = optarg;
			break;
		case 'T':
			textfile = optarg;
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
	if (!strcmp(root, "/"))
		root = "";
	c = cpha_load(file);
	if (!c)
		return CPHA_EXIT_FAIL;
	h = hname ? cluster_host(c, hname) : local_host(c);
	if (!h) {
		if (hname)
			fprintf(stderr, "cpha check: %s: no host '%s' in the description\n", file,
				hname);
		else
			fprintf(stderr,
				"cpha check: this machine's host name is no host of %s; "
				"give --host NAME\n",
				file);
		goto out;
	}
	/* only the host's own files are compared: cluster/cib.xml is not made */
	s.tools_optional = true;
	s.hosts_only = true;
	if (render_all(c, &s, &d) < 0 || d.nerrs) {
		cpha_msgs_print(d.errs, d.nerrs, stderr);
		goto out;
	}
	for (size_t i = 0; i < s.n; i++) {
		const struct render_file *f = &s.v[i];
		struct cpha_buf have = { 0 };
		struct stat st;
		char *path;
		int r;

		if (!f->host || strcmp(f->host, h->name))
			continue;
		if (asprintf(&path, "%s%s", root, f->path) < 0)
			goto out;
		r = cpha_buf_read_file(&have, path, 0, 0);
		if (r < 0) {
			printf("%s: DRIFT: %s\n", f->path, r == -ENOENT ? "missing" : strerror(-r));
			drift++;
		} else if (have.len != f->text.len || memcmp(have.data, f->text.data, have.len)) {
			printf("%s: DRIFT: differs from what cpha render makes\n", f->path);
			print_diff(path, f->path, &f->text);
			drift++;
		} else if (stat(path, &st) == 0 && (st.st_mode & 07777) != f->mode) {
			printf("%s: DRIFT: mode %04o, rendered %04o\n", f->path,
				(unsigned)(st.st_mode & 07777), f->mode);
			drift++;
		} else {
			same++;
		}
		/* a running daemon must have loaded what is on disk */
		if (r == 0 && !strcmp(f->path, "/etc/lbd/lbd.cfg")) {
			char *sock = socket_of(root, have.data, "stats socket", NULL);
			if (sock)
				drift += (size_t)check_running(
					"lbd", path, sock, "show info json", "Config_sha256");
			free(sock);
		}
		if (r == 0 && !strcmp(f->path, "/etc/vipd/vipd.conf")) {
			char *sock = socket_of(
				root, have.data, "vipd_admin_socket", "/run/vipd/admin.sock");
			drift += (size_t)check_running(
				"vipd", path, sock, "show json", "config_sha256");
			free(sock);
		}
		cpha_buf_free(&have);
		free(path);
	}
	if (drift) {
		printf("%s: degraded: %zu file%s or daemon%s drifted from the description (%zu "
		       "file%s as rendered)\n",
			h->name, drift, drift == 1 ? "" : "s", drift == 1 ? "" : "s", same,
			same == 1 ? "" : "s");
		rc = CPHA_EXIT_FAIL;
	} else {
		printf("%s: ok: %zu file%s as rendered\n", h->name, same, same == 1 ? "" : "s");
		rc = CPHA_EXIT_OK;
	}
	if (textfile) {
		struct cpha_buf t = { 0 };
		char why[4200];

		/* only after a comparison: an error above leaves the old file,
		 * and its timestamp goes stale */
		textfile_check(&t, h->name, drift > 0, (double)cpha_now_usec(CLOCK_REALTIME) / 1e6);
		if (!t.data || textfile_write(textfile, t.data, t.len, why, sizeof(why)) < 0) {
			fprintf(stderr, "cpha check: --textfile %s\n",
				t.data ? why : "out of memory");
			rc = CPHA_EXIT_FAIL;
		}
		cpha_buf_free(&t);
	}
out:
	cpha_msgs_free(&d);
	render_set_free(&s);
	cluster_free(c);
	return rc;
}
