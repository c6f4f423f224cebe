/* `cpha etcd snapshot` and `cpha etcd verify`: etcd snapshots an operator
 * can restore from after etcd loses quorum, each beside a sidecar with its
 * SHA-256, the newest K kept. etcdctl (API 3) does the talking to etcd and
 * reads the files; snapshot_keep.c decides which to keep. Also the options
 * of `cpha etcd restore` (etcd_restore.c) and `cpha etcd remove`
 * (etcd_remove_cmd.c). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "buf.h"
#include "cpha.h"
#include "digest.h"
#include "etcd_ctl.h"
#include "etcd_remove_cmd.h"
#include "etcd_restore.h"
#include "fileio.h"
#include "flags.h"
#include "render_paths.h"
#include "run.h"
#include "snapshot_keep.h"
#include "spawn.h"

/* etcdctl 3.4 bounds snapshot save by --command-timeout (5 s by default: too
 * short for a large database), and a dial that fails waits for it too:
 * each endpoint is asked for its health first (cpha_etcd_healthy()); a run
 * is killed a little after its timeout */
#define SAVE_TIMEOUT_SEC 1200
#define MAX_ENDPOINTS    32
#define NAME_WAIT_TRIES  3 /* seconds waited for a free name (one snapshot a second) */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: cpha [-f FILE] etcd snapshot [--dir DIR] [--keep K] [--pki DIR]\n"
		"                                    [--endpoint URL]...\n"
		"       cpha etcd verify [--no-sidecar] FILE...\n"
		"       cpha [-f FILE] etcd restore [--name NAME] [--data-dir DIR] [--no-sidecar]\n"
		"                                   SNAPSHOT\n"
		"       cpha [-f FILE] etcd remove [--pki DIR] [--dry-run] NAME...\n"
		"  snapshot      take a snapshot of etcd (etcdctl snapshot save) into DIR, with a\n"
		"                sha256sum sidecar, and keep the newest K there\n"
		"  --dir DIR     where (default: etcd.snapshot.dir, else " SNAPSHOT_DEFAULT_DIR
		")\n"
		"  --keep K      snapshots kept, K >= 1 (default: etcd.snapshot.keep, else %u)\n"
		"  --pki DIR     ca.pem, etcd-client.pem, etcd-client-key.pem, for snapshot\n"
		"                and remove (default " RENDER_PKI_ETCD ")\n"
		"  --endpoint URL  an etcd client URL, tried in the order given (default: every\n"
		"                etcd member of the description, https://ADDRESS:%u)\n"
		"  verify        check each FILE against FILE.sha256 and that etcdctl reads it\n"
		"  --no-sidecar  check a FILE that has no sidecar (etcdctl's reading only)\n"
		"  restore       etcd lost quorum for good: make this member's data directory\n"
		"                from SNAPSHOT (verified first) as a new one-member cluster;\n"
		"                the old one is moved aside; etcd must not be running\n"
		"  --name NAME   the member restored (default: this host's name)\n"
		"  --data-dir DIR  (default: etcd.data_dir, else /var/lib/etcd)\n"
		"  remove        remove the etcd members of hosts taken out of the description\n"
		"                (NAME: a member's name, peer URL or hex ID), one at a time, each\n"
		"                only when it no longer answers and the members left keep a\n"
		"                quorum and an odd count\n"
		"  --dry-run     say what remove would remove; remove nothing\n",
		SNAPSHOT_DEFAULT_KEEP, FLAGS_ETCD_CLIENT_PORT);
}

/* ---- snapshot ---- */

struct snap_opts {
	const char *dir, *pki;
	unsigned keep; /* 0: the description's, else the default */
	const char *endpoints[MAX_ENDPOINTS];
	size_t nendpoints;
};

/* dir exists (made 0700 when it did not) and is a directory: 0, or -1 after
 * saying why. */
