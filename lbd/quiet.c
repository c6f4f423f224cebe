#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "quiet.h"

int quiet_add(struct lbd_quiet *q, const struct cpha_addr *a, uint64_t until)
{
	if (a->ss.ss_family != AF_INET && a->ss.ss_family != AF_INET6)
		return -EAFNOSUPPORT;
	for (size_t i = 0; i < q->n; i++)
		if (cpha_addr_same_ip(&q->e[i].addr, (const struct sockaddr *)&a->ss)) {
			q->e[i].until = until;
			return 0;
		}
	if (q->n >= LBD_QUIET_MAX)
		return -ENOSPC;
	q->e[q->n].addr = *a;
	q->e[q->n].until = until;
	q->n++;
	return 0;
}

bool quiet_remove(struct lbd_quiet *q, const struct cpha_addr *a)
{
	for (size_t i = 0; i < q->n; i++)
		if (cpha_addr_same_ip(&q->e[i].addr, (const struct sockaddr *)&a->ss)) {
			q->e[i] = q->e[--q->n];
			return true;
		}
	return false;
}

bool quiet_expire(struct lbd_quiet *q, uint64_t now)
{
	bool any = false;

	for (size_t i = 0; i < q->n;)
		if (q->e[i].until <= now) {
			q->e[i] = q->e[--q->n];
			any = true;
		} else {
			i++;
		}
	return any;
}

uint64_t quiet_next_end(const struct lbd_quiet *q)
{
	uint64_t t = UINT64_MAX;

	for (size_t i = 0; i < q->n; i++)
		if (q->e[i].until < t)
			t = q->e[i].until;
	return t;
}

/* A jump whose true branch goes to the drop at the end: patched once the
 * program's length is known. */
struct prog {
	struct sock_filter *p;
	size_t n;
	size_t to_drop[LBD_QUIET_PROG_MAX]; /* instructions whose jt is the drop */
	size_t nto_drop;
	size_t to_accept[2]; /* instructions whose jf is the IPv6 chains' accept */
	size_t nto_accept;
};

static size_t put(struct prog *g, uint16_t code, uint8_t jt, uint8_t jf, uint32_t k)
{
	g->p[g->n] = (struct sock_filter){ code, jt, jf, k };
	return g->n++;
}

#define NET(off) ((uint32_t)(SKF_NET_OFF + (off)))

size_t quiet_program(const struct lbd_quiet *q, struct sock_filter *insns)
{
	struct prog g = { .p = insns };
	size_t v6_at, accept_at, drop_at, i, k;

	if (!q->n)
		return 0;
	/* A = the IP version */
	put(&g, BPF_LD | BPF_B | BPF_ABS, 0, 0, NET(0));
	put(&g, BPF_ALU | BPF_RSH | BPF_K, 0, 0, 4);
	/* IPv4: its destination against each quiet IPv4 address. The
	 * false branch skips the IPv4 chain (its load, its tests and its
	 * accept): patched below */
	v6_at = put(&g, BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 4);
	put(&g, BPF_LD | BPF_W | BPF_ABS, 0, 0, NET(16));
	for (i = 0; i < q->n; i++)
		if (q->e[i].addr.ss.ss_family == AF_INET)
			g.to_drop[g.nto_drop++] = put(&g, BPF_JMP | BPF_JEQ | BPF_K, 0, 0,
				ntohl(((const struct sockaddr_in *)&q->e[i].addr.ss)
						->sin_addr.s_addr));
	put(&g, BPF_RET | BPF_K, 0, 0, 0xffffffffu);
	g.p[v6_at].jf = (uint8_t)(g.n - v6_at - 1);
	/* IPv6: each quiet IPv6 address as four words, the first that
	 * differs going on to the next address */
	g.to_accept[g.nto_accept++] = put(&g, BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 6);
	for (i = 0; i < q->n; i++) {
		const uint8_t *b;

		if (q->e[i].addr.ss.ss_family != AF_INET6)
			continue;
		b = ((const struct sockaddr_in6 *)&q->e[i].addr.ss)->sin6_addr.s6_addr;
		for (k = 0; k < 4; k++) {
			uint32_t w = (uint32_t)b[4 * k] << 24 | (uint32_t)b[4 * k + 1] << 16 |
				     (uint32_t)b[4 * k + 2] << 8 | b[4 * k + 3];
			size_t j;

			put(&g, BPF_LD | BPF_W | BPF_ABS, 0, 0, NET(24 + 4 * k));
			/* the words left of this address: 2 per word */
			j = put(&g, BPF_JMP | BPF_JEQ | BPF_K, 0, (uint8_t)(2 * (3 - k)), w);
			if (k == 3)
				g.to_drop[g.nto_drop++] = j;
		}
	}
	accept_at = put(&g, BPF_RET | BPF_K, 0, 0, 0xffffffffu);
	drop_at = put(&g, BPF_RET | BPF_K, 0, 0, 0);
	for (i = 0; i < g.nto_drop; i++)
		g.p[g.to_drop[i]].jt = (uint8_t)(drop_at - g.to_drop[i] - 1);
	for (i = 0; i < g.nto_accept; i++)
		g.p[g.to_accept[i]].jf = (uint8_t)(accept_at - g.to_accept[i] - 1);
	return g.n;
}

int quiet_apply(int fd, const struct lbd_quiet_prog *p)
{
	int dummy = 0;

	if (p && p->fprog.len) {
		if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &p->fprog, sizeof(p->fprog)) < 0)
			return -errno;
		return 0;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_DETACH_FILTER, &dummy, sizeof(dummy)) < 0 &&
		errno != ENOENT)
		return -errno;
	return 0;
}

struct lbd_quiet_prog *quiet_prog_new(const struct lbd_quiet *q)
{
	struct lbd_quiet_prog *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	atomic_init(&p->refs, 1);
	p->fprog.len = (unsigned short)quiet_program(q, p->insns);
	p->fprog.filter = p->insns;
	return p;
}

void quiet_prog_ref(struct lbd_quiet_prog *p)
{
	if (p)
		atomic_fetch_add(&p->refs, 1);
}

void quiet_prog_unref(struct lbd_quiet_prog *p)
{
	if (p && atomic_fetch_sub(&p->refs, 1) == 1)
		free(p);
}
