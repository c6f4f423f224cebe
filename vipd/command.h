/* Commands vipd runs (vrrp_script checks, notify commands, fifo scripts):
 * split into words as the configuration quotes them (no shell), and run as
 * the user the configuration names. A leaf: it calls nothing else of
 * vipd's. */
#ifndef VIPD_COMMAND_H
#define VIPD_COMMAND_H

struct vipd;
struct cpha_spawn_opts;

/* Split a command line into words (quotes as in the configuration); NULL
 * when it has none or cannot be split. Free with vipd_free_words. */
char **vipd_split_command(const char *cmd);
void vipd_free_words(char **words);

/* Who a command runs as (user NULL: script_user's, else vipd's own); a
 * group starting with ':' keeps the user's supplementary groups. */
void vipd_runas_opts(
	const struct vipd *d, const char *user, const char *group, struct cpha_spawn_opts *o);

#endif
