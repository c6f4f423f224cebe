/* auth_hmac at run time: the clock, the counters and the logs around the
 * pure vrrp_hmac.c. See vrrp_hmac.h for the trailer. */
#include <errno.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "log.h"
#include "vipd.h"

/* Rate-limit reasons (cpha_log_reason()): anyone on the link can send
 * packets with a bad trailer, as fast as the link goes. */
static const char *const hmac_reason[VRRP_HMAC_RESULT_MAX] = {
	[VRRP_HMAC_MISSING] = "auth_hmac: missing",
	[VRRP_HMAC_MALFORMED] = "auth_hmac: malformed",
	[VRRP_HMAC_STALE] = "auth_hmac: stale",
	[VRRP_HMAC_UNKNOWN_KEY] = "auth_hmac: unknown key",
	[VRRP_HMAC_BAD_HMAC] = "auth_hmac: bad hmac",
	[VRRP_HMAC_REPLAY] = "auth_hmac: replay",
};
#define REASON_SKEW "auth_hmac: clock skew"

static void realtime(struct timespec *ts)
{
	if (clock_gettime(CLOCK_REALTIME, ts) == -1)
		memset(ts, 0, sizeof(*ts));
}

int inst_hmac_trailer(struct vipd_inst *in, const uint8_t *pkt, size_t len, uint8_t *out)
{
	const struct vipd_instance *c = in->cfg;
	const struct vrrp_hmac_key *key;
	struct vrrp_hmac_pkt p = { 0 };
	struct timespec ts;
	uint64_t seq;
	int r;

	if (!c->auth_hmac || !vrrp_hmac_signs(c->hmac.mode))
		return 0;
	key = vrrp_hmac_find_key(&c->hmac, c->hmac.active_key);
	if (!key) {
		/* the configuration check makes this impossible */
		log_err("instance %s: auth_hmac: no key %u to sign with", in->name,
			c->hmac.active_key);
		return -1;
	}
	realtime(&ts);
	seq = vrrp_hmac_next_seq(&in->hmac_seq, vrrp_hmac_clock_seq(ts.tv_sec, ts.tv_nsec),
		c->hmac.anti_replay_time, c->hmac.time_window);
	p.family = c->family;
	p.version = c->version;
	p.vrid = (uint8_t)c->vrid;
	p.src = vipd_addr_raw(&in->src);
	p.vrrp = pkt;
	p.len = len;
	r = vrrp_hmac_sign(key, &p, seq, out);
	if (r < 0) {
		log_err("instance %s: auth_hmac: cannot sign: %s", in->name, strerror(-r));
		return -1;
	}
	return 1;
}

bool inst_hmac_drop(struct vipd_inst *in, const uint8_t *pkt, size_t len, size_t trailer_len,
	const struct cpha_addr *src, int peer)
{
	const struct vipd_instance *c = in->cfg;
	struct vrrp_hmac_pkt p = { 0 };
	struct vrrp_hmac_replay *rp = NULL;
	enum vrrp_hmac_result r;
	struct timespec ts;
	char a[CPHA_ADDR_STRLEN];
	int skew;

	if (!c->auth_hmac)
		return false;
	p.family = c->family;
	p.version = c->version;
	p.vrid = (uint8_t)c->vrid;
	p.src = vipd_addr_raw(src);
	p.vrrp = pkt;
	p.len = len - trailer_len;
	p.trail = trailer_len ? pkt + p.len : NULL;
	if (peer >= 0 && in->hmac_peer)
		rp = &in->hmac_peer[peer];
	realtime(&ts);
	r = vrrp_hmac_check(&c->hmac, &p, rp, &in->hmac_mcast, ts.tv_sec, &skew);
	in->hmac_result[r]++;
	cpha_addr_format(src, a, sizeof(a));
	if (r != VRRP_HMAC_OK) {
		if (r == VRRP_HMAC_STALE)
			cpha_log_reason(LOG_WARNING, hmac_reason[r],
				"instance %s: dropped an advertisement from %s: auth_hmac: stale, "
				"clock skew %d s beyond the window of %u s",
				in->name, a, skew, c->hmac.time_window);
		else
			cpha_log_reason(LOG_WARNING, hmac_reason[r],
				"instance %s: dropped an advertisement from %s: auth_hmac: %s",
				in->name, a, vrrp_hmac_result_str(r));
		return true;
	}
	if (!p.trail)
		in->hmac_unsigned++;
	/* as keepalived: say so before the skew reaches the window */
	if (p.trail && c->hmac.anti_replay_time &&
		(skew > (int)c->hmac.time_window / 2 || skew < -(int)c->hmac.time_window / 2))
		cpha_log_reason(LOG_WARNING, REASON_SKEW,
			"instance %s: auth_hmac: clock skew %d s with %s, near the window of %u s",
			in->name, skew, a, c->hmac.time_window);
	return false;
}
