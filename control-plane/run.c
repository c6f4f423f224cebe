/* Running the tools cpha drives. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run.h"

char *run_which(const char *name)
{
	const char *path = getenv("PATH");
	char *dirs, *save = NULL, *p;

	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? strdup(name) : NULL;
	if (asprintf(&dirs, "%s:/usr/sbin:/sbin", path ? path : "/usr/bin:/bin") < 0)
		return NULL;
	for (char *dir = strtok_r(dirs, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		if (!*dir)
			continue;
		if (asprintf(&p, "%s/%s", dir, name) < 0)
			break;
		if (access(p, X_OK) == 0) {
			free(dirs);
			return p;
		}
		free(p);
	}
	free(dirs);
	return NULL;
}

int run_capture(const char *const *argv, struct cpha_run_result *res, bool *missing)
{
	char *exe = run_which(argv[0]);
	const char **v;
	struct cpha_spawn_opts o = { .timeout_usec = 120 * 1000000ull, .output_max = 1 << 20 };
	size_t n;
	int r;

	if (!exe) {
		fprintf(stderr, "cpha: %s is not installed (not in PATH, /usr/sbin or /sbin)\n",
			argv[0]);
		if (missing)
			*missing = true;
		return -1;
	}
	for (n = 1; argv[n]; n++)
		;
	v = calloc(n + 1, sizeof(*v)); /* every word: pcs commands are long */
	if (!v) {
		fprintf(stderr, "cpha: out of memory\n");
		free(exe);
		return -1;
	}
	v[0] = exe;
	for (n = 1; argv[n]; n++)
		v[n] = argv[n];
	o.argv = v;
	r = cpha_run(&o, res);
	free(v);
	if (r < 0) {
		fprintf(stderr, "cpha: %s: %s\n", exe, strerror(-r));
		free(exe);
		return -1;
	}
	if (res->timed_out)
		fprintf(stderr, "cpha: %s did not finish in 120 s and was killed\n", exe);
	free(exe);
	return 0;
}

int run_inherit(const char *const *argv)
{
	char *exe = run_which(argv[0]);
	pid_t pid;
	int st;

	if (!exe) {
		fprintf(stderr, "cpha: %s is not installed\n", argv[0]);
		return 127;
	}
	fflush(NULL);
	pid = fork();
	if (pid == -1) {
		fprintf(stderr, "cpha: fork: %s\n", strerror(errno));
		free(exe);
		return 127;
	}
	if (pid == 0) {
		execv(exe, (char *const *)argv);
		fprintf(stderr, "cpha: %s: %s\n", exe, strerror(errno));
		_exit(127);
	}
	free(exe);
	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR)
			return 127;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
