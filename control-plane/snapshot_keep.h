/* etcd snapshots in a directory: their names, their sidecars and which of
 * them to keep.
 * No I/O: `cpha etcd snapshot` (etcd_cmd.c) lists the directory, asks
 * snapshot_keep() and deletes what it returns.
 *
 * A snapshot is named etcd-snapshot-YYYYMMDDTHHMMSSZ.db, the UTC time it was
 * taken (ISO 8601 basic format), so that names sort as times do and
 * sha256sum(1) and ls(1) show them in order. Its sidecar, NAME.sha256,
 * holds "HEX  NAME\n" as sha256sum(1) writes it. Any other name in the
 * directory is not a snapshot and is never touched. */
#ifndef CPHA_SNAPSHOT_KEEP_H
#define CPHA_SNAPSHOT_KEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SNAPSHOT_PREFIX            "etcd-snapshot-"
#define SNAPSHOT_SUFFIX            ".db"
#define SNAPSHOT_SIDECAR           ".sha256" /* appended to the snapshot's name */
/* bytes of a snapshot's name, without the NUL */
#define SNAPSHOT_NAME_LEN          (sizeof(SNAPSHOT_PREFIX "YYYYMMDDTHHMMSSZ" SNAPSHOT_SUFFIX) - 1)
#define SNAPSHOT_DEFAULT_DIR       "/var/lib/etcd-snapshots"
#define SNAPSHOT_DEFAULT_KEEP      8
#define SNAPSHOT_DEFAULT_EVERY_SEC (30 * 60) /* etcd.snapshot.every */
#define SNAPSHOT_EVERY_MIN_SEC     60
#define SNAPSHOT_KEEP_MAX          100000 /* the largest K taken (--keep, etcd.snapshot.keep) */

/* Whether name is a snapshot's: the exact form above with a real date and
 * time (month 01-12, a day the month has, hour 00-23, minute and second
 * 00-59). When it is and when is not NULL, *when is that time in seconds
 * since the epoch. */
bool snapshot_name_time(const char *name, int64_t *when);

/* The snapshot name of time t (seconds since the epoch), into buf of at
 * least SNAPSHOT_NAME_LEN + 1 bytes. Returns buf, or NULL for a time out of
 * the years 0000-9999 or a buffer too small. */
char *snapshot_name(int64_t t, char *buf, size_t len);

/* Whether name is a partial snapshot that `cpha etcd snapshot` writes
 * before it moves it into place: "." SNAPSHOT ".part", or etcdctl's own
 * temporary file beside that, "." SNAPSHOT ".part.part". Left over only
 * when a run was killed. */
bool snapshot_part_name(const char *name);

/* The text of the sidecar of snapshot file name (its base name) whose
 * SHA-256 is hex: "HEX  NAME\n", as sha256sum(1) writes it. Returns 0, or
 * -1 when len is too small. */
int snapshot_sidecar_text(const char *hex, const char *name, char *buf, size_t len);

/* Read a sidecar's text: one line "HEX  NAME" or "HEX *NAME" (sha256sum's
 * binary mark), HEX 64 hex digits, a final newline optional. Lower-case
 * HEX goes to hex, NAME to name (len bytes). Returns 0, or -1 with *why
 * saying what is wrong. */
int snapshot_sidecar_parse(
	const char *text, char hex[65], char *name, size_t len, const char **why);

/* Retention: which of the n names of a directory to delete so that the K
 * newest snapshots (by the time in their names) stay. Names that are not
 * snapshots' are never chosen. A name given twice is one snapshot: it is
 * chosen at most once, and never when it is kept. protect, when not NULL,
 * is a snapshot's name that is always kept and counts as one of the K (the
 * one just taken, even when the clock has gone back and others look newer).
 * keep >= 1. Writes the indexes into names of the ones to delete to del
 * (room for n), oldest first, and returns how many. */
size_t snapshot_keep(
	const char *const *names, size_t n, unsigned keep, const char *protect, size_t *del);

#endif
