/* vipd's configuration: reading vrrp_instance and vrrp_sync_group blocks
 * and their track_* lists. A tracked vrrp_script or track_file must be
 * defined before its use, as keepalived only sees those (it ignores the
 * track otherwise); checks that need the whole configuration are in
 * cfg_validate.c. */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "duration.h"
#include "cfg_ctx.h"

/* The instance being read. Both pointers stay valid while its block is
 * read: no other instance is added meanwhile. */
struct cfg_inst {
	struct vipd_instance *v;
	struct cfg_inst_x *x;
	char where[96];
};

#define I(obj) ((struct cfg_inst *)(obj))

static const char *const cfg_script_kinds[] = { "vrrp_script", NULL };
static const char *const cfg_file_kinds[] = { "track_file", "vrrp_track_file", NULL };
static const char *const cfg_process_kinds[] = { "vrrp_track_process", NULL };
static const char *const cfg_bfd_kinds[] = { "bfd_instance", NULL };

/* ---- track_script / track_interface / track_file / track_lbd ---- */

/* "NAME weight N [reverse|noreverse]" from word i on. Returns 0 or -1. */
static int cfg_track_weight(struct cfg_ctx *ctx, const struct cpha_conf_node *e, size_t i, long max,
	bool noreverse_ok, struct vipd_track *t, const char *what, const char *where)
{
	if (vipd_cfg_weight(
		    ctx, e, i, max, noreverse_ok, what, &t->weight, &t->weight_reverse, where) < 0)
		return -1;
	t->weight_set = e->n > i;
	return 0;
}

/* A name defined by a top-level block that must come before its use. */
static void cfg_undefined(struct cfg_ctx *ctx, const struct cpha_conf_node *e, const char *kind,
	const char *const *kinds, const char *where)
{
	char at[64];
	unsigned later = vipd_cfg_defined_later(ctx, kinds, e->w[0]);

	if (later)
		vipd_cfg_err(ctx, e->loc,
			"%s '%s' is defined after its use, at %s; keepalived only sees definitions "
			"that come first and would ignore this track (%s)",
			kind, e->w[0], cpha_cfgdiag_at(&ctx->d, later, e->loc, at, sizeof(at)),
			where);
	else
		vipd_cfg_err(ctx, e->loc, "no %s '%s' (%s)", kind, e->w[0], where);
}

static void cfg_track_entry(struct cfg_ctx *ctx, const struct cpha_conf_node *e, int kind,
	struct vipd_track **arr, size_t *cnt, const char *where)
{
	static const char *const what[] = { "track_script", "track_interface", "track_file",
		"track_lbd", "track_process", "track_bfd" };
	struct vipd_track t = { 0 };
	const struct vipd_script *s;
	const struct vipd_track_file_def *f;
	const struct vipd_track_process_def *p;
	const struct vipd_bfd_def *b;
	unsigned long long v;
	char at[64];
	size_t i;

	t.line = e->loc;
	if (kind == CFG_TRACK_SCRIPT) {
		if (!(s = vipd_cfg_script(ctx->c, e->w[0]))) {
			cfg_undefined(ctx, e, "vrrp_script", cfg_script_kinds, where);
			return;
		}
		t.weight = s->weight;
		t.weight_reverse = s->weight_reverse;
		if (cfg_track_weight(ctx, e, 1, VIPD_WEIGHT_MAX, true, &t, what[kind], where) < 0)
			return;
	} else if (kind == CFG_TRACK_FILE) {
		if (!(f = vipd_cfg_track_file(ctx->c, e->w[0]))) {
			cfg_undefined(ctx, e, "track_file", cfg_file_kinds, where);
			return;
		}
		t.weight = f->weight;
		t.weight_reverse = f->weight_reverse;
		if (cfg_track_weight(ctx, e, 1, CFG_WEIGHT_FILE, true, &t, what[kind], where) < 0)
			return;
	} else if (kind == CFG_TRACK_PROCESS) {
		if (!(p = vipd_cfg_track_process(ctx->c, e->w[0]))) {
			cfg_undefined(ctx, e, "vrrp_track_process", cfg_process_kinds, where);
			return;
		}
		t.process = true;
		t.weight = p->weight;
		t.weight_reverse = p->weight_reverse;
		if (cfg_track_weight(ctx, e, 1, CFG_WEIGHT_FILE, true, &t, what[kind], where) < 0)
			return;
	} else if (kind == CFG_TRACK_BFD) {
		if (!(b = vipd_cfg_bfd(ctx->c, e->w[0]))) {
			cfg_undefined(ctx, e, "bfd_instance", cfg_bfd_kinds, where);
			return;
		}
		if (!b->vrrp) {
			/* keepalived sends its events to the checker process only */
			vipd_cfg_err(ctx, e->loc,
				"bfd_instance '%s' says 'checker' without 'vrrp': VRRP instances "
				"cannot track it (%s)",
				e->w[0], where);
			return;
		}
		t.bfd = true;
		t.weight = b->weight;
		t.weight_reverse = b->weight_reverse;
		if (cfg_track_weight(ctx, e, 1, VIPD_WEIGHT_MAX, true, &t, what[kind], where) < 0)
			return;
	} else if (kind == CFG_TRACK_INTERFACE) {
		if (vipd_cfg_ifname(ctx, e->loc, "track_interface", e->w[0], where) < 0 ||
			cfg_track_weight(ctx, e, 1, VIPD_WEIGHT_MAX, false, &t, what[kind], where) <
				0)
			return;
	} else {
		/* vipd extension: SOCKET BACKEND MIN_UP [weight N] */
		char *end = NULL;

		if (e->n < 3) {
			vipd_cfg_err(ctx, e->loc,
				"track_lbd needs SOCKET BACKEND MIN_UP [weight N], not '%s' (%s)",
				e->w[0], where);
			return;
		}
		if (e->w[0][0] != '/' ||
			strlen(e->w[0]) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
			vipd_cfg_err(ctx, e->loc,
				"track_lbd: '%s' is not an absolute path to lbd's admin socket "
				"(%s)",
				e->w[0], where);
			return;
		}
		v = e->w[2][0] >= '0' && e->w[2][0] <= '9' ? strtoull(e->w[2], &end, 10) : 0;
		if (v < 1 || v > 65535 || *end) {
			vipd_cfg_err(ctx, e->loc,
				"track_lbd '%s %s': MIN_UP must be a whole number from 1 to 65535, "
				"not '%s' (%s)",
				e->w[0], e->w[1], e->w[2], where);
			return;
		}
		if (cfg_track_weight(ctx, e, 3, VIPD_WEIGHT_MAX, false, &t, what[kind], where) < 0)
			return;
		if (t.weight_reverse) {
			vipd_cfg_err(
				ctx, e->loc, "track_lbd: 'reverse' is not supported (%s)", where);
			return;
		}
		t.lbd_min_up = (unsigned)v;
		if (!(t.lbd_socket = vipd_cfg_strdup(ctx, e->w[0])))
			return;
	}
	for (i = 0; i < *cnt; i++) {
		if (strcmp((*arr)[i].name, kind == CFG_TRACK_LBD ? e->w[1] : e->w[0]) == 0 &&
			(kind != CFG_TRACK_LBD || strcmp((*arr)[i].lbd_socket, e->w[0]) == 0)) {
			vipd_cfg_err(ctx, e->loc, "%s '%s' is listed twice (%s; first at %s)",
				what[kind], kind == CFG_TRACK_LBD ? e->w[1] : e->w[0], where,
				cpha_cfgdiag_at(&ctx->d, (*arr)[i].line, e->loc, at, sizeof(at)));
			free(t.lbd_socket);
			return;
		}
	}
	t.name = vipd_cfg_strdup(ctx, kind == CFG_TRACK_LBD ? e->w[1] : e->w[0]);
	if (!t.name || !vipd_cfg_push(ctx, arr, cnt, sizeof(t))) {
		free(t.name);
		free(t.lbd_socket);
		return;
	}
	(*arr)[*cnt - 1] = t;
}

