#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/socket.h>

#include "log.h"
#include "netlink.h"

struct vipd_nl {
	struct nl_sock *cmd;   /* requests */
	struct nl_sock *watch; /* multicast notifications */
	sd_event_source *src;
	vipd_nl_fn fn;
	void *userdata;
};

static int nl_err(int nlerr)
{
	switch (-nlerr) {
	case NLE_EXIST:
		return -EEXIST;
	case NLE_NOADDR:
	case NLE_OBJ_NOTFOUND:
		return -EADDRNOTAVAIL;
	case NLE_PERM:
		return -EPERM;
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_NODEV:
		return -ENODEV;
	case NLE_INVAL:
		return -EINVAL;
	default:
		return -EIO;
	}
}

static const void *addr_bytes(const struct cpha_addr *a, int *len)
{
	if (a->ss.ss_family == AF_INET6) {
		*len = 16;
		return &((const struct sockaddr_in6 *)&a->ss)->sin6_addr;
	}
	*len = 4;
	return &((const struct sockaddr_in *)&a->ss)->sin_addr;
}

static struct rtnl_addr *build(int ifindex, const struct cpha_addr *a, unsigned plen)
{
	struct rtnl_addr *ra = rtnl_addr_alloc();
	struct nl_addr *local;
	const void *bytes;
	int len;

	if (!ra)
		return NULL;
	bytes = addr_bytes(a, &len);
	local = nl_addr_build(a->ss.ss_family, bytes, (size_t)len);
	if (!local) {
		rtnl_addr_put(ra);
		return NULL;
	}
	nl_addr_set_prefixlen(local, (int)plen);
	rtnl_addr_set_ifindex(ra, ifindex);
	rtnl_addr_set_family(ra, a->ss.ss_family);
	rtnl_addr_set_local(ra, local);
	rtnl_addr_set_prefixlen(ra, (int)plen);
	nl_addr_put(local);
	return ra;
}

int vipd_nl_addr_add(struct vipd_nl *nl, int ifindex, const struct cpha_addr *a, unsigned plen,
	const char *label)
{
	struct rtnl_addr *ra = build(ifindex, a, plen);
	int r;

	if (!ra)
		return -ENOMEM;
	if (label && a->ss.ss_family == AF_INET)
		rtnl_addr_set_label(ra, label);
	if (a->ss.ss_family == AF_INET6)
		rtnl_addr_set_flags(ra, IFA_F_NODAD); /* a VIP must answer at once */
	r = rtnl_addr_add(nl->cmd, ra, NLM_F_EXCL);
	rtnl_addr_put(ra);
	return r < 0 ? nl_err(r) : 0;
}

int vipd_nl_addr_del(struct vipd_nl *nl, int ifindex, const struct cpha_addr *a, unsigned plen)
{
	struct rtnl_addr *ra = build(ifindex, a, plen);
	int r;

	if (!ra)
		return -ENOMEM;
	r = rtnl_addr_delete(nl->cmd, ra, 0);
	rtnl_addr_put(ra);
	return r < 0 ? nl_err(r) : 0;
}

bool vipd_nl_addr_present(struct vipd_nl *nl, int ifindex, const struct cpha_addr *a)
{
	struct ifaddrs *ifa, *i;
	const void *want;
	bool found = false;
	int len;
	char name[IF_NAMESIZE];

	(void)nl;
	if (!if_indextoname((unsigned)ifindex, name) || getifaddrs(&ifa) == -1)
		return false;
	want = addr_bytes(a, &len);
	for (i = ifa; i && !found; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != a->ss.ss_family ||
			strcmp(i->ifa_name, name) != 0)
			continue;
		if (a->ss.ss_family == AF_INET6)
			found = memcmp(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr, want,
					16) == 0;
		else
			found = memcmp(&((struct sockaddr_in *)i->ifa_addr)->sin_addr, want, 4) ==
				0;
	}
	freeifaddrs(ifa);
	return found;
}

bool vipd_nl_addr_ready(struct vipd_nl *nl, int ifindex, const struct cpha_addr *a)
{
	struct nl_cache *cache = NULL;
	struct nl_object *obj;
	const void *want;
	bool ready = false;
	int len;

	if (rtnl_addr_alloc_cache(nl->cmd, &cache) < 0)
		return vipd_nl_addr_present(nl, ifindex, a); /* no flags: presence at least */
	want = addr_bytes(a, &len);
	for (obj = nl_cache_get_first(cache); obj; obj = nl_cache_get_next(obj)) {
		struct rtnl_addr *ra = (struct rtnl_addr *)obj;
		struct nl_addr *local = rtnl_addr_get_local(ra);

		if (rtnl_addr_get_ifindex(ra) != ifindex || !local ||
			nl_addr_get_family(local) != a->ss.ss_family ||
			nl_addr_get_len(local) != (unsigned)len ||
			memcmp(nl_addr_get_binary_addr(local), want, (size_t)len) != 0)
			continue;
		ready = !(rtnl_addr_get_flags(ra) & (IFA_F_TENTATIVE | IFA_F_DADFAILED));
		break;
	}
	nl_cache_free(cache);
	return ready;
}

