/* vipd_quiesce (vipd.conf(5)): before a master gives its VIPs up on
 * purpose, the lbd it tracks is asked to drop new connections to them
 * (lbd(8)'s quiesce), and to take them again once they are gone or the
 * resignation is called off. The state machine decides when
 * (VRRP_ACT_QUIESCE, VRRP_ACT_UNQUIESCE); this is the asking. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin.h"
#include "log.h"
#include "vipd.h"

/* vipd_quiesce: the admin socket of the lbd this instance tracks, or NULL. */
static const char *quiet_socket(const struct vipd_instance *c)
{
	for (size_t i = 0; i < c->ntrack_lbd; i++)
		if (c->track_lbd[i].lbd_socket)
			return c->track_lbd[i].lbd_socket;
	return NULL;
}

uint64_t inst_resign_grace(const struct vipd *d, const struct vipd_instance *c)
{
	return quiet_socket(c) ? d->cfg->global.quiesce : 0;
}

/* lbd keeps a quiesce this long past the grace, then ends it itself: a
 * vipd gone in the middle of a handover leaves no address deaf for long */
#define QUIET_MARGIN_MS 3000u
#define QUIET_ASK_USEC  500000ull

static void quiet_answered(
	struct vipd_inst *in, struct cpha_admin_req **slot, const char *what, int r, char *reply)
{
	*slot = NULL;
	if (r < 0)
		log_warn("instance %s: lbd did not take '%s': %s", in->name, what, strerror(-r));
	else if (reply && reply[0] && reply[0] != '\n')
		log_warn("instance %s: lbd refused '%s': %s", in->name, what, reply);
	free(reply);
}

static void on_quiesced(void *userdata, int r, char *reply)
{
	struct vipd_inst *in = userdata;

	quiet_answered(in, &in->quiet_req, "quiesce", r, reply);
}

static void on_opened(void *userdata, int r, char *reply)
{
	struct vipd_inst *in = userdata;

	quiet_answered(in, &in->open_req, "unquiesce", r, reply);
}

/* Ask lbd to drop new connections to the instance's VIPs (on), or to take
 * them again (off). Without waiting: the VRRP loop never blocks on lbd. */
void inst_quiet_ask(struct vipd_inst *in, bool on)
{
	const char *sock = quiet_socket(in->cfg);
	struct cpha_admin_req **slot = on ? &in->quiet_req : &in->open_req;
	char cmd[1024], a[CPHA_ADDR_STRLEN];
	size_t len;
	int r;

	in->quiesced = on;
	if (!sock)
		return;
	len = (size_t)snprintf(cmd, sizeof(cmd), "%s", on ? "quiesce" : "unquiesce");
	for (size_t i = 0; i < in->cfg->nvips && len < sizeof(cmd); i++)
		len += (size_t)snprintf(cmd + len, sizeof(cmd) - len, " %s",
			cpha_addr_format(&in->cfg->vips[i].addr, a, sizeof(a)));
	if (on && len < sizeof(cmd))
		snprintf(cmd + len, sizeof(cmd) - len, " for %llu",
			(unsigned long long)(in->sm.cfg.resign_grace / 1000 + QUIET_MARGIN_MS));
	if (on)
		log_notice("instance %s: giving the VIP up in %llu ms; until then lbd takes no new "
			   "connections to it (vipd_quiesce)",
			in->name, (unsigned long long)(in->sm.cfg.resign_grace / 1000));
	cpha_admin_req_cancel(*slot);
	*slot = NULL;
	r = cpha_admin_query_async(
		in->d->e, sock, cmd, QUIET_ASK_USEC, on ? on_quiesced : on_opened, in, slot);
	if (r < 0)
		log_warn("instance %s: cannot ask lbd on %s to %s: %s", in->name, sock,
			on ? "quiesce" : "unquiesce", strerror(-r));
}
