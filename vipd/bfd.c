/* BFD sessions on vipd's event loop: the sockets of RFC 5881 and the
 * timers of bfd_session.c, which decides everything.
 *
 * Every session receives on one socket per family bound to UDP port 3784
 * (RFC 5881 §4) with the TTL / hop limit of each packet asked from the
 * kernel (RFC 5881 §5 checks it); a packet goes to the session its Your
 * Discriminator names, or, when that is zero, to the session whose
 * neighbor sent it. Each session sends from its own socket, bound to its
 * source_ip and to one port in 49152..65535 for its whole life, with its
 * ttl / hoplimit (255 for IPv4 unless configured otherwise). */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>

#include "buf.h"
#include "log.h"
#include "metrics.h"
#include "vipd.h"

static uint32_t bfd_rand(struct vipd *d)
{
	uint64_t x = d->bfd_rng;

	if (!x) {
		if (getrandom(&x, sizeof(x), GRND_NONBLOCK) != sizeof(x) || !x)
			x = 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
	}
	/* xorshift64: the jitter needs spread, not secrecy */
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	d->bfd_rng = x;
	return (uint32_t)(x >> 32);
}

/* The address bytes of a (4 or 16) */
static const uint8_t *addr_bytes(const struct cpha_addr *a)
{
	if (cpha_addr_family(a) == AF_INET)
		return (const uint8_t *)&((const struct sockaddr_in *)&a->ss)->sin_addr;
	return (const uint8_t *)&((const struct sockaddr_in6 *)&a->ss)->sin6_addr;
}

static size_t addr_len(int family)
{
	return family == AF_INET ? 4 : 16;
}

static void bfd_apply(struct vipd_bfd_rt *b, const struct bfd_out *out);

static int on_bfd_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct vipd_bfd_rt *b = userdata;
	struct bfd_out out;

	(void)s;
	(void)usec;
	bfd_session_timer(&b->s, vipd_now(b->d), bfd_rand(b->d), &out);
	bfd_apply(b, &out);
	return 0;
}

static void bfd_send(struct vipd_bfd_rt *b, const struct bfd_pkt *p)
{
	struct cpha_addr to = b->def.neighbor;
	uint8_t buf[BFD_PKT_LEN];
	char a[CPHA_ADDR_STRLEN];

	bfd_packet_encode(p, buf);
	cpha_addr_set_port(&to, BFD_PORT);
	if (sendto(b->fd, buf, sizeof(buf), MSG_DONTWAIT, (const struct sockaddr *)&to.ss,
		    to.len) == -1) {
		/* once per session state: a dead neighbor's ARP failing says
		 * EHOSTUNREACH on every packet */
		if (b->pkts_bad++ == 0 || errno != EHOSTUNREACH)
			log_debug("bfd %s: send to %s: %s", b->name,
				cpha_addr_format(&b->def.neighbor, a, sizeof(a)), strerror(errno));
		return;
	}
	b->pkts_out++;
}

/* The session NAME went Up (up) or left Up: the track_bfd entries that
 * name it follow (keepalived: Up is success). */
static void tracks_follow(struct vipd *d, const char *name, bool up)
{
	size_t i, j;

	for (i = 0; i < d->ninst; i++) {
		bool hit = false;

		for (j = 0; j < d->inst[i]->ntracks; j++) {
			struct vipd_track_state *t = &d->inst[i]->tracks[j];

			if (t->cfg && t->cfg->bfd && strcmp(t->cfg->name, name) == 0 &&
				t->up != up) {
				t->up = up;
				hit = true;
			}
		}
		if (hit)
			d->up.track_changed(d->inst[i]);
	}
}

static void bfd_apply(struct vipd_bfd_rt *b, const struct bfd_out *out)
{
	uint64_t now = vipd_now(b->d);
	char a[CPHA_ADDR_STRLEN];

	if (out->send && b->fd >= 0)
		bfd_send(b, &out->pkt);
	if (out->changed) {
		log_notice("bfd %s: %s -> %s (neighbor %s%s)", b->name, bfd_state_name(out->from),
			bfd_state_name(out->to), cpha_addr_format(&b->def.neighbor, a, sizeof(a)),
			b->s.diag == BFD_DIAG_TIME_EXPIRED    ? ", detection time expired"
			: b->s.diag == BFD_DIAG_NEIGHBOR_DOWN ? ", the neighbor said down"
							      : "");
		b->changed_at = now;
		if (out->to == BFD_STATE_DOWN)
			b->last_down_diag = b->s.diag;
		if (out->from == BFD_STATE_UP || out->to == BFD_STATE_UP)
			tracks_follow(b->d, b->name, out->to == BFD_STATE_UP);
		if (out->from == BFD_STATE_UP && out->to == BFD_STATE_DOWN)
			fenced_link_bfd_down(b->d, cpha_addr_family(&b->def.neighbor),
				addr_bytes(&b->def.neighbor), b->name);
	}
	if (!b->timer)
		return;
	if (out->deadline == BFD_NEVER) {
		sd_event_source_set_enabled(b->timer, SD_EVENT_OFF);
		return;
	}
	sd_event_source_set_time(b->timer, out->deadline);
	sd_event_source_set_enabled(b->timer, SD_EVENT_ONESHOT);
}

