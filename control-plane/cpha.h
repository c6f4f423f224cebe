/* The cpha command's subcommands. Each takes the arguments after its name
 * (argv[0] is the subcommand) and the description file given with -f before
 * it, and returns the exit status. */
#ifndef CPHA_CPHA_H
#define CPHA_CPHA_H

#include "cluster.h"

#define CPHA_DEFAULT_FILE "/etc/cpha/cluster.yaml"

/* Exit statuses shared by the subcommands. */
#define CPHA_EXIT_OK       0 /* done; nothing wrong */
#define CPHA_EXIT_FAIL     1 /* an error, a refused design, drift ("degraded") */
#define CPHA_EXIT_WARN     2 /* plan --strict: warnings only */
#define CPHA_EXIT_USAGE    64
#define CPHA_EXIT_SOFTWARE 70

int cmd_plan(int argc, char **argv, const char *file);
int cmd_pki(int argc, char **argv, const char *file);
int cmd_render(int argc, char **argv, const char *file);
/* Install one host's rendered files, PKI files and description
 * (install.c). */
int cmd_install(int argc, char **argv, const char *file);
int cmd_check(int argc, char **argv, const char *file);
int cmd_restart(int argc, char **argv, const char *file);
int cmd_logs(int argc, char **argv, const char *file);
int cmd_drain(int argc, char **argv, const char *file);
int cmd_undrain(int argc, char **argv, const char *file);
/* token create: the Secret on stdout, the bootstrap kubeconfig in a file. */
int cmd_token(int argc, char **argv, const char *file);
/* etcd snapshot (take one, keep the newest K) and etcd verify (check
 * snapshots against their sidecars) (etcd_cmd.c; etcdctl in etcd_ctl.c),
 * etcd restore (etcd_restore.c), etcd remove (departed members,
 * etcd_remove_cmd.c). */
int cmd_etcd(int argc, char **argv, const char *file);
/* Exit status: the worst state seen (0 healthy, 1 degraded, 2 down), 3 when
 * nothing could be asked (status_cmd.c). */
int cmd_status(int argc, char **argv, const char *file);
/* file_given: -f was on the command line (the lab's default is its own
 * embedded cluster, not CPHA_DEFAULT_FILE). */
int cmd_lab(int argc, char **argv, const char *file, int file_given);

/* Load the description, printing every error (and, unless quiet, every
 * warning) to stderr. Returns the model or NULL. */
struct cp_cluster *cpha_load(const char *file);

/* Today in UTC, "YYYY-MM-DD", into buf (16 bytes are enough): the day plan
 * judges end-of-life dates on. Returns buf, or NULL. */
char *cpha_today(char *buf, size_t len);

/* Parse "-f FILE" among a subcommand's options: getopt-style, for the
 * subcommands that take no other short options with arguments. */
#endif
