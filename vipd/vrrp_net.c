#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "vrrp_net.h"

void vrrp_group(int family, struct cpha_addr *out)
{
	const char *why;

	cpha_parse_addr(
		family == AF_INET6 ? "ff02::12" : "224.0.0.18", CPHA_ADDR_PORT_NONE, out, &why);
}

int vrrp_sock_open(struct vrrp_sock *s, int family, int ifindex, const struct cpha_addr *group)
{
	char ifname[IF_NAMESIZE];
	int fd, one = 1, zero = 0, ttl = 255, r;

	s->fd = -1;
	s->family = family;
	s->ifindex = ifindex;
	if (!if_indextoname((unsigned)ifindex, ifname))
		return -ENODEV;
	fd = socket(family, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, VRRP_PROTO);
	if (fd == -1)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, ifname, (socklen_t)strlen(ifname)) == -1)
		goto fail;
	if (family == AF_INET) {
		struct ip_mreqn mr = { .imr_ifindex = ifindex };

		/* RFC 9568 §5.1.1.3: TTL 255 */
		if (setsockopt(fd, IPPROTO_IP, IP_TTL, &ttl, sizeof(ttl)) == -1 ||
			setsockopt(fd, IPPROTO_IP, IP_MULTICAST_TTL, &ttl, sizeof(ttl)) == -1 ||
			setsockopt(fd, IPPROTO_IP, IP_MULTICAST_LOOP, &zero, sizeof(zero)) == -1 ||
			setsockopt(fd, IPPROTO_IP, IP_MULTICAST_IF, &mr, sizeof(mr)) == -1 ||
			setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one)) == -1)
			goto fail;
		if (group) {
			mr.imr_multiaddr = ((const struct sockaddr_in *)&group->ss)->sin_addr;
			if (setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mr, sizeof(mr)) == -1)
				goto fail;
		}
	} else {
		struct ipv6_mreq mr = { .ipv6mr_interface = (unsigned)ifindex };
		unsigned idx = (unsigned)ifindex;

		/* RFC 9568 §5.1.2.3: hop limit 255 */
		if (setsockopt(fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &ttl, sizeof(ttl)) == -1 ||
			setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, &ttl, sizeof(ttl)) ==
				-1 ||
			setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_LOOP, &zero, sizeof(zero)) ==
				-1 ||
			setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_IF, &idx, sizeof(idx)) == -1 ||
			setsockopt(fd, IPPROTO_IPV6, IPV6_RECVHOPLIMIT, &one, sizeof(one)) == -1 ||
			setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &one, sizeof(one)) == -1)
			goto fail;
		if (group) {
			mr.ipv6mr_multiaddr = ((const struct sockaddr_in6 *)&group->ss)->sin6_addr;
			if (setsockopt(fd, IPPROTO_IPV6, IPV6_JOIN_GROUP, &mr, sizeof(mr)) == -1)
				goto fail;
		}
	}
	s->fd = fd;
	return 0;
fail:
	r = -errno;
	close(fd);
	return r;
}

void vrrp_sock_close(struct vrrp_sock *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

int vrrp_sock_send(struct vrrp_sock *s, const void *buf, size_t len, const struct cpha_addr *src,
	const struct cpha_addr *dst)
{
	union {
		char v4[CMSG_SPACE(sizeof(struct in_pktinfo))];
		char v6[CMSG_SPACE(sizeof(struct in6_pktinfo))];
	} ctl;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct sockaddr_storage to = dst->ss;
	struct msghdr mh = { .msg_name = &to,
		.msg_namelen = dst->len,
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = &ctl };
	struct cmsghdr *c;

	memset(&ctl, 0, sizeof(ctl));
	/* the source is set on every packet: never a VIP the kernel might pick */
	if (s->family == AF_INET) {
		struct in_pktinfo pi = { .ipi_ifindex = s->ifindex };

		pi.ipi_spec_dst = ((const struct sockaddr_in *)&src->ss)->sin_addr;
		mh.msg_controllen = CMSG_SPACE(sizeof(pi));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = IPPROTO_IP;
		c->cmsg_type = IP_PKTINFO;
		c->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(c), &pi, sizeof(pi));
	} else {
		struct in6_pktinfo pi = { .ipi6_ifindex = (unsigned)s->ifindex };

		pi.ipi6_addr = ((const struct sockaddr_in6 *)&src->ss)->sin6_addr;
		((struct sockaddr_in6 *)&to)->sin6_scope_id = (uint32_t)s->ifindex;
		mh.msg_controllen = CMSG_SPACE(sizeof(pi));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = IPPROTO_IPV6;
		c->cmsg_type = IPV6_PKTINFO;
		c->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(c), &pi, sizeof(pi));
	}
	if (sendmsg(s->fd, &mh, MSG_DONTWAIT) == -1)
		return -errno;
	return 0;
}

