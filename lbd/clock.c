/* lbd's clock. */
#include <stdint.h>
#include <time.h>

#include "clock.h"
#include "duration.h"

uint64_t lbd_now(void)
{
	return cpha_now_usec(CLOCK_MONOTONIC);
}
