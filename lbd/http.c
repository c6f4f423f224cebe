/* The built-in HTTP services: one libmicrohttpd daemon per bind address of
 * a mode http frontend, each driven from the main sd-event loop through its
 * epoll descriptor (one io source) and a timer from MHD_get_timeout(). A
 * request is answered as HAProxy 2.6 answers it: monitor-uri first, then
 * http-request use-service prometheus-exporter, then the stats page; any
 * other request gets 503, as from a frontend with no server. */
#include <crypt.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "buf.h"
#include "cfgmsg.h"
#include "clock.h"
#include "http-types.h"
#include "log.h"
#include "runtime.h"
#include "server.h"
#include "server_ctl.h"
#include "stats.h"
#include "http.h"

#define HTTP_MAX_BODY       8192 /* admin POST bodies (HAProxy: one buffer) */
#define HTTP_CONN_LIMIT     64   /* clients at once per address */
#define HTTP_PER_IP_LIMIT   16
#define HTTP_DEFAULT_TO_SEC 10 /* idle client without 'timeout client' */

/* One listening address of a service. */
struct http_daemon {
	struct lbd_runtime *rt;
	const struct lbd_http_service *svc; /* of the running configuration */
	struct cpha_addr addr;
	uint16_t port;
	struct MHD_Daemon *d;
	sd_event_source *io, *timer;
};

/* One request: the raw URI (for prefixes and ";csv"), and a POST body. */
struct http_req {
	char *uri;
	int started;
	int too_big;
	struct cpha_buf body;
};

/* Daemons of the running configuration. The runtime structure belongs to
 * runtime.c, so the services keep their own list here. */
static struct http_daemon **http_daemons;
static size_t http_ndaemons;

static void http_pump(struct http_daemon *hd);

static int http_on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	(void)s;
	(void)fd;
	(void)revents;
	http_pump(userdata);
	return 0;
}

static int http_on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	(void)s;
	(void)usec;
	http_pump(userdata);
	return 0;
}

/* Let MHD do its work, then arm the timer for its next deadline. */
static void http_pump(struct http_daemon *hd)
{
	MHD_UNSIGNED_LONG_LONG ms;
	uint64_t now;

	MHD_run(hd->d);
	if (MHD_get_timeout(hd->d, &ms) == MHD_YES) {
		sd_event_now(sd_event_source_get_event(hd->timer), CLOCK_MONOTONIC, &now);
		sd_event_source_set_time(hd->timer, now + (uint64_t)ms * 1000ULL);
		sd_event_source_set_enabled(hd->timer, SD_EVENT_ONESHOT);
	} else {
		sd_event_source_set_enabled(hd->timer, SD_EVENT_OFF);
	}
}

static void *http_uri_cb(void *cls, const char *uri, struct MHD_Connection *con)
{
	struct http_req *r = calloc(1, sizeof(*r));

	(void)cls;
	(void)con;
	if (r && !(r->uri = strdup(uri))) {
		free(r);
		r = NULL;
	}
	return r;
}

static void http_done_cb(
	void *cls, struct MHD_Connection *con, void **req_cls, enum MHD_RequestTerminationCode toe)
{
	struct http_req *r = *req_cls;

	(void)cls;
	(void)con;
	(void)toe;
	if (!r)
		return;
	free(r->uri);
	cpha_buf_free(&r->body);
	free(r);
	*req_cls = NULL;
}

