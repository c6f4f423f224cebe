/* `cpha pki` on a directory: reads the certificates and keys in it, asks
 * pki.c what each needs, and writes what was decided. Nothing is written
 * outside the directory; keys are never replaced; every file is written
 * whole (a temporary file in the directory, then renamed or linked). */
#ifndef CPHA_PKI_DIR_H
#define CPHA_PKI_DIR_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "pki.h"

struct pki_run {
	enum pki_op op;
	bool force; /* renew: every certificate, expiring or not */
	/* renew: the leaf certificates renewed get new keys (the CAs and the
	 * service-account key keep theirs: what they signed stays valid) */
	bool rekey;
	const struct pki_names *add; /* add-san: the names to add to apiserver.pem;
				      * remove-san: the names to take off every certificate */
	time_t now;                  /* when certificates are issued and checked */
};

/* Do o->op on the directory dir for the plan p, one report line per file
 * made, kept, renewed or found wrong (names relative to dir; "" is dir).
 * The issuing operations create dir (mode 0700) when it does not exist, and
 * refuse one that is not the user's own or that group or others may enter.
 * Returns 0, or -1 when r holds a problem or an error. */
int pki_dir_run(
	const struct pki_plan *p, const char *dir, const struct pki_run *o, struct pki_report *r);

#endif
