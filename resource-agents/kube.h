/* What the kube-apiserver, kube-controller-manager and kube-scheduler agents
 * share: the command line from the "args" parameter and/or a systemd
 * EnvironmentFile (KUBE_APISERVER_ARGS=...), the detached daemon and its pid
 * file, start that waits for health, stop that lets a graceful shutdown run
 * inside the stop timeout, and HTTPS health probes on 127.0.0.1. */
#ifndef CPHA_KUBE_H
#define CPHA_KUBE_H

#include <stdbool.h>
#include <stddef.h>

#include "ocf.h"
#include "ocf_args.h"
#include "ocf_probe.h"
#include "ocf_proc.h"

struct kube;

struct kube_spec {
	const char *component;  /* "kube-apiserver" */
	unsigned default_port;  /* --secure-port when the flags do not set it */
	const char *live_path;  /* monitor: failing means the process is broken */
	const char *ready_path; /* start waits for it; monitor: not ready is degraded
				 * (NULL: the same as live_path) */
	/* Add flags the agent owns (kcm, scheduler: --leader-elect). Returns
	 * an OCF code. NULL: none. */
	int (*adjust)(struct kube *k);
	/* Checks of the component's own flags (validate-all, start). Returns
	 * an OCF code. NULL: none. */
	int (*validate)(struct kube *k);
};

struct kube {
	struct ocf_ctx *c;
	const struct kube_spec *spec;
	const char *binary;
	struct ocf_strv file_args; /* flags from the environment file (this node) */
	struct ocf_strv cib_args;  /* flags from the "args" parameter (the CIB) */
	struct ocf_strv argv;      /* binary, file_args, cib_args, added flags */
	struct ocf_kvlist env;     /* the environment file's variables */
	struct ocf_strv envp;      /* the daemon's environment: PATH, the agent's TMPDIR
				    * when set, the environment file's variables */
	char *pidfile, *statefile, *logfile;
	struct ocf_daemon d;
	struct ocf_http_req probe; /* address, port and TLS of the probes */
	bool loaded;               /* argv built from the parameters */
	off_t log_start;           /* size of the log file when the daemon started */
};

/* Parameters every kube agent declares, in this order. */
#define KUBE_PARAMS(component, envvar, port_text)                                                  \
	{ .name = "binary",                                                                        \
		.type = OCF_STRING,                                                                \
		.def = "/usr/bin/" component,                                                      \
		.shortdesc = "Path of the " component " executable",                               \
		.longdesc = "Absolute path of the " component " executable. The monitor "          \
			    "recognises the process by it (/proc/PID/exe or the script an "        \
			    "interpreter runs), so a recycled pid is never taken for it." },       \
		{ .name = "args",                                                                  \
			.type = OCF_STRING,                                                        \
			.def = "",                                                                 \
			.shortdesc = "The operator's command-line flags",                          \
			.longdesc =                                                                \
				"The flags of " component " as one string, written as on the "     \
				"ExecStart= line of a systemd unit: words separated by blanks, "   \
				"'...' and \"...\" quoting, no variable expansion. They come "     \
				"after the flags of envfile, so they win where both set a "        \
				"flag." },                                                         \
		{ .name = "envfile",                                                               \
			.type = OCF_STRING,                                                        \
			.def = "",                                                                 \
			.shortdesc = "systemd EnvironmentFile with the flags",                     \
			.longdesc =                                                                \
				"A file read like systemd's EnvironmentFile= (KEY=VALUE lines, "   \
				"# comments, quotes, backslash continuation). The variable named " \
				"by envvar holds the flags (split into words like $" envvar        \
				" in ExecStart=); every variable of the file is also put in the "  \
				"daemon's environment (which is otherwise PATH, and TMPDIR when "  \
				"the agent has one). Empty: no file." },                           \
		{ .name = "envvar",                                                                \
			.type = OCF_STRING,                                                        \
			.def = envvar,                                                             \
			.shortdesc = "Variable of envfile holding the flags",                      \
			.longdesc = "Name of the variable of envfile whose value is the command "  \
				    "line flags." },                                               \
		{ .name = "port",                                                                  \
			.type = OCF_INTEGER,                                                       \
			.shortdesc = "HTTPS port of the health probes",                            \
			.longdesc = "Port the monitor probes. Default: the --secure-port flag, "   \
				    "else " port_text "." },                                       \
		{ .name = "address",                                                               \
			.type = OCF_STRING,                                                        \
			.shortdesc = "Address of the health probes",                               \
			.longdesc =                                                                \
				"Address the monitor connects to. Default: the --bind-address "    \
				"flag when it names one address, else 127.0.0.1." },               \
		{ .name = "server_name",                                                           \
			.type = OCF_STRING,                                                        \
			.shortdesc = "Name checked in the serving certificate",                    \
			.longdesc =                                                                \
				"With ca set: the name the probe expects in the server's "         \
				"certificate (sent as SNI and Host; the connection still goes to " \
				"address). Empty: the address itself must be in the "              \
				"certificate." },                                                  \
		{ .name = "ca",                                                                    \
			.type = OCF_STRING,                                                        \
			.shortdesc = "CA file verifying the serving certificate",                  \
			.longdesc =                                                                \
				"PEM file of the CA the probes verify the server with. Empty: "    \
				"the probes do not verify the certificate (the health endpoints "  \
				"are public; a probe checks the process, not the peer)." },        \
		{ .name = "cert",                                                                  \
			.type = OCF_STRING,                                                        \
			.shortdesc = "Client certificate of the probes",                           \
			.longdesc = "PEM client certificate the probes present (needed when "      \
				    "anonymous requests are refused). Empty: none." },             \
		{ .name = "key",                                                                   \
			.type = OCF_STRING,                                                        \
			.shortdesc = "Key of the client certificate",                              \
			.longdesc = "PEM private key of cert. Empty: cert holds the key." },       \
		OCF_PARAM_LOGFILE("/var/log/cpha/" component ".log"), OCF_PARAM_PIDDIR