static enum MHD_Result http_send(struct MHD_Connection *con, unsigned status, const char *type,
	const char *body, size_t len, const char *hdr, const char *val)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	resp = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, "Content-Type", type);
	MHD_add_response_header(resp, "Cache-Control", "no-cache");
	if (hdr)
		MHD_add_response_header(resp, hdr, val);
	ret = MHD_queue_response(con, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

/* HAProxy's built-in error pages. */
static enum MHD_Result http_error(struct MHD_Connection *con, unsigned status)
{
	static const struct {
		unsigned status;
		const char *text;
	} pages[] = {
		{ 200, "<html><body><h1>200 OK</h1>\nService ready.\n</body></html>\n" },
		{ 400, "<html><body><h1>400 Bad request</h1>\nYour browser sent an invalid "
		       "request.\n</body></html>\n" },
		{ 403, "<html><body><h1>403 Forbidden</h1>\nRequest forbidden by administrative "
		       "rules.\n</body></html>\n" },
		{ 413, "<html><body><h1>413 Payload Too Large</h1>\nThe request entity is too "
		       "large.\n</body></html>\n" },
		{ 503, "<html><body><h1>503 Service Unavailable</h1>\nNo server is available to "
		       "handle this request.\n</body></html>\n" },
	};
	size_t i;

	for (i = 0; i < sizeof(pages) / sizeof(pages[0]) - 1; i++)
		if (pages[i].status == status)
			break;
	return http_send(con, pages[i].status, "text/html", pages[i].text, strlen(pages[i].text),
		NULL, NULL);
}

/* The facts a condition may ask about. */
struct http_ctx {
	struct http_daemon *hd;
	struct MHD_Connection *con;
	char path[1024];
	int auth_read;
	char *user, *pass;
};

static int http_nbsrv(void *userdata, const char *backend)
{
	struct http_ctx *c = userdata;
	struct lbd_backend_rt *be = runtime_backend(c->hd->rt, backend);
	unsigned act, bck;

	if (!be)
		return -1;
	server_count_usable(be, &act, &bck);
	return (int)(act ? act : bck);
}

static void http_read_auth(struct http_ctx *c)
{
	if (c->auth_read)
		return;
	c->auth_read = 1;
	c->user = MHD_basic_auth_get_username_password(c->con, &c->pass);
}

static bool http_users_ok(struct http_ctx *c, const struct lbd_userlist *l)
{
	struct crypt_data cd;
	const char *h;
	size_t i;

	http_read_auth(c);
	if (!c->user || !c->pass)
		return false;
	for (i = 0; i < l->nusers; i++) {
		const struct lbd_http_user *u = &l->users[i];

		if (strcmp(u->name, c->user) != 0)
			continue;
		if (u->insecure)
			return strcmp(u->pass, c->pass) == 0;
		memset(&cd, 0, sizeof(cd));
		h = crypt_r(c->pass, u->pass, &cd);
		return h && h[0] != '*' && strcmp(h, u->pass) == 0;
	}
	return false;
}

static bool http_auth_fetch(void *userdata, const char *userlist)
{
	struct http_ctx *c = userdata;
	const struct lbd_config *cfg = c->hd->rt->cfg;
	size_t i;

	for (i = 0; i < cfg->nuserlists; i++)
		if (strcmp(cfg->userlists[i]->name, userlist) == 0)
			return http_users_ok(c, cfg->userlists[i]);
	return false;
}

static const char *http_hdr_fetch(void *userdata, const char *name)
{
	struct http_ctx *c = userdata;

	return MHD_lookup_connection_value(c->con, MHD_HEADER_KIND, name);
}

static bool http_cond(struct http_ctx *c, const struct acl_cond *cond)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c->con, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	struct acl_facts f = {
		.path = c->path,
		.src = ci ? ci->client_addr : NULL,
		.dst_port = c->hd->port,
		.nbsrv = http_nbsrv,
		.http_auth = http_auth_fetch,
		.hdr = http_hdr_fetch,
		.userdata = c,
	};

	return acl_cond_eval(cond, &f);
}

/* A frontend whose stats come from its backend: does a use_backend rule
 * (or default_backend) send this request there? */
static bool http_routed(struct http_ctx *c, const struct lbd_http_service *s)
{
	size_t i;

	if (!s->routes)
		return true;
	for (i = 0; i < s->routes->nsw; i++)
		if (http_cond(c, s->routes->sw[i].cond))
			return true;
	return s->route_default;
}

