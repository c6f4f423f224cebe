/* libcurl's multi interface on sd-event: curl says which sockets to watch
 * and when to time out (CURLMOPT_SOCKETFUNCTION, CURLMOPT_TIMERFUNCTION);
 * sd-event sources report back with curl_multi_socket_action(). */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <curl/curl.h>
#include <systemd/sd-event.h>

#include "duration.h"
#include "event.h"
#include "curl_event.h"
#include "log.h"

/* Hand finished transfers to their owners. */
static void cpha__curl_check_done(struct cpha_curl_multi *c)
{
	CURLMsg *msg;
	int left;

	while ((msg = curl_multi_info_read(c->multi, &left))) {
		struct cpha_curl_xfer *x = NULL;
		CURLcode result;

		if (msg->msg != CURLMSG_DONE)
			continue;
		result = msg->data.result;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&x);
		curl_multi_remove_handle(c->multi, msg->easy_handle);
		if (x && x->done)
			x->done(x, result);
	}
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct cpha_curl_multi *c = userdata;
	int flags = 0, running;

	(void)s;
	if (revents & EPOLLIN)
		flags |= CURL_CSELECT_IN;
	if (revents & EPOLLOUT)
		flags |= CURL_CSELECT_OUT;
	if (revents & (EPOLLERR | EPOLLHUP))
		flags |= CURL_CSELECT_ERR;
	curl_multi_socket_action(c->multi, fd, flags, &running);
	cpha__curl_check_done(c);
	return 0;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct cpha_curl_multi *c = userdata;
	int running;

	(void)s;
	(void)usec;
	curl_multi_socket_action(c->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	cpha__curl_check_done(c);
	return 0;
}

/* CURLMOPT_SOCKETFUNCTION: watch fd as curl asks; sp is its sd-event source. */
static int on_socket(CURL *h, curl_socket_t fd, int what, void *userp, void *sp)
{
	struct cpha_curl_multi *c = userp;
	sd_event_source *src = sp;
	uint32_t events = 0;
	int r;

	(void)h;
	if (what == CURL_POLL_REMOVE) {
		if (src) {
			sd_event_source_disable_unref(src);
			curl_multi_assign(c->multi, fd, NULL);
		}
		return 0;
	}
	if (what & CURL_POLL_IN)
		events |= EPOLLIN;
	if (what & CURL_POLL_OUT)
		events |= EPOLLOUT;
	if (src) {
		r = sd_event_source_set_io_events(src, events);
		if (r >= 0)
			r = sd_event_source_set_enabled(src, SD_EVENT_ON);
	} else {
		r = sd_event_add_io(c->e, &src, fd, events, on_io, c);
		if (r >= 0)
			curl_multi_assign(c->multi, fd, src);
	}
	if (r < 0) {
		log_err("curl: watching socket %d: %s", fd, strerror(-r));
		return -1;
	}
	return 0;
}

/* CURLMOPT_TIMERFUNCTION: -1 stops the timer, else fire in timeout_ms. */
static int on_curl_timer(CURLM *m, long timeout_ms, void *userp)
{
	struct cpha_curl_multi *c = userp;

	(void)m;
	if (timeout_ms < 0)
		return sd_event_source_set_enabled(c->timer, SD_EVENT_OFF) < 0 ? -1 : 0;
	return cpha_timer_rearm(c->timer, (uint64_t)timeout_ms * CPHA_USEC_PER_MSEC) < 0 ? -1 : 0;
}

int cpha_curl_multi_init(struct cpha_curl_multi *c, sd_event *e)
{
	int r;

	c->e = e;
	c->multi = curl_multi_init();
	if (!c->multi)
		return -ENOMEM;
	/* accuracy 1 us: sd-event's default (0) lets a timer slip by 250 ms */
	r = sd_event_add_time_relative(e, &c->timer, CLOCK_MONOTONIC, 0, 1, on_timer, c);
	if (r < 0) {
		cpha_curl_multi_free(c);
		return r;
	}
	sd_event_source_set_enabled(c->timer, SD_EVENT_OFF);
	curl_multi_setopt(c->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
	curl_multi_setopt(c->multi, CURLMOPT_SOCKETDATA, c);
	curl_multi_setopt(c->multi, CURLMOPT_TIMERFUNCTION, on_curl_timer);
	curl_multi_setopt(c->multi, CURLMOPT_TIMERDATA, c);
	return 0;
}

int cpha_curl_multi_add(struct cpha_curl_multi *c, struct cpha_curl_xfer *x)
{
	curl_easy_setopt(x->h, CURLOPT_PRIVATE, x);
	return curl_multi_add_handle(c->multi, x->h) == CURLM_OK ? 0 : -EIO;
}

void cpha_curl_multi_remove(struct cpha_curl_multi *c, struct cpha_curl_xfer *x)
{
	curl_multi_remove_handle(c->multi, x->h);
}

void cpha_curl_multi_free(struct cpha_curl_multi *c)
{
	if (c->multi)
		curl_multi_cleanup(c->multi);
	c->multi = NULL;
	c->timer = sd_event_source_disable_unref(c->timer);
}
