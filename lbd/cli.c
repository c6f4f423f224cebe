/* The admin socket's commands, as a keyword table (HAProxy's cli_kws): the
 * words that name a command, how many arguments follow them, the level it
 * needs, its handler and its help lines. The help and the permission check
 * are made from the table; a new command is one row. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "backend.h"
#include "cfg.h"
#include "cli.h"
#include "log.h"
#include "quiet.h"
#include "quiet_ctl.h"
#include "runtime.h"
#include "server_ctl.h"
#include "stats.h"

/* words of a line that are read: quiesce's most addresses, "for MS" and
 * "json"; a line with more is refused */
#define CLI_MAX_WORDS (1 + LBD_QUIET_MAX + 2 + 1)
#define CLI_MAX_KW    3 /* words that name a command */
#define CLI_MAX_USAGE 3 /* help lines of a command */

/* One command line, split into words (the trailing "json" taken off). */
struct cli_req {
	struct lbd_runtime *rt;
	char **w; /* n words */
	int n;
	bool json;
	enum lbd_stats_level level; /* the socket's */
	struct cpha_buf *reply;
};

typedef void cli_handler_fn(struct cli_req *r);

struct cli_kw {
	const char *words[CLI_MAX_KW]; /* the command's name; NULL after the last */
	int min_args, max_args;        /* words after the name */
	/* HAProxy 2.6's level for the same command: every change is admin's
	 * (it checks ACCESS_LVL_ADMIN in each), reading is anyone's */
	enum lbd_stats_level level;
	cli_handler_fn *fn;
	struct {
		const char *syntax, *what;
	} usage[CLI_MAX_USAGE]; /* help lines, in order */
};

static cli_handler_fn cli_help, cli_show_info, cli_show_stat, cli_show_servers_state,
	cli_show_table, cli_set_server, cli_enable_disable_server, cli_shutdown_sessions,
	cli_quiesce, cli_unquiesce, cli_show_quiesce;

static const struct cli_kw cli_kws[] = {
	{ { "help" }, 0, CLI_MAX_WORDS, LBD_STATS_LEVEL_USER, cli_help,
		{ { "help", "this text" } } },
	{ { "show", "info" }, 0, 0, LBD_STATS_LEVEL_USER, cli_show_info,
		{ { "show info [json]", "process information" } } },
	{ { "show", "stat" }, 0, 0, LBD_STATS_LEVEL_USER, cli_show_stat,
		{ { "show stat [json]", "statistics (HAProxy's CSV fields)" } } },
	{ { "show", "servers", "state" }, 0, 1, LBD_STATS_LEVEL_USER, cli_show_servers_state,
		{ { "show servers state [BACKEND] [json]", "server states" } } },
	{ { "show", "table" }, 0, 1, LBD_STATS_LEVEL_USER, cli_show_table,
		{ { "show table [NAME] [json]", "stick tables, or one table's entries" } } },
	{ { "set", "server" }, 0, CLI_MAX_WORDS, LBD_STATS_LEVEL_ADMIN, cli_set_server,
		{ { "set server B/S state ready|drain|maint",
			  "change a server's administrative state" },
			{ "set server B/S health up|down", "force a server's health state" },
			{ "set server B/S weight N", "change a server's weight (0-256)" } } },
	{ { "disable", "server" }, 1, 1, LBD_STATS_LEVEL_ADMIN, cli_enable_disable_server,
		{ { "disable server B/S", "same as set server B/S state maint" } } },
	{ { "enable", "server" }, 1, 1, LBD_STATS_LEVEL_ADMIN, cli_enable_disable_server,
		{ { "enable server B/S", "same as set server B/S state ready" } } },
	{ { "shutdown", "sessions", "server" }, 1, 1, LBD_STATS_LEVEL_ADMIN, cli_shutdown_sessions,
		{ { "shutdown sessions server B/S", "cut the sessions of a server" } } },
	/* lbd extensions (quiet.h): vipd asks before it hands a VIP over */
	{ { "quiesce" }, 1, CLI_MAX_WORDS - 1, LBD_STATS_LEVEL_ADMIN, cli_quiesce,
		{ { "quiesce ADDR... [for MS]",
			"drop new connections to these addresses (5000 ms by default)" } } },
	{ { "unquiesce" }, 1, CLI_MAX_WORDS - 1, LBD_STATS_LEVEL_ADMIN, cli_unquiesce,
		{ { "unquiesce ADDR...|all", "take new connections to them again" } } },
	{ { "show", "quiesce" }, 0, 0, LBD_STATS_LEVEL_USER, cli_show_quiesce,
		{ { "show quiesce [json]", "the quiet addresses and the ms they have left" } } },
};

