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

/* How a role is reached, by the manager that runs it. */
enum how {
	HOW_PCMK,       /* a Pacemaker resource */
	HOW_PCMK_CLONE, /* this node's instance of a Pacemaker clone */
	HOW_POD,        /* a static pod's container */
	HOW_UNIT,       /* a systemd unit */
};

/* What runs for each {manager, verb}. In argv, "@log", "@pcmk", "@node",
 * "@id" and "@unit" are the role's; "?X" is X when following, else left
 * out. */
struct action {
	enum how how;
	bool logs;
	const char *argv[10];
};

static const struct action actions[] = {
	{ HOW_PCMK, true, { "tail", "-n", "200", "?-F", "@log", NULL } },
	{ HOW_PCMK, false, { "crm_resource", "--restart", "--resource", "@pcmk", NULL } },
	{ HOW_PCMK_CLONE, true, { "tail", "-n", "200", "?-F", "@log", NULL } },
	/* the instance is stopped by a ban on this node that crm_resource
	 * clears once it is stopped; a host that dies before (fenced, its
	 * power lost) would leave the ban for good, the instance never
	 * started again there: the ban expires by itself after 5 minutes,
	 * past any stop (the agents' stop timeouts are at most 120 s) */
	{ HOW_PCMK_CLONE, false,
		{ "crm_resource", "--restart", "--resource", "@pcmk", "--node", "@node",
			"--lifetime", "PT5M", NULL } },
	/* the kubelet starts a static pod again once its sandbox is stopped */
	{ HOW_POD, true, { "crictl", "logs", "--tail", "200", "?-f", "@id", NULL } },
	{ HOW_POD, false, { "crictl", "stopp", "@id", NULL } },
	{ HOW_UNIT, true, { "journalctl", "-u", "@unit", "-n", "200", "?-f", NULL } },
	{ HOW_UNIT, false, { "systemctl", "restart", "@unit", NULL } },
};

/* What the command line asked. */
struct request {
	bool logs, dry, follow;
	const char *host, *file, *role;
};

/* The values a template's words are filled with. */
struct fill {
	const struct role *r;
	const char *node, *id, *unit;
	bool follow;
};

static void build_argv(const struct action *a, const struct fill *f, const char **v)
{
	size_t i, n = 0;

	for (i = 0; a->argv[i]; i++) {
		const char *w = a->argv[i];

		if (w[0] == '?') {
			if (f->follow)
				v[n++] = w + 1;
		} else if (!strcmp(w, "@log")) {
			v[n++] = f->r->logfile;
		} else if (!strcmp(w, "@pcmk")) {
			v[n++] = f->r->pcmk;
		} else if (!strcmp(w, "@node")) {
			v[n++] = f->node;
		} else if (!strcmp(w, "@id")) {
			v[n++] = f->id;
		} else if (!strcmp(w, "@unit")) {
			v[n++] = f->unit;
		} else {
			v[n++] = w;
		}
	}
	v[n] = NULL;
}

/* Options of `cpha restart` and `cpha logs`; 1: go on, else the exit
 * code. "logs ROLE -f" follows, as journalctl -f does; the description is
 * then given with --file or before the command. */
static int options(int argc, char **argv, struct request *q)
{
	static const struct option restart_opts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "host", required_argument, NULL, 'H' },
		{ "file", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct option logs_opts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "host", required_argument, NULL, 'H' },
		{ "follow", no_argument, NULL, 'F' },
		{ "file", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, q->logs ? "fnh" : "f:nh",
			q->logs ? logs_opts : restart_opts, NULL)) != -1) {
		switch (ch) {
		case 'n':
			q->dry = true;
			break;
		case 'H':
			q->host = optarg;
			break;
		case 'f':
			if (q->logs)
				q->follow = true;
			else
				q->file = optarg;
			break;
		case 'F':
			q->follow = true;
			break;
		case 'D':
			q->file = optarg;
			break;
		case 'h':
			usage(stdout, q->logs);
			return CPHA_EXIT_OK;
		default:
			usage(stderr, q->logs);
			return CPHA_EXIT_USAGE;
		}
	}
	return 1;
}

/* The role as the description runs it: the load balancer on the masters
 * and a Pacemaker-managed VIP are resources of the rendered pcs script. */
static const struct role *as_described(
	const struct cp_cluster *c, const struct role *r, struct role *pr)
{
	if (c->manager == CP_MGR_PACEMAKER && !strcmp(r->name, "lb") && c->lb_on_masters) {
		*pr = *r;
		pr->pcmk = c->lb == CP_LB_HAPROXY ? "haproxy-clone" : "lbd-clone";
		pr->logfile = c->lb == CP_LB_HAPROXY ? "/var/log/cpha/haproxy.log"
						     : "/var/log/cpha/lbd.log";
		pr->clone = pr->control_plane = true;
		return pr;
	}
	if (c->vipd == CP_VIP_PACEMAKER && !strcmp(r->name, "vip")) {
		*pr = *r;
		pr->pcmk = "vip";
		pr->logfile = "/var/log/pacemaker/pacemaker.log";
		pr->control_plane = true;
		return pr;
	}
	return r;
}

static enum how how_of(const struct cp_cluster *c, const struct role *r, bool logs)
{
	if (r->control_plane && c->manager == CP_MGR_PACEMAKER)
		return r->clone && !logs ? HOW_PCMK_CLONE : HOW_PCMK;
	if (r->control_plane && c->manager == CP_MGR_STATIC_PODS && r->pod)
		return HOW_POD;
	return HOW_UNIT;
}

static int restart_or_logs(const struct request *q)
{
	const struct role *r = find_role(q->role);
	const struct action *a = NULL;
	const char *v[10];
	struct fill f = { .follow = q->follow };
	struct role pr;
	struct cp_cluster *c;
	enum how how;
	char *id = NULL;
	int rc = CPHA_EXIT_FAIL;
	size_t i;

	if (!r) {
		fprintf(stderr, "cpha %s: unknown role '%s'; ", q->logs ? "logs" : "restart",
			q->role);
		list_roles(stderr);
		return CPHA_EXIT_USAGE;
	}
	c = cpha_load(q->file);
	if (!c)
		return CPHA_EXIT_FAIL;
	f.unit = unit_of(c, r);
	f.r = r = as_described(c, r, &pr);
	how = how_of(c, r, q->logs);
	for (i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
		if (actions[i].how == how && actions[i].logs == q->logs)
			a = &actions[i];
	if (how == HOW_PCMK_CLONE && !(f.node = node_name(c, q->host))) {
		fprintf(stderr, "cpha restart: this machine's host name is no host "
				"of the description; give --host NAME\n");
		goto out;
	}
	if (how == HOW_POD && !(f.id = id = crictl_id(q->logs ? "ps" : "pods", r->pod, q->dry)))
		goto out;
	build_argv(a, &f, v);
	say(v);
	rc = q->dry ? 0 : run_inherit(v);
out:
	free(id);
	cluster_free(c);
	return rc;
}

static int run_verb(int argc, char **argv, const char *file, bool logs)
{
	struct request q = { .logs = logs, .file = file };
	int r = options(argc, argv, &q);

	if (r != 1)
		return r;
	if (optind >= argc) {
		usage(stderr, logs);
		return CPHA_EXIT_USAGE;
	}
	q.role = argv[optind];
	return restart_or_logs(&q);
}

int cmd_restart(int argc, char **argv, const char *file)
{
	return run_verb(argc, argv, file, false);
}

int cmd_logs(int argc, char **argv, const char *file)
{
	return run_verb(argc, argv, file, true);
}
