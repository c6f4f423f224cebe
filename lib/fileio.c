/* Writing files whole, and a directory's names (fileio.h). */
#include <dirent.h>
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

ssize_t cpha_dir_names(int dfd, char ***names)
{
	int fd = dup(dfd), saved;
	DIR *d = fd == -1 ? NULL : fdopendir(fd);
	struct dirent *e;
	char **v = NULL, **nv;
	size_t n = 0;

	*names = NULL;
	if (!d) {
		saved = errno;
		if (fd != -1)
			close(fd);
		errno = saved;
		return -1;
	}
	rewinddir(d);
	for (errno = 0; (e = readdir(d)); errno = 0) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		nv = realloc(v, (n + 2) * sizeof(*v));
		if (!nv)
			goto fail;
		v = nv;
		v[n + 1] = NULL;
		v[n] = strdup(e->d_name);
		if (!v[n])
			goto fail;
		n++;
	}
	if (errno)
		goto fail;
	closedir(d);
	if (!v && !(v = calloc(1, sizeof(*v)))) {
		errno = ENOMEM;
		return -1;
	}
	*names = v;
	return (ssize_t)n;
fail:
	saved = errno ? errno : ENOMEM;
	cpha_names_free(v);
	closedir(d);
	errno = saved;
	return -1;
}

void cpha_names_free(char **names)
{
	for (size_t i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
}
