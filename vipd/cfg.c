/* vipd's configuration: keepalived's language, the VRRP part. This file
 * holds the messages, global_defs, vrrp_script, track_file, the top level,
 * and the public functions. The files are read into a tree of statements
 * by lib/conf_tree.c (cfg_subst.c first applies keepalived's @ID lines and
 * $NAME parameters); values and keyword tables are in cfg_value.c; instances
 * and sync groups in cfg_instance.c, an instance's auth_hmac block
 * (keepalived 2.4.3's HMAC-SHA256 trailer) in cfg_hmac.c; the checks across the configuration
 * in cfg_validate.c. Nothing logs: every problem becomes a
 * "file:line: message", collected, sorted by place.
 *
 * global_defs keywords beyond VRRP's core, decided one by one:
 *
 *   keyword                         vipd
 *   ------------------------------  -------------------------------------------
 *   router_id NAME                  kept (global.router_id)
 *   vrrp_version 2|3                default version of IPv4 instances
 *   script_user USER [GROUP]        kept
 *   enable_script_security          kept
 *   vrrp_garp_master_refresh SECS   kept, and the default of every instance
 *   vrrp_garp_master_delay SECS     default of every instance's garp_master_delay
 *   vrrp_garp_master_repeat N       default of every instance's garp_master_repeat
 *   vrrp_garp_master_refresh_repeat default of garp_master_refresh_repeat
 *   vrrp_garp_interval SECS         default garp_interval of IPv4 instances (0
 *                                   too: keepalived 2.2.7 refuses it, but its
 *                                   own example configuration writes it)
 *   vrrp_gna_interval SECS          the same for IPv6 instances
 *   max_auto_priority [N]           kept (-1..99; no value: 99; -1 stored as 0)
 *   vipd_admin_socket PATH          vipd extension
 *   vipd_metrics_bind ADDR:PORT     vipd extension
 *   vipd_metrics_web_config FILE    vipd extension: basic auth and TLS of the
 *                                   metrics listener (exporter-toolkit's file)
 *   vipd_reset_connections [BOOL]   vipd extension: reset the TCP connections
 *                                   on addresses given up (tcp_reset.h)
 *   vipd_quiesce SECS               vipd extension: lbd quiesces a VIP given
 *                                   up on purpose for SECS first (0-5)
 *   notification_email { ... }      notice: no effect (vipd sends no mail)
 *   notification_email_from ADDR    notice: no effect
 *   smtp_server ADDR [PORT]         notice: no effect
 *   smtp_connect_timeout SECS       notice: no effect
 *   enable_traps                    notice: no effect (no SNMP)
 *   vrrp_skip_check_adv_addr [BOOL] notice: no effect (an optimisation)
 *   lvs_id NAME                     notice: no effect (obsolete; LVS only)
 *   dynamic_interfaces [allow_...]  notice: no effect
 *   vrrp_mcast_group4/6 ADDR        kept: the group of every multicast instance
 *                                   of that family (224.0.0.0/4, ff00::/8)
 *   vrrp_strict                     kept: the RFC rules of cfg_validate.c
 *   notify_fifo, vrrp_notify_fifo   kept: every instance and group state line
 *     PATH [USER [GROUP]]           goes to both (notify.c)
 *   [vrrp_]notify_fifo_script CMD   kept: started with the fifo's path
 *   fifo_write_vrrp_states_on_reload kept
 *   vrrp_notify_priority_changes    kept: MASTER_PRIORITY / BACKUP_PRIORITY lines
 *   lvs_notify_fifo[_script]        notice: no effect (no LVS)
 *   vrrp_startup_delay SECS         kept: no master before it (vrrp_state.h)
 *   vrrp_delay_after_boot SECS      kept: the same, counted from boot
 *   vrrp_min_garp [BOOL]            one gratuitous ARP / NA on becoming master
 *                                   (garp_master_repeat 1, garp_master_delay 0)
 *   vrrp_check_unicast_src [BOOL]   notice: vipd always drops unicast adverts
 *                                   from addresses that are not peers
 *   vrrp_priority, vrrp_no_swap,    notice: no effect (keepalived's process
 *   vrrp_rt_priority, vrrp_cpu_...  scheduling; vipd runs as systemd sets it)
 *   vrrp_rlimit_rttime, checker_*,
 *   bfd_*, process_names, ...
 *   vrrp_netlink_*_rcv_bufs[_force] notice: no effect
 *   enable_snmp_*, enable_dbus      notice: no effect (use the metrics)
 *   anything else                   error: "'X' is not supported by vipd"
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "buf.h"
#include "cfgmsg.h"
#include "digest.h"
#include "duration.h"
#include "cfg_ctx.h"
#include "webcfg.h"

/* "line 12" when loc is in the same file as from, else "file:12". */
/* ---- global_defs ---- */

/* The object a global_defs keyword fills. */
static inline struct vipd_global *global_of(void *obj)
{
	return obj;
}

static void cfg_g_router_id(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	cpha_conf_string(&ctx->d, n, &global_of(obj)->router_id, "global_defs");
}

static void cfg_g_version(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	unsigned long long v;

	if (cpha_conf_nargs(&ctx->d, n, 1, 1, "global_defs") == 0 &&
		cpha_conf_uint(&ctx->d, n, 1, 2, 3, &v, "global_defs") == 0)
		global_of(obj)->vrrp_version = (int)v;
}

static void cfg_g_script_user(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	struct vipd_runas as = { 0 };

	if (cpha_conf_nargs(&ctx->d, n, 1, 2, "global_defs") < 0 ||
		vipd_cfg_runas(ctx, n, 1, &as, false, "global_defs") < 0)
		return;
	global_of(obj)->script_user = as.user;
	global_of(obj)->script_group = as.group;
}

