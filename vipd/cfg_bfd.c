/* vipd's configuration: bfd_instance blocks, keepalived 2.2's BFD
 * sessions (keepalived.conf(5), "BFD CONFIGURATION"), with its keywords,
 * ranges and defaults. keepalived reports a bad value and goes on with the
 * default, or drops the instance; vipd refuses the file instead, as for
 * every other block. Also the lookup of a definition by name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cfg_ctx.h"

#define CFG_BFD_NAME_MAX      31 /* keepalived's BFD_INAME_MAX less its NUL */
/* keepalived's ranges, in milliseconds */
#define CFG_BFD_MS_MAX        4294967u /* UINT32_MAX / 1000 */
#define CFG_BFD_IDLE_MIN      1000u    /* RFC 5880 §6.8.3: 1 s while not Up */
#define CFG_BFD_RX_SENSIBLE   1000u    /* above: keepalived's warning */
#define CFG_BFD_IDLE_SENSIBLE 10000u
#define CFG_BFD_MULT_SENSIBLE 10u

/* The definition being read. */
struct cfg_bfd {
	struct vipd_bfd_def *b;
	char where[96];
	bool vrrp, checker; /* "vrrp" / "checker" given */
	bool ttl_set;
	const char *nbr_word; /* "neighbor" or "neighbour", for messages */
};

#define BFD(obj) ((struct cfg_bfd *)(obj))

/* A decimal number of milliseconds with up to three decimals (keepalived
 * counts in microseconds), min..max ms. */
static int cfg_bfd_ms(struct cfg_ctx *ctx, const struct cpha_conf_node *n, unsigned min,
	unsigned max, uint32_t *us, const char *where)
{
	const char *s;
	unsigned long long ms = 0, frac = 0;
	unsigned digits = 0, fdigits = 0;

	if (cpha_conf_nargs(&ctx->d, n, 1, 1, where) < 0)
		return -1;
	for (s = n->w[1]; *s >= '0' && *s <= '9' && digits < 12; s++, digits++)
		ms = ms * 10 + (unsigned)(*s - '0');
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9' && fdigits < 3; s++, fdigits++)
			frac = frac * 10 + (unsigned)(*s - '0');
	while (fdigits && fdigits < 3)
		frac *= 10, fdigits++;
	if (!digits || *s || ms * 1000 + frac < (unsigned long long)min * 1000 ||
		ms * 1000 + frac > (unsigned long long)max * 1000) {
		vipd_cfg_err(ctx, n->loc,
			"'%s %s': must be a number of milliseconds from %u to %u, with at most "
			"three decimals (%s)",
			n->w[0], n->w[1], min, max, where);
		return -1;
	}
	*us = (uint32_t)(ms * 1000 + frac);
	return 0;
}

static void cfg_bfd_neighbor(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	struct vipd_bfd_def *b = BFD(obj)->b;
	char at[64];
	size_t i;

	BFD(obj)->nbr_word = n->w[0][7] == 'u' ? "neighbour" : "neighbor";
	if (cpha_conf_nargs(&ctx->d, n, 1, 1, BFD(obj)->where) < 0 ||
		vipd_cfg_addr(ctx, n->loc, n->w[0], n->w[1], &b->neighbor, BFD(obj)->where) < 0)
		return;
	/* keepalived: one session per neighbor address */
	for (i = 0; i + 1 < ctx->c->nbfds; i++)
		if (cpha_addr_equal(&ctx->c->bfds[i].neighbor, &b->neighbor)) {
			vipd_cfg_err(ctx, n->loc,
				"%s address %s is already the neighbor of bfd_instance '%s' (%s) "
				"(%s)",
				BFD(obj)->nbr_word, n->w[1], ctx->c->bfds[i].name,
				cpha_cfgdiag_at(
					&ctx->d, ctx->c->bfds[i].line, n->loc, at, sizeof(at)),
				BFD(obj)->where);
			return;
		}
}

