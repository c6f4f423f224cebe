/* Files for node-exporter's textfile collector (--collector.textfile.directory):
 * it reads every *.prom file of its directory at each scrape, so a file is
 * written whole, under a temporary name in the same directory that does not
 * end in .prom, then renamed over the old one (a scrape sees the old or the
 * new file, never half of one). */
#ifndef CPHA_TEXTFILE_H
#define CPHA_TEXTFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

/* Write len bytes of text to path atomically, mode 0644. Returns 0, or a
 * negative errno with why ("PATH: what went wrong"); nothing is left
 * behind on failure and the old file stays as it was. */
int textfile_write(const char *path, const char *text, size_t len, char *why, size_t whylen);

/* Pure: cpha check's series for host: cpha_config_drift{host} (1 drift,
 * 0 none) and cpha_config_check_timestamp_seconds{host} (unix time now). */
void textfile_check(struct cpha_buf *b, const char *host, bool drift, double now);

#endif
