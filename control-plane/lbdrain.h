/* Taking a load-balancer host out of service before it is worked on (an
 * upgrade of lbd, vipd and fenced, a reboot), and back after: `cpha drain
 * LBHOST` and `cpha undrain LBHOST`, run on that host.
 * No I/O: drain_cmd.c reads the drain file, this host's addresses and the
 * other LB hosts' vipd /status, asks lbdrain_decide(), writes the file and
 * waits until lbdrain_settled() says the VIP has gone where it should.
 *
 * The VRRP instances (vipd's or keepalived's) track the drain file
 * (track_file, weight 0, as `cpha render` writes it): while it holds a
 * value other than 0 they are in FAULT. A master in FAULT sends priority
 * 0, so a backup takes the VIP within its skew time instead of after
 * three silent advertisement intervals, and gives the VIP up. */
#ifndef CPHA_LBDRAIN_H
#define CPHA_LBDRAIN_H

#include <stdbool.h>
#include <stddef.h>

/* Another LB host, as its VIP daemon's /status says. */
struct lbdrain_peer {
	char name[64];
	bool answered; /* its vipd's /status was read */
	char vrrp[16]; /* MASTER, BACKUP, FAULT, INIT, STOP */
	bool drained;  /* its drain track is not ok */
	long hold_ms;  /* its vrrp_startup_delay left: it takes no VIP before */
};

struct lbdrain_in {
	const char *host; /* this host */
	bool drain;       /* cpha drain (true) or undrain */
	bool force;       /* drain even with no backup up */
	bool drained;     /* the drain file holds a value other than 0 now */
	bool holds_vip;   /* a VIP of the cluster is on this host now */
	bool peers_known; /* the other hosts' vipd /status can be read from here */
	/* why not, when !peers_known: "keepalived ..." or the monitoring */
	const char *unknown_why;
	const struct lbdrain_peer *peers;
	size_t npeers;
};

enum lbdrain_verdict {
	LBDRAIN_WRITE,   /* write the drain file: 1 to drain, 0 to undrain */
	LBDRAIN_NOTHING, /* already as asked: why says so */
	LBDRAIN_REFUSE,  /* why says why; nothing is written */
};

/* - drain of a host drained already, undrain of one that is not: nothing;
 * - undrain: write;
 * - drain of a host holding no VIP: write (the VIP stays where it is);
 * - drain of the host holding the VIP: write when another LB host answers
 *   as BACKUP, is not drained itself and is past its vrrp_startup_delay
 *   (it takes the VIP at once); else refused,
 *   unless force: the VIP would be on no host. When the other hosts'
 *   state cannot be read (keepalived; vipd's /status on loopback):
 *   refused unless force, saying why and to check.
 * why gets a sentence for the user. */
enum lbdrain_verdict lbdrain_decide(const struct lbdrain_in *in, char *why, size_t whylen);

/* Whether a drain (or undrain) has taken effect:
 * - drain: no VIP left on this host and, when the peers are known, one of
 *   them MASTER (the VIP has moved, not just gone);
 * - undrain: this host's instance out of FAULT (local_vrrp BACKUP or
 *   MASTER) and past its vrrp_startup_delay (local_hold_ms 0), so that it
 *   can take the VIP when the next host is drained; with keepalived
 *   (local_vrrp "") at once. */
bool lbdrain_settled(bool drain, bool holds_vip, const char *local_vrrp, long local_hold_ms,
	const struct lbdrain_peer *peers, size_t npeers, bool peers_known);

#endif
