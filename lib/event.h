/* Glue between a daemon and sd-event: signals, sd_notify and the watchdog. */
#ifndef CPHA_EVENT_H
#define CPHA_EVENT_H

#include <systemd/sd-event.h>

struct cpha_event_ops {
	/* SIGTERM or SIGINT: begin a graceful stop. NULL: sd_event_exit(e, 0). */
	void (*stop)(void *userdata, int signo);
	/* SIGHUP: reload the configuration. NULL: the signal is ignored. */
	void (*reload)(void *userdata);
};

/* Block SIGTERM, SIGINT, SIGHUP and SIGCHLD in the calling thread (call it
 * before creating threads so they inherit the mask), ignore SIGPIPE, and
 * deliver the first three through e to ops. Turns on the systemd watchdog
 * when WATCHDOG_USEC asks for it, and calls cpha_log_flush() every second
 * so rate-limit summaries come out. Returns 0 or a negative errno. */
int cpha_event_setup(sd_event *e, const struct cpha_event_ops *ops, void *userdata);

/* Fire the timer s once more, usec from now on CLOCK_MONOTONIC. A time source
 * made with sd_event_add_time*() is a one-shot: once it has fired it is
 * disabled, and moving its time alone never wakes it again. This sets the
 * time and enables it as a one-shot, from its own callback or from outside.
 * Returns 0 or a negative errno. */
int cpha_timer_rearm(sd_event_source *s, uint64_t usec);

/* Undo the signal mask of cpha_event_setup() in a child about to exec. */
void cpha_event_reset_signals(void);

/* sd_notify(3) wrappers; each is a no-op outside systemd (no NOTIFY_SOCKET).
 * status may be NULL. They return what sd_notify returns. */
int cpha_notify_ready(const char *status);
int cpha_notify_reloading(void);
int cpha_notify_stopping(void);
int cpha_notify_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
