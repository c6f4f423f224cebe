/* `cpha restart ROLE` and `cpha logs ROLE [-f]`: the right action for the
 * manager the description names, printed before it runs. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpha.h"
#include "run.h"

/* A role, the names it answers to, and where each manager keeps it. */
struct role {
	const char *name;
	const char *aliases[4];
	const char *pcmk;    /* Pacemaker resource (as cpha render's pcs script names it) */
	bool clone;          /* restart only this node's instance */
	const char *unit;    /* systemd unit */
	const char *pod;     /* static pod / container name */
	const char *logfile; /* the OCF agent's log under Pacemaker */
	bool control_plane;  /* run by the manager; else always a systemd unit */
};

static const struct role roles[] = {
	{ "etcd", { NULL }, "etcd-clone", true, "etcd.service", "etcd", "/var/log/cpha/etcd.log",
		true },
	{ "apiserver", { "api", "kube-apiserver", NULL }, "apiserver-clone", true,
		"kube-apiserver.service", "kube-apiserver", "/var/log/cpha/kube-apiserver.log",
		true },
	{ "controllers", { "controller-manager", "kube-controller-manager", "kcm" }, "kcm", false,
		"kube-controller-manager.service", "kube-controller-manager",
		"/var/log/cpha/kube-controller-manager.log", true },
	{ "scheduler", { "kube-scheduler", NULL }, "scheduler", false, "kube-scheduler.service",
		"kube-scheduler", "/var/log/cpha/kube-scheduler.log", true },
	{ "lb", { "load-balancer", "lbd", "haproxy" }, NULL, false, NULL, NULL, NULL, false },
	{ "vip", { "vipd", "keepalived", NULL }, NULL, false, NULL, NULL, NULL, false },
	{ "fenced", { NULL }, NULL, false, "fenced.service", NULL, NULL, false },
	{ "corosync", { NULL }, NULL, false, "corosync.service", NULL, NULL, false },
};

static const struct role *find_role(const char *name)
{
	for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++) {
		if (!strcmp(roles[i].name, name))
			return &roles[i];
		for (size_t k = 0; k < 4 && roles[i].aliases[k]; k++)
			if (!strcmp(roles[i].aliases[k], name))
				return &roles[i];
	}
	return NULL;
}

static void list_roles(FILE *f)
{
	fprintf(f, "roles:");
	for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++)
		fprintf(f, " %s", roles[i].name);
	fprintf(f, "\n");
}

static void usage(FILE *f, bool logs)
{
	if (logs)
		fprintf(f, "usage: cpha logs ROLE [-f] [--file FILE] [--dry-run]\n"
			   "  -f, --follow   keep printing new lines (as journalctl -f)\n"
			   "  --file FILE    the cluster description (-f follows here)\n"
			   "  --dry-run      print the command, do not run it\n");
	else
		fprintf(f,
			"usage: cpha restart ROLE [-f FILE] [--host NAME] [--dry-run]\n"
			"  -f, --file FILE  the cluster description\n"
			"  --host NAME      under Pacemaker, restart NAME's instance of a clone\n"
			"                   (default: this machine's host name)\n"
			"  --dry-run        print the command, do not run it\n");
	list_roles(f);
}

/* The unit of the LB / VIP roles, by the component the description names. */
static const char *unit_of(const struct cp_cluster *c, const struct role *r)
{
	if (!strcmp(r->name, "lb"))
		return c->lb == CP_LB_HAPROXY ? "haproxy.service" : "lbd.service";
	if (!strcmp(r->name, "vip"))
		return c->vipd == CP_VIP_KEEPALIVED ? "keepalived.service" : "vipd.service";
	return r->unit;
}

static void say(const char *const *argv)
{
	printf("cpha: running:");
	for (size_t i = 0; argv[i]; i++)
		printf(" %s", argv[i]);
	printf("\n");
	fflush(stdout);
}

/* This machine's name in the description, for a clone's local instance. */
static const char *node_name(const struct cp_cluster *c, const char *given)
{
	static char name[256];

	if (given)
		return given;
	if (gethostname(name, sizeof(name)) == -1)
		return NULL;
	name[sizeof(name) - 1] = 0;
	if (!cluster_host(c, name))
		name[strcspn(name, ".")] = 0;
	return cluster_host(c, name) ? name : NULL;
}

/* The id crictl gives for a static pod's container (first line), or NULL. */
static char *crictl_id(const char *what, const char *name, bool dry)
{
	const char *argv[] = { "crictl", what, "--name", name, "-q", NULL };
	struct cpha_run_result res;
	char *id;

	say(argv);
	if (dry)
		return strdup("<id>");
	if (run_capture(argv, &res, NULL) < 0)
		return NULL;
	id = res.exited && res.exit_code == 0 ? strndup(res.out, strcspn(res.out, "\n")) : NULL;
	cpha_run_free(&res);
	if (id && !*id) {
		free(id);
		id = NULL;
	}
	if (!id)
		fprintf(stderr, "cpha: no %s named %s on this host\n",
			!strcmp(what, "pods") ? "pod" : "container", name);
	return id;
}

