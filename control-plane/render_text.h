/* Text helpers of the render modules (render_lb.c, render_ha.c,
 * render_pcs.c): appending to a file being rendered, and addresses as the
 * configuration languages write them. Pure: no I/O. */
#ifndef CPHA_RENDER_TEXT_H
#define CPHA_RENDER_TEXT_H

#include <stddef.h>

#include "addr.h"
#include "buf.h"
#include "cfgmsg.h"

/* Append printf-formatted text; out of memory ends the process (exit 70),
 * as everywhere in cpha render. */
void render_text_put(struct cpha_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* "198.18.0.11:6443", "[2001:db8::11]:6443": the address a (its own port
 * ignored) with port. Returns buf (at least CPHA_ADDR_STRLEN bytes). */
char *render_text_hostport(const struct cpha_addr *a, unsigned port, char *buf, size_t len);

/* The address alone, without port or prefix: "198.18.0.11", "2001:db8::11".
 * Returns buf (at least CPHA_ADDR_STRLEN bytes). */
char *render_text_addr(const struct cpha_addr *a, char *buf, size_t len);

#endif