void vipd_cfg_tracks(struct cfg_ctx *ctx, const struct cpha_conf_node *n, int kind,
	struct vipd_track **arr, size_t *cnt, const char *where)
{
	size_t i;

	if (cpha_conf_nargs(&ctx->d, n, 0, 0, where) < 0)
		return;
	for (i = 0; i < n->nkids && !ctx->d.stop; i++)
		if (vipd_cfg_no_block(ctx, &n->kids[i], where))
			cfg_track_entry(ctx, &n->kids[i], kind, arr, cnt, where);
}

/* ---- vrrp_instance ---- */

/* The first time a keyword that two names share is given; else an error. */
static bool cfg_once(
	struct cfg_ctx *ctx, const struct cpha_conf_node *n, unsigned *loc, const char *where)
{
	char at[64];

	if (*loc) {
		vipd_cfg_err(ctx, n->loc, "'%s' is given twice (%s; first at %s)", n->w[0], where,
			cpha_cfgdiag_at(&ctx->d, *loc, n->loc, at, sizeof(at)));
		return false;
	}
	*loc = n->loc;
	return true;
}

static void cfg_i_state(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	if (cpha_conf_nargs(&ctx->d, n, 1, 1, I(obj)->where) < 0)
		return;
	if (strcmp(n->w[1], "MASTER") != 0 && strcmp(n->w[1], "BACKUP") != 0) {
		/* keepalived warns and starts as BACKUP; so does vipd */
		vipd_cfg_notice(ctx, n->loc,
			"'state' is MASTER or BACKUP, not '%s': BACKUP is used, as keepalived "
			"does (%s)",
			n->w[1], I(obj)->where);
		I(obj)->v->state = VIPD_INIT_BACKUP;
		I(obj)->x->state_loc = n->loc;
		I(obj)->x->state_bad_loc = n->loc;
		return;
	}
	I(obj)->v->state = n->w[1][0] == 'M' ? VIPD_INIT_MASTER : VIPD_INIT_BACKUP;
	I(obj)->x->state_loc = n->loc;
}

static void cfg_i_interface(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	I(obj)->x->iface_loc = n->loc; /* given, even if refused below */
	if (cpha_conf_nargs(&ctx->d, n, 1, 1, I(obj)->where) < 0 ||
		vipd_cfg_ifname(ctx, n->loc, "interface", n->w[1], I(obj)->where) < 0)
		return;
	I(obj)->v->interface = vipd_cfg_strdup(ctx, n->w[1]);
}

static void cfg_i_number(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	struct cfg_inst *in = I(obj);
	unsigned long long v;
	bool vrid = strcmp(n->w[0], "virtual_router_id") == 0;
	bool ver = strcmp(n->w[0], "version") == 0;

	if (vrid)
		in->x->vrid_loc = n->loc; /* given, even if refused below */
	if (cpha_conf_nargs(&ctx->d, n, 1, 1, in->where) < 0 ||
		cpha_conf_uint(&ctx->d, n, 1, ver ? 2 : 1, ver ? 3 : 255, &v, in->where) < 0)
		return;
	if (vrid) {
		in->v->vrid = (unsigned)v;
		in->x->vrid_loc = n->loc;
	} else if (ver) {
		in->v->version = (int)v;
		in->x->version_loc = n->loc;
	} else {
		in->v->priority = (unsigned)v;
		in->x->prio_loc = n->loc;
	}
}

