/* etcdctl for the etcd commands (etcd_cmd.c: snapshot and verify;
 * etcd_restore.c; etcd_remove_cmd.c): run it without the caller's
 * ETCDCTL_* variables, say what went wrong in its own words, ask a member
 * for its health, read a snapshot's status, verify a snapshot against its
 * sidecar. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "buf.h"
#include "digest.h"
#include "etcd_ctl.h"
#include "flags.h"
#include "render_text.h"
#include "run.h"
#include "snapshot_keep.h"
#include "spawn.h"

#define ETCDCTL            "etcdctl"
#define STATUS_TIMEOUT_SEC 120
#define SIDECAR_MAX        4096

extern char **environ;

/* This process's environment without ETCDCTL_* (etcdctl refuses a variable
 * that shadows one of the flags given), with ETCDCTL_API=3. NULL: no memory. */
static const char **child_env(void)
{
	size_t n = 0, k = 0;
	const char **env;

	while (environ[n])
		n++;
	env = calloc(n + 2, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "ETCDCTL_", 8) != 0)
			env[k++] = environ[i];
	env[k++] = "ETCDCTL_API=3";
	return env;
}

/* Run etcdctl with args (after its name) to its end. Returns 0 with res
 * filled (whatever its status), or -1 with why set. */
int cpha_etcdctl(const char *const *args, unsigned timeout_sec, struct cpha_run_result *res,
	char *why, size_t whylen)
{
	struct cpha_spawn_opts o = { .timeout_usec = timeout_sec * 1000000ull };
	const char *argv[24];
	const char **env = NULL;
	char *exe = run_which(ETCDCTL);
	size_t n = 0;
	int r = -1;

	memset(res, 0, sizeof(*res));
	if (!exe) {
		snprintf(why, whylen, CPHA_ETCDCTL_NOT_INSTALLED);
		return -1;
	}
	argv[n++] = exe;
	while (*args && n + 1 < sizeof(argv) / sizeof(argv[0]))
		argv[n++] = *args++;
	argv[n] = NULL;
	env = child_env();
	if (!env) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	o.argv = argv;
	o.envp = env;
	r = cpha_run(&o, res);
	if (r < 0) {
		snprintf(why, whylen, "%s: %s", exe, strerror(-r));
		r = -1;
	}
out:
	free(env);
	free(exe);
	return r;
}

/* etcdctl's own words for a failed run: its "Error: ..." line, else the
 * "panic: ..." line of a crash (bbolt panics on a damaged file; the stack
 * trace after it says nothing to an operator), else the last line it wrote
 * on stderr, else how it ended. */
void cpha_etcdctl_failure(const struct cpha_run_result *res, char *buf, size_t len)
{
	const char *err = res->err ? res->err : "", *line, *last = NULL, *p;
	size_t last_len = 0;

	if (res->timed_out) {
		snprintf(buf, len, ETCDCTL " did not finish in time and was killed");
		return;
	}
	for (line = err; *line; line = p + (*p == '\n')) {
		p = strchrnul(line, '\n');
		if (p == line)
			continue;
		if (strncmp(line, "Error: ", 7) == 0) {
			snprintf(buf, len, "%.*s", (int)(p - line - 7), line + 7);
			return;
		}
		if (strncmp(line, "panic: ", 7) == 0) {
			snprintf(buf, len, "crashed: %.*s", (int)(p - line), line);
			return;
		}
		last = line;
		last_len = (size_t)(p - line);
	}
	if (last)
		snprintf(buf, len, "%.*s", (int)last_len, last);
	else if (res->signo)
		snprintf(buf, len, ETCDCTL " was killed by signal %d", res->signo);
	else
		snprintf(buf, len, ETCDCTL " exited with status %d", res->exit_code);
}

int cpha_etcd_healthy(
	const char *ep, const char *ca, const char *cert, const char *key, char *why, size_t whylen)
{
	const char *args[] = { ep, ca, cert, key, CPHA_ETCDCTL_DIAL_TIMEOUT,
		CPHA_ETCDCTL_CMD_TIMEOUT, "endpoint", "health", NULL };
	struct cpha_run_result res;
	const char *p;
	int r = -1;

	if (cpha_etcdctl(args, CPHA_ETCDCTL_SHORT_SEC, &res, why, whylen) < 0)
		return -1;
	if (res.exited && res.exit_code == 0) {
		r = 0;
	} else if (res.err && (p = strstr(res.err, " is unhealthy: "))) {
		p += strlen(" is unhealthy: ");
		snprintf(why, whylen, "unhealthy: %.*s", (int)(strchrnul(p, '\n') - p), p);
	} else {
		cpha_etcdctl_failure(&res, why, whylen);
	}
	cpha_run_free(&res);
	return r;
}

