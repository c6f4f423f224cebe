/* ocf:cpha:haproxy — an external HAProxy under Pacemaker (the design allows
 * it in place of lbd), in master-worker mode. */
#include <signal.h>

#include "lb.h"

/* master-worker in the foreground: the pid file names the master, which
 * re-executes itself on SIGUSR2 and hands the listening sockets to the new
 * workers (sockpair@, HAProxy >= 1.9); old workers finish their sessions. */
static const char *const start_opts[] = { "-W", "-db", NULL };
/* without -q: HAProxy prints the [ALERT] lines of a refused file only then */
static const char *const check_opts[] = { "-c", NULL };

static const struct lb_spec spec = {
	.name = "haproxy",
	.start = start_opts,
	.check = check_opts,
	.info_name = "HAProxy",
	.reload_signal = SIGUSR2,
	.master_cli = true,
};

static const struct ocf_param params[] = {
	{ .name = "binary",
		.type = OCF_STRING,
		.def = "/usr/sbin/haproxy",
		.shortdesc = "Path of the haproxy executable",
		.longdesc = "Absolute path of haproxy. A change restarts it." },
	{ .name = "config",
		.type = OCF_STRING,
		.def = "/etc/haproxy/haproxy.cfg",
		.flags = OCF_P_UNIQUE,
		.shortdesc = "HAProxy configuration file",
		.longdesc = "Absolute path of the configuration. validate-all, start and reload "
			    "run haproxy -c -f on it first. Two haproxy resources cannot "
			    "share one file." },
	LB_PARAMS("haproxy"),
	{ .name = NULL },
};

static const struct ocf_action actions[] = {
	{ .name = "start", .timeout_s = 30, .fn = lb_action_start },
	{ .name = "stop", .timeout_s = 30, .fn = lb_action_stop },
	{ .name = "monitor", .timeout_s = 20, .interval_s = 10, .fn = lb_action_monitor },
	{ .name = "reload", .timeout_s = 30, .fn = lb_action_reload },
	{ .name = "validate-all", .timeout_s = 30, .fn = lb_action_validate },
	{ .name = NULL },
};

static const struct ocf_agent agent = {
	.name = "haproxy",
	.version = CPHA_VERSION,
	.shortdesc = "HAProxy in master-worker mode (cpha)",
	.longdesc = "Runs haproxy -W -db -f CONFIG -S PIDDIR/haproxy-RSC.master.sock detached, "
		    "with a pid file naming the master; meant to run as a clone on the "
		    "load-balancer hosts. validate-all and start run haproxy -c -f CONFIG. "
		    "monitor checks the master process, that the master CLI lists a current "
		    "worker, \"show info\" on the stats socket when the configuration has one "
		    "(or the socket parameter) and, with check_address, a TCP connect; three "
		    "tries before a failure. reload (Pacemaker calls it when only non-unique "
		    "parameters change, e.g. config_version) runs haproxy -c, sends SIGUSR2 to "
		    "the master and confirms the new generation through the master CLI: the "
		    "listening sockets pass to the new workers and the old ones finish their "
		    "sessions, so no connection is refused or dropped. A reload HAProxy refuses "
		    "leaves the previous workers running and the monitor reports OCF_DEGRADED "
		    "until a reload succeeds. stop sends SIGTERM to the master, then SIGKILL.",
	.params = params,
	.actions = actions,
	.data = &spec,
};

int main(int argc, char **argv, char **envp)
{
	return ocf_main(&agent, argc, argv, envp);
}
