/* Command lines and the files they come from: an operator's flags written
 * as one string, systemd EnvironmentFile= files (KUBE_APISERVER_ARGS=...),
 * flag lookup in a Kubernetes-style argv, and "name=value" node maps. All
 * pure: text in, lists out, an error message on failure. */
#ifndef CPHA_OCF_ARGS_H
#define CPHA_OCF_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "ocf.h"

struct ocf_kv {
	char *key;
	char *value;
};

/* Ordered pairs; keys are unique where a parser says so. */
struct ocf_kvlist {
	struct ocf_kv *v;
	size_t n;
};

/* Split a command line into words as a shell (and systemd's ExecStart=) does
 * for literal text: blanks and newlines separate words, '...' is literal,
 * "..." allows \" \\ \$ \` escapes, a backslash outside quotes takes the
 * next character literally and a backslash-newline joins lines. No
 * expansion of any kind. Appends to out. Returns 0, -EINVAL (*why: an
 * unterminated quote) or -ENOMEM. */
int ocf_split_words(const char *s, struct ocf_strv *out, const char **why);

/* Parse a systemd EnvironmentFile=: KEY=VALUE lines; blank lines and lines
 * starting with # or ; are skipped; an "export " prefix is accepted; a value
 * in single quotes is literal, in double quotes backslash escapes apply; an
 * unquoted value has surrounding blanks removed; a line ending in a backslash
 * continues on the next (systemd joins them with a space's worth of text).
 * A later KEY replaces an earlier one. On error *line is the line number.
 * Returns 0, -EINVAL (*why, *line) or -ENOMEM. */
int ocf_envfile_parse(const char *text, struct ocf_kvlist *out, unsigned *line, const char **why);

/* Read path (at most 1 MiB) and parse it. -errno of open/read, or as above. */
int ocf_envfile_load(const char *path, struct ocf_kvlist *out, unsigned *line, const char **why);

/* Value of key, or NULL. */
const char *ocf_kv_get(const struct ocf_kvlist *l, const char *key);

/* Append or replace key. Returns 0 or -ENOMEM. */
int ocf_kv_set(struct ocf_kvlist *l, const char *key, const char *value);

void ocf_kv_free(struct ocf_kvlist *l);

/* Look up a Kubernetes (pflag) flag in argv[from..]: "--name=value", or
 * "--name value" for a non-boolean flag, or "--name" alone for a boolean
 * one ("true"). The last occurrence wins, as with pflag. Returns 1 and
 * *value (pointing into argv or a static "true"), or 0 when absent. */
int ocf_flag_get(const struct ocf_strv *argv, size_t from, const char *name, bool boolean,
	const char **value);

/* Parse a node map: "node=value" pairs separated by blanks or ';'
 * ("m0=https://198.18.0.11:2380 m1=https://198.18.0.12:2380"). Names are
 * unique and neither side may be empty. Returns 0, -EINVAL (*why) or -ENOMEM. */
int ocf_map_parse(const char *s, struct ocf_kvlist *out, const char **why);

/* The UNIX path of the first "stats socket" of the global section of a
 * configuration in HAProxy's language (haproxy.cfg, lbd.cfg): "/path" or
 * "unix@/path"; TCP stats sockets are skipped. Returns 1 and out, 0 when
 * there is none, -ENAMETOOLONG. */
int ocf_hacfg_stats_socket(const char *text, char *out, size_t len);

#endif
