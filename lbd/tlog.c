#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "duration.h"
#include "log.h"
#include "session.h"
#include "tlog.h"

struct lbd_logger *tlog_open(const struct lbd_log_target *t, size_t n)
{
	struct lbd_logger *l;
	size_t i, k = 0;
	int r;

	if (n == 0)
		return NULL;
	l = calloc(1, sizeof(*l) + n * sizeof(l->d[0]));
	if (!l)
		return NULL;
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
	free(l);
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
	const struct lbd_backend_rt *be = s->fp->be;
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
		tm.tm_sec, (unsigned)(accept_real / 1000 % 1000), s->fe->name, be->name,
		s->srv ? s->srv->name : "<NOSRV>", tw, tc, ms_between(s->t_accept, now_mono),
		(unsigned long long)s->s2c.bytes, s->term, (unsigned)atomic_load(&s->w->rt->cur),
		(unsigned)atomic_load(&s->fe->cur), (unsigned)atomic_load(&be->cur),
		s->srv ? s->srv->cur : 0u, s->retries_done, 0u, be->queued);
}

void tlog_session(const struct lbd_session *s, uint64_t now_mono)
{
	struct lbd_logger *l = s->fp->log;
	char line[1024];
	size_t i;

	if (!l || !l->n)
		return;
	if (tlog_format(s, now_mono, cpha_now_usec(CLOCK_REALTIME), line, sizeof(line)) < 0)
		return;
	for (i = 0; i < l->n; i++)
		cpha_logdest_send(&l->d[i], LOG_INFO, line);
}