static void cfg_g_security(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	if (cpha_conf_nargs(&ctx->d, n, 0, 0, "global_defs") == 0)
		global_of(obj)->enable_script_security = true;
}

/* vrrp_garp_master_* and vrrp_g[ar|n]a_interval: defaults for instances. */
static void cfg_g_garp(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	const char *kw = n->w[0] + 5; /* after "vrrp_" */
	unsigned long long v;
	uint64_t t;

	if (cpha_conf_nargs(&ctx->d, n, 1, 1, "global_defs") < 0)
		return;
	if (strcmp(kw, "garp_interval") == 0 || strcmp(kw, "gna_interval") == 0) {
		/* keepalived's range is a microsecond to UINT_MAX microseconds,
		 * but its own sample configuration writes 0, the default */
		if (cpha_conf_seconds(&ctx->d, n, 1, 0, 4294967295ULL, 0, &t, "global_defs") < 0)
			return;
		if (kw[1] == 'a')
			ctx->garp_interval = t;
		else
			ctx->gna_interval = t;
	} else if (strcmp(kw, "garp_master_delay") == 0) {
		if (cpha_conf_uint(&ctx->d, n, 1, 0, 4294, &v, "global_defs") == 0) {
			ctx->garp_delay = v * CPHA_USEC_PER_SEC;
			ctx->garp_delay_set = true;
		}
	} else if (strcmp(kw, "garp_master_refresh") == 0) {
		if (cpha_conf_uint(&ctx->d, n, 1, 0, 4294967295ULL, &v, "global_defs") == 0) {
			global_of(obj)->vrrp_garp_master_refresh = v * CPHA_USEC_PER_SEC;
			ctx->garp_refresh = v * CPHA_USEC_PER_SEC;
			ctx->garp_refresh_set = true;
		}
	} else if (cpha_conf_uint(&ctx->d, n, 1, 1, 4294967295ULL, &v, "global_defs") == 0) {
		if (strcmp(kw, "garp_master_repeat") == 0) {
			ctx->garp_rep = (unsigned)v;
			ctx->garp_rep_set = true;
		} else {
			ctx->garp_refresh_rep = (unsigned)v;
			ctx->garp_refresh_rep_set = true;
		}
	}
}

static void cfg_g_auto_prio(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	long v = 99; /* sched_get_priority_max(SCHED_RR), as keepalived */

	if (cpha_conf_nargs(&ctx->d, n, 0, 1, "global_defs") < 0 ||
		(n->n == 2 && cpha_conf_int(&ctx->d, n, 1, -1, 99, &v, "global_defs") < 0))
		return;
	/* -1 only silences keepalived's start-up warning: no increase, like 0 */
	global_of(obj)->max_auto_priority = v < 0 ? 0 : (int)v;
}

static void cfg_g_admin(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	if (cpha_conf_nargs(&ctx->d, n, 1, 1, "global_defs") < 0)
		return;
	if (n->w[1][0] != '/' || strlen(n->w[1]) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
		vipd_cfg_err(ctx, n->loc,
			"'vipd_admin_socket' needs an absolute path shorter than %zu bytes, not "
			"'%s' (global_defs)",
			sizeof(((struct sockaddr_un *)0)->sun_path), n->w[1]);
		return;
	}
	free(global_of(obj)->admin_socket);
	global_of(obj)->admin_socket = vipd_cfg_strdup(ctx, n->w[1]);
}

static void cfg_g_metrics(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	const char *why = NULL;

	if (cpha_conf_nargs(&ctx->d, n, 1, 1, "global_defs") < 0)
		return;
	if (cpha_parse_addr(n->w[1], CPHA_ADDR_PORT_REQUIRED, &global_of(obj)->metrics, &why) < 0) {
		vipd_cfg_err(
			ctx, n->loc, "'vipd_metrics_bind' '%s': %s (global_defs)", n->w[1], why);
		return;
	}
	global_of(obj)->metrics_set = true;
}

static void cfg_g_metrics_web(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	char why[512];

	if (cpha_conf_nargs(&ctx->d, n, 1, 1, "global_defs") < 0)
		return;
	if (global_of(obj)->metrics_web_loc) {
		vipd_cfg_err(ctx, n->loc, "'vipd_metrics_web_config' is given twice (global_defs)");
		return;
	}
	global_of(obj)->metrics_web_loc = n->loc;
	/* a relative path is beside the file that names it */
	if (cpha_webcfg_load_beside(ctx->d.files[CPHA_CFGDIAG_LOC_FILE(n->loc)], n->w[1],
		    &global_of(obj)->metrics_web, why, sizeof(why)) < 0)
		vipd_cfg_err(ctx, n->loc, "'vipd_metrics_web_config': %s (global_defs)", why);
}

/* vrrp_mcast_group4 / vrrp_mcast_group6 ADDR: the group multicast instances
 * of that family send to, join and accept adverts on. keepalived 2.2 only
 * checks that the address parses; vipd also wants a multicast one. */