static void cfg_bfd_source(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	if (cpha_conf_nargs(&ctx->d, n, 1, 1, BFD(obj)->where) < 0 ||
		vipd_cfg_addr(ctx, n->loc, "source_ip", n->w[1], &BFD(obj)->b->source,
			BFD(obj)->where) < 0)
		return;
	BFD(obj)->b->source_set = true;
}

static void cfg_bfd_interval(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	struct vipd_bfd_def *b = BFD(obj)->b;
	bool idle = n->w[0][0] == 'i';
	uint32_t *to = idle                             ? &b->idle_tx
		       : strcmp(n->w[0], "min_rx") == 0 ? &b->min_rx
							: &b->min_tx;
	unsigned sensible = idle ? CFG_BFD_IDLE_SENSIBLE : CFG_BFD_RX_SENSIBLE;

	if (cfg_bfd_ms(ctx, n, idle ? CFG_BFD_IDLE_MIN : 1, CFG_BFD_MS_MAX, to, BFD(obj)->where) <
		0)
		return;
	if (*to > sensible * 1000u)
		vipd_cfg_notice(ctx, n->loc, "%s %s ms is larger than sensible (%u ms) (%s)",
			n->w[0], n->w[1], sensible, BFD(obj)->where);
}

static void cfg_bfd_mult(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	unsigned long long v;

	if (cpha_conf_nargs(&ctx->d, n, 1, 1, BFD(obj)->where) < 0 ||
		cpha_conf_uint(&ctx->d, n, 1, 1, 255, &v, BFD(obj)->where) < 0)
		return;
	BFD(obj)->b->mult = (unsigned)v;
	if (v > CFG_BFD_MULT_SENSIBLE)
		vipd_cfg_notice(ctx, n->loc, "multiplier %llu is larger than sensible (%u) (%s)", v,
			CFG_BFD_MULT_SENSIBLE, BFD(obj)->where);
}

static void cfg_bfd_flag(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	if (cpha_conf_nargs(&ctx->d, n, 0, 0, BFD(obj)->where) < 0)
		return;
	if (n->w[0][0] == 'p')
		BFD(obj)->b->passive = true;
	else if (n->w[0][0] == 'v')
		BFD(obj)->vrrp = true;
	else
		BFD(obj)->checker = true;
}

static void cfg_bfd_ttl(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	unsigned long long v;
	long h;

	if (cpha_conf_nargs(&ctx->d, n, 1, 1, BFD(obj)->where) < 0)
		return;
	if (n->w[0][0] == 'm') {
		if (cpha_conf_int(&ctx->d, n, 1, -1, 255, &h, BFD(obj)->where) == 0)
			BFD(obj)->b->max_hops = (int)h;
		return;
	}
	if (cpha_conf_uint(&ctx->d, n, 1, 1, 255, &v, BFD(obj)->where) < 0)
		return;
	BFD(obj)->b->ttl = (int)v;
	BFD(obj)->ttl_set = true;
}

static void cfg_bfd_weight(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	vipd_cfg_weight(ctx, n, 0, VIPD_WEIGHT_MAX, false, NULL, &BFD(obj)->b->weight,
		&BFD(obj)->b->weight_reverse, BFD(obj)->where);
}

