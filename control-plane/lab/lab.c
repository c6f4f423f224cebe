/* cpha lab: the whole HA control plane on one machine (see cpha(1)).
 *
 * The measuring parts are C and run here: `probe` (the client's prober),
 * `report` (statistics, invariants, report files) and `check-history`
 * (linearizability of the clients' register operations). Building hosts
 * out of namespaces and breaking them is the lab program's job (a Python
 * program shipped with the lab's simulators in CPHA_LAB_DIR), which this
 * executes for every other subcommand. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpha.h"
#include "lab.h"

static const struct {
	const char *name;
	int (*fn)(int, char **);
} lab_cmds[] = {
	{ "probe", cmd_lab_probe },
	{ "report", cmd_lab_report },
	{ "check-history", cmd_lab_check_history },
};

/* Where the lab program lives: $CPHA_LAB_DIR, the source tree when this
 * cpha runs from its build tree, else the installed directory. */
static const char *lab_dir(char *buf, size_t size)
{
	const char *env = getenv("CPHA_LAB_DIR");
	char self[PATH_MAX];
	ssize_t n;

	if (env && *env)
		return env;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		size_t len = strlen(CPHA_BUILD_DIR);

		self[n] = '\0';
		if (!strncmp(self, CPHA_BUILD_DIR, len) && self[len] == '/') {
			snprintf(buf, size, "%s", CPHA_LAB_SOURCE_DIR);
			return buf;
		}
	}
	return CPHA_LAB_INSTALL_DIR;
}

int cmd_lab(int argc, char **argv, const char *file, int file_given)
{
	char dir[PATH_MAX], prog[PATH_MAX + 16];
	char **args;
	int k = 0;

	if (argc >= 2)
		for (size_t i = 0; i < sizeof(lab_cmds) / sizeof(lab_cmds[0]); i++)
			if (!strcmp(argv[1], lab_cmds[i].name))
				return lab_cmds[i].fn(argc - 1, argv + 1);
	snprintf(prog, sizeof(prog), "%s/cpha-lab", lab_dir(dir, sizeof(dir)));
	if (access(prog, R_OK) < 0) {
		fprintf(stderr, "cpha lab: %s: %s (the lab program; set CPHA_LAB_DIR)\n", prog,
			strerror(errno));
		return CPHA_EXIT_SOFTWARE;
	}
	/* the lab runs this very cpha (plan, pki, render, probe, report) */
	{
		char self[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (n > 0) {
			self[n] = '\0';
			setenv("CPHA_LAB_CPHA", self, 1);
		}
	}
	args = calloc((size_t)argc + 5, sizeof(*args));
	if (!args)
		return CPHA_EXIT_SOFTWARE;
	args[k++] = "python3";
	args[k++] = prog;
	if (file_given) {
		args[k++] = "-f";
		args[k++] = (char *)file;
	}
	for (int i = 1; i < argc; i++)
		args[k++] = argv[i];
	args[k] = NULL;
	execvp(args[0], args);
	fprintf(stderr, "cpha lab: python3: %s\n", strerror(errno));
	free(args);
	return CPHA_EXIT_SOFTWARE;
}