static void cfg_i_advert(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	/* keepalived reads 0.01 to 255 s; the version decides more, later */
	if (cpha_conf_nargs(&ctx->d, n, 1, 1, I(obj)->where) == 0 &&
		cpha_conf_seconds(&ctx->d, n, 1, 10000, 255 * CPHA_USEC_PER_SEC, 0,
			&I(obj)->v->advert_int, I(obj)->where) == 0)
		I(obj)->x->advert_loc = n->loc;
}

static void cfg_i_preempt(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	if (cpha_conf_nargs(&ctx->d, n, 0, 0, I(obj)->where) < 0)
		return;
	/* "preempt" is keepalived's old spelling of the default */
	I(obj)->v->nopreempt = n->w[0][0] == 'n';
	I(obj)->x->nopreempt_loc = I(obj)->v->nopreempt ? n->loc : 0;
}

static void cfg_i_preempt_delay(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	if (cpha_conf_nargs(&ctx->d, n, 1, 1, I(obj)->where) == 0 &&
		cpha_conf_seconds(&ctx->d, n, 1, 0, 1000 * CPHA_USEC_PER_SEC, 0,
			&I(obj)->v->preempt_delay, I(obj)->where) == 0)
		I(obj)->x->preempt_delay_loc = I(obj)->v->preempt_delay ? n->loc : 0;
}

/* unicast_src_ip ADDR, or its older name mcast_src_ip */
static void cfg_i_src(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	if (cpha_conf_nargs(&ctx->d, n, 1, 1, I(obj)->where) < 0 ||
		!cfg_once(ctx, n, &I(obj)->x->src_loc, I(obj)->where))
		return;
	if (vipd_cfg_addr(ctx, n->loc, n->w[0], n->w[1], &I(obj)->v->unicast_src, I(obj)->where) ==
		0)
		I(obj)->v->unicast_src_set = true;
	else
		I(obj)->x->src_loc = 0;
}

/* mcast_dst_ip ADDR: the instance's own multicast group. As keepalived:
 * IPv4 multicast, or IPv6 link-local multicast (ff02::/16 and the other
 * ffX2:: flags). */
static void cfg_i_mcast_dst(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	struct cpha_addr *a = &I(obj)->v->mcast_dst;
	const char *why = NULL;
	const uint8_t *raw;
	bool v6, ok;

	if (cpha_conf_nargs(&ctx->d, n, 1, 1, I(obj)->where) < 0 ||
		!cfg_once(ctx, n, &I(obj)->x->mcast_dst_loc, I(obj)->where))
		return;
	if (cpha_parse_addr(n->w[1], CPHA_ADDR_PORT_NONE, a, &why) < 0) {
		vipd_cfg_err(
			ctx, n->loc, "'mcast_dst_ip' '%s': %s (%s)", n->w[1], why, I(obj)->where);
		I(obj)->x->mcast_dst_loc = 0;
		return;
	}
	v6 = cpha_addr_family(a) == AF_INET6;
	raw = v6 ? ((const struct sockaddr_in6 *)&a->ss)->sin6_addr.s6_addr
		 : (const uint8_t *)&((const struct sockaddr_in *)&a->ss)->sin_addr;
	ok = v6 ? raw[0] == 0xff && (raw[1] & 0x0f) == 2 : (raw[0] & 0xf0) == 0xe0;
	if (!ok) {
		vipd_cfg_err(ctx, n->loc, "'mcast_dst_ip %s' is not %s (%s)", n->w[1],
			v6 ? "a link-local IPv6 multicast address (ff02::/16)"
			   : "an IPv4 multicast address (224.0.0.0/4)",
			I(obj)->where);
		I(obj)->x->mcast_dst_loc = 0;
		return;
	}
	I(obj)->v->mcast_dst_set = true;
}

static void cfg_i_peers(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	struct cfg_inst *in = I(obj);
	struct cpha_addr a, *p;
	unsigned *l;
	size_t i, cnt;

	if (cpha_conf_nargs(&ctx->d, n, 0, 0, in->where) < 0)
		return;
	if (!n->nkids) {
		vipd_cfg_err(ctx, n->loc,
			"'unicast_peer' is empty: an empty peer list is an error, never a silent "
			"fallback to multicast (%s)",
			in->where);
		return;
	}
	for (i = 0; i < n->nkids && !ctx->d.stop; i++) {
		const struct cpha_conf_node *e = &n->kids[i];

		if (!vipd_cfg_no_block(ctx, e, in->where))
			continue;
		if (e->n > 1 &&
			(strcmp(e->w[1], "min_ttl") == 0 || strcmp(e->w[1], "max_ttl") == 0)) {
			vipd_cfg_err(ctx, e->loc,
				"unicast_peer '%s': '%s' is not supported by vipd (%s)", e->w[0],
				e->w[1], in->where);
			continue;
		}
		if (e->n > 1) {
			vipd_cfg_err(ctx, e->loc,
				"unicast_peer '%s': unexpected '%s'; one address per line (%s)",
				e->w[0], e->w[1], in->where);
			continue;
		}
		if (vipd_cfg_addr(ctx, e->loc, "unicast_peer", e->w[0], &a, in->where) < 0)
			continue;
		cnt = in->v->npeers;
		p = vipd_cfg_push(ctx, &in->v->peers, &in->v->npeers, sizeof(*p));
		if (!p)
			return;
		*p = a;
		l = vipd_cfg_push(ctx, &in->x->peer_locs, &cnt, sizeof(*l));
		if (!l) {
			in->v->npeers--;
			return;
		}
		*l = e->loc;
	}
	in->v->unicast = in->v->npeers > 0;
}

