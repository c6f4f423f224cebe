#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "clock.h"
#include "log.h"
#include "quiet.h"
#include "quiet_ctl.h"
#include "stats.h"
#include "worker.h"

static int on_quiet_end(sd_event_source *s, uint64_t usec, void *userdata);

/* Give every worker the program of the set as it is now, and arm the
 * timer for the next end. */
static void publish(struct lbd_runtime *rt)
{
	struct lbd_quiet_prog *p = quiet_prog_new(rt->quiet);
	uint64_t end = quiet_next_end(rt->quiet);
	unsigned w;

	if (!p) {
		log_err("quiesce: out of memory: the listeners keep their filter");
		return;
	}
	for (w = 0; w < rt->nworkers; w++) {
		quiet_prog_ref(p);
		worker_post(&rt->workers[w], LBD_MSG_QUIET, p, NULL, 0);
	}
	quiet_prog_unref(p);
	if (!rt->e)
		return; /* no loop (the unit tests' runtime) */
	if (end == UINT64_MAX) {
		if (rt->quiet_timer)
			sd_event_source_set_enabled(rt->quiet_timer, SD_EVENT_OFF);
		return;
	}
	if (!rt->quiet_timer) {
		if (sd_event_add_time(rt->e, &rt->quiet_timer, CLOCK_MONOTONIC, end, 1000,
			    on_quiet_end, rt) < 0)
			log_err("quiesce: cannot arm the timer that ends it");
		return;
	}
	sd_event_source_set_time(rt->quiet_timer, end);
	sd_event_source_set_enabled(rt->quiet_timer, SD_EVENT_ONESHOT);
}

static int on_quiet_end(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct lbd_runtime *rt = userdata;

	(void)s;
	(void)usec;
	if (!rt->quiet)
		return 0;
	if (quiet_expire(rt->quiet, lbd_now())) {
		log_notice("quiesce: time ran out; %zu address%s still quiet", rt->quiet->n,
			rt->quiet->n == 1 ? "" : "es");
		publish(rt);
		return 0;
	}
	/* woken early: the workers' filter stands, only the timer is armed again */
	sd_event_source_set_time(rt->quiet_timer, quiet_next_end(rt->quiet));
	sd_event_source_set_enabled(rt->quiet_timer, SD_EVENT_ONESHOT);
	return 0;
}

int quiet_ctl_add(struct lbd_runtime *rt, const struct cpha_addr *a, size_t n, unsigned ms)
{
	struct lbd_quiet next;
	uint64_t until = lbd_now() + (uint64_t)ms * 1000;
	char t[CPHA_ADDR_STRLEN];
	size_t i;
	int r;

	if (!rt->quiet && !(rt->quiet = calloc(1, sizeof(*rt->quiet))))
		return -ENOMEM;
	next = *rt->quiet;
	for (i = 0; i < n; i++)
		if ((r = quiet_add(&next, &a[i], until)) < 0)
			return r;
	*rt->quiet = next;
	for (i = 0; i < n; i++)
		log_notice("quiesce: new connections to %s dropped for %u ms at most",
			cpha_addr_format(&a[i], t, sizeof(t)), ms);
	publish(rt);
	return 0;
}

size_t quiet_ctl_remove(struct lbd_runtime *rt, const struct cpha_addr *a, size_t n)
{
	char t[CPHA_ADDR_STRLEN];
	size_t i, gone = 0;

	if (!rt->quiet || !rt->quiet->n)
		return 0;
	if (!n) {
		gone = rt->quiet->n;
		rt->quiet->n = 0;
		log_notice("quiesce: every address open again");
	}
	for (i = 0; i < n; i++)
		if (quiet_remove(rt->quiet, &a[i])) {
			gone++;
			log_notice("quiesce: %s open again", cpha_addr_format(&a[i], t, sizeof(t)));
		}
	if (gone)
		publish(rt);
	return gone;
}

void quiet_ctl_show(struct lbd_runtime *rt, struct cpha_buf *reply, bool json)
{
	uint64_t now = lbd_now();
	char t[CPHA_ADDR_STRLEN];
	json_t *arr = json ? json_array() : NULL;
	size_t i, n = rt->quiet ? rt->quiet->n : 0;

	for (i = 0; i < n; i++) {
		const struct lbd_quiet_entry *e = &rt->quiet->e[i];
		unsigned long long left = e->until > now ? (e->until - now) / 1000 : 0;

		cpha_addr_format(&e->addr, t, sizeof(t));
		if (arr)
			json_array_append_new(arr,
				json_pack("{s:s,s:I}", "address", t, "left_ms", (json_int_t)left));
		else
			cpha_buf_printf(reply, "%s %llu\n", t, left);
	}
	if (arr)
		stats_put_json(reply, json_pack("{s:o}", "quiet", arr));
	else if (!n)
		cpha_buf_puts(reply, "\n");
}