static struct vipd_bfd_rt *find_by_disc(struct vipd *d, uint32_t disc)
{
	size_t i;

	for (i = 0; i < d->nbfds; i++)
		if (d->bfds[i]->s.cfg.my_disc == disc)
			return d->bfds[i];
	return NULL;
}

static struct vipd_bfd_rt *find_by_addr(struct vipd *d, int family, const uint8_t *src)
{
	size_t i;

	for (i = 0; i < d->nbfds; i++)
		if (cpha_addr_family(&d->bfds[i]->def.neighbor) == family &&
			memcmp(addr_bytes(&d->bfds[i]->def.neighbor), src, addr_len(family)) == 0)
			return d->bfds[i];
	return NULL;
}

bool bfd_up(const struct vipd *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->nbfds; i++)
		if (strcmp(d->bfds[i]->name, name) == 0)
			return d->bfds[i]->s.state == BFD_STATE_UP;
	return false;
}

const struct vipd_bfd_rt *bfd_find_neighbor(const struct vipd *d, int family, const uint8_t *addr)
{
	return find_by_addr((struct vipd *)d, family, addr);
}

/* The least TTL accepted (bfd_packet_decode): keepalived's ttl - max_hops;
 * max_hops -1 or 255 turns the check off. */
static int min_ttl(const struct vipd_bfd_def *def)
{
	if (def->max_hops < 0 || def->max_hops >= 255)
		return 0;
	return def->ttl - def->max_hops;
}

static int on_bfd_rx(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct vipd *d = userdata;
	uint8_t buf[128];
	union {
		char buf[CMSG_SPACE(sizeof(int)) * 2];
		struct cmsghdr align;
	} cm;
	struct sockaddr_storage from;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr mh = { .msg_name = &from,
		.msg_namelen = sizeof(from),
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = &cm,
		.msg_controllen = sizeof(cm) };
	struct cmsghdr *c;
	struct bfd_pkt p;
	struct bfd_out out;
	struct vipd_bfd_rt *b;
	const uint8_t *src;
	enum bfd_pkt_err e;
	ssize_t n;
	int ttl, k, family;

	(void)s;
	(void)revents;
	for (k = 0; k < 64; k++) { /* a bounded batch per wake-up */
		mh.msg_namelen = sizeof(from);
		mh.msg_controllen = sizeof(cm);
		n = recvmsg(fd, &mh, MSG_DONTWAIT);
		if (n == -1)
			return 0;
		ttl = -1;
		for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
			if ((c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TTL) ||
				(c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_HOPLIMIT))
				memcpy(&ttl, CMSG_DATA(c), sizeof(ttl));
		family = from.ss_family;
		if (family == AF_INET)
			src = (const uint8_t *)&((struct sockaddr_in *)&from)->sin_addr;
		else if (family == AF_INET6)
			src = (const uint8_t *)&((struct sockaddr_in6 *)&from)->sin6_addr;
		else
			continue;
		/* RFC 5881 §4: the source port is 49152..65535; keepalived and
		 * FRR keep to it, and nothing checks it on receipt (§4 says
		 * "MUST be" for senders only) */
		b = find_by_addr(d, family, src);
		e = bfd_packet_decode(buf, (size_t)n, ttl, b ? min_ttl(&b->def) : BFD_TTL, &p);
		if (e != BFD_PKT_OK) {
			if (b && b->pkts_bad++ % 1000 == 0)
				log_info("bfd %s: packet dropped: %s (TTL %d)", b->name,
					bfd_packet_strerror(e), ttl);
			continue;
		}
		/* §6.8.6: Your Discriminator picks the session; zero: the
		 * addresses do (RFC 5881 §3) */
		if (p.your_disc) {
			struct vipd_bfd_rt *by = find_by_disc(d, p.your_disc);

			if (!by || by != b) {
				d->bfd_rx_unmatched++;
				continue;
			}
		}
		if (!b) {
			d->bfd_rx_unmatched++;
			continue;
		}
		b->pkts_in++;
		if (bfd_session_receive(&b->s, vipd_now(d), &p, bfd_rand(d), &out) < 0) {
			b->pkts_bad++;
			continue;
		}
		bfd_apply(b, &out);
	}
	return 0;
}