/* Is a proxy shown under stats scope? */
static bool http_in_scope(const struct lbd_http_service *s, const char *name)
{
	size_t i;

	if (!s->nscope)
		return true;
	for (i = 0; i < s->nscope; i++)
		if (strcmp(s->scope[i], name) == 0 ||
			(strcmp(s->scope[i], ".") == 0 && strcmp(s->name, name) == 0))
			return true;
	return false;
}

static void http_html_puts(struct cpha_buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			cpha_buf_puts(b, "&lt;");
		else if (*s == '>')
			cpha_buf_puts(b, "&gt;");
		else if (*s == '&')
			cpha_buf_puts(b, "&amp;");
		else if (*s == '"')
			cpha_buf_puts(b, "&quot;");
		else
			cpha_buf_append(b, s, 1);
	}
}

static void http_age(struct cpha_buf *b, uint64_t usec)
{
	uint64_t s = usec / 1000000ULL;

	if (s >= 86400)
		cpha_buf_printf(b, "%llud%lluh", (unsigned long long)(s / 86400),
			(unsigned long long)(s % 86400 / 3600));
	else if (s >= 3600)
		cpha_buf_printf(b, "%lluh%llum", (unsigned long long)(s / 3600),
			(unsigned long long)(s % 3600 / 60));
	else
		cpha_buf_printf(b, "%llum%llus", (unsigned long long)(s / 60),
			(unsigned long long)(s % 60));
}

static const char *const http_actions[] = { "ready", "drain", "maint", "hrunn", "hdown", "shutdown",
	NULL };

static void http_html_server(struct cpha_buf *b, struct lbd_server *srv, bool admin, uint64_t now)
{
	unsigned cur, weight;
	uint64_t since = atomic_load(&srv->up_since);

	pthread_mutex_lock(&srv->be->lock);
	cur = srv->cur;
	weight = srv->o.weight;
	pthread_mutex_unlock(&srv->be->lock);
	cpha_buf_puts(b, "<tr class=\"srv\">");
	if (admin) {
		cpha_buf_puts(b, "<td><input type=\"checkbox\" name=\"s\" value=\"");
		http_html_puts(b, srv->name);
		cpha_buf_puts(b, "\"></td>");
	}
	cpha_buf_puts(b, "<td class=\"name\">");
	http_html_puts(b, srv->name);
	cpha_buf_printf(b, "</td><td class=\"status\">%s</td><td>%u</td><td>%s</td><td>%u</td>",
		server_state_name(srv), weight, srv->o.backup ? "Y" : "-", cur);
	cpha_buf_printf(b, "<td>%llu</td><td>%llu</td><td>%llu</td><td>",
		(unsigned long long)atomic_load(&srv->cnt.sessions_total),
		(unsigned long long)atomic_load(&srv->cnt.bytes_in),
		(unsigned long long)atomic_load(&srv->cnt.bytes_out));
	if (srv->o.check)
		http_html_puts(b, srv->last_check[0] ? srv->last_check : "not checked yet");
	else
		cpha_buf_puts(b, "no check");
	cpha_buf_printf(
		b, "</td><td>%llu</td><td>", (unsigned long long)atomic_load(&srv->state_changes));
	if (atomic_load(&srv->up) && since && now >= since) {
		cpha_buf_puts(b, "up ");
		http_age(b, now - since);
	} else {
		http_html_puts(b, srv->last_reason[0] ? srv->last_reason : "-");
	}
	cpha_buf_puts(b, "</td></tr>\n");
}

static void http_html_backend(struct cpha_buf *b, const struct lbd_http_service *s,
	struct lbd_backend_rt *be, bool admin, bool up_only, uint64_t now)
{
	unsigned act, bck;
	size_t j;

