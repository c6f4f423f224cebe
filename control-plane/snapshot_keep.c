/* Snapshot names and retention: no I/O, no clock. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot_keep.h"

#define DAY 86400

static bool leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int month_days(int64_t y, int m)
{
	static const int d[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	return m == 2 && leap(y) ? 29 : d[m - 1];
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
 * days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* The inverse (civil_from_days). */
static void civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
	int64_t era, doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

/* n decimal digits at s; -1 when one is not a digit. */
static int digits(const char *s, int n)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

bool snapshot_name_time(const char *name, int64_t *when)
{
	const size_t np = sizeof(SNAPSHOT_PREFIX) - 1;
	const char *s = name + np;
	int y, mo, d, h, mi, sec;

	if (strlen(name) != SNAPSHOT_NAME_LEN || strncmp(name, SNAPSHOT_PREFIX, np) != 0 ||
		strcmp(name + SNAPSHOT_NAME_LEN - (sizeof(SNAPSHOT_SUFFIX) - 1), SNAPSHOT_SUFFIX) !=
			0 ||
		s[8] != 'T' || s[15] != 'Z')
		return false;
	y = digits(s, 4);
	mo = digits(s + 4, 2);
	d = digits(s + 6, 2);
	h = digits(s + 9, 2);
	mi = digits(s + 11, 2);
	sec = digits(s + 13, 2);
	if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > month_days(y, mo) || h < 0 || h > 23 ||
		mi < 0 || mi > 59 || sec < 0 || sec > 59)
		return false;
	if (when)
		*when = days_from_civil(y, mo, d) * DAY + h * 3600 + mi * 60 + sec;
	return true;
}

char *snapshot_name(int64_t t, char *buf, size_t len)
{
	int64_t days = t >= 0 ? t / DAY : -((-t + DAY - 1) / DAY);
	int64_t secs = t - days * DAY, y;
	int m, d;

	civil_from_days(days, &y, &m, &d);
	if (len < SNAPSHOT_NAME_LEN + 1 || y < 0 || y > 9999)
		return NULL;
	snprintf(buf, len, SNAPSHOT_PREFIX "%04d%02d%02dT%02d%02d%02dZ" SNAPSHOT_SUFFIX, (int)y, m,
		d, (int)(secs / 3600), (int)(secs / 60 % 60), (int)(secs % 60));
	return buf;
}

bool snapshot_part_name(const char *name)
{
	char inner[SNAPSHOT_NAME_LEN + 1];
	size_t n = strlen(name);

	if (name[0] != '.' || n < 1 + SNAPSHOT_NAME_LEN)
		return false;
	if (strcmp(name + 1 + SNAPSHOT_NAME_LEN, ".part") != 0 &&
		strcmp(name + 1 + SNAPSHOT_NAME_LEN, ".part.part") != 0)
		return false;
	memcpy(inner, name + 1, SNAPSHOT_NAME_LEN);
	inner[SNAPSHOT_NAME_LEN] = '\0';
	return snapshot_name_time(inner, NULL);
}

int snapshot_sidecar_text(const char *hex, const char *name, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s  %s\n", hex, name);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int snapshot_sidecar_parse(const char *text, char hex[65], char *name, size_t len, const char **why)
{
	const char *p = text, *nl;
	size_t n;

	for (int i = 0; i < 64; i++, p++) {
		if (!isxdigit((unsigned char)*p)) {
			*why = "not a SHA-256 sum in sha256sum's format (64 hex digits, two "
			       "spaces, the file's name)";
			return -1;
		}
		hex[i] = (char)tolower((unsigned char)*p);
	}
	hex[64] = '\0';
	if (p[0] != ' ' || (p[1] != ' ' && p[1] != '*') || p[2] == '\0' || p[2] == '\n') {
		*why = "not in sha256sum's format (64 hex digits, two spaces, the file's name)";
		return -1;
	}
	p += 2;
	nl = strchr(p, '\n');
	n = nl ? (size_t)(nl - p) : strlen(p);
	if (nl && nl[1] != '\0') {
		*why = "more than one line (one sum per sidecar)";
		return -1;
	}
	if (n >= len) {
		*why = "the file name is too long";
		return -1;
	}
	memcpy(name, p, n);
	name[n] = '\0';
	return 0;
}

/* Snapshot names have one width and their fields run from the year down,
 * so byte order is time order. */
static int by_name(const void *a, const void *b, void *names)
{
	const char *const *v = names;

	return strcmp(v[*(const size_t *)a], v[*(const size_t *)b]);
}

size_t snapshot_keep(
	const char *const *names, size_t n, unsigned keep, const char *protect, size_t *del)
{
	size_t m = 0, distinct = 0, others, rank = 0, w = 0;
	bool guarded = protect && snapshot_name_time(protect, NULL);

	/* del holds the snapshots' indexes, oldest first, while we decide */
	for (size_t i = 0; i < n; i++)
		if (snapshot_name_time(names[i], NULL))
			del[m++] = i;
	qsort_r(del, m, sizeof(*del), by_name, (void *)names);
	for (size_t j = 0; j < m; j++)
		if ((j == 0 || strcmp(names[del[j]], names[del[j - 1]]) != 0) &&
			!(guarded && strcmp(names[del[j]], protect) == 0))
			distinct++;
	/* the protected one is one of the K; the newest others fill the rest */
	others = keep > (unsigned)guarded ? keep - (unsigned)guarded : 0;
	if (distinct <= others)
		return 0;
	/* the oldest distinct - others go; w never passes j, so del is
	 * rewritten in place */
	for (size_t j = 0; j < m && rank < distinct - others; j++) {
		if (guarded && strcmp(names[del[j]], protect) == 0)
			continue;
		if (j > 0 && strcmp(names[del[j]], names[del[j - 1]]) == 0)
			continue;
		del[w++] = del[j];
		rank++;
	}
	return w;
}
