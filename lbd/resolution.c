#include <string.h>

#include "resolution.h"

bool resolution_same_ip(const struct cpha_addr *a, const struct cpha_addr *b)
{
	int f = cpha_addr_family(a);

	if (f != cpha_addr_family(b))
		return false;
	if (f == AF_INET)
		return ((const struct sockaddr_in *)&a->ss)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)&b->ss)->sin_addr.s_addr;
	if (f == AF_INET6)
		return memcmp(&((const struct sockaddr_in6 *)&a->ss)->sin6_addr,
			       &((const struct sockaddr_in6 *)&b->ss)->sin6_addr,
			       sizeof(struct in6_addr)) == 0;
	return false;
}

const char *resolution_status_name(enum lbd_dns_status s)
{
	static const char *const names[LBD_DNS_NSTATUS] = { "nx", "other", "refused", "timeout",
		"valid", "obsolete" };

	return s < LBD_DNS_NSTATUS ? names[s] : "?";
}

void resolution_init(struct resolution_state *st, bool has_addr, uint64_t now)
{
	memset(st, 0, sizeof(*st));
	st->has_addr = has_addr;
	st->maint = !has_addr;
	/* an address from start-up counts as valid until the first answer */
	st->last_valid = has_addr ? now : 0;
	st->last = LBD_DNS_VALID;
}

static bool in_list(const struct cpha_addr *a, const struct cpha_addr *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (resolution_same_ip(a, &list[i]))
			return true;
	return false;
}

/* The first address of the answer in the preferred family, then in the
 * other; free of the other servers' addresses when allow_taken is false. */
static const struct cpha_addr *pick(int prefer, const struct cpha_addr *ans, size_t n,
	const struct cpha_addr *taken, size_t ntaken, bool allow_taken)
{
	size_t i, pass;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n; i++) {
			int f = cpha_addr_family(&ans[i]);

			if ((pass == 0) != (f == prefer))
				continue;
			if (!allow_taken && in_list(&ans[i], taken, ntaken))
				continue;
			return &ans[i];
		}
	return NULL;
}

enum resolution_action resolution_on_answer(struct resolution_state *st,
	const struct lbd_resolvers_cfg *rc, const struct cpha_addr *cur, int prefer,
	const struct cpha_addr *ans, size_t n, const struct cpha_addr *taken, size_t ntaken,
	uint64_t now, struct cpha_addr *out)
{
	const struct cpha_addr *p;

	if (n == 0)
		return resolution_on_error(st, rc, LBD_DNS_OTHER, now);
	st->last = LBD_DNS_VALID;
	st->last_valid = now;
	if (st->has_addr && cur && in_list(cur, ans, n)) {
		st->obsolete_since = 0;
		if (!st->maint)
			return RESOLUTION_KEEP;
		/* back from maintenance with the address it had */
		*out = *cur;
		cpha_addr_set_port(out, 0);
		st->maint = false;
		return RESOLUTION_CHANGE;
	}
	if (st->has_addr && !st->maint) {
		/* the address left the answer: keep it for 'hold obsolete' */
		if (!st->obsolete_since)
			st->obsolete_since = now;
		if (now - st->obsolete_since < rc->hold[LBD_DNS_OBSOLETE]) {
			st->last = LBD_DNS_OBSOLETE;
			return RESOLUTION_KEEP;
		}
	}
	p = pick(prefer, ans, n, taken, ntaken, false);
	if (!p)
		p = pick(prefer, ans, n, taken, ntaken, true);
	*out = *p;
	cpha_addr_set_port(out, 0);
	st->has_addr = true;
	st->maint = false;
	st->obsolete_since = 0;
	return RESOLUTION_CHANGE;
}

enum resolution_action resolution_on_error(struct resolution_state *st,
	const struct lbd_resolvers_cfg *rc, enum lbd_dns_status status, uint64_t now)
{
	st->last = status;
	if (st->maint)
		return RESOLUTION_KEEP;
	/* the last valid answer holds for 'hold <status>' */
	if (st->last_valid && now - st->last_valid < rc->hold[status])
		return RESOLUTION_KEEP;
	st->maint = true;
	return RESOLUTION_MAINT;
}

uint64_t resolution_next(const struct resolution_state *st, const struct lbd_resolvers_cfg *rc)
{
	uint64_t t = st->last == LBD_DNS_VALID ? rc->hold[LBD_DNS_VALID] : rc->timeout_resolve;

	if (st->last == LBD_DNS_OBSOLETE && rc->hold[LBD_DNS_OBSOLETE] < t)
		t = rc->hold[LBD_DNS_OBSOLETE];
	return t ? t : rc->timeout_resolve;
}
