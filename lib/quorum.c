/* Quorum sizing: majority, tolerance, odd member counts. */
#include <errno.h>
#include <stdio.h>

#include "quorum.h"

unsigned cpha_quorum_majority(unsigned n)
{
	return n ? n / 2 + 1 : 0;
}

unsigned cpha_quorum_tolerance(unsigned n)
{
	return n ? (n - 1) / 2 : 0;
}

int cpha_quorum_check(unsigned n, bool allow_even, char *why, size_t len)
{
	if (n == 0) {
		snprintf(why, len, "no members");
		return -EINVAL;
	}
	if (n % 2 == 0 && !allow_even) {
		/* Raft: 2n members need n+1 votes and survive n-1 failures,
		 * exactly what 2n-1 members survive */
		snprintf(why, len,
			"%u members tolerate %u failure%s, no more than %u do, and need %u for a "
			"majority; use an odd count (2n+1 members tolerate n failures: %u or %u)",
			n, cpha_quorum_tolerance(n), cpha_quorum_tolerance(n) == 1 ? "" : "s",
			n - 1, cpha_quorum_majority(n), n - 1, n + 1);
		return -EDOM;
	}
	if (why && len)
		why[0] = '\0';
	return 0;
}
