/* vipd's configuration: the checks that need the whole configuration
 * (address families, versions, advert_int, preemption, authentication,
 * unicast peers, VIPs, VRIDs, sync groups, weights), the defaults that
 * depend on them, and the tracking-weight warning. As keepalived 2.2 does:
 * where keepalived warns that it ignores or clears a setting and the
 * outcome stays what the file means (authentication in VRRPv3, nopreempt
 * with state MASTER, a label on an IPv6 address, an unknown state), vipd
 * warns at the line and does the same; where keepalived goes on with
 * something that changes which node holds the VIP (ignoring a track,
 * rounding advert_int, falling back to multicast), vipd refuses the file.
 *
 * vrrp_strict (keepalived's RFC 3768 / RFC 9568 rules): no unicast peers
 * (an error: keepalived drops the instance), no authentication and no
 * preempt_delay (ignored with a warning), state MASTER only for the address
 * owner (the state follows the priority, with a warning). keepalived's
 * firewall rules that stop backups accepting traffic for the VIPs are not
 * installed; a warning says so.
 *
 * The tracking-weight warning. A node only knows its own configuration,
 * not its peers' priorities, so vipd assumes the layout of the usual guides
 * (MASTER 101, BACKUPs 100) and keepalived's default priority:
 *
 *   For an instance that means to hold the VIP (state MASTER, or a priority
 *   above 100) and is not the address owner, the BACKUP peer is assumed at
 *   priority 100 when this one is above 100, else at priority - 1 (the
 *   highest a lower peer can have). A weighted tracked script, interface or
 *   lbd backend (weight != 0, not reverse; a sync group's tracks count for
 *   each member) that fails alone moves this node by |weight| against a
 *   peer that runs the same checks. When
 *
 *       priority - |weight| >= assumed peer priority
 *
 *   the failure cannot move the VIP (a tie at best, which the higher IP
 *   address wins), and a notice says so at the track's line, with the
 *   weight that would. Weight 0 (FAULT) always moves it. track_file weights
 *   are multiplied by the file's value, so they are left out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"
#include "cfg_ctx.h"

#define CFG_CENTISEC (CPHA_USEC_PER_SEC / 100)

static const char *cfg_fam(int family)
{
	return family == AF_INET6 ? "IPv6" : "IPv4";
}

static const char *cfg_fmt(const struct cpha_addr *a, char *buf, size_t len)
{
	return cpha_addr_format(a, buf, len);
}

/* Family of the VIPs; every VIP must be of the first one's. */
static void cfg_check_family(struct cfg_ctx *ctx, struct vipd_instance *v)
{
	char a[CPHA_ADDR_STRLEN], b[CPHA_ADDR_STRLEN], at[64];
	size_t i;

	v->family = v->nvips             ? cpha_addr_family(&v->vips[0].addr)
		    : v->unicast_src_set ? cpha_addr_family(&v->unicast_src)
		    : v->npeers          ? cpha_addr_family(&v->peers[0])
					 : AF_INET;
	for (i = 1; i < v->nvips; i++)
		if (cpha_addr_family(&v->vips[i].addr) != v->family)
			vipd_cfg_err(ctx, v->vips[i].line,
				"virtual_ipaddress %s is %s but %s at %s is %s: an instance has "
				"one address family; use a second instance (vrrp_instance '%s')",
				cfg_fmt(&v->vips[i].addr, a, sizeof(a)),
				cfg_fam(cpha_addr_family(&v->vips[i].addr)),
				cfg_fmt(&v->vips[0].addr, b, sizeof(b)),
				cpha_cfgdiag_at(
					&ctx->d, v->vips[0].line, v->vips[i].line, at, sizeof(at)),
				cfg_fam(v->family), v->name);
}

