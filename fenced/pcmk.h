/* Handing fencing to pacemaker-fenced (fence_via pacemaker): where
 * Pacemaker runs, one cluster has one fencer. fenced asks pacemaker-fenced
 * through the public libstonithd API to fence a node and records the
 * outcome; Pacemaker's own topology and devices do the work, and a request
 * for a node Pacemaker is already fencing is merged with it (tolerance). */
#ifndef FENCED_PCMK_H
#define FENCED_PCMK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

struct fenced_pcmk;

typedef void (*fenced_pcmk_done_fn)(void *ud, bool ok, const char *msg);

/* Connect to pacemaker-fenced. 0, or a negative errno with why. Unless
 * out of memory (-ENOMEM, *out untouched), *out is set even when this
 * first connect fails: pacemaker-fenced may start after fenced, and each
 * fence request connects again. */
int fenced_pcmk_open(sd_event *e, struct fenced_pcmk **out, char *why, size_t whylen);
void fenced_pcmk_close(struct fenced_pcmk *p);

/* Ask for action ("off", "reboot", "on") on node; done is called once from
 * the event loop, at the latest after timeout_s + 10 s. 0, or a negative
 * errno with why (done is not called then). */
int fenced_pcmk_fence(struct fenced_pcmk *p, const char *node, const char *action,
	unsigned timeout_s, fenced_pcmk_done_fn done, void *ud, char *why, size_t whylen);

/* A completed fence of node ("off" or "reboot") in pacemaker-fenced's
 * history, completed at or after since_us (wall clock, microseconds): 1, with what,
 * by whom and when in msg; 0 none; or a negative errno, with why in msg.
 * An administrator's confirmation (stonith_admin --confirm, pcs stonith
 * confirm) is recorded there as a completed "off". A synchronous call to
 * the local fencer, bounded by a few seconds. */
int fenced_pcmk_fenced_since(
	struct fenced_pcmk *p, const char *node, uint64_t since_us, char *msg, size_t len);

/* Forget the pending requests of ud (its run was cancelled): their done
 * is never called. */
void fenced_pcmk_forget(struct fenced_pcmk *p, void *ud);

#endif
