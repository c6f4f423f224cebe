#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "proxyproto.h"

/* PROXY protocol specification, section 2.2: the v2 signature */
static const char v2sig[12] = "\r\n\r\n\0\r\nQUIT\n";

static uint16_t port_of(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}

int proxyproto_build(int version, const struct sockaddr_storage *src,
	const struct sockaddr_storage *dst, char *buf, size_t len)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
	int n, v6 = src->ss_family == AF_INET6;

	if (src->ss_family != dst->ss_family)
		return -1;
	if (version == 1) {
		inet_ntop(src->ss_family,
			v6 ? (const void *)&((const struct sockaddr_in6 *)src)->sin6_addr
			   : (const void *)&((const struct sockaddr_in *)src)->sin_addr,
			s, sizeof(s));
		inet_ntop(dst->ss_family,
			v6 ? (const void *)&((const struct sockaddr_in6 *)dst)->sin6_addr
			   : (const void *)&((const struct sockaddr_in *)dst)->sin_addr,
			d, sizeof(d));
		n = snprintf(buf, len, "PROXY %s %s %s %u %u\r\n", v6 ? "TCP6" : "TCP4", s, d,
			port_of(src), port_of(dst));
		return n < 0 || (size_t)n >= len ? -1 : n;
	}
	/* v2: signature, version 2 + PROXY command, family, length, addresses */
	if (len < 16 + (v6 ? 36u : 12u))
		return -1;
	memcpy(buf, v2sig, 12);
	buf[12] = 0x21;
	buf[13] = v6 ? 0x21 : 0x11; /* AF_INET(6) + STREAM */
	buf[14] = 0;
	buf[15] = v6 ? 36 : 12;
	if (v6) {
		memcpy(buf + 16, &((const struct sockaddr_in6 *)src)->sin6_addr, 16);
		memcpy(buf + 32, &((const struct sockaddr_in6 *)dst)->sin6_addr, 16);
		memcpy(buf + 48, &((const struct sockaddr_in6 *)src)->sin6_port, 2);
		memcpy(buf + 50, &((const struct sockaddr_in6 *)dst)->sin6_port, 2);
		return 52;
	}
	memcpy(buf + 16, &((const struct sockaddr_in *)src)->sin_addr, 4);
	memcpy(buf + 20, &((const struct sockaddr_in *)dst)->sin_addr, 4);
	memcpy(buf + 24, &((const struct sockaddr_in *)src)->sin_port, 2);
	memcpy(buf + 26, &((const struct sockaddr_in *)dst)->sin_port, 2);
	return 28;
}

int proxyproto_send(int cfd, int sfd, int version)
{
	struct sockaddr_storage src, dst;
	socklen_t sl = sizeof(src), dl = sizeof(dst);
	char buf[128];
	ssize_t w;
	int n;

	if (getpeername(cfd, (struct sockaddr *)&src, &sl) == -1 ||
		getsockname(cfd, (struct sockaddr *)&dst, &dl) == -1)
		return -1;
	n = proxyproto_build(version, &src, &dst, buf, sizeof(buf));
	if (n < 0)
		return -1;
	do
		w = send(sfd, buf, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (w == -1 && errno == EINTR);
	return w == n ? 0 : -1;
}