static void cfg_g_mcast(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	bool v6 = n->w[0][16] == '6';
	const char *why = NULL;
	struct cpha_addr a;
	const uint8_t *raw;

	if (cpha_conf_nargs(&ctx->d, n, 1, 1, "global_defs") < 0)
		return;
	if (cpha_parse_addr(n->w[1], CPHA_ADDR_PORT_NONE, &a, &why) < 0 ||
		cpha_addr_family(&a) != (v6 ? AF_INET6 : AF_INET)) {
		vipd_cfg_err(ctx, n->loc,
			"'%s' needs an %s multicast address, not '%s' (global_defs)", n->w[0],
			v6 ? "IPv6" : "IPv4", n->w[1]);
		return;
	}
	raw = v6 ? ((const struct sockaddr_in6 *)&a.ss)->sin6_addr.s6_addr
		 : (const uint8_t *)&((const struct sockaddr_in *)&a.ss)->sin_addr;
	/* 224.0.0.0/4 (RFC 5771), ff00::/8 (RFC 4291 §2.7) */
	if (v6 ? raw[0] != 0xff : (raw[0] & 0xf0) != 0xe0) {
		vipd_cfg_err(ctx, n->loc, "'%s %s' is not a multicast address: %s (global_defs)",
			n->w[0], n->w[1],
			v6 ? "IPv6 multicast is ff00::/8" : "IPv4 multicast is 224.0.0.0/4");
		return;
	}
	if (v6)
		global_of(obj)->mcast6 = a;
	else
		global_of(obj)->mcast4 = a;
}

static void cfg_g_strict(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	if (cpha_conf_nargs(&ctx->d, n, 0, 0, "global_defs") < 0)
		return;
	global_of(obj)->strict = true;
	ctx->strict_loc = n->loc;
}

/* notify_fifo / vrrp_notify_fifo PATH [USER [GROUP]]: keepalived creates
 * the fifo if it is missing, owned by USER. */
static void cfg_g_fifo(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	struct vipd_fifo_cfg *f = &global_of(obj)->fifo[n->w[0][0] == 'v'];
	const struct vipd_fifo_cfg *other = &global_of(obj)->fifo[n->w[0][0] != 'v'];

	if (cpha_conf_nargs(&ctx->d, n, 1, 3, "global_defs") < 0)
		return;
	if (other->path && strcmp(other->path, n->w[1]) == 0) {
		vipd_cfg_err(ctx, n->loc,
			"'%s %s': notify_fifo and vrrp_notify_fifo must be different fifos "
			"(global_defs)",
			n->w[0], n->w[1]);
		return;
	}
	if (n->w[1][0] != '/') {
		vipd_cfg_err(ctx, n->loc, "'%s' needs an absolute path, not '%s' (global_defs)",
			n->w[0], n->w[1]);
		return;
	}
	f->path = vipd_cfg_strdup(ctx, n->w[1]);
	if (n->n > 2)
		f->user = vipd_cfg_strdup(ctx, n->w[2]);
	if (n->n > 3)
		f->group = vipd_cfg_strdup(ctx, n->w[3]);
}

/* notify_fifo_script / vrrp_notify_fifo_script CMD [USER [GROUP]]: started
 * with vipd, the fifo's path as its last argument. */
static void cfg_g_fifo_script(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	struct vipd_fifo_cfg *f = &global_of(obj)->fifo[n->w[0][0] == 'v'];

	if (cpha_conf_nargs(&ctx->d, n, 1, 3, "global_defs") < 0)
		return;
	if (!n->w[1][0]) {
		vipd_cfg_err(ctx, n->loc, "'%s' is empty (global_defs)", n->w[0]);
		return;
	}
	if (vipd_cfg_runas(ctx, n, 2, &f->script_as, true, "global_defs") == 0)
		f->script = vipd_cfg_strdup(ctx, n->w[1]);
}

/* fifo_write_vrrp_states_on_reload, vrrp_notify_priority_changes [BOOL] */
static void cfg_g_fifo_flag(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	bool b;

	if (n->w[0][0] == 'f') {
		if (cpha_conf_nargs(&ctx->d, n, 0, 0, "global_defs") == 0)
			global_of(obj)->fifo_states_on_reload = true;
	} else if (cpha_conf_bool(&ctx->d, n, &b, "global_defs") == 0) {
		global_of(obj)->notify_priority_changes = b;
	}
}

/* vrrp_startup_delay / vrrp_delay_after_boot SECS (decimals; keepalived's
 * read_timer takes up to UINT_MAX microseconds) */
static void cfg_g_startup_delay(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	uint64_t v;

	if (cpha_conf_nargs(&ctx->d, n, 1, 1, "global_defs") < 0 ||
		cpha_conf_seconds(&ctx->d, n, 1, 0, 4294967295ull, 0, &v, "global_defs") < 0)
		return;
	if (n->w[0][5] == 's')
		global_of(obj)->startup_delay = v;
	else
		global_of(obj)->delay_after_boot = v;
	if (v >= 60 * CPHA_USEC_PER_SEC)
		vipd_cfg_notice(ctx, n->loc,
			"'%s %s': no instance becomes master for a minute or more after vipd "
			"starts",
			n->w[0], n->w[1]);
}

/* vrrp_min_garp [BOOL]: one gratuitous ARP or NA and no second burst. */
static void cfg_g_min_garp(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	bool b;

	(void)obj;
	if (cpha_conf_bool(&ctx->d, n, &b, "global_defs") < 0 || !b)
		return;
	if (!ctx->garp_rep_set) {
		ctx->garp_rep = 1;
		ctx->garp_rep_set = true;
	}
	if (!ctx->garp_delay_set) {
		ctx->garp_delay = 0;
		ctx->garp_delay_set = true;
	}
}

static void cfg_g_reset(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	bool b;

	if (cpha_conf_bool(&ctx->d, n, &b, "global_defs") == 0)
		global_of(obj)->reset_connections = b;
}

/* vipd_quiesce SECS: up to 5 s, since the backup that preempts waits for
 * our priority 0 no longer than the master's interval and its skew. */
