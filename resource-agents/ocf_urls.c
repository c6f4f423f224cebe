/* Counting etcd members as written in flags (the sizing rule itself is
 * lib/quorum.c, shared with cpha plan). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ocf_urls.h"

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
