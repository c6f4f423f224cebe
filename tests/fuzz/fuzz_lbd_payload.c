/* libFuzzer target: the samples lbd reads from a client's first bytes
 * (untrusted: any client sends them) for tcp-request content rules.
 *
 * Input: the bytes a client sent. Invariants: no crash and no read past
 * them; every prefix of an input that gives a sample answers "more"
 * (never "absent") for req.ssl_hello_type, as a rule waiting for the rest
 * needs; a server name found is a non-empty string without NUL of at most
 * 255 bytes. Seeds: tests/fuzz/seeds/lbd_payload (ClientHellos with and
 * without a server name, an HTTP request). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "payload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char sni[PAYLOAD_SNI_MAX + 1];
	uint8_t *copy;
	size_t n;
	int type;

	/* an exact-size copy: ASan sees a read past the client's bytes */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (payload_ssl_sni(copy, size, sni) == PAYLOAD_FOUND) {
		n = strlen(sni);
		if (n == 0 || n > PAYLOAD_SNI_MAX)
			abort();
	}
	if (payload_ssl_hello_type(copy, size, &type) == PAYLOAD_FOUND) {
		for (n = 0; n < size; n++)
			if (payload_ssl_hello_type(copy, n, &type) != PAYLOAD_MORE &&
				payload_ssl_hello_type(copy, n, &type) != PAYLOAD_FOUND)
				abort();
	}
	free(copy);
	return 0;
}
