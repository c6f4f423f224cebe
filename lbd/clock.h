/* lbd's clock: the one time source that checks, slowstart, queues, timeouts
 * and the admin socket's ages compare, so every module counts the same
 * microseconds. */
#ifndef LBD_CLOCK_H
#define LBD_CLOCK_H

#include <stdint.h>

/* Current monotonic time (CLOCK_MONOTONIC) in usec. */
uint64_t lbd_now(void);

#endif
