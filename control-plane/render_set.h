/* The set of files `cpha render` makes: each render module adds its files
 * to it (and the ones it could not make, with why); render.c orders, checks
 * and writes them. */
#ifndef CPHA_RENDER_SET_H
#define CPHA_RENDER_SET_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

/* Which checker a file goes through before render succeeds. */
enum render_check {
	RENDER_CHECK_NONE,
	RENDER_CHECK_LBD,        /* lbd -c -f FILE */
	RENDER_CHECK_HAPROXY,    /* haproxy -c -f FILE */
	RENDER_CHECK_VIPD,       /* vipd -c -f FILE */
	RENDER_CHECK_KEEPALIVED, /* keepalived -t -f FILE, with no warning */
	RENDER_CHECK_FENCED,     /* fenced -c -f FILE [-C corosync.conf of the host] */
	RENDER_CHECK_CIB,        /* crm_verify -x FILE */
	RENDER_CHECK_YAML,       /* parses as YAML (kubeconfigs, static pods) */
};

struct render_file {
	char *host;    /* host name, or NULL for DIR/cluster/ */
	char *path;    /* absolute path as installed ("/etc/lbd/lbd.cfg"); for
			* cluster-wide files a relative name ("pcs-commands.sh") */
	unsigned mode; /* 0644, 0600, 0755 */
	enum render_check check;
	struct cpha_buf text;
};

/* A file the set would hold but does not: what makes it is not installed. */
struct render_skip {
	char *host; /* as in render_file */
	char *path;
	char *why; /* "cibadmin not found (install pacemaker-cli-utils to make it)" */
};

struct render_set {
	struct render_file *v;
	size_t n;
	/* Set before render_all(): a file made by running a tool (cib.xml: cibadmin,
	 * pcs) is left out and listed in skipped[] when the tool is not installed,
	 * instead of being an error (render --no-check; check, which compares the
	 * hosts' files only). */
	bool tools_optional;
	/* Set before render_all(): cluster-wide files made by running a tool
	 * (cib.xml) are not made at all (check, which compares a host's own
	 * files: 31 runs of pcs on every host at every check cost more than
	 * the check). */
	bool hosts_only;
	struct render_skip *skipped;
	size_t nskipped;
};

/* Add a file (host NULL for cluster-wide); returns its buffer to fill,
 * valid until the next render_add() (which may move every buffer). */
struct cpha_buf *render_add(struct render_set *s, const char *host, const char *path, unsigned mode,
	enum render_check check);

/* Record that host's file at path was not made, and why. */
void render_skip(struct render_set *s, const char *host, const char *path, const char *why);

/* The file of host at path, or NULL. */
struct render_file *render_find(struct render_set *s, const char *host, const char *path);

void render_set_free(struct render_set *s);

#endif
