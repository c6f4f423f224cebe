/* Logging for every cpha program: syslog levels, printf-format checking,
 * errno preserved across calls, journald "<N>" prefixes when stderr is the
 * journal, syslog otherwise, and rate limiting of repeated lines and of
 * lines sharing a reason. */
#ifndef CPHA_LOG_H
#define CPHA_LOG_H

#include <stdarg.h>
#include <stdint.h>
#include <syslog.h>

enum cpha_log_target {
	CPHA_LOG_AUTO,    /* journal if stderr is the journal, else stderr on a tty, else syslog */
	CPHA_LOG_STDERR,  /* plain lines on stderr */
	CPHA_LOG_STDOUT,  /* plain lines on stdout */
	CPHA_LOG_JOURNAL, /* "<N>" prefixed lines on stderr, for journald */
	CPHA_LOG_SYSLOG,  /* syslog(3) */
	CPHA_LOG_SINK,    /* the function given to cpha_log_set_sink() */
};

/* Receives every line that passes the level and rate limit (tests, lbd's
 * "log" targets). The line has no trailing newline. */
typedef void (*cpha_log_sink_fn)(void *userdata, int level, const char *line);

/* Returns monotonic time in microseconds (replaceable in tests). */
typedef uint64_t (*cpha_log_clock_fn)(void);

/* Choose where lines go. ident is used for syslog and stderr prefixes and
 * must outlive logging. Safe to call again (reload). With CPHA_LOG_TIME=1
 * in the environment (as systemd's SYSTEMD_LOG_TIME) plain stderr and
 * stdout lines start with the UTC time to the millisecond. */
void cpha_log_open(const char *ident, enum cpha_log_target target);

/* The target cpha_log_open() resolved to (AUTO is never returned). */
enum cpha_log_target cpha_log_target(void);

/* Lines above this syslog level are dropped (default LOG_INFO). */
void cpha_log_set_level(int level);
int cpha_log_get_level(void);

/* Parse a level name (err, warning, notice, info, debug, or a digit 0-7).
 * Returns the level or -EINVAL. */
int cpha_log_level_from_name(const char *name);

/* Send lines to fn instead (target CPHA_LOG_SINK); NULL restores stderr. */
void cpha_log_set_sink(cpha_log_sink_fn fn, void *userdata);

/* Rate limit: at most burst identical lines per interval; the rest are
 * counted and reported on the next line let through. burst 0 disables. */
void cpha_log_set_ratelimit(uint64_t interval_usec, unsigned burst);

/* Replace the clock used by the rate limiter (NULL: CLOCK_MONOTONIC). */
void cpha_log_set_clock(cpha_log_clock_fn fn);

/* Log one line about an event that outsiders can repeat at will (a packet,
 * a connection), limited by reason rather than by text: in each interval of
 * cpha_log_set_ratelimit() the first burst lines of a reason go out, the
 * rest are counted, and once the interval is over one summary line per
 * reason reports them: "<reason>: N more in the last Ts, last: <line>".
 * reason is a static string naming the kind of event ("vrrp: bad
 * checksum"); lines about different objects share it. A summary is written
 * by the first log call of any kind after its interval ends, or by
 * cpha_log_flush(), so it comes out even when the reason goes quiet.
 * Counts are never lost: a reason pushed out of the table by new ones, and
 * every pending reason on cpha_log_set_ratelimit(), is summed up first.
 * Thread-safe; errno preserved as by cpha_log(). */
void cpha_log_reason(int level, const char *reason, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void cpha_vlog_reason(int level, const char *reason, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/* Write the summary of every reason whose interval is over. Daemons need
 * not call it: cpha_event_setup() arms a timer that does, every second. */
void cpha_log_flush(void);

/* Log one line. errno is the same after the call as before, and %m works. */
void cpha_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cpha_vlog(int level, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

#define log_err(...)    cpha_log(LOG_ERR, __VA_ARGS__)
#define log_warn(...)   cpha_log(LOG_WARNING, __VA_ARGS__)
#define log_notice(...) cpha_log(LOG_NOTICE, __VA_ARGS__)
#define log_info(...)   cpha_log(LOG_INFO, __VA_ARGS__)
#define log_debug(...)  cpha_log(LOG_DEBUG, __VA_ARGS__)

#endif
