/* Handing fencing to pacemaker-fenced (fence_via pacemaker): where
 * Pacemaker runs, one cluster has one fencer. fenced asks pacemaker-fenced
 * through the public libstonithd API to fence a node and records the
 * outcome; Pacemaker's own topology and devices do the work, and a request
 * for a node Pacemaker is already fencing is merged with it (tolerance). */
#ifndef FENCED_PCMK_H
#define FENCED_PCMK_H

#include <stdbool.h>
#include <stddef.h>
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

/* Forget the pending requests of ud (its run was cancelled): their done
 * is never called. */
void fenced_pcmk_forget(struct fenced_pcmk *p, void *ud);

#endif
