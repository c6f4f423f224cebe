#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "duration.h"
#include "log.h"
#include "session.h"
#include "tlog.h"

/* %rt: sessions logged by this process, all frontends */
static atomic_ulong tlog_sessions;

struct lbd_logger *tlog_open(
	const struct lbd_log_target *t, size_t n, const char *log_format, bool dontlog_normal)
{
	struct lbd_logger *l;
	char err[256], warn[256];
	size_t i, k = 0;
	int r;

	if (n == 0)
		return NULL;
	l = calloc(1, sizeof(*l) + n * sizeof(l->d[0]));
	if (!l)
		return NULL;
	l->dontlog_normal = dontlog_normal;
	if (log_format && lf_compile(log_format, &l->fmt, err, sizeof(err), warn, sizeof(warn)) < 0)
		log_warn("log-format: %s; logging tcplog lines", err);
	for (i = 0; i < n; i++) {
		struct cpha_logdest *d = &l->d[k];

		d->fd = -1;
		d->raw = t[i].format_raw;
		d->facility = t[i].facility;
		d->max_level = t[i].max_level;
		d->tag = "lbd";
		switch (t[i].kind) {
		case LBD_LOG_STDOUT:
			d->kind = CPHA_LOGDEST_STDOUT;
			break;
		case LBD_LOG_STDERR:
			d->kind = CPHA_LOGDEST_STDERR;
			break;
		case LBD_LOG_SYSLOG:
			if (t[i].path) {
				d->kind = CPHA_LOGDEST_UNIX;
				snprintf(d->path, sizeof(d->path), "%s", t[i].path);
			} else {
				d->kind = CPHA_LOGDEST_UDP;
				d->addr = t[i].addr;
			}
			break;
		}
		r = cpha_logdest_open(d);
		if (r < 0) {
			log_warn("traffic log destination at line %u: %s; not logging there",
				t[i].line, strerror(-r));
			continue;
		}
		k++;
	}
	l->n = k;
	return l;
}

void tlog_free(struct lbd_logger *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->n; i++)
		cpha_logdest_close(&l->d[i]);
	lf_free(&l->fmt);
	free(l);
}

bool tlog_failed(const char *term, unsigned retries, bool redispatched)
{
	/* HAProxy 2.6 stream.c: redispatch, an error past "local", or a
	 * clean end that needed retries */
	return redispatched || (term[0] != '-' && term[0] != 'L') ||
	       (term[0] == '-' && retries > 0);
}

static void format_peer(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;

	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, ip, sizeof(ip));
		port = ntohs(s6->sin6_port);
	} else if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const void *)ss;

		inet_ntop(AF_INET, &s4->sin_addr, ip, sizeof(ip));
		port = ntohs(s4->sin_port);
	}
	snprintf(buf, len, "%s:%u", ip, port);
}

static long ms_between(uint64_t from, uint64_t to)
{
	if (!from || !to || to < from)
		return -1;
	return (long)((to - from) / 1000);
}

