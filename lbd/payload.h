/* Samples from the first bytes a client sent, read without consuming them
 * (MSG_PEEK): HAProxy's req.len, req.ssl_hello_type and req.ssl_sni, for
 * tcp-request content rules and use_backend conditions. Pure. */
#ifndef LBD_PAYLOAD_H
#define LBD_PAYLOAD_H

#include <stddef.h>
#include <stdint.h>

/* What a fetch found in the bytes it was given. */
enum payload_result {
	PAYLOAD_FOUND,   /* the sample is in *out */
	PAYLOAD_MORE,    /* not yet: more bytes could still give it */
	PAYLOAD_ABSENT,  /* never: these bytes cannot give it */
};

/* The longest host name req.ssl_sni returns (a DNS name) */
#define PAYLOAD_SNI_MAX 255

/* The TLS handshake message type of a complete first handshake record
 * (1: ClientHello), as HAProxy's req.ssl_hello_type. */
enum payload_result payload_ssl_hello_type(const uint8_t *b, size_t n, int *out);

/* The host_name of the server_name extension of a ClientHello whose first
 * record is complete, as HAProxy's req.ssl_sni; out holds
 * PAYLOAD_SNI_MAX + 1 bytes. */
enum payload_result payload_ssl_sni(const uint8_t *b, size_t n, char *out);

#endif