static void cfg_a_type(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	if (cpha_conf_nargs(&ctx->d, n, 1, 1, I(obj)->where) < 0)
		return;
	I(obj)->x->auth_type_loc = n->loc; /* given, even if refused below */
	if (strcmp(n->w[1], "AH") == 0) {
		vipd_cfg_err(ctx, n->loc,
			"'auth_type AH' is not supported by vipd (%s): IPsec AH authentication is "
			"deprecated; RFC 3768 removed authentication from VRRP",
			I(obj)->where);
		return;
	}
	if (strcmp(n->w[1], "PASS") != 0) {
		vipd_cfg_err(ctx, n->loc, "'auth_type' must be PASS, not '%s' (%s)", n->w[1],
			I(obj)->where);
		return;
	}
	I(obj)->v->auth = VIPD_AUTH_PASS;
}

static void cfg_a_pass(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	struct vipd_instance *v = I(obj)->v;
	size_t max = sizeof(v->auth_pass) - 1;

	if (cpha_conf_nargs(&ctx->d, n, 1, 1, I(obj)->where) < 0)
		return;
	if (!n->w[1][0]) {
		vipd_cfg_err(ctx, n->loc, "'auth_pass' is empty (%s)", I(obj)->where);
		return;
	}
	if (strlen(n->w[1]) > max)
		vipd_cfg_notice(ctx, n->loc,
			"'auth_pass' is longer than %zu characters: only '%.*s' is used, as "
			"keepalived does (%s)",
			max, (int)max, n->w[1], I(obj)->where);
	memset(v->auth_pass, 0, sizeof(v->auth_pass));
	strncpy(v->auth_pass, n->w[1], max);
	I(obj)->x->auth_pass_set = true;
}

static const struct cfg_kw cfg_auth_kws[] = {
	{ { "auth_type", CFG_KW_HERE }, cfg_a_type, 0 },
	{ { "auth_pass", CFG_KW_HERE }, cfg_a_pass, 0 },
};

static void cfg_i_auth(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	if (cpha_conf_nargs(&ctx->d, n, 0, 0, I(obj)->where) < 0)
		return;
	I(obj)->x->auth_loc = n->loc;
	vipd_cfg_block(ctx, n, cfg_auth_kws, CFG_NELEM(cfg_auth_kws), obj, I(obj)->where);
}

static void cfg_i_auth_hmac(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	vipd_cfg_auth_hmac(ctx, n, I(obj)->v, I(obj)->x, I(obj)->where);
}

/* ADDR[/LEN] [dev IF] [label LABEL] */
static void cfg_vip(struct cfg_ctx *ctx, const struct cpha_conf_node *e, struct cfg_inst *in)
{
	const char *slash = strchr(e->w[0], '/'), *why = NULL;
	struct vipd_vip vip = { 0 };
	char host[CPHA_ADDR_STRLEN];
	size_t i, hl;

	vip.line = e->loc;
	if (in->v->nvips == CFG_MAX_VIPS) {
		if (!in->x->vips_over)
			vipd_cfg_err(ctx, e->loc,
				"more than %d virtual_ipaddress entries: VRRP counts them in 8 "
				"bits "
				"(RFC 9568 §5.2.5) (%s)",
				CFG_MAX_VIPS, in->where);
		in->x->vips_over = true;
		return;
	}
	if (slash && cpha_parse_prefix(e->w[0], &vip.addr, &vip.prefixlen, &why) < 0) {
		vipd_cfg_err(
			ctx, e->loc, "virtual_ipaddress '%s': %s (%s)", e->w[0], why, in->where);
		return;
	}
	/* the address alone, for the checks every address gets */
	hl = slash ? (size_t)(slash - e->w[0]) : strlen(e->w[0]);
	if (hl >= sizeof(host)) {
		vipd_cfg_err(ctx, e->loc, "virtual_ipaddress '%s': address too long (%s)", e->w[0],
			in->where);
		return;
	}
	memcpy(host, e->w[0], hl);
	host[hl] = '\0';
	if (vipd_cfg_addr(ctx, e->loc, "virtual_ipaddress", host, &vip.addr, in->where) < 0)
		return;
	if (!slash) {
		vip.prefixlen = cpha_addr_family(&vip.addr) == AF_INET6 ? 128 : 32;
	} else if (vip.prefixlen == 0) {
		vipd_cfg_err(ctx, e->loc, "virtual_ipaddress '%s': prefix length 0 (%s)", e->w[0],
			in->where);
		return;
	}
	for (i = 1; i < e->n; i += 2) {
		bool dev = strcmp(e->w[i], "dev") == 0;

		if (!dev && strcmp(e->w[i], "label") != 0) {
			vipd_cfg_err(ctx, e->loc,
				"virtual_ipaddress '%s': '%s' is not supported by vipd (only dev "
				"and label) (%s)",
				e->w[0], e->w[i], in->where);
			goto bad;
		}
		if (i + 1 == e->n || (dev ? vip.dev : vip.label) != NULL) {
			vipd_cfg_err(ctx, e->loc, "virtual_ipaddress '%s': '%s' %s (%s)", e->w[0],
				e->w[i], i + 1 == e->n ? "needs a value" : "is given twice",
				in->where);
			goto bad;
		}
		if (dev && vipd_cfg_ifname(ctx, e->loc, "dev", e->w[i + 1], in->where) < 0)
			goto bad;
		if (!dev && (!e->w[i + 1][0] || strlen(e->w[i + 1]) >= IF_NAMESIZE)) {
			vipd_cfg_err(ctx, e->loc,
				"virtual_ipaddress '%s': label '%s' must have 1 to %d characters "
				"(%s)",
				e->w[0], e->w[i + 1], IF_NAMESIZE - 1, in->where);
			goto bad;
		}
		if (!(*(dev ? &vip.dev : &vip.label) = vipd_cfg_strdup(ctx, e->w[i + 1])))
			goto bad;
	}
	if (vip.label && cpha_addr_family(&vip.addr) == AF_INET6) {
		/* keepalived warns and drops the label; so does vipd */
		vipd_cfg_notice(ctx, e->loc,
			"virtual_ipaddress '%s': IPv6 addresses have no label; 'label %s' is "
			"ignored, as keepalived does (%s)",
			e->w[0], vip.label, in->where);
		free(vip.label);
		vip.label = NULL;
	}
	if (!vipd_cfg_push(ctx, &in->v->vips, &in->v->nvips, sizeof(vip)))
		goto bad;
	in->v->vips[in->v->nvips - 1] = vip;
	return;
bad:
	free(vip.dev);
	free(vip.label);
}

