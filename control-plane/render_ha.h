/* The files of the load-balancer hosts and of the HA layer, as the render
 * modules render_lb.c, render_ha.c and render_pcs.c make them: what they
 * share (where the daemons listen, the corosync clusters) and the pure
 * parts that unit tests call without running pcs. */
#ifndef CPHA_RENDER_HA_H
#define CPHA_RENDER_HA_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "cluster.h"
#include "render.h"
#include "render_paths.h"

/* The corosync clusters: the masters, and the load-balancer hosts when
 * they are apart from the masters. Etcd-only hosts are in none. */
enum ha_tier {
	HA_TIER_NONE,
	HA_TIER_MASTERS,
	HA_TIER_LBS,
};

/* The tier of host h. */
enum ha_tier ha_tier_of(const struct cp_cluster *c, const struct cp_host *h);

/* The hosts of a tier, in the order of the description. */
size_t ha_tier_count(const struct cp_cluster *c, enum ha_tier t);
const struct cp_host *ha_tier_host(const struct cp_cluster *c, enum ha_tier t, size_t i);

/* True when the hosts of tier t hold the VIP (the LB hosts, or the masters
 * when the load balancer runs on them). */
bool ha_tier_holds_vip(const struct cp_cluster *c, enum ha_tier t);

/* True when the description's quorum device serves the corosync cluster
 * of tier t (cluster_qdevice_serves()): its corosync.conf has
 * quorum.device and no two_node, and its fenced.conf no fence-race
 * delays. */
bool ha_tier_qdevice(const struct cp_cluster *c, enum ha_tier t);

/* render_mon.c: the daemons' /metrics and /status listeners. The web
 * configuration is RENDER_MON_WEB_NAME beside each daemon's configuration. */
#define RENDER_MON_WEB_NAME "metrics-web.yml"
#define RENDER_LBD_WEB      "/etc/lbd/" RENDER_MON_WEB_NAME
#define RENDER_VIPD_WEB     "/etc/vipd/" RENDER_MON_WEB_NAME
#define RENDER_FENCED_WEB   "/etc/fenced/" RENDER_MON_WEB_NAME
/* prometheus-haproxy-exporter's (Debian's package reads ARGS from its
 * /etc/default file) */
#define RENDER_HAPROXY_EXPORTER_WEB  "/etc/haproxy/exporter-" RENDER_MON_WEB_NAME
#define RENDER_HAPROXY_EXPORTER_ARGS "/etc/default/prometheus-haproxy-exporter"

/* The address:port a daemon of host h listens on for port (monitoring.listen:
 * 127.0.0.1 or [::1] by default, the host's address, or the one given). */
char *render_mon_bind(
	const struct cp_cluster *c, const struct cp_host *h, unsigned port, char *buf, size_t len);

/* Where a client (cpha status) reaches the listener of host h, without the
 * port: the host's address (listen: host, 0.0.0.0, ::), the address given,
 * or loopback, which only a client on h itself (local) can use: false for
 * any other. Pure. */
bool render_mon_reach(
	const struct cp_cluster *c, const struct cp_host *h, bool local, struct cpha_addr *out);

/* True when the description asks for basic auth or TLS: a web file is written. */
bool render_mon_web(const struct cp_cluster *c);

/* The lines of a daemon's global section: a comment (cmt: "#" or "!"),
 * "BIND_KW address:port", and "WEB_KW metrics-web.yml" when there is a web
 * configuration. */
void render_mon_lines(const struct cp_cluster *c, const struct cp_host *h, const char *bind_kw,
	const char *web_kw, unsigned port, const char *cmt, struct cpha_buf *b);

/* The web configuration of daemon on host h (render_mon_web() true). */
void render_mon_web_file(const struct cp_cluster *c, const struct cp_host *h, const char *daemon,
	struct cpha_buf *b);

/* True when fenced hands its fencing to Pacemaker on this tier (masters
 * under manager: pacemaker). */
bool ha_tier_fence_via_pacemaker(const struct cp_cluster *c, enum ha_tier t);

/* corosync.conf and fenced.conf of every host of a corosync cluster, with
 * no I/O (render_ha() adds the Pacemaker files to these). Returns 0, or -1
 * after adding an error to d. */
int render_ha_files(const struct cp_cluster *c, struct render_set *s, struct cpha_msgs *d);

/* One pcs command line: argv words after "pcs". */
struct pcs_cmd {
	char **argv; /* NULL-terminated */
	size_t argc;
	char *comment;  /* printed above it in the script, or NULL */
	unsigned flags; /* PCS_CMD_* */
};

#define PCS_CMD_OCF_CPHA (1u << 0) /* creates an ocf:cpha resource (agent may be absent) */

struct pcs_cmds {
	struct pcs_cmd *v;
	size_t n;
	char **cpha_agents; /* the ocf:cpha agents the commands use, NULL-terminated */
	size_t nagents;
};

/* The pcs commands that configure the masters' Pacemaker cluster for c
 * (manager: pacemaker), in order. Pure. Returns 0, or -1 after adding an
 * error to d (a fence device parameter that would put a secret in the
 * CIB, etcd members that Pacemaker cannot run). */
int render_pcs_commands(const struct cp_cluster *c, struct pcs_cmds *out, struct cpha_msgs *d);

void render_pcs_free(struct pcs_cmds *p);

/* The shell script of the commands (set -e, PCS=${PCS:-pcs}). Pure. */
void render_pcs_script(const struct cp_cluster *c, const struct pcs_cmds *p, struct cpha_buf *b);

/* A tool cib.xml is made with, and the Debian package that ships it. */
struct render_tool {
	const char *name;
	const char *package;
};

/* The first tool render_pcs_cib() runs that have() says is not installed,
 * or NULL when every one is. Pure (have answers). */
const struct render_tool *render_pcs_cib_missing(bool (*have)(const char *tool));

/* The CIB the commands make, by running them with `pcs -f` on an empty
 * CIB (cibadmin --empty) holding the masters as nodes, offline; epochs and
 * times normalised so that the same description gives the same bytes.
 * Returns 0, or -1 after adding an error to d. */
int render_pcs_cib(const struct cp_cluster *c, const struct pcs_cmds *p, struct cpha_buf *out,
	struct cpha_msgs *d);

#endif
