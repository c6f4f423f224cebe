/* Counting the etcd members a flag names. The sizing rule (majority,
 * tolerance, even counts refused) is lib/quorum.h. */
#ifndef CPHA_OCF_URLS_H
#define CPHA_OCF_URLS_H

#include <stdbool.h>
#include <stddef.h>

/* Count the members of a comma-separated URL list as written in
 * --etcd-servers ("https://a:2379,https://b:2379"): blanks around entries
 * are ignored; an empty entry or the same URL twice is an error.
 * Returns 0 and *n, or -EINVAL with *why. */
int ocf_url_list_count(const char *list, unsigned *n, const char **why);

#endif