static void cfg_g_quiesce(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	uint64_t v;

	if (cpha_conf_nargs(&ctx->d, n, 1, 1, "global_defs") < 0 ||
		cpha_conf_seconds(&ctx->d, n, 1, 0, 5 * CPHA_USEC_PER_SEC, CPHA_CONF_UNITS, &v,
			"global_defs") < 0)
		return;
	global_of(obj)->quiesce = v;
	global_of(obj)->quiesce_loc = n->loc;
}

/* Tuning of keepalived's own processes: accepted, no effect. */
static void cfg_g_tuning(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	size_t i;

	(void)obj;
	for (i = 0; i < n->nkids; i++)
		vipd_cfg_no_block(ctx, &n->kids[i], "global_defs");
	if (strcmp(n->w[0], "vrrp_check_unicast_src") == 0)
		vipd_cfg_notice(ctx, n->loc,
			"'%s' has no effect in vipd: it always drops unicast adverts from "
			"addresses that are not unicast peers",
			n->w[0]);
	else if (strncmp(n->w[0], "enable_", 7) == 0)
		vipd_cfg_notice(ctx, n->loc,
			"'%s' has no effect in vipd: it has no SNMP or D-Bus interface; use its "
			"metrics and admin socket",
			n->w[0]);
	else
		vipd_cfg_notice(ctx, n->loc,
			"'%s' has no effect in vipd: it tunes keepalived's own processes", n->w[0]);
}

/* Accepted for compatibility; says why nothing happens. */
static void cfg_g_no_effect(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	static const struct {
		const char *kw, *why;
		size_t min, max; /* values */
	} t[] = {
		{ "notification_email", "vipd sends no mail; use notify scripts", 0, 0 },
		{ "notification_email_from", "vipd sends no mail", 1, 1 },
		{ "smtp_server", "vipd sends no mail", 1, 2 },
		{ "smtp_connect_timeout", "vipd sends no mail", 1, 1 },
		{ "enable_traps", "vipd has no SNMP agent; use its metrics", 0, 0 },
		{ "vrrp_skip_check_adv_addr", "it is an optimisation of keepalived's", 0, 1 },
		{ "lvs_id", "it is obsolete and names an LVS router; keepalived 2.2 rejects it too",
			1, 1 },
		{ "dynamic_interfaces", "it only tunes keepalived's interface handling", 0, 1 },
		{ "lvs_notify_fifo", "it has no LVS checker to report on", 1, 3 },
		{ "lvs_notify_fifo_script", "it has no LVS checker to report on", 1, 3 },
	};
	size_t i, k;
	bool b;

	(void)obj;
	for (k = 0; k < CFG_NELEM(t) - 1; k++)
		if (strcmp(t[k].kw, n->w[0]) == 0)
			break;
	if (cpha_conf_nargs(&ctx->d, n, t[k].min, t[k].max, "global_defs") < 0)
		return;
	if (strcmp(n->w[0], "vrrp_skip_check_adv_addr") == 0 &&
		cpha_conf_bool(&ctx->d, n, &b, "global_defs"))
		return;
	if (strcmp(n->w[0], "dynamic_interfaces") == 0 && n->n == 2 &&
		strcmp(n->w[1], "allow_if_changes") != 0) {
		vipd_cfg_err(ctx, n->loc, "'dynamic_interfaces': unexpected '%s' (global_defs)",
			n->w[1]);
		return;
	}
	for (i = 0; i < n->nkids; i++) /* notification_email's addresses */
		vipd_cfg_no_block(ctx, &n->kids[i], "notification_email");
	vipd_cfg_notice(ctx, n->loc, "'%s' has no effect in vipd: %s", n->w[0], t[k].why);
}

