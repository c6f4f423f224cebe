/* libFuzzer target: what a client sends the metrics listener (the
 * Authorization header: header lookup, base64, user:password) and the web
 * configuration parser. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "webcfg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* "u" with the password "p", bcrypt at the lowest cost */
static const char users[] =
	"basic_auth_users:\n  u: $2b$04$jvixhmUx2qoww1ONT7xsle0Wt.2D3L9/BVPVIonSFZsg8VtKpHoDG\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cpha_webcfg *w;
	static uint64_t now;
	char head[4096], value[1024], err[512];
	unsigned char out[1024];
	struct cpha_webcfg *p = NULL;
	enum cpha_web_auth a;
	int n, r;

	if (!w && cpha_webcfg_parse("w.yml", users, sizeof(users) - 1, &w, err, sizeof(err)) < 0)
		__builtin_trap();
	if (size >= sizeof(head))
		return 0;
	memcpy(head, data, size);
	head[size] = '\0';

	n = cpha_http_header(head, "Authorization", value, sizeof(value));
	if (n >= 0 && (size_t)n != strlen(value))
		__builtin_trap();
	now += 1000000; /* a fresh bcrypt budget each time */
	a = cpha_webcfg_auth(w, n >= 0 ? value : NULL, now);
	if (a > CPHA_WEB_AUTH_BUSY || (n < 0 && a != CPHA_WEB_AUTH_MISSING))
		__builtin_trap();
	n = cpha_base64_decode(head, size, out, sizeof(out));
	if (n >= 0 && (out[n] != '\0' || (size_t)n > size / 4 * 3))
		__builtin_trap();

	r = cpha_webcfg_parse("f.yml", (const char *)data, size, &p, err, sizeof(err));
	if (r == -EINVAL && strncmp(err, "f.yml", 5) != 0)
		__builtin_trap();
	if ((r == 0) != (p != NULL))
		__builtin_trap();
	cpha_webcfg_unref(p);
	return 0;
}
