/* What the lbd and haproxy agents share: a configuration in HAProxy's
 * language checked with "-c" before every start and reload, the daemon in
 * the foreground under a pid file, the stats / admin socket, and a reload
 * that keeps the listening sockets (no connection refused or dropped). */
#ifndef CPHA_LB_H
#define CPHA_LB_H

#include <stdbool.h>
#include <stddef.h>

#include "ocf.h"
#include "ocf_proc.h"

struct lb;

struct lb_spec {
	const char *name;         /* "lbd", "haproxy" */
	const char *const *start; /* options before -f CONFIG ({ "-db", NULL }) */
	const char *const *check; /* options of the check ({ "-c", "-q", NULL }) */
	const char *info_name;    /* "show info" answers "Name: <info_name>" */
	int reload_signal;        /* SIGHUP (lbd), SIGUSR2 (HAProxy's master) */
	bool master_cli;          /* HAProxy: -S <piddir>/<name>.master.sock */
};

struct lb {
	struct ocf_ctx *c;
	const struct lb_spec *spec;
	const char *binary;
	const char *config;
	char *socket;           /* stats / admin socket (parameter or configuration), or NULL */
	char *master;           /* HAProxy's master CLI socket, or NULL */
	struct ocf_strv argv;   /* the command line the parameters ask for */
	const char *argv_error; /* why options did not parse, or NULL */
	struct ocf_strv saved;  /* the one the running daemon was started with */
	struct ocf_strv envp;
	char *pidfile, *statefile, *logfile, *refused;
	struct ocf_daemon d;
	off_t log_start; /* size of the log file when the daemon started or was signalled */
};

/* Parameters both agents declare (after binary and config). */
#define LB_PARAMS(prog)                                                                            \
	{ .name = "socket",                                                                        \
		.type = OCF_STRING,                                                                \
		.shortdesc = "Stats / admin socket the monitor queries",                           \
		.longdesc = "UNIX socket answering \"show info\". Default: the first "             \
			    "\"stats socket\" path of the configuration's global section; "        \
			    "none there: the monitor does not query one." },                       \
		{ .name = "check_address",                                                         \
			.type = OCF_STRING,                                                        \
			.shortdesc = "address:port the monitor connects to",                       \
			.longdesc =                                                                \
				"A bind address of the configuration (\"198.18.0.10:6443\", "      \
				"\"[2001:db8::10]:6443\"); the monitor opens and closes a TCP "    \
				"connection to it. Empty: no connection test." },                  \
		{ .name = "options",                                                               \
			.type = OCF_STRING,                                                        \
			.def = "",                                                                 \
			.shortdesc = "Extra command-line options",                                 \
			.longdesc = "More options for " prog ", split like a shell command line "  \
				    "(\"-d\"). A change restarts " prog "." },                     \
		{ .name = "config_version",                                                        \
			.type = OCF_STRING,                                                        \
			.def = "",                                                                 \
			.shortdesc = "Change it to reload the configuration",                      \
			.longdesc =                                                                \
				"Not used by " prog ". After editing the configuration file, "     \
				"change this value (pcs resource update RSC config_version=N): "   \
				"Pacemaker then calls reload, which checks the file and reloads "  \
				"without dropping connections, instead of a restart." },           \
		OCF_PARAM_LOGFILE("/var/log/cpha/" prog ".log"), OCF_PARAM_PIDDIR

/* Set l up for c. Returns an OCF code (exit reason printed when not OK). */
int lb_init(struct lb *l, struct ocf_ctx *c, const struct lb_spec *spec);
void lb_free(struct lb *l);

/* The action table entries (c->agent->data is the agent's struct lb_spec). */
int lb_action_start(struct ocf_ctx *c);
int lb_action_stop(struct ocf_ctx *c);
int lb_action_monitor(struct ocf_ctx *c);
int lb_action_reload(struct ocf_ctx *c);
int lb_action_validate(struct ocf_ctx *c);

#endif
