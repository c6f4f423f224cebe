/* What the parts of vipd's configuration parser share while parsing: the
 * tree of statements the files are read into, the parsing context, and the
 * helpers that report errors. Nothing here outlives vipd_cfg_load().
 *
 * A location ("loc") is a file index and a line in one unsigned:
 * CFG_LOC(file, line). Index 0 is the file given to vipd_cfg_load(); others
 * come from 'include'. The line fields of the configuration hold locations
 * while parsing and plain line numbers once it is built. */
#ifndef VIPD_CFG_CTX_H
#define VIPD_CFG_CTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfgdiag.h"
#include "conf_lex.h"
#include "conf_tree.h"
#include "cfg.h"

#define CFG_MAX_ERRORS   100 /* stop after this many errors */
#define CFG_LINE_BITS    CPHA_CFGDIAG_LINE_BITS
#define CFG_LOC(f, l)    CPHA_CFGDIAG_LOC(f, l)
#define CFG_LOC_FILE(l)  CPHA_CFGDIAG_LOC_FILE(l)
#define CFG_LOC_LINE(l)  CPHA_CFGDIAG_LOC_LINE(l)
#define CFG_WEIGHT_FILE  254 /* track_file weights go one further (keepalived) */
#define CFG_PRIO_OWNER   255 /* RFC 9568: the address owner */
#define CFG_PRIO_DEFAULT 100 /* keepalived's default priority */
#define CFG_MAX_VIPS     255 /* RFC 9568 §5.2.5: Count IPvX Addr is 8 bits */

_Static_assert(CPHA_CONF_MAX_FILES <= 1u << (32 - CFG_LINE_BITS), "file index does not fit a loc");

#define CFG_NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Keyword capability (struct cpha_cfgkw): each block has a table of its own. */
#define CFG_KW_HERE (1u << 0) /* allowed in the block whose table holds it */

/* One statement: words on a line, and the block that follows them. */

/* What an instance needs beyond struct vipd_instance until it is checked:
 * where things were written, and what was written at all. */
struct cfg_inst_x {
	unsigned state_loc, prio_loc, version_loc, advert_loc, vrid_loc, iface_loc;
	unsigned nopreempt_loc, preempt_delay_loc, auth_loc, auth_type_loc;
	unsigned src_loc, vips_loc, mcast_dst_loc;
	unsigned garp_delay_loc, garp_rep_loc, garp_refresh_loc, garp_refresh_rep_loc;
	unsigned garp_interval_loc, v3_checksum_loc, state_bad_loc;
	bool auth_pass_set;
	bool vips_over;      /* more than CFG_MAX_VIPS, reported */
	unsigned *peer_locs; /* one per peer */
	unsigned hmac_loc, hmac_active_loc, hmac_mode_loc; /* auth_hmac and its keywords */
	unsigned *hmac_key_locs;                           /* one per key */
};

/* Where the members of a sync group were listed, one loc per member. */
struct cfg_group_x {
	unsigned *locs;
	size_t nlocs;
};

struct cfg_ctx {
	struct vipd_config *c;
	struct cpha_cfgdiag d; /* file names, errors and notices; d.stop: too many, or no memory */
	struct cpha_conf_tree t;              /* the statements read (t.root), and how */
	const struct cpha_conf_node *cur_top; /* the one being read */
	struct cfg_inst_x *ix;                /* one per instance, in the same order */
	size_t nix;
	struct cfg_group_x *gx; /* one per sync group, in the same order */
	size_t ngx;
	/* global_defs values that are defaults for instances (garp_interval and
	 * gna_interval are 0 unless given, which is the default too) */
	uint64_t garp_delay, garp_refresh, garp_interval, gna_interval;
	unsigned garp_rep, garp_refresh_rep;
	bool garp_delay_set, garp_rep_set, garp_refresh_set, garp_refresh_rep_set;
	unsigned global_seen[CPHA_CONF_MAX_KWS]; /* global_defs keywords given */
	unsigned strict_loc;                     /* vrrp_strict */
	struct cfg_param *params;                /* $NAME=VALUE definitions (cfg_subst.c) */
	size_t nparams;
};

/* A keyword of a block and what reads it. */
struct cfg_kw {
	struct cpha_cfgkw kw; /* name, and CFG_KW_HERE: tables are per block */
	void (*fn)(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj);
	unsigned flags; /* CPHA_CONF_KW_* */
};

/* Messages and memory through the collector of lib/cfgdiag.h (ctx->d):
 * vipd_cfg_err() and vipd_cfg_notice() add "file:line: text" for a loc (loc
 * 0: "file: text"); after CFG_MAX_ERRORS errors, or when memory runs out,
 * ctx->d.stop is set and nothing more is added. vipd_cfg_strdup() and
 * vipd_cfg_push() report running out of memory themselves;
 * cpha_cfgdiag_at() names a loc as "line N", or "file:N" when it is in
 * another file than the statement's. */
#define vipd_cfg_err(ctx, ...)              cpha_cfgdiag_err(&(ctx)->d, __VA_ARGS__)
#define vipd_cfg_notice(ctx, ...)           cpha_cfgdiag_notice(&(ctx)->d, __VA_ARGS__)
#define vipd_cfg_oom(ctx)                   cpha_cfgdiag_oom(&(ctx)->d)
#define vipd_cfg_strdup(ctx, s)             cpha_cfgdiag_strdup(&(ctx)->d, s)
#define vipd_cfg_push(ctx, arrayp, n, size) cpha_cfgdiag_push(&(ctx)->d, arrayp, n, size)

