/* Shared by the configuration unit tests of lbd, vipd and fenced: the
 * messages a load handed back, one per line in one string to search. */
#ifndef MSGS_TEST_H
#define MSGS_TEST_H

#include <stdio.h>

#include "cfgdiag.h"

static char joined[32768];

/* msg[0..n) (notices), one per line, in joined. */
static __attribute__((unused)) const char *join(char **msg, size_t n)
{
	size_t i, o = 0;

	joined[0] = '\0';
	for (i = 0; i < n && o < sizeof(joined); i++)
		o += (size_t)snprintf(joined + o, sizeof(joined) - o, "%s\n", msg[i]);
	return joined;
}

/* The errors of m, one per line, in joined. */
static __attribute__((unused)) const char *join_errs(const struct cpha_msgs *m)
{
	size_t i, o = 0;

	joined[0] = '\0';
	for (i = 0; i < m->nerrs && o < sizeof(joined); i++)
		o += (size_t)snprintf(joined + o, sizeof(joined) - o, "%s\n", m->errs[i].text);
	return joined;
}

#endif