/* Version: the instance's, else 3 for IPv6, else global vrrp_version. */
static void cfg_check_version(struct cfg_ctx *ctx, struct vipd_instance *v, struct cfg_inst_x *x)
{
	char s[32];
	uint64_t a = v->advert_int;

	if (!x->version_loc)
		v->version = v->family == AF_INET6 ? 3 : ctx->c->global.vrrp_version;
	else if (v->version == 2 && v->family == AF_INET6)
		vipd_cfg_err(ctx, x->version_loc,
			"VRRP version 2 carries only IPv4 addresses (RFC 3768) but the VIPs of "
			"vrrp_instance '%s' are IPv6: use version 3",
			v->name);
	if (!x->advert_loc)
		return;
	cpha_conf_fmt_seconds(a, s, sizeof(s));
	/* RFC 3768 §5.3.7: whole seconds; RFC 9568 §5.2.7: 12 bits of centiseconds */
	if (v->version == 2 && a % CPHA_USEC_PER_SEC)
		vipd_cfg_err(ctx, x->advert_loc,
			"'advert_int' must be whole seconds with VRRP version 2, not %s "
			"(vrrp_instance '%s'; keepalived would round it)",
			s, v->name);
	else if (v->version == 3 && (a % CFG_CENTISEC || a > 4095 * CFG_CENTISEC))
		vipd_cfg_err(ctx, x->advert_loc,
			"'advert_int' must be 0.01 to 40.95 seconds in steps of 0.01 with VRRP "
			"version 3, not %s (vrrp_instance '%s')",
			s, v->name);
}

/* Priority and state, which keepalived derives from each other, and
 * what depends on them. */
static void cfg_check_state(struct cfg_ctx *ctx, struct vipd_instance *v, struct cfg_inst_x *x)
{
	if (!x->prio_loc) {
		v->priority = x->state_loc && v->state == VIPD_INIT_MASTER ? CFG_PRIO_OWNER
									   : CFG_PRIO_DEFAULT;
		if (v->priority == CFG_PRIO_OWNER)
			vipd_cfg_notice(ctx, x->state_loc,
				"state MASTER without 'priority' makes vrrp_instance '%s' the "
				"address owner (priority 255), as keepalived does; give it a "
				"priority below 255 unless this node owns the address",
				v->name);
	}
	if (!x->state_loc)
		v->state = v->priority == CFG_PRIO_OWNER ? VIPD_INIT_MASTER : VIPD_INIT_BACKUP;
	if (ctx->c->global.strict && x->state_loc &&
		(v->state == VIPD_INIT_MASTER) != (v->priority == CFG_PRIO_OWNER)) {
		/* RFC 9568 §6.4.1: only the owner starts as master */
		v->state = v->priority == CFG_PRIO_OWNER ? VIPD_INIT_MASTER : VIPD_INIT_BACKUP;
		vipd_cfg_notice(ctx, x->state_loc,
			"with vrrp_strict only the address owner (priority 255) starts as MASTER: "
			"vrrp_instance '%s' starts as %s, as keepalived does",
			v->name, v->state == VIPD_INIT_MASTER ? "MASTER" : "BACKUP");
	}
	/* keepalived clears these with a warning; so does vipd */
	if (x->nopreempt_loc && v->priority == CFG_PRIO_OWNER) {
		vipd_cfg_notice(ctx, x->nopreempt_loc,
			"'nopreempt' does not apply to the address owner (priority 255): ignored, "
			"as keepalived does (vrrp_instance '%s')",
			v->name);
		v->nopreempt = false;
		x->nopreempt_loc = 0;
	} else if (x->nopreempt_loc && v->state == VIPD_INIT_MASTER) {
		vipd_cfg_notice(ctx, x->nopreempt_loc,
			"'nopreempt' does not work with state MASTER: ignored, as keepalived does; "
			"use state BACKUP on every node (vrrp_instance '%s')",
			v->name);
		v->nopreempt = false;
		x->nopreempt_loc = 0;
	}
	if (x->preempt_delay_loc) {
		const char *why = v->state == VIPD_INIT_MASTER ? "does not work with state MASTER"
				  : x->nopreempt_loc           ? "means nothing with 'nopreempt'"
				  : ctx->c->global.strict      ? "is not allowed with vrrp_strict"
							       : NULL;

		if (why) {
			vipd_cfg_notice(ctx, x->preempt_delay_loc,
				"'preempt_delay' %s: ignored, as keepalived does (vrrp_instance "
				"'%s')",
				why, v->name);
			v->preempt_delay = 0;
		}
	}
}

