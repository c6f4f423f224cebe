/* `cpha render`, etcd.snapshot: on every etcd member,
 *
 *   HOST:/etc/systemd/system/cpha-etcd-snapshot.service
 *                     `cpha etcd snapshot` once (Type=oneshot): a snapshot of
 *                     etcd into etcd.snapshot.dir, the newest
 *                     etcd.snapshot.keep kept there
 *   HOST:/etc/systemd/system/cpha-etcd-snapshot.timer
 *                     that service every etcd.snapshot.every, the first that
 *                     long after boot
 *
 * The service reads the installed description (for the members, the
 * directory and K) and etcd's client certificate where it is installed.
 * Pure: text from the model. */
#include <stdio.h>

#include "duration.h"
#include "render.h"
#include "render_text.h"

#define put render_text_put

int render_etcd_snapshot(const struct cp_cluster *c, struct render_set *s, struct cpha_msgs *d)
{
	const struct cp_etcd_snapshot *sn = &c->snap;
	char every[32];

	(void)d;
	if (!sn->on)
		return 0;
	cpha_format_duration(sn->every_usec, every, sizeof(every));
	for (size_t i = 0; i < c->netcd; i++) {
		const char *host = c->hosts[c->etcd[i]].name;

		put(render_add(s, host, RENDER_SNAPSHOT_UNIT ".service", 0644, RENDER_CHECK_NONE),
			"# Rendered by `cpha render` from the cluster description.\n"
			"[Unit]\n"
			"Description=etcd snapshot into %s, the newest %u kept (cpha etcd "
			"snapshot)\n"
			"Documentation=man:cpha(1)\n"
			"Wants=network-online.target\n"
			"After=network-online.target\n"
			"\n"
			"[Service]\n"
			"Type=oneshot\n"
			"ExecStart=/usr/bin/cpha -f /etc/cpha/cluster.yaml etcd snapshot\n"
			"# etcd waits for its disk: the copy must not crowd it\n"
			"Nice=10\n"
			"IOSchedulingClass=best-effort\n"
			"IOSchedulingPriority=7\n",
			sn->dir, sn->keep);
		put(render_add(s, host, RENDER_SNAPSHOT_UNIT ".timer", 0644, RENDER_CHECK_NONE),
			"# Rendered by `cpha render` from the cluster description.\n"
			"[Unit]\n"
			"Description=etcd snapshot every %s (cpha etcd snapshot)\n"
			"Documentation=man:cpha(1)\n"
			"\n"
			"[Timer]\n"
			"OnBootSec=%s\n"
			"OnUnitActiveSec=%s\n"
			"\n"
			"[Install]\n"
			"WantedBy=timers.target\n",
			every, every, every);
	}
	return 0;
}
