/* Handing fencing to pacemaker-fenced: see pcmk.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <crm/common/results.h>
#include <crm/stonith-ng.h>

#include "log.h"
#include "pcmk.h"

#define MAX_REQ         64
#define EXTRA_TIMEOUT   10 /* s: past the device timeout, Pacemaker's own topology */
#define HISTORY_TIMEOUT 5  /* s: the local fencer's answer to a history query */

struct req {
	struct fenced_pcmk *p;
	int call_id;
	fenced_pcmk_done_fn done;
	void *ud;
	sd_event_source *timer;
	char node[256];
};

struct fenced_pcmk {
	sd_event *e;
	stonith_t *st;
	int fd;
	sd_event_source *io;
	struct req *req[MAX_REQ];
};

static void req_end(struct req *r, bool ok, const char *msg)
{
	struct fenced_pcmk *p = r->p;
	size_t i;

	for (i = 0; i < MAX_REQ; i++)
		if (p->req[i] == r)
			p->req[i] = NULL;
	sd_event_source_disable_unref(r->timer);
	if (r->done)
		r->done(r->ud, ok, msg);
	free(r);
}

static struct req *find(struct fenced_pcmk *p, int call_id)
{
	size_t i;

	for (i = 0; i < MAX_REQ; i++)
		if (p->req[i] && p->req[i]->call_id == call_id)
			return p->req[i];
	return NULL;
}

/* The fencer's result. userdata is the fenced_pcmk (requests are found by
 * call id, so one that timed out meanwhile is simply not found). */
static void on_result(stonith_t *st, stonith_callback_data_t *data)
{
	struct fenced_pcmk *p = data->userdata;
	struct req *r = find(p, data->call_id);
	char msg[300];

	(void)st;
	if (!r)
		return;
	snprintf(msg, sizeof(msg), "pacemaker-fenced: %s",
		data->rc == pcmk_ok ? "OK" : pcmk_strerror(data->rc));
	req_end(r, data->rc == pcmk_ok, msg);
}

static void fail_all(struct fenced_pcmk *p, const char *msg)
{
	size_t i;

	for (i = 0; i < MAX_REQ; i++)
		if (p->req[i])
			req_end(p->req[i], false, msg);
}

static void disconnect(struct fenced_pcmk *p)
{
	sd_event_source_disable_unref(p->io);
	p->io = NULL;
	if (p->st) {
		p->st->cmds->disconnect(p->st);
		stonith_api_delete(p->st);
		p->st = NULL;
	}
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *ud)
{
	struct fenced_pcmk *p = ud;

	(void)s;
	(void)fd;
	(void)revents;
	if (!stonith_dispatch(p->st)) {
		log_err("lost the connection to pacemaker-fenced");
		disconnect(p);
		fail_all(p, "lost the connection to pacemaker-fenced");
	}
	return 0;
}

static int connect_fencer(struct fenced_pcmk *p, char *why, size_t whylen)
{
	int rc, r;

	p->st = stonith_api_new();
	if (!p->st) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	rc = p->st->cmds->connect(p->st, "cpha-fenced", &p->fd);
	if (rc != pcmk_ok) {
		snprintf(why, whylen, "cannot connect to pacemaker-fenced: %s", pcmk_strerror(rc));
		stonith_api_delete(p->st);
		p->st = NULL;
		return -ECONNREFUSED;
	}
	r = sd_event_add_io(p->e, &p->io, p->fd, EPOLLIN, on_io, p);
	if (r < 0) {
		snprintf(why, whylen, "event loop: %s", strerror(-r));
		disconnect(p);
		return r;
	}
	return 0;
}

int fenced_pcmk_open(sd_event *e, struct fenced_pcmk **out, char *why, size_t whylen)
{
	struct fenced_pcmk *p = calloc(1, sizeof(*p));
	int r;

	if (!p)
		return -ENOMEM;
	p->e = e;
	p->fd = -1;
	r = connect_fencer(p, why, whylen);
	/* set even when not connected: the caller keeps the object, and
	 * fenced_pcmk_fence connects when a node must be fenced */
	*out = p;
	return r < 0 ? r : 0;
}

void fenced_pcmk_close(struct fenced_pcmk *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < MAX_REQ; i++)
		if (p->req[i]) {
			p->req[i]->done = NULL;
			req_end(p->req[i], false, "");
		}
	disconnect(p);
	free(p);
}

