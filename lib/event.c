#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <systemd/sd-daemon.h>

#include "event.h"
#include "log.h"

#define LOG_FLUSH_USEC 1000000ULL /* how often log summaries are looked at */

struct event_glue {
	sd_event *e;
	struct cpha_event_ops ops;
	void *userdata;
	int refs; /* signal sources using this glue */
};

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	struct event_glue *g = userdata;
	int signo = (int)si->ssi_signo;

	(void)s;
	if (signo == SIGHUP) {
		if (g->ops.reload)
			g->ops.reload(g->userdata);
		else
			log_notice("SIGHUP ignored: nothing to reload");
		return 0;
	}
	if (g->ops.stop)
		g->ops.stop(g->userdata, signo);
	else
		sd_event_exit(g->e, 0);
	return 0;
}

/* Rate-limit summaries of cpha_log_reason() come out even when nothing else
 * is logged. */
static int on_log_flush(sd_event_source *s, uint64_t usec, void *userdata)
{
	(void)usec;
	(void)userdata;
	cpha_log_flush();
	return cpha_timer_rearm(s, LOG_FLUSH_USEC);
}

static void glue_free(void *userdata)
{
	struct event_glue *g = userdata;

	if (--g->refs == 0)
		free(g);
}

int cpha_event_setup(sd_event *e, const struct cpha_event_ops *ops, void *userdata)
{
	static const int handled[] = { SIGTERM, SIGINT, SIGHUP };
	struct event_glue *g;
	sd_event_source *src;
	sigset_t mask;
	size_t i;
	int r;

	sigemptyset(&mask);
	for (i = 0; i < sizeof(handled) / sizeof(handled[0]); i++)
		sigaddset(&mask, handled[i]);
	sigaddset(&mask, SIGCHLD);
	r = pthread_sigmask(SIG_BLOCK, &mask, NULL);
	if (r)
		return -r;
	signal(SIGPIPE, SIG_IGN);

	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->e = e;
	if (ops)
		g->ops = *ops;
	g->userdata = userdata;
	for (i = 0; i < sizeof(handled) / sizeof(handled[0]); i++) {
		r = sd_event_add_signal(e, &src, handled[i], on_signal, g);
		if (r < 0)
			goto fail;
		g->refs++;
		sd_event_source_set_destroy_callback(src, glue_free);
		sd_event_source_set_floating(src, 1);
		sd_event_source_unref(src);
	}
	r = sd_event_add_time_relative(
		e, &src, CLOCK_MONOTONIC, LOG_FLUSH_USEC, LOG_FLUSH_USEC / 10, on_log_flush, NULL);
	if (r < 0)
		return r;
	sd_event_source_set_floating(src, 1);
	sd_event_source_unref(src);
	r = sd_event_set_watchdog(e, 1);
	if (r < 0)
		return r;
	return 0;
fail:
	if (g->refs == 0)
		free(g);
	return r;
}

int cpha_timer_rearm(sd_event_source *s, uint64_t usec)
{
	int r;

	r = sd_event_source_set_time_relative(s, usec);
	if (r < 0)
		return r;
	return sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

void cpha_event_reset_signals(void)
{
	sigset_t none;
	int s;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			signal(s, SIG_DFL);
}

int cpha_notify_ready(const char *status)
{
	if (status)
		return sd_notifyf(0, "READY=1\nSTATUS=%s", status);
	return sd_notify(0, "READY=1");
}

int cpha_notify_reloading(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	/* MONOTONIC_USEC is what systemd 253+ wants with Type=notify-reload */
	return sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu",
		(unsigned long long)ts.tv_sec * 1000000ULL + (unsigned long long)ts.tv_nsec / 1000);
}

int cpha_notify_stopping(void)
{
	return sd_notify(0, "STOPPING=1");
}

int cpha_notify_status(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	return sd_notifyf(0, "STATUS=%s", line);
}
