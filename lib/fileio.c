/* Writing files whole (fileio.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"

int cpha_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n == -1) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int cpha_write_file_atomic(
	const char *path, const void *data, size_t len, mode_t mode, uid_t uid, gid_t gid)
{
	char tmp[PATH_MAX], dir[PATH_MAX];
	const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
	size_t dlen = slash ? (size_t)(slash - path) : 0;
	int fd, dfd, r;

	if (!*name)
		return -EISDIR;
	if (slash && dlen == 0)
		snprintf(dir, sizeof(dir), "/");
	else if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)dlen, path);
	else
		snprintf(dir, sizeof(dir), ".");
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, name) >= sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd == -1)
		return -errno;
	r = cpha_write_all(fd, data, len);
	if (!r && uid != (uid_t)-1 && fchown(fd, uid, gid) == -1)
		r = -errno;
	if (!r && fchmod(fd, mode) == -1)
		r = -errno;
	if (!r && fsync(fd) == -1)
		r = -errno;
	if (close(fd) == -1 && !r)
		r = -errno;
	if (!r && rename(tmp, path) == -1)
		r = -errno;
	if (r) {
		unlink(tmp);
		return r;
	}
	/* the rename itself, durable */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd != -1) {
		fsync(dfd);
		close(dfd);
	}
	return 0;
}
