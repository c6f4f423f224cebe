/* `cpha etcd restore SNAPSHOT`: after etcd's data is lost (every member's,
 * or enough of them for quorum to be gone for good), make this member's data
 * directory from a snapshot (etcdctl snapshot restore) with the
 * description's members and token, the same on every member: run on each
 * with the same snapshot, they start as the cluster they were, with the
 * same cluster ID (etcd derives it from the peer URLs and the token), which
 * is the one ocf:cpha:etcd recorded. The old data directory is moved aside,
 * never deleted, and nothing happens while an etcd still has it open.
 *
 * A data directory that cannot itself be renamed (a mount point: etcd on a
 * disk of its own; or a directory an overlay's lower layer has too) is
 * restored in place: its entries go into DIR/.before-restore-TIME, the
 * restored ones into DIR. */

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
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
#include "fileio.h"
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

/* Is dir (lstat'd into d) a mount point below parent (stat'd into p)? The
 * mount IDs tell a bind mount of the same file system too; without them,
 * the devices. */
static bool mount_point(
	const char *dir, const struct stat *d, const char *parent, const struct stat *p)
{
#ifdef STATX_MNT_ID
	struct statx a, b;

	if (statx(AT_FDCWD, dir, AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &a) == 0 &&
		statx(AT_FDCWD, parent, 0, STATX_MNT_ID, &b) == 0 &&
		(a.stx_mask & b.stx_mask & STATX_MNT_ID))
		return a.stx_mnt_id != b.stx_mnt_id;
#endif
	return d->st_dev != p->st_dev;
}

/* The entries of dir but skip (a name, or NULL) into *names,
 * NULL-terminated (cpha_dir_names()). Returns their count, or -1 (errno). */
static int entries(const char *dir, const char *skip, char ***names)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), saved;
	ssize_t n;

	*names = NULL;
	if (fd == -1)
		return -1;
	n = cpha_dir_names(fd, names);
	saved = errno;
	close(fd);
	errno = saved;
	for (ssize_t i = 0; n > 0 && skip && i < n; i++)
		if (!strcmp((*names)[i], skip)) {
			free((*names)[i]);
			memmove(&(*names)[i], &(*names)[i + 1], (size_t)(n - i) * sizeof(**names));
			n--;
			break;
		}
	return n < 0 ? -1 : (int)n;
}

/* Rename from/NAME to to/NAME for the first n of names; on a failure, put
 * back those moved and return -1 (errno of the failure). */
static int move_names(const char *from, const char *to, char **names, int n)
{
	char a[PATH_MAX], b[PATH_MAX];
	int i, saved;

	for (i = 0; i < n; i++) {
		snprintf(a, sizeof(a), "%s/%s", from, names[i]);
		snprintf(b, sizeof(b), "%s/%s", to, names[i]);
		if (rename(a, b) == -1)
			break;
	}
	if (i == n)
		return 0;
	saved = errno;
	while (i-- > 0) {
		snprintf(a, sizeof(a), "%s/%s", from, names[i]);
		snprintf(b, sizeof(b), "%s/%s", to, names[i]);
		rename(b, a);
	}
	errno = saved;
	return -1;
}

/* The restore in place: dir's entries (but work, when it is in dir) into
 * dir/ASIDE_NAME (made), then work's into dir, then work removed. On a failure everything is put
 * back as it was, as far as renames allow, and -1 is returned with a line on stderr. */
static int swap_in_place(
	const char *dir, const char *work, const char *aside_name, char *aside, size_t asz)
{
	const char *slash = strrchr(work, '/');
	char **old = NULL, **new = NULL;
	int nold = -1, nnew = -1, rc = -1;
	size_t dlen = strlen(dir);

	snprintf(aside, asz, "%s/%s", dir, aside_name);
	/* work itself when it is in dir (a mount point's restore) */
	nold = entries(
		dir, !strncmp(work, dir, dlen) && work + dlen == slash ? slash + 1 : NULL, &old);
	nnew = nold < 0 ? -1 : entries(work, NULL, &new);
	if (nold < 0 || nnew < 0) {
		fprintf(stderr, "cpha etcd restore: reading %s: %s\n", nold < 0 ? dir : work,
			strerror(errno));
		goto out;
	}
	if (mkdir(aside, 0700) == -1) {
		fprintf(stderr, "cpha etcd restore: %s: %s\n", aside, strerror(errno));
		goto out;
	}
	if (move_names(dir, aside, old, nold) == -1) {
		fprintf(stderr,
			"cpha etcd restore: moving %s's entries into %s: %s (%s unchanged)\n", dir,
			aside, strerror(errno), dir);
		rmdir(aside);
		goto out;
	}
	if (move_names(work, dir, new, nnew) == -1) {
		int saved = errno;

		if (move_names(aside, dir, old, nold) == 0)
			rmdir(aside);
		fprintf(stderr,
			"cpha etcd restore: moving %s's entries into %s: %s (%s unchanged)\n", work,
			dir, strerror(saved), dir);
		goto out;
	}
	if (rmdir(work) == -1)
		fprintf(stderr, "cpha etcd restore: %s: %s (empty, left there)\n", work,
			strerror(errno));
	rc = 0;
out:
	cpha_names_free(old);
	cpha_names_free(new);
	return rc;
}

int cpha_etcd_restore(const char *file, const struct etcd_restore_opts *o)
{
	char peer[CPHA_ADDR_STRLEN + 16], hp[CPHA_ADDR_STRLEN + 8], stamp[32];
	struct cpha_buf initial = { 0 };
	char work[PATH_MAX], aside[PATH_MAX], parent[PATH_MAX], why[600], aside_name[48];
	const char *dir, *slash;
	const struct cp_host *h;
	struct cpha_run_result res = { 0 };
	struct cp_cluster *c;
	struct stat old, pst;
	bool had_old, in_place;
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
	/* a data directory on a file system of its own (a mount point) is
	 * restored in place, the work done on its own file system */
	in_place = had_old && mount_point(dir, &old, parent, &pst);
	if (in_place)
		snprintf(work, sizeof(work), "%s/.restoring-%s", dir, stamp);
	else
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
	if (chmod(work, 0700) == -1) {
		fprintf(stderr, "cpha etcd restore: %s: %s\n", work, strerror(errno));
		goto out;
	}
	if (had_old && (in_place || rename(dir, aside) == -1)) {
		if (!in_place && errno != EXDEV && errno != EBUSY) {
			fprintf(stderr, "cpha etcd restore: moving %s aside: %s\n", dir,
				strerror(errno));
			goto out;
		}
		/* a mount point, or an overlay's directory that its lower
		 * layer has too (EXDEV) */
		snprintf(aside_name, sizeof(aside_name), ".before-restore-%s", stamp);
		if (swap_in_place(dir, work, aside_name, aside, sizeof(aside)) < 0)
			goto out;
		if (chmod(dir, 0700) == -1)
			fprintf(stderr, "cpha etcd restore: %s: chmod 0700: %s\n", dir,
				strerror(errno));
	} else if (rename(work, dir) == -1) {
		fprintf(stderr, "cpha etcd restore: moving %s into place: %s\n", work,
			strerror(errno));
		if (had_old && rename(aside, dir) == -1)
			fprintf(stderr, "cpha etcd restore: the old data directory is at %s\n",
				aside);
		goto out;
	}
	for (int i = 0; i < 2; i++) {
		int pfd = open(i ? dir : parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

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
