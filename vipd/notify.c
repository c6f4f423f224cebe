/* Telling the world about state changes: notify commands and keepalived's
 * notify fifos.
 *
 * A notify command is split like a vrrp_script (no shell) and run as its
 * USER [GROUP], else script_user's; the generic "notify" gets keepalived's four arguments
 * (INSTANCE|GROUP NAME STATE PRIORITY, priority 0 for a group).
 *
 * notify_fifo and vrrp_notify_fifo get the same events, one line each, as
 * keepalived writes them: 'INSTANCE "VI_1" MASTER 100', 'GROUP "G" BACKUP 0'.
 * A missing fifo is created (0644, chowned to its USER); an existing path
 * must be a fifo owned by us or by USER (keepalived refuses anything else:
 * a planted file). The fifo is opened read-write and non-blocking, so a
 * reader that is slow or gone never stalls VRRP: a full pipe loses lines
 * (counted) and nothing else. The fifo's script is started after the fifo
 * exists, with its path as last argument; at shutdown vipd writes the STOP
 * lines, closes its end and gives the script a moment to read them. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "command.h"
#include "log.h"
#include "spawn.h"
#include "vipd.h"

#define NOTIFY_TIMEOUT (30 * 1000000ULL)

void vipd_notify_run(struct vipd *d, const char *who, const char *cmd, const struct vipd_runas *as,
	const char *type, const char *name, const char *state, int prio)
{
	struct cpha_spawn_opts o = { .timeout_usec = NOTIFY_TIMEOUT };
	const char *argv[64];
	char p[16];
	char **words;
	size_t n = 0;
	int r;

	if (!cmd)
		return;
	words = vipd_split_command(cmd);
	if (!words) {
		log_warn("%s: notify command '%s' cannot be split into words", who, cmd);
		return;
	}
	while (words[n] && n < 58) {
		argv[n] = words[n];
		n++;
	}
	if (type) {
		snprintf(p, sizeof(p), "%d", prio);
		argv[n++] = type;
		argv[n++] = name;
		argv[n++] = state;
		argv[n++] = p;
	}
	argv[n] = NULL;
	o.argv = argv;
	vipd_runas_opts(d, as ? as->user : NULL, as ? as->group : NULL, &o);
	r = cpha_spawn(d->e, &o, NULL, NULL, NULL);
	if (r < 0)
		log_warn("%s: notify command %s: %s", who, argv[0], strerror(-r));
	vipd_free_words(words);
}

void vipd_notify_state(struct vipd *d, const char *who, char *const cmds[VIPD_NOTIFY_N],
	const struct vipd_runas *as, const char *type, const char *name, const char *state,
	int prio)
{
	static const char *const states[VIPD_NOTIFY_ANY] = { "MASTER", "BACKUP", "FAULT", "STOP" };
	unsigned k;

	for (k = 0; k < VIPD_NOTIFY_ANY; k++)
		if (strcmp(state, states[k]) == 0)
			vipd_notify_run(d, who, cmds[k], &as[k], NULL, NULL, NULL, 0);
	vipd_notify_run(
		d, who, cmds[VIPD_NOTIFY_ANY], &as[VIPD_NOTIFY_ANY], type, name, state, prio);
	vipd_fifo_write(d, type, name, state, prio);
}

/* ---- fifos ---- */

static const char *const fifo_kw[2] = { "notify_fifo", "vrrp_notify_fifo" };

static void on_fifo_script(void *userdata, const struct cpha_spawn_result *r)
{
	struct vipd_fifo *f = userdata;

	f->script = NULL;
	if (r->exited && r->exit_code == 0)
		log_info("%s script %s exited", fifo_kw[f->which], f->path);
	else if (r->exited)
		log_warn("%s script for %s exited with status %d", fifo_kw[f->which], f->path,
			r->exit_code);
	else
		log_warn("%s script for %s was killed by signal %d", fifo_kw[f->which], f->path,
			r->signo);
	if (f->d->stopping && !vipd_fifo_scripts_running(f->d))
		sd_event_exit(f->d->e, 0);
}

static int fifo_owner(const struct vipd_fifo_cfg *c, uid_t *uid, gid_t *gid)
{
	struct passwd *pw;
	struct group *gr;

	*uid = (uid_t)-1;
	*gid = (gid_t)-1;
	if (c->user) {
		pw = getpwnam(c->user);
		if (!pw)
			return -ESRCH;
		*uid = pw->pw_uid;
		*gid = pw->pw_gid;
	}
	if (c->group) {
		gr = getgrnam(c->group);
		if (!gr)
			return -ESRCH;
		*gid = gr->gr_gid;
	}
	return 0;
}

static void fifo_start_script(
	struct vipd *d, struct vipd_fifo *f, const char *cmd, const struct vipd_runas *as)
{
	struct cpha_spawn_opts o = { 0 };
	const char *argv[64];
	char **words;
	size_t n = 0;
	int r;

