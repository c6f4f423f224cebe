/* A captured packet and the IP header fields it came with (the tables
 * tests/vipd-vectors/extract.py --c writes are arrays of these). */
#ifndef VIPD_KVEC_TEST_H
#define VIPD_KVEC_TEST_H

#include <stddef.h>
#include <stdint.h>

struct kvec {
	const char *name;
	int family;
	const char *src, *dst;
	int ttl;
	const uint8_t *bytes;
	size_t len;
};

#endif
