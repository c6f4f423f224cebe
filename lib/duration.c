#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "duration.h"

static const struct {
	const char *name;
	uint64_t usec;
} units[] = {
	{ "us", 1 },
	{ "ms", CPHA_USEC_PER_MSEC },
	{ "s", CPHA_USEC_PER_SEC },
	{ "m", 60 * CPHA_USEC_PER_SEC },
	{ "h", 3600 * CPHA_USEC_PER_SEC },
	{ "d", 86400 * CPHA_USEC_PER_SEC },
};

int cpha_parse_duration(const char *s, uint64_t default_unit_usec, uint64_t *usec, const char **why)
{
	uint64_t v = 0, mult = default_unit_usec;
	const char *p = s;
	size_t i;

	if (*p < '0' || *p > '9') {
		*why = "expected a number followed by an optional unit (us, ms, s, m, h, d)";
		return -EINVAL;
	}
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10) {
			*why = "duration too large";
			return -ERANGE;
		}
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (*p) {
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (strcmp(p, units[i].name) == 0)
				break;
		if (i == sizeof(units) / sizeof(units[0])) {
			*why = "unknown time unit (expected us, ms, s, m, h or d)";
			return -EINVAL;
		}
		mult = units[i].usec;
	}
	if (mult && v > UINT64_MAX / mult) {
		*why = "duration too large";
		return -ERANGE;
	}
	*usec = v * mult;
	return 0;
}

int cpha_parse_seconds(const char *s, uint64_t *usec, const char **why)
{
	uint64_t whole = 0, frac = 0, scale = CPHA_USEC_PER_SEC;
	const char *p = s;
	int digits = 0;

	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		if (whole > UINT64_MAX / 10 / CPHA_USEC_PER_SEC) {
			*why = "duration too large";
			return -ERANGE;
		}
		whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, digits++) {
			if (scale == 1) {
				if (*p != '0') {
					*why = "more precision than one microsecond";
					return -EINVAL;
				}
				continue;
			}
			scale /= 10;
			frac += (uint64_t)(*p - '0') * scale;
		}
	}
	if (*p || digits == 0) {
		*why = "expected a number of seconds such as 1 or 0.5";
		return -EINVAL;
	}
	*usec = whole * CPHA_USEC_PER_SEC + frac;
	return 0;
}

char *cpha_format_duration(uint64_t usec, char *buf, size_t len)
{
	size_t i;

	if (usec == 0) {
		snprintf(buf, len, "0");
		return buf;
	}
	for (i = sizeof(units) / sizeof(units[0]); i-- > 0;)
		if (usec % units[i].usec == 0)
			break;
	snprintf(buf, len, "%llu%s", (unsigned long long)(usec / units[i].usec), units[i].name);
	return buf;
}

uint64_t cpha_now_usec(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
}