static const struct cfg_kw cfg_global_kws[] = {
	{ { "router_id", CFG_KW_HERE }, cfg_g_router_id, 0 },
	{ { "vrrp_version", CFG_KW_HERE }, cfg_g_version, 0 },
	{ { "script_user", CFG_KW_HERE }, cfg_g_script_user, 0 },
	{ { "enable_script_security", CFG_KW_HERE }, cfg_g_security, 0 },
	{ { "vrrp_garp_master_refresh", CFG_KW_HERE }, cfg_g_garp, 0 },
	{ { "vrrp_garp_master_delay", CFG_KW_HERE }, cfg_g_garp, 0 },
	{ { "vrrp_garp_master_repeat", CFG_KW_HERE }, cfg_g_garp, 0 },
	{ { "vrrp_garp_master_refresh_repeat", CFG_KW_HERE }, cfg_g_garp, 0 },
	{ { "vrrp_garp_interval", CFG_KW_HERE }, cfg_g_garp, 0 },
	{ { "vrrp_gna_interval", CFG_KW_HERE }, cfg_g_garp, 0 },
	{ { "max_auto_priority", CFG_KW_HERE }, cfg_g_auto_prio, 0 },
	{ { "vipd_admin_socket", CFG_KW_HERE }, cfg_g_admin, 0 },
	{ { "vipd_metrics_bind", CFG_KW_HERE }, cfg_g_metrics, 0 },
	{ { "vipd_metrics_web_config", CFG_KW_HERE }, cfg_g_metrics_web, 0 },
	{ { "vipd_reset_connections", CFG_KW_HERE }, cfg_g_reset, 0 },
	{ { "vipd_quiesce", CFG_KW_HERE }, cfg_g_quiesce, 0 },
	{ { "notification_email", CFG_KW_HERE }, cfg_g_no_effect, CPHA_CONF_KW_BLOCK },
	{ { "notification_email_from", CFG_KW_HERE }, cfg_g_no_effect, 0 },
	{ { "smtp_server", CFG_KW_HERE }, cfg_g_no_effect, 0 },
	{ { "smtp_connect_timeout", CFG_KW_HERE }, cfg_g_no_effect, 0 },
	{ { "enable_traps", CFG_KW_HERE }, cfg_g_no_effect, 0 },
	{ { "vrrp_skip_check_adv_addr", CFG_KW_HERE }, cfg_g_no_effect, 0 },
	{ { "lvs_id", CFG_KW_HERE }, cfg_g_no_effect, 0 },
	{ { "dynamic_interfaces", CFG_KW_HERE }, cfg_g_no_effect, 0 },
	{ { "lvs_notify_fifo", CFG_KW_HERE }, cfg_g_no_effect, 0 },
	{ { "lvs_notify_fifo_script", CFG_KW_HERE }, cfg_g_no_effect, 0 },
	{ { "notify_fifo", CFG_KW_HERE }, cfg_g_fifo, 0 },
	{ { "vrrp_notify_fifo", CFG_KW_HERE }, cfg_g_fifo, 0 },
	{ { "notify_fifo_script", CFG_KW_HERE }, cfg_g_fifo_script, 0 },
	{ { "vrrp_notify_fifo_script", CFG_KW_HERE }, cfg_g_fifo_script, 0 },
	{ { "fifo_write_vrrp_states_on_reload", CFG_KW_HERE }, cfg_g_fifo_flag, 0 },
	{ { "vrrp_notify_priority_changes", CFG_KW_HERE }, cfg_g_fifo_flag, 0 },
	{ { "vrrp_startup_delay", CFG_KW_HERE }, cfg_g_startup_delay, 0 },
	{ { "vrrp_delay_after_boot", CFG_KW_HERE }, cfg_g_startup_delay, 0 },
	{ { "vrrp_mcast_group4", CFG_KW_HERE }, cfg_g_mcast, 0 },
	{ { "vrrp_mcast_group6", CFG_KW_HERE }, cfg_g_mcast, 0 },
	{ { "vrrp_strict", CFG_KW_HERE }, cfg_g_strict, 0 },
	{ { "vrrp_min_garp", CFG_KW_HERE }, cfg_g_min_garp, 0 },
	{ { "vrrp_check_unicast_src", CFG_KW_HERE }, cfg_g_tuning, 0 },
	{ { "vrrp_priority", CFG_KW_HERE }, cfg_g_tuning, 0 },
	{ { "vrrp_no_swap", CFG_KW_HERE }, cfg_g_tuning, 0 },
	{ { "vrrp_rt_priority", CFG_KW_HERE }, cfg_g_tuning, 0 },
	{ { "vrrp_cpu_affinity", CFG_KW_HERE }, cfg_g_tuning, 0 },
	{ { "vrrp_rlimit_rttime", CFG_KW_HERE }, cfg_g_tuning, 0 },
	{ { "vrrp_rlimit_rtime", CFG_KW_HERE }, cfg_g_tuning, 0 },
	{ { "vrrp_process_name", CFG_KW_HERE }, cfg_g_tuning, 0 },
	{ { "vrrp_netlink_cmd_rcv_bufs", CFG_KW_HERE }, cfg_g_tuning, 0 },
	{ { "vrrp_netlink_cmd_rcv_bufs_force", CFG_KW_HERE }, cfg_g_tuning, 0 },
	{ { "vrrp_netlink_monitor_rcv_bufs", CFG_KW_HERE }, cfg_g_tuning, 0 },
	{ { "vrrp_netlink_monitor_rcv_bufs_force", CFG_KW_HERE }, cfg_g_tuning, 0 },
	{ { "checker_priority", CFG_KW_HERE }, cfg_g_tuning, 0 },
	{ { "checker_no_swap", CFG_KW_HERE }, cfg_g_tuning, 0 },
	{ { "checker_rt_priority", CFG_KW_HERE }, cfg_g_tuning, 0 },
	{ { "checker_cpu_affinity", CFG_KW_HERE }, cfg_g_tuning, 0 },
	{ { "checker_process_name", CFG_KW_HERE }, cfg_g_tuning, 0 },
	{ { "bfd_priority", CFG_KW_HERE }, cfg_g_tuning, 0 },
	{ { "bfd_no_swap", CFG_KW_HERE }, cfg_g_tuning, 0 },
	{ { "bfd_rt_priority", CFG_KW_HERE }, cfg_g_tuning, 0 },
	{ { "bfd_process_name", CFG_KW_HERE }, cfg_g_tuning, 0 },
	{ { "process_names", CFG_KW_HERE }, cfg_g_tuning, 0 },
	{ { "process_name", CFG_KW_HERE }, cfg_g_tuning, 0 },
	{ { "enable_snmp_vrrp", CFG_KW_HERE }, cfg_g_tuning, 0 },
	{ { "enable_snmp_keepalived", CFG_KW_HERE }, cfg_g_tuning, 0 },
	{ { "enable_snmp_rfc", CFG_KW_HERE }, cfg_g_tuning, 0 },
	{ { "enable_snmp_rfcv2", CFG_KW_HERE }, cfg_g_tuning, 0 },
	{ { "enable_snmp_rfcv3", CFG_KW_HERE }, cfg_g_tuning, 0 },
	{ { "enable_snmp_checker", CFG_KW_HERE }, cfg_g_tuning, 0 },
	{ { "enable_dbus", CFG_KW_HERE }, cfg_g_tuning, 0 },
};
_Static_assert(CFG_NELEM(cfg_global_kws) <= CPHA_CONF_MAX_KWS, "raise CPHA_CONF_MAX_KWS");

