/* node-exporter textfiles: cpha check's series, and the atomic write that
 * cpha status and cpha check share. */
#include <stdio.h>
#include <string.h>

#include "fileio.h"
#include "metrics.h"
#include "textfile.h"

int textfile_write(const char *path, const char *text, size_t len, char *why, size_t whylen)
{
	/* written beside it as .NAME.XXXXXX, never *.prom: node-exporter does
	 * not read it half-written; 0644 whatever the umask, as node-exporter
	 * often runs as another user */
	int r = cpha_write_file_atomic(path, text, len, 0644, (uid_t)-1, (gid_t)-1);

	if (r < 0)
		snprintf(why, whylen, "%s: cannot write it: %s", path, strerror(-r));
	return r;
}

void textfile_check(struct cpha_buf *b, const char *host, bool drift, double now)
{
	cpha_prom_family(b, "cpha_config_drift", "gauge",
		"1 when cpha check found the host's files or daemons drifted from the description");
	cpha_prom_sample(b, "cpha_config_drift", drift ? 1 : 0, "host", host, NULL);
	cpha_prom_family(b, "cpha_config_check_timestamp_seconds", "gauge",
		"when cpha check last compared the host (unix seconds)");
	cpha_prom_sample(b, "cpha_config_check_timestamp_seconds", now, "host", host, NULL);
}
