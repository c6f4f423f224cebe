#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"

static int buf_reserve(struct cpha_buf *b, size_t extra)
{
	size_t need, cap;
	char *p;

	if (extra > (size_t)-1 - b->len - 1)
		return -ENOMEM;
	need = b->len + extra + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 128;
	while (cap < need)
		cap = cap > (size_t)-1 / 2 ? need : cap * 2;
	p = realloc(b->data, cap);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

int cpha_buf_append(struct cpha_buf *b, const void *p, size_t len)
{
	int r = buf_reserve(b, len);

	if (r < 0)
		return r;
	if (len)
		memcpy(b->data + b->len, p, len);
	b->len += len;
	b->data[b->len] = '\0';
	return 0;
}

int cpha_buf_puts(struct cpha_buf *b, const char *s)
{
	return cpha_buf_append(b, s, strlen(s));
}

int cpha_buf_vprintf(struct cpha_buf *b, const char *fmt, va_list ap)
{
	va_list aq;
	int n, r;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		return -EINVAL;
	r = buf_reserve(b, (size_t)n);
	if (r < 0)
		return r;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int cpha_buf_printf(struct cpha_buf *b, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = cpha_buf_vprintf(b, fmt, ap);
	va_end(ap);
	return r;
}

void cpha_buf_consume(struct cpha_buf *b, size_t n)
{
	if (n >= b->len) {
		cpha_buf_reset(b);
		return;
	}
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
	b->data[b->len] = '\0';
}

void cpha_buf_reset(struct cpha_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

void cpha_buf_free(struct cpha_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

char *cpha_buf_steal(struct cpha_buf *b)
{
	char *p;

	if (!b->data && buf_reserve(b, 0) < 0)
		return NULL;
	p = b->data;
	p[b->len] = '\0';
	b->data = NULL;
	b->len = b->cap = 0;
	return p;
}

int cpha_buf_read_file(struct cpha_buf *b, const char *path, int oflags, size_t max)
{
	char chunk[16384];
	size_t start = b->len;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | oflags), r = 0;

	if (fd == -1)
		return -errno;
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n == -1) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if (max && b->len - start + (size_t)n > max) {
			r = -EFBIG;
			break;
		}
		if (cpha_buf_append(b, chunk, (size_t)n) < 0) {
			r = -ENOMEM;
			break;
		}
	}
	close(fd);
	if (!r && !b->data && cpha_buf_puts(b, "") < 0)
		r = -ENOMEM;
	return r;
}