static void cfg_i_vips(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	size_t i;

	if (cpha_conf_nargs(&ctx->d, n, 0, 0, I(obj)->where) < 0)
		return;
	if (!I(obj)->x->vips_loc)
		I(obj)->x->vips_loc = n->loc;
	if (!n->nkids)
		vipd_cfg_err(ctx, n->loc, "'virtual_ipaddress' is empty (%s)", I(obj)->where);
	for (i = 0; i < n->nkids && !ctx->d.stop; i++)
		if (vipd_cfg_no_block(ctx, &n->kids[i], I(obj)->where))
			cfg_vip(ctx, &n->kids[i], I(obj));
}

static void cfg_i_tracks(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	struct vipd_instance *v = I(obj)->v;

	switch (n->w[0][6]) { /* after "track_" */
	case 'b':
		vipd_cfg_tracks(
			ctx, n, CFG_TRACK_BFD, &v->track_bfd, &v->ntrack_bfd, I(obj)->where);
		break;
	case 's':
		vipd_cfg_tracks(ctx, n, CFG_TRACK_SCRIPT, &v->track_script, &v->ntrack_script,
			I(obj)->where);
		break;
	case 'i':
		vipd_cfg_tracks(ctx, n, CFG_TRACK_INTERFACE, &v->track_interface,
			&v->ntrack_interface, I(obj)->where);
		break;
	case 'f':
		vipd_cfg_tracks(
			ctx, n, CFG_TRACK_FILE, &v->track_file, &v->ntrack_file, I(obj)->where);
		break;
	case 'p':
		vipd_cfg_tracks(ctx, n, CFG_TRACK_PROCESS, &v->track_process, &v->ntrack_process,
			I(obj)->where);
		break;
	default:
		vipd_cfg_tracks(
			ctx, n, CFG_TRACK_LBD, &v->track_lbd, &v->ntrack_lbd, I(obj)->where);
	}
}

/* notify_master / _backup / _fault / _stop / notify "CMD" [USER [GROUP]] in
 * an instance or a sync group. */
static void cfg_notify(struct cfg_ctx *ctx, const struct cpha_conf_node *n, char **cmd,
	struct vipd_runas *as, const char *where)
{
	if (cpha_conf_nargs(&ctx->d, n, 1, 3, where) < 0)
		return;
	if (!n->w[1][0]) {
		vipd_cfg_err(ctx, n->loc, "'%s' is empty (%s)", n->w[0], where);
		return;
	}
	if (vipd_cfg_runas(ctx, n, 2, as, true, where) < 0)
		return;
	*cmd = vipd_cfg_strdup(ctx, n->w[1]);
}

static unsigned cfg_notify_slot(const char *kw)
{
	if (strcmp(kw, "notify") == 0)
		return VIPD_NOTIFY_ANY;
	kw += 7; /* after "notify_" */
	return *kw == 'm'   ? VIPD_NOTIFY_MASTER
	       : *kw == 'b' ? VIPD_NOTIFY_BACKUP
	       : *kw == 'f' ? VIPD_NOTIFY_FAULT
			    : VIPD_NOTIFY_STOP;
}

static void cfg_i_notify(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	struct vipd_instance *v = I(obj)->v;
	char **cmds[VIPD_NOTIFY_N] = { &v->notify_master, &v->notify_backup, &v->notify_fault,
		&v->notify_stop, &v->notify };
	unsigned k = cfg_notify_slot(n->w[0]);

	cfg_notify(ctx, n, cmds[k], &v->notify_as[k], I(obj)->where);
}

