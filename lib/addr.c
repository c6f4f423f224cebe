#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"

static int parse_port(const char *s, uint16_t *port, const char **why)
{
	unsigned long v = 0;
	const char *p;

	if (!*s) {
		*why = "missing port after ':'";
		return -EINVAL;
	}
	for (p = s; *p; p++) {
		if (*p < '0' || *p > '9') {
			*why = "port is not a number between 1 and 65535";
			return -EINVAL;
		}
		v = v * 10 + (unsigned long)(*p - '0');
		if (v > 65535)
			break;
	}
	if (v == 0 || v > 65535) {
		*why = "port is not a number between 1 and 65535";
		return -EINVAL;
	}
	*port = (uint16_t)v;
	return 0;
}

static int set_v4(struct cpha_addr *a, const char *host)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)&a->ss;

	sin->sin_family = AF_INET;
	a->len = sizeof(*sin);
	if (*host == '\0' || strcmp(host, "*") == 0) {
		sin->sin_addr.s_addr = htonl(INADDR_ANY);
		a->flags |= CPHA_ADDR_F_ANY;
		return 0;
	}
	if (inet_pton(AF_INET, host, &sin->sin_addr) != 1)
		return -EINVAL;
	if (sin->sin_addr.s_addr == htonl(INADDR_ANY))
		a->flags |= CPHA_ADDR_F_ANY;
	return 0;
}

static int set_v6(struct cpha_addr *a, const char *host)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&a->ss;
	char tmp[INET6_ADDRSTRLEN + IF_NAMESIZE + 2];
	char *zone;

	if (strlen(host) >= sizeof(tmp))
		return -EINVAL;
	strcpy(tmp, host);
	sin6->sin6_family = AF_INET6;
	a->len = sizeof(*sin6);
	if (tmp[0] == '\0' || strcmp(tmp, "*") == 0) {
		sin6->sin6_addr = in6addr_any;
		a->flags |= CPHA_ADDR_F_ANY;
		return 0;
	}
	zone = strchr(tmp, '%');
	if (zone) {
		*zone++ = '\0';
		/* what Linux allows in an interface name (dev_valid_name) */
		if (!*zone || strlen(zone) >= IF_NAMESIZE || strcmp(zone, ".") == 0 ||
			strcmp(zone, "..") == 0 || strpbrk(zone, "/:%[] \t\n") != NULL)
			return -EINVAL;
		strcpy(a->ifname, zone);
		sin6->sin6_scope_id = if_nametoindex(zone);
		if (!sin6->sin6_scope_id && strspn(zone, "0123456789") == strlen(zone))
			sin6->sin6_scope_id = (uint32_t)strtoul(zone, NULL, 10);
	}
	if (inet_pton(AF_INET6, tmp, &sin6->sin6_addr) != 1)
		return -EINVAL;
	if (IN6_IS_ADDR_UNSPECIFIED(&sin6->sin6_addr))
		a->flags |= CPHA_ADDR_F_ANY;
	return 0;
}

int cpha_parse_addr(const char *s, unsigned flags, struct cpha_addr *a, const char **why)
{
	unsigned pmode = flags & CPHA_ADDR_PORT_MASK;
	char host[INET6_ADDRSTRLEN + IF_NAMESIZE + 8];
	const char *portstr = NULL, *colon;
	int family = AF_UNSPEC, r;
	uint16_t port = 0;
	size_t hl;

	memset(a, 0, sizeof(*a));
	if (strncmp(s, "ipv4@", 5) == 0) {
		family = AF_INET;
		s += 5;
	} else if (strncmp(s, "ipv6@", 5) == 0) {
		family = AF_INET6;
		s += 5;
	}
	if (strlen(s) >= sizeof(host)) {
		*why = "address too long";
		return -EINVAL;
	}
	colon = strchr(s, ':');
	if (pmode == CPHA_ADDR_PORT_NONE && colon && colon == strrchr(s, ':') && s[0] != '[') {
		*why = "a port is not allowed here";
		return -EINVAL;
	}

	if (s[0] == '[') {
		const char *end = strchr(s, ']');

		if (!end) {
			*why = "missing ']' after an IPv6 address";
			return -EINVAL;
		}
		if (family == AF_INET) {
			*why = "brackets hold an IPv6 address, not IPv4";
			return -EINVAL;
		}
		family = AF_INET6;
		hl = (size_t)(end - s - 1);
		memcpy(host, s + 1, hl);
		host[hl] = '\0';
		if (end[1] == ':')
			portstr = end + 2;
		else if (end[1]) {
			*why = "unexpected text after ']'";
			return -EINVAL;
		}
	} else {
		colon = strrchr(s, ':');
		if (colon && pmode != CPHA_ADDR_PORT_NONE && colon == strchr(s, ':')) {
			/* one colon: IPv4, "*" or empty host with a port */
			portstr = colon + 1;
		} else if (colon && pmode != CPHA_ADDR_PORT_NONE) {
			/* several colons: IPv6; HAProxy takes the last one as the port
			 * separator, unless the whole text only parses as an address */
			struct in6_addr tmp6;
			char left[sizeof(host)];

			hl = (size_t)(colon - s);
			memcpy(left, s, hl);
			left[hl] = '\0';
			if ((strchr(left, '%') || inet_pton(AF_INET6, left, &tmp6) == 1 ||
				    hl == 0 || strcmp(left, "::") == 0) &&
				strspn(colon + 1, "0123456789") == strlen(colon + 1) && colon[1])
				portstr = colon + 1;
			else if (pmode == CPHA_ADDR_PORT_REQUIRED) {
				*why = "missing port (write [address]:port for IPv6)";
				return -EINVAL;
			}
			if (family == AF_UNSPEC)
				family = AF_INET6;
		}
		hl = portstr ? (size_t)(portstr - 1 - s) : strlen(s);
		memcpy(host, s, hl);
		host[hl] = '\0';
		if (family == AF_UNSPEC && strchr(host, ':'))
			family = AF_INET6;
	}

	if (portstr) {
		if (pmode == CPHA_ADDR_PORT_NONE) {
			*why = "a port is not allowed here";
			return -EINVAL;
		}
		r = parse_port(portstr, &port, why);
		if (r < 0)
			return r;
		a->flags |= CPHA_ADDR_F_PORT;
	} else if (pmode == CPHA_ADDR_PORT_REQUIRED) {
		*why = "missing port (expected address:port)";
		return -EINVAL;
	}
	if ((host[0] == '\0' || strcmp(host, "*") == 0) && pmode != CPHA_ADDR_PORT_REQUIRED &&
		!portstr) {
		*why = "missing address";
		return -EINVAL;
	}

	if (family == AF_INET6)
		r = set_v6(a, host);
	else
		r = set_v4(a, host);
	if (r < 0) {
		*why = family == AF_INET6 ? "not a valid IPv6 address"
					  : (strchr(host, '.') ? "not a valid IPv4 address"
							       : "not a numeric IP address");
		return r;
	}
	cpha_addr_set_port(a, port);
	return 0;
}

