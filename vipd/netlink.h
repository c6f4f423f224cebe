/* Addresses and links through libnl (rtnetlink): adding and removing the
 * virtual addresses, and watching links and addresses change. */
#ifndef VIPD_NETLINK_H
#define VIPD_NETLINK_H

#include <stdbool.h>

#include <systemd/sd-event.h>

#include "addr.h"

struct vipd_nl;

/* What the watch reports. */
enum vipd_nl_event {
	VIPD_NL_LINK,     /* a link changed: ifindex, up */
	VIPD_NL_ADDR_DEL, /* an address was removed: ifindex, addr */
	VIPD_NL_ADDR_NEW, /* an address was added: ifindex, addr */
};

typedef void (*vipd_nl_fn)(void *userdata, enum vipd_nl_event ev, int ifindex, bool up,
	const struct cpha_addr *addr, unsigned prefixlen);

/* Open the command socket and, on e, the watch socket. Returns 0 or a
 * negative errno. */
int vipd_nl_open(sd_event *e, vipd_nl_fn fn, void *userdata, struct vipd_nl **out);

void vipd_nl_close(struct vipd_nl *nl);

/* Add an address (prefixlen, optional IPv4 label; IPv6 without DAD).
 * Returns 0, or a negative errno (-EEXIST when it is already there). */
int vipd_nl_addr_add(struct vipd_nl *nl, int ifindex, const struct cpha_addr *a, unsigned plen,
	const char *label);

/* Remove an address. Returns 0, -EADDRNOTAVAIL when it was not there, or
 * another negative errno. */
int vipd_nl_addr_del(struct vipd_nl *nl, int ifindex, const struct cpha_addr *a, unsigned plen);

/* Whether the address is on the interface now. */
bool vipd_nl_addr_present(struct vipd_nl *nl, int ifindex, const struct cpha_addr *a);

/* Whether the address is on the interface and usable as a source: not
 * tentative (IPv6 duplicate address detection still running) and not
 * failed DAD. */
bool vipd_nl_addr_ready(struct vipd_nl *nl, int ifindex, const struct cpha_addr *a);

/* Whether the link is administratively up with carrier (IFF_UP and
 * IFF_RUNNING). */
bool vipd_nl_link_up(int ifindex);

#endif
