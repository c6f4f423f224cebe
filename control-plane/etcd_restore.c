/* `cpha etcd restore SNAPSHOT`: after etcd's data is lost (every member's,
 * or enough of them for quorum to be gone for good), make this member's data
 * directory from a snapshot (etcdctl snapshot restore) with the
 * description's members and token, the same on every member: run on each
 * with the same snapshot, they start as the cluster they were, with the
 * same cluster ID (etcd derives it from the peer URLs and the token), which
 * is the one ocf:cpha:etcd recorded. The old data directory is moved aside,
 * never deleted, and nothing happens while an etcd still has it open. */

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "cluster.h"
#include "cpha.h"
#include "etcd_ctl.h"
#include "etcd_restore.h"
#include "flags.h"
#include "render_text.h"

#define RESTORE_TIMEOUT_SEC 1200

static uid_t chown_uid;
static gid_t chown_gid;

static int chown_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	(void)type;
	(void)ftw;
	return lchown(path, chown_uid, chown_gid) == -1 ? -1 : 0;
}

/* The member to restore: name, else this host's name. NULL with a line on
 * stderr when the description has no such etcd member. */
static const struct cp_host *member(const struct cp_cluster *c, const char *file, const char *name)
{
	char host[HOST_NAME_MAX + 1];

	if (!name) {
		if (gethostname(host, sizeof(host)) == -1) {
			fprintf(stderr, "cpha etcd restore: gethostname: %s\n", strerror(errno));
			return NULL;
		}
		host[sizeof(host) - 1] = '\0';
		name = host;
	}
	for (size_t i = 0; i < c->netcd; i++)
		if (!strcmp(c->hosts[c->etcd[i]].name, name))
			return &c->hosts[c->etcd[i]];
	fprintf(stderr,
		"cpha etcd restore: %s: '%s' is not an etcd member of the description (--name "
		"NAME: the member this host is)\n",
		file, name);
	return NULL;
}

/* Does an etcd have dir open? bbolt holds an exclusive flock on its
 * database while etcd runs. 1 yes, 0 no (or no database), -1 on error. */
static int in_use(const char *dir)
{
	char db[PATH_MAX];
	int fd, r = 0;

	if (snprintf(db, sizeof(db), "%s/member/snap/db", dir) >= (int)sizeof(db))
		return -1;
	fd = open(db, O_RDONLY | O_CLOEXEC);
	if (fd == -1)
		return errno == ENOENT ? 0 : -1;
	if (flock(fd, LOCK_EX | LOCK_NB) == -1)
		r = errno == EWOULDBLOCK ? 1 : -1;
	close(fd);
	return r;
}