static void cfg_i_garp(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	struct cfg_inst *in = I(obj);
	const char *kw = n->w[0] + 12; /* after "garp_master_" */
	unsigned long long v;

	if (cpha_conf_nargs(&ctx->d, n, 1, 1, in->where) < 0)
		return;
	if (strcmp(n->w[0], "garp_interval") == 0) {
		/* vipd extension: keepalived has it in global_defs and garp_group only */
		if (cpha_conf_seconds(&ctx->d, n, 1, 0, 2147483647ULL, 0, &in->v->garp_interval,
			    in->where) == 0)
			in->x->garp_interval_loc = n->loc;
	} else if (strcmp(kw, "delay") == 0) {
		if (cpha_conf_uint(&ctx->d, n, 1, 0, 4294, &v, in->where) == 0) {
			in->v->garp_master_delay = v * CPHA_USEC_PER_SEC;
			in->x->garp_delay_loc = n->loc;
		}
	} else if (strcmp(kw, "refresh") == 0) {
		if (cpha_conf_uint(&ctx->d, n, 1, 0, 4294967295ULL, &v, in->where) == 0) {
			in->v->garp_master_refresh = v * CPHA_USEC_PER_SEC;
			in->x->garp_refresh_loc = n->loc;
		}
	} else if (cpha_conf_uint(&ctx->d, n, 1, 1, 4294967295ULL, &v, in->where) == 0) {
		if (strcmp(kw, "repeat") == 0) {
			in->v->garp_master_repeat = (unsigned)v;
			in->x->garp_rep_loc = n->loc;
		} else {
			in->v->garp_master_refresh_repeat = (unsigned)v;
			in->x->garp_refresh_rep_loc = n->loc;
		}
	}
}

static void cfg_i_checksum(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	if (cpha_conf_bool(&ctx->d, n, &I(obj)->v->v3_checksum_as_v2, I(obj)->where) == 0)
		I(obj)->x->v3_checksum_loc = n->loc;
}

/* The instance-level twin of global_defs' vrrp_skip_check_adv_addr. */
static void cfg_i_skip_check(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	bool b;

	if (cpha_conf_bool(&ctx->d, n, &b, I(obj)->where) == 0)
		vipd_cfg_notice(ctx, n->loc,
			"'skip_check_adv_addr' has no effect in vipd: it is an optimisation of "
			"keepalived's (%s)",
			I(obj)->where);
}

static void cfg_i_dont_track(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	if (cpha_conf_nargs(&ctx->d, n, 0, 0, I(obj)->where) == 0)
		I(obj)->v->dont_track_primary = true;
}

/* preempt_handover: a vipd extension (vrrp_state.h) */
static void cfg_i_handover(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	if (cpha_conf_nargs(&ctx->d, n, 0, 0, I(obj)->where) == 0)
		I(obj)->v->preempt_handover = true;
}

/* track_fenced [SOCKET]: a cpha extension (keepalived has no fencing). */
static void cfg_i_fenced(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	const char *path = n->n > 1 ? n->w[1] : VIPD_FENCED_SOCKET;

	if (cpha_conf_nargs(&ctx->d, n, 0, 1, I(obj)->where) < 0)
		return;
	if (path[0] != '/') {
		vipd_cfg_err(ctx, n->loc,
			"track_fenced: '%s' is not an absolute path to fenced's admin socket (%s)",
			path, I(obj)->where);
		return;
	}
	free(I(obj)->v->fenced_socket);
	I(obj)->v->fenced_socket = vipd_cfg_strdup(ctx, path);
}

/* accept: the addresses take traffic for the host, which is what vipd
 * always does (it adds no firewall rules); keepalived's default too unless
 * vrrp_strict. */
static void cfg_i_accept(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	if (cpha_conf_nargs(&ctx->d, n, 0, 0, I(obj)->where) == 0)
		vipd_cfg_notice(ctx, n->loc,
			"'accept' is what vipd always does: the addresses it holds accept "
			"traffic (%s)",
			I(obj)->where);
}

/* no_accept: keepalived drops traffic to the addresses of a master that
 * does not own them with firewall rules; built without firewall support it
 * warns and carries on, as vipd does (it adds no firewall rules). */
static void cfg_i_no_accept(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	if (cpha_conf_nargs(&ctx->d, n, 0, 0, I(obj)->where) == 0)
		vipd_cfg_notice(ctx, n->loc,
			"'no_accept' is ignored: vipd adds no firewall rules, so the addresses "
			"it holds accept traffic (keepalived built without firewall support "
			"does the same) (%s)",
			I(obj)->where);
}

