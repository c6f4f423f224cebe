/* One VRRP instance at run time: sockets, the state machine's actions,
 * the virtual addresses, announcements and notify scripts. */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "duration.h"
#include "event.h"
#include "garp.h"
#include "log.h"
#include "spawn.h"
#include "tcp_reset.h"
#include "admin.h"
#include "vipd.h"

#define RX_BUF 2048

const char *inst_state_name(const struct vipd_inst *in)
{
	return vrrp_state_name(in->sm.state);
}

static void ipinfo(struct vrrp_ipinfo *ip, int family, const struct cpha_addr *src,
	const struct cpha_addr *dst, int ttl)
{
	size_t n = family == AF_INET6 ? 16 : 4;

	memset(ip, 0, sizeof(*ip));
	ip->family = family;
	memcpy(ip->src, vipd_addr_raw(src), n);
	memcpy(ip->dst, vipd_addr_raw(dst), n);
	ip->ttl = ttl;
}

static void send_advert(struct vipd_inst *in, int priority)
{
	const struct vipd_instance *c = in->cfg;
	struct vrrp_adv adv = { 0 };
	struct vrrp_ipinfo ip;
	uint8_t buf[VRRP_PKT_MAX + VRRP_HMAC_TRAILER_LEN], trailer[VRRP_HMAC_TRAILER_LEN];
	size_t i, ndst = c->unicast ? c->npeers : 1;
	int len, r;

	adv.version = c->version;
	adv.family = c->family;
	adv.vrid = (uint8_t)c->vrid;
	adv.priority = (uint8_t)priority;
	adv.naddrs = (uint8_t)c->nvips;
	adv.adver_int = (uint16_t)vrrp_state_adver_field(&in->sm);
	adv.addrs = in->vip_bytes;
	adv.csum = c->v3_checksum_as_v2 ? VRRP_CSUM_PLAIN : VRRP_CSUM_PHDR;
	if (c->version == 2 && c->auth == VIPD_AUTH_PASS) {
		adv.auth_type = VRRP_AUTH_PASS;
		memcpy(adv.auth_data, c->auth_pass, VRRP_AUTH_LEN);
	}
	if (c->auth_hmac) {
		/* one trailer for every copy: it does not cover the destination */
		ipinfo(&ip, c->family, &in->src, c->unicast ? &c->peers[0] : &in->group, VRRP_TTL);
		len = vrrp_packet_encode(&adv, &ip, buf, sizeof(buf));
		if (len < 0) {
			log_err("instance %s: cannot build an advertisement: %s", in->name,
				strerror(-len));
			return;
		}
		r = inst_hmac_trailer(in, buf, (size_t)len, trailer);
		if (r < 0)
			return;
		if (r > 0) {
			adv.trailer = trailer;
			adv.trailer_len = sizeof(trailer);
		}
	}
	in->adverts_made++;
	if (priority == 0)
		in->pri_zero_sent++;
	for (i = 0; i < ndst; i++) {
		const struct cpha_addr *dst = c->unicast ? &c->peers[i] : &in->group;

		ipinfo(&ip, c->family, &in->src, dst, VRRP_TTL);
		len = vrrp_packet_encode(&adv, &ip, buf, sizeof(buf));
		if (len < 0) {
			log_err("instance %s: cannot build an advertisement: %s", in->name,
				strerror(-len));
			return;
		}
		r = vrrp_sock_send(&in->sock, buf, (size_t)len, &in->src, dst);
		if (r < 0)
			log_warn("instance %s: sending the advertisement: %s", in->name,
				strerror(-r));
		else
			in->adverts_sent++;
	}
}

static void notify(struct vipd_inst *in, const char *state)
{
	const struct vipd_instance *c = in->cfg;
	char *const cmds[VIPD_NOTIFY_N] = { c->notify_master, c->notify_backup, c->notify_fault,
		c->notify_stop, c->notify };
	char who[160];

	snprintf(who, sizeof(who), "instance %s", in->name);
	vipd_notify_state(
		in->d, who, cmds, c->notify_as, "INSTANCE", in->name, state, in->priority);
	cpha_notify_status("%s %s", in->name, state);
}

static int vip_ifindex(const struct vipd_inst *in, const struct vipd_vip *v)
{
	return v->dev ? (int)if_nametoindex(v->dev) : in->ifindex;
}

static void vips_add(struct vipd_inst *in)
{
	char a[CPHA_ADDR_STRLEN];
	size_t i;
	int r;

	for (i = 0; i < in->cfg->nvips; i++) {
		const struct vipd_vip *v = &in->cfg->vips[i];

		r = vipd_nl_addr_add(
			in->d->nl, vip_ifindex(in, v), &v->addr, v->prefixlen, v->label);
		if (r < 0 && r != -EEXIST)
			log_err("instance %s: adding %s/%u: %s", in->name,
				cpha_addr_format(&v->addr, a, sizeof(a)), v->prefixlen,
				strerror(-r));
	}
}

