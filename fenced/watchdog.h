/* Self-fencing by watchdog, as SBD does it without a disk: the device is
 * armed once this node first has quorum, petted every timeout/3 while it
 * keeps quorum and the event loop runs, and left alone when quorum is
 * lost, so the node resets within timeout. A clean stop disarms it (the
 * magic 'V' close).
 *
 * The device is a Linux watchdog (character device: WDIOC_SETTIMEOUT,
 * WDIOC_KEEPALIVE) or, for tests on machines without one, a FIFO: each pet
 * writes "pet\n", the disarm "V\n", and the reader decides what a silence
 * means. */
#ifndef FENCED_WATCHDOG_H
#define FENCED_WATCHDOG_H

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

struct fenced_wd;

/* Open nothing yet: remember the device and timeout (us). */
int fenced_wd_new(sd_event *e, const char *device, uint64_t timeout, struct fenced_wd **out);

/* Quorate: arm (first time) and pet. Not quorate: stop petting. Returns 0
 * or a negative errno (the device cannot be opened: logged by the caller). */
int fenced_wd_set(struct fenced_wd *w, bool quorate);

bool fenced_wd_armed(const struct fenced_wd *w);
bool fenced_wd_petting(const struct fenced_wd *w);
uint64_t fenced_wd_pets(const struct fenced_wd *w);

/* disarm: magic close (a clean stop while healthy); otherwise the device
 * is closed as it is (a reset will follow if it was armed). */
void fenced_wd_free(struct fenced_wd *w, bool disarm);

#endif