static const struct cfg_kw cfg_inst_kws[] = {
	{ { "state", CFG_KW_HERE }, cfg_i_state, 0 },
	{ { "interface", CFG_KW_HERE }, cfg_i_interface, 0 },
	{ { "virtual_router_id", CFG_KW_HERE }, cfg_i_number, 0 },
	{ { "priority", CFG_KW_HERE }, cfg_i_number, 0 },
	{ { "version", CFG_KW_HERE }, cfg_i_number, 0 },
	{ { "advert_int", CFG_KW_HERE }, cfg_i_advert, 0 },
	{ { "nopreempt", CFG_KW_HERE }, cfg_i_preempt, 0 },
	{ { "preempt", CFG_KW_HERE }, cfg_i_preempt, 0 },
	{ { "preempt_delay", CFG_KW_HERE }, cfg_i_preempt_delay, 0 },
	{ { "preempt_handover", CFG_KW_HERE }, cfg_i_handover, 0 },
	{ { "unicast_src_ip", CFG_KW_HERE }, cfg_i_src, 0 },
	{ { "mcast_src_ip", CFG_KW_HERE }, cfg_i_src, 0 },
	{ { "mcast_dst_ip", CFG_KW_HERE }, cfg_i_mcast_dst, 0 },
	{ { "unicast_peer", CFG_KW_HERE }, cfg_i_peers, CPHA_CONF_KW_BLOCK | CPHA_CONF_KW_MULTI },
	{ { "authentication", CFG_KW_HERE }, cfg_i_auth, CPHA_CONF_KW_BLOCK },
	{ { "auth_hmac", CFG_KW_HERE }, cfg_i_auth_hmac, CPHA_CONF_KW_BLOCK | CPHA_CONF_KW_MULTI },
	{ { "virtual_ipaddress", CFG_KW_HERE }, cfg_i_vips,
		CPHA_CONF_KW_BLOCK | CPHA_CONF_KW_MULTI },
	{ { "track_script", CFG_KW_HERE }, cfg_i_tracks, CPHA_CONF_KW_BLOCK | CPHA_CONF_KW_MULTI },
	{ { "track_interface", CFG_KW_HERE }, cfg_i_tracks,
		CPHA_CONF_KW_BLOCK | CPHA_CONF_KW_MULTI },
	{ { "track_file", CFG_KW_HERE }, cfg_i_tracks, CPHA_CONF_KW_BLOCK | CPHA_CONF_KW_MULTI },
	{ { "track_lbd", CFG_KW_HERE }, cfg_i_tracks, CPHA_CONF_KW_BLOCK | CPHA_CONF_KW_MULTI },
	{ { "track_process", CFG_KW_HERE }, cfg_i_tracks, CPHA_CONF_KW_BLOCK | CPHA_CONF_KW_MULTI },
	{ { "track_bfd", CFG_KW_HERE }, cfg_i_tracks, CPHA_CONF_KW_BLOCK | CPHA_CONF_KW_MULTI },
	{ { "dont_track_primary", CFG_KW_HERE }, cfg_i_dont_track, 0 },
	{ { "track_fenced", CFG_KW_HERE }, cfg_i_fenced, 0 },
	{ { "accept", CFG_KW_HERE }, cfg_i_accept, 0 },
	{ { "no_accept", CFG_KW_HERE }, cfg_i_no_accept, 0 },
	{ { "notify_master", CFG_KW_HERE }, cfg_i_notify, 0 },
	{ { "notify_backup", CFG_KW_HERE }, cfg_i_notify, 0 },
	{ { "notify_fault", CFG_KW_HERE }, cfg_i_notify, 0 },
	{ { "notify_stop", CFG_KW_HERE }, cfg_i_notify, 0 },
	{ { "notify", CFG_KW_HERE }, cfg_i_notify, 0 },
	{ { "garp_master_delay", CFG_KW_HERE }, cfg_i_garp, 0 },
	{ { "garp_master_repeat", CFG_KW_HERE }, cfg_i_garp, 0 },
	{ { "garp_master_refresh", CFG_KW_HERE }, cfg_i_garp, 0 },
	{ { "garp_master_refresh_repeat", CFG_KW_HERE }, cfg_i_garp, 0 },
	{ { "garp_interval", CFG_KW_HERE }, cfg_i_garp, 0 },
	{ { "v3_checksum_as_v2", CFG_KW_HERE }, cfg_i_checksum, 0 },
	{ { "skip_check_adv_addr", CFG_KW_HERE }, cfg_i_skip_check, 0 },
};
_Static_assert(CFG_NELEM(cfg_inst_kws) <= CPHA_CONF_MAX_KWS, "raise CPHA_CONF_MAX_KWS");

void vipd_cfg_instance_stmt(struct cfg_ctx *ctx, const struct cpha_conf_node *n)
{
	const struct vipd_instance *old = n->n == 2 ? vipd_cfg_instance(ctx->c, n->w[1]) : NULL;
	struct cfg_inst in;
	size_t nix = ctx->nix;

	if (vipd_cfg_def_name(ctx, n, "vrrp_instance", old, old ? old->line : 0) < 0)
		return;
	in.v = vipd_cfg_push(ctx, &ctx->c->instances, &ctx->c->ninstances, sizeof(*in.v));
	if (!in.v)
		return;
	in.x = vipd_cfg_push(ctx, &ctx->ix, &ctx->nix, sizeof(*in.x));
	if (!in.x || !(in.v->name = vipd_cfg_strdup(ctx, n->w[1]))) {
		ctx->c->ninstances--;
		ctx->nix = nix;
		return;
	}
	in.v->line = n->loc;
	in.v->advert_int = CPHA_USEC_PER_SEC;
	snprintf(in.where, sizeof(in.where), "vrrp_instance '%s'", n->w[1]);
	vipd_cfg_block(ctx, n, cfg_inst_kws, CFG_NELEM(cfg_inst_kws), &in, in.where);
	if (ctx->d.stop)
		return;
	if (!in.x->iface_loc)
		vipd_cfg_err(ctx, n->loc, "vrrp_instance '%s' has no 'interface'", n->w[1]);
	if (!in.x->vrid_loc)
		vipd_cfg_err(ctx, n->loc, "vrrp_instance '%s' has no 'virtual_router_id'", n->w[1]);
	if (!in.x->vips_loc)
		vipd_cfg_err(ctx, n->loc,
			"vrrp_instance '%s' has no virtual_ipaddress: an instance needs at least "
			"one address to move",
			n->w[1]);
}

/* ---- vrrp_sync_group ---- */

struct cfg_group {
	struct vipd_sync_group *g;
	struct cfg_group_x *x;
	char where[96];
	unsigned group_loc;
};

#define GR(obj) ((struct cfg_group *)(obj))