static void cfg_check_auth(struct cfg_ctx *ctx, struct vipd_instance *v, struct cfg_inst_x *x)
{
	if (!x->auth_loc)
		return;
	/* keepalived ignores authentication it cannot use, with a warning */
	if (!x->auth_type_loc) {
		vipd_cfg_err(ctx, x->auth_loc,
			"'authentication' has no 'auth_type PASS' (vrrp_instance '%s')", v->name);
	} else if (ctx->c->global.strict) {
		vipd_cfg_notice(ctx, x->auth_loc,
			"'authentication' is ignored with vrrp_strict (RFC 3768 and RFC 9568 have "
			"none), as keepalived does (vrrp_instance '%s')",
			v->name);
		v->auth = VIPD_AUTH_NONE;
	} else if (v->version == 3) {
		vipd_cfg_notice(ctx, x->auth_loc,
			"'authentication' is ignored: VRRP version 3%s has no authentication (RFC "
			"9568), as keepalived does (vrrp_instance '%s')",
			v->family == AF_INET6 ? ", the version of IPv6 instances," : "", v->name);
		v->auth = VIPD_AUTH_NONE;
	} else if (v->auth == VIPD_AUTH_PASS && !x->auth_pass_set) {
		vipd_cfg_notice(ctx, x->auth_type_loc,
			"'auth_type PASS' has no 'auth_pass': no authentication is sent, as in "
			"keepalived (vrrp_instance '%s')",
			v->name);
		v->auth = VIPD_AUTH_NONE;
	}
}

static void cfg_check_unicast(struct cfg_ctx *ctx, struct vipd_instance *v, struct cfg_inst_x *x)
{
	char a[CPHA_ADDR_STRLEN], at[64];
	size_t i, j;

	if (ctx->c->global.strict && v->npeers)
		vipd_cfg_err(ctx, x->peer_locs[0],
			"unicast peers are not allowed with vrrp_strict (VRRP is multicast: RFC "
			"9568 §5.1); keepalived refuses vrrp_instance '%s' too",
			v->name);
	if (v->unicast_src_set && cpha_addr_family(&v->unicast_src) != v->family)
		vipd_cfg_err(ctx, x->src_loc,
			"unicast_src_ip %s is %s but the VIPs are %s (vrrp_instance '%s')",
			cfg_fmt(&v->unicast_src, a, sizeof(a)),
			cfg_fam(cpha_addr_family(&v->unicast_src)), cfg_fam(v->family), v->name);
	if (v->mcast_dst_set && cpha_addr_family(&v->mcast_dst) != v->family)
		vipd_cfg_err(ctx, x->mcast_dst_loc,
			"mcast_dst_ip %s is %s but the VIPs are %s (vrrp_instance '%s')",
			cfg_fmt(&v->mcast_dst, a, sizeof(a)),
			cfg_fam(cpha_addr_family(&v->mcast_dst)), cfg_fam(v->family), v->name);
	for (i = 0; i < v->npeers; i++) {
		cfg_fmt(&v->peers[i], a, sizeof(a));
		if (cpha_addr_family(&v->peers[i]) != v->family) {
			vipd_cfg_err(ctx, x->peer_locs[i],
				"unicast_peer %s is %s but the VIPs are %s (vrrp_instance '%s')", a,
				cfg_fam(cpha_addr_family(&v->peers[i])), cfg_fam(v->family),
				v->name);
			continue;
		}
		if (v->unicast_src_set && cpha_addr_equal(&v->peers[i], &v->unicast_src)) {
			vipd_cfg_err(ctx, x->peer_locs[i],
				"unicast_peer %s is this node's own unicast_src_ip (vrrp_instance "
				"'%s')",
				a, v->name);
			continue;
		}
		for (j = 0; j < i; j++)
			if (cpha_addr_equal(&v->peers[i], &v->peers[j]))
				break;
		if (j < i)
			vipd_cfg_err(ctx, x->peer_locs[i],
				"unicast_peer %s is listed twice (vrrp_instance '%s'; first at %s)",
				a, v->name,
				cpha_cfgdiag_at(
					&ctx->d, x->peer_locs[j], x->peer_locs[i], at, sizeof(at)));
	}
}

