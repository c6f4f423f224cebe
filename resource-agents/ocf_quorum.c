/* Quorum sizing: majority, tolerance, odd member counts. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ocf_quorum.h"

unsigned ocf_quorum_majority(unsigned n)
{
	return n ? n / 2 + 1 : 0;
}

unsigned ocf_quorum_tolerance(unsigned n)
{
	return n ? (n - 1) / 2 : 0;
}

int ocf_quorum_check(unsigned n, bool allow_even, char *why, size_t len)
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
			n, ocf_quorum_tolerance(n), ocf_quorum_tolerance(n) == 1 ? "" : "s", n - 1,
			ocf_quorum_majority(n), n - 1, n + 1);
		return -EDOM;
	}
	if (why && len)
		why[0] = '\0';
	return 0;
}

int ocf_url_list_count(const char *list, unsigned *n, const char **why)
{
	const char *s = list, *e, *b, *prev;
	size_t len, plen;
	unsigned count = 0;

	*why = NULL;
	*n = 0;
	if (!s || !*s) {
		*why = "empty list";
		return -EINVAL;
	}
	for (;;) {
		e = s + strcspn(s, ",");
		b = s;
		while (b < e && (*b == ' ' || *b == '\t'))
			b++;
		len = (size_t)(e - b);
		while (len && (b[len - 1] == ' ' || b[len - 1] == '\t'))
			len--;
		if (len == 0) {
			*why = "empty entry in the list";
			return -EINVAL;
		}
		/* the same member twice would count it twice */
		for (prev = list; prev < b;) {
			const char *pe = prev + strcspn(prev, ",");
			const char *pb = prev;

			while (pb < pe && (*pb == ' ' || *pb == '\t'))
				pb++;
			plen = (size_t)(pe - pb);
			while (plen && (pb[plen - 1] == ' ' || pb[plen - 1] == '\t'))
				plen--;
			if (pb < b && plen == len && memcmp(pb, b, len) == 0) {
				*why = "an entry is listed twice";
				return -EINVAL;
			}
			prev = *pe ? pe + 1 : pe;
			if (!*pe)
				break;
		}
		count++;
		if (!*e)
			break;
		s = e + 1;
	}
	*n = count;
	return 0;
}
