#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "logdest.h"

int cpha_logdest_facility(const char *name)
{
	static const struct {
		const char *name;
		int code;
	} f[] = {
		{ "kern", LOG_KERN },
		{ "user", LOG_USER },
		{ "mail", LOG_MAIL },
		{ "daemon", LOG_DAEMON },
		{ "auth", LOG_AUTH },
		{ "syslog", LOG_SYSLOG },
		{ "lpr", LOG_LPR },
		{ "news", LOG_NEWS },
		{ "uucp", LOG_UUCP },
		{ "cron", LOG_CRON },
		{ "auth2", LOG_AUTHPRIV },
		{ "ftp", LOG_FTP },
		{ "ntp", 12 << 3 },
		{ "audit", 13 << 3 },
		{ "alert", 14 << 3 },
		{ "cron2", 15 << 3 },
		{ "local0", LOG_LOCAL0 },
		{ "local1", LOG_LOCAL1 },
		{ "local2", LOG_LOCAL2 },
		{ "local3", LOG_LOCAL3 },
		{ "local4", LOG_LOCAL4 },
		{ "local5", LOG_LOCAL5 },
		{ "local6", LOG_LOCAL6 },
		{ "local7", LOG_LOCAL7 },
	};
	size_t i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (strcmp(name, f[i].name) == 0)
			return f[i].code;
	return -EINVAL;
}

int cpha_logdest_open(struct cpha_logdest *d)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	switch (d->kind) {
	case CPHA_LOGDEST_STDOUT:
		d->fd = STDOUT_FILENO;
		return 0;
	case CPHA_LOGDEST_STDERR:
		d->fd = STDERR_FILENO;
		return 0;
	case CPHA_LOGDEST_UNIX:
		fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd == -1)
			return -errno;
		snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", d->path);
		if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
			int r = -errno;

			close(fd);
			return r;
		}
		d->fd = fd;
		return 0;
	case CPHA_LOGDEST_UDP:
		fd = socket(d->addr.ss.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd == -1)
			return -errno;
		if (connect(fd, (struct sockaddr *)&d->addr.ss, d->addr.len) == -1) {
			int r = -errno;

			close(fd);
			return r;
		}
		d->fd = fd;
		return 0;
	}
	return -EINVAL;
}

int cpha_logdest_send(struct cpha_logdest *d, int level, const char *msg)
{
	static const char *const mon[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug",
		"Sep", "Oct", "Nov", "Dec" };
	char line[2048], host[64] = "-";
	struct tm tm;
	time_t now;
	int n, stream;
	ssize_t w;

	if (level > d->max_level || d->fd == -1)
		return 0;
	stream = d->kind == CPHA_LOGDEST_STDOUT || d->kind == CPHA_LOGDEST_STDERR;
	if (d->raw) {
		n = snprintf(line, sizeof(line), "%s%s", msg, stream ? "\n" : "");
	} else {
		/* RFC 3164: <PRI>Mmm dd hh:mm:ss host tag[pid]: msg */
		now = time(NULL);
		localtime_r(&now, &tm);
		gethostname(host, sizeof(host) - 1);
		n = snprintf(line, sizeof(line), "<%d>%s %2d %02d:%02d:%02d %s %s[%d]: %s%s",
			d->facility | level, mon[tm.tm_mon], tm.tm_mday, tm.tm_hour, tm.tm_min,
			tm.tm_sec, host, d->tag ? d->tag : "cpha", (int)getpid(), msg,
			stream ? "\n" : "");
	}
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= sizeof(line)) {
		n = sizeof(line) - 1;
		if (stream)
			line[n - 1] = '\n';
	}
	/* one write per line: lines from several threads never interleave */
	do
		w = stream ? write(d->fd, line, (size_t)n)
			   : send(d->fd, line, (size_t)n, MSG_DONTWAIT);
	while (w == -1 && errno == EINTR);
	if (w == -1)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	return 0;
}

void cpha_logdest_close(struct cpha_logdest *d)
{
	if (d->fd > STDERR_FILENO)
		close(d->fd);
	d->fd = -1;
}