static void cfg_global_defs(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	(void)obj;
	if (cpha_conf_nargs(&ctx->d, n, 0, 0, "top level") == 0)
		vipd_cfg_block_seen(ctx, n, cfg_global_kws, CFG_NELEM(cfg_global_kws),
			&ctx->c->global, "global_defs", ctx->global_seen);
}

/* ---- vrrp_script ---- */

/* A definition being read, and where it is for messages. */
struct cfg_def {
	void *p; /* struct vipd_script or struct vipd_track_file_def */
	char where[96];
	bool timeout_set;
};

/* The vrrp_script a keyword of its block fills. */
static inline struct vipd_script *script_of(void *obj)
{
	return ((struct cfg_def *)obj)->p;
}
#define WHERE(obj) (((struct cfg_def *)(obj))->where)

static void cfg_s_script(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	if (cpha_conf_nargs(&ctx->d, n, 1, 4096, WHERE(obj)) < 0)
		return;
	if (!n->w[1][0]) {
		vipd_cfg_err(ctx, n->loc, "'script' is empty (%s)", WHERE(obj));
		return;
	}
	script_of(obj)->command = vipd_cfg_command(ctx, n, 1);
}

static void cfg_s_time(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	unsigned long long v;

	/* keepalived reads whole seconds, at least 1 */
	if (cpha_conf_nargs(&ctx->d, n, 1, 1, WHERE(obj)) < 0 ||
		cpha_conf_uint(&ctx->d, n, 1, 1, 4294, &v, WHERE(obj)) < 0)
		return;
	if (n->w[0][0] == 'i') {
		script_of(obj)->interval = v * CPHA_USEC_PER_SEC;
	} else {
		script_of(obj)->timeout = v * CPHA_USEC_PER_SEC;
		((struct cfg_def *)obj)->timeout_set = true;
	}
}

static void cfg_s_weight(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	vipd_cfg_weight(ctx, n, 0, VIPD_WEIGHT_MAX, false, NULL, &script_of(obj)->weight,
		&script_of(obj)->weight_reverse, WHERE(obj));
}

static void cfg_s_count(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	unsigned long long v;

	if (cpha_conf_nargs(&ctx->d, n, 1, 1, WHERE(obj)) < 0 ||
		cpha_conf_uint(&ctx->d, n, 1, 1, 2147483647, &v, WHERE(obj)) < 0)
		return;
	if (n->w[0][0] == 'r')
		script_of(obj)->rise = (unsigned)v;
	else
		script_of(obj)->fall = (unsigned)v;
}

static void cfg_s_user(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	struct vipd_runas as = { 0 };

	if (cpha_conf_nargs(&ctx->d, n, 1, 2, WHERE(obj)) < 0 ||
		vipd_cfg_runas(ctx, n, 1, &as, false, WHERE(obj)) < 0)
		return;
	script_of(obj)->user = as.user;
	script_of(obj)->group = as.group;
}

static void cfg_s_init_fail(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	if (cpha_conf_nargs(&ctx->d, n, 0, 0, WHERE(obj)) == 0)
		script_of(obj)->init_fail = true;
}

static const struct cfg_kw cfg_script_kws[] = {
	{ { "script", CFG_KW_HERE }, cfg_s_script, 0 },
	{ { "interval", CFG_KW_HERE }, cfg_s_time, 0 },
	{ { "timeout", CFG_KW_HERE }, cfg_s_time, 0 },
	{ { "weight", CFG_KW_HERE }, cfg_s_weight, 0 },
	{ { "rise", CFG_KW_HERE }, cfg_s_count, 0 },
	{ { "fall", CFG_KW_HERE }, cfg_s_count, 0 },
	{ { "user", CFG_KW_HERE }, cfg_s_user, 0 },
	{ { "init_fail", CFG_KW_HERE }, cfg_s_init_fail, 0 },
};

static void cfg_script(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	const struct vipd_script *old = n->n == 2 ? vipd_cfg_script(ctx->c, n->w[1]) : NULL;
	struct cfg_def d = { 0 };
	struct vipd_script *s;

	(void)obj;
	if (vipd_cfg_def_name(ctx, n, "vrrp_script", old, old ? old->line : 0) < 0)
		return;
	s = vipd_cfg_push(ctx, &ctx->c->scripts, &ctx->c->nscripts, sizeof(*s));
	if (!s || !(s->name = vipd_cfg_strdup(ctx, n->w[1])))
		return;
	s->line = n->loc;
	s->interval = CPHA_USEC_PER_SEC;
	s->rise = s->fall = 1;
	d.p = s;
	snprintf(d.where, sizeof(d.where), "vrrp_script '%s'", n->w[1]);
	vipd_cfg_block(ctx, n, cfg_script_kws, CFG_NELEM(cfg_script_kws), &d, d.where);
	if (!d.timeout_set)
		s->timeout = s->interval;
	if (!s->command && !ctx->d.stop)
		vipd_cfg_err(ctx, n->loc, "vrrp_script '%s' has no 'script' (keepalived drops it)",
			n->w[1]);
}

/* ---- track_file / vrrp_track_file ---- */

/* The track_file a keyword of its block fills. */
static inline struct vipd_track_file_def *track_file_of(void *obj)
{
	return ((struct cfg_def *)obj)->p;
}

static void cfg_tf_file(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	if (cpha_conf_nargs(&ctx->d, n, 1, 1, WHERE(obj)) < 0)
		return;
	if (!n->w[1][0]) {
		vipd_cfg_err(ctx, n->loc, "'file' is empty (%s)", WHERE(obj));
		return;
	}
	track_file_of(obj)->path = vipd_cfg_strdup(ctx, n->w[1]);
}