#define CLI_NKWS (sizeof(cli_kws) / sizeof(cli_kws[0]))

static const char *const level_names[] = {
	[LBD_STATS_LEVEL_USER] = "user",
	[LBD_STATS_LEVEL_OPERATOR] = "operator",
	[LBD_STATS_LEVEL_ADMIN] = "admin",
};

/* The commands this level may run, as HAProxy lists them. */
static void put_help(struct cpha_buf *reply, enum lbd_stats_level level)
{
	size_t i, u;

	cpha_buf_puts(reply, "The following commands are valid at this level:\n");
	for (i = 0; i < CLI_NKWS; i++)
		for (u = 0; u < CLI_MAX_USAGE && cli_kws[i].usage[u].syntax; u++)
			if (cli_kws[i].level <= level)
				cpha_buf_printf(reply, "  %-40s : %s\n", cli_kws[i].usage[u].syntax,
					cli_kws[i].usage[u].what);
	cpha_buf_puts(reply, "Append 'json' to any command for a JSON reply.\n");
}

/* The level the commands starting with verb need (the highest of them), so
 * that a change is refused before its arguments are looked at. */
static enum lbd_stats_level needed_level(const char *verb)
{
	enum lbd_stats_level l = LBD_STATS_LEVEL_USER;
	size_t i;

	for (i = 0; i < CLI_NKWS; i++)
		if (strcmp(verb, cli_kws[i].words[0]) == 0 && cli_kws[i].level > l)
			l = cli_kws[i].level;
	return l;
}

/* The command the words name, with an argument count it takes, or NULL. */
static const struct cli_kw *cli_find(char **w, int n)
{
	const struct cli_kw *kw;
	size_t i;
	int k;

	for (i = 0; i < CLI_NKWS; i++) {
		kw = &cli_kws[i];
		for (k = 0; k < CLI_MAX_KW && kw->words[k]; k++)
			if (k >= n || strcmp(w[k], kw->words[k]) != 0)
				break;
		if (k < CLI_MAX_KW && kw->words[k])
			continue;
		if (n - k >= kw->min_args && n - k <= kw->max_args)
			return kw;
	}
	return NULL;
}

static void reply_error(struct cpha_buf *reply, bool json, const char *msg)
{
	if (json)
		stats_put_json(reply, json_pack("{s:b,s:s}", "ok", 0, "error", msg));
	else
		cpha_buf_printf(reply, "%s\n", msg);
}

static void reply_ok(struct cpha_buf *reply, bool json)
{
	if (json)
		stats_put_json(reply, json_pack("{s:b}", "ok", 1));
	/* HAProxy answers a successful "set" with an empty line */
	else
		cpha_buf_puts(reply, "\n");
}

static struct lbd_server *find_server(
	struct lbd_runtime *rt, const char *bs, struct cpha_buf *reply, bool json)
{
	char b[256];
	const char *slash = strchr(bs, '/');
	struct lbd_server *srv;

	if (!slash || (size_t)(slash - bs) >= sizeof(b)) {
		reply_error(reply, json, "Require 'backend/server'.");
		return NULL;
	}
	memcpy(b, bs, (size_t)(slash - bs));
	b[slash - bs] = '\0';
	if (!runtime_backend(rt, b)) {
		reply_error(reply, json, "No such backend.");
		return NULL;
	}
	srv = runtime_server(rt, b, slash + 1);
	if (!srv)
		reply_error(reply, json, "No such server.");
	return srv;
}

