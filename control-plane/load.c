/* cpha_load(): the description as every subcommand loads it. Here rather
 * than in main.c so that the subcommands in cphacore (render.c,
 * plan_cmd.c) link into unit tests too. */
#include <stdio.h>
#include <time.h>

#include "cpha.h"

struct cp_cluster *cpha_load(const char *file)
{
	struct cpha_msgs d = { 0 };
	struct cp_cluster *c = NULL;

	if (cluster_load(file, &c, &d) < 0)
		c = NULL;
	cpha_msgs_print(d.errs, d.nerrs, stderr);
	cpha_msgs_free(&d);
	return c;
}

char *cpha_today(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	if (gmtime_r(&now, &tm) == NULL || strftime(buf, len, "%Y-%m-%d", &tm) == 0)
		return NULL;
	return buf;
}
