/* Self-fencing by watchdog: see watchdog.h. */
#include <errno.h>
#include <fcntl.h>
#include <linux/watchdog.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "event.h"
#include "log.h"
#include "watchdog.h"

struct fenced_wd {
	sd_event *e;
	char *device;
	uint64_t timeout;
	int fd;
	bool fifo, petting;
	uint64_t pets;
	sd_event_source *timer;
};

int fenced_wd_new(sd_event *e, const char *device, uint64_t timeout, struct fenced_wd **out)
{
	struct fenced_wd *w = calloc(1, sizeof(*w));

	if (!w || !(w->device = strdup(device))) {
		free(w);
		return -ENOMEM;
	}
	w->e = e;
	w->timeout = timeout;
	w->fd = -1;
	*out = w;
	return 0;
}

static void pet(struct fenced_wd *w)
{
	ssize_t r;

	if (w->fifo) {
		r = write(w->fd, "pet\n", 4);
	} else {
		int dummy = 0;

		r = ioctl(w->fd, WDIOC_KEEPALIVE, &dummy);
	}
	if (r < 0)
		log_warn("watchdog %s: cannot pet it: %s", w->device, strerror(errno));
	else
		w->pets++;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *ud)
{
	struct fenced_wd *w = ud;

	(void)usec;
	if (w->petting) {
		pet(w);
		cpha_timer_rearm(s, w->timeout / 3);
	}
	return 0;
}

static int arm(struct fenced_wd *w)
{
	struct stat st;
	int secs, r;

	/* O_NONBLOCK: a FIFO with no reader must not hang us (ENXIO). */
	w->fd = open(w->device, O_WRONLY | O_CLOEXEC | O_NONBLOCK);
	if (w->fd < 0)
		return -errno;
	if (fstat(w->fd, &st) == 0 && S_ISFIFO(st.st_mode)) {
		w->fifo = true;
	} else {
		secs = (int)((w->timeout + 999999) / 1000000);
		if (ioctl(w->fd, WDIOC_SETTIMEOUT, &secs) < 0)
			log_warn("watchdog %s: cannot set its timeout to %d s: %s", w->device, secs,
				strerror(errno));
		else if (secs * 1000000ULL != w->timeout)
			log_warn(
				"watchdog %s: the device chose a timeout of %d s", w->device, secs);
	}
	r = sd_event_add_time_relative(
		w->e, &w->timer, CLOCK_MONOTONIC, w->timeout / 3, 10000, on_timer, w);
	if (r < 0) {
		close(w->fd);
		w->fd = -1;
		return r;
	}
	log_notice("watchdog %s armed: timeout %.1f s; this node resets if it loses quorum",
		w->device, (double)w->timeout / 1e6);
	return 0;
}

int fenced_wd_set(struct fenced_wd *w, bool quorate)
{
	int r;

	if (!quorate) {
		if (w->petting && w->fd >= 0)
			cpha_log(LOG_CRIT,
				"quorum lost: watchdog %s no longer petted; this node resets "
				"within %.1f s",
				w->device, (double)w->timeout / 1e6);
		w->petting = false;
		return 0;
	}
	if (w->fd < 0 && (r = arm(w)) < 0)
		return r;
	if (!w->petting) {
		w->petting = true;
		pet(w);
		cpha_timer_rearm(w->timer, w->timeout / 3);
	}
	return 0;
}

bool fenced_wd_armed(const struct fenced_wd *w)
{
	return w && w->fd >= 0;
}

bool fenced_wd_petting(const struct fenced_wd *w)
{
	return w && w->petting;
}

uint64_t fenced_wd_pets(const struct fenced_wd *w)
{
	return w ? w->pets : 0;
}

void fenced_wd_free(struct fenced_wd *w, bool disarm)
{
	if (!w)
		return;
	sd_event_source_disable_unref(w->timer);
	if (w->fd >= 0) {
		if (disarm) {
			if (write(w->fd, w->fifo ? "V\n" : "V", w->fifo ? 2 : 1) < 0)
				log_warn("watchdog %s: cannot disarm it: %s", w->device,
					strerror(errno));
			else
				log_notice("watchdog %s disarmed", w->device);
		}
		close(w->fd);
	}
	free(w->device);
	free(w);
}