static void cfg_tf_weight(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	vipd_cfg_weight(ctx, n, 0, CFG_WEIGHT_FILE, false, NULL, &track_file_of(obj)->weight,
		&track_file_of(obj)->weight_reverse, WHERE(obj));
}

/* init_file [VALUE] [overwrite] */
static void cfg_tf_init(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	size_t i;
	long v;

	if (cpha_conf_nargs(&ctx->d, n, 0, 2, WHERE(obj)) < 0)
		return;
	track_file_of(obj)->init_file = true;
	for (i = 1; i < n->n; i++) {
		if (strcmp(n->w[i], "overwrite") == 0 && i == n->n - 1)
			track_file_of(obj)->init_overwrite = true;
		else if (cpha_conf_int(&ctx->d, n, i, -CFG_WEIGHT_FILE, CFG_WEIGHT_FILE, &v,
				 WHERE(obj)) == 0)
			track_file_of(obj)->init_value = (int)v;
	}
}

static const struct cfg_kw cfg_tf_kws[] = {
	{ { "file", CFG_KW_HERE }, cfg_tf_file, 0 },
	{ { "weight", CFG_KW_HERE }, cfg_tf_weight, 0 },
	{ { "init_file", CFG_KW_HERE }, cfg_tf_init, 0 },
};

static void cfg_track_file_def(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	const struct vipd_track_file_def *old =
		n->n == 2 ? vipd_cfg_track_file(ctx->c, n->w[1]) : NULL;
	struct vipd_track_file_def *t;
	struct cfg_def d = { 0 };

	(void)obj;
	if (vipd_cfg_def_name(ctx, n, "track_file", old, old ? old->line : 0) < 0)
		return;
	t = vipd_cfg_push(ctx, &ctx->c->track_files, &ctx->c->ntrack_files, sizeof(*t));
	if (!t || !(t->name = vipd_cfg_strdup(ctx, n->w[1])))
		return;
	t->line = n->loc;
	t->weight = 1;
	d.p = t;
	snprintf(d.where, sizeof(d.where), "track_file '%s'", n->w[1]);
	vipd_cfg_block(ctx, n, cfg_tf_kws, CFG_NELEM(cfg_tf_kws), &d, d.where);
	if (!t->path && !ctx->d.stop)
		vipd_cfg_err(ctx, n->loc, "track_file '%s' has no 'file'", n->w[1]);
}

/* ---- the top level ---- */

static void cfg_top_instance(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	(void)obj;
	vipd_cfg_instance_stmt(ctx, n);
}

static void cfg_top_group(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	(void)obj;
	vipd_cfg_sync_group(ctx, n);
}

static const struct cfg_kw cfg_top_kws[] = {
	{ { "global_defs", CFG_KW_HERE }, cfg_global_defs,
		CPHA_CONF_KW_BLOCK | CPHA_CONF_KW_MULTI },
	{ { "vrrp_script", CFG_KW_HERE }, cfg_script, CPHA_CONF_KW_BLOCK | CPHA_CONF_KW_MULTI },
	{ { "track_file", CFG_KW_HERE }, cfg_track_file_def,
		CPHA_CONF_KW_BLOCK | CPHA_CONF_KW_MULTI },
	{ { "vrrp_track_file", CFG_KW_HERE }, cfg_track_file_def,
		CPHA_CONF_KW_BLOCK | CPHA_CONF_KW_MULTI },
	{ { "vrrp_track_process", CFG_KW_HERE }, vipd_cfg_track_process_def,
		CPHA_CONF_KW_BLOCK | CPHA_CONF_KW_MULTI },
	{ { "bfd_instance", CFG_KW_HERE }, vipd_cfg_bfd_def,
		CPHA_CONF_KW_BLOCK | CPHA_CONF_KW_MULTI },
	{ { "vrrp_instance", CFG_KW_HERE }, cfg_top_instance,
		CPHA_CONF_KW_BLOCK | CPHA_CONF_KW_MULTI },
	{ { "vrrp_sync_group", CFG_KW_HERE }, cfg_top_group,
		CPHA_CONF_KW_BLOCK | CPHA_CONF_KW_MULTI },
};

static void cfg_top(struct cfg_ctx *ctx)
{
	struct cpha_conf_node one = { 0 };
	size_t i;

	for (i = 0; i < ctx->t.root.nkids && !ctx->d.stop; i++) {
		const struct cpha_conf_node *t = &ctx->t.root.kids[i];

		ctx->cur_top = t;
		/* one statement at a time, so that definitions are read in order */
		one.kids = (struct cpha_conf_node *)t;
		one.nkids = 1;
		vipd_cfg_block(ctx, &one, cfg_top_kws, CFG_NELEM(cfg_top_kws), NULL, NULL);
	}
	ctx->cur_top = NULL;
}