/* cfg.c: definitions. vipd_cfg_def_name() checks "KIND NAME {" (one name, not a
 * duplicate) and returns 0 when the block can be read. */
int vipd_cfg_def_name(struct cfg_ctx *ctx, const struct cpha_conf_node *n, const char *kind,
	bool dup, unsigned dup_loc);
void vipd_cfg_track_free(struct vipd_track *t, size_t n);

/* cfg_subst.c: keepalived's @ID conditions and $NAME parameters on a
 * source's text, once it is open (rewritten only when used, with its line
 * map: cpha_conf_src_line()). The conf_tree prepare hook (ctx as ud).
 * Returns 0, or -1 after reporting. */
struct cfg_param;
int vipd_cfg_subst(void *ctx, struct cpha_conf_src *s);
void vipd_cfg_params_free(struct cfg_ctx *ctx);

/* cfg_value.c: values (numbers, seconds and booleans are read with
 * lib/conf_tree.h's cpha_conf_*() on ctx->d). Each returns 0, or reports
 * an error naming the keyword and where (e.g. "vrrp_instance 'VI_1'") and
 * returns -1. vipd_cfg_weight() reads "weight N [reverse]"; vipd_cfg_addr() a
 * numeric address with no port that is neither unspecified nor multicast;
 * vipd_cfg_ifname() what Linux accepts as an interface name. vipd_cfg_command() joins
 * the words from one on into a command line that splits back into them
 * (NULL when out of memory). */
int vipd_cfg_addr(struct cfg_ctx *ctx, unsigned loc, const char *what, const char *s,
	struct cpha_addr *a, const char *where);
int vipd_cfg_ifname(
	struct cfg_ctx *ctx, unsigned loc, const char *what, const char *s, const char *where);
char *vipd_cfg_command(struct cfg_ctx *ctx, const struct cpha_conf_node *n, size_t from);
int vipd_cfg_weight(struct cfg_ctx *ctx, const struct cpha_conf_node *n, size_t i, long max,
	bool noreverse_ok, const char *what, int *weight, bool *reverse, const char *where);
int vipd_cfg_runas(struct cfg_ctx *ctx, const struct cpha_conf_node *n, size_t i,
	struct vipd_runas *as, bool notice_only, const char *where);

/* cfg_value.c: blocks. vipd_cfg_block() calls the function of each statement's
 * keyword with obj; an unknown keyword is "'X' is not supported by vipd",
 * a missing or extra block and a keyword given twice (unless
 * CPHA_CONF_KW_MULTI) are errors. vipd_cfg_block_seen() keeps what was given in the
 * caller's seen[CPHA_CONF_MAX_KWS] (global_defs may come in several blocks).
 * vipd_cfg_no_block() is true for an entry of a list block that has words and no
 * block. vipd_cfg_defined_later() finds a top-level definition of one of kinds
 * named name after the statement being read: its loc, or 0. */
void vipd_cfg_block(struct cfg_ctx *ctx, const struct cpha_conf_node *n, const struct cfg_kw *kws,
	size_t nkws, void *obj, const char *where);
void vipd_cfg_block_seen(struct cfg_ctx *ctx, const struct cpha_conf_node *n,
	const struct cfg_kw *kws, size_t nkws, void *obj, const char *where, unsigned *seen);
bool vipd_cfg_no_block(struct cfg_ctx *ctx, const struct cpha_conf_node *entry, const char *where);
unsigned vipd_cfg_defined_later(struct cfg_ctx *ctx, const char *const *kinds, const char *name);

/* cfg_instance.c: one vrrp_instance or vrrp_sync_group statement into
 * ctx->c (with ctx->ix, ctx->gx); vipd_cfg_tracks() a track_* list of a kind
 * into *arr, resolving names defined so far. */
void vipd_cfg_instance_stmt(struct cfg_ctx *ctx, const struct cpha_conf_node *n);
void vipd_cfg_sync_group(struct cfg_ctx *ctx, const struct cpha_conf_node *n);
void vipd_cfg_tracks(struct cfg_ctx *ctx, const struct cpha_conf_node *n, int kind,
	struct vipd_track **arr, size_t *cnt, const char *where);

/* cfg_validate.c: the checks across the configuration, the defaults that
 * depend on them, and the notices (the tracking-weight warning among them). */
void vipd_cfg_validate(struct cfg_ctx *ctx);

/* Kinds for vipd_cfg_tracks(). */
enum cfg_track_kind {
	CFG_TRACK_SCRIPT,
	CFG_TRACK_INTERFACE,
	CFG_TRACK_FILE,
	CFG_TRACK_LBD,
	CFG_TRACK_PROCESS,
	CFG_TRACK_BFD,
};

/* cfg_hmac.c: an auth_hmac block of instance v (several merge, as in
 * keepalived), and the checks once the instance is read (active_key
 * defined, the time_window default, vrrp_strict, legacy authentication). */
void vipd_cfg_auth_hmac(struct cfg_ctx *ctx, const struct cpha_conf_node *n,
	struct vipd_instance *v, struct cfg_inst_x *x, const char *where);
void vipd_cfg_check_auth_hmac(struct cfg_ctx *ctx, struct vipd_instance *v, struct cfg_inst_x *x);

/* cfg_process.c: a vrrp_track_process block into ctx->c. */
void vipd_cfg_track_process_def(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj);

/* cfg_bfd.c: a bfd_instance block into ctx->c. */
void vipd_cfg_bfd_def(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj);

#endif