/* VIPs: one place each; the first IPv6 one should be link-local. */
static void cfg_check_vips(struct cfg_ctx *ctx, size_t vi)
{
	struct vipd_instance *v = &ctx->c->instances[vi], *w;
	const struct sockaddr_in6 *s6;
	char a[CPHA_ADDR_STRLEN], at[64];
	size_t i, j, k;

	for (i = 0; i < v->nvips; i++) {
		struct vipd_vip *p = &v->vips[i];

		for (j = 0; j <= vi; j++) {
			w = &ctx->c->instances[j];
			for (k = 0; k < (j == vi ? i : w->nvips); k++)
				if (cpha_addr_equal(&w->vips[k].addr, &p->addr))
					break;
			if (k < (j == vi ? i : w->nvips)) {
				vipd_cfg_err(ctx, p->line,
					"virtual_ipaddress %s is already at %s (vrrp_instance "
					"'%s'): one address, one instance",
					cfg_fmt(&p->addr, a, sizeof(a)),
					cpha_cfgdiag_at(
						&ctx->d, w->vips[k].line, p->line, at, sizeof(at)),
					w->name);
				break;
			}
		}
	}
	if (v->nvips && v->family == AF_INET6 && !v->unicast) {
		s6 = (const struct sockaddr_in6 *)&v->vips[0].addr.ss;
		if (!IN6_IS_ADDR_LINKLOCAL(&s6->sin6_addr))
			vipd_cfg_notice(ctx, v->vips[0].line,
				"the first IPv6 virtual_ipaddress should be link-local (RFC 9568 "
				"§5.2.9; vrrp_instance '%s')",
				v->name);
	}
}

/* Defaults from global_defs, and the rest of keepalived's defaults. */
static void cfg_defaults(struct cfg_ctx *ctx, struct vipd_instance *v, struct cfg_inst_x *x)
{
	if (!x->garp_delay_loc)
		v->garp_master_delay =
			ctx->garp_delay_set ? ctx->garp_delay : 5 * CPHA_USEC_PER_SEC;
	if (!x->garp_rep_loc)
		v->garp_master_repeat = ctx->garp_rep_set ? ctx->garp_rep : 5;
	if (!x->garp_refresh_loc)
		v->garp_master_refresh = ctx->garp_refresh_set ? ctx->garp_refresh : 0;
	if (!x->garp_refresh_rep_loc)
		v->garp_master_refresh_repeat =
			ctx->garp_refresh_rep_set ? ctx->garp_refresh_rep : 1;
	if (!x->garp_interval_loc)
		v->garp_interval = v->family == AF_INET6 ? ctx->gna_interval : ctx->garp_interval;
	if (x->v3_checksum_loc && v->v3_checksum_as_v2 && (v->version != 3 || v->family != AF_INET))
		vipd_cfg_notice(ctx, x->v3_checksum_loc,
			"'v3_checksum_as_v2' only changes VRRP version 3 over IPv4; it has no "
			"effect on vrrp_instance '%s'",
			v->name);
}

/* Instances on one interface and family share the VRID space. Unicast and
 * multicast are apart, and unicast instances whose peers differ too, as
 * keepalived's manual says. */
static void cfg_check_vrids(struct cfg_ctx *ctx)
{
	const struct vipd_instance *a, *b;
	char at[64];
	size_t i, j, k, l;

	for (i = 0; i < ctx->c->ninstances; i++) {
		a = &ctx->c->instances[i];
		for (j = 0; j < i; j++) {
			b = &ctx->c->instances[j];
			if (a->vrid != b->vrid || a->family != b->family || !a->vrid ||
				!a->interface || !b->interface ||
				strcmp(a->interface, b->interface) != 0 || a->unicast != b->unicast)
				continue;
			for (k = 0, l = 0; a->unicast && k < a->npeers; k++) {
				for (l = 0; l < b->npeers; l++)
					if (cpha_addr_equal(&a->peers[k], &b->peers[l]))
						break;
				if (l < b->npeers)
					break;
			}
			if (a->unicast && k == a->npeers)
				continue;
			vipd_cfg_err(ctx, ctx->ix[i].vrid_loc,
				"vrrp_instance '%s' and vrrp_instance '%s' (%s) both use VRID %u "
				"for %s on %s%s",
				a->name, b->name,
				cpha_cfgdiag_at(
					&ctx->d, b->line, ctx->ix[i].vrid_loc, at, sizeof(at)),
				a->vrid, cfg_fam(a->family), a->interface,
				a->unicast ? " with the same unicast peers" : "");
			break;
		}
	}
}

