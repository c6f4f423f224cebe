#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "cfg.h"
#include "clock.h"
#include "duration.h"
#include "fileio.h"
#include "http-types.h"
#include "log.h"
#include "runtime.h"
#include "server.h"
#include "server_ctl.h"
#include "server_state.h"

#define SRVSTATE_HEADER                                                                            \
	"# be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state srv_uweight "       \
	"srv_iweight srv_time_since_last_change srv_check_status srv_check_result "                \
	"srv_check_health srv_check_state srv_agent_state bk_f_forced_id srv_f_forced_id "         \
	"srv_fqdn srv_port srvrecord srv_use_ssl srv_check_port srv_check_addr srv_agent_addr "    \
	"srv_agent_port\n"

/* --- the file's text: pure --- */

void srvstate_file_free(struct srvstate_file *f)
{
	free(f->text);
	free(f->lines);
	memset(f, 0, sizeof(*f));
}

/* HAProxy's srv_state_get_version(): digits, then the end of the line. */
static int parse_version(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || len >= SRVSTATE_LINE_MAX)
		return -2;
	for (i = 0; i < len && s[i] >= '0' && s[i] <= '9'; i++)
		;
	if (i == 0 || i != len || strtol(s, NULL, 10) != SRVSTATE_VERSION)
		return -2;
	return 0;
}

/* Split one line (NUL-terminated, no newline) into fields; 1 when it
 * holds data, 0 when it is blank or a comment, -1 when it is corrupt. */
static int parse_fields(char *s, struct srvstate_line *l)
{
	char *p = s;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '#')
		return 0;
	l->n = 0;
	while (*p) {
		if (l->n == SRVSTATE_FIELDS_MAX)
			return -1;
		l->f[l->n++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
	}
	return l->n >= SRVSTATE_FIELDS_MIN ? 1 : -1;
}

int srvstate_parse(char *text, size_t len, struct srvstate_file *f, unsigned *bad)
{
	size_t off = 0, cap = 0;
	unsigned lineno = 0;
	char *nl;
	int r;

	memset(f, 0, sizeof(*f));
	f->text = text;
	*bad = 0;
	if (len == 0)
		return -1;
	while (off < len) {
		struct srvstate_line l = { 0 };

		lineno++;
		nl = memchr(text + off, '\n', len - off);
		/* no newline, a NUL inside or a line HAProxy would cut: corrupt */
		if (!nl || (size_t)(nl - (text + off)) + 1 >= SRVSTATE_LINE_MAX ||
			memchr(text + off, '\0', (size_t)(nl - (text + off)))) {
			*bad = lineno;
			return lineno == 1 ? -2 : -3;
		}
		*nl = '\0';
		if (lineno == 1) {
			if (parse_version(text + off, (size_t)(nl - (text + off))) < 0) {
				*bad = 1;
				return -2;
			}
			off = (size_t)(nl - text) + 1;
			continue;
		}
		r = parse_fields(text + off, &l);
		off = (size_t)(nl - text) + 1;
		if (r < 0) {
			*bad = lineno;
			return -3;
		}
		if (r == 0)
			continue;
		l.lineno = lineno;
		if (f->nlines == cap) {
			struct srvstate_line *n;

			cap = cap ? cap * 2 : 16;
			n = realloc(f->lines, cap * sizeof(*n));
			if (!n)
				return -ENOMEM;
			f->lines = n;
		}
		f->lines[f->nlines++] = l;
	}
	return 0;
}

struct srvstate_line *srvstate_find(struct srvstate_file *f, const char *be, const char *srv)
{
	size_t i;

	for (i = 0; i < f->nlines; i++)
		if (!f->lines[i].used && strcmp(f->lines[i].f[1], be) == 0 &&
			strcmp(f->lines[i].f[3], srv) == 0)
			return &f->lines[i];
	return NULL;
}

/* strtol as HAProxy uses it: digits at the start, the rest ignored. */
static bool num(const char *s, long min, long max, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	return end != s && errno == 0 && *out >= min && *out <= max;
}

static void bad_field(char *err, size_t len, const char *name, const char *value)
{
	size_t o = strlen(err);

	if (o < len)
		snprintf(err + o, len - o, ", invalid %s value '%s'", name, value);
}

