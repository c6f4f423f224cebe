/* Running fence-agents: one device, and one level of a node.
 *
 * An agent gets its parameters as key=value lines on standard input, as
 * fence-agents read them: action first, then the device's parameters, then
 * the level entry's (plug=1), which override the device's. A KEY_file
 * parameter's value is read from its file when the agent starts (one
 * trailing newline dropped), so secrets are never on a command line and
 * never logged: messages carry the agent's last line of standard error,
 * with every secret value of the run replaced by "***".
 *
 * A level succeeds when every device in it succeeds, run one after the
 * other; with action reboot and more than one device (two PDU outlets that
 * feed the same host) the level turns every device off, then every device
 * on, as Pacemaker does, so that the host really loses power. */
#ifndef FENCED_AGENT_H
#define FENCED_AGENT_H

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "buf.h"
#include "cfg.h"

struct fenced_agent_result {
	bool ok;        /* exit status 0 */
	int exit_code;  /* -1: killed or not started */
	bool timed_out; /* killed at the timeout */
	char msg[256];  /* why, for the log: never a secret */
};

typedef void (*fenced_agent_done_fn)(void *ud, const struct fenced_agent_result *r);

/* The agent's standard input for action on device dv as used by use (NULL:
 * none). 0, or a negative errno with why (a secret file that cannot be
 * read). The caller wipes and frees out. */
int fenced_agent_input(const struct fenced_device *dv, const struct fenced_use *use,
	const char *action, struct cpha_buf *out, char *why, size_t whylen);

/* Run one device. done is called once, from the event loop, unless this
 * returns a negative errno (then r is filled with why and nothing runs). */
struct fenced_agent_run;
int fenced_agent_run(sd_event *e, const struct fenced_device *dv, const struct fenced_use *use,
	const char *action, uint64_t timeout, fenced_agent_done_fn done, void *ud,
	struct fenced_agent_run **out, struct fenced_agent_result *r);
void fenced_agent_cancel(struct fenced_agent_run *run);

/* Run a level of a node: its devices in order (action "off" or "reboot",
 * reboot with several devices as all off then all on). done gets the
 * first failure, or success. Returns 0, or a negative errno with r filled
 * (nothing runs). */
struct fenced_level_run;
int fenced_level_run(sd_event *e, const struct fenced_config *c, const struct fenced_level *lv,
	const char *action, fenced_agent_done_fn done, void *ud, struct fenced_level_run **out,
	struct fenced_agent_result *r);
void fenced_level_cancel(struct fenced_level_run *run);

#endif