static void vips_del(struct vipd_inst *in, bool quiet)
{
	char a[CPHA_ADDR_STRLEN];
	size_t i;
	int r;

	for (i = 0; i < in->cfg->nvips; i++) {
		const struct vipd_vip *v = &in->cfg->vips[i];

		r = vipd_nl_addr_del(in->d->nl, vip_ifindex(in, v), &v->addr, v->prefixlen);
		if (r < 0 && r != -EADDRNOTAVAIL && !quiet)
			log_err("instance %s: removing %s/%u: %s", in->name,
				cpha_addr_format(&v->addr, a, sizeof(a)), v->prefixlen,
				strerror(-r));
		else if (r == 0 && quiet)
			log_notice("instance %s: removed %s/%u left behind by an earlier run",
				in->name, cpha_addr_format(&v->addr, a, sizeof(a)), v->prefixlen);
	}
}

/* vipd_reset_connections: before a master's addresses go, reset the TCP
 * connections on them, while a reset can still leave from them. */
static void vips_reset(struct vipd_inst *in)
{
	char a[CPHA_ADDR_STRLEN];
	unsigned n, total = 0;
	size_t i;
	int r;

	if (!in->d->cfg->global.reset_connections)
		return;
	for (i = 0; i < in->cfg->nvips; i++) {
		const struct vipd_vip *v = &in->cfg->vips[i];

		r = vipd_tcp_reset(v->addr.ss.ss_family, vipd_addr_raw(&v->addr), &n);
		total += n;
		if (r < 0)
			log_warn("instance %s: resetting the connections on %s: %s", in->name,
				cpha_addr_format(&v->addr, a, sizeof(a)), strerror(-r));
	}
	if (total)
		log_notice("instance %s: reset %u TCP connection%s on the addresses it gives up",
			in->name, total, total == 1 ? "" : "s");
}

/* The new holder announces the VIP (gratuitous ARP, unsolicited NA) just
 * after its first advertisement: the nudges wait that long. */
#define NUDGE_AFTER_ADVERT_USEC 20000ULL
/* a second round for a segment lost on the way, then none */
#define NUDGE_AGAIN_USEC        1000000ULL
#define NUDGE_ROUNDS            2

/* A backup is known alive: a BFD session to another LB host is up. */
static bool backup_alive(const struct vipd *d)
{
	for (size_t i = 0; i < d->nbfds; i++)
		if (d->bfds[i]->s.state == BFD_STATE_UP)
			return true;
	return false;
}

static void forget_clear(struct vipd_inst *in)
{
	free(in->gone);
	in->gone = NULL;
	in->ngone = 0;
	in->nudges = 0;
	if (in->nudge_timer)
		sd_event_source_set_enabled(in->nudge_timer, SD_EVENT_OFF);
}

static int on_nudge(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct vipd_inst *in = userdata;
	unsigned sent = 0;
	int r;

	(void)usec;
	r = vipd_tcp_nudge(in->gone, in->ngone, &sent);
	if (r < 0)
		log_warn("instance %s: nudging the clients of the connections given up: %s",
			in->name, strerror(-r));
	if (in->nudges++ == 0)
		log_notice("instance %s: the VIP has moved: %u of %zu client%s of the connections "
			   "given up asked to reset them",
			in->name, sent, in->ngone, in->ngone == 1 ? "" : "s");
	if (in->nudges < NUDGE_ROUNDS) {
		sd_event_source_set_time_relative(s, NUDGE_AGAIN_USEC);
		sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
		return 0;
	}
	forget_clear(in);
	return 0;
}

static void nudge_in(struct vipd_inst *in, uint64_t usec)
{
	if (!in->nudge_timer && sd_event_add_time_relative(in->d->e, &in->nudge_timer,
					CLOCK_MONOTONIC, usec, 1000, on_nudge, in) < 0) {
		log_err("instance %s: cannot arm the nudge timer", in->name);
		forget_clear(in);
		return;
	}
	sd_event_source_set_time_relative(in->nudge_timer, usec);
	sd_event_source_set_enabled(in->nudge_timer, SD_EVENT_ONESHOT);
}

/* A master gives its addresses up. With vipd_reset_connections and a
 * backup known alive (a BFD session up), the addresses go first and the
 * connections on them are forgotten; their clients get their reset from
 * the new holder once it has the VIP (its first advertisement heard, else
 * after Master_Down_Interval and a second), so that they connect again
 * there at once rather than here, where the VIP is about to go. Else they
 * are reset while the addresses are still here (vips_reset). */
