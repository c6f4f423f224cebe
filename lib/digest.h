/* The SHA-256 of a configuration as loaded, in hex, so that a running
 * daemon can say which bytes it runs and anyone can compare with
 * `sha256sum FILE` (cpha check does). */
#ifndef CPHA_DIGEST_H
#define CPHA_DIGEST_H

#include <stddef.h>

#define CPHA_DIGEST_HEXLEN 65 /* 64 hex digits and a NUL */

/* SHA-256 of len bytes as lower-case hex. Returns 0 or -ENOMEM. */
int cpha_digest_hex(const void *p, size_t len, char out[CPHA_DIGEST_HEXLEN]);

/* The same of a whole file. Returns 0 or a negative errno. */
int cpha_digest_file(const char *path, char out[CPHA_DIGEST_HEXLEN]);

#endif