/* Why a weight is ignored by keepalived, or NULL. */
static const char *cfg_no_weights(const struct vipd_instance *v)
{
	if (v->priority == CFG_PRIO_OWNER)
		return "is the address owner (priority 255), whose priority never changes";
	if (v->sync_group)
		return "is in a vrrp_sync_group, whose members keep their priority";
	return NULL;
}

static void cfg_check_track_list(struct cfg_ctx *ctx, const struct vipd_instance *v,
	struct vipd_track *t, size_t *np, const char *what)
{
	const char *why = cfg_no_weights(v);
	size_t i, n = *np;

	for (i = 0; i < n; i++) {
		if (strcmp(what, "track_interface") == 0 && v->interface &&
			strcmp(t[i].name, v->interface) == 0) {
			/* keepalived ignores the entry with a warning; so does vipd */
			vipd_cfg_notice(ctx, t[i].line,
				"track_interface '%s' is the interface of vrrp_instance '%s', "
				"which is tracked anyway: the entry is ignored, as keepalived "
				"does",
				t[i].name, v->name);
			free(t[i].name);
			free(t[i].lbd_socket);
			memmove(&t[i], &t[i + 1], (n - i - 1) * sizeof(*t));
			n--;
			i--;
		} else if (t[i].weight && why)
			vipd_cfg_err(ctx, t[i].line,
				"%s '%s' has weight %d but vrrp_instance '%s' %s (keepalived "
				"ignores the track): use weight 0%s",
				what, t[i].name, t[i].weight, v->name, why,
				v->sync_group ? ", or track on the sync group" : "");
	}
	*np = n;
}

/* A sync group's track that a member also has: keepalived refuses it for
 * interfaces, and keeps the group's weight for scripts and files. */
static void cfg_check_group_dups(
	struct cfg_ctx *ctx, const struct vipd_sync_group *g, const struct vipd_instance *v)
{
	char at[64];
	size_t i, j;

	for (i = 0; i < g->ntrack_interface; i++) {
		const struct vipd_track *t = &g->track_interface[i];

		for (j = 0; j < v->ntrack_interface; j++)
			if (strcmp(v->track_interface[j].name, t->name) == 0)
				break;
		if (j < v->ntrack_interface || (v->interface && strcmp(v->interface, t->name) == 0))
			vipd_cfg_err(ctx, t->line,
				"track_interface '%s' of vrrp_sync_group '%s' is also tracked by "
				"member vrrp_instance '%s' (%s); keepalived refuses that: keep one",
				t->name, g->name, v->name,
				j < v->ntrack_interface
					? cpha_cfgdiag_at(&ctx->d, v->track_interface[j].line,
						  t->line, at, sizeof(at))
					: "its interface");
	}
	for (i = 0; i < g->ntrack_script + g->ntrack_file; i++) {
		bool scr = i < g->ntrack_script;
		const struct vipd_track *t =
			scr ? &g->track_script[i] : &g->track_file[i - g->ntrack_script];
		const struct vipd_track *mine = scr ? v->track_script : v->track_file;
		size_t n = scr ? v->ntrack_script : v->ntrack_file;

		for (j = 0; j < n; j++)
			if (strcmp(mine[j].name, t->name) == 0)
				vipd_cfg_notice(ctx, mine[j].line,
					"%s '%s' is tracked by vrrp_instance '%s' and by its "
					"vrrp_sync_group '%s' (%s); the group's weight applies, as "
					"in keepalived",
					scr ? "track_script" : "track_file", t->name, v->name,
					g->name,
					cpha_cfgdiag_at(
						&ctx->d, t->line, mine[j].line, at, sizeof(at)));
	}
}