static void vips_leave(struct vipd_inst *in)
{
	unsigned n, total = 0;
	char a[CPHA_ADDR_STRLEN];

	if (!in->d->cfg->global.reset_connections || !backup_alive(in->d)) {
		vips_reset(in);
		vips_del(in, false);
		return;
	}
	vips_del(in, false);
	forget_clear(in);
	for (size_t i = 0; i < in->cfg->nvips; i++) {
		const struct vipd_vip *v = &in->cfg->vips[i];
		int r = vipd_tcp_forget(
			v->addr.ss.ss_family, vipd_addr_raw(&v->addr), &in->gone, &in->ngone, &n);

		total += n;
		if (r < 0)
			log_warn("instance %s: giving up the connections on %s: %s", in->name,
				cpha_addr_format(&v->addr, a, sizeof(a)), strerror(-r));
	}
	if (!in->ngone)
		return;
	log_notice("instance %s: gave up %u TCP connection%s with the VIP; their clients get "
		   "a reset from the new holder once it has the VIP",
		in->name, total, total == 1 ? "" : "s");
	nudge_in(in, 3 * in->cfg->advert_int + CPHA_USEC_PER_SEC);
}

static void garp_burst(struct vipd_inst *in)
{
	size_t i;

	for (i = 0; i < in->cfg->nvips; i++) {
		const struct vipd_vip *v = &in->cfg->vips[i];
		int r = garp_send(vip_ifindex(in, v), &v->addr);

		if (r < 0)
			log_warn("instance %s: announcing a VIP: %s", in->name, strerror(-r));
	}
}

/* Sends the rest of a burst, then the delayed burst, then refreshes. */
static int on_garp(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct vipd_inst *in = userdata;
	const struct vipd_instance *c = in->cfg;

	(void)usec;
	if (in->sm.state != VRRP_STATE_MASTER)
		return 0;
	garp_burst(in);
	if (in->garp_left > 1) {
		in->garp_left--;
		sd_event_source_set_time_relative(s, c->garp_interval ? c->garp_interval : 1);
		sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
		return 0;
	}
	if (in->garp_second) {
		in->garp_second = false;
		in->garp_left = c->garp_master_repeat;
		sd_event_source_set_time_relative(s, c->garp_master_delay);
		sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
		return 0;
	}
	if (c->garp_master_refresh) {
		in->garp_left = c->garp_master_refresh_repeat;
		sd_event_source_set_time_relative(s, c->garp_master_refresh);
		sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	}
	return 0;
}

static void start_announcing(struct vipd_inst *in)
{
	const struct vipd_instance *c = in->cfg;

	/* the first packet now, the rest of the burst from the timer */
	garp_burst(in);
	in->garp_left = c->garp_master_repeat;
	in->garp_second = c->garp_master_delay > 0;
	if (!in->garp_timer && sd_event_add_time_relative(in->d->e, &in->garp_timer,
				       CLOCK_MONOTONIC, 0, 1, on_garp, in) < 0) {
		log_err("instance %s: cannot arm the announcement timer", in->name);
		return;
	}
	if (in->garp_left > 1) {
		in->garp_left--;
		sd_event_source_set_time_relative(
			in->garp_timer, c->garp_interval ? c->garp_interval : 1);
	} else if (in->garp_second) {
		in->garp_second = false;
		in->garp_left = c->garp_master_repeat;
		sd_event_source_set_time_relative(in->garp_timer, c->garp_master_delay);
	} else {
		return;
	}
	sd_event_source_set_enabled(in->garp_timer, SD_EVENT_ONESHOT);
}

static void arm(struct vipd_inst *in, uint64_t deadline)
{
	if (deadline == VRRP_NEVER) {
		sd_event_source_set_enabled(in->timer, SD_EVENT_OFF);
		return;
	}
	sd_event_source_set_time(in->timer, deadline);
	sd_event_source_set_enabled(in->timer, SD_EVENT_ONESHOT);
}

static void transition(struct vipd_inst *in, const char *to, enum vrrp_sm_state from)
{
	in->transitions++;
	if (from == VRRP_STATE_MASTER)
		in->released_master++;
	in->last_change = cpha_now_usec(CLOCK_REALTIME);
	log_notice("instance %s: %s -> %s (priority %d)", in->name, vrrp_state_name(from), to,
		in->priority);
	notify(in, to);
}