/* Messages in the order of their places (stable), moved into *out. */
/* Locations back to line numbers, now that no message needs the file. */
static void cfg_strip_locs(struct vipd_config *c)
{
	size_t i, j;

#define STRIP(t, n)                                                                                \
	for (j = 0; j < (n); j++)                                                                  \
		(t)[j].line = CFG_LOC_LINE((t)[j].line);
	STRIP(c->scripts, c->nscripts)
	STRIP(c->track_files, c->ntrack_files)
	STRIP(c->track_processes, c->ntrack_processes)
	STRIP(c->bfds, c->nbfds)
	STRIP(c->instances, c->ninstances)
	STRIP(c->groups, c->ngroups)
	for (i = 0; i < c->ninstances; i++) {
		struct vipd_instance *v = &c->instances[i];

		STRIP(v->vips, v->nvips)
		STRIP(v->track_script, v->ntrack_script)
		STRIP(v->track_interface, v->ntrack_interface)
		STRIP(v->track_file, v->ntrack_file)
		STRIP(v->track_lbd, v->ntrack_lbd)
		STRIP(v->track_process, v->ntrack_process)
		STRIP(v->track_bfd, v->ntrack_bfd)
	}
	for (i = 0; i < c->ngroups; i++) {
		STRIP(c->groups[i].track_script, c->groups[i].ntrack_script)
		STRIP(c->groups[i].track_interface, c->groups[i].ntrack_interface)
		STRIP(c->groups[i].track_file, c->groups[i].ntrack_file)
		STRIP(c->groups[i].track_process, c->groups[i].ntrack_process)
		STRIP(c->groups[i].track_bfd, c->groups[i].ntrack_bfd)
	}
#undef STRIP
}

static void cfg_ctx_free(struct cfg_ctx *ctx)
{
	size_t i;

	cpha_conf_node_free(&ctx->t.root);
	cpha_cfgdiag_free(&ctx->d);
	for (i = 0; i < ctx->nix; i++) {
		free(ctx->ix[i].peer_locs);
		free(ctx->ix[i].hmac_key_locs);
	}
	free(ctx->ix);
	for (i = 0; i < ctx->ngx; i++)
		free(ctx->gx[i].locs);
	free(ctx->gx);
	vipd_cfg_params_free(ctx);
}

/* Set the reader up for the first file, name. */
static int cfg_read_start(struct cfg_ctx *ctx, struct cpha_conf_reader *rd, const char *name)
{
	ctx->d.max_errors = CFG_MAX_ERRORS;
	ctx->t.d = &ctx->d;
	ctx->t.prepare = vipd_cfg_subst;
	ctx->t.ud = ctx;
	return cpha_conf_read_start(&ctx->t, rd, name);
}

/* Parse what the reader's first source holds. */
static int cfg_run(struct cfg_ctx *ctx, struct cpha_conf_reader *rd, const char *file,
	struct vipd_config **out, struct cpha_msgs *errs)
{
	struct vipd_config *c = calloc(1, sizeof(*c));

	ctx->c = c;
	if (!c || !(c->file = strdup(file)) ||
		!(c->global.admin_socket = strdup("/run/vipd/admin.sock"))) {
		vipd_cfg_oom(ctx);
	} else {
		c->global.vrrp_version = 2;
		c->global.max_auto_priority = -1;
		const char *why;

		/* RFC 9568 §5.1.1.2, §5.1.2.2 */
		cpha_parse_addr("224.0.0.18", CPHA_ADDR_PORT_NONE, &c->global.mcast4, &why);
		cpha_parse_addr("ff02::12", CPHA_ADDR_PORT_NONE, &c->global.mcast6, &why);
		cpha_conf_read(&ctx->t, rd);
		if (!ctx->d.stop)
			cfg_top(ctx);
		if (!ctx->d.stop)
			vipd_cfg_validate(ctx);
	}
	cpha_conf_read_end(rd);
	if (ctx->d.nerrs || ctx->d.stop || !c ||
		cpha_cfgdiag_take(ctx->d.notv, &ctx->d.nnotices, &c->notices, &c->nnotices) < 0) {
		cpha_cfgdiag_take_errs(&ctx->d, errs);
		vipd_cfg_free(c);
		return -1;
	}
	cfg_strip_locs(c);
	*out = c;
	return 0;
}

int vipd_cfg_load(const char *path, struct vipd_config **out, struct cpha_msgs *errs)
{
	char digest[CPHA_DIGEST_HEXLEN];
	struct cpha_conf_reader rd;
	struct cfg_ctx ctx;
	int r;

	*out = NULL;
	memset(&ctx, 0, sizeof(ctx));
	if (cfg_read_start(&ctx, &rd, path) < 0) {
		cfg_ctx_free(&ctx);
		return cpha_msgs_cannot_read(errs, path, "out of memory");
	}
	r = cpha_lex_open(&rd.src[0].lx, path, CPHA_LEX_KEEPALIVED);
	if (r < 0) {
		r = cpha_msgs_cannot_read(
			errs, path, rd.src[0].lx.err[0] ? rd.src[0].lx.err : strerror(-r));
		cpha_lex_free(&rd.src[0].lx);
		cfg_ctx_free(&ctx);
		return r;
	}
	ctx.t.includes = true;
	if (cpha_digest_hex(rd.src[0].lx.text ? rd.src[0].lx.text : "", rd.src[0].lx.len, digest) <
		0)
		digest[0] = '\0';
	r = cfg_run(&ctx, &rd, path, out, errs);
	if (r == 0)
		memcpy((*out)->digest, digest, sizeof(digest));
	cfg_ctx_free(&ctx);
	return r;
}

int vipd_cfg_load_mem(const char *name, const char *text, size_t len, struct vipd_config **out,
	struct cpha_msgs *errs)
{
	struct cpha_conf_reader rd;
	struct cfg_ctx ctx;
	int r;

	*out = NULL;
	if (!name)
		name = "(memory)";
	memset(&ctx, 0, sizeof(ctx));
	if (cfg_read_start(&ctx, &rd, name) < 0 ||
		cpha_lex_open_mem(&rd.src[0].lx, name, text, len, CPHA_LEX_KEEPALIVED) < 0) {
		cfg_ctx_free(&ctx);
		return cpha_msgs_cannot_read(errs, name, "out of memory");
	}
	r = cfg_run(&ctx, &rd, name, out, errs);
	cfg_ctx_free(&ctx);
	return r;
}
