/* fenced's configuration (/etc/fenced/fenced.conf): keepalived's language
 * (lib/conf_tree.h), fence-agents' parameters. Pure apart from reading the
 * files and checking that secret files can be read: returns structures and
 * messages, logs nothing. fenced_cfg_check_agents() adds what only the
 * agents know (their metadata). */
#ifndef FENCED_CFG_H
#define FENCED_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "addr.h"
#include "cfgdiag.h"

enum fenced_via {
	FENCED_VIA_AGENTS,    /* fenced runs the agents of fenced.conf */
	FENCED_VIA_PACEMAKER, /* pacemaker-fenced does (libstonithd) */
};

enum fenced_action {
	FENCED_ACTION_REBOOT, /* off, verify, on: the default, as Pacemaker's */
	FENCED_ACTION_OFF,
};

/* A parameter of an agent: "KEY VALUE", or "KEY_file PATH" (the value is
 * read from PATH when the agent runs: never on a command line or in a log),
 * or "key=value" after a device in a level. */
struct fenced_param {
	char *key;
	char *value; /* the value, or with from_file the path */
	bool from_file;
	unsigned line; /* a loc: file index and line (lib/cfgdiag.h) */
};

struct fenced_device {
	char *name;
	char *agent; /* fence_ipmilan, or an absolute path */
	struct fenced_param *params;
	size_t nparams;
	unsigned line;
};

/* A device in a level, with its parameters for this node (plug=1). */
struct fenced_use {
	size_t device; /* index in devices */
	char *name;    /* the device's name, as written */
	struct fenced_param *params;
	size_t nparams;
	unsigned line;
};

/* Every device of a level must succeed (two PDU outlets). */
struct fenced_level {
	unsigned number; /* tried in increasing order */
	struct fenced_use *uses;
	size_t nuses;
	unsigned line;
};

struct fenced_node {
	char *name;                  /* the node name in corosync's nodelist */
	struct fenced_level *levels; /* sorted by number */
	size_t nlevels;
	uint64_t delay;              /* us: static delay before fencing this node */
	uint64_t delay_max;          /* us: plus a random delay up to this */
	uint64_t priority_delay_vip; /* us: more delay while this node holds the VIP */
	int unfence;                 /* -1: global default; 0 or 1 */
	unsigned line;
};

struct fenced_global {
	uint64_t post_join_delay; /* us, default 6 s (RHCS) */
	uint64_t post_fail_delay; /* us, default 0 */
	enum fenced_action action;
	enum fenced_via via;      /* fence_via agents|pacemaker */
	uint64_t agent_timeout;   /* us, default 60 s */
	uint64_t retry_interval;  /* us, default 10 s */
	bool clean_start;         /* unsafe: nodes not joined at start-up are not fenced */
	bool unfence;             /* "on" when a fenced node rejoins; default off */
	char *admin_socket;       /* fenced_admin_socket; default /run/fenced/admin.sock */
	char *vip_socket;         /* vip_admin_socket: vipd's, asked who holds the VIP;
				   * default /run/vipd/admin.sock when it exists */
	struct cpha_addr metrics; /* fenced_metrics_bind ADDR:PORT (Prometheus) */
	bool metrics_set;
	struct cpha_webcfg *metrics_web; /* fenced_metrics_web_config FILE (webcfg.h) */
	unsigned metrics_web_loc;        /* where it was given (a cfgdiag loc); 0: not */
	uint64_t power_check_timeout;    /* us, default 5 s: bounds a whole power-check */
};

struct fenced_watchdog {
	bool set;
	char *device;
	uint64_t timeout; /* us */
	unsigned line;
};

struct fenced_config {
	char *file;
	struct fenced_global global;
	struct fenced_device *devices;
	size_t ndevices;
	struct fenced_node *nodes;
	size_t nnodes;
	struct fenced_watchdog watchdog;
	char **notices; /* "file:line: text" */
	size_t nnotices;
	char **files; /* names of the files read, for the locs below */
	size_t nfiles;
};

/* Parse and validate. 0 with *out (notices in it), or -1 with every error
 * in errs, each "file:line: text". */
int fenced_cfg_load(const char *path, struct fenced_config **out, struct cpha_msgs *errs);
int fenced_cfg_load_mem(const char *name, const char *text, size_t len, struct fenced_config **out,
	struct cpha_msgs *errs);
void fenced_cfg_free(struct fenced_config *c);

const struct fenced_node *fenced_cfg_node(const struct fenced_config *c, const char *name);
const struct fenced_device *fenced_cfg_device(const struct fenced_config *c, const char *name);

/* What an agent accepts, from its metadata ("AGENT -o metadata"). */
struct fenced_agent_param {
	char *name;
	bool deprecated;
	char *obsoletes; /* the deprecated name this one replaces, or NULL */
};

struct fenced_agent_meta {
	struct fenced_agent_param *params;
	size_t nparams;
};

/* Read fence-agents metadata XML. 0, or -EINVAL when it has no parameter. */
int fenced_agent_meta_parse(const char *xml, struct fenced_agent_meta *m);
void fenced_agent_meta_free(struct fenced_agent_meta *m);

/* The metadata of an agent: 0 with *m filled, or a negative errno with why
 * (an agent that is not installed, that fails, or that prints no metadata). */
typedef int (*fenced_meta_fn)(
	void *ud, const char *agent, struct fenced_agent_meta *m, char *why, size_t whylen);

/* Check every device's and level entry's parameters against its agent's
 * metadata: an unknown parameter is an error naming it and the agent, a
 * deprecated one a notice naming its replacement. X_file becomes the
 * agent's parameter X_file when it has one (status_file), else stays the
 * secret file of X, which is a notice when it cannot be read. Errors and notices are
 * added to errs and c->notices, each "file:line: text". Returns the number
 * of errors. */
size_t fenced_cfg_check_agents(
	struct fenced_config *c, fenced_meta_fn meta, void *ud, struct cpha_msgs *errs);

/* fenced_meta_fn that runs AGENT -o metadata (found in PATH, /usr/sbin and
 * /sbin), with a timeout of 10 s. */
int fenced_agent_meta_run(
	void *ud, const char *agent, struct fenced_agent_meta *m, char *why, size_t whylen);

#endif
