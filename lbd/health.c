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
