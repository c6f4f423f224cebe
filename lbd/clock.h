/* lbd's clock: the one time source that checks, slowstart, queues, timeouts
 * and the admin socket's ages compare, so every module counts the same
 * microseconds. */
#ifndef LBD_CLOCK_H
#define LBD_CLOCK_H

#include <stdint.h>

#include <systemd/sd-event.h>

/* Current monotonic time (CLOCK_MONOTONIC) in usec. */
uint64_t lbd_now(void);

/* The monotonic time of loop e's current iteration, in usec (sd-event's
 * cached time: the same for every event of a batch); 0 on error. */
uint64_t lbd_loop_now(sd_event *e);

#endif
