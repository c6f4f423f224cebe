/* vipd's track_process: keepalived 2.2's vrrp_track_process, counted by
 * scanning /proc. The match and the quorum decision are pure; only
 * track_process_count reads /proc. */
#ifndef VIPD_TRACK_PROCESS_H
#define VIPD_TRACK_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfg-types.h"

/* Where one track of a definition stands between polls. */
struct track_process_state {
	bool up;         /* the quorum as the instance sees it, after the delays */
	unsigned streak; /* polls in a row the count has said otherwise */
};

/* Whether a process matches p: comm is /proc/PID/comm without its newline;
 * cmdline is /proc/PID/cmdline, cmdline_len bytes of NUL-ended words (0 for
 * a kernel thread, which never matches full_command). */
bool track_process_match(const struct vipd_track_process_def *p, const char *comm,
	const char *cmdline, size_t cmdline_len);

/* Whether count matching processes are a quorum: within [quorum,
 * quorum_max] (quorum_max 0: none may run). */
bool track_process_quorum(const struct vipd_track_process_def *p, unsigned count);

/* One poll, poll_usec after the last, that saw count processes: updates st
 * and returns true when st->up changed. A change of quorum counts once it
 * has lasted fork_delay (gained) or terminate_delay (lost); a change that
 * goes back within the delay is forgotten. */
bool track_process_step(const struct vipd_track_process_def *p, unsigned count, uint64_t poll_usec,
	struct track_process_state *st);

/* Count, for each of the n definitions in defs, the running processes that match
 * it, in counts[0..n-1], reading /proc once. Returns 0, or -1 (logged)
 * when /proc cannot be read. */
int track_process_count(const struct vipd_track_process_def *defs, size_t n, unsigned *counts);

#endif
