/* Quorum sizing for Raft clusters (etcd): how many members answer a
 * majority, how many failures a size survives, and the decision that an
 * even member count is refused. Pure functions. */
#ifndef CPHA_OCF_QUORUM_H
#define CPHA_OCF_QUORUM_H

#include <stdbool.h>
#include <stddef.h>

/* Members needed for a majority of n (n/2 + 1); 0 for n == 0. */
unsigned ocf_quorum_majority(unsigned n);

/* Member failures a cluster of n survives ((n - 1) / 2); 0 for n == 0. */
unsigned ocf_quorum_tolerance(unsigned n);

/* Decide whether n members is an acceptable size: 0 is refused; an even n
 * is refused unless allow_even (2n members tolerate no more failures than
 * 2n - 1 and need one more for a majority). On refusal why holds an
 * operator-facing sentence. Returns 0, or -EINVAL (0) / -EDOM (even). */
int ocf_quorum_check(unsigned n, bool allow_even, char *why, size_t len);

/* Count the members of a comma-separated URL list as written in
 * --etcd-servers ("https://a:2379,https://b:2379"): blanks around entries
 * are ignored; an empty entry or the same URL twice is an error.
 * Returns 0 and *n, or -EINVAL with *why. */
int ocf_url_list_count(const char *list, unsigned *n, const char **why);

#endif