int cpha_parse_prefix(const char *s, struct cpha_addr *a, unsigned *prefixlen, const char **why)
{
	char tmp[CPHA_ADDR_STRLEN];
	const char *slash = strchr(s, '/');
	unsigned long len, max;
	size_t hl = slash ? (size_t)(slash - s) : strlen(s);
	char *end;
	int r;

	if (hl >= sizeof(tmp)) {
		*why = "address too long";
		return -EINVAL;
	}
	memcpy(tmp, s, hl);
	tmp[hl] = '\0';
	r = cpha_parse_addr(tmp, CPHA_ADDR_PORT_NONE, a, why);
	if (r < 0)
		return r;
	max = cpha_addr_family(a) == AF_INET6 ? 128 : 32;
	if (!slash) {
		*prefixlen = (unsigned)max;
		return 0;
	}
	errno = 0;
	len = strtoul(slash + 1, &end, 10);
	if (!slash[1] || *end || errno || len > max || slash[1] == '-' || slash[1] == '+') {
		*why = max == 32 ? "prefix length must be 0 to 32"
				 : "prefix length must be 0 to 128";
		return -EINVAL;
	}
	*prefixlen = (unsigned)len;
	return 0;
}

uint16_t cpha_addr_port(const struct cpha_addr *a)
{
	if (a->ss.ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)&a->ss)->sin6_port);
	return ntohs(((const struct sockaddr_in *)&a->ss)->sin_port);
}

void cpha_addr_set_port(struct cpha_addr *a, uint16_t port)
{
	if (a->ss.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&a->ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)&a->ss)->sin_port = htons(port);
}

int cpha_addr_family(const struct cpha_addr *a)
{
	return a->ss.ss_family;
}

bool cpha_addr_same_ip(const struct cpha_addr *a, const struct sockaddr *sa)
{
	if (!sa || sa->sa_family != a->ss.ss_family)
		return false;
	if (sa->sa_family == AF_INET)
		return memcmp(&((const struct sockaddr_in *)(const void *)sa)->sin_addr,
			       &((const struct sockaddr_in *)(const void *)&a->ss)->sin_addr,
			       4) == 0;
	return sa->sa_family == AF_INET6 &&
	       memcmp(&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr,
		       &((const struct sockaddr_in6 *)(const void *)&a->ss)->sin6_addr, 16) == 0;
}

bool cpha_addr_equal(const struct cpha_addr *a, const struct cpha_addr *b)
{
	if (a->ss.ss_family != b->ss.ss_family || cpha_addr_port(a) != cpha_addr_port(b))
		return false;
	if (a->ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *x = (const void *)&a->ss, *y = (const void *)&b->ss;

		return memcmp(&x->sin6_addr, &y->sin6_addr, sizeof(x->sin6_addr)) == 0 &&
		       x->sin6_scope_id == y->sin6_scope_id && strcmp(a->ifname, b->ifname) == 0;
	}
	return ((const struct sockaddr_in *)&a->ss)->sin_addr.s_addr ==
	       ((const struct sockaddr_in *)&b->ss)->sin_addr.s_addr;
}

char *cpha_addr_format(const struct cpha_addr *a, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN];
	uint16_t port = cpha_addr_port(a);

	if (a->ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const void *)&a->ss;
		char zone[IF_NAMESIZE + 2] = "";

		inet_ntop(AF_INET6, &sin6->sin6_addr, host, sizeof(host));
		if (a->ifname[0])
			snprintf(zone, sizeof(zone), "%%%s", a->ifname);
		else if (sin6->sin6_scope_id)
			snprintf(zone, sizeof(zone), "%%%u", sin6->sin6_scope_id);
		if (port)
			snprintf(buf, len, "[%s%s]:%u", host, zone, port);
		else
			snprintf(buf, len, "%s%s", host, zone);
	} else if (a->ss.ss_family == AF_INET) {
		inet_ntop(AF_INET, &((const struct sockaddr_in *)&a->ss)->sin_addr, host,
			sizeof(host));
		if (port)
			snprintf(buf, len, "%s:%u", host, port);
		else
			snprintf(buf, len, "%s", host);
	} else {
		snprintf(buf, len, "?");
	}
	return buf;
}