bool vipd_nl_link_up(int ifindex)
{
	struct ifreq ifr = { 0 };
	int fd, r;

	if (!if_indextoname((unsigned)ifindex, ifr.ifr_name))
		return false;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd == -1)
		return false;
	r = ioctl(fd, SIOCGIFFLAGS, &ifr);
	close(fd);
	return r == 0 && (ifr.ifr_flags & IFF_UP) && (ifr.ifr_flags & IFF_RUNNING);
}

struct parse_ctx {
	struct vipd_nl *nl;
	int type; /* RTM_* */
};

static void on_object(struct nl_object *obj, void *arg)
{
	struct parse_ctx *p = arg;
	const char *kind = nl_object_get_type(obj);

	if (strcmp(kind, "route/link") == 0) {
		struct rtnl_link *l = (struct rtnl_link *)obj;
		unsigned flags = rtnl_link_get_flags(l);

		p->nl->fn(p->nl->userdata, VIPD_NL_LINK, rtnl_link_get_ifindex(l),
			(flags & IFF_UP) && (flags & IFF_RUNNING) && p->type != RTM_DELLINK, NULL,
			0);
	} else if (strcmp(kind, "route/addr") == 0) {
		struct rtnl_addr *ra = (struct rtnl_addr *)obj;
		struct nl_addr *local = rtnl_addr_get_local(ra);
		struct cpha_addr a = { 0 };

		if (!local)
			return;
		a.ss.ss_family = (sa_family_t)nl_addr_get_family(local);
		if (a.ss.ss_family == AF_INET && nl_addr_get_len(local) == 4) {
			memcpy(&((struct sockaddr_in *)&a.ss)->sin_addr,
				nl_addr_get_binary_addr(local), 4);
			a.len = sizeof(struct sockaddr_in);
		} else if (a.ss.ss_family == AF_INET6 && nl_addr_get_len(local) == 16) {
			memcpy(&((struct sockaddr_in6 *)&a.ss)->sin6_addr,
				nl_addr_get_binary_addr(local), 16);
			a.len = sizeof(struct sockaddr_in6);
		} else {
			return;
		}
		p->nl->fn(p->nl->userdata,
			p->type == RTM_DELADDR ? VIPD_NL_ADDR_DEL : VIPD_NL_ADDR_NEW,
			rtnl_addr_get_ifindex(ra), true, &a, (unsigned)rtnl_addr_get_prefixlen(ra));
	}
}

static int on_msg(struct nl_msg *msg, void *arg)
{
	struct parse_ctx p = { .nl = arg, .type = nlmsg_hdr(msg)->nlmsg_type };

	nl_msg_parse(msg, on_object, &p);
	return NL_OK;
}

static int on_watch(sd_event_source *src, int fd, uint32_t revents, void *userdata)
{
	struct vipd_nl *nl = userdata;
	int r;

	(void)src;
	(void)fd;
	(void)revents;
	r = nl_recvmsgs_default(nl->watch);
	if (r < 0 && r != -NLE_AGAIN)
		log_warn("netlink watch: %s (resyncing is left to the periodic checks)",
			nl_geterror(r));
	return 0;
}

int vipd_nl_open(sd_event *e, vipd_nl_fn fn, void *userdata, struct vipd_nl **out)
{
	struct vipd_nl *nl = calloc(1, sizeof(*nl));
	int r = -ENOMEM;

	if (!nl)
		return -ENOMEM;
	nl->fn = fn;
	nl->userdata = userdata;
	nl->cmd = nl_socket_alloc();
	nl->watch = nl_socket_alloc();
	if (!nl->cmd || !nl->watch)
		goto fail;
	r = nl_connect(nl->cmd, NETLINK_ROUTE);
	if (r < 0)
		goto fail_nl;
	if (fn) {
		nl_socket_disable_seq_check(nl->watch);
		nl_socket_modify_cb(nl->watch, NL_CB_VALID, NL_CB_CUSTOM, on_msg, nl);
		r = nl_connect(nl->watch, NETLINK_ROUTE);
		if (r < 0)
			goto fail_nl;
		r = nl_socket_add_memberships(
			nl->watch, RTNLGRP_LINK, RTNLGRP_IPV4_IFADDR, RTNLGRP_IPV6_IFADDR, 0);
		if (r < 0)
			goto fail_nl;
		nl_socket_set_nonblocking(nl->watch);
		nl_socket_set_buffer_size(nl->watch, 1 << 20, 0);
		r = sd_event_add_io(
			e, &nl->src, nl_socket_get_fd(nl->watch), EPOLLIN, on_watch, nl);
		if (r < 0)
			goto fail;
	}
	*out = nl;
	return 0;
fail_nl:
	r = nl_err(r);
fail:
	vipd_nl_close(nl);
	return r;
}

void vipd_nl_close(struct vipd_nl *nl)
{
	if (!nl)
		return;
	sd_event_source_disable_unref(nl->src);
	if (nl->cmd)
		nl_socket_free(nl->cmd);
	if (nl->watch)
		nl_socket_free(nl->watch);
	free(nl);
}