static void set4(struct cpha_addr *a, const struct in_addr *in)
{
	memset(a, 0, sizeof(*a));
	((struct sockaddr_in *)&a->ss)->sin_family = AF_INET;
	((struct sockaddr_in *)&a->ss)->sin_addr = *in;
	a->len = sizeof(struct sockaddr_in);
}

static void set6(struct cpha_addr *a, const struct in6_addr *in)
{
	memset(a, 0, sizeof(*a));
	((struct sockaddr_in6 *)&a->ss)->sin6_family = AF_INET6;
	((struct sockaddr_in6 *)&a->ss)->sin6_addr = *in;
	a->len = sizeof(struct sockaddr_in6);
}

int vrrp_sock_recv(
	struct vrrp_sock *s, void *buf, size_t len, const void **payload, struct vrrp_rx *rx)
{
	char ctl[256];
	struct sockaddr_storage from;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr mh = { .msg_name = &from,
		.msg_namelen = sizeof(from),
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctl,
		.msg_controllen = sizeof(ctl) };
	struct cmsghdr *c;
	ssize_t n;

	n = recvmsg(s->fd, &mh, MSG_DONTWAIT);
	if (n == -1)
		return errno == EAGAIN ? 0 : -errno;
	memset(rx, 0, sizeof(*rx));
	if (s->family == AF_INET) {
		const struct iphdr *ip = buf;
		size_t hl;

		if ((size_t)n < sizeof(*ip))
			return -EBADMSG;
		hl = (size_t)ip->ihl * 4;
		if (hl < sizeof(*ip) || (size_t)n < hl)
			return -EBADMSG;
		rx->ttl = ip->ttl;
		set4(&rx->src, &(struct in_addr){ ip->saddr });
		set4(&rx->dst, &(struct in_addr){ ip->daddr });
		*payload = (const char *)buf + hl;
		rx->len = (size_t)n - hl;
		return 1;
	}
	rx->ttl = -1;
	set6(&rx->src, &((struct sockaddr_in6 *)&from)->sin6_addr);
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != IPPROTO_IPV6)
			continue;
		if (c->cmsg_type == IPV6_HOPLIMIT)
			memcpy(&rx->ttl, CMSG_DATA(c), sizeof(int));
		else if (c->cmsg_type == IPV6_PKTINFO)
			set6(&rx->dst, &((struct in6_pktinfo *)CMSG_DATA(c))->ipi6_addr);
	}
	*payload = buf;
	rx->len = (size_t)n;
	return 1;
}

int vrrp_primary_addr(int family, int ifindex, const struct cpha_addr *exclude, size_t nexclude,
	struct cpha_addr *out)
{
	struct ifaddrs *ifa, *i;
	char name[IF_NAMESIZE];
	size_t k;
	int found = 0;

	if (!if_indextoname((unsigned)ifindex, name))
		return -ENODEV;
	if (getifaddrs(&ifa) == -1)
		return -errno;
	for (i = ifa; i && !found; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != family || strcmp(i->ifa_name, name))
			continue;
		if (family == AF_INET6) {
			const struct in6_addr *a6 =
				&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr;

			if (!IN6_IS_ADDR_LINKLOCAL(a6))
				continue;
			set6(out, a6);
			found = 1;
		} else {
			struct cpha_addr cand;

			set4(&cand, &((struct sockaddr_in *)i->ifa_addr)->sin_addr);
			for (k = 0; k < nexclude; k++)
				if (cpha_addr_equal(&cand, &exclude[k]))
					break;
			if (k < nexclude)
				continue;
			*out = cand;
			found = 1;
		}
	}
	freeifaddrs(ifa);
	return found ? 0 : -EADDRNOTAVAIL;
}