static bool admin_valid(int a)
{
	static const int ok[] = { 0, SRVSTATE_ADM_FMAINT, SRVSTATE_ADM_CMAINT,
		SRVSTATE_ADM_CMAINT | SRVSTATE_ADM_FMAINT,
		SRVSTATE_ADM_CMAINT | SRVSTATE_ADM_FDRAIN, SRVSTATE_ADM_FDRAIN };
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (a == ok[i])
			return true;
	return false;
}

int srvstate_values(const struct srvstate_line *l, struct srvstate_vals *v, char *err, size_t len)
{
	const int chk_bits = SRVSTATE_CHK_INPROGRESS | SRVSTATE_CHK_CONFIGURED |
			     SRVSTATE_CHK_ENABLED | SRVSTATE_CHK_PAUSED | SRVSTATE_CHK_AGENT;
	char *const *p = l->f + 4;
	long x;

	memset(v, 0, sizeof(*v));
	err[0] = '\0';
	if (!num(p[1], 0, 3, &x))
		bad_field(err, len, "srv_op_state", p[1]);
	v->op = (int)x;
	/* inherited and resolution states are recomputed, as HAProxy does */
	if (!num(p[2], 0, 0xff, &x) ||
		!admin_valid((int)x & ~(SRVSTATE_ADM_IDRAIN | SRVSTATE_ADM_IMAINT |
					      SRVSTATE_ADM_RMAINT | SRVSTATE_ADM_HMAINT)))
		bad_field(err, len, "srv_admin_state", p[2]);
	v->admin = (int)x & ~(SRVSTATE_ADM_IDRAIN | SRVSTATE_ADM_IMAINT | SRVSTATE_ADM_RMAINT |
				    SRVSTATE_ADM_HMAINT);
	if (!num(p[3], 0, 256, &x))
		bad_field(err, len, "srv_uweight", p[3]);
	v->uweight = (unsigned)x;
	if (!num(p[4], 0, 256, &x))
		bad_field(err, len, "srv_iweight", p[4]);
	v->iweight = (unsigned)x;
	if (!num(p[5], 0, LONG_MAX, &x))
		bad_field(err, len, "srv_last_time_change", p[5]);
	v->since = (unsigned long)x;
	if (!num(p[6], 0, SRVSTATE_HCHK_SIZE - 1, &x))
		bad_field(err, len, "srv_check_status", p[6]);
	v->check_status = (int)x;
	if (!num(p[7], 0, 4, &x))
		bad_field(err, len, "srv_check_result", p[7]);
	v->check_result = (int)x;
	if (!num(p[8], INT_MIN, INT_MAX, &x))
		bad_field(err, len, "srv_check_health", p[8]);
	v->health = (int)x;
	if (!num(p[9], 0, INT_MAX, &x) || (x & ~chk_bits))
		bad_field(err, len, "srv_check_state", p[9]);
	v->check_state = (int)x;
	if (!num(p[10], 0, INT_MAX, &x) || (x & ~chk_bits))
		bad_field(err, len, "srv_agent_state", p[10]);
	v->agent_state = (int)x;
	if (!num(p[11], 0, 1, &x))
		bad_field(err, len, "bk_f_forced_id", p[11]);
	if (!num(p[12], 0, 1, &x))
		bad_field(err, len, "srv_f_forced_id", p[12]);
	v->fqdn = strcmp(p[13], "-") == 0 ? NULL : p[13];
	v->port = -1;
	if (num(p[14], 0, 65535, &x))
		v->port = (int)x;
	else
		bad_field(err, len, "srv_port", p[14]);
	v->addr = strcmp(p[0], "-") == 0 ? NULL : p[0];
	return err[0] ? -1 : 0;
}