int cpha_etcd_pki_check(const char *prog, const char *pki)
{
	static const char *const files[] = { "ca.pem", "etcd-client.pem", "etcd-client-key.pem" };
	char path[4096];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", pki, files[i]);
		if (access(path, R_OK) == -1) {
			fprintf(stderr,
				"%s: %s: %s (--pki DIR: where etcd's client certificate is)\n",
				prog, path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

char *cpha_etcd_url(const struct cp_cluster *c, size_t i, bool peer, char *buf, size_t len)
{
	char hp[CPHA_ADDR_STRLEN + 8];

	render_text_hostport(&c->hosts[c->etcd[i]].addr,
		peer ? FLAGS_ETCD_PEER_PORT : FLAGS_ETCD_CLIENT_PORT, hp, sizeof(hp));
	snprintf(buf, len, "https://%s", hp);
	return buf;
}

static bool json_u64(json_t *o, const char *key, unsigned long long *v)
{
	json_t *x = json_object_get(o, key);

	if (!json_is_integer(x) || json_integer_value(x) < 0)
		return false;
	*v = (unsigned long long)json_integer_value(x);
	return true;
}

int cpha_etcd_snap_status(const char *path, struct cpha_snap_status *st, char *why, size_t whylen)
{
	const char *args[] = { "snapshot", "status", "-w", "json", path, NULL };
	struct cpha_run_result res;
	json_t *root = NULL;
	int r = -1;

	if (cpha_etcdctl(args, STATUS_TIMEOUT_SEC, &res, why, whylen) < 0)
		goto out;
	if (!res.exited || res.exit_code != 0) {
		char msg[512];

		cpha_etcdctl_failure(&res, msg, sizeof(msg));
		snprintf(why, whylen, ETCDCTL " snapshot status: %s", msg);
		goto out;
	}
	root = json_loads(res.out ? res.out : "", 0, NULL);
	if (!json_u64(root, "hash", &st->hash) || !json_u64(root, "revision", &st->revision) ||
		!json_u64(root, "totalKey", &st->keys) || !json_u64(root, "totalSize", &st->size)) {
		snprintf(why, whylen,
			ETCDCTL " snapshot status: not the JSON expected (hash, revision, "
				"totalKey, totalSize): %.200s",
			res.out ? res.out : "");
		goto out;
	}
	r = 0;
out:
	json_decref(root);
	cpha_run_free(&res);
	return r;
}

/* One file: 0 when it passes, else -1 after a line per problem. */
int cpha_etcd_verify_one(const char *file, bool no_sidecar)
{
	char side[4096 + sizeof(SNAPSHOT_SIDECAR)], hex[CPHA_DIGEST_HEXLEN], want[65], named[1024],
		why[600];
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file, *perr;
	struct cpha_buf text = { 0 };
	struct cpha_snap_status st;
	struct stat sb;
	bool have_sidecar = false;
	int r, bad = 0;

	if (strlen(file) >= 4096) {
		printf("%.100s...: too long a path\n", file);
		return -1;
	}
	if (stat(file, &sb) == -1) {
		printf("%s: %s\n", file, strerror(errno));
		return -1;
	}
	if (!S_ISREG(sb.st_mode)) {
		printf("%s: not a file\n", file);
		return -1;
	}
	snprintf(side, sizeof(side), "%s" SNAPSHOT_SIDECAR, file);
	r = cpha_buf_read_file(&text, side, 0, SIDECAR_MAX);
	if (r == -ENOENT && !no_sidecar) {
		printf("%s: no sidecar %s (--no-sidecar checks a file without one)\n", file, side);
		bad = 1;
	} else if (r < 0 && r != -ENOENT) {
		printf("%s: sidecar %s: %s\n", file, side,
			r == -EFBIG ? "too large for a sha256sum line" : strerror(-r));
		bad = 1;
	} else if (r == 0) {
		have_sidecar = true;
		if (snapshot_sidecar_parse(text.data, want, named, sizeof(named), &perr) < 0) {
			printf("%s: sidecar %s: %s\n", file, side, perr);
			bad = 1;
			have_sidecar = false;
		} else if (strcmp(named, base) != 0) {
			printf("%s: sidecar %s is the sum of '%s', not of '%s'\n", file, side,
				named, base);
			bad = 1;
		}
	}
	cpha_buf_free(&text);
	r = cpha_digest_file(file, hex);
	if (r < 0) {
		printf("%s: %s\n", file, strerror(-r));
		return -1;
	}
	if (have_sidecar && strcmp(want, hex) != 0) {
		printf("%s: sha256 mismatch: sidecar says %s, file is %s\n", file, want, hex);
		bad = 1;
	}
	if (cpha_etcd_snap_status(file, &st, why, sizeof(why)) < 0) {
		printf("%s: %s\n", file, why);
		bad = 1;
	}
	if (bad)
		return -1;
	printf("%s: ok, revision %llu, %llu keys, %lld bytes, sha256 %s%s\n", file, st.revision,
		st.keys, (long long)sb.st_size, hex,
		have_sidecar ? " (as its sidecar says)" : " (no sidecar)");
	return 0;
}
