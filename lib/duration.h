/* Durations as written in configuration files. */
#ifndef CPHA_DURATION_H
#define CPHA_DURATION_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define CPHA_USEC_PER_MSEC 1000ULL
#define CPHA_USEC_PER_SEC  1000000ULL

/* The time of a clock (CLOCK_MONOTONIC, CLOCK_REALTIME) in microseconds. */
uint64_t cpha_now_usec(clockid_t clock);

/* HAProxy's time format: an unsigned integer with an optional unit
 * (us, ms, s, m, h, d). Without a unit, default_unit_usec applies (HAProxy
 * uses milliseconds for timeouts). Stores microseconds in *usec.
 * Returns 0, -EINVAL (with *why set) or -ERANGE. */
int cpha_parse_duration(
	const char *s, uint64_t default_unit_usec, uint64_t *usec, const char **why);

/* Decimal seconds as keepalived writes them ("1", "0.1", "2.55").
 * Precision is one microsecond. Returns 0, -EINVAL (with *why) or -ERANGE. */
int cpha_parse_seconds(const char *s, uint64_t *usec, const char **why);

/* Write a duration in the largest unit that represents it exactly
 * ("10s", "1500ms", "0"). Returns buf. */
char *cpha_format_duration(uint64_t usec, char *buf, size_t len);

#endif