void inst_apply(struct vipd_inst *in, const struct vrrp_out *out)
{
	unsigned i;

	for (i = 0; i < out->n; i++) {
		const struct vrrp_action *a = &out->act[i];

		switch (a->type) {
		case VRRP_ACT_SEND_ADVERT:
			/* an advert sent as a backup with a handover under way:
			 * preempt_handover's announcement (a takeover's first
			 * advert is sent as a backup too) */
			if (a->from == VRRP_STATE_BACKUP && in->sm.handover &&
				in->sm.handover_rounds == 1)
				log_notice("instance %s: preempting the master at priority %d it "
					   "still hears: sent priority %d, taking over once it "
					   "steps down (preempt_handover)",
					in->name, in->sm.lower_priority, a->priority);
			else if (a->from == VRRP_STATE_BACKUP && in->sm.handover &&
				 in->sm.handover_rounds % 10 == 0)
				log_notice("instance %s: the master at priority %d still "
					   "advertises after %u of our advertisements: it does "
					   "not hear us; it keeps the VIP",
					in->name, in->sm.lower_priority, in->sm.handover_rounds);
			send_advert(in, a->priority);
			break;
		case VRRP_ACT_BECOME_MASTER:
			if (in->quiesced)
				inst_quiet_ask(in, false);
			vips_add(in);
			in->became_master++;
			transition(in, "MASTER", a->from);
			start_announcing(in);
			break;
		case VRRP_ACT_BECOME_BACKUP:
			if (a->from == VRRP_STATE_MASTER)
				vips_leave(in);
			else
				vips_del(in, false);
			if (in->quiesced)
				inst_quiet_ask(in, false); /* the VIP is gone: nothing to quiesce */
			transition(in, "BACKUP", a->from);
			break;
		case VRRP_ACT_BECOME_FAULT:
			if (a->from == VRRP_STATE_MASTER)
				vips_leave(in);
			else
				vips_del(in, false);
			if (in->quiesced)
				inst_quiet_ask(in, false);
			transition(in, "FAULT", a->from);
			break;
		case VRRP_ACT_BECOME_INIT:
			if (a->from == VRRP_STATE_MASTER)
				vips_reset(in);
			vips_del(in, false);
			if (in->quiesced)
				inst_quiet_ask(in, false);
			transition(in, "STOP", a->from);
			break;
		case VRRP_ACT_WANT_MASTER: /* the sync group decides, or fenced */
			if (!in->sync)
				fenced_link_try_master(in);
			break;
		case VRRP_ACT_QUIESCE:
			inst_quiet_ask(in, true);
			break;
		case VRRP_ACT_UNQUIESCE:
			log_notice("instance %s: drain called off: keeping the VIP", in->name);
			inst_quiet_ask(in, false);
			break;
		}
	}
	/* the state machine's deadline now, not out's: an action above may
	 * have moved it again (WANT_MASTER let through by fenced went master
	 * inside this loop; out still holds the Master_Down_Timer it asked
	 * with, which would delay the first advertisement after the takeover
	 * by Master_Down_Interval) */
	arm(in, vrrp_state_deadline(&in->sm));
	in->d->up.member_changed(in, out);
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct vipd_inst *in = userdata;
	struct vrrp_out out = { 0 };

	(void)s;
	vrrp_state_timer(&in->sm, usec, &out);
	inst_apply(in, &out);
	return 0;
}

/* The index of src in cfg->peers, or -1. */
static int peer_index(const struct vipd_inst *in, const struct cpha_addr *src)
{
	size_t i;
	struct cpha_addr a = *src;

	for (i = 0; i < in->cfg->npeers; i++) {
		struct cpha_addr p = in->cfg->peers[i];

		cpha_addr_set_port(&p, 0);
		cpha_addr_set_port(&a, 0);
		if (memcmp(vipd_addr_raw(&p), vipd_addr_raw(&a),
			    in->cfg->family == AF_INET6 ? 16 : 4) == 0)
			return (int)i;
	}
	return -1;
}

static void record_peer(struct vipd_inst *in, const struct cpha_addr *src, enum vrrp_csum csum)
{
	size_t i, n = in->cfg->family == AF_INET6 ? 16 : 4;
	char a[CPHA_ADDR_STRLEN];

	for (i = 0; i < in->npeers_seen; i++)
		if (memcmp(vipd_addr_raw(&in->peers[i].addr), vipd_addr_raw(src), n) == 0)
			break;
	if (i == in->npeers_seen) {
		if (i == VIPD_MAX_PEERS_SEEN)
			return;
		in->npeers_seen++;
		in->peers[i].addr = *src;
		if (in->cfg->version == 3 && in->cfg->family == AF_INET)
			log_info("instance %s: peer %s uses the %s VRRPv3 checksum", in->name,
				cpha_addr_format(src, a, sizeof(a)), vrrp_packet_csum_str(csum));
	}
	in->peers[i].csum = csum;
	in->peers[i].adverts++;
}

/* Rate-limit reasons (cpha_log_reason()) of dropped packets: anyone on the
 * link can send them, from any source address, as fast as the link goes. */
