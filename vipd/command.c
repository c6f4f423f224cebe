/* Splitting and running-as for the commands vipd runs (command.h). */
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "command.h"
#include "conf_lex.h"
#include "spawn.h"
#include "vipd.h"

char **vipd_split_command(const char *cmd)
{
	struct cpha_lex lx;
	struct cpha_lex_line l;
	char **w;
	size_t i;

	if (cpha_lex_open_mem(&lx, "command", cmd, strlen(cmd), 0) < 0)
		return NULL;
	if (cpha_lex_next(&lx, &l) != 1) {
		cpha_lex_free(&lx);
		return NULL;
	}
	w = calloc(l.n + 1, sizeof(*w));
	for (i = 0; w && i < l.n; i++)
		w[i] = strdup(l.tok[i].text);
	cpha_lex_free(&lx);
	return w;
}

void vipd_free_words(char **w)
{
	size_t i;

	for (i = 0; w && w[i]; i++)
		free(w[i]);
	free(w);
}

void vipd_runas_opts(
	const struct vipd *d, const char *user, const char *group, struct cpha_spawn_opts *o)
{
	if (!user) {
		user = d->cfg->global.script_user;
		group = d->cfg->global.script_group;
	}
	o->user = user;
	o->group = NULL;
	o->only_primary = 1;
	if (group && group[0] == ':') {
		o->only_primary = 0;
		group++;
	}
	if (group && *group)
		o->group = group;
}
