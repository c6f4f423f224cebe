/* Resetting the TCP connections of an address this host gives up: see
 * tcp_reset.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tcp_reset.h"

/* the states of a connection that still carries something: not
 * listening, not closed, not TIME_WAIT (nobody is there to reset) */
#define LIVE_STATES                                                                                \
	(((1u << (TCP_CLOSING + 1)) - 1) & ~(1u << TCP_LISTEN) & ~(1u << TCP_CLOSE) &              \
		~(1u << TCP_TIME_WAIT))

struct diag_req {
	struct nlmsghdr nlh;
	struct inet_diag_req_v2 r;
};

/* A sock_diag request about TCP sockets of family fam in LIVE_STATES. */
static void diag_req_init(struct diag_req *req, uint16_t type, uint16_t flags, int fam)
{
	memset(req, 0, sizeof(*req));
	req->nlh.nlmsg_len = sizeof(*req);
	req->nlh.nlmsg_type = type;
	req->nlh.nlmsg_flags = flags;
	req->nlh.nlmsg_seq = 1;
	req->r.sdiag_family = (uint8_t)fam;
	req->r.sdiag_protocol = IPPROTO_TCP;
	req->r.idiag_states = LIVE_STATES;
}

static int diag_socket(void)
{
	struct timeval tv = { .tv_sec = 1 };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);

	if (fd == -1)
		return -errno;
	/* the kernel answers at once; a bound keeps vipd's loop moving */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

/* Every TCP socket of this namespace whose local address is addr (of
 * family fam, 4 or 16 bytes) and that is not listening: their ids. */
static int dump(int fd, int fam, const uint8_t *addr, struct inet_diag_sockid **ids, size_t *n)
{
	struct diag_req req;
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	size_t alen = fam == AF_INET6 ? 16 : 4, cap = 0;
	char buf[16384];
	bool done = false;
	ssize_t got;
	int len;

	diag_req_init(&req, SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, fam);
	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&nl, sizeof(nl)) == -1)
		return -errno;
	while (!done) {
		struct nlmsghdr *h;

		got = recv(fd, buf, sizeof(buf), 0);
		if (got == -1 && errno == EINTR)
			continue;
		if (got <= 0)
			return got == 0 ? -EIO : -errno;
		len = (int)got;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
			const struct inet_diag_msg *m = NLMSG_DATA(h);

			if (h->nlmsg_type == NLMSG_DONE) {
				done = true;
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR)
				return -EPROTO;
			if (memcmp(m->id.idiag_src, addr, alen) != 0)
				continue;
			if (*n == cap) {
				struct inet_diag_sockid *v;

				cap = cap ? 2 * cap : 64;
				v = realloc(*ids, cap * sizeof(*v));
				if (!v)
					return -ENOMEM;
				*ids = v;
			}
			(*ids)[(*n)++] = m->id;
		}
	}
	return 0;
}

/* SOCK_DESTROY one socket: the kernel sends the peer a reset and the
 * owner sees ECONNABORTED. */
static int destroy(int fd, int fam, const struct inet_diag_sockid *id)
{
	struct diag_req req;
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	char buf[512];
	ssize_t len;

	diag_req_init(&req, SOCK_DESTROY, NLM_F_REQUEST | NLM_F_ACK, fam);
	req.r.id = *id;
	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&nl, sizeof(nl)) == -1)
		return -errno;
	do
		len = recv(fd, buf, sizeof(buf), 0);
	while (len == -1 && errno == EINTR);
	if (len < (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr)))
		return len < 0 ? -errno : -EIO;
	if (((struct nlmsghdr *)buf)->nlmsg_type == NLMSG_ERROR)
		return ((struct nlmsgerr *)NLMSG_DATA((struct nlmsghdr *)buf))->error;
	return 0;
}

/* Where forgotten connections go: NULL to only destroy them. */
struct forget {
	struct vipd_tcp_conn **conns;
	size_t *n, cap;
};