	server_count_usable(be, &act, &bck);
	cpha_buf_puts(b, "<h2>backend ");
	http_html_puts(b, be->name);
	cpha_buf_puts(b, "</h2>\n");
	if (admin) {
		cpha_buf_puts(b, "<form method=\"post\" action=\"");
		http_html_puts(b, s->stats_uri);
		cpha_buf_puts(b, "\">");
	}
	cpha_buf_printf(b,
		"<table class=\"px\" id=\"%s\">\n<tr>%s<th>Server</th><th>Status</th>"
		"<th>Weight</th><th>Backup</th><th>Cur sessions</th>"
		"<th>Total sessions</th><th>Bytes in</th><th>Bytes out</th>"
		"<th>Last check</th><th>Changes</th><th>Last change</th></tr>\n",
		be->name, admin ? "<th></th>" : "");
	for (j = 0; j < be->nservers; j++)
		if (!up_only || strcmp(server_state_name(be->servers[j]), "UP") == 0)
			http_html_server(b, be->servers[j], admin, now);
	cpha_buf_printf(b,
		"<tr class=\"backend\">%s<td>Backend</td><td>%s</td><td></td><td></td>"
		"<td>%u</td><td>%llu</td><td>%llu</td><td>%llu</td><td></td><td></td>"
		"<td></td></tr>\n</table>\n",
		admin ? "<td></td>" : "", act + bck ? "UP" : "DOWN", atomic_load(&be->cur),
		(unsigned long long)atomic_load(&be->cnt.sessions_total),
		(unsigned long long)atomic_load(&be->cnt.bytes_in),
		(unsigned long long)atomic_load(&be->cnt.bytes_out));
	if (admin) {
		size_t k;

		cpha_buf_puts(b, "Choose the action to perform on the checked servers: "
				 "<select name=\"action\">");
		for (k = 0; http_actions[k]; k++)
			cpha_buf_printf(b, "<option value=\"%s\">%s</option>", http_actions[k],
				http_actions[k]);
		cpha_buf_puts(b, "</select><input type=\"hidden\" name=\"b\" value=\"");
		http_html_puts(b, be->name);
		cpha_buf_puts(b, "\"><input type=\"submit\" value=\"Apply\"></form>\n");
	}
}

static void http_html(
	struct http_daemon *hd, struct cpha_buf *b, bool admin, bool up_only, const char *st)
{
	const struct lbd_http_service *s = hd->svc;
	struct lbd_runtime *rt = hd->rt;
	char host[256] = "";
	uint64_t now = lbd_now();
	size_t i;

	cpha_buf_puts(b, "<!DOCTYPE html>\n<html><head><title>Statistics Report for lbd");
	if (s->show_node) {
		gethostname(host, sizeof(host) - 1);
		cpha_buf_puts(b, " on ");
		http_html_puts(b, s->node ? s->node : host);
	}
	cpha_buf_puts(b, "</title></head><body>\n<h1>lbd statistics");
	if (!s->hide_version)
		cpha_buf_printf(b, " (version %s)", CPHA_VERSION);
	cpha_buf_puts(b, "</h1>\n");
	if (s->show_node) {
		cpha_buf_puts(b, "<p>node: ");
		http_html_puts(b, s->node ? s->node : host);
		cpha_buf_puts(b, "</p>\n");
	}
	if (s->desc) {
		cpha_buf_puts(b, "<p>description: ");
		http_html_puts(b, s->desc);
		cpha_buf_puts(b, "</p>\n");
	}
	cpha_buf_printf(b, "<p>pid = %d; current sessions = %u; maxconn = %u</p>\n", (int)getpid(),
		atomic_load(&rt->cur), rt->maxconn);
	if (st)
		cpha_buf_printf(b, "<p class=\"st\">Action processed: %s</p>\n", st);
	if (s->show_legends)
		cpha_buf_puts(b,
			"<p>UP: checks pass; DOWN: checks fail; MAINT: set to maintenance; "
			"DRAIN: takes no new sessions</p>\n");
	for (i = 0; i < rt->nfrontends; i++) {
		struct lbd_frontend_rt *fe = rt->frontends[i];

		if (fe->removed || !http_in_scope(s, fe->name))
			continue;
		cpha_buf_puts(b, "<h2>frontend ");
		http_html_puts(b, fe->name);
		cpha_buf_printf(b,
			"</h2>\n<table class=\"px\"><tr><th>Status</th><th>Cur sessions</th>"
			"<th>Total sessions</th><th>Bytes in</th><th>Bytes out</th></tr>"
			"<tr class=\"frontend\"><td>OPEN</td><td>%u</td><td>%llu</td>"
			"<td>%llu</td><td>%llu</td></tr></table>\n",
			atomic_load(&fe->cur),
			(unsigned long long)atomic_load(&fe->cnt.sessions_total),
			(unsigned long long)atomic_load(&fe->cnt.bytes_in),
			(unsigned long long)atomic_load(&fe->cnt.bytes_out));
	}
	for (i = 0; i < rt->nbackends; i++)
		if (!rt->backends[i]->removed && http_in_scope(s, rt->backends[i]->name))
			http_html_backend(b, s, rt->backends[i], admin, up_only, now);
	cpha_buf_puts(b, "</body></html>\n");
}