static const char *const drop_reason[VRRP_DROP_MAX] = {
	[VRRP_DROP_TTL] = "vrrp: bad ttl",
	[VRRP_DROP_SHORT] = "vrrp: too short",
	[VRRP_DROP_VERSION] = "vrrp: wrong version",
	[VRRP_DROP_TYPE] = "vrrp: wrong type",
	[VRRP_DROP_NO_ADDRS] = "vrrp: no addresses",
	[VRRP_DROP_LENGTH] = "vrrp: bad length",
	[VRRP_DROP_CHECKSUM] = "vrrp: bad checksum",
	[VRRP_DROP_VRID] = "vrrp: wrong vrid",
	[VRRP_DROP_OWNER] = "vrrp: we own the addresses",
	[VRRP_DROP_AUTH_TYPE] = "vrrp: wrong auth type",
	[VRRP_DROP_AUTH_PASS] = "vrrp: wrong password",
	[VRRP_DROP_INTERVAL_ZERO] = "vrrp: interval 0",
	[VRRP_DROP_INTERVAL_MISMATCH] = "vrrp: interval mismatch",
	[VRRP_DROP_ADDR_LIST] = "vrrp: address list",
};
#define REASON_UNKNOWN_PEER "vrrp: not a unicast_peer" /* unicast, sender not listed */
#define REASON_OTHER_GROUP  "vrrp: another group"      /* multicast, not to our group */
#define REASON_RECEIVE      "vrrp: receive"            /* unreadable packet */

static int on_packet(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct vipd_inst *in = userdata;
	const struct vipd_instance *c = in->cfg;
	uint8_t buf[RX_BUF];
	const void *payload;
	struct vrrp_rx rx;
	struct vrrp_expect exp = { 0 };
	struct vrrp_ipinfo ip;
	struct vrrp_adv adv;
	struct vrrp_out out;
	enum vrrp_drop drop;
	char a[CPHA_ADDR_STRLEN], g[CPHA_ADDR_STRLEN];
	int r, k, peer;

	(void)s;
	(void)fd;
	(void)revents;
	exp.version = c->version;
	exp.family = c->family;
	exp.vrid = (uint8_t)c->vrid;
	exp.flags = (c->unicast ? VRRP_EXPECT_ANY_TTL : 0) |
		    (c->priority == VRRP_PRIO_OWNER ? VRRP_EXPECT_OWNER : 0);
	exp.csum_accept = VRRP_CSUM_ACCEPT_ALL; /* either IPv4 v3 form, recorded per peer */
	exp.auth_type = c->auth == VIPD_AUTH_PASS ? VRRP_AUTH_PASS : VRRP_AUTH_NONE;
	memcpy(exp.auth_pass, c->auth_pass, sizeof(exp.auth_pass));
	exp.adver_int = (uint8_t)(c->advert_int / 1000000);
	exp.addrs = in->vip_bytes;
	exp.naddrs = c->nvips;
	for (k = 0; k < 64; k++) {
		r = vrrp_sock_recv(&in->sock, buf, sizeof(buf), &payload, &rx);
		if (r <= 0) {
			if (r < 0)
				cpha_log_reason(LOG_WARNING, REASON_RECEIVE,
					"instance %s: receive: %s", in->name, strerror(-r));
			return 0;
		}
		/* the socket sees every VRRP packet on the link: another
		 * virtual router's are none of our business */
		if (rx.len >= 2 && ((const uint8_t *)payload)[1] != c->vrid)
			continue;
		/* the socket also sees adverts to groups joined by others on
		 * this host (keepalived on another group, the RFC one): only
		 * our group's are for this instance */
		if (!c->unicast && memcmp(vipd_addr_raw(&rx.dst), vipd_addr_raw(&in->group),
					   c->family == AF_INET6 ? 16 : 4)) {
			in->other_group++;
			cpha_log_reason(LOG_WARNING, REASON_OTHER_GROUP,
				"instance %s: dropped an advertisement from %s: not sent to %s",
				in->name, cpha_addr_format(&rx.src, a, sizeof(a)),
				cpha_addr_format(&in->group, g, sizeof(g)));
			continue;
		}
		ipinfo(&ip, c->family, &rx.src, &rx.dst, rx.ttl);
		exp.trailer_len = c->auth_hmac && vrrp_hmac_has_trailer(
							  payload, rx.len, c->version, c->family)
					  ? VRRP_HMAC_TRAILER_LEN
					  : 0;
		drop = vrrp_packet_decode(payload, rx.len, &ip, &exp, &adv);
		if (drop != VRRP_OK) {
			in->bad[drop]++;
			cpha_log_reason(LOG_WARNING, drop_reason[drop],
				"instance %s: dropped an advertisement from %s: %s", in->name,
				cpha_addr_format(&rx.src, a, sizeof(a)),
				vrrp_packet_drop_str(drop));
			continue;
		}
		peer = c->unicast ? peer_index(in, &rx.src) : -1;
		if (c->unicast && peer < 0) {
			in->unknown_peer++;
			cpha_log_reason(LOG_WARNING, REASON_UNKNOWN_PEER,
				"instance %s: dropped an advertisement from %s: not a unicast_peer",
				in->name, cpha_addr_format(&rx.src, a, sizeof(a)));
			continue;
		}
		if (inst_hmac_drop(in, payload, rx.len, exp.trailer_len, &rx.src, peer))
			continue;
		in->adverts_received++;
		if (adv.priority == 0)
			in->pri_zero_received++;
		if (adv.priority > 0 && adv.priority < in->priority)
			in->last_lower_advert_at = vipd_now(in->d); /* track_fenced: preempting */
		record_peer(in, &rx.src, adv.csum);
		/* connections given up with the VIP: another host holds it now */
		if (in->ngone && !in->nudges && adv.priority > 0)
			nudge_in(in, NUDGE_AFTER_ADVERT_USEC);
		memset(&out, 0, sizeof(out));
		vrrp_state_advert(&in->sm, vipd_now(in->d), adv.priority, adv.adver_int,
			vipd_addr_raw(&rx.src), vipd_addr_raw(&in->src), &out);
		inst_apply(in, &out);
		if (c->fenced_socket && in->sm.state == VRRP_STATE_BACKUP && adv.priority > 0 &&
			in->sm.master_seen &&
			!memcmp(in->sm.master_addr, vipd_addr_raw(&rx.src),
				c->family == AF_INET6 ? 16 : 4))
			fenced_link_master_heard(in);
	}
	return 0;
}

