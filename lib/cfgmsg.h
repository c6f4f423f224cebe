/* Helpers every configuration parser needs: messages that carry their
 * position ("file:line: text") and arrays that grow one zeroed element at a
 * time. Parsers collect messages instead of logging. */
#ifndef CPHA_CFGMSG_H
#define CPHA_CFGMSG_H

#include <stdarg.h>
#include <stddef.h>

/* "file:line: text", or "file: text" when line is 0, in a new string;
 * NULL when out of memory. */
char *cpha_cfgmsg_vformat(const char *file, unsigned line, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
char *cpha_cfgmsg_format(const char *file, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Append one zeroed element of size bytes to the array at *arrayp holding
 * *n elements; returns the new element, or NULL when out of memory (the
 * array is unchanged then). */
void *cpha_array_push(void *arrayp, size_t *n, size_t size);

/* Say "PROGRAM: out of memory" on stderr and exit 70 (EX_SOFTWARE): for
 * programs that cannot go on without the memory they asked for. */
_Noreturn void cpha_oom(void);

#endif