static int act(int argc, char **argv, const char *file, bool logs)
{
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "host", required_argument, NULL, 'H' },
		{ "file", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct option log_opts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "host", required_argument, NULL, 'H' },
		{ "follow", no_argument, NULL, 'F' },
		{ "file", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *host = NULL, *unit, *node;
	const struct role *r;
	struct role pr;
	struct cp_cluster *c;
	bool dry = false, follow = false;
	int ch, rc = CPHA_EXIT_FAIL;

	optind = 1;
	/* "logs ROLE -f" follows, as journalctl -f does; the description is
	 * then given with --file or before the command */
	while (!logs && (ch = getopt_long(argc, argv, "f:nh", opts, NULL)) != -1) {
		switch (ch) {
		case 'n':
			dry = true;
			break;
		case 'H':
			host = optarg;
			break;
		case 'f':
			file = optarg;
			break;
		case 'h':
			usage(stdout, false);
			return CPHA_EXIT_OK;
		default:
			goto usage;
		}
	}
	if (logs) {
		optind = 1;
		while ((ch = getopt_long(argc, argv, "fnh", log_opts, NULL)) != -1) {
			switch (ch) {
			case 'n':
				dry = true;
				break;
			case 'H':
				host = optarg;
				break;
			case 'f':
			case 'F':
				follow = true;
				break;
			case 'D':
				file = optarg;
				break;
			case 'h':
				usage(stdout, true);
				return CPHA_EXIT_OK;
			default:
				goto usage;
			}
		}
	}
	if (optind >= argc)
		goto usage;
	r = find_role(argv[optind]);
	if (!r) {
		fprintf(stderr, "cpha %s: unknown role '%s'; ", argv[0], argv[optind]);
		list_roles(stderr);
		return CPHA_EXIT_USAGE;
	}
	c = cpha_load(file);
	if (!c)
		return CPHA_EXIT_FAIL;
	unit = unit_of(c, r);
	/* what the rendered pcs script makes a Pacemaker resource */
	if (c->manager == CP_MGR_PACEMAKER && !strcmp(r->name, "lb") && c->lb_on_masters) {
		pr = *r;
		pr.pcmk = c->lb == CP_LB_HAPROXY ? "haproxy-clone" : "lbd-clone";
		pr.logfile = c->lb == CP_LB_HAPROXY ? "/var/log/cpha/haproxy.log"
						    : "/var/log/cpha/lbd.log";
		pr.clone = pr.control_plane = true;
		r = &pr;
	} else if (c->vipd == CP_VIP_PACEMAKER && !strcmp(r->name, "vip")) {
		pr = *r;
		pr.pcmk = "vip";
		pr.logfile = "/var/log/pacemaker/pacemaker.log";
		pr.control_plane = true;
		r = &pr;
	}
	if (r->control_plane && c->manager == CP_MGR_PACEMAKER) {
		if (logs) {
			const char *v[] = { "tail", "-n", "200", follow ? "-F" : r->logfile,
				follow ? r->logfile : NULL, NULL };
			say(v);
			rc = dry ? 0 : run_inherit(v);
		} else if (r->clone) {
			node = node_name(c, host);
			if (!node) {
				fprintf(stderr, "cpha restart: this machine's host name is no host "
						"of the description; give --host NAME\n");
				goto out;
			}
			const char *v[] = { "crm_resource", "--restart", "--resource", r->pcmk,
				"--node", node, NULL };
			say(v);
			rc = dry ? 0 : run_inherit(v);
		} else {
			const char *v[] = { "crm_resource", "--restart", "--resource", r->pcmk,
				NULL };
			say(v);
			rc = dry ? 0 : run_inherit(v);
		}
	} else if (r->control_plane && c->manager == CP_MGR_STATIC_PODS && r->pod) {
		/* the kubelet starts a static pod again once its sandbox is stopped */
		char *id = crictl_id(logs ? "ps" : "pods", r->pod, dry);
		if (!id)
			goto out;
		if (logs) {
			const char *v[] = { "crictl", "logs", "--tail", "200", follow ? "-f" : id,
				follow ? id : NULL, NULL };
			say(v);
			rc = dry ? 0 : run_inherit(v);
		} else {
			const char *v[] = { "crictl", "stopp", id, NULL };
			say(v);
			rc = dry ? 0 : run_inherit(v);
		}
		free(id);
	} else if (logs) {
		const char *v[] = { "journalctl", "-u", unit, "-n", "200", follow ? "-f" : NULL,
			NULL };
		say(v);
		rc = dry ? 0 : run_inherit(v);
	} else {
		const char *v[] = { "systemctl", "restart", unit, NULL };
		say(v);
		rc = dry ? 0 : run_inherit(v);
	}
out:
	cluster_free(c);
	return rc;
usage:
	usage(stderr, logs);
	return CPHA_EXIT_USAGE;
}

int cmd_restart(int argc, char **argv, const char *file)
{
	return act(argc, argv, file, false);
}

int cmd_logs(int argc, char **argv, const char *file)
{
	return act(argc, argv, file, true);
}
