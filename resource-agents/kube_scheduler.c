/* ocf:cpha:kube-scheduler — active-passive: Pacemaker runs one
 * instance; --leader-elect stays on as a second guard. */
#include "kube.h"

static const struct kube_spec spec = {
	.component = "kube-scheduler",
	.default_port = 10259,
	.live_path = "/healthz",
	.adjust = kube_adjust_leader_elect,
};

static const struct ocf_param params[] = {
	KUBE_PARAMS("kube-scheduler", "KUBE_SCHEDULER_ARGS", "10259"),
	KUBE_PARAM_LEADER_ELECT,
	{ .name = NULL },
};

static const struct ocf_action actions[] = {
	{ .name = "start", .timeout_s = 90, .fn = kube_action_start },
	{ .name = "stop", .timeout_s = 60, .fn = kube_action_stop },
	{ .name = "monitor", .timeout_s = 30, .interval_s = 10, .fn = kube_action_monitor },
	{ .name = "validate-all", .timeout_s = 30, .fn = kube_action_validate },
	{ .name = NULL },
};

static const struct ocf_agent agent = {
	.name = "kube-scheduler",
	.version = CPHA_VERSION,
	.shortdesc = "Kubernetes scheduler (cpha)",
	.longdesc = "Runs kube-scheduler with the operator's flags (the args parameter "
		    "and/or a systemd EnvironmentFile), detached, with a pid file; a single "
		    "instance (active-passive) that Pacemaker moves on failure. --leader-elect "
		    "stays on by default (leader_elect) as a second guard: a new instance acts "
		    "only after the old Lease expired. start waits for /healthz on the secure "
		    "port (10259, self-signed: not verified unless ca is set); monitor checks the "
		    "process and /healthz (three tries); stop is SIGTERM, then SIGKILL when a "
		    "tenth of the stop timeout is left.",
	.params = params,
	.actions = actions,
	.data = &spec,
};

int main(int argc, char **argv, char **envp)
{
	return ocf_main(&agent, argc, argv, envp);
}
