#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cfgmsg.h"

char *cpha_cfgmsg_vformat(const char *file, unsigned line, const char *fmt, va_list ap)
{
	struct cpha_buf b = { 0 };
	char *s;
	int r;

	r = line ? cpha_buf_printf(&b, "%s:%u: ", file, line) : cpha_buf_printf(&b, "%s: ", file);
	if (r == 0)
		r = cpha_buf_vprintf(&b, fmt, ap);
	s = r == 0 ? cpha_buf_steal(&b) : NULL;
	cpha_buf_free(&b);
	return s;
}

char *cpha_cfgmsg_format(const char *file, unsigned line, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = cpha_cfgmsg_vformat(file, line, fmt, ap);
	va_end(ap);
	return s;
}

void *cpha_array_push(void *arrayp, size_t *n, size_t size)
{
	char **arr = arrayp;
	char *p = realloc(*arr, (*n + 1) * size);

	if (!p)
		return NULL;
	*arr = p;
	memset(p + *n * size, 0, size);
	return p + (*n)++ * size;
}

void cpha_oom(void)
{
	fprintf(stderr, "%s: out of memory\n", program_invocation_short_name);
	exit(70);
}
