/* lbd's clock. */
#include <stdint.h>
#include <time.h>

#include <systemd/sd-event.h>

#include "clock.h"
#include "duration.h"

uint64_t lbd_now(void)
{
	return cpha_now_usec(CLOCK_MONOTONIC);
}

uint64_t lbd_loop_now(sd_event *e)
{
	uint64_t t = 0;

	sd_event_now(e, CLOCK_MONOTONIC, &t);
	return t;
}
