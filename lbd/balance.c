#include <netinet/in.h>
#include <string.h>

#include "balance.h"

void balance_init(struct balance_state *b, enum lbd_balance algo, uint64_t seed)
{
	b->algo = algo;
	b->next = 0;
	b->rng = seed ? seed : 0x9e3779b97f4a7c15ULL;
}

static uint64_t xorshift64(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

static uint32_t hash_client(const struct sockaddr *sa)
{
	const unsigned char *p = NULL;
	uint32_t h = 2166136261u; /* FNV-1a over the address bytes, not the port */
	size_t len = 0, i;

	if (sa && sa->sa_family == AF_INET) {
		p = (const unsigned char *)&((const struct sockaddr_in *)sa)->sin_addr;
		len = 4;
	} else if (sa && sa->sa_family == AF_INET6) {
		p = (const unsigned char *)&((const struct sockaddr_in6 *)sa)->sin6_addr;
		len = 16;
	}
	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 16777619u;
	}
	/* final avalanche so neighbouring addresses spread */
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	return h;
}

static bool has_room(const struct balance_srv *s)
{
	return s->maxconn == 0 || s->cur < s->maxconn;
}

/* Smooth weighted round robin (each pick adds every weight to its credit,
 * takes the largest credit, and charges it the total). */
static int pick_rr(struct balance_srv *s, const size_t *idx, size_t k)
{
	int64_t total = 0;
	size_t i, best = 0;

	for (i = 0; i < k; i++) {
		s[idx[i]].rr += s[idx[i]].weight;
		total += s[idx[i]].weight;
		if (i == 0 || s[idx[i]].rr > s[idx[best]].rr)
			best = i;
	}
	s[idx[best]].rr -= total;
	return (int)idx[best];
}

static int pick_leastconn(
	struct balance_state *b, struct balance_srv *s, const size_t *idx, size_t k)
{
	size_t i, j, best = k;

	for (i = 0; i < k; i++) {
		j = (b->next + i) % k;
		/* cur/weight smaller wins; compare by cross-multiplying */
		if (best == k || (uint64_t)s[idx[j]].cur * s[idx[best]].weight <
					 (uint64_t)s[idx[best]].cur * s[idx[j]].weight)
			best = j;
	}
	b->next = (best + 1) % k;
	return (int)idx[best];
}

static int pick_weighted(const struct balance_srv *s, const size_t *idx, size_t k, uint64_t r)
{
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < k; i++)
		total += s[idx[i]].weight;
	r %= total;
	for (i = 0; i < k; i++) {
		if (r < s[idx[i]].weight)
			return (int)idx[i];
		r -= s[idx[i]].weight;
	}
	return (int)idx[k - 1];
}

int balance_pick(
	struct balance_state *b, struct balance_srv *s, size_t n, const struct sockaddr *client)
{
	size_t idx[256], usable[256], k = 0, nu = 0, i;

	if (n > 256)
		n = 256; /* lbd_cfg caps servers per backend well below this */
	for (i = 0; i < n; i++)
		if (s[i].usable && !s[i].backup && s[i].weight > 0)
			usable[nu++] = i;
	if (nu == 0) {
		/* no primary: the first usable backup, as HAProxy does */
		for (i = 0; i < n; i++)
			if (s[i].usable && s[i].backup && s[i].weight > 0) {
				usable[nu++] = i;
				break;
			}
	}
	if (nu == 0)
		return BALANCE_NONE;

	if (b->algo == LBD_BAL_SOURCE) {
		/* map-based hash over all usable servers, so a full server
		 * queues its clients instead of moving them */
		uint64_t total = 0, r;

		for (i = 0; i < nu; i++)
			total += s[usable[i]].weight;
		r = hash_client(client) % total;
		for (i = 0; i < nu; i++) {
			if (r < s[usable[i]].weight)
				break;
			r -= s[usable[i]].weight;
		}
		if (i == nu)
			i = nu - 1;
		return has_room(&s[usable[i]]) ? (int)usable[i] : BALANCE_FULL;
	}

	for (i = 0; i < nu; i++)
		if (has_room(&s[usable[i]]))
			idx[k++] = usable[i];
	if (k == 0)
		return BALANCE_FULL;

	switch (b->algo) {
	case LBD_BAL_ROUNDROBIN:
	case LBD_BAL_STATIC_RR:
		return pick_rr(s, idx, k);
	case LBD_BAL_LEASTCONN:
		return pick_leastconn(b, s, idx, k);
	case LBD_BAL_FIRST:
		return (int)idx[0];
	case LBD_BAL_RANDOM:
		return pick_weighted(s, idx, k, xorshift64(&b->rng));
	case LBD_BAL_SOURCE:
		break;
	}
	return (int)idx[0];
}

unsigned balance_slowstart_weight(unsigned weight, uint64_t since_up, uint64_t slowstart)
{
	uint64_t w;

	if (weight == 0 || slowstart == 0 || since_up >= slowstart)
		return weight;
	w = ((uint64_t)weight * since_up + slowstart - 1) / slowstart;
	return w ? (unsigned)w : 1;
}

unsigned balance_slowstart_maxconn(unsigned maxconn, uint64_t since_up, uint64_t slowstart)
{
	uint64_t m;

	if (maxconn == 0 || slowstart == 0 || since_up >= slowstart)
		return maxconn;
	m = (uint64_t)maxconn * since_up / slowstart;
	return m ? (unsigned)m : 1;
}
