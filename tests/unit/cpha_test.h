/* Shared by the cpha (control-plane) unit tests: load a description given
 * as text, through a temporary file, as cpha would load it from disk. */
#ifndef CPHA_TEST_H
#define CPHA_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster.h"

/* A small valid description; tests replace parts of it. */
#define CPHA_TEST_BASE                                                                             \
	"cluster: {name: lab}\n"                                                                   \
	"api: {name: kubernetes, vip: 198.18.0.2/24}\n"                                            \
	"masters:\n"                                                                               \
	"  - {name: m1, address: 198.18.0.11}\n"                                                   \
	"  - {name: m2, address: 198.18.0.12}\n"                                                   \
	"  - {name: m3, address: 198.18.0.13}\n"

/* Write text to a temporary file and load it; the file is removed. The
 * messages go to d; *path_out (if given) gets the file's name, to free. */
static inline struct cp_cluster *cpha_test_load(
	const char *text, struct cpha_msgs *d, char **path_out)
{
	char path[] = "/tmp/cpha-test-XXXXXX.yaml";
	struct cp_cluster *c = NULL;
	int fd = mkstemps(path, 5);
	FILE *f;

	if (fd == -1)
		return NULL;
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	if (cluster_load(path, &c, d) < 0)
		c = NULL;
	unlink(path);
	if (path_out)
		*path_out = strdup(path);
	return c;
}

/* True when s contains every one of the NULL-terminated fragments. */
static inline int cpha_test_all(const char *s, const char *const *frag)
{
	for (size_t k = 0; frag[k]; k++)
		if (!strstr(s, frag[k]))
			return 0;
	return 1;
}

/* True when one of the texts contains every one of the fragments. */
static inline int cpha_test_has(char **v, size_t n, const char *const *frag)
{
	for (size_t i = 0; i < n; i++)
		if (cpha_test_all(v[i], frag))
			return 1;
	return 0;
}

/* The same for messages. */
static inline int cpha_test_has_msg(const struct cpha_msg *v, size_t n, const char *const *frag)
{
	for (size_t i = 0; i < n; i++)
		if (cpha_test_all(v[i].text, frag))
			return 1;
	return 0;
}

#define HAS_ERR(d, ...)                                                                            \
	cpha_test_has_msg((d)->errs, (d)->nerrs, (const char *const[]){ __VA_ARGS__, NULL })
#define HAS_WARN(d, ...)                                                                           \
	cpha_test_has_msg((d)->warns, (d)->nwarns, (const char *const[]){ __VA_ARGS__, NULL })

#endif
