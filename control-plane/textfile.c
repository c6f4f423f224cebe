/* node-exporter textfiles: cpha check's series, and the atomic write that
 * cpha status and cpha check share. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "metrics.h"
#include "textfile.h"

int textfile_write(const char *path, const char *text, size_t len, char *why, size_t whylen)
{
	char tmp[4096], *slash;
	size_t off = 0;
	int fd, r = 0, dfd;

	/* FILE.tmp.XXXXXX: not *.prom, so node-exporter never reads it */
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path) >= sizeof(tmp)) {
		snprintf(why, whylen, "%s: name too long", path);
		return -ENAMETOOLONG;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd == -1) {
		r = -errno;
		snprintf(why, whylen, "%s: cannot create a temporary file beside it: %s", path,
			strerror(-r));
		return r;
	}
	while (!r && off < len) {
		ssize_t n = write(fd, text + off, len - off);

		if (n == -1 && errno != EINTR)
			r = -errno;
		else if (n > 0)
			off += (size_t)n;
	}
	/* mkstemp made it 0600: node-exporter often runs as another user */
	if (!r && fchmod(fd, 0644) == -1)
		r = -errno;
	if (!r && fsync(fd) == -1)
		r = -errno;
	if (close(fd) == -1 && !r)
		r = -errno;
	if (!r && rename(tmp, path) == -1)
		r = -errno;
	if (r) {
		unlink(tmp);
		snprintf(why, whylen, "%s: %s", path, strerror(-r));
		return r;
	}
	/* the rename itself, durable */
	slash = strrchr(tmp, '/');
	if (slash)
		*slash = '\0';
	dfd = open(slash ? (*tmp ? tmp : "/") : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd != -1) {
		fsync(dfd);
		close(dfd);
	}
	return 0;
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
