/* fenced: fencing on corosync membership through fence-agents.
 *
 * What is here so far: the configuration and its check (-c), which also
 * asks every agent for its metadata and refuses parameters it does not
 * take. The daemon itself (corosync membership, decisions, running the
 * agents, the watchdog) is not written yet: started without -c, fenced
 * says so and exits, rather than pretend to protect anything. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"

#define FENCED_DEFAULT_CONFIG "/etc/fenced/fenced.conf"

static void usage(FILE *f)
{
	fprintf(f, "usage: fenced [-f FILE] -c [-q] | -v\n"
		   "  -f FILE  configuration (default " FENCED_DEFAULT_CONFIG ")\n"
		   "  -c       check the configuration and every agent's parameters against its\n"
		   "           metadata (AGENT -o metadata); print every error and warning as\n"
		   "           file:line: text; exit 0 or 1. Nothing is fenced.\n"
		   "  -q       with -c, print nothing when the file is valid\n"
		   "  -v       print the version\n");
}

static int check(const char *path, int quiet)
{
	struct fenced_cfg_msgs errs = { 0 };
	struct fenced_config *c = NULL;
	size_t i, nerr;

	if (fenced_cfg_load(path, &c, &errs) < 0) {
		for (i = 0; i < errs.n; i++)
			fprintf(stderr, "%s\n", errs.msg[i]);
		fprintf(stderr, "%s: configuration has %zu error%s\n", path, errs.n,
			errs.n == 1 ? "" : "s");
		fenced_cfg_msgs_free(&errs);
		return 1;
	}
	nerr = fenced_cfg_check_agents(c, fenced_agent_meta_run, NULL, &errs);
	for (i = 0; i < errs.n; i++)
		fprintf(stderr, "%s\n", errs.msg[i]);
	for (i = 0; i < c->nnotices; i++)
		fprintf(stderr, "%s\n", c->notices[i]);
	fenced_cfg_msgs_free(&errs);
	fenced_cfg_free(c);
	if (nerr) {
		fprintf(stderr, "%s: configuration has %zu error%s\n", path, nerr,
			nerr == 1 ? "" : "s");
		return 1;
	}
	if (!quiet)
		printf("Configuration file is valid\n");
	return 0;
}

int main(int argc, char **argv)
{
	const char *path = FENCED_DEFAULT_CONFIG;
	int i, chk = 0, quiet = 0;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-f") == 0 && i + 1 < argc) {
			path = argv[++i];
		} else if (strcmp(argv[i], "-c") == 0) {
			chk = 1;
		} else if (strcmp(argv[i], "-q") == 0) {
			quiet = 1;
		} else if (strcmp(argv[i], "-v") == 0) {
			printf("fenced (cpha) " CPHA_VERSION "\n");
			return 0;
		} else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "fenced: unknown argument '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		}
	}
	if (chk)
		return check(path, quiet);
	fprintf(stderr, "fenced: only -c is implemented so far; the daemon is not written yet "
			"and fences nothing\n");
	return 2;
}
