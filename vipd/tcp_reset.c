/* Resetting the TCP connections of an address this host gives up: see
 * tcp_reset.h. */
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
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

/* One family's sockets on addr: dump, then destroy each. */
static int reset_family(int fd, int fam, const uint8_t *addr, unsigned *reset)
{
	struct inet_diag_sockid *ids = NULL;
	size_t n = 0, i;
	int r, first = 0;

	r = dump(fd, fam, addr, &ids, &n);
	for (i = 0; r == 0 && i < n; i++) {
		int e = destroy(fd, fam, &ids[i]);

		if (e == 0)
			(*reset)++;
		else if (e != -ENOENT && !first)
			first = e; /* gone meanwhile is fine; anything else is said */
	}
	free(ids);
	return r < 0 ? r : first;
}

int vipd_tcp_reset(int fam, const void *addr, unsigned *reset)
{
	uint8_t mapped[16] = { [10] = 0xff, [11] = 0xff };
	int fd, r, r6;

	*reset = 0;
	fd = diag_socket();
	if (fd < 0)
		return fd;
	r = reset_family(fd, fam, addr, reset);
	if (fam == AF_INET) {
		/* an IPv6 socket that accepted an IPv4 client (a dual-stack
		 * listener) has the address as ::ffff:a.b.c.d */
		memcpy(mapped + 12, addr, 4);
		r6 = reset_family(fd, AF_INET6, mapped, reset);
		if (!r && r6 != -EAFNOSUPPORT)
			r = r6;
	}
	close(fd);
	return r;
}