void srvstate_decide(
	const struct srvstate_vals *v, const struct srvstate_target *t, struct srvstate_decision *d)
{
	unsigned rise = t->rise ? t->rise : 1, fall = t->fall ? t->fall : 1;
	int h = v->health;
	bool cmaint = v->admin & SRVSTATE_ADM_CMAINT;

	memset(d, 0, sizeof(*d));
	/* operational state and check counter (checked servers only: lbd's
	 * unchecked servers are always up) */
	d->set_up = t->checked;
	switch (v->op) {
	case SRVSTATE_OP_STOPPED:
		h = 0;
		break;
	case SRVSTATE_OP_STARTING: /* up, on its way: no STARTING with rise 1 */
		if (rise == 1)
			h = (int)(rise + fall - 1);
		else if (h < 1 || h >= (int)rise)
			h = (int)rise - 1;
		break;
	case SRVSTATE_OP_STOPPING: /* going down: none with fall 1 */
		if (fall == 1)
			h = 0;
		else if (h < (int)rise || h > (int)(rise + fall - 2))
			h = (int)rise;
		break;
	default:
		h = (int)(rise + fall - 1);
		break;
	}
	d->up = v->op != SRVSTATE_OP_STOPPED && h > 0;
	if (v->op == SRVSTATE_OP_STARTING)
		d->up = rise == 1;
	d->health = (unsigned)h;
	/* a change of 'disabled' in the configuration wins; otherwise the
	 * file's forced maintenance */
	if (cmaint != t->cfg_disabled)
		d->admin = t->cfg_disabled ? LBD_ADMIN_MAINT : LBD_ADMIN_READY;
	else
		d->admin = v->admin & SRVSTATE_ADM_FMAINT ? LBD_ADMIN_MAINT : LBD_ADMIN_READY;
	/* forced drain, unless it came from a weight of 0 the configuration
	 * has since raised */
	if (d->admin != LBD_ADMIN_MAINT && (v->admin & SRVSTATE_ADM_FDRAIN) &&
		(v->iweight > 0 || t->cfg_weight == 0))
		d->admin = LBD_ADMIN_DRAIN;
	/* the weight set at run time, unless the configured one changed */
	d->set_weight = v->iweight == t->cfg_weight;
	d->weight = v->uweight;
}

/* HAProxy 2.6's HCHK_STATUS_* and the reason lbd's checks give. */
static const char *const status_texts[SRVSTATE_HCHK_SIZE] = {
	[4] = "Health analyze",
	[5] = "Socket error",
	[6] = "Layer4 check passed",
	[7] = "Layer4 timeout",
	[8] = "Layer4 connection problem",
	[9] = "Layer6 check passed",
	[10] = "Layer6 timeout",
	[11] = "Layer6 invalid response",
	[12] = "Layer7 timeout",
	[13] = "Layer7 invalid response",
	[15] = "Layer7 check passed",
	[16] = "Layer7 check conditionally passed",
	[17] = "Layer7 wrong status",
	[18] = "External check error",
	[19] = "External check timeout",
	[20] = "External check passed",
};

const char *srvstate_status_text(int status)
{
	return status >= 0 && status < SRVSTATE_HCHK_SIZE ? status_texts[status] : NULL;
}

int srvstate_status_code(const char *reason)
{
	int i;

	if (strncmp(reason, "Layer7 wrong content", 20) == 0)
		return 17; /* L7STS: HAProxy's "wrong content" is a status too */
	if (strncmp(reason, "Layer7 resource error", 21) == 0)
		return 5;
	for (i = 0; i < SRVSTATE_HCHK_SIZE; i++)
		if (status_texts[i] &&
			strncmp(reason, status_texts[i], strlen(status_texts[i])) == 0)
			return i;
	return SRVSTATE_HCHK_INI;
}

int srvstate_status_result(int status)
{
	switch (status) {
	case 6:
	case 9:
	case 15:
	case 20:
		return SRVSTATE_RES_PASSED;
	case 16:
		return SRVSTATE_RES_CONDPASS;
	case 0:
	case 1:
	case 2:
	case 3:
		return SRVSTATE_RES_UNKNOWN;
	default:
		return SRVSTATE_RES_FAILED;
	}
}

/* --- lbd's servers --- */

/* HAProxy's proxy uuid: frontends, backends and listens numbered in the
 * order of the file after HAProxy's own internal proxy (1). */
static unsigned be_uuid(const struct lbd_config *c, const struct lbd_backend *bc)
{
	unsigned id = 2;
	size_t i;

	for (i = 0; i < c->nbackends; i++)
		id += c->backends[i].line < bc->line;
	for (i = 0; i < c->nfrontends; i++)
		id += c->frontends[i].line < bc->line && !c->frontends[i].from_listen;
	for (i = 0; i < c->nhttps; i++)
		id += c->https[i]->line < bc->line;
	return id;
}

