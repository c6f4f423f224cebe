/* Socket addresses as written in configuration files. */
#ifndef CPHA_ADDR_H
#define CPHA_ADDR_H

#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

/* How a port is treated by cpha_parse_addr(). */
#define CPHA_ADDR_PORT_NONE     0u /* a port is an error (keepalived addresses) */
#define CPHA_ADDR_PORT_OPTIONAL 1u /* host or host:port */
#define CPHA_ADDR_PORT_REQUIRED 2u /* host:port; host may be empty or "*" (bind) */
#define CPHA_ADDR_PORT_MASK     3u

/* Flags set in cpha_addr.flags. */
#define CPHA_ADDR_F_ANY  (1u << 0) /* wildcard address ("*", ":port", "::") */
#define CPHA_ADDR_F_PORT (1u << 1) /* a port was written */

/* Longest text cpha_addr_format() writes, with its NUL. */
#define CPHA_ADDR_STRLEN (INET6_ADDRSTRLEN + IF_NAMESIZE + 10)

struct cpha_addr {
	struct sockaddr_storage ss; /* family, address, port, IPv6 scope id */
	socklen_t len;              /* length of the sockaddr in ss */
	unsigned flags;             /* CPHA_ADDR_F_* */
	char ifname[IF_NAMESIZE];   /* zone of a scoped IPv6 address, or "" */
};

/* Parse a numeric address: "198.18.0.1", "198.18.0.1:6443", "*:6443", ":6443",
 * "[2001:db8::1]:6443", "[fe80::1%eth0]:80", "2001:db8::1" and HAProxy's
 * "2001:db8::1:6443" / ":::6443" (the last colon starts the port when a port
 * is allowed), with optional "ipv4@" / "ipv6@" prefixes. "*" and an empty
 * host stand for IPv4's any address, as in HAProxy. A zone that names no
 * interface on this machine is kept in ifname with scope id 0 (checked when
 * the address is used). Returns 0 or -EINVAL with *why set. */
int cpha_parse_addr(const char *s, unsigned flags, struct cpha_addr *a, const char **why);

/* Parse "address[/prefixlen]" (no port); the length defaults to 32 or 128.
 * Returns 0 or -EINVAL with *why set. */
int cpha_parse_prefix(const char *s, struct cpha_addr *a, unsigned *prefixlen, const char **why);

/* Port of an address in host order (0 when none). */
uint16_t cpha_addr_port(const struct cpha_addr *a);

/* Set the port of an address. */
void cpha_addr_set_port(struct cpha_addr *a, uint16_t port);

/* Address family (AF_INET or AF_INET6). */
int cpha_addr_family(const struct cpha_addr *a);

/* True when family, address, port and scope are the same. */
bool cpha_addr_equal(const struct cpha_addr *a, const struct cpha_addr *b);

/* True when sa (an interface's address, as getifaddrs gives it) is the
 * IP address of a: family and address only. */
bool cpha_addr_same_ip(const struct cpha_addr *a, const struct sockaddr *sa);

/* "198.18.0.1:6443", "[2001:db8::1]:6443" or, without a port, the bare
 * address. Returns buf (at least CPHA_ADDR_STRLEN bytes). */
char *cpha_addr_format(const struct cpha_addr *a, char *buf, size_t len);

#endif
