#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

#define LOG_LINE_MAX 2048 /* longer lines are cut */
#define LOG_RL_SLOTS 32   /* distinct lines tracked by the rate limiter */
#define LOG_REASONS  64   /* distinct reasons tracked by cpha_log_reason() */
#define LOG_LAST_MAX 256  /* the last line held back for a reason, cut there */

struct rl_slot {
	uint64_t hash;       /* of level and text; 0 = free */
	uint64_t window;     /* start of the current interval */
	unsigned count;      /* lines seen in the current interval */
	unsigned suppressed; /* lines dropped since the last one let through */
	uint64_t last;       /* last time seen, for eviction */
};

/* One reason of cpha_log_reason(). */
struct reason_slot {
	const char *reason;      /* the caller's static key; NULL = free */
	int level;               /* most severe level held back */
	uint64_t window;         /* start of the current interval */
	uint64_t used;           /* last time seen, for eviction */
	unsigned count;          /* lines seen in the current interval */
	unsigned long long held; /* lines held back since the last summary */
	char last[LOG_LAST_MAX]; /* the last of them */
};

static struct {
	pthread_mutex_t lock;
	const char *ident;
	enum cpha_log_target target;
	int level;
	cpha_log_sink_fn sink;
	void *sink_ud;
	cpha_log_clock_fn clock;
	uint64_t rl_interval;
	unsigned rl_burst;
	struct rl_slot rl[LOG_RL_SLOTS];
	struct reason_slot reasons[LOG_REASONS];
	uint64_t summary_due; /* earliest end of an interval with lines held back */
	int time_prefix;      /* CPHA_LOG_TIME: plain lines start with the UTC time */
} L = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.ident = "cpha",
	.target = CPHA_LOG_STDERR,
	.level = LOG_INFO,
	.rl_interval = 10 * 1000000ULL,
	.rl_burst = 5,
	.summary_due = UINT64_MAX,
};

static const char *const level_names[] = {
	"emerg",
	"alert",
	"crit",
	"err",
	"warning",
	"notice",
	"info",
	"debug",
};

static void summaries(uint64_t now, int force);

static uint64_t now_usec(void)
{
	struct timespec ts;

	if (L.clock)
		return L.clock();
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
}

/* systemd sets JOURNAL_STREAM=dev:ino for the stream it connected. */
static int stderr_is_journal(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2)
		return 0;
	if (fstat(STDERR_FILENO, &st) == -1)
		return 0;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

/* CPHA_LOG_TIME=1, as systemd's SYSTEMD_LOG_TIME: a daemon whose stderr
 * goes to a plain file (a test bed, a container's log) says when. */
static int time_wanted(void)
{
	const char *e = getenv("CPHA_LOG_TIME");

	return e && (!strcmp(e, "1") || !strcmp(e, "yes") || !strcmp(e, "true"));
}