/* The configuration of server j of be (runtime and configuration servers
 * are in the same order after a commit). */
static const struct lbd_server_cfg *srv_cfg(const struct lbd_backend *bc, size_t j)
{
	return bc && j < bc->nservers ? &bc->servers[j] : NULL;
}

static bool srv_in_maint(struct lbd_server *srv)
{
	return atomic_load(&srv->admin) == LBD_ADMIN_MAINT || atomic_load(&srv->dns_maint);
}

static int srv_op_state(struct lbd_server *srv, uint64_t now)
{
	uint64_t since = atomic_load(&srv->up_since);

	if (srv_in_maint(srv) || !atomic_load(&srv->up))
		return SRVSTATE_OP_STOPPED;
	if (srv->o.slowstart && since && now < since + srv->o.slowstart)
		return SRVSTATE_OP_STARTING;
	return SRVSTATE_OP_RUNNING;
}

static int srv_admin_state(struct lbd_server *srv)
{
	int a = 0;

	if (atomic_load(&srv->admin) == LBD_ADMIN_MAINT)
		a |= SRVSTATE_ADM_FMAINT;
	if (atomic_load(&srv->admin) == LBD_ADMIN_DRAIN)
		a |= SRVSTATE_ADM_FDRAIN;
	if (srv->o.disabled)
		a |= SRVSTATE_ADM_CMAINT;
	if (atomic_load(&srv->dns_maint))
		a |= SRVSTATE_ADM_RMAINT;
	return a;
}

/* The host name of "name:port" (HAProxy's srv_fqdn), or "-". */
static void fqdn_of(const char *hostname, char *out, size_t len)
{
	const char *colon = hostname ? strrchr(hostname, ':') : NULL;

	if (!hostname || !*hostname) {
		snprintf(out, len, "-");
		return;
	}
	snprintf(out, len, "%.*s", (int)(colon ? (size_t)(colon - hostname) : strlen(hostname)),
		hostname);
}

/* One server's line, as HAProxy 2.6's srv_state_dump_one(). */
static void put_server(struct lbd_runtime *rt, unsigned uuid, struct lbd_server *srv,
	const struct lbd_server_cfg *sc, struct cpha_buf *b)
{
	char addr[CPHA_ADDR_STRLEN], caddr[CPHA_ADDR_STRLEN], fqdn[256];
	uint64_t now = lbd_now(), last = atomic_load(&srv->last_change);
	unsigned long since;
	struct cpha_addr a;
	unsigned weight;
	uint16_t port;
	int status, chk = 0, health;

	pthread_mutex_lock(&srv->be->lock);
	a = srv->addr;
	weight = srv->o.weight;
	pthread_mutex_unlock(&srv->be->lock);
	port = cpha_addr_port(&a);
	cpha_addr_set_port(&a, 0);
	cpha_addr_format(&a, addr, sizeof(addr));
	if (strcmp(addr, "0.0.0.0") == 0 || strcmp(addr, "::") == 0)
		snprintf(addr, sizeof(addr), "-"); /* no address yet */
	if (last)
		since = (unsigned long)((now - last) / 1000000);
	else
		since = (unsigned long)((cpha_now_usec(CLOCK_REALTIME) - rt->started) / 1000000);
	status = srv->last_check[0] ? srvstate_status_code(srv->last_check) : SRVSTATE_HCHK_INI;
	if (srv->o.check)
		chk = SRVSTATE_CHK_CONFIGURED | SRVSTATE_CHK_ENABLED |
		      (srv_in_maint(srv) ? SRVSTATE_CHK_PAUSED : 0);
	health = srv_in_maint(srv) ? 0 : (int)srv->health.health;
	fqdn_of(sc ? sc->hostname : NULL, fqdn, sizeof(fqdn));
	if (srv->o.check_addr_set) {
		struct cpha_addr ca = srv->o.check_addr;

		cpha_addr_set_port(&ca, 0);
		cpha_addr_format(&ca, caddr, sizeof(caddr));
	} else {
		snprintf(caddr, sizeof(caddr), "-");
	}
	cpha_buf_printf(b, "%u %s %u %s %s %d %d %u %u %lu %d %d %d %d 0 0 0 %s %u - 0 %u %s - 0\n",
		uuid, srv->be->name, srv->id, srv->name, addr, srv_op_state(srv, now),
		srv_admin_state(srv), weight, sc ? sc->o.weight : weight, since, status,
		srvstate_status_result(status), health, chk, fqdn, port, srv->o.check_port, caddr);
}