	words = vipd_split_command(cmd);
	if (!words) {
		log_warn("%s_script '%s' cannot be split into words", fifo_kw[f->which], cmd);
		return;
	}
	while (words[n] && n < 62)
		argv[n] = words[n], n++;
	argv[n++] = f->path;
	argv[n] = NULL;
	o.argv = argv;
	vipd_runas_opts(d, as->user, as->group, &o);
	r = cpha_spawn(d->e, &o, on_fifo_script, f, &f->script);
	if (r < 0)
		log_err("%s_script %s: %s", fifo_kw[f->which], argv[0], strerror(-r));
	vipd_free_words(words);
}

static void fifo_open(struct vipd *d, unsigned which)
{
	const struct vipd_fifo_cfg *c = &d->cfg->global.fifo[which];
	struct vipd_fifo *f = &d->fifo[which];
	struct stat st;
	uid_t uid;
	gid_t gid;

	f->d = d;
	f->which = which;
	f->fd = -1;
	if (fifo_owner(c, &uid, &gid) < 0) {
		log_err("%s %s: no such user or group: not used", fifo_kw[which], c->path);
		return;
	}
	if (mkfifo(c->path, 0644) == 0) {
		f->created = true;
		if ((uid != (uid_t)-1 || gid != (gid_t)-1) && chown(c->path, uid, gid) < 0)
			log_warn("%s %s: chown: %s", fifo_kw[which], c->path, strerror(errno));
	} else if (errno != EEXIST) {
		log_err("%s %s: cannot create it: %s", fifo_kw[which], c->path, strerror(errno));
		return;
	}
	f->path = strdup(c->path);
	if (!f->path)
		goto fail;
	f->fd = open(c->path, O_RDWR | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	if (f->fd < 0) {
		log_err("%s %s: cannot open it: %s", fifo_kw[which], c->path, strerror(errno));
		goto fail;
	}
	if (fstat(f->fd, &st) < 0 || !S_ISFIFO(st.st_mode) ||
		(st.st_uid != geteuid() && st.st_uid != uid)) {
		log_err("%s %s: not a fifo owned by us%s%s: not used", fifo_kw[which], c->path,
			c->user ? " or " : "", c->user ? c->user : "");
		goto fail;
	}
	log_info("%s %s open", fifo_kw[which], c->path);
	if (c->script)
		fifo_start_script(d, f, c->script, &c->script_as);
	return;
fail:
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	if (f->created)
		unlink(c->path);
	f->created = false;
	free(f->path);
	f->path = NULL;
}

static void fifo_close(struct vipd_fifo *f, bool keep_script)
{
	/* unlink first, so a script that reopens a closed fifo finds nothing */
	if (f->created && f->path)
		unlink(f->path);
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	f->created = false;
	if (f->script && !keep_script) {
		cpha_spawn_cancel(f->script);
		f->script = NULL;
	}
	if (!f->script) {
		free(f->path);
		f->path = NULL;
	}
}

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

void vipd_fifo_setup(struct vipd *d, const struct vipd_config *old)
{
	unsigned i;

	for (i = 0; i < 2; i++) {
		const struct vipd_fifo_cfg *c = &d->cfg->global.fifo[i];
		struct vipd_fifo *f = &d->fifo[i];

		if (old && f->fd >= 0 && str_eq(c->path, old->global.fifo[i].path) &&
			str_eq(c->user, old->global.fifo[i].user) &&
			str_eq(c->group, old->global.fifo[i].group) &&
			str_eq(c->script, old->global.fifo[i].script) &&
			str_eq(c->script_as.user, old->global.fifo[i].script_as.user) &&
			str_eq(c->script_as.group, old->global.fifo[i].script_as.group))
			continue; /* unchanged: keep it, and its script */
		if (old)
			fifo_close(f, false);
		else
			f->fd = -1;
		if (c->path)
			fifo_open(d, i);
	}
}

void vipd_fifo_write(
	struct vipd *d, const char *type, const char *name, const char *state, int prio)
{
	char line[512];
	unsigned i;
	int n;

	n = snprintf(line, sizeof(line), "%s \"%s\" %s %d\n", type, name, state, prio);
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	for (i = 0; i < 2; i++) {
		struct vipd_fifo *f = &d->fifo[i];

		if (f->fd < 0)
			continue;
		/* up to PIPE_BUF bytes go in whole or not at all */
		if (write(f->fd, line, (size_t)n) != n) {
			f->lost++;
			if (errno != EAGAIN)
				log_warn("%s %s: %s", fifo_kw[i], f->path, strerror(errno));
		}
	}
}

bool vipd_fifo_scripts_running(const struct vipd *d)
{
	return d->fifo[0].script || d->fifo[1].script;
}

void vipd_fifo_shutdown(struct vipd *d, bool keep_scripts)
{
	unsigned i;

	for (i = 0; i < 2; i++)
		fifo_close(&d->fifo[i], keep_scripts);
}