/* Every fault of the instance (its own, its sync group's) is the
 * operator's drain. */
static bool fault_planned(const struct vipd_inst *in)
{
	if (in->fault_self && !in->fault_planned)
		return false;
	for (size_t i = 0; in->sync && i < in->sync->n; i++)
		if (in->sync->members[i]->fault_self && !in->sync->members[i]->fault_planned)
			return false;
	return true;
}

/* Tell the state machine of a new fault condition: a drain quiesces
 * first (vrrp_state_drain), any other fault ends that at once. */
static void inst_fault_changed(struct vipd_inst *in, bool fault)
{
	struct vrrp_out out = { 0 };
	bool planned = fault && fault_planned(in);

	if (fault != in->fault) {
		in->fault = fault;
		if (planned)
			vrrp_state_drain(&in->sm, vipd_now(in->d), &out);
		else
			vrrp_state_fault(&in->sm, vipd_now(in->d), fault, &out);
		inst_apply(in, &out);
	} else if (fault && !planned && in->sm.resigning) {
		vrrp_state_fault(&in->sm, vipd_now(in->d), true, &out);
		inst_apply(in, &out);
	}
}

void inst_track_changed(struct vipd_inst *in)
{
	struct vrrp_out out = { 0 };
	bool fault, self, planned, lead = false;
	size_t i;
	int prio;

	if (!in->running)
		return;
	track_evaluate(in, &prio, &self, &planned);
	in->fault_planned = self && planned;
	fault = self;
	if (in->sync) {
		/* this member leads when its own fault changed: it moves first,
		 * the rest of the group follows, then the group's state is told
		 * (keepalived's order of notifications) */
		lead = self != in->fault_self && !in->sync->propagating;
		in->fault_self = self;
		for (i = 0; i < in->sync->n; i++)
			fault |= in->sync->members[i]->fault_self;
		if (lead)
			in->sync->propagating = true;
	}
	in->fault_self = self;
	if (prio != in->priority) {
		log_notice("instance %s: priority %d -> %d", in->name, in->priority, prio);
		in->priority = prio;
		if (in->d->cfg->global.notify_priority_changes &&
			(in->sm.state == VRRP_STATE_MASTER || in->sm.state == VRRP_STATE_BACKUP))
			vipd_fifo_write(in->d, "INSTANCE", in->name,
				in->sm.state == VRRP_STATE_MASTER ? "MASTER_PRIORITY"
								  : "BACKUP_PRIORITY",
				prio);
		vrrp_state_set_priority(&in->sm, vipd_now(in->d), prio, &out);
		inst_apply(in, &out);
	}
	inst_fault_changed(in, fault);
	if (lead) {
		for (i = 0; i < in->sync->n; i++)
			if (in->sync->members[i] != in)
				inst_track_changed(in->sync->members[i]);
		/* a track this member shares with the others changed theirs
		 * too, after this one's fault was decided: decide it again on
		 * what the group is now (a script every member tracks
		 * recovering would leave this member, and the group, in FAULT) */
		fault = in->fault_self;
		for (i = 0; i < in->sync->n; i++)
			fault |= in->sync->members[i]->fault_self;
		inst_fault_changed(in, fault);
		in->sync->propagating = false;
		in->d->up.group_changed(in->sync);
	}
}

void inst_netlink_event(
	struct vipd *d, enum vipd_nl_event ev, int ifindex, bool up, const struct cpha_addr *addr)
{
	char a[CPHA_ADDR_STRLEN];
	size_t i, j;

