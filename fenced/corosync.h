/* fenced's link to corosync: the fence domain is a CPG group, quorum is
 * votequorum's, node names and ids are corosync's nodelist (cmap). fenced
 * keeps no membership of its own: it reacts to what these report.
 *
 * Everything arrives through the event loop: the CPG and votequorum
 * descriptors are dispatched when readable. When corosync goes away
 * (restart, crash) lost() is called once and the handle is dead; the
 * daemon closes it and opens a new one later. */
#ifndef FENCED_COROSYNC_H
#define FENCED_COROSYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "decide.h"

#define FENCED_CPG_GROUP "cpha_fenced"

struct fenced_cs_member {
	uint32_t id;
	uint32_t pid;
};

struct fenced_cs_ops {
	/* A CPG configuration change of the fence domain: every member now,
	 * those that left (with why), those that joined. */
	void (*confchg)(void *ud, const struct fenced_cs_member *members, size_t nmembers,
		const struct decide_left *left, size_t nleft, const struct fenced_cs_member *joined,
		size_t njoined);
	/* A message multicast by a member (ourselves included), in the
	 * group's total order. */
	void (*deliver)(void *ud, uint32_t from, const char *msg, size_t len);
	/* votequorum's notification: the quorate flag (also its first value,
	 * at start) and the node ids it counts as members. */
	void (*quorum)(void *ud, bool quorate, const uint32_t *members, size_t nmembers);
	/* corosync went away: nothing more comes from this handle. */
	void (*lost)(void *ud, const char *why);
};

/* A node of corosync's nodelist. */
struct fenced_cs_node {
	uint32_t id;
	char name[256]; /* nodelist.node.N.name, else its ring0_addr */
};

/* What the quorum section says (for -c's watchdog rule, and the log). */
struct fenced_cs_quorum_cfg {
	bool two_node;
	bool qdevice; /* a quorum.device section with a model */
};

struct fenced_cs;

/* Connect to corosync (cmap, CPG, votequorum), read our node id, join the
 * group. 0, or a negative errno with why (corosync not running...). */
int fenced_cs_open(sd_event *e, const struct fenced_cs_ops *ops, void *ud, struct fenced_cs **out,
	char *why, size_t whylen);
void fenced_cs_close(struct fenced_cs *cs);

uint32_t fenced_cs_our_id(const struct fenced_cs *cs);

/* votequorum's quorate flag as corosync has it now (1 or 0), asked
 * synchronously: a CPG configuration change and votequorum's notification
 * come on two connections, in either order, but corosync computes quorum
 * before it delivers the change, so asking at the change is never stale.
 * A negative errno when corosync does not answer. */
int fenced_cs_quorate_now(struct fenced_cs *cs);

/* Whether corosync counts node id as a member now (votequorum's node
 * state), asked synchronously; false when it does not answer. */
bool fenced_cs_member_now(struct fenced_cs *cs, uint32_t id);

/* The quorum device as votequorum sees it from this node, asked
 * synchronously. */
struct fenced_cs_qdevice {
	bool registered; /* corosync-qdevice is connected to votequorum */
	bool alive;      /* and polls it within its timeout */
	bool cast_vote;  /* and gives this node its vote (qnetd's answer) */
	unsigned votes;
	char name[256]; /* the model, "Qdevice" */
};

/* 0, or a negative errno when corosync does not answer. */
int fenced_cs_qdevice_now(struct fenced_cs *cs, struct fenced_cs_qdevice *q);

/* Multicast to the group (agreed order). 0, or a negative errno. */
int fenced_cs_send(struct fenced_cs *cs, const char *msg, size_t len);

/* The quorum section as corosync has it now, a reload of corosync.conf
 * (corosync-cfgtool -R) included. 0, or a negative errno. */
int fenced_cs_quorum_cfg(struct fenced_cs *cs, struct fenced_cs_quorum_cfg *q);

/* corosync's nodelist, sorted by id; *nodes is malloc'd. 0, or a negative
 * errno with why. */
int fenced_cs_nodelist(struct fenced_cs *cs, struct fenced_cs_node **nodes, size_t *n,
	struct fenced_cs_quorum_cfg *q, char *why, size_t whylen);

/* corosync.conf read as text (for -c, when corosync need not run): the
 * quorum section and the nodelist's node names (*names malloc'd, each
 * string too). 0, or a negative errno. */
int fenced_cs_conf_read(const char *path, struct fenced_cs_quorum_cfg *q, char ***names, size_t *n);

#endif