static void put_backend(struct lbd_runtime *rt, struct lbd_backend_rt *be, struct cpha_buf *b)
{
	const struct lbd_backend *bc = runtime_backend_cfg(rt, be);
	unsigned uuid = bc ? be_uuid(rt->cfg, bc) : 0;
	size_t j;

	for (j = 0; j < be->nservers; j++)
		put_server(rt, uuid, be->servers[j], srv_cfg(bc, j), b);
}

void server_state_show(struct lbd_runtime *rt, const char *only, struct cpha_buf *reply)
{
	size_t i;

	cpha_buf_puts(reply, "1\n" SRVSTATE_HEADER);
	for (i = 0; i < rt->nbackends; i++)
		if (!rt->backends[i]->removed &&
			(!only || strcmp(only, rt->backends[i]->name) == 0))
			put_backend(rt, rt->backends[i], reply);
	cpha_buf_puts(reply, "\n");
}

/* --- reading at start --- */

/* HAProxy's srv_state_get_filepath(): name under server-state-base unless
 * absolute. -1 when too long. */
static int state_path(const struct lbd_global *g, const char *name, char *out, size_t len)
{
	size_t n;
	int r;

	if (name[0] == '/' || !g->state_base[0]) {
		r = snprintf(out, len, "%s", name);
	} else {
		n = strlen(g->state_base);
		r = snprintf(out, len, "%s%s%s", g->state_base,
			g->state_base[n - 1] == '/' ? "" : "/", name);
	}
	return r < 0 || (size_t)r >= len ? -1 : 0;
}

static const char *local_name(const struct lbd_backend *bc)
{
	return bc->state.name[0] ? bc->state.name : bc->name;
}

/* Read and parse one file; false (logged) when nothing of it applies. */
static bool read_state(const char *path, const char *who, struct srvstate_file *f)
{
	struct cpha_buf b = { 0 };
	unsigned bad;
	ssize_t n;
	int r;

	r = cpha_buf_read_file(&b, path, 0, 0);
	if (r == -ENOENT || r == -EACCES || r == -ENOTDIR || r == -ELOOP) {
		/* HAProxy 2.6's words; it warns even when the file does not exist */
		errno = -r;
		log_warn("%s: Can't open %sserver state file '%s': %m", who,
			strcmp(who, "config") == 0 ? "global " : "", path);
		cpha_buf_free(&b);
		return false;
	}
	if (r < 0) {
		log_warn("%s: cannot read server state file '%s'", who, path);
		cpha_buf_free(&b);
		return false;
	}
	n = (ssize_t)b.len;
	r = srvstate_parse(cpha_buf_steal(&b), (size_t)n, f, &bad);
	if (r == -1)
		log_notice("%s: server state file '%s' is empty", who, path);
	else if (r == -2)
		log_warn("%s:1: not a server state file of version %d: ignored (%s)", path,
			SRVSTATE_VERSION, who);
	else if (r == -3)
		log_warn("%s:%u: corrupt server state line: the whole file is ignored (%s)", path,
			bad, who);
	else if (r < 0)
		log_err("%s: out of memory reading server state file '%s'", who, path);
	if (r < 0)
		srvstate_file_free(f);
	return r == 0;
}

/* The address and port of a server that takes them from the file:
 * one given by name whose init-addr tries "last" first, or that is still
 * without an address. */
static void apply_addr(struct lbd_runtime *rt, struct lbd_server *srv,
	const struct lbd_server_cfg *sc, const struct srvstate_vals *v, const char *path,
	unsigned lineno)
{
	const uint8_t *m = sc->o.init_addr;
	bool last = sc->o.ninit_addr == 0 || m[0] == LBD_INIT_LAST, listed = last;
	struct cpha_addr a;
	const char *why;
	size_t i;

	for (i = 0; i < sc->o.ninit_addr; i++)
		listed |= m[i] == LBD_INIT_LAST;
	if (!sc->hostname || !v->addr || !(last || (listed && sc->unresolved)))
		return;
	if (cpha_parse_addr(v->addr, 0, &a, &why) < 0) {
		log_warn("%s:%u: server %s/%s: address '%s': %s; not applied", path, lineno,
			srv->be->name, srv->name, v->addr, why);
		return;
	}
	cpha_addr_set_port(&a, v->port >= 0 ? (uint16_t)v->port : cpha_addr_port(&srv->addr));
	pthread_mutex_lock(&srv->be->lock);
	srv->addr = a;
	pthread_mutex_unlock(&srv->be->lock);
	if (atomic_load(&srv->dns_maint))
		server_set_dns_maint(rt, srv, false, "address from the server-state file");
}

