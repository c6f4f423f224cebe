/* track_process: keepalived 2.2's vrrp_track_process. keepalived hears of
 * forks and exits from the kernel's netlink process connector; vipd reads
 * /proc once a second with its other polled tracks instead, which needs no
 * CAP_NET_ADMIN socket, cannot miss events when the connector's buffer
 * overflows and sees processes started before it. A process that lives
 * less than a second may go unseen. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "track_process.h"

#define CMDLINE_MAX 8192 /* enough for the command lines worth matching */

bool track_process_match(const struct vipd_track_process_def *p, const char *comm,
	const char *cmdline, size_t cmdline_len)
{
	size_t n0, rest;
	const char *params;

	if (!p->full_command)
		return strcmp(comm, p->process) == 0;
	if (cmdline_len == 0)
		return false;
	n0 = strnlen(cmdline, cmdline_len);
	if (n0 == cmdline_len || strcmp(cmdline, p->process) != 0)
		return false;
	params = cmdline + n0 + 1;
	rest = cmdline_len - n0 - 1;
	if (!p->params)
		return p->param_match != VIPD_PARAM_EXACT || rest == 0;
	switch (p->param_match) {
	case VIPD_PARAM_INITIAL: /* the last one given may be the start of a longer one */
		return rest >= p->params_len - 1 &&
		       memcmp(params, p->params, p->params_len - 1) == 0;
	case VIPD_PARAM_PARTIAL: /* these whole, maybe more after them */
		return rest >= p->params_len && memcmp(params, p->params, p->params_len) == 0;
	default: /* exactly these */
		return rest == p->params_len && memcmp(params, p->params, p->params_len) == 0;
	}
}

bool track_process_quorum(const struct vipd_track_process_def *p, unsigned count)
{
	if (p->quorum_max == 0)
		return count == 0;
	return count >= p->quorum && count <= p->quorum_max;
}

bool track_process_step(const struct vipd_track_process_def *p, unsigned count, uint64_t poll_usec,
	struct track_process_state *st)
{
	bool q = track_process_quorum(p, count);
	uint64_t delay = q ? p->fork_delay : p->terminate_delay;

	if (q == st->up) {
		st->streak = 0;
		return false;
	}
	/* the first poll that sees the change starts the delay */
	if ((uint64_t)st->streak * poll_usec < delay) {
		st->streak++;
		return false;
	}
	st->up = q;
	st->streak = 0;
	return true;
}

/* Read a small /proc file into buf; its length, 0 when gone or empty. */
static size_t read_small(int dirfd, const char *name, char *buf, size_t len)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	size_t got = 0;
	ssize_t r;

	if (fd == -1)
		return 0;
	while (got < len) {
		r = read(fd, buf + got, len - got);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	return got;
}

int track_process_count(const struct vipd_track_process_def *defs, size_t n, unsigned *counts)
{
	char comm[32], cmdline[CMDLINE_MAX];
	bool want_cmdline = false;
	struct dirent *de;
	DIR *proc;
	size_t i, clen, len;
	int pfd;

	memset(counts, 0, n * sizeof(*counts));
	for (i = 0; i < n; i++)
		want_cmdline |= defs[i].full_command;
	proc = opendir("/proc");
	if (!proc) {
		log_err("track_process: /proc: %s", strerror(errno));
		return -1;
	}
	while ((de = readdir(proc))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pfd = openat(dirfd(proc), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (pfd == -1)
			continue; /* gone since readdir */
		len = read_small(pfd, "comm", comm, sizeof(comm) - 1);
		if (len && comm[len - 1] == '\n')
			len--;
		comm[len] = '\0';
		clen = want_cmdline ? read_small(pfd, "cmdline", cmdline, sizeof(cmdline)) : 0;
		close(pfd);
		if (!len)
			continue;
		/* a command line cut at the buffer's end has no final NUL: drop
		 * the cut word rather than match a prefix of it */
		while (clen && cmdline[clen - 1] != '\0')
			clen--;
		for (i = 0; i < n; i++)
			if (track_process_match(&defs[i], comm, cmdline, clen))
				counts[i]++;
	}
	closedir(proc);
	return 0;
}