static int make_dir(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0700) == -1 && errno != EEXIST) {
		fprintf(stderr, "cpha etcd snapshot: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	if (stat(dir, &st) == -1) {
		fprintf(stderr, "cpha etcd snapshot: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "cpha etcd snapshot: %s: not a directory\n", dir);
		return -1;
	}
	return 0;
}

/* Partial files of runs that were killed: no run is writing (we hold the
 * directory's lock), so they are garbage. */
static void remove_parts(int dfd, const char *dir)
{
	char **names = NULL;
	ssize_t n = cpha_dir_names(dfd, &names);

	for (ssize_t i = 0; i < n; i++)
		if (snapshot_part_name(names[i]) && unlinkat(dfd, names[i], 0) == -1 &&
			errno != ENOENT)
			fprintf(stderr, "cpha etcd snapshot: %s/%s: %s\n", dir, names[i],
				strerror(errno));
	cpha_names_free(names);
}

/* A name no snapshot has yet: the time now, or a second later when a
 * snapshot was taken this second. Returns 0, or -1 after saying why. */
static int new_name(int dfd, const char *dir, char *name, size_t len)
{
	for (int i = 0; i < NAME_WAIT_TRIES; i++) {
		struct timespec now;
		char side[SNAPSHOT_NAME_LEN + sizeof(SNAPSHOT_SIDECAR)];

		clock_gettime(CLOCK_REALTIME, &now);
		if (!snapshot_name(now.tv_sec, name, len)) {
			fprintf(stderr, "cpha etcd snapshot: the clock says %lld\n",
				(long long)now.tv_sec);
			return -1;
		}
		snprintf(side, sizeof(side), "%s" SNAPSHOT_SIDECAR, name);
		if (faccessat(dfd, name, F_OK, AT_SYMLINK_NOFOLLOW) == -1 && errno == ENOENT &&
			faccessat(dfd, side, F_OK, AT_SYMLINK_NOFOLLOW) == -1 && errno == ENOENT)
			return 0;
		/* to the next second */
		struct timespec rest = { 0, 1000000000L - now.tv_nsec };
		nanosleep(&rest, NULL);
	}
	fprintf(stderr, "cpha etcd snapshot: %s/%s exists already (the clock stands still?)\n", dir,
		name);
	return -1;
}

/* Move from into place as to, in the directory dfd, never over a file that
 * is there. Returns 0 or -1 with errno set. */
static int rename_noreplace(int dfd, const char *from, const char *to)
{
	if (renameat2(dfd, from, dfd, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	/* a file system without RENAME_NOREPLACE: link fails on EEXIST too */
	if (linkat(dfd, from, dfd, to, 0) == -1)
		return -1;
	unlinkat(dfd, from, 0);
	return 0;
}

/* Delete what retention chose (and their sidecars); names just listed.
 * Returns how many went, or -1 when one could not be deleted. */
static int apply_keep(int dfd, const char *dir, unsigned keep, const char *taken)
{
	char **names = NULL;
	size_t *del = NULL, k;
	ssize_t n = cpha_dir_names(dfd, &names);
	int r = 0;

	if (n < 0) {
		fprintf(stderr, "cpha etcd snapshot: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	del = calloc((size_t)n + 1, sizeof(*del));
	if (!del) {
		fprintf(stderr, "cpha etcd snapshot: out of memory\n");
		cpha_names_free(names);
		return -1;
	}
	k = snapshot_keep((const char *const *)names, (size_t)n, keep, taken, del);
	for (size_t i = 0; i < k; i++) {
		char side[SNAPSHOT_NAME_LEN + sizeof(SNAPSHOT_SIDECAR)];
		const char *name = names[del[i]];

		snprintf(side, sizeof(side), "%s" SNAPSHOT_SIDECAR, name);
		if (unlinkat(dfd, name, 0) == -1 && errno != ENOENT) {
			fprintf(stderr, "cpha etcd snapshot: %s/%s: %s\n", dir, name,
				strerror(errno));
			r = -1;
			continue;
		}
		if (unlinkat(dfd, side, 0) == -1 && errno != ENOENT) {
			fprintf(stderr, "cpha etcd snapshot: %s/%s: %s\n", dir, side,
				strerror(errno));
			r = -1;
			continue;
		}
		if (r >= 0)
			r++;
	}
	free(del);
	cpha_names_free(names);
	return r;
}

/* etcdctl snapshot save into part from the first endpoint that gives one.
 * Returns the index of that endpoint, or -1 after saying why each failed. */
static int save(const struct snap_opts *o, const char *const *endpoints, size_t n, int dfd,
	const char *part, const char *part_path)
{
	char ca[4096], cert[4096], key[4096], ep[4200], cmdto[64];
	struct cpha_buf errs = { 0 };
	int got = -1;

	snprintf(ca, sizeof(ca), "--cacert=%s/ca.pem", o->pki);
	snprintf(cert, sizeof(cert), "--cert=%s/etcd-client.pem", o->pki);
	snprintf(key, sizeof(key), "--key=%s/etcd-client-key.pem", o->pki);
	snprintf(cmdto, sizeof(cmdto), "--command-timeout=%ds", SAVE_TIMEOUT_SEC);
	for (size_t i = 0; i < n && got < 0; i++) {
		const char *args[] = { ep, ca, cert, key, CPHA_ETCDCTL_DIAL_TIMEOUT, cmdto,
			"snapshot", "save", part_path, NULL };
		struct cpha_run_result res;
		char why[512], tmp[SNAPSHOT_NAME_LEN + 16];

		snprintf(ep, sizeof(ep), "--endpoints=%s", endpoints[i]);
		if (cpha_etcd_healthy(ep, ca, cert, key, why, sizeof(why)) < 0) {
			cpha_buf_printf(&errs, "\n  %s: %s", endpoints[i], why);
			if (!strcmp(why, CPHA_ETCDCTL_NOT_INSTALLED))
				break;
			continue;
		}
		if (cpha_etcdctl(args, SAVE_TIMEOUT_SEC + 30, &res, why, sizeof(why)) == 0) {
			if (res.exited && res.exit_code == 0)
				got = (int)i;
			else
				cpha_etcdctl_failure(&res, why, sizeof(why));
		}
		cpha_run_free(&res);
		if (got >= 0)
			break;
		cpha_buf_printf(&errs, "\n  %s: %s", endpoints[i], why);
		/* etcdctl's own temporary file is left when it is killed */
		snprintf(tmp, sizeof(tmp), "%s.part", part);
		unlinkat(dfd, part, 0);
		unlinkat(dfd, tmp, 0);
		if (!strcmp(why, CPHA_ETCDCTL_NOT_INSTALLED))
			break;
	}
	if (got < 0)
		fprintf(stderr, "cpha etcd snapshot: no snapshot from %s:%s\n",
			n == 1 ? "the etcd endpoint" : "any etcd endpoint",
			errs.data ? errs.data : "");
	cpha_buf_free(&errs);
	return got;
}

static int snapshot(const char *file, const struct snap_opts *in)
{
	struct snap_opts o = *in;
	struct cp_cluster *c = NULL;
	char **urls = NULL;
	const char *const *endpoints = o.endpoints;
	size_t nendpoints = o.nendpoints;
	char name[SNAPSHOT_NAME_LEN + 1], part[SNAPSHOT_NAME_LEN + 8] = "", part_path[4096];
	char path[4096], side[4096 + sizeof(SNAPSHOT_SIDECAR)], side_text[SNAPSHOT_NAME_LEN + 80];
	char hex[CPHA_DIGEST_HEXLEN], why[512];
	struct cpha_snap_status st;
	struct stat sb;
	int dfd = -1, got, removed, rc = CPHA_EXIT_FAIL, r;
	bool placed = false;

	c = cpha_load(file);
	if (!c)
		goto out;
	if (!o.dir)
		o.dir = c->snap.dir ? c->snap.dir : SNAPSHOT_DEFAULT_DIR;
	if (!o.keep)
		o.keep = c->snap.keep ? c->snap.keep : SNAPSHOT_DEFAULT_KEEP;
	if (!nendpoints) {
		if (!c->netcd) {
			fprintf(stderr, "cpha etcd snapshot: %s: no etcd member\n", file);
			goto out;
		}
		urls = calloc(c->netcd, sizeof(*urls));
		for (size_t i = 0; urls && i < c->netcd; i++) {
			char url[CPHA_ADDR_STRLEN + 32];

			urls[i] = strdup(cpha_etcd_url(c, i, false, url, sizeof(url)));
			if (!urls[i])
				break;
			nendpoints++;
		}
		if (nendpoints != c->netcd) {
			fprintf(stderr, "cpha etcd snapshot: out of memory\n");
			goto out;
		}
		endpoints = (const char *const *)urls;
	}
	if (cpha_etcd_pki_check("cpha etcd snapshot", o.pki) < 0)
		goto out;
	if (strlen(o.dir) > 4000) {
		fprintf(stderr, "cpha etcd snapshot: --dir: too long a path\n");
		goto out;
	}
	if (make_dir(o.dir) < 0)
		goto out;
	dfd = open(o.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd == -1) {
		fprintf(stderr, "cpha etcd snapshot: %s: %s\n", o.dir, strerror(errno));
		goto out;
	}
	/* one run at a time in a directory: names, partial files, retention */
	if (flock(dfd, LOCK_EX | LOCK_NB) == -1) {
		fprintf(stderr, "cpha etcd snapshot: %s: %s\n", o.dir,
			errno == EWOULDBLOCK ? "another cpha etcd snapshot is writing there"
					     : strerror(errno));
		goto out;
	}
	remove_parts(dfd, o.dir);
	if (new_name(dfd, o.dir, name, sizeof(name)) < 0)
		goto out;
	snprintf(part, sizeof(part), ".%s.part", name);
	snprintf(part_path, sizeof(part_path), "%s/%s", o.dir, part);
	snprintf(path, sizeof(path), "%s/%s", o.dir, name);
	snprintf(side, sizeof(side), "%s" SNAPSHOT_SIDECAR, path);

	got = save(&o, endpoints, nendpoints, dfd, part, part_path);
	if (got < 0)
		goto out;
	if (cpha_etcd_snap_status(part_path, &st, why, sizeof(why)) < 0) {
		fprintf(stderr, "cpha etcd snapshot: %s (from %s): %s\n", part_path, endpoints[got],
			why);
		goto out;
	}
	r = cpha_digest_file(part_path, hex);
	if (r < 0 || stat(part_path, &sb) == -1) {
		fprintf(stderr, "cpha etcd snapshot: %s: %s\n", part_path,
			strerror(r < 0 ? -r : errno));
		goto out;
	}
	snapshot_sidecar_text(hex, name, side_text, sizeof(side_text));
	r = cpha_write_file_atomic(side, side_text, strlen(side_text), 0600, (uid_t)-1, (gid_t)-1);
	if (r < 0) {
		fprintf(stderr, "cpha etcd snapshot: %s: %s\n", side, strerror(-r));
		goto out;
	}
	if (rename_noreplace(dfd, part, name) == -1) {
		fprintf(stderr, "cpha etcd snapshot: %s: %s\n", path, strerror(errno));
		unlink(side);
		goto out;
	}
	placed = true;
	if (fsync(dfd) == -1)
		fprintf(stderr, "cpha etcd snapshot: %s: fsync: %s\n", o.dir, strerror(errno));
	removed = apply_keep(dfd, o.dir, o.keep, name);
	printf("%s: revision %llu, %llu keys, %lld bytes, sha256 %s, from %s; %d older "
	       "removed (keep %u)\n",
		path, st.revision, st.keys, (long long)sb.st_size, hex, endpoints[got],
		removed < 0 ? 0 : removed, o.keep);
	rc = removed < 0 ? CPHA_EXIT_FAIL : CPHA_EXIT_OK;
out:
	if (dfd != -1 && !placed && part[0])
		unlinkat(dfd, part, 0);
	if (dfd != -1)
		close(dfd);
	for (size_t i = 0; urls && c && i < c->netcd; i++)
		free(urls[i]);
	free(urls);
	if (c)
		cluster_free(c);
	return rc;
}

/* ---- verify ---- */

static int verify(int argc, char **argv, bool no_sidecar)
{
	int rc = CPHA_EXIT_OK;

	for (int i = 0; i < argc; i++)
		if (cpha_etcd_verify_one(argv[i], no_sidecar) < 0)
			rc = CPHA_EXIT_FAIL;
	fflush(stdout);
	return rc;
}

int cmd_etcd(int argc, char **argv, const char *file)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "keep", required_argument, NULL, 'k' },
		{ "pki", required_argument, NULL, 'p' },
		{ "endpoint", required_argument, NULL, 'e' },
		{ "no-sidecar", no_argument, NULL, 'n' },
		{ "name", required_argument, NULL, 'N' },
		{ "data-dir", required_argument, NULL, 'D' },
		{ "dry-run", no_argument, NULL, 'r' },
		{ "file", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct snap_opts o = { .pki = RENDER_PKI_ETCD };
	struct etcd_restore_opts ro = { 0 };
	bool no_sidecar = false, snap_only = false, verify_only = false, restore_only = false;
	bool pki_given = false, dry_run = false;
	const char *what;
	char *end;
	int ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "f:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			if (!*optarg) {
				fprintf(stderr, "cpha etcd: --dir: empty\n");
				return CPHA_EXIT_USAGE;
			}
			o.dir = optarg;
			snap_only = true;
			break;
		case 'k': {
			unsigned long v;

			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-' || v < 1 ||
				v > SNAPSHOT_KEEP_MAX) {
				fprintf(stderr,
					"cpha etcd: --keep %s: give a whole number from 1 to %u\n",
					optarg, SNAPSHOT_KEEP_MAX);
				return CPHA_EXIT_USAGE;
			}
			o.keep = (unsigned)v;
			snap_only = true;
			break;
		}
		case 'p':
			o.pki = optarg;
			pki_given = true;
			break;
		case 'e':
			if (strncmp(optarg, "https://", 8) != 0 &&
				strncmp(optarg, "http://", 7) != 0) {
				fprintf(stderr,
					"cpha etcd: --endpoint %s: give a URL, "
					"https://ADDRESS:PORT\n",
					optarg);
				return CPHA_EXIT_USAGE;
			}
			if (o.nendpoints == MAX_ENDPOINTS) {
				fprintf(stderr, "cpha etcd: more than %d --endpoint\n",
					MAX_ENDPOINTS);
				return CPHA_EXIT_USAGE;
			}
			o.endpoints[o.nendpoints++] = optarg;
			snap_only = true;
			break;
		case 'n':
			no_sidecar = true;
			break;
		case 'N':
			ro.name = optarg;
			restore_only = true;
			break;
		case 'D':
			ro.data_dir = optarg;
			restore_only = true;
			break;
		case 'r':
			dry_run = true;
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
	if (optind >= argc) {
		usage(stderr);
		return CPHA_EXIT_USAGE;
	}
	what = argv[optind++];
	verify_only = no_sidecar;
	if (!strcmp(what, "snapshot")) {
		if (verify_only || restore_only) {
			fprintf(stderr,
				"cpha etcd snapshot: --no-sidecar, --name and --data-dir are "
				"verify's and restore's\n");
			return CPHA_EXIT_USAGE;
		}
		if (dry_run) {
			fprintf(stderr, "cpha etcd snapshot: --dry-run is remove's\n");
			return CPHA_EXIT_USAGE;
		}
		if (optind < argc) {
			fprintf(stderr, "cpha etcd snapshot: unexpected argument '%s'\n",
				argv[optind]);
			return CPHA_EXIT_USAGE;
		}
		return snapshot(file, &o);
	}
	if (!strcmp(what, "restore")) {
		if (snap_only || pki_given) {
			fprintf(stderr, "cpha etcd restore: --dir, --keep and --endpoint are "
					"snapshot's, --pki snapshot's and remove's\n");
			return CPHA_EXIT_USAGE;
		}
		if (dry_run) {
			fprintf(stderr, "cpha etcd restore: --dry-run is remove's\n");
			return CPHA_EXIT_USAGE;
		}
		if (optind + 1 != argc) {
			fprintf(stderr, "cpha etcd restore: give one snapshot file\n");
			return CPHA_EXIT_USAGE;
		}
		ro.snapshot = argv[optind];
		ro.no_sidecar = no_sidecar;
		return cpha_etcd_restore(file, &ro);
	}
	if (!strcmp(what, "verify")) {
		if (restore_only) {
			fprintf(stderr, "cpha etcd verify: --name and --data-dir are restore's\n");
			return CPHA_EXIT_USAGE;
		}
		if (snap_only || pki_given) {
			fprintf(stderr, "cpha etcd verify: --dir, --keep and --endpoint are "
					"snapshot's, --pki snapshot's and remove's\n");
			return CPHA_EXIT_USAGE;
		}
		if (dry_run) {
			fprintf(stderr, "cpha etcd verify: --dry-run is remove's\n");
			return CPHA_EXIT_USAGE;
		}
		if (optind >= argc) {
			fprintf(stderr, "cpha etcd verify: give the snapshot files\n");
			return CPHA_EXIT_USAGE;
		}
		return verify(argc - optind, argv + optind, no_sidecar);
	}
	if (!strcmp(what, "remove")) {
		struct etcd_remove_opts rm = { .pki = o.pki, .dry_run = dry_run };

		if (snap_only) {
			fprintf(stderr,
				"cpha etcd remove: --dir, --keep and --endpoint are snapshot's\n");
			return CPHA_EXIT_USAGE;
		}
		if (no_sidecar || restore_only) {
			fprintf(stderr, "cpha etcd remove: --no-sidecar, --name and --data-dir are "
					"verify's and restore's\n");
			return CPHA_EXIT_USAGE;
		}
		if (optind >= argc) {
			fprintf(stderr, "cpha etcd remove: give the names of the members to "
					"remove\n");
			return CPHA_EXIT_USAGE;
		}
		for (int i = optind; i < argc; i++)
			if (!*argv[i]) {
				fprintf(stderr, "cpha etcd remove: an empty name\n");
				return CPHA_EXIT_USAGE;
			}
		rm.names = (const char *const *)argv + optind;
		rm.nnames = (size_t)(argc - optind);
		return cpha_etcd_remove(file, &rm);
	}
	fprintf(stderr, "cpha etcd: unknown command '%s'\n", what);
	usage(stderr);
	return CPHA_EXIT_USAGE;
}
