/* libFuzzer target: fenced's configuration parser. Any text either parses
 * into a configuration whose rules hold (devices named by levels exist,
 * levels sorted and unique, every node fenceable, durations in range), or
 * fails with messages; nothing leaks either way. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cfg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define DAY (24 * 3600 * 1000000ULL)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cpha_msgs errs = { 0 };
	struct fenced_config *c = NULL;
	size_t i, j, k;

	if (fenced_cfg_load_mem("fuzz.conf", (const char *)data, size, &c, &errs) < 0) {
		if (!errs.nerrs)
			__builtin_trap(); /* a refusal says why */
		cpha_msgs_free(&errs);
		return 0;
	}
	if (c->global.agent_timeout == 0 || c->global.retry_interval == 0 ||
		c->global.post_join_delay > DAY || c->global.post_fail_delay > DAY)
		__builtin_trap();
	for (i = 0; i < c->ndevices; i++)
		if (!c->devices[i].agent ||
			fenced_cfg_device(c, c->devices[i].name) != &c->devices[i])
			__builtin_trap();
	for (i = 0; i < c->nnodes; i++) {
		const struct fenced_node *n = &c->nodes[i];

		if (fenced_cfg_node(c, n->name) != n || (!n->nlevels && !c->watchdog.set))
			__builtin_trap();
		for (j = 0; j < n->nlevels; j++) {
			if (j && n->levels[j - 1].number >= n->levels[j].number)
				__builtin_trap(); /* sorted, unique */
			if (!n->levels[j].nuses)
				__builtin_trap();
			for (k = 0; k < n->levels[j].nuses; k++)
				if (n->levels[j].uses[k].device >= c->ndevices ||
					strcmp(c->devices[n->levels[j].uses[k].device].name,
						n->levels[j].uses[k].name) != 0)
					__builtin_trap(); /* names resolve */
		}
	}
	if (c->watchdog.set && (!c->watchdog.device || c->watchdog.timeout < 1000000))
		__builtin_trap();
	fenced_cfg_free(c);
	return 0;
}
