/* Writing files whole: every byte of a buffer, and a file replaced at
 * once so that no reader ever sees half of it; and a directory's names.
 * Reading a whole file is cpha_buf_read_file() (buf.h). */
#ifndef CPHA_FILEIO_H
#define CPHA_FILEIO_H

#include <stddef.h>
#include <sys/types.h>

/* write(2) until all len bytes are written, retrying on EINTR.
 * Returns 0 or -errno. */
int cpha_write_all(int fd, const void *data, size_t len);

/* Replace path with data: a temporary file beside it (.NAME.XXXXXX in the
 * same directory: hidden, and never matching a reader's *.EXT), its owner
 * (uid (uid_t)-1: the caller's) and then its mode (a chown may clear
 * set-id bits), fsync, rename over path, fsync of the directory. On
 * failure the temporary file is removed and path is as it was. Returns 0
 * or -errno (-ENAMETOOLONG for a path too long). */
int cpha_write_file_atomic(
	const char *path, const void *data, size_t len, mode_t mode, uid_t uid, gid_t gid);

/* The names in the directory open at dfd ("." and ".." left out, in
 * readdir's order) into *names, NULL-terminated, to free with
 * cpha_names_free(); dfd is left open and its position untouched. Returns
 * how many, or -1 with errno. */
ssize_t cpha_dir_names(int dfd, char ***names);
void cpha_names_free(char **names);

#endif