	/* a VRRP source address that is not usable (after a link flap, IPv6
	 * runs duplicate address detection again) means FAULT: adverts could
	 * not be sent, and a silent master is a split brain */
	for (i = 0; i < d->ninst; i++) {
		struct vipd_inst *in = d->inst[i];
		bool ready;

		if (!in->running || in->ifindex != ifindex)
			continue;
		ready = vipd_nl_addr_ready(d->nl, in->ifindex, &in->src);
		if (ready != in->src_ready) {
			in->src_ready = ready;
			log_notice("instance %s: source address %s is %s", in->name,
				cpha_addr_format(&in->src, a, sizeof(a)),
				ready ? "usable" : "not usable yet");
			if (ev != VIPD_NL_LINK)
				inst_track_changed(in);
		}
	}
	if (ev == VIPD_NL_LINK) {
		track_netlink_link(d, ifindex, up);
		return;
	}
	if (ev != VIPD_NL_ADDR_DEL || d->stopping)
		return;
	/* someone removed a VIP while we are master: put it back */
	for (i = 0; i < d->ninst; i++) {
		struct vipd_inst *in = d->inst[i];

		if (!in->running || in->sm.state != VRRP_STATE_MASTER)
			continue;
		for (j = 0; j < in->cfg->nvips; j++) {
			const struct vipd_vip *v = &in->cfg->vips[j];
			size_t n = v->addr.ss.ss_family == AF_INET6 ? 16 : 4;

			if (vip_ifindex(in, v) != ifindex ||
				v->addr.ss.ss_family != addr->ss.ss_family ||
				memcmp(vipd_addr_raw(&v->addr), vipd_addr_raw(addr), n) != 0)
				continue;
			log_warn("instance %s: %s was removed from the interface while master; "
				 "putting it back",
				in->name, cpha_addr_format(&v->addr, a, sizeof(a)));
			if (vipd_nl_addr_add(d->nl, ifindex, &v->addr, v->prefixlen, v->label) ==
				0) {
				in->vip_restored++;
				garp_send(ifindex, &v->addr);
			}
		}
	}
}

bool inst_same_vrrp(const struct vipd_instance *a, const struct vipd_instance *b)
{
	size_t i;

	if (strcmp(a->interface, b->interface) || a->vrid != b->vrid ||
		a->priority != b->priority || a->advert_int != b->advert_int ||
		a->version != b->version || a->family != b->family ||
		a->nopreempt != b->nopreempt || a->preempt_delay != b->preempt_delay ||
		a->preempt_handover != b->preempt_handover || a->unicast != b->unicast ||
		a->npeers != b->npeers || a->nvips != b->nvips || a->auth != b->auth ||
		memcmp(a->auth_pass, b->auth_pass, sizeof(a->auth_pass)) ||
		a->v3_checksum_as_v2 != b->v3_checksum_as_v2 ||
		a->unicast_src_set != b->unicast_src_set ||
		(a->unicast_src_set && !cpha_addr_equal(&a->unicast_src, &b->unicast_src)))
		return false;
	for (i = 0; i < a->npeers; i++)
		if (!cpha_addr_equal(&a->peers[i], &b->peers[i]))
			return false;
	for (i = 0; i < a->nvips; i++) {
		const struct vipd_vip *x = &a->vips[i], *y = &b->vips[i];

		if (!cpha_addr_equal(&x->addr, &y->addr) || x->prefixlen != y->prefixlen ||
			(x->dev || y->dev ? !x->dev || !y->dev || strcmp(x->dev, y->dev) : 0) ||
			(x->label || y->label ? !x->label || !y->label || strcmp(x->label, y->label)
					      : 0))
			return false;
	}
	return true;
}