int cpha_etcd_restore(const char *file, const struct etcd_restore_opts *o)
{
	char peer[CPHA_ADDR_STRLEN + 16], hp[CPHA_ADDR_STRLEN + 8], stamp[32];
	struct cpha_buf initial = { 0 };
	char work[PATH_MAX], aside[PATH_MAX], parent[PATH_MAX], why[600];
	const char *dir, *slash;
	const struct cp_host *h;
	struct cpha_run_result res = { 0 };
	struct cp_cluster *c;
	struct stat old, pst;
	bool had_old;
	time_t now = time(NULL);
	int rc = CPHA_EXIT_FAIL, r;

	c = cpha_load(file);
	if (!c)
		return CPHA_EXIT_FAIL;
	h = member(c, file, o->name);
	if (!h)
		goto out;
	dir = o->data_dir ? o->data_dir : c->etcd_data_dir;
	if (dir[0] != '/' || strlen(dir) > PATH_MAX - 64) {
		fprintf(stderr, "cpha etcd restore: %s: give an absolute data directory\n", dir);
		goto out;
	}
	/* the snapshot first: a damaged one must not cost the old directory */
	if (cpha_etcd_verify_one(o->snapshot, o->no_sidecar) < 0) {
		fprintf(stderr, "cpha etcd restore: %s does not verify: nothing changed\n",
			o->snapshot);
		goto out;
	}
	r = in_use(dir);
	if (r != 0) {
		fprintf(stderr, "cpha etcd restore: %s: %s: nothing changed\n", dir,
			r > 0 ? "an etcd has it open; stop etcd on this host first (Pacemaker: "
				"pcs resource ban etcd-clone HOST, or disable etcd)"
			      : "cannot tell whether an etcd has it open");
		goto out;
	}
	had_old = lstat(dir, &old) == 0;
	if (!had_old && errno != ENOENT) {
		fprintf(stderr, "cpha etcd restore: %s: %s\n", dir, strerror(errno));
		goto out;
	}
	if (had_old && !S_ISDIR(old.st_mode)) {
		fprintf(stderr, "cpha etcd restore: %s: not a directory\n", dir);
		goto out;
	}
	slash = strrchr(dir, '/');
	snprintf(parent, sizeof(parent), "%.*s", slash == dir ? 1 : (int)(slash - dir), dir);
	if (stat(parent, &pst) == -1) {
		fprintf(stderr, "cpha etcd restore: %s: %s\n", parent, strerror(errno));
		goto out;
	}
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", gmtime(&now));
	snprintf(work, sizeof(work), "%s.restoring-%s", dir, stamp);
	snprintf(aside, sizeof(aside), "%s.before-restore-%s", dir, stamp);
	if (lstat(work, &pst) == 0 || lstat(aside, &pst) == 0) {
		fprintf(stderr, "cpha etcd restore: %s or %s exists: try again in a second\n", work,
			aside);
		goto out;
	}
	render_text_hostport(&h->addr, FLAGS_ETCD_PEER_PORT, hp, sizeof(hp));
	snprintf(peer, sizeof(peer), "https://%s", hp);
	for (size_t i = 0; i < c->netcd; i++) {
		const struct cp_host *m = &c->hosts[c->etcd[i]];

		render_text_hostport(&m->addr, FLAGS_ETCD_PEER_PORT, hp, sizeof(hp));
		if (cpha_buf_printf(&initial, "%s%s=https://%s", i ? "," : "", m->name, hp) < 0) {
			fprintf(stderr, "cpha etcd restore: out of memory\n");
			goto out;
		}
	}
	{
		const char *args[] = { "snapshot", "restore", o->snapshot, "--name", h->name,
			"--initial-cluster", initial.data, "--initial-advertise-peer-urls", peer,
			"--initial-cluster-token", c->etcd_token, "--data-dir", work, NULL };

		if (cpha_etcdctl(args, RESTORE_TIMEOUT_SEC, &res, why, sizeof(why)) < 0) {
			fprintf(stderr, "cpha etcd restore: %s\n", why);
			goto out;
		}
		if (!res.exited || res.exit_code != 0) {
			cpha_etcdctl_failure(&res, why, sizeof(why));
			fprintf(stderr, "cpha etcd restore: etcdctl snapshot restore: %s\n", why);
			goto out;
		}
	}
	/* etcd runs as the old directory's owner: the new one is theirs */
	if (had_old) {
		chown_uid = old.st_uid;
		chown_gid = old.st_gid;
		if (nftw(work, chown_one, 16, FTW_PHYS) != 0) {
			fprintf(stderr,
				"cpha etcd restore: %s: chown: %s (left there; %s unchanged)\n",
				work, strerror(errno), dir);
			goto out;
		}
	}
	if (chmod(work, 0700) == -1 || (had_old && rename(dir, aside) == -1) ||
		rename(work, dir) == -1) {
		fprintf(stderr, "cpha etcd restore: moving %s into place: %s\n", work,
			strerror(errno));
		goto out;
	}
	{
		int pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (pfd != -1) {
			fsync(pfd);
			close(pfd);
		}
	}
	printf("%s: restored from %s as member %s at %s of %s (token %s)\n", dir, o->snapshot,
		h->name, peer, initial.data, c->etcd_token);
	if (had_old)
		printf("%s: the old data directory, kept\n", aside);
	if (c->netcd > 1)
		printf("next: the same, with this same snapshot, on every other member; then start "
		       "etcd on all of them (docs/runbook.md)\n");
	else
		printf("next: start etcd\n");
	rc = CPHA_EXIT_OK;
out:
	cpha_run_free(&res);
	cpha_buf_free(&initial);
	cluster_free(c);
	return rc;
}
