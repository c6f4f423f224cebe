/* cpha: one cluster description, /etc/cpha/cluster.yaml, to a checked plan,
 * the PKI and every configuration file of an HA control plane; drift
 * checks and the right restart for the manager in use. See cpha(1). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpha.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: cpha [-f FILE] COMMAND [options]\n"
		"  plan [--json] [--allow-even] [--strict]   roles, failure tolerance, design "
		"checks\n"
		"  pki [--dir DIR] [check|renew [--force]|add-san NAME...]  certificates, keys\n"
		"  render [--out DIR] [--host NAME] [--no-check] [--allow-even]  every file, "
		"checked\n"
		"  install --host NAME --render OUT --pki DIR [--root DIR] [--dry-run]\n"
		"                                            put one host's files in place\n"
		"  check [--host NAME] [--root DIR] [--textfile FILE]  installed files against "
		"render\n"
		"  status [--json] [--watch [N]] [--pki DIR] [--timeout D] [--textfile FILE] "
		"[--quiet]\n"
		"                                            live availability\n"
		"  token create [--ttl D] [--description T] [--print-join-command]\n"
		"                                            a bootstrap token for a worker\n"
		"  etcd snapshot [--dir DIR] [--keep K] [--endpoint URL]...  a snapshot of etcd,\n"
		"                                            the newest K kept\n"
		"  etcd verify [--no-sidecar] FILE...        snapshots against their sha256 "
		"sidecars\n"
		"  etcd remove [--dry-run] NAME...           etcd members of hosts taken out of\n"
		"                                            the description, when safe\n"
		"  restart ROLE [--host NAME] [--dry-run]    restart a role the manager's way\n"
		"  logs ROLE [-f] [--dry-run]                a role's logs (-f follows)\n"
		"  drain MASTER [--force] [--socket PATH] [--dry-run]  on an LB host: MASTER's\n"
		"                                            apiserver out of rotation\n"
		"  undrain MASTER [--socket PATH] [--dry-run]  and back in\n"
		"  drain|undrain LBHOST [--lb] [--force] [--dry-run]  on LBHOST: its VIP to\n"
		"                                            a backup (FAULT), and back\n"
		"  lab [--name NAME] up|down|status|run|soak|workload|x|probe|report|"
		"check-history ...\n"
		"                                            the HA control plane on one machine\n"
		"  -f FILE  the cluster description (default " CPHA_DEFAULT_FILE "); also "
		"accepted after COMMAND\n"
		"           (after logs, as --file FILE)\n"
		"COMMAND --help prints the options of COMMAND; see cpha(1)\n");
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int, char **, const char *);
	} cmds[] = {
		{ "plan", cmd_plan },
		{ "pki", cmd_pki },
		{ "render", cmd_render },
		{ "install", cmd_install },
		{ "check", cmd_check },
		{ "status", cmd_status },
		{ "token", cmd_token },
		{ "etcd", cmd_etcd },
		{ "restart", cmd_restart },
		{ "logs", cmd_logs },
		{ "drain", cmd_drain },
		{ "undrain", cmd_undrain },
	};
	const char *file = CPHA_DEFAULT_FILE;
	int file_given = 0;
	int i = 1;

	while (i < argc && argv[i][0] == '-') {
		if (!strcmp(argv[i], "-f") && i + 1 < argc) {
			file = argv[i + 1];
			file_given = 1;
			i += 2;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--version")) {
			printf("cpha %s\n", CPHA_VERSION);
			return 0;
		} else {
			usage(stderr);
			return CPHA_EXIT_USAGE;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return CPHA_EXIT_USAGE;
	}
	if (!strcmp(argv[i], "lab"))
		return cmd_lab(argc - i, argv + i, file, file_given);
	for (size_t k = 0; k < sizeof(cmds) / sizeof(cmds[0]); k++)
		if (!strcmp(argv[i], cmds[k].name))
			return cmds[k].fn(argc - i, argv + i, file);
	fprintf(stderr, "cpha: unknown command '%s'\n", argv[i]);
	usage(stderr);
	return CPHA_EXIT_USAGE;
}
