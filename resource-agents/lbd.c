/* ocf:cpha:lbd — cpha's load balancer, a clone on the load-balancer hosts. */
#include <signal.h>

#include "lb.h"

static const char *const start_opts[] = { "-db", NULL };
static const char *const check_opts[] = { "-c", "-q", NULL };

static const struct lb_spec spec = {
	.name = "lbd",
	.start = start_opts,
	.check = check_opts,
	.info_name = "lbd",
	.reload_signal = SIGHUP,
};

static const struct ocf_param params[] = {
	{ .name = "binary",
		.type = OCF_STRING,
		.def = "/usr/sbin/lbd",
		.shortdesc = "Path of the lbd executable",
		.longdesc = "Absolute path of lbd. A change restarts lbd." },
	{ .name = "config",
		.type = OCF_STRING,
		.def = "/etc/lbd/lbd.cfg",
		.flags = OCF_P_UNIQUE,
		.shortdesc = "lbd configuration file",
		.longdesc = "Absolute path of the configuration (HAProxy's language, "
			    "lbd.cfg(5)). validate-all, start and reload run lbd -c -q -f on it "
			    "first. Two lbd resources cannot share one file." },
	LB_PARAMS("lbd"),
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
	.name = "lbd",
	.version = CPHA_VERSION,
	.shortdesc = "lbd load balancer for the Kubernetes API (cpha)",
	.longdesc = "Runs lbd -db -f CONFIG detached, with a pid file; meant to run as a clone "
		    "on the load-balancer hosts. validate-all and start run lbd -c -q -f CONFIG "
		    "(a refused file is OCF_ERR_ARGS: a file of this node). monitor checks the "
		    "process, \"show info\" on the admin socket (the stats socket of the "
		    "configuration, or the socket parameter) and, with check_address, a TCP "
		    "connect; it tries three times before calling it failed. reload (Pacemaker "
		    "calls it when only non-unique parameters change, e.g. config_version) runs "
		    "lbd -c, sends SIGHUP and confirms it through the reload counter: listening "
		    "sockets and established sessions are kept. A reload lbd refuses leaves the "
		    "previous configuration running and the monitor reports OCF_DEGRADED until "
		    "a reload succeeds. A changed binary, config or options restarts lbd. stop "
		    "sends SIGTERM (sessions are closed), then SIGKILL.",
	.params = params,
	.actions = actions,
	.data = &spec,
};

int main(int argc, char **argv, char **envp)
{
	return ocf_main(&agent, argc, argv, envp);
}