/* Apply one line to one server. */
static void apply_line(struct lbd_runtime *rt, struct lbd_server *srv,
	const struct lbd_server_cfg *sc, struct srvstate_line *l, const char *path)
{
	struct srvstate_target t = { 0 };
	struct srvstate_decision d;
	struct srvstate_vals v;
	const char *text;
	char err[512];
	uint64_t now = lbd_now();

	l->used = true;
	if (srvstate_values(l, &v, err, sizeof(err)) < 0) {
		log_warn("%s:%u: server-state application failed for server '%s/%s'%s", path,
			l->lineno, srv->be->name, srv->name, err);
		return;
	}
	t.rise = srv->health.rise;
	t.fall = srv->health.fall;
	t.checked = srv->o.check;
	t.cfg_disabled = sc->o.disabled;
	t.cfg_weight = sc->o.weight;
	srvstate_decide(&v, &t, &d);
	apply_addr(rt, srv, sc, &v, path, l->lineno);
	if (d.set_weight) {
		pthread_mutex_lock(&srv->be->lock);
		srv->o.weight = d.weight;
		pthread_mutex_unlock(&srv->be->lock);
	}
	server_set_admin(rt, srv, d.admin);
	if (d.set_up) {
		server_set_up(rt, srv, d.up, "state from the server-state file");
		srv->health.health = d.health;
		srv->health.up = d.up;
	}
	text = srvstate_status_text(v.check_status);
	if (text)
		snprintf(srv->last_check, sizeof(srv->last_check), "%s", text);
	atomic_store(&srv->last_change,
		now > (uint64_t)v.since * 1000000 ? now - (uint64_t)v.since * 1000000 : 1);
	backend_dispatch(srv->be);
	log_notice("%s:%u: server %s/%s: state from the server-state file: %s, weight %u", path,
		l->lineno, srv->be->name, srv->name, server_state_name(srv), srv->o.weight);
}

/* HAProxy's backend id and name check for a local file's line: false
 * when it does not belong to the backend. */
static bool local_line_ok(const struct lbd_backend *bc, unsigned uuid,
	const struct srvstate_line *l, const char *path)
{
	bool id_ok = strtoul(l->f[0], NULL, 10) == uuid, name_ok = strcmp(l->f[1], bc->name) == 0;

	if (!id_ok && !name_ok)
		return false;
	if (!id_ok)
		log_warn("%s:%u: backend '%s': backend ID mismatch: from server state file: '%s', "
			 "from running config '%u'",
			path, l->lineno, bc->name, l->f[0], uuid);
	else if (!name_ok)
		log_warn("%s:%u: backend '%s': backend name mismatch: from server state file: "
			 "'%s', from running config '%s'",
			path, l->lineno, bc->name, l->f[1], bc->name);
	return name_ok || atoi(l->f[15]) == 1;
}

/* Apply f to backend be (configuration bc): each server its line. */
static void apply_backend(struct lbd_runtime *rt, struct lbd_backend_rt *be,
	const struct lbd_backend *bc, struct srvstate_file *f, const char *path, bool local)
{
	unsigned uuid = be_uuid(rt->cfg, bc);
	struct srvstate_line *l;
	size_t i, j;

	for (i = 0; i < f->nlines; i++) {
		l = &f->lines[i];
		if (local && !l->used && !local_line_ok(bc, uuid, l, path))
			l->used = true; /* another backend's */
		if (local && !l->used)
			l->f[1] = be->name; /* matched by id: look its servers up here */
	}
	for (j = 0; j < be->nservers && j < bc->nservers; j++) {
		l = srvstate_find(f, be->name, be->servers[j]->name);
		if (l)
			apply_line(rt, be->servers[j], &bc->servers[j], l, path);
	}
	for (i = 0; i < f->nlines; i++) {
		l = &f->lines[i];
		if (!l->used && strcmp(l->f[1], be->name) == 0) {
			l->used = true;
			log_notice("%s:%u: backend '%s' has no server '%s' any more: line skipped",
				path, l->lineno, be->name, l->f[3]);
		}
	}
}

