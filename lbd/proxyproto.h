/* The PROXY protocol header (v1 text, v2 binary) sent to servers configured
 * with send-proxy / send-proxy-v2. */
#ifndef LBD_PROXYPROTO_H
#define LBD_PROXYPROTO_H

#include <stddef.h>
#include <sys/socket.h>

/* Build the header for a connection from src to dst (the client's address
 * and the address it connected to). Returns its length, or -1 if buf is
 * too small (108 bytes is always enough for v1, 52 for v2). */
int proxyproto_build(int version, const struct sockaddr_storage *src,
	const struct sockaddr_storage *dst, char *buf, size_t len);

/* Write the header for client socket cfd on server socket sfd (just
 * connected, so its send buffer is empty). Returns 0 or -1. */
int proxyproto_send(int cfd, int sfd, int version);

#endif
