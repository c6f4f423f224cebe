/* A TLS record starts with a 5-byte header: content type (22 for a
 * handshake), protocol version (major 3) and length. A handshake message
 * starts with its type (1: ClientHello) and a 3-byte length. The
 * ClientHello body is: version (2), random (32), session id (1 + n),
 * cipher suites (2 + n), compression methods (1 + n), then extensions
 * (2 + n), each a type (2), a length (2) and data; server_name (type 0)
 * holds a list (2 + n) of entries: a name type (0: host_name), a length
 * (2) and the name (RFC 8446 4.1.2, RFC 6066 section 3). Only the first
 * record is read, as HAProxy does: a ClientHello split over records gives
 * no name. */
#include <string.h>

#include "payload.h"

#define TLS_HANDSHAKE    22
#define TLS_CLIENT_HELLO 1
#define TLS_EXT_SNI      0

static unsigned be16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

/* The first record's handshake message: *msg and *len, or why not. */
static enum payload_result first_handshake(
	const uint8_t *b, size_t n, const uint8_t **msg, size_t *len)
{
	size_t rlen, hlen;

	if (n < 1)
		return PAYLOAD_MORE;
	if (b[0] != TLS_HANDSHAKE)
		return PAYLOAD_ABSENT;
	if (n < 5)
		return PAYLOAD_MORE;
	if (b[1] != 3)
		return PAYLOAD_ABSENT;
	rlen = be16(b + 3);
	if (rlen < 4)
		return PAYLOAD_ABSENT;
	if (n < 9)
		return PAYLOAD_MORE;
	hlen = (size_t)b[6] << 16 | (size_t)b[7] << 8 | b[8];
	if (hlen + 4 > rlen) /* split over records */
		return PAYLOAD_ABSENT;
	if (n < 9 + hlen)
		return PAYLOAD_MORE;
	*msg = b + 5;
	*len = hlen + 4;
	return PAYLOAD_FOUND;
}

enum payload_result payload_ssl_hello_type(const uint8_t *b, size_t n, int *out)
{
	const uint8_t *m;
	size_t len;
	enum payload_result r = first_handshake(b, n, &m, &len);

	if (r == PAYLOAD_FOUND)
		*out = m[0];
	return r;
}

/* Skip a field of lsize length bytes then that many bytes: the new
 * offset, or 0 past end. */
static size_t skip_vec(const uint8_t *m, size_t len, size_t off, unsigned lsize)
{
	size_t v;

	if (off + lsize > len)
		return 0;
	v = lsize == 1 ? m[off] : be16(m + off);
	return off + lsize + v > len ? 0 : off + lsize + v;
}

enum payload_result payload_ssl_sni(const uint8_t *b, size_t n, char *out)
{
	const uint8_t *m;
	size_t len, off, end, ext_end, list_end, nlen;
	enum payload_result r = first_handshake(b, n, &m, &len);

	if (r != PAYLOAD_FOUND)
		return r;
	if (m[0] != TLS_CLIENT_HELLO)
		return PAYLOAD_ABSENT;
	off = 4 + 2 + 32; /* header, version, random */
	if (off > len || !(off = skip_vec(m, len, off, 1)) || /* session id */
		!(off = skip_vec(m, len, off, 2)) ||           /* cipher suites */
		!(off = skip_vec(m, len, off, 1)))             /* compression */
		return PAYLOAD_ABSENT;
	if (off + 2 > len)
		return PAYLOAD_ABSENT; /* no extensions */
	end = off + 2 + be16(m + off);
	if (end > len)
		return PAYLOAD_ABSENT;
	for (off += 2; off + 4 <= end; off = ext_end) {
		ext_end = off + 4 + be16(m + off + 2);
		if (ext_end > end)
			return PAYLOAD_ABSENT;
		if (be16(m + off) != TLS_EXT_SNI)
			continue;
		off += 4;
		if (off + 2 > ext_end)
			return PAYLOAD_ABSENT;
		list_end = off + 2 + be16(m + off);
		if (list_end > ext_end)
			return PAYLOAD_ABSENT;
		for (off += 2; off + 3 <= list_end; off += 3 + nlen) {
			nlen = be16(m + off + 1);
			if (off + 3 + nlen > list_end)
				return PAYLOAD_ABSENT;
			if (m[off] != 0)
				continue; /* not a host_name */
			if (nlen == 0 || nlen > PAYLOAD_SNI_MAX ||
				memchr(m + off + 3, '\0', nlen) != NULL)
				return PAYLOAD_ABSENT;
			memcpy(out, m + off + 3, nlen);
			out[nlen] = '\0';
			return PAYLOAD_FOUND;
		}
		return PAYLOAD_ABSENT;
	}
	return PAYLOAD_ABSENT;
}