/* "show stat" as the admin socket writes it, limited to stats scope. */
static void http_csv(struct http_daemon *hd, struct cpha_buf *out)
{
	struct cpha_buf all = { 0 };
	char *line, *save = NULL, *comma;

	stats_show_stat(hd->rt, &all, false);
	if (!all.data)
		return;
	cpha_buf_append(&all, "", 1);
	for (line = strtok_r(all.data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		comma = strchr(line, ',');
		if (line[0] != '#' && comma) {
			*comma = '\0';
			if (!http_in_scope(hd->svc, line)) {
				continue;
			}
			*comma = ',';
		}
		cpha_buf_printf(out, "%s\n", line);
	}
	cpha_buf_free(&all);
}

static int http_hex(int c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

/* Decode application/x-www-form-urlencoded in place. */
static void http_urldecode(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (*s == '+') {
			*o++ = ' ';
		} else if (*s == '%' && http_hex(s[1]) >= 0 && http_hex(s[2]) >= 0) {
			*o++ = (char)(http_hex(s[1]) * 16 + http_hex(s[2]));
			s += 2;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/* The admin form: b=BACKEND (or #IID) & s=SERVER... & action=ACTION.
 * Returns HAProxy's status word for ";st=". */
static const char *http_admin_post(struct http_daemon *hd, struct http_req *r)
{
	struct lbd_runtime *rt = hd->rt;
	struct lbd_backend_rt *be = NULL;
	char *body, *kv, *save = NULL, *eq, *srvs[64];
	size_t nsrv = 0, i, done = 0;
	int action = -1;
	char *end;

	if (!r->body.len)
		return "ERRP";
	cpha_buf_append(&r->body, "", 1);
	body = r->body.data;
	for (kv = strtok_r(body, "&", &save); kv; kv = strtok_r(NULL, "&", &save)) {
		eq = strchr(kv, '=');
		if (!eq)
			continue;
		*eq++ = '\0';
		http_urldecode(eq);
		if (strcmp(kv, "b") == 0) {
			if (eq[0] == '#') {
				unsigned long iid = strtoul(eq + 1, &end, 10);

				if (!*end && iid >= 1 && iid <= rt->nbackends)
					be = rt->backends[iid - 1];
			} else {
				be = runtime_backend(rt, eq);
			}
		} else if (strcmp(kv, "s") == 0 && nsrv < sizeof(srvs) / sizeof(srvs[0])) {
			srvs[nsrv++] = eq;
		} else if (strcmp(kv, "action") == 0) {
			for (action = 0; http_actions[action]; action++)
				if (strcmp(http_actions[action], eq) == 0)
					break;
			if (!http_actions[action])
				action = -1;
		}
	}
	if (!be || action < 0)
		return "ERRP";
	if (!nsrv)
		return "NONE";
	for (i = 0; i < nsrv; i++) {
		struct lbd_server *srv = runtime_server(rt, be->name, srvs[i]);

		if (!srv)
			continue;
		log_notice("stats page: %s on server %s/%s", http_actions[action], be->name,
			srv->name);
		switch (action) {
		case 0:
			server_set_admin(rt, srv, LBD_ADMIN_READY);
			break;
		case 1:
			server_set_admin(rt, srv, LBD_ADMIN_DRAIN);
			break;
		case 2:
			server_set_admin(rt, srv, LBD_ADMIN_MAINT);
			break;
		case 3:
			server_set_up(rt, srv, true, "forced up from the stats page");
			break;
		case 4:
			server_set_up(rt, srv, false, "forced down from the stats page");
			break;
		default:
			server_cut_sessions(rt, srv, "KD", false);
			break;
		}
		done++;
	}
	/* HAProxy: servers that are not in the backend make the request invalid */
	return done == nsrv ? "DONE" : done ? "PART" : "ERRP";
}

static enum MHD_Result http_stats(struct http_ctx *c, struct http_req *r, const char *method)
{
	const struct lbd_http_service *s = c->hd->svc;
	const char *rest = r->uri + strlen(s->stats_uri), *st = NULL, *realm = s->stats_realm;
	struct cpha_buf b = { 0 };
	struct MHD_Response *resp;
	enum MHD_Result ret;
	bool allowed = false, admin, csv;
	char loc[1200], refresh[32];
	size_t i;

	for (i = 0; i < s->nrules; i++) {
		const struct lbd_stats_rule *rule = &s->rules[i];

		if (!http_cond(c, rule->cond))
			continue;
		if (rule->action == LBD_STATS_DENY)
			return http_error(c->con, 403);
		if (rule->action == LBD_STATS_ALLOW) {
			allowed = true;
			break;
		}
		if (rule->realm)
			realm = rule->realm;
		goto unauthorized;
	}
	if (!allowed && s->auth.nusers && !http_users_ok(c, &s->auth))
		goto unauthorized;
	admin = s->admin && http_cond(c, s->admin);
	if (strcmp(method, "POST") == 0) {
		if (r->too_big)
			return http_error(c->con, 413);
		st = admin ? http_admin_post(c->hd, r) : "DENY";
		snprintf(loc, sizeof(loc), "%s;st=%s", s->stats_uri, st);
		return http_send(c->con, 303, "text/plain", "", 0, "Location", loc);
	}
	csv = strstr(rest, ";csv") != NULL;
	if (strstr(rest, ";st="))
		st = strstr(rest, ";st=") + 4;
	if (csv)
		http_csv(c->hd, &b);
	else
		http_html(c->hd, &b, admin, strstr(rest, ";up") != NULL,
			st); /* ;up: UP servers only */
	resp = MHD_create_response_from_buffer(
		b.len, b.data ? b.data : (void *)"", MHD_RESPMEM_MUST_COPY);
	cpha_buf_free(&b);
	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, "Content-Type", csv ? "text/plain" : "text/html");
	MHD_add_response_header(resp, "Cache-Control", "no-cache");
	if (s->refresh && !strstr(rest, ";norefresh")) { /* HAProxy: for CSV too */
		snprintf(refresh, sizeof(refresh), "%llu",
			(unsigned long long)((s->refresh + 999999ULL) / 1000000ULL));
		MHD_add_response_header(resp, "Refresh", refresh);
	}
	ret = MHD_queue_response(c->con, 200, resp);
	MHD_destroy_response(resp);
	return ret;
unauthorized:
	resp = MHD_create_response_from_buffer(
		strlen("<html><body><h1>401 Unauthorized</h1>\n"
		       "You need a valid user and password to access "
		       "this content.\n</body></html>\n"),
		(void *)"<html><body><h1>401 Unauthorized</h1>\nYou need a valid user and password "
			"to access this content.\n</body></html>\n",
		MHD_RESPMEM_PERSISTENT);
	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, "Content-Type", "text/html");
	ret = MHD_queue_basic_auth_fail_response(c->con, realm, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result http_prometheus(struct http_ctx *c)
{
	struct cpha_buf b = { 0 };
	enum MHD_Result ret;

	lbd_stats_prometheus(c->hd->rt, &b);
	ret = http_send(
		c->con, 200, "text/plain; version=0.0.4", b.data ? b.data : "", b.len, NULL, NULL);
	cpha_buf_free(&b);
	return ret;
}

static enum MHD_Result http_answer(struct http_ctx *c, struct http_req *r, const char *method)
{
	const struct lbd_http_service *s = c->hd->svc;
	size_t i, plen = strcspn(r->uri, "?");

	if (plen >= sizeof(c->path))
		plen = sizeof(c->path) - 1;
	memcpy(c->path, r->uri, plen);
	c->path[plen] = '\0';
	if (s->monitor_uri && strcmp(r->uri, s->monitor_uri) == 0) {
		for (i = 0; i < s->nmonitor_fail; i++)
			if (http_cond(c, s->monitor_fail[i]))
				return http_error(c->con, 503);
		return http_error(c->con, 200);
	}
	for (i = 0; i < s->nprom; i++)
		if (http_cond(c, s->prom[i]))
			return http_prometheus(c);
	if (s->stats && strncmp(r->uri, s->stats_uri, strlen(s->stats_uri)) == 0 &&
		http_routed(c, s))
		return http_stats(c, r, method);
	return http_error(c->con, 503);
}

static enum MHD_Result http_handler(void *cls, struct MHD_Connection *con, const char *url,
	const char *method, const char *version, const char *upload_data, size_t *upload_data_size,
	void **req_cls)
{
	struct http_daemon *hd = cls;
	struct http_req *r = *req_cls;
	struct http_ctx c;
	enum MHD_Result ret;

	(void)url;
	(void)version;
	if (!r)
		return MHD_NO;
	if (!r->started) {
		r->started = 1;
		if (strcmp(method, "POST") == 0)
			return MHD_YES; /* the body comes in the next calls */
	} else if (*upload_data_size) {
		if (r->body.len + *upload_data_size > HTTP_MAX_BODY)
			r->too_big = 1;
		else
			cpha_buf_append(&r->body, upload_data, *upload_data_size);
		*upload_data_size = 0;
		return MHD_YES;
	}
	memset(&c, 0, sizeof(c));
	c.hd = hd;
	c.con = con;
	ret = http_answer(&c, r, method);
	MHD_free(c.user);
	MHD_free(c.pass);
	return ret;
}

static void http_daemon_free(struct http_daemon *hd)
{
	if (!hd)
		return;
	sd_event_source_disable_unref(hd->io);
	sd_event_source_disable_unref(hd->timer);
	if (hd->d)
		MHD_stop_daemon(hd->d);
	free(hd);
}

static int http_start(struct lbd_runtime *rt, const struct lbd_http_service *s,
	const struct lbd_bind *bind, struct http_daemon **out)
{
	struct http_daemon *hd = calloc(1, sizeof(*hd));
	const union MHD_DaemonInfo *info;
	unsigned flags = MHD_USE_EPOLL; /* external loop: no MHD threads */
	unsigned to = s->timeout_client ? (unsigned)((s->timeout_client + 999999) / 1000000)
					: HTTP_DEFAULT_TO_SEC;
	char a[CPHA_ADDR_STRLEN];
	int r;

	if (!hd)
		return -1;
	hd->rt = rt;
	hd->svc = s;
	hd->addr = bind->addr;
	hd->port = cpha_addr_port(&bind->addr);
	if (bind->addr.ss.ss_family == AF_INET6)
		flags |= MHD_USE_DUAL_STACK; /* as HAProxy: "::" takes IPv4 too */
	hd->d = MHD_start_daemon(flags, hd->port, NULL, NULL, http_handler, hd,
		MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)&bind->addr.ss,
		MHD_OPTION_URI_LOG_CALLBACK, http_uri_cb, hd, MHD_OPTION_NOTIFY_COMPLETED,
		http_done_cb, hd, MHD_OPTION_CONNECTION_TIMEOUT, to, MHD_OPTION_CONNECTION_LIMIT,
		(unsigned)HTTP_CONN_LIMIT, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
		(unsigned)HTTP_PER_IP_LIMIT, MHD_OPTION_END);
	if (!hd->d) {
		log_err("%s:%u: %s '%s': cannot serve HTTP on %s", rt->cfg->file, bind->line,
			s->kind, s->name, cpha_addr_format(&bind->addr, a, sizeof(a)));
		free(hd);
		return -1;
	}
	info = MHD_get_daemon_info(hd->d, MHD_DAEMON_INFO_EPOLL_FD);
	r = info ? sd_event_add_io(rt->e, &hd->io, info->epoll_fd, EPOLLIN, http_on_io, hd) : -1;
	if (r >= 0)
		r = sd_event_add_time(rt->e, &hd->timer, CLOCK_MONOTONIC, 0, 0, http_on_timer, hd);
	if (r < 0) {
		log_err("%s '%s': cannot watch the HTTP server: %s", s->kind, s->name,
			strerror(r == -1 ? EINVAL : -r));
		http_daemon_free(hd);
		return -1;
	}
	sd_event_source_set_enabled(hd->timer, SD_EVENT_OFF);
	log_info("%s '%s': serving HTTP on %s", s->kind, s->name,
		cpha_addr_format(&bind->addr, a, sizeof(a)));
	*out = hd;
	return 0;
}

/* A daemon of the previous configuration listening on addr, taken out of
 * the list, or NULL. */
static struct http_daemon *http_take(const struct cpha_addr *addr)
{
	struct http_daemon *hd;
	size_t i;

	for (i = 0; i < http_ndaemons; i++) {
		hd = http_daemons[i];
		if (hd && cpha_addr_equal(&hd->addr, addr)) {
			http_daemons[i] = NULL;
			return hd;
		}
	}
	return NULL;
}

int http_apply(struct lbd_runtime *rt)
{
	struct http_daemon *hd, **keep = NULL, **slot;
	size_t i, j, nkeep = 0;
	int ret = 0;

	/* an address served before keeps its socket and its clients (lbd may
	 * no longer be allowed to bind it) and now answers for the new
	 * configuration; the others are opened, the rest closed */
	for (i = 0; rt->cfg && i < rt->cfg->nhttps; i++) {
		const struct lbd_http_service *s = rt->cfg->https[i];

		for (j = 0; j < s->nbinds; j++) {
			hd = http_take(&s->binds[j].addr);
			if (hd) {
				hd->svc = s;
			} else if (http_start(rt, s, &s->binds[j], &hd) < 0) {
				ret = -1;
				continue;
			}
			slot = cpha_array_push(&keep, &nkeep, sizeof(*slot));
			if (!slot) {
				http_daemon_free(hd);
				ret = -1;
				continue;
			}
			*slot = hd;
		}
	}
	http_close_all();
	http_daemons = keep;
	http_ndaemons = nkeep;
	return ret;
}

void http_close_all(void)
{
	size_t i;

	for (i = 0; i < http_ndaemons; i++)
		http_daemon_free(http_daemons[i]); /* NULL allowed */
	free(http_daemons);
	http_daemons = NULL;
	http_ndaemons = 0;
}