void server_state_load(struct lbd_runtime *rt)
{
	const struct lbd_global *g = &rt->cfg->global;
	struct srvstate_file gf = { 0 }, lf;
	char path[PATH_MAX], gpath[PATH_MAX] = "", who[300];
	bool have_global = false;
	size_t i;

	for (i = 0; i < rt->cfg->nbackends; i++) {
		const struct lbd_backend *bc = &rt->cfg->backends[i];
		struct lbd_backend_rt *be = runtime_backend(rt, bc->name);

		if (!be || bc->state.load == LBD_STATE_NONE || !bc->nservers)
			continue;
		if (bc->state.load == LBD_STATE_GLOBAL) {
			if (!g->state_file[0])
				continue; /* HAProxy: no global file, nothing to load */
			if (!gpath[0]) {
				if (state_path(g, g->state_file, gpath, sizeof(gpath)) < 0) {
					log_warn(
						"config: can't load global server state file: file "
						"name too long");
					snprintf(gpath, sizeof(gpath), "-");
				} else {
					have_global = read_state(gpath, "config", &gf);
				}
			}
			if (have_global)
				apply_backend(rt, be, bc, &gf, gpath, false);
			continue;
		}
		snprintf(who, sizeof(who), "backend '%s'", bc->name);
		if (state_path(g, local_name(bc), path, sizeof(path)) < 0) {
			log_warn("%s: can't load local server state file: file name too long", who);
			continue;
		}
		if (!read_state(path, who, &lf))
			continue;
		apply_backend(rt, be, bc, &lf, path, true);
		srvstate_file_free(&lf);
	}
	srvstate_file_free(&gf);
}

/* --- writing --- */

/* Directories of the files, opened before privileges are dropped so a
 * chroot does not hide them. */
static struct state_dir {
	char path[PATH_MAX];
	int fd;
} * dirs;
static size_t ndirs;

static void split_path(const char *path, char *dir, size_t dlen, const char **base)
{
	const char *slash = strrchr(path, '/');

	if (!slash) {
		snprintf(dir, dlen, ".");
		*base = path;
	} else {
		snprintf(dir, dlen, "%.*s", slash == path ? 1 : (int)(slash - path), path);
		*base = slash + 1;
	}
}

static int dir_fd(const char *dir)
{
	struct state_dir *n;
	size_t i;
	int fd;

	for (i = 0; i < ndirs; i++)
		if (strcmp(dirs[i].path, dir) == 0)
			return dirs[i].fd;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1)
		return -1;
	n = realloc(dirs, (ndirs + 1) * sizeof(*dirs));
	if (!n) {
		close(fd);
		return -1;
	}
	dirs = n;
	snprintf(dirs[ndirs].path, sizeof(dirs[ndirs].path), "%s", dir);
	dirs[ndirs++].fd = fd;
	return fd;
}

/* Warn once, at start, when the user lbd becomes cannot make files in dir. */
static void check_dir_owner(const struct lbd_global *g, int fd, const char *dir)
{
	struct stat st;

	if (g->uid == (uid_t)-1 || g->uid == 0 || fstat(fd, &st) == -1)
		return;
	if ((st.st_uid == g->uid && (st.st_mode & S_IWUSR)) ||
		(g->gid != (gid_t)-1 && st.st_gid == g->gid && (st.st_mode & S_IWGRP)) ||
		(st.st_mode & S_IWOTH))
		return;
	log_warn("server-state file directory %s is not writable by uid %u: lbd will not be "
		 "able to write its server states there after dropping privileges",
		dir, (unsigned)g->uid);
}

