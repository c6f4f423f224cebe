/* `cpha install`, the acting part: carries out an install plan
 * (install_plan.h) under a root directory, checking everything before it
 * writes anything. */
#ifndef CPHA_INSTALL_H
#define CPHA_INSTALL_H

#include <stdbool.h>
#include <stdio.h>

#include "install_plan.h"

struct install_opts {
	const char *render_dir; /* OUT/<host>: the sources of INSTALL_SRC_RENDER */
	const char *pki_dir;    /* the sources of INSTALL_SRC_PKI */
	const char *desc;       /* the source of INSTALL_SRC_DESC */
	const char *root;       /* where the host's / is: "/" on the host itself */
	bool dry_run;           /* decide and print, write nothing */
	FILE *out;              /* one line per action; notes and errors go to stderr */
};

/* Check every source and destination of p: a missing source (a warning
 * and a skip for INSTALL_OPTIONAL ones), a destination whose directories
 * lead out of the root through a symbolic link, or one that is a link,
 * a directory where a file goes, or a user that does not exist, is an
 * error, and then nothing is written. Then make each action: a file is
 * written whole (a temporary file beside it, fsync, rename) with its mode
 * and owner exactly, missing parent directories are made 0755, and what
 * is already as planned is left alone and reported "unchanged". Lists the
 * secrets of p that are missing under the root. Returns 0, or -1 after
 * printing what is wrong (file and reason). */
int install_run(const struct install_plan *p, const struct install_opts *o);

#endif
