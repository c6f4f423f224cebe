/* cpha status, the etcd snapshots: how many `cpha etcd snapshot` keeps in
 * etcd.snapshot.dir on this host, and the newest one's age. Only names are
 * read (snapshot_keep.h's form); cpha etcd verify checks the files. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "duration.h"
#include "snapshot_keep.h"
#include "status.h"

void status_collect_snaps(const struct cp_cluster *c, int64_t now, struct st_snapshot *s)
{
	struct st_snaps *n = &s->snaps;
	struct dirent *de;
	DIR *d;

	if (!c->snap.on)
		return;
	d = opendir(c->snap.dir);
	if (!d && errno == ENOENT)
		return; /* not an etcd member, or no snapshot taken here yet */
	n->read = true;
	snprintf(n->dir, sizeof(n->dir), "%s", c->snap.dir);
	n->every_sec = c->snap.every_usec / CPHA_USEC_PER_SEC;
	if (!d) {
		snprintf(n->error, sizeof(n->error), "%s", strerror(errno));
		return;
	}
	while ((de = readdir(d))) {
		int64_t t;

		if (!snapshot_name_time(de->d_name, &t))
			continue;
		n->count++;
		if (!*n->newest || t > n->newest_time) {
			snprintf(n->newest, sizeof(n->newest), "%.*s", (int)sizeof(n->newest) - 1,
				de->d_name);
			n->newest_time = t;
		}
	}
	closedir(d);
	if (*n->newest)
		n->newest_age = now - n->newest_time;
}
