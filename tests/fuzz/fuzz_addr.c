/* libFuzzer target: address, port and prefix parsing, and formatting back. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "addr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned modes[] = { CPHA_ADDR_PORT_NONE, CPHA_ADDR_PORT_OPTIONAL,
		CPHA_ADDR_PORT_REQUIRED };
	char text[256], out[CPHA_ADDR_STRLEN];
	struct cpha_addr a, b;
	const char *why = NULL;
	unsigned plen;
	size_t i;

	if (size >= sizeof(text))
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (i = 0; i < 3; i++) {
		why = NULL;
		if (cpha_parse_addr(text, modes[i], &a, &why) < 0) {
			if (!why)
				__builtin_trap();
			continue;
		}
		/* what we print parses back to the same address: with a port as
		 * host:port, without one as a bare address */
		cpha_addr_format(&a, out, sizeof(out));
		if (cpha_parse_addr(out,
			    (a.flags & CPHA_ADDR_F_PORT) ? CPHA_ADDR_PORT_REQUIRED : CPHA_ADDR_PORT_NONE,
			    &b, &why) < 0 ||
			!cpha_addr_equal(&a, &b))
			__builtin_trap();
	}
	if (cpha_parse_prefix(text, &a, &plen, &why) == 0 && plen > 128)
		__builtin_trap();
	return 0;
}