static void cfg_g_members(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	struct vipd_sync_group *g = GR(obj)->g;
	unsigned *l;
	char **m;
	size_t i, j, k;

	if (cpha_conf_nargs(&ctx->d, n, 0, 0, GR(obj)->where) < 0)
		return;
	GR(obj)->group_loc = n->loc;
	for (i = 0; i < n->nkids && !ctx->d.stop; i++) {
		const struct cpha_conf_node *e = &n->kids[i];

		if (!vipd_cfg_no_block(ctx, e, GR(obj)->where))
			continue;
		for (j = 0; j < e->n; j++) {
			for (k = 0; k < g->nmembers; k++)
				if (strcmp(g->members[k], e->w[j]) == 0)
					break;
			if (k < g->nmembers) {
				vipd_cfg_err(ctx, e->loc, "vrrp_instance '%s' is listed twice (%s)",
					e->w[j], GR(obj)->where);
				continue;
			}
			m = vipd_cfg_push(ctx, &g->members, &g->nmembers, sizeof(*m));
			if (!m || !(*m = vipd_cfg_strdup(ctx, e->w[j]))) {
				if (m)
					g->nmembers--;
				return;
			}
			l = vipd_cfg_push(ctx, &GR(obj)->x->locs, &GR(obj)->x->nlocs, sizeof(*l));
			if (!l)
				return;
			*l = e->loc;
		}
	}
	if (!g->nmembers && !ctx->d.stop)
		vipd_cfg_err(ctx, n->loc, "'group' is empty (%s)", GR(obj)->where);
}

static void cfg_g_tracks(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	struct vipd_sync_group *g = GR(obj)->g;

	if (n->w[0][6] == 's')
		vipd_cfg_tracks(ctx, n, CFG_TRACK_SCRIPT, &g->track_script, &g->ntrack_script,
			GR(obj)->where);
	else if (n->w[0][6] == 'p')
		vipd_cfg_tracks(ctx, n, CFG_TRACK_PROCESS, &g->track_process, &g->ntrack_process,
			GR(obj)->where);
	else if (n->w[0][6] == 'b')
		vipd_cfg_tracks(
			ctx, n, CFG_TRACK_BFD, &g->track_bfd, &g->ntrack_bfd, GR(obj)->where);
	else if (n->w[0][6] == 'i')
		vipd_cfg_tracks(ctx, n, CFG_TRACK_INTERFACE, &g->track_interface,
			&g->ntrack_interface, GR(obj)->where);
	else
		vipd_cfg_tracks(
			ctx, n, CFG_TRACK_FILE, &g->track_file, &g->ntrack_file, GR(obj)->where);
}

static void cfg_g_notify(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	struct vipd_sync_group *g = GR(obj)->g;
	char **cmds[VIPD_NOTIFY_N] = { &g->notify_master, &g->notify_backup, &g->notify_fault,
		&g->notify_stop, &g->notify };
	unsigned k = cfg_notify_slot(n->w[0]);

	cfg_notify(ctx, n, cmds[k], &g->notify_as[k], GR(obj)->where);
}

static const struct cfg_kw cfg_group_kws[] = {
	{ { "group", CFG_KW_HERE }, cfg_g_members, CPHA_CONF_KW_BLOCK },
	{ { "track_script", CFG_KW_HERE }, cfg_g_tracks, CPHA_CONF_KW_BLOCK | CPHA_CONF_KW_MULTI },
	{ { "track_interface", CFG_KW_HERE }, cfg_g_tracks,
		CPHA_CONF_KW_BLOCK | CPHA_CONF_KW_MULTI },
	{ { "track_file", CFG_KW_HERE }, cfg_g_tracks, CPHA_CONF_KW_BLOCK | CPHA_CONF_KW_MULTI },
	{ { "track_process", CFG_KW_HERE }, cfg_g_tracks, CPHA_CONF_KW_BLOCK | CPHA_CONF_KW_MULTI },
	{ { "track_bfd", CFG_KW_HERE }, cfg_g_tracks, CPHA_CONF_KW_BLOCK | CPHA_CONF_KW_MULTI },
	{ { "notify_master", CFG_KW_HERE }, cfg_g_notify, 0 },
	{ { "notify_backup", CFG_KW_HERE }, cfg_g_notify, 0 },
	{ { "notify_fault", CFG_KW_HERE }, cfg_g_notify, 0 },
	{ { "notify_stop", CFG_KW_HERE }, cfg_g_notify, 0 },
	{ { "notify", CFG_KW_HERE }, cfg_g_notify, 0 },
};

void vipd_cfg_sync_group(struct cfg_ctx *ctx, const struct cpha_conf_node *n)
{
	struct vipd_sync_group *old = NULL;
	struct cfg_group gr = { 0 };
	size_t i;

	for (i = 0; n->n == 2 && i < ctx->c->ngroups; i++)
		if (strcmp(ctx->c->groups[i].name, n->w[1]) == 0)
			old = &ctx->c->groups[i];
	if (vipd_cfg_def_name(ctx, n, "vrrp_sync_group", old, old ? old->line : 0) < 0)
		return;
	gr.g = vipd_cfg_push(ctx, &ctx->c->groups, &ctx->c->ngroups, sizeof(*gr.g));
	if (!gr.g)
		return;
	gr.x = vipd_cfg_push(ctx, &ctx->gx, &ctx->ngx, sizeof(*gr.x));
	if (!gr.x || !(gr.g->name = vipd_cfg_strdup(ctx, n->w[1]))) {
		ctx->c->ngroups--; /* nothing of it to free yet */
		if (gr.x)
			ctx->ngx--;
		return;
	}
	gr.g->line = n->loc;
	snprintf(gr.where, sizeof(gr.where), "vrrp_sync_group '%s'", n->w[1]);
	vipd_cfg_block(ctx, n, cfg_group_kws, CFG_NELEM(cfg_group_kws), &gr, gr.where);
	if (!gr.group_loc && !ctx->d.stop)
		vipd_cfg_err(
			ctx, n->loc, "vrrp_sync_group '%s' has no 'group' of instances", n->w[1]);
}