/* Members exist, each in one group; tracks agree with the members. */
static void cfg_check_groups(struct cfg_ctx *ctx)
{
	struct vipd_instance *v;
	struct vipd_sync_group *g;
	char at[64];
	size_t i, j, k;

	for (i = 0; i < ctx->c->ngroups; i++) {
		g = &ctx->c->groups[i];
		for (j = 0; j < g->nmembers; j++) {
			unsigned loc = j < ctx->gx[i].nlocs ? ctx->gx[i].locs[j] : g->line;

			v = (struct vipd_instance *)vipd_cfg_instance(ctx->c, g->members[j]);
			if (!v) {
				vipd_cfg_err(ctx, loc,
					"no vrrp_instance '%s' (vrrp_sync_group '%s')",
					g->members[j], g->name);
				continue;
			}
			if (v->sync_group) {
				for (k = 0; k < i; k++)
					if (strcmp(ctx->c->groups[k].name, v->sync_group) == 0)
						break;
				vipd_cfg_err(ctx, loc,
					"vrrp_instance '%s' is already in vrrp_sync_group '%s' "
					"(%s); an instance is in one group",
					v->name, v->sync_group,
					cpha_cfgdiag_at(&ctx->d, ctx->c->groups[k].line, loc, at,
						sizeof(at)));
				continue;
			}
			if (!(v->sync_group = vipd_cfg_strdup(ctx, g->name)))
				return;
			cfg_check_group_dups(ctx, g, v);
		}
		if (g->nmembers == 1)
			vipd_cfg_notice(ctx, g->line,
				"vrrp_sync_group '%s' has only one instance (keepalived warns too)",
				g->name);
		for (j = 0; j < g->nmembers; j++) {
			v = (struct vipd_instance *)vipd_cfg_instance(ctx->c, g->members[j]);
			if (!v || v->priority != CFG_PRIO_OWNER)
				continue;
			for (k = 0; k < g->ntrack_script + g->ntrack_interface + g->ntrack_file;
				k++) {
				const struct vipd_track *t =
					k < g->ntrack_script ? &g->track_script[k]
					: k < g->ntrack_script + g->ntrack_interface
						? &g->track_interface[k - g->ntrack_script]
						: &g->track_file[k - g->ntrack_script -
								 g->ntrack_interface];

				if (t->weight)
					vipd_cfg_err(ctx, t->line,
						"'%s' has weight %d but member vrrp_instance '%s' "
						"is the address owner (priority 255): use weight 0 "
						"(vrrp_sync_group '%s')",
						t->name, t->weight, v->name, g->name);
			}
		}
	}
}

/* The tracking-weight warning (see the top of this file). */
static void cfg_warn_weight(struct cfg_ctx *ctx, const struct vipd_instance *v,
	const struct vipd_track *t, const char *what, const char *group)
{
	unsigned p = v->priority, peer, w, low, need;
	char fix[64];

	if (!t->weight || t->weight_reverse || p >= CFG_PRIO_OWNER ||
		(v->state != VIPD_INIT_MASTER && p <= CFG_PRIO_DEFAULT))
		return;
	peer = p > CFG_PRIO_DEFAULT ? CFG_PRIO_DEFAULT : p - 1;
	w = (unsigned)(t->weight < 0 ? -t->weight : t->weight);
	low = w < p ? p - w : 1; /* keepalived keeps priorities at 1 or more */
	if (peer < 1 || low < peer)
		return;
	need = p - peer + 1;
	if (need < p)
		snprintf(fix, sizeof(fix), "a weight of at least %u, or 0 for FAULT", need);
	else
		snprintf(fix, sizeof(fix), "weight 0 for FAULT");
	vipd_cfg_notice(ctx, t->line,
		"%s '%s' (weight %d%s%s) cannot move the VIP: when it fails alone, vrrp_instance "
		"'%s' drops from priority %u to %u, not below %u, %s; use %s",
		what, t->name, t->weight, group ? ", vrrp_sync_group " : "", group ? group : "",
		v->name, p, low, peer,
		peer == CFG_PRIO_DEFAULT
			? "the priority assumed for a BACKUP peer (keepalived's default)"
			: "the highest priority a lower BACKUP peer can have",
		fix);
}