int inst_start(struct vipd *d, struct vipd_instance *c, struct vipd_inst **out)
{
	struct vrrp_sm_config sc = { 0 };
	struct vipd_inst *in;
	struct cpha_addr *vips = NULL;
	struct vrrp_out o = { 0 };
	size_t i, n = c->family == AF_INET6 ? 16 : 4;
	int r;

	in = calloc(1, sizeof(*in));
	if (!in)
		return -ENOMEM;
	in->d = d;
	in->cfg = c;
	in->name = strdup(c->name);
	in->hmac_peer = calloc(c->npeers ? c->npeers : 1, sizeof(*in->hmac_peer));
	in->sock.fd = -1;
	if (!in->name || !in->hmac_peer) {
		r = -ENOMEM;
		goto fail;
	}
	in->ifindex = (int)if_nametoindex(c->interface);
	if (!in->ifindex) {
		log_err("instance %s: interface %s: no such interface", c->name, c->interface);
		r = -ENODEV;
		goto fail;
	}
	for (i = 0; i < c->nvips; i++)
		memcpy(in->vip_bytes + i * n, vipd_addr_raw(&c->vips[i].addr), n);
	in->nvip_bytes = (unsigned)(c->nvips * n);
	/* the instance's mcast_dst_ip, else global_defs vrrp_mcast_group4 / 6 */
	in->group = c->mcast_dst_set        ? c->mcast_dst
		    : c->family == AF_INET6 ? d->cfg->global.mcast6
					    : d->cfg->global.mcast4;

	/* an earlier vipd that crashed may have left our VIPs behind */
	vips_del(in, true);

	if (c->unicast_src_set) {
		in->src = c->unicast_src;
	} else {
		vips = calloc(c->nvips ? c->nvips : 1, sizeof(*vips));
		for (i = 0; vips && i < c->nvips; i++)
			vips[i] = c->vips[i].addr;
		r = vrrp_primary_addr(c->family, in->ifindex, vips, c->nvips, &in->src);
		free(vips);
		if (r < 0) {
			log_err("instance %s: interface %s has no %s address to send from", c->name,
				c->interface, c->family == AF_INET6 ? "link-local IPv6" : "IPv4");
			goto fail;
		}
	}
	r = vrrp_sock_open(&in->sock, c->family, in->ifindex, c->unicast ? NULL : &in->group);
	if (r < 0) {
		log_err("instance %s: VRRP socket on %s: %s", c->name, c->interface, strerror(-r));
		goto fail;
	}
	r = sd_event_add_io(d->e, &in->io, in->sock.fd, EPOLLIN, on_packet, in);
	if (r >= 0)
		r = sd_event_add_time(d->e, &in->timer, CLOCK_MONOTONIC, VRRP_NEVER, 1, on_timer,
			in); /* 1 us: sd-event wakes at the end of the accuracy window */
	if (r < 0)
		goto fail;
	sd_event_source_set_enabled(in->timer, SD_EVENT_OFF);

	sc.version = c->version;
	sc.family = c->family;
	sc.priority = (int)c->priority;
	sc.adver_int = c->advert_int;
	sc.preempt = !c->nopreempt;
	sc.preempt_delay = c->preempt_delay;
	sc.preempt_handover = c->preempt_handover;
	sc.resign_grace = inst_resign_grace(d, c);
	/* sync group or fenced: ask before taking over (WANT_MASTER) */
	sc.sync = c->sync_group != NULL || c->fenced_socket != NULL;
	sc.hold_until = d->hold_until;
	r = vrrp_state_init(&in->sm, &sc);
	if (r < 0) {
		log_err("instance %s: VRRP settings out of range", c->name);
		goto fail;
	}
	in->priority = (int)c->priority;
	in->src_ready = vipd_nl_addr_ready(d->nl, in->ifindex, &in->src);
	r = track_attach(in);
	if (r < 0)
		goto fail;
	track_evaluate(in, &in->priority, &in->fault, &in->fault_planned);
	in->fault_self = in->fault;
	in->fault_planned = in->fault && in->fault_planned;
	in->running = true;
	if (in->priority != (int)c->priority)
		vrrp_state_set_priority(&in->sm, vipd_now(d), in->priority, &o);
	if (in->fault)
		vrrp_state_fault(&in->sm, vipd_now(d), true, &o);
	vrrp_state_start(&in->sm, vipd_now(d), &o);
	log_notice("instance %s: started on %s, VRID %u, priority %d, VRRPv%d %s", c->name,
		c->interface, c->vrid, in->priority, c->version,
		c->unicast ? "unicast" : "multicast");
	inst_apply(in, &o);
	*out = in;
	return 0;
fail:
	inst_free(in);
	return r < 0 ? r : -EINVAL;
}

void inst_stop(struct vipd_inst *in, bool graceful)
{
	struct vrrp_out out = { 0 };

	if (!in->running)
		return;
	if (graceful) {
		/* a master sends priority 0 so a backup takes over after Skew_Time */
		vrrp_state_stop(&in->sm, vipd_now(in->d), &out);
		inst_apply(in, &out);
	}
	vips_del(in, false);
	in->running = false;
	sd_event_source_set_enabled(in->timer, SD_EVENT_OFF);
}

void inst_free(struct vipd_inst *in)
{
	if (!in)
		return;
	sd_event_source_disable_unref(in->io);
	sd_event_source_disable_unref(in->timer);
	sd_event_source_disable_unref(in->garp_timer);
	sd_event_source_disable_unref(in->refresh_timer);
	sd_event_source_disable_unref(in->nudge_timer);
	cpha_admin_req_cancel(in->quiet_req);
	cpha_admin_req_cancel(in->open_req);
	free(in->gone);
	fenced_link_detach(in);
	vrrp_sock_close(&in->sock);
	track_detach(in);
	free(in->hmac_peer);
	free(in->name);
	free(in);
}