static const struct cfg_kw cfg_bfd_kws[] = {
	{ { "neighbor_ip", CFG_KW_HERE }, cfg_bfd_neighbor, 0 },
	{ { "neighbour_ip", CFG_KW_HERE }, cfg_bfd_neighbor, 0 },
	{ { "source_ip", CFG_KW_HERE }, cfg_bfd_source, 0 },
	{ { "min_rx", CFG_KW_HERE }, cfg_bfd_interval, 0 },
	{ { "min_tx", CFG_KW_HERE }, cfg_bfd_interval, 0 },
	{ { "idle_tx", CFG_KW_HERE }, cfg_bfd_interval, 0 },
	{ { "multiplier", CFG_KW_HERE }, cfg_bfd_mult, 0 },
	{ { "passive", CFG_KW_HERE }, cfg_bfd_flag, 0 },
	{ { "ttl", CFG_KW_HERE }, cfg_bfd_ttl, 0 },
	{ { "hoplimit", CFG_KW_HERE }, cfg_bfd_ttl, 0 },
	{ { "max_hops", CFG_KW_HERE }, cfg_bfd_ttl, 0 },
	{ { "weight", CFG_KW_HERE }, cfg_bfd_weight, 0 },
	{ { "vrrp", CFG_KW_HERE }, cfg_bfd_flag, 0 },
	{ { "checker", CFG_KW_HERE }, cfg_bfd_flag, 0 },
};

void vipd_cfg_bfd_def(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	const struct vipd_bfd_def *old = n->n == 2 ? vipd_cfg_bfd(ctx->c, n->w[1]) : NULL;
	struct cfg_bfd cb = { 0 };
	struct vipd_bfd_def *b;
	char src[64], nbr[64];

	(void)obj;
	if (vipd_cfg_def_name(ctx, n, "bfd_instance", old, old ? old->line : 0) < 0)
		return;
	if (strlen(n->w[1]) > CFG_BFD_NAME_MAX) {
		vipd_cfg_err(ctx, n->loc,
			"bfd_instance '%s': the name is longer than %u characters", n->w[1],
			CFG_BFD_NAME_MAX);
		return;
	}
	b = vipd_cfg_push(ctx, &ctx->c->bfds, &ctx->c->nbfds, sizeof(*b));
	if (!b || !(b->name = vipd_cfg_strdup(ctx, n->w[1])))
		return;
	b->line = n->loc;
	b->min_rx = 10000;
	b->min_tx = 10000;
	b->idle_tx = 1000000;
	b->mult = 5;
	cb.b = b;
	cb.nbr_word = "neighbor";
	snprintf(cb.where, sizeof(cb.where), "bfd_instance '%s'", n->w[1]);
	vipd_cfg_block(ctx, n, cfg_bfd_kws, CFG_NELEM(cfg_bfd_kws), &cb, cb.where);
	if (ctx->d.stop)
		return;
	b = &ctx->c->bfds[ctx->c->nbfds - 1];
	/* keepalived: sent to the VRRP process unless only "checker" is given */
	b->vrrp = cb.vrrp || !cb.checker;
	if (!cpha_addr_family(&b->neighbor)) {
		vipd_cfg_err(ctx, n->loc, "bfd_instance '%s' has no %s_ip", n->w[1], cb.nbr_word);
		return;
	}
	if (b->source_set && cpha_addr_family(&b->source) != cpha_addr_family(&b->neighbor)) {
		vipd_cfg_err(ctx, n->loc,
			"bfd_instance '%s': source_ip %s and %s_ip %s are not of the same family",
			n->w[1], cpha_addr_format(&b->source, src, sizeof(src)), cb.nbr_word,
			cpha_addr_format(&b->neighbor, nbr, sizeof(nbr)));
		return;
	}
	if (!cb.ttl_set)
		b->ttl = cpha_addr_family(&b->neighbor) == AF_INET ? 255 : 64;
	if (b->max_hops > b->ttl) {
		/* keepalived reports it and lowers max_hops */
		vipd_cfg_notice(ctx, n->loc,
			"bfd_instance '%s': max_hops %d exceeds ttl/hoplimit %d: lowered to %d",
			n->w[1], b->max_hops, b->ttl, b->ttl);
		b->max_hops = b->ttl;
	}
}

const struct vipd_bfd_def *vipd_cfg_bfd(const struct vipd_config *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nbfds; i++)
		if (c->bfds[i].name && strcmp(c->bfds[i].name, name) == 0)
			return &c->bfds[i];
	return NULL;
}