static void cli_help(struct cli_req *r)
{
	put_help(r->reply, r->level);
}

static void cli_show_info(struct cli_req *r)
{
	stats_show_info(r->rt, r->reply, r->json);
}

static void cli_show_stat(struct cli_req *r)
{
	stats_show_stat(r->rt, r->reply, r->json);
}

static void cli_show_servers_state(struct cli_req *r)
{
	if (r->n == 4 && !runtime_backend(r->rt, r->w[3]))
		reply_error(r->reply, r->json, "Can't find backend.");
	else
		stats_show_servers_state(r->rt, r->n == 4 ? r->w[3] : NULL, r->reply, r->json);
}

static void cli_show_table(struct cli_req *r)
{
	if (stats_show_table(r->rt, r->n == 3 ? r->w[2] : NULL, r->reply, r->json) < 0)
		reply_error(r->reply, r->json, "No such table");
}

static void cli_set_server(struct cli_req *r)
{
	struct lbd_runtime *rt = r->rt;
	struct cpha_buf *reply = r->reply;
	char **w = r->w, *end;
	bool json = r->json;
	struct lbd_server *srv;
	unsigned long v;

	if (r->n < 5) {
		reply_error(reply, json, "'set server' expects B/S state|health|weight VALUE.");
		return;
	}
	srv = find_server(rt, w[2], reply, json);
	if (!srv)
		return;
	if (strcmp(w[3], "state") == 0) {
		if (strcmp(w[4], "ready") == 0)
			server_set_admin(rt, srv, LBD_ADMIN_READY);
		else if (strcmp(w[4], "drain") == 0)
			server_set_admin(rt, srv, LBD_ADMIN_DRAIN);
		else if (strcmp(w[4], "maint") == 0)
			server_set_admin(rt, srv, LBD_ADMIN_MAINT);
		else {
			reply_error(reply, json,
				"'set server <srv> state' expects 'ready', 'drain' and 'maint'.");
			return;
		}
	} else if (strcmp(w[3], "health") == 0) {
		if (strcmp(w[4], "up") == 0)
			server_set_up(rt, srv, true, "forced up by the administrator");
		else if (strcmp(w[4], "down") == 0)
			server_set_up(rt, srv, false, "forced down by the administrator");
		else {
			reply_error(
				reply, json, "'set server <srv> health' expects 'up' or 'down'.");
			return;
		}
	} else if (strcmp(w[3], "weight") == 0) {
		v = strtoul(w[4], &end, 10);
		if (!w[4][0] || *end || v > 256) {
			reply_error(reply, json, "Weight must be an integer between 0 and 256.");
			return;
		}
		pthread_mutex_lock(&srv->be->lock);
		srv->o.weight = (unsigned)v;
		pthread_mutex_unlock(&srv->be->lock);
		backend_dispatch(srv->be);
	} else {
		reply_error(
			reply, json, "'set server' only supports 'state', 'health' and 'weight'.");
		return;
	}
	reply_ok(reply, json);
}

/* disable server B/S | enable server B/S */
static void cli_enable_disable_server(struct cli_req *r)
{
	struct lbd_server *srv = find_server(r->rt, r->w[2], r->reply, r->json);

	if (!srv)
		return;
	server_set_admin(r->rt, srv, r->w[0][0] == 'd' ? LBD_ADMIN_MAINT : LBD_ADMIN_READY);
	reply_ok(r->reply, r->json);
}

static void cli_shutdown_sessions(struct cli_req *r)
{
	struct lbd_server *srv = find_server(r->rt, r->w[3], r->reply, r->json);

	if (!srv)
		return;
	server_cut_sessions(r->rt, srv, "KD", false);
	reply_ok(r->reply, r->json);
}

/* The addresses of words w[from..n) (bare IPv4 or IPv6 addresses, no
 * port) into a; false with the reply written for one that is not. */
