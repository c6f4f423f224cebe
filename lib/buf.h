/* Growable byte buffers for replies, captured output and rendered text. */
#ifndef CPHA_BUF_H
#define CPHA_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct cpha_buf {
	char *data; /* always NUL-terminated when non-NULL */
	size_t len; /* bytes used, not counting the NUL */
	size_t cap; /* bytes allocated */
};

/* Append len bytes. Returns 0 or -ENOMEM (the buffer is unchanged then). */
int cpha_buf_append(struct cpha_buf *b, const void *p, size_t len);

/* Append a NUL-terminated string. Returns 0 or -ENOMEM. */
int cpha_buf_puts(struct cpha_buf *b, const char *s);

/* Append printf-formatted text. Returns 0 or -ENOMEM. */
int cpha_buf_printf(struct cpha_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int cpha_buf_vprintf(struct cpha_buf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/* Drop the first n bytes (consumed output). */
void cpha_buf_consume(struct cpha_buf *b, size_t n);

/* Empty the buffer, keeping its memory. */
void cpha_buf_reset(struct cpha_buf *b);

/* Release the memory; the buffer is empty and reusable afterwards. */
void cpha_buf_free(struct cpha_buf *b);

/* Hand the data to the caller (NUL-terminated, never NULL unless out of
 * memory); the buffer is empty afterwards. */
char *cpha_buf_steal(struct cpha_buf *b);

/* Append the whole file at path (opened with O_RDONLY | O_CLOEXEC | oflags,
 * e.g. O_NOFOLLOW) to b; b stays NUL-terminated, also for an empty file.
 * max: the most bytes taken, 0 for no limit. Returns 0, -errno of open or
 * read, -EFBIG past max, or -ENOMEM. */
int cpha_buf_read_file(struct cpha_buf *b, const char *path, int oflags, size_t max);

#endif