void cpha_log_open(const char *ident, enum cpha_log_target target)
{
	int saved = errno;

	pthread_mutex_lock(&L.lock);
	if (L.target == CPHA_LOG_SYSLOG)
		closelog();
	L.ident = ident ? ident : "cpha";
	L.time_prefix = time_wanted();
	if (target == CPHA_LOG_AUTO) {
		if (stderr_is_journal())
			target = CPHA_LOG_JOURNAL;
		else if (isatty(STDERR_FILENO))
			target = CPHA_LOG_STDERR;
		else
			target = CPHA_LOG_SYSLOG;
	}
	L.target = target;
	if (target == CPHA_LOG_SYSLOG)
		openlog(L.ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
	pthread_mutex_unlock(&L.lock);
	errno = saved;
}

enum cpha_log_target cpha_log_target(void)
{
	return L.target;
}

void cpha_log_set_level(int level)
{
	if (level < LOG_EMERG)
		level = LOG_EMERG;
	if (level > LOG_DEBUG)
		level = LOG_DEBUG;
	L.level = level;
}

int cpha_log_get_level(void)
{
	return L.level;
}

int cpha_log_level_from_name(const char *name)
{
	static const struct {
		const char *name;
		int level;
	} aliases[] = { { "error", LOG_ERR }, { "warn", LOG_WARNING } };
	size_t i;

	if (name[0] >= '0' && name[0] <= '7' && name[1] == '\0')
		return name[0] - '0';
	for (i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++)
		if (strcmp(name, level_names[i]) == 0)
			return (int)i;
	for (i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (strcmp(name, aliases[i].name) == 0)
			return aliases[i].level;
	return -EINVAL;
}

void cpha_log_set_sink(cpha_log_sink_fn fn, void *userdata)
{
	pthread_mutex_lock(&L.lock);
	L.sink = fn;
	L.sink_ud = userdata;
	L.target = fn ? CPHA_LOG_SINK : CPHA_LOG_STDERR;
	pthread_mutex_unlock(&L.lock);
}

void cpha_log_set_ratelimit(uint64_t interval_usec, unsigned burst)
{
	int saved = errno;

	pthread_mutex_lock(&L.lock);
	summaries(now_usec(), 1);
	L.rl_interval = interval_usec;
	L.rl_burst = burst;
	memset(L.rl, 0, sizeof(L.rl));
	memset(L.reasons, 0, sizeof(L.reasons));
	L.summary_due = UINT64_MAX;
	pthread_mutex_unlock(&L.lock);
	errno = saved;
}

void cpha_log_set_clock(cpha_log_clock_fn fn)
{
	L.clock = fn;
}

static uint64_t line_hash(int level, const char *s)
{
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)level; /* FNV-1a */

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h ? h : 1;
}

/* Decide under L.lock whether a line goes out. *suppressed receives how many
 * copies were dropped before this one. */
static int ratelimit_pass(int level, const char *line, uint64_t now, unsigned *suppressed)
{
	uint64_t h;
	struct rl_slot *s = NULL, *victim = &L.rl[0];
	size_t i;

	*suppressed = 0;
	if (L.rl_burst == 0)
		return 1;
	h = line_hash(level, line);
	for (i = 0; i < LOG_RL_SLOTS; i++) {
		if (L.rl[i].hash == h) {
			s = &L.rl[i];
			break;
		}
		if (L.rl[i].last < victim->last)
			victim = &L.rl[i];
	}
	if (!s) {
		s = victim;
		memset(s, 0, sizeof(*s));
		s->hash = h;
		s->window = now;
	}
	s->last = now;
	if (now - s->window >= L.rl_interval) {
		s->window = now;
		s->count = 0;
	}
	if (++s->count > L.rl_burst) {
		s->suppressed++;
		return 0;
	}
	*suppressed = s->suppressed;
	s->suppressed = 0;
	return 1;
}

static void emit(FILE *f, int level, int journal, const char *line)
{
	char when[64] = "";

	if (journal) {
		fprintf(f, "<%d>%s\n", level, line);
		fflush(f);
		return;
	}
	if (L.time_prefix) {
		struct timespec ts;
		struct tm tm;

		clock_gettime(CLOCK_REALTIME, &ts);
		gmtime_r(&ts.tv_sec, &tm);
		snprintf(when, sizeof(when), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ ",
			tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
			tm.tm_sec, (long)(ts.tv_nsec / 1000000) % 1000);
	}
	fprintf(f, "%s%s[%d]: %s: %s\n", when, L.ident, (int)getpid(), level_names[level], line);
	fflush(f);
}

/* Write one line to the target, under L.lock. */
static void output(int level, const char *out)
{
	switch (L.target) {
	case CPHA_LOG_SINK:
		if (L.sink) {
			L.sink(L.sink_ud, level, out);
			break;
		}
		/* fall through */
	case CPHA_LOG_AUTO:
	case CPHA_LOG_STDERR:
		emit(stderr, level, 0, out);
		break;
	case CPHA_LOG_STDOUT:
		emit(stdout, level, 0, out);
		break;
	case CPHA_LOG_JOURNAL:
		emit(stderr, level, 1, out);
		break;
	case CPHA_LOG_SYSLOG:
		syslog(level, "%s", out);
		break;
	}
}

/* Under L.lock: the one line that sums up what r held back. */
static void summary(struct reason_slot *r, uint64_t now)
{
	char line[LOG_LINE_MAX];
	uint64_t secs = (now - r->window + 500000) / 1000000;

	snprintf(line, sizeof(line), "%s: %llu more in the last %llus, last: %s", r->reason,
		r->held, (unsigned long long)(secs ? secs : 1), r->last);
	output(r->level, line);
	r->held = 0;
}

/* Under L.lock: write the summary of every reason with lines held back
 * whose interval is over (all of them with force), and work out when the
 * next one is due. Cheap when none is due: one comparison. */
static void summaries(uint64_t now, int force)
{
	struct reason_slot *r;
	size_t i;

	if (!force && now < L.summary_due)
		return;
	L.summary_due = UINT64_MAX;
	for (i = 0; i < LOG_REASONS; i++) {
		r = &L.reasons[i];
		if (!r->reason || r->held == 0)
			continue;
		if (!force && now - r->window < L.rl_interval) {
			if (r->window + L.rl_interval < L.summary_due)
				L.summary_due = r->window + L.rl_interval;
			continue;
		}
		summary(r, now);
	}
}

/* Under L.lock: the slot of reason, taking a free or the least recently
 * used one (whose held lines are summed up first). */
static struct reason_slot *reason_slot(const char *reason, uint64_t now)
{
	struct reason_slot *r, *victim = NULL;
	size_t i;

	for (i = 0; i < LOG_REASONS; i++) {
		r = &L.reasons[i];
		if (r->reason && (r->reason == reason || strcmp(r->reason, reason) == 0))
			return r;
		if (!victim || (victim->reason && (!r->reason || r->used < victim->used)))
			victim = r;
	}
	if (victim->reason && victim->held)
		summary(victim, now);
	memset(victim, 0, sizeof(*victim));
	victim->reason = reason;
	victim->window = now;
	return victim;
}

/* Clamps *level and formats the line, or returns 0 when the level is
 * filtered out. Nothing here touches errno before vsnprintf, so %m reads
 * the caller's. */
static int format_line(int *level, char *line, size_t size, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

static int format_line(int *level, char *line, size_t size, const char *fmt, va_list ap)
{
	if (*level < LOG_EMERG)
		*level = LOG_EMERG;
	if (*level > L.level)
		return 0;
	vsnprintf(line, size, fmt, ap);
	return 1;
}

void cpha_vlog(int level, const char *fmt, va_list ap)
{
	int saved = errno;
	char line[LOG_LINE_MAX], full[LOG_LINE_MAX + 64];
	const char *out = line;
	unsigned suppressed;
	uint64_t now;

	if (!format_line(&level, line, sizeof(line), fmt, ap))
		return;

	pthread_mutex_lock(&L.lock);
	now = now_usec();
	summaries(now, 0);
	if (!ratelimit_pass(level, line, now, &suppressed))
		goto out;
	if (suppressed) {
		snprintf(full, sizeof(full), "%s (%u similar lines suppressed)", line, suppressed);
		out = full;
	}
	output(level, out);
out:
	pthread_mutex_unlock(&L.lock);
	errno = saved;
}

void cpha_vlog_reason(int level, const char *reason, const char *fmt, va_list ap)
{
	int saved = errno;
	char line[LOG_LINE_MAX];
	struct reason_slot *r;
	uint64_t now;
	size_t n;

	if (!format_line(&level, line, sizeof(line), fmt, ap))
		return;

	if (!reason)
		reason = "(no reason)";
	pthread_mutex_lock(&L.lock);
	now = now_usec();
	summaries(now, 0);
	if (L.rl_burst == 0) {
		output(level, line);
		goto out;
	}
	r = reason_slot(reason, now);
	r->used = now;
	/* held lines of an interval that is over were summed up just above */
	if (now - r->window >= L.rl_interval) {
		r->window = now;
		r->count = 0;
	}
	if (r->count < L.rl_burst) {
		r->count++;
		output(level, line);
		goto out;
	}
	if (r->held++ == 0) {
		r->level = level;
		if (r->window + L.rl_interval < L.summary_due)
			L.summary_due = r->window + L.rl_interval;
	}
	if (level < r->level)
		r->level = level;
	n = strnlen(line, sizeof(r->last) - 1);
	memcpy(r->last, line, n);
	r->last[n] = '\0';
out:
	pthread_mutex_unlock(&L.lock);
	errno = saved;
}

void cpha_log_reason(int level, const char *reason, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cpha_vlog_reason(level, reason, fmt, ap);
	va_end(ap);
}

void cpha_log_flush(void)
{
	int saved = errno;

	pthread_mutex_lock(&L.lock);
	summaries(now_usec(), 0);
	pthread_mutex_unlock(&L.lock);
	errno = saved;
}

void cpha_log(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cpha_vlog(level, fmt, ap);
	va_end(ap);
}
