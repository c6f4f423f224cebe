#include <string.h>

#include "health.h"

void health_init(struct lbd_health *h, unsigned rise, unsigned fall, bool start_up)
{
	h->rise = rise ? rise : 1;
	h->fall = fall ? fall : 1;
	h->up = start_up;
	h->health = start_up ? h->rise : 0;
}

enum lbd_health_change health_report(struct lbd_health *h, bool ok)
{
	unsigned max = h->rise + h->fall - 1;

	if (ok) {
		if (h->health < max)
			h->health++;
		if (!h->up && h->health >= h->rise) {
			h->up = true;
			h->health = max; /* fully up: fall failures to go down */
			return LBD_HEALTH_UP;
		}
		return LBD_HEALTH_SAME;
	}
	if (h->health > h->rise) {
		h->health--; /* still up */
		return LBD_HEALTH_SAME;
	}
	/* a failure while not comfortably up starts the rise over, as in
	 * HAProxy */
	h->health = 0;
	if (h->up) {
		h->up = false;
		return LBD_HEALTH_DOWN;
	}
	return LBD_HEALTH_SAME;
}

uint64_t health_interval(
	const struct lbd_health *h, uint64_t inter, uint64_t fastinter, uint64_t downinter)
{
	if (!h->up && h->health == 0)
		return downinter ? downinter : inter;
	if (h->health != 0 && h->health != h->rise + h->fall - 1)
		return fastinter ? fastinter : inter;
	return inter;
}

uint64_t health_jitter(uint64_t interval, unsigned spread, uint64_t r)
{
	uint64_t w;

	if (!spread) /* lbd's own: up to 5% early */
		return interval - interval * (r % 6) / 100;
	w = interval * spread / 100;
	return interval - w + r % (2 * w + 1);
}

bool health_log_result(const struct lbd_health *h, unsigned before, bool ok)
{
	return ok ? before != h->rise + h->fall - 1 : before != 0;
}

void health_force(struct lbd_health *h, bool up)
{
	h->up = up;
	h->health = up ? h->rise + h->fall - 1 : 0;
}

uint64_t health_cut_offset(uint64_t i, uint64_t k, uint64_t spread_usec)
{
	uint64_t window = spread_usec;

	if (k <= 1 || !spread_usec)
		return 0;
	if (k * HEALTH_CUT_GAP_USEC < window)
		window = k * HEALTH_CUT_GAP_USEC;
	return window * i / k;
}

bool health_observe(unsigned *errors, unsigned limit, bool ok)
{
	if (ok) {
		*errors = 0;
		return false;
	}
	if (++*errors < (limit ? limit : 1))
		return false;
	*errors = 0;
	return true;
}

enum lbd_health_change health_on_error(
	struct lbd_health *h, enum lbd_on_error mode, bool *failed_check)
{
	*failed_check = false;
	switch (mode) {
	case LBD_ONERR_FASTINTER:
		return LBD_HEALTH_SAME;
	case LBD_ONERR_SUDDEN_DEATH:
		if (h->health > h->rise)
			h->health = h->rise + 1;
		break;
	case LBD_ONERR_MARK_DOWN:
		if (h->health > h->rise)
			h->health = h->rise;
		break;
	case LBD_ONERR_FAIL_CHECK:
		break;
	}
	*failed_check = h->health > 0;
	return health_report(h, false);
}

static const char *const health_onerr_names[] = {
	[LBD_ONERR_FAIL_CHECK] = "fail-check",
	[LBD_ONERR_FASTINTER] = "fastinter",
	[LBD_ONERR_SUDDEN_DEATH] = "sudden-death",
	[LBD_ONERR_MARK_DOWN] = "mark-down",
};

const char *health_on_error_name(enum lbd_on_error mode)
{
	return (unsigned)mode < sizeof(health_onerr_names) / sizeof(health_onerr_names[0])
		       ? health_onerr_names[mode]
		       : "?";
}

int health_on_error_parse(const char *word)
{
	size_t i;

	for (i = 0; i < sizeof(health_onerr_names) / sizeof(health_onerr_names[0]); i++)
		if (strcmp(word, health_onerr_names[i]) == 0)
			return (int)i;
	return -1;
}

uint64_t health_hedge_at(uint64_t t_connect, uint64_t hedge, uint64_t connect_timeout)
{
	if (!hedge || (connect_timeout && hedge >= connect_timeout))
		return 0;
	return t_connect + hedge;
}
