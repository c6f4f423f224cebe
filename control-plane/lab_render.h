/* cpha lab report: the report's texts made from the model. Pure: the
 * caller writes them. */
#ifndef CPHA_LAB_RENDER_H
#define CPHA_LAB_RENDER_H

#include <jansson.h>

#include "buf.h"
#include "lab_stats.h"

/* report.json as a new reference (NULL when out of memory). */
json_t *lab_render_json(const struct lab_model *m);

/* report.md appended to out. Returns 0 or -ENOMEM. */
int lab_render_md(const struct lab_model *m, struct cpha_buf *out);

/* timeline.svg appended to out: requests ok and failed per second, one lane
 * per run, scenario markers. Returns 0 or -ENOMEM. */
int lab_render_svg(const struct lab_model *m, struct cpha_buf *out);

#endif