static bool quiet_addrs(struct cli_req *r, int from, int n, struct cpha_addr *a)
{
	const char *why;
	char msg[300];

	for (int i = from; i < n; i++) {
		if (cpha_parse_addr(r->w[i], CPHA_ADDR_PORT_NONE, &a[i - from], &why) < 0 ||
			(a[i - from].flags & CPHA_ADDR_F_ANY)) {
			snprintf(msg, sizeof(msg), "'%s' is not an IP address%s%s.", r->w[i],
				why ? ": " : "", why ? why : "");
			reply_error(r->reply, r->json, msg);
			return false;
		}
	}
	return true;
}

static void cli_quiesce(struct cli_req *r)
{
	struct cpha_addr a[CLI_MAX_WORDS];
	int n = r->n;
	unsigned long ms = LBD_QUIET_DEF_MS;
	char *end;
	int e;

	if (n >= 3 && strcmp(r->w[n - 2], "for") == 0) {
		errno = 0;
		ms = strtoul(r->w[n - 1], &end, 10);
		if (errno || *end || !*r->w[n - 1] || ms == 0 || ms > LBD_QUIET_MAX_MS) {
			reply_error(r->reply, r->json,
				"'for' needs a time in milliseconds, from 1 to 60000.");
			return;
		}
		n -= 2;
	}
	if (n < 2) {
		reply_error(r->reply, r->json, "Require an address to quiesce.");
		return;
	}
	if (!quiet_addrs(r, 1, n, a))
		return;
	e = quiet_ctl_add(r->rt, a, (size_t)(n - 1), (unsigned)ms);
	if (e == -ENOSPC)
		reply_error(r->reply, r->json, "Too many addresses quiet at once (8 at most).");
	else if (e < 0)
		reply_error(r->reply, r->json, strerror(-e));
	else
		reply_ok(r->reply, r->json);
}

static void cli_unquiesce(struct cli_req *r)
{
	struct cpha_addr a[CLI_MAX_WORDS];

	if (r->n == 2 && strcmp(r->w[1], "all") == 0) {
		quiet_ctl_remove(r->rt, NULL, 0);
		reply_ok(r->reply, r->json);
		return;
	}
	if (!quiet_addrs(r, 1, r->n, a))
		return;
	quiet_ctl_remove(r->rt, a, (size_t)(r->n - 1));
	reply_ok(r->reply, r->json);
}

static void cli_show_quiesce(struct cli_req *r)
{
	quiet_ctl_show(r->rt, r->reply, r->json);
}

void cli_command(struct lbd_runtime *rt, const struct cpha_admin_peer *peer, const char *line,
	struct cpha_buf *reply)
{
	char *copy = strdup(line), *w[CLI_MAX_WORDS], *save = NULL, *t;
	struct cli_req r = { rt, w, 0, false,
		rt->cfg ? rt->cfg->global.stats.level : LBD_STATS_LEVEL_ADMIN, reply };
	const struct cli_kw *kw;

	if (!copy)
		return;
	for (t = strtok_r(copy, " \t", &save); t && r.n < CLI_MAX_WORDS;
		t = strtok_r(NULL, " \t", &save))
		w[r.n++] = t;
	if (t) {
		/* cut short, the words left could change what it means (the
		 * addresses of a quiesce, its "for MS", "json") */
		reply_error(reply, false, "Too many words in one command.");
		free(copy);
		return;
	}
	if (r.n > 0 && strcmp(w[r.n - 1], "json") == 0) {
		r.json = true;
		r.n--;
	}
	if (r.n > 0 && needed_level(w[0]) > r.level) {
		/* w[0] is the first word of a command of the table; the rest
		 * of the line, the client's own text, stays out of the log */
		log_notice(
			"stats socket: '%s' refused to uid %ld (pid %ld): the socket is level %s",
			w[0], peer ? (long)peer->uid : -1L, peer ? (long)peer->pid : -1L,
			level_names[r.level]);
		reply_error(reply, r.json, "Permission denied");
	} else if (r.n == 0) {
		put_help(reply, r.level);
	} else if ((kw = cli_find(w, r.n)) != NULL) {
		kw->fn(&r);
	} else {
		reply_error(reply, r.json,
			"Unknown command. Please enter one of the following commands only:");
		if (!r.json)
			put_help(reply, r.level);
	}
	free(copy);
}