static int remember(struct forget *f, int fam, const struct inet_diag_sockid *id)
{
	struct vipd_tcp_conn *c;
	static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (*f->n == f->cap || !*f->conns) {
		size_t cap = f->cap > *f->n ? f->cap : (*f->n ? 2 * *f->n : 64);

		c = realloc(*f->conns, cap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		*f->conns = c;
		f->cap = cap;
	}
	c = &(*f->conns)[(*f->n)++];
	memset(c, 0, sizeof(*c));
	c->lport = id->idiag_sport;
	c->pport = id->idiag_dport;
	if (fam == AF_INET6 && !memcmp(id->idiag_src, v4mapped, 12)) {
		c->fam = AF_INET; /* an IPv4 client of a dual-stack socket */
		memcpy(c->local, (const uint8_t *)id->idiag_src + 12, 4);
		memcpy(c->peer, (const uint8_t *)id->idiag_dst + 12, 4);
	} else {
		c->fam = fam;
		memcpy(c->local, id->idiag_src, fam == AF_INET6 ? 16 : 4);
		memcpy(c->peer, id->idiag_dst, fam == AF_INET6 ? 16 : 4);
	}
	return 0;
}

/* One family's sockets on addr: dump, then destroy each (and remember it,
 * with f). */
static int reset_family(int fd, int fam, const uint8_t *addr, unsigned *reset, struct forget *f)
{
	struct inet_diag_sockid *ids = NULL;
	size_t n = 0, i;
	int r, first = 0;

	r = dump(fd, fam, addr, &ids, &n);
	for (i = 0; r == 0 && i < n; i++) {
		int e = destroy(fd, fam, &ids[i]);

		if (e == 0) {
			(*reset)++;
			if (f && remember(f, fam, &ids[i]) < 0 && !first)
				first = -ENOMEM;
		} else if (e != -ENOENT && !first) {
			first = e; /* gone meanwhile is fine; anything else is said */
		}
	}
	free(ids);
	return r < 0 ? r : first;
}

static int reset_addr(int fam, const void *addr, unsigned *reset, struct forget *f)
{
	uint8_t mapped[16] = { [10] = 0xff, [11] = 0xff };
	int fd, r, r6;

	*reset = 0;
	fd = diag_socket();
	if (fd < 0)
		return fd;
	r = reset_family(fd, fam, addr, reset, f);
	if (fam == AF_INET) {
		/* an IPv6 socket that accepted an IPv4 client (a dual-stack
		 * listener) has the address as ::ffff:a.b.c.d */
		memcpy(mapped + 12, addr, 4);
		r6 = reset_family(fd, AF_INET6, mapped, reset, f);
		if (!r && r6 != -EAFNOSUPPORT)
			r = r6;
	}
	close(fd);
	return r;
}

int vipd_tcp_reset(int fam, const void *addr, unsigned *reset)
{
	return reset_addr(fam, addr, reset, NULL);
}

int vipd_tcp_forget(
	int fam, const void *addr, struct vipd_tcp_conn **conns, size_t *n, unsigned *destroyed)
{
	struct forget f = { .conns = conns, .n = n, .cap = *n };

	return reset_addr(fam, addr, destroyed, &f);
}

/* The Internet checksum over two buffers (a pseudo-header, the segment). */
static uint16_t csum2(const void *a, size_t alen, const void *b, size_t blen)
{
	const uint8_t *p[2] = { a, b };
	size_t len[2] = { alen, blen };
	uint32_t sum = 0;

	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < len[k]; i += 2)
			sum += (uint32_t)(p[k][i] << 8 | (i + 1 < len[k] ? p[k][i + 1] : 0));
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons((uint16_t)~sum);
}

/* An ACK segment from the given-up address to the client, its sequence
 * and acknowledgement numbers arbitrary: nothing the client expects. */
static size_t nudge_packet(const struct vipd_tcp_conn *c, uint8_t *pkt)
{
	struct tcphdr th = { 0 };
	size_t alen = c->fam == AF_INET6 ? 16 : 4, iplen = c->fam == AF_INET6 ? 40 : 20;
	uint8_t ph[40] = { 0 };

	th.source = c->lport;
	th.dest = c->pport;
	th.seq = htonl(0x6e756467); /* "nudg" */
	th.ack_seq = htonl(0x65000001);
	th.doff = 5;
	th.ack = 1;
	th.window = htons(1024);
	/* the pseudo-header: RFC 9293 3.1 (IPv4), RFC 8200 8.1 (IPv6) */
	memcpy(ph, c->local, alen);
	memcpy(ph + alen, c->peer, alen);
	if (c->fam == AF_INET) {
		ph[9] = IPPROTO_TCP;
		ph[11] = sizeof(th);
	} else {
		ph[35] = sizeof(th);
		ph[39] = IPPROTO_TCP;
	}
	th.check = csum2(ph, c->fam == AF_INET ? 12 : 40, &th, sizeof(th));
	if (c->fam == AF_INET) {
		struct iphdr ip = { .version = 4, .ihl = 5, .ttl = 64, .protocol = IPPROTO_TCP };

		ip.tot_len = htons((uint16_t)(iplen + sizeof(th)));
		memcpy(&ip.saddr, c->local, 4);
		memcpy(&ip.daddr, c->peer, 4);
		/* the kernel fills in the header checksum (raw(7)) */
		memcpy(pkt, &ip, sizeof(ip));
	} else {
		struct ip6_hdr ip = { 0 };

		ip.ip6_flow = htonl(6u << 28);
		ip.ip6_plen = htons(sizeof(th));
		ip.ip6_nxt = IPPROTO_TCP;
		ip.ip6_hlim = 64;
		memcpy(&ip.ip6_src, c->local, 16);
		memcpy(&ip.ip6_dst, c->peer, 16);
		memcpy(pkt, &ip, sizeof(ip));
	}
	memcpy(pkt + iplen, &th, sizeof(th));
	return iplen + sizeof(th);
}

int vipd_tcp_nudge(const struct vipd_tcp_conn *c, size_t n, unsigned *sent)
{
	int fd[2] = { -1, -1 }, first = 0;

	*sent = 0;
	for (size_t i = 0; i < n; i++) {
		int k = c[i].fam == AF_INET6;
		uint8_t pkt[64];
		size_t len = nudge_packet(&c[i], pkt);
		struct sockaddr_storage to = { 0 };
		socklen_t tolen;

		/* IPPROTO_RAW: the header is ours, its source address too */
		if (fd[k] < 0 && (fd[k] = socket(k ? AF_INET6 : AF_INET, SOCK_RAW | SOCK_CLOEXEC,
					  IPPROTO_RAW)) < 0) {
			if (!first)
				first = -errno;
			continue;
		}
		if (k) {
			struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&to;

			s6->sin6_family = AF_INET6;
			memcpy(&s6->sin6_addr, c[i].peer, 16);
			tolen = sizeof(*s6);
		} else {
			struct sockaddr_in *s4 = (struct sockaddr_in *)&to;

			s4->sin_family = AF_INET;
			memcpy(&s4->sin_addr, c[i].peer, 4);
			tolen = sizeof(*s4);
		}
		if (sendto(fd[k], pkt, len, MSG_DONTWAIT, (struct sockaddr *)&to, tolen) ==
			(ssize_t)len)
			(*sent)++;
		else if (!first)
			first = -errno;
	}
	for (int k = 0; k < 2; k++)
		if (fd[k] >= 0)
			close(fd[k]);
	return first;
}
