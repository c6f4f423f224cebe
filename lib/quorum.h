/* Quorum sizing for Raft clusters (etcd) and majority votes (corosync):
 * how many members make a majority, how many failures a size survives, and
 * the rule that an even member count is refused. Pure functions, shared by
 * `cpha plan` and the OCF agents. */
#ifndef CPHA_QUORUM_H
#define CPHA_QUORUM_H

#include <stdbool.h>
#include <stddef.h>

/* Members needed for a majority of n (n/2 + 1); 0 for n == 0. */
unsigned cpha_quorum_majority(unsigned n);

/* Member failures a cluster of n survives ((n - 1) / 2); 0 for n == 0. */
unsigned cpha_quorum_tolerance(unsigned n);

/* Decide whether n members is an acceptable size: 0 is refused; an even n
 * is refused unless allow_even (2n members tolerate no more failures than
 * 2n - 1 and need one more for a majority). On refusal why holds a sentence
 * with the arithmetic. Returns 0, or -EINVAL (0) / -EDOM (even). */
int cpha_quorum_check(unsigned n, bool allow_even, char *why, size_t len);

#endif
