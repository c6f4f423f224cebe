/* cpha lab report: the model from the lab program's description of its
 * runs (LAB.json). Pure: the caller reads the file and the events. */
#ifndef CPHA_LAB_LOAD_H
#define CPHA_LAB_LOAD_H

#include <stddef.h>

#include <jansson.h>

#include "lab_stats.h"

/* Fill m from doc (its strings and objects are borrowed: doc outlives m).
 * Every field is checked; an optional field that is absent takes its
 * documented default (cpha(1)). Returns 0, or -EINVAL / -ENOMEM with why
 * ("runs[0].scenarios[2].phases[1]: ..."); m is then partly filled and
 * lab_model_free() frees it. */
int lab_model_load(json_t *doc, struct lab_model *m, char *why, size_t len);

/* Free what lab_model_load() and the events reading allocated. */
void lab_model_free(struct lab_model *m);

#endif
