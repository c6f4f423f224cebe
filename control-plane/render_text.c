/* Text helpers of the render modules. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "render_text.h"

void render_text_put(struct cpha_buf *b, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = cpha_buf_vprintf(b, fmt, ap);
	va_end(ap);
	if (r < 0)
		cpha_oom();
}

char *render_text_hostport(const struct cpha_addr *a, unsigned port, char *buf, size_t len)
{
	struct cpha_addr x = *a;

	cpha_addr_set_port(&x, (uint16_t)port);
	return cpha_addr_format(&x, buf, len);
}

char *render_text_addr(const struct cpha_addr *a, char *buf, size_t len)
{
	struct cpha_addr x = *a;

	cpha_addr_set_port(&x, 0); /* cpha_addr_format() writes a port unless 0 */
	return cpha_addr_format(&x, buf, len);
}