int tlog_format(
	const struct lbd_session *s, uint64_t now_mono, uint64_t now_real, char *buf, size_t len)
{
	static const char *const mon[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug",
		"Sep", "Oct", "Nov", "Dec" };
	uint64_t accept_real = now_real - (now_mono - s->t_accept);
	time_t secs = (time_t)(accept_real / 1000000);
	/* a session closed before its backend was chosen names its frontend
	 * there, as HAProxy does */
	const struct lbd_backend_rt *be = s->be;
	char peer[INET6_ADDRSTRLEN + 8];
	struct tm tm;
	long tw, tc;

	format_peer(&s->peer, peer, sizeof(peer));
	localtime_r(&secs, &tm);
	/* %Tw: time queued, %Tc: time to connect, %Tt: total (ms, -1 if never) */
	tw = s->t_queue ? ms_between(s->t_queue, s->t_connect ? s->t_connect : now_mono) : 0;
	tc = s->t_open ? ms_between(s->t_connect, s->t_open) : -1;
	return snprintf(buf, len,
		"%s [%02d/%s/%04d:%02d:%02d:%02d.%03u] %s %s/%s %ld/%ld/%ld %llu %s "
		"%u/%u/%u/%u/%u %u/%u",
		peer, tm.tm_mday, mon[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
		tm.tm_sec, (unsigned)(accept_real / 1000 % 1000), s->fe->name,
		be ? be->name : s->fe->name,
		s->srv ? s->srv->name : "<NOSRV>", tw, tc, ms_between(s->t_accept, now_mono),
		(unsigned long long)s->s2c.bytes, s->term, (unsigned)atomic_load(&s->w->rt->cur),
		(unsigned)atomic_load(&s->fe->cur), be ? (unsigned)atomic_load(&be->cur) : 0u,
		s->srv ? s->srv->cur : 0u, s->retries_done, 0u, be ? be->queued : 0u);
}

void tlog_values(const struct lbd_session *s, uint64_t now_mono, uint64_t now_real,
	const struct sockaddr_storage *front, const struct sockaddr_storage *back,
	struct lf_values *v)
{
	const struct lbd_backend_rt *be = s->be;

	memset(v, 0, sizeof(*v));
	v->client = &s->peer;
	v->front = front;
	v->back = back;
	v->frontend = s->fe->name;
	v->backend = be ? be->name : s->fe->name;
	v->server_name = s->srv ? s->srv->name : NULL;
	v->accept_real_usec = now_real - (now_mono - s->t_accept);
	v->tw = s->t_queue ? ms_between(s->t_queue, s->t_connect ? s->t_connect : now_mono) : 0;
	v->tc = s->t_open ? ms_between(s->t_connect, s->t_open) : -1;
	v->tt = ms_between(s->t_accept, now_mono);
	v->bytes_in = s->c2s.bytes;
	v->bytes_out = s->s2c.bytes;
	v->term = s->term;
	v->ac = (unsigned)atomic_load(&s->w->rt->cur);
	v->fc = (unsigned)atomic_load(&s->fe->cur);
	v->bc = be ? (unsigned)atomic_load(&be->cur) : 0u;
	v->sc = s->srv ? s->srv->cur : 0u;
	v->rc = s->retries_done;
	v->redispatched = s->redispatched;
	v->sq = 0;
	v->bq = be ? be->queued : 0u;
}

void tlog_session(const struct lbd_session *s, uint64_t now_mono)
{
	struct lbd_logger *l = s->fp->log;
	struct sockaddr_storage front, back, server;
	socklen_t sl;
	struct lf_values v;
	struct cpha_addr dst;
	char line[1024], host[256];
	size_t i;

	if (!l || !l->n)
		return;
	if (l->dontlog_normal && !tlog_failed(s->term, s->retries_done, s->redispatched))
		return;
	if (!l->fmt.nn) {
		if (tlog_format(s, now_mono, cpha_now_usec(CLOCK_REALTIME), line, sizeof(line)) < 0)
			return;
	} else {
		sl = sizeof(front);
		if (getsockname(s->cfd, (struct sockaddr *)&front, &sl) == -1)
			front.ss_family = AF_UNSPEC;
		sl = sizeof(back);
		if (s->sfd < 0 || getsockname(s->sfd, (struct sockaddr *)&back, &sl) == -1)
			back.ss_family = AF_UNSPEC;
		tlog_values(s, now_mono, cpha_now_usec(CLOCK_REALTIME), &front, &back, &v);
		if (s->srv) {
			dst = s->srv->addr;
			if (cpha_addr_port(&dst) == 0)
				cpha_addr_set_port(&dst, s->local_port);
			memcpy(&server, &dst.ss, sizeof(server));
			v.server = &server;
		}
		if (gethostname(host, sizeof(host)) == -1)
			host[0] = '\0';
		host[sizeof(host) - 1] = '\0';
		v.hostname = host;
		v.pid = (int)getpid();
		v.log_counter = atomic_fetch_add(&l->lines, 1);
		v.session_counter = atomic_fetch_add(&tlog_sessions, 1);
		lf_render(&l->fmt, &v, line, sizeof(line));
	}
	for (i = 0; i < l->n; i++)
		cpha_logdest_send(&l->d[i], LOG_INFO, line);
}
