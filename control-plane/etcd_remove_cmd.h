/* `cpha etcd remove` (etcd_remove_cmd.c): the departed members of a
 * control plane that shrank, removed from etcd one at a time, each only
 * when etcd_remove_decide() says it is safe. */
#ifndef CPHA_ETCD_REMOVE_CMD_H
#define CPHA_ETCD_REMOVE_CMD_H

#include <stdbool.h>
#include <stddef.h>

struct etcd_remove_opts {
	const char *pki;          /* ca.pem, etcd-client.pem, etcd-client-key.pem */
	bool dry_run;             /* say what would be removed; remove nothing */
	const char *const *names; /* the members: names, peer URLs or IDs in hex */
	size_t nnames;
};

/* Remove the named members through the description's etcd members.
 * Returns CPHA_EXIT_OK (removed, or nothing to do) or CPHA_EXIT_FAIL
 * (refused or failed, said on stderr). */
int cpha_etcd_remove(const char *file, const struct etcd_remove_opts *o);

#endif
