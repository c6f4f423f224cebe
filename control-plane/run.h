/* Running the tools cpha drives (checkers, pcs, systemctl, crm_resource):
 * found in PATH, then in /usr/sbin and /sbin; output captured. */
#ifndef CPHA_RUN_H
#define CPHA_RUN_H

#include <stdbool.h>

#include "spawn.h"

/* Where argv[0] is: a path to free, or NULL when it is not installed. */
char *run_which(const char *name);

/* Run argv to its end (at most 120 s) with its output captured. Returns 0
 * with res filled, or -1 after printing why it could not run; *missing is
 * set when the tool is not installed. */
int run_capture(const char *const *argv, struct cpha_run_result *res, bool *missing);

/* Run argv with this process's stdin, stdout and stderr (restart, logs -f);
 * returns its exit status, or 127 when it could not run. */
int run_inherit(const char *const *argv);

#endif