/* The leader_elect parameter of kube-controller-manager and kube-scheduler. */
#define KUBE_PARAM_LEADER_ELECT                                                                    \
	{                                                                                          \
		.name = "leader_elect", .type = OCF_BOOLEAN, .def = "true",                        \
		.shortdesc = "Keep Lease leader election on as a second guard",                    \
		.longdesc = "Pacemaker runs one instance; leader election through the "            \
			    "apiserver's Lease keeps a second one (a node not yet fenced, an "     \
			    "operator's manual start) from acting. true adds "                     \
			    "--leader-elect=true, false adds --leader-elect=false, unless the "    \
			    "flags already set --leader-elect (the operator's flag wins)."         \
	}

/* kube_spec.adjust of kube-controller-manager and kube-scheduler: adds
 * --leader-elect=<leader_elect> unless the flags set it. */
int kube_adjust_leader_elect(struct kube *k);

/* Set k up for c: paths, and the command line from the parameters (or, for
 * monitor and stop, the one saved when the daemon was started). Returns an
 * OCF code (an exit reason was printed when it is not OK). */
int kube_init(struct kube *k, struct ocf_ctx *c, const struct kube_spec *spec);
void kube_free(struct kube *k);

/* The value of flag name in the command line; *from_file tells whether it
 * came from the environment file (a local file) or the parameters. */
int kube_flag(
	const struct kube *k, const char *name, bool boolean, const char **value, bool *from_file);

/* Append a flag the agent owns. Returns 0 or -ENOMEM. */
int kube_add_flag(struct kube *k, const char *flag);

/* The exit code for a problem in a flag: NOT_CONFIGURED when it came from
 * the CIB, INVALID_PARAM when from this node's environment file. */
int kube_flag_rc(bool from_file);

/* Check that a file named by a flag exists and can be read. */
int kube_check_file(const char *flag, const char *path);

/* The actions. */
int kube_validate(struct kube *k);
int kube_start(struct kube *k);
int kube_stop(struct kube *k);
int kube_monitor(struct kube *k);

/* The action table entries all kube agents share (c->agent->data is the
 * agent's struct kube_spec). */
int kube_action_start(struct ocf_ctx *c);
int kube_action_stop(struct ocf_ctx *c);
int kube_action_monitor(struct ocf_ctx *c);
int kube_action_validate(struct ocf_ctx *c);

#endif