static int open_rx(struct vipd *d, int family)
{
	int i = family == AF_INET ? 0 : 1, fd, one = 1, r;
	struct sockaddr_storage ss = { 0 };
	socklen_t len;

	if (d->bfd_rx_fd[i] >= 0)
		return 0;
	fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_UDP);
	if (fd == -1)
		return -errno;
	if (family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(BFD_PORT);
		len = sizeof(*s4);
		r = setsockopt(fd, IPPROTO_IP, IP_RECVTTL, &one, sizeof(one));
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(BFD_PORT);
		len = sizeof(*s6);
		r = setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		if (r == 0)
			r = setsockopt(fd, IPPROTO_IPV6, IPV6_RECVHOPLIMIT, &one, sizeof(one));
	}
	if (r == -1 || bind(fd, (struct sockaddr *)&ss, len) == -1) {
		r = -errno;
		close(fd);
		return r;
	}
	r = sd_event_add_io(d->e, &d->bfd_rx_io[i], fd, EPOLLIN, on_bfd_rx, d);
	if (r < 0) {
		close(fd);
		return r;
	}
	d->bfd_rx_fd[i] = fd;
	return 0;
}

/* The sending socket: source_ip (or any), a port from 49152..65535, the TTL. */
static int open_tx(struct vipd *d, struct vipd_bfd_rt *b)
{
	struct cpha_addr a = b->def.source;
	int family = cpha_addr_family(&b->def.neighbor), fd, ttl = b->def.ttl, tries, r;
	uint16_t port;

	if (!b->def.source_set) {
		memset(&a, 0, sizeof(a));
		a.ss.ss_family = (sa_family_t)family;
		a.len = family == AF_INET ? sizeof(struct sockaddr_in)
					  : sizeof(struct sockaddr_in6);
	}
	fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_UDP);
	if (fd == -1)
		return -errno;
	r = family == AF_INET ? setsockopt(fd, IPPROTO_IP, IP_TTL, &ttl, sizeof(ttl))
			      : setsockopt(fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &ttl, sizeof(ttl));
	if (r == -1)
		goto fail;
	for (tries = 0; tries < 64; tries++) {
		port = (uint16_t)(BFD_SRC_PORT_MIN +
				  bfd_rand(d) % (BFD_SRC_PORT_MAX - BFD_SRC_PORT_MIN + 1));
		cpha_addr_set_port(&a, port);
		if (bind(fd, (const struct sockaddr *)&a.ss, a.len) == 0) {
			b->fd = fd;
			return 0;
		}
		if (errno != EADDRINUSE)
			goto fail;
	}
	errno = EADDRINUSE;
fail:
	r = -errno;
	close(fd);
	return r;
}

static bool same_def(const struct vipd_bfd_def *a, const struct vipd_bfd_def *b)
{
	return strcmp(a->name, b->name) == 0 && cpha_addr_equal(&a->neighbor, &b->neighbor) &&
	       a->source_set == b->source_set &&
	       (!a->source_set || cpha_addr_equal(&a->source, &b->source)) &&
	       a->min_rx == b->min_rx && a->min_tx == b->min_tx && a->idle_tx == b->idle_tx &&
	       a->mult == b->mult && a->passive == b->passive && a->ttl == b->ttl &&
	       a->max_hops == b->max_hops;
}

static void bfd_free(struct vipd_bfd_rt *b)
{
	if (!b)
		return;
	sd_event_source_disable_unref(b->timer);
	if (b->fd >= 0)
		close(b->fd);
	free(b->name);
	free(b);
}

/* Tell the neighbor we stop (AdminDown, RFC 5880 §6.8.16), then free. */
static void bfd_stop(struct vipd_bfd_rt *b)
{
	struct bfd_out out;

	bfd_session_stop(&b->s, vipd_now(b->d), &out);
	if (out.send && b->fd >= 0)
		bfd_send(b, &out.pkt);
	if (out.changed)
		log_notice("bfd %s: stopped", b->name);
	bfd_free(b);
}

