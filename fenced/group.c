/* What fenced's parts share of the daemon: the clocks, node names, the
 * history ring, a line to every member of the group, and the timer of
 * decide.c's next deadline. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "fenced.h"
#include "log.h"

static uint64_t now_us(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
}

uint64_t fenced_mono(void)
{
	return now_us(CLOCK_MONOTONIC);
}

uint64_t fenced_wall(void)
{
	return now_us(CLOCK_REALTIME);
}

const char *fenced_node_name(const struct fenced *d, uint32_t id, char *buf, size_t len)
{
	size_t i = decide_find(&d->st, id);

	if (i != (size_t)-1 && d->nd[i].name[0])
		return d->nd[i].name;
	snprintf(buf, len, "node %" PRIu32, id);
	return buf;
}

void fenced_history(struct fenced *d, const char *node, const char *event, uint32_t by, int level,
	uint64_t delay, bool ok, const char *fmt, ...)
{
	struct fenced_hist *h = &d->hist[d->nhist++ % FENCED_HISTORY];
	va_list ap;

	memset(h, 0, sizeof(*h));
	h->wall = now_us(CLOCK_REALTIME);
	snprintf(h->node, sizeof(h->node), "%s", node);
	snprintf(h->event, sizeof(h->event), "%s", event);
	h->by = by;
	h->level = level;
	h->delay = delay;
	h->ok = ok;
	va_start(ap, fmt);
	vsnprintf(h->detail, sizeof(h->detail), fmt, ap);
	va_end(ap);
}

void fenced_send_line(struct fenced *d, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int n, r;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(msg))
		n = sizeof(msg) - 1;
	r = d->cs ? fenced_cs_send(d->cs, msg, (size_t)n) : -ENOTCONN;
	if (r < 0)
		log_err("cannot tell the other members '%.*s': %s", n, msg, strerror(-r));
}

void fenced_rearm(struct fenced *d, uint64_t deadline)
{
	if (deadline == DECIDE_NEVER) {
		sd_event_source_set_enabled(d->timer, SD_EVENT_OFF);
		return;
	}
	sd_event_source_set_time(d->timer, deadline);
	sd_event_source_set_enabled(d->timer, SD_EVENT_ONESHOT);
}
