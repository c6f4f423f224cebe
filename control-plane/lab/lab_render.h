/* cpha lab report: the report's texts made from the model: report.json
 * (lab_render_json.c), report.md (lab_render_md.c), timeline.svg
 * (lab_svg.c). Pure: the caller writes them. */
#ifndef CPHA_LAB_RENDER_H
#define CPHA_LAB_RENDER_H

#include <jansson.h>

#include "buf.h"
#include "lab_sample.h"
#include "lab_stats.h"

/* report.json as a new reference (NULL when out of memory): per stack one
 * entry per scenario name, in the order of first appearance, with the
 * figures of its representative attempt, every attempt ("repeats"), the
 * statistics of the valid ones; then the goals. */
json_t *lab_render_json(const struct lab_model *m);

/* The invariants of an attempt as report.json states them: those the
 * orchestrator judged, and no_lost_write where it is judged. A new
 * reference or NULL. */
json_t *lab_render_invariants(const struct lab_scenario *s);

/* {"n", "median", "min", "max", "ci95": [lo, hi]}; with n 0 the others are
 * null. A new reference or NULL. */
json_t *lab_render_sample(const struct lab_sample *s);

/* report.md appended to out. Returns 0 or -ENOMEM. */
int lab_render_md(const struct lab_model *m, struct cpha_buf *out);

/* timeline.svg appended to out: requests ok and failed per second, one lane
 * per run, markers for the valid attempts and hatched bands for the others.
 * Returns 0 or -ENOMEM. */
int lab_render_svg(const struct lab_model *m, struct cpha_buf *out);

#endif