static int bfd_start_one(struct vipd *d, const struct vipd_bfd_def *def, struct vipd_bfd_rt **res)
{
	struct bfd_session_config sc = { 0 };
	struct vipd_bfd_rt *b = calloc(1, sizeof(*b));
	struct bfd_out out;
	char a[CPHA_ADDR_STRLEN];
	int r;

	if (!b || !(b->name = strdup(def->name))) {
		free(b);
		return -ENOMEM;
	}
	b->d = d;
	b->fd = -1;
	b->def = *def;
	b->def.name = b->name;
	sc.min_tx = def->min_tx;
	sc.min_rx = def->min_rx;
	sc.idle_tx = def->idle_tx;
	sc.mult = def->mult;
	sc.passive = def->passive;
	/* §6.8.1: unique and non-zero; random, so a restart is a new session */
	do
		sc.my_disc = bfd_rand(d);
	while (!sc.my_disc || find_by_disc(d, sc.my_disc));
	r = bfd_session_init(&b->s, &sc);
	if (r == 0)
		r = open_rx(d, cpha_addr_family(&def->neighbor));
	if (r == 0)
		r = open_tx(d, b);
	if (r == 0)
		r = sd_event_add_time(
			d->e, &b->timer, CLOCK_MONOTONIC, BFD_NEVER, 1, on_bfd_timer, b);
	if (r < 0) {
		log_err("bfd %s: cannot start (neighbor %s): %s", def->name,
			cpha_addr_format(&def->neighbor, a, sizeof(a)), strerror(-r));
		bfd_free(b);
		return r;
	}
	sd_event_source_set_enabled(b->timer, SD_EVENT_OFF);
	*res = b;
	bfd_session_start(&b->s, vipd_now(d), bfd_rand(d), &out);
	bfd_apply(b, &out);
	log_info("bfd %s: started with %s (%s, tx %u us, rx %u us, multiplier %u)", b->name,
		cpha_addr_format(&def->neighbor, a, sizeof(a)), def->passive ? "passive" : "active",
		def->min_tx, def->min_rx, def->mult);
	return 0;
}

int bfd_setup(struct vipd *d)
{
	struct vipd_bfd_rt **old = d->bfds, **nb;
	size_t nold = d->nbfds, i, j;
	const struct vipd_config *c = d->cfg;
	int r, failed = 0;

	if (!d->bfd_rx_io[0] && !d->bfd_rx_io[1] && !old)
		d->bfd_rx_fd[0] = d->bfd_rx_fd[1] = -1;
	nb = calloc(c->nbfds ? c->nbfds : 1, sizeof(*nb));
	if (!nb)
		return -ENOMEM;
	d->bfds = nb;
	d->nbfds = 0;
	for (i = 0; i < c->nbfds; i++) {
		const struct vipd_bfd_def *def = &c->bfds[i];

		for (j = 0; j < nold; j++)
			if (old[j] && same_def(&old[j]->def, def)) {
				/* unchanged by the reload: the session runs on */
				nb[d->nbfds] = old[j];
				nb[d->nbfds]->def.weight = def->weight;
				nb[d->nbfds]->def.weight_reverse = def->weight_reverse;
				nb[d->nbfds]->def.vrrp = def->vrrp;
				d->nbfds++;
				old[j] = NULL;
				break;
			}
		if (j < nold)
			continue;
		r = bfd_start_one(d, def, &nb[d->nbfds]);
		if (r < 0)
			failed++;
		else
			d->nbfds++;
	}
	for (j = 0; j < nold; j++)
		if (old[j])
			bfd_stop(old[j]);
	free(old);
	return failed ? -EINVAL : 0;
}

void bfd_teardown(struct vipd *d, bool tell)
{
	size_t i;

	for (i = 0; i < d->nbfds; i++) {
		if (tell)
			bfd_stop(d->bfds[i]);
		else
			bfd_free(d->bfds[i]);
	}
	free(d->bfds);
	d->bfds = NULL;
	d->nbfds = 0;
	for (i = 0; i < 2; i++) {
		d->bfd_rx_io[i] = sd_event_source_disable_unref(d->bfd_rx_io[i]);
		if (d->bfd_rx_fd[i] >= 0)
			close(d->bfd_rx_fd[i]);
		d->bfd_rx_fd[i] = -1;
	}
}

static const char *diag_name(enum bfd_diag g)
{
	switch (g) {
	case BFD_DIAG_NONE:
		return "none";
	case BFD_DIAG_TIME_EXPIRED:
		return "detection time expired";
	case BFD_DIAG_NEIGHBOR_DOWN:
		return "neighbor signaled down";
	case BFD_DIAG_ADMIN_DOWN:
		return "administratively down";
	}
	return "other";
}