static void cfg_warn_weights(struct cfg_ctx *ctx)
{
	const struct vipd_sync_group *g;
	const struct vipd_instance *v;
	size_t i, j, k;

	for (i = 0; i < ctx->c->ninstances; i++) {
		v = &ctx->c->instances[i];
		for (j = 0; j < v->ntrack_script; j++)
			cfg_warn_weight(ctx, v, &v->track_script[j], "track_script", NULL);
		for (j = 0; j < v->ntrack_interface; j++)
			cfg_warn_weight(ctx, v, &v->track_interface[j], "track_interface", NULL);
		for (j = 0; j < v->ntrack_lbd; j++)
			cfg_warn_weight(ctx, v, &v->track_lbd[j], "track_lbd", NULL);
	}
	for (i = 0; i < ctx->c->ngroups; i++) {
		g = &ctx->c->groups[i];
		for (j = 0; j < g->nmembers; j++) {
			v = vipd_cfg_instance(ctx->c, g->members[j]);
			if (!v || !v->sync_group || strcmp(v->sync_group, g->name) != 0)
				continue;
			for (k = 0; k < g->ntrack_script; k++)
				cfg_warn_weight(
					ctx, v, &g->track_script[k], "track_script", g->name);
			for (k = 0; k < g->ntrack_interface; k++)
				cfg_warn_weight(
					ctx, v, &g->track_interface[k], "track_interface", g->name);
		}
	}
}

void vipd_cfg_validate(struct cfg_ctx *ctx)
{
	struct vipd_instance *v;
	struct cfg_inst_x *x;
	size_t i;

	for (i = 0; i < ctx->c->ninstances && !ctx->d.stop; i++) {
		v = &ctx->c->instances[i];
		x = &ctx->ix[i];
		cfg_check_family(ctx, v);
		cfg_check_version(ctx, v, x);
		cfg_check_state(ctx, v, x);
		cfg_check_auth(ctx, v, x);
		cfg_check_unicast(ctx, v, x);
		cfg_check_vips(ctx, i);
		cfg_defaults(ctx, v, x);
		vipd_cfg_check_auth_hmac(ctx, v, x);
	}
	if (ctx->d.stop)
		return;
	if (ctx->c->global.metrics_web && !ctx->c->global.metrics_set)
		vipd_cfg_err(ctx, ctx->c->global.metrics_web_loc,
			"'vipd_metrics_web_config' without 'vipd_metrics_bind': there is no "
			"listener to apply it to (global_defs)");
	cfg_check_vrids(ctx);
	cfg_check_groups(ctx);
	for (i = 0; i < ctx->c->ninstances && !ctx->d.stop; i++) {
		v = &ctx->c->instances[i];
		cfg_check_track_list(ctx, v, v->track_script, &v->ntrack_script, "track_script");
		cfg_check_track_list(
			ctx, v, v->track_interface, &v->ntrack_interface, "track_interface");
		cfg_check_track_list(ctx, v, v->track_file, &v->ntrack_file, "track_file");
		cfg_check_track_list(ctx, v, v->track_lbd, &v->ntrack_lbd, "track_lbd");
		cfg_check_track_list(ctx, v, v->track_process, &v->ntrack_process, "track_process");
		cfg_check_track_list(ctx, v, v->track_bfd, &v->ntrack_bfd, "track_bfd");
	}
	/* the quiesce is lbd's: an instance that tracks no lbd has none to ask
	 * and gives its VIPs up at once, as without vipd_quiesce */
	for (i = 0; ctx->c->global.quiesce && i < ctx->c->ninstances && !ctx->d.stop; i++) {
		v = &ctx->c->instances[i];
		if (!v->ntrack_lbd)
			vipd_cfg_notice(ctx, ctx->c->global.quiesce_loc,
				"vipd_quiesce: vrrp_instance '%s' tracks no lbd (track_lbd), so "
				"no lbd quiesces its VIPs: it gives them up at once",
				v->name);
	}
	if (ctx->strict_loc)
		vipd_cfg_notice(ctx, ctx->strict_loc,
			"vrrp_strict: vipd adds no firewall rules, so backup nodes' addresses "
			"keep accepting traffic (keepalived's no_accept rules are not installed)");
	if (!ctx->d.stop && !ctx->d.nerrs)
		cfg_warn_weights(ctx);
}