/* Each file of the configuration: fn(path, backend or NULL for all). */
static int each_file(struct lbd_runtime *rt,
	int (*fn)(struct lbd_runtime *rt, const char *path, const struct lbd_backend *bc))
{
	const struct lbd_global *g = &rt->cfg->global;
	char path[PATH_MAX];
	int r = 0;
	size_t i;

	if (g->state_file[0] && state_path(g, g->state_file, path, sizeof(path)) == 0)
		r |= fn(rt, path, NULL);
	for (i = 0; i < rt->cfg->nbackends; i++) {
		const struct lbd_backend *bc = &rt->cfg->backends[i];

		if (bc->state.load == LBD_STATE_LOCAL &&
			state_path(g, local_name(bc), path, sizeof(path)) == 0)
			r |= fn(rt, path, bc);
	}
	return r;
}

static int prepare_one(struct lbd_runtime *rt, const char *path, const struct lbd_backend *bc)
{
	char dir[PATH_MAX];
	const char *base;
	int fd;

	(void)bc;
	split_path(path, dir, sizeof(dir), &base);
	fd = dir_fd(dir);
	if (fd < 0) {
		log_warn("server-state file %s: directory %s: %m; lbd cannot write it", path, dir);
		return -1;
	}
	if (geteuid() == 0)
		check_dir_owner(&rt->cfg->global, fd, dir);
	return 0;
}

void server_state_prepare(struct lbd_runtime *rt)
{
	each_file(rt, prepare_one);
}

void server_state_close(void)
{
	size_t i;

	for (i = 0; i < ndirs; i++)
		close(dirs[i].fd);
	free(dirs);
	dirs = NULL;
	ndirs = 0;
}

/* Write text to dir/base through a temporary file. */
static int write_atomic(const struct lbd_global *g, int dfd, const char *base, const char *path,
	const struct cpha_buf *text)
{
	char tmp[NAME_MAX + 1];
	int fd, r = -1;

	if (snprintf(tmp, sizeof(tmp), ".%.200s.%d.tmp", base, (int)getpid()) >= (int)sizeof(tmp))
		return -1;
	unlinkat(dfd, tmp, 0);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd == -1) {
		log_err("server-state file %s: cannot create %s: %m", path, tmp);
		return -1;
	}
	/* as root, make it the user's that lbd becomes, so it can rewrite it */
	if (geteuid() == 0 && (g->uid != (uid_t)-1 || g->gid != (gid_t)-1) &&
		fchown(fd, g->uid, g->gid) == -1)
		log_warn("server-state file %s: chown %d:%d: %m", path, (int)g->uid, (int)g->gid);
	if (fchmod(fd, 0600) == -1 || cpha_write_all(fd, text->data, text->len) < 0 ||
		fsync(fd) == -1) {
		log_err("server-state file %s: cannot write %s: %m", path, tmp);
		goto out;
	}
	if (renameat(dfd, tmp, dfd, base) == -1) {
		log_err("server-state file %s: cannot rename %s: %m", path, tmp);
		goto out;
	}
	fsync(dfd);
	r = 0;
out:
	close(fd);
	if (r < 0)
		unlinkat(dfd, tmp, 0);
	return r;
}

static int save_one(struct lbd_runtime *rt, const char *path, const struct lbd_backend *bc)
{
	struct cpha_buf b = { 0 };
	char dir[PATH_MAX];
	const char *base;
	int dfd, r;

	split_path(path, dir, sizeof(dir), &base);
	dfd = dir_fd(dir);
	if (dfd < 0) {
		log_err("server-state file %s: directory %s: %m", path, dir);
		return -1;
	}
	cpha_buf_puts(&b, "1\n" SRVSTATE_HEADER);
	if (bc) {
		struct lbd_backend_rt *be = runtime_backend(rt, bc->name);

		if (be)
			put_backend(rt, be, &b);
	} else {
		size_t i;

		for (i = 0; i < rt->nbackends; i++)
			if (!rt->backends[i]->removed)
				put_backend(rt, rt->backends[i], &b);
	}
	r = b.data ? write_atomic(&rt->cfg->global, dfd, base, path, &b) : -1;
	cpha_buf_free(&b);
	return r;
}

int server_state_save(struct lbd_runtime *rt, const char *why)
{
	int r;

	if (!rt->cfg)
		return 0;
	r = each_file(rt, save_one);
	if (r == 0 && (rt->cfg->global.state_file[0] || ndirs))
		log_notice("server states written (%s)", why);
	return r ? -1 : 0;
}