json_t *bfd_json(const struct vipd *d)
{
	json_t *arr = json_array();
	char n[CPHA_ADDR_STRLEN], s[CPHA_ADDR_STRLEN];
	uint64_t now = vipd_now(d);
	size_t i;

	for (i = 0; i < d->nbfds; i++) {
		const struct vipd_bfd_rt *b = d->bfds[i];

		json_array_append_new(arr,
			json_pack("{s:s,s:s,s:s?,s:s,s:s,s:s,s:I,s:I,s:I,s:i,s:I,s:I,s:I,s:I,s:I,s:"
				  "I,s:f}",
				"name", b->name, "neighbor",
				cpha_addr_format(&b->def.neighbor, n, sizeof(n)), "source",
				b->def.source_set ? cpha_addr_format(&b->def.source, s, sizeof(s))
						  : NULL,
				"state", bfd_state_name(b->s.state), "remote_state",
				bfd_state_name(b->s.remote_state), "diag", diag_name(b->s.diag),
				"local_discriminator", (json_int_t)b->s.cfg.my_disc,
				"remote_discriminator", (json_int_t)b->s.remote_disc,
				"detect_time_us", (json_int_t)b->s.detect_time, "remote_multiplier",
				(int)b->s.remote_mult, "tx_interval_us",
				(json_int_t)(b->s.desired_tx > b->s.remote_min_rx
						     ? b->s.desired_tx
						     : b->s.remote_min_rx),
				"packets_in", (json_int_t)b->pkts_in, "packets_out",
				(json_int_t)b->pkts_out, "packets_bad", (json_int_t)b->pkts_bad,
				"ups", (json_int_t)b->s.up_count, "downs",
				(json_int_t)b->s.down_count, "since_change_s",
				b->changed_at ? (double)(now - b->changed_at) / 1e6 : -1.0));
	}
	return arr;
}

void bfd_prometheus(const struct vipd *d, struct cpha_buf *o)
{
	size_t i;

	if (!d->nbfds)
		return;
#define EACH(metric, type, help, expr)                                                             \
	cpha_prom_family(o, metric, type, help);                                                   \
	for (i = 0; i < d->nbfds; i++)                                                             \
		cpha_prom_sample(o, metric, (double)(expr), "session", d->bfds[i]->name, NULL);
	EACH("vipd_bfd_session_state", "gauge", "0 AdminDown, 1 Down, 2 Init, 3 Up (RFC 5880)",
		d->bfds[i]->s.state)
	EACH("vipd_bfd_session_ups_total", "counter", "Times the session came Up",
		d->bfds[i]->s.up_count)
	EACH("vipd_bfd_session_downs_total", "counter",
		"Times the session went Down from Init or Up", d->bfds[i]->s.down_count)
	EACH("vipd_bfd_detect_time_seconds", "gauge", "Detection time negotiated with the neighbor",
		(double)d->bfds[i]->s.detect_time / 1e6)
#undef EACH
	cpha_prom_family(
		o, "vipd_bfd_packets_total", "counter", "BFD control packets, by direction");
	for (i = 0; i < d->nbfds; i++) {
		cpha_prom_sample(o, "vipd_bfd_packets_total", (double)d->bfds[i]->pkts_in,
			"session", d->bfds[i]->name, "direction", "in", NULL);
		cpha_prom_sample(o, "vipd_bfd_packets_total", (double)d->bfds[i]->pkts_out,
			"session", d->bfds[i]->name, "direction", "out", NULL);
		cpha_prom_sample(o, "vipd_bfd_packets_total", (double)d->bfds[i]->pkts_bad,
			"session", d->bfds[i]->name, "direction", "dropped", NULL);
	}
}

void bfd_show(const struct vipd *d, struct cpha_buf *reply)
{
	char n[CPHA_ADDR_STRLEN];
	size_t i;

	for (i = 0; i < d->nbfds; i++) {
		const struct vipd_bfd_rt *b = d->bfds[i];

		cpha_buf_printf(reply,
			"bfd %s: %s with %s (remote %s), detect %.1f ms, in %llu, out %llu, "
			"ups %llu, downs %llu%s%s\n",
			b->name, bfd_state_name(b->s.state),
			cpha_addr_format(&b->def.neighbor, n, sizeof(n)),
			bfd_state_name(b->s.remote_state), (double)b->s.detect_time / 1000.0,
			(unsigned long long)b->pkts_in, (unsigned long long)b->pkts_out,
			(unsigned long long)b->s.up_count, (unsigned long long)b->s.down_count,
			b->s.diag ? ", diag: " : "", b->s.diag ? diag_name(b->s.diag) : "");
	}
}