static int on_timeout(sd_event_source *s, uint64_t usec, void *ud)
{
	struct req *r = ud;

	(void)s;
	(void)usec;
	if (r->p->st)
		r->p->st->cmds->remove_callback(r->p->st, r->call_id, false);
	req_end(r, false, "pacemaker-fenced gave no result in time");
	return 0;
}

int fenced_pcmk_fence(struct fenced_pcmk *p, const char *node, const char *action,
	unsigned timeout_s, fenced_pcmk_done_fn done, void *ud, char *why, size_t whylen)
{
	struct req *r;
	size_t slot;
	int id, rc;

	for (slot = 0; slot < MAX_REQ && p->req[slot]; slot++)
		;
	if (slot == MAX_REQ) {
		snprintf(why, whylen, "too many requests to pacemaker-fenced at once");
		return -EBUSY;
	}
	if (!p->st && (rc = connect_fencer(p, why, whylen)) < 0)
		return rc;
	r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	/* tolerance: a fencing of this node Pacemaker itself did in the last
	 * timeout_s counts; one in flight is merged by the fencer */
	id = p->st->cmds->fence(p->st, st_opt_none, node, action, (int)timeout_s, (int)timeout_s);
	if (id < 0) {
		snprintf(why, whylen, "pacemaker-fenced refused: %s", pcmk_strerror(id));
		free(r);
		return -EIO;
	}
	r->p = p;
	r->call_id = id;
	r->done = done;
	r->ud = ud;
	snprintf(r->node, sizeof(r->node), "%s", node);
	p->req[slot] = r;
	rc = sd_event_add_time_relative(p->e, &r->timer, CLOCK_MONOTONIC,
		(uint64_t)(timeout_s + EXTRA_TIMEOUT) * 1000000ULL, 100000, on_timeout, r);
	if (rc < 0)
		log_warn("pacemaker-fenced request for %s: no timeout (%s)", node, strerror(-rc));
	p->st->cmds->register_callback(p->st, id, (int)timeout_s + EXTRA_TIMEOUT, st_opt_none, p,
		"cpha-fenced", on_result);
	return 0;
}

static uint64_t completed_us(const stonith_history_t *e)
{
	return e->completed < 0
		       ? 0
		       : (uint64_t)e->completed * 1000000u + (uint64_t)(e->completed_nsec / 1000);
}

int fenced_pcmk_fenced_since(
	struct fenced_pcmk *p, const char *node, uint64_t since_us, char *msg, size_t len)
{
	stonith_history_t *h = NULL, *best = NULL;
	struct tm tm;
	char when[32];
	int rc;

	if (!p->st && (rc = connect_fencer(p, msg, len)) < 0)
		return rc;
	rc = p->st->cmds->history(p->st, st_opt_sync_call, node, &h, HISTORY_TIMEOUT);
	if (rc != pcmk_ok) {
		snprintf(msg, len, "pacemaker-fenced's history: %s", pcmk_strerror(rc));
		stonith_history_free(h);
		return -EIO;
	}
	for (stonith_history_t *e = h; e; e = e->next)
		if (e->state == st_done && e->target && strcmp(e->target, node) == 0 && e->action &&
			(!strcmp(e->action, "off") || !strcmp(e->action, "reboot")) &&
			completed_us(e) >= since_us &&
			(!best || completed_us(e) > completed_us(best)))
			best = e;
	if (best) {
		if (!gmtime_r(&best->completed, &tm) ||
			!strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm))
			snprintf(when, sizeof(when), "%lld", (long long)best->completed);
		snprintf(msg, len, "%s of %s by %s for %s, completed %s", best->action, node,
			best->delegate ? best->delegate
			: best->origin ? best->origin
				       : "?",
			best->client ? best->client : "?", when);
	}
	stonith_history_free(h);
	return best != NULL;
}

void fenced_pcmk_forget(struct fenced_pcmk *p, void *ud)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < MAX_REQ; i++)
		if (p->req[i] && p->req[i]->ud == ud) {
			if (p->st)
				p->st->cmds->remove_callback(p->st, p->req[i]->call_id, false);
			p->req[i]->done = NULL;
			req_end(p->req[i], false, "");
		}
}
