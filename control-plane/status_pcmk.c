/* cpha status, Pacemaker's view: crm_mon --output-as=xml read into the
 * snapshot, with no I/O. Pacemaker's XML schema is stable (api-version
 * 2.x); only the attributes named here are read, by a scan rather than an
 * XML parser: the project links no XML library, and crm_mon's output is
 * machine-written with double-quoted attributes. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "status.h"

/* attr="value" of the element that starts at p (up to its '>'). */
static bool xml_attr(const char *p, const char *attr, char *out, size_t len)
{
	const char *end = strchr(p, '>');
	char key[64];
	const char *a, *q;

	snprintf(key, sizeof(key), " %s=\"", attr);
	a = strstr(p, key);
	if (!a || (end && a > end))
		return false;
	a += strlen(key);
	q = strchr(a, '"');
	if (!q)
		return false;
	snprintf(out, len, "%.*s", (int)(q - a), a);
	return true;
}

static struct st_pcmk_node *pcmk_node(struct st_snapshot *s, const char *name)
{
	for (size_t i = 0; i < s->npcmk; i++)
		if (strcmp(s->pcmk_nodes[i].name, name) == 0)
			return &s->pcmk_nodes[i];
	return NULL;
}

void status_parse_crm_mon(const char *xml, struct st_snapshot *s)
{
	const char *p = strstr(xml, "<nodes>"), *nodes_end = p ? strstr(p, "</nodes>") : NULL;
	char v[ST_NAME];

	while (p && nodes_end && (p = strstr(p + 1, "<node ")) && p < nodes_end &&
		s->npcmk < ST_MAX_HOSTS) {
		struct st_pcmk_node *n = &s->pcmk_nodes[s->npcmk];

		memset(n, 0, sizeof(*n));
		if (!xml_attr(p, "name", n->name, sizeof(n->name)))
			continue;
		n->online = xml_attr(p, "online", v, sizeof(v)) && strcmp(v, "true") == 0;
		if (xml_attr(p, "resources_running", v, sizeof(v)))
			n->started = (unsigned)strtoul(v, NULL, 10);
		s->npcmk++;
	}
	s->pcmk = s->npcmk > 0;
	/* a failed resource: the nodes it is on are the <node> elements inside
	 * it (none when the element closes itself) */
	for (p = xml; (p = strstr(p, "<resource ")); p++) {
		const char *gt = strchr(p, '>'), *close = strstr(p, "</resource>"), *n;
		struct st_pcmk_node *pn;

		if (!gt || gt[-1] == '/' || !close)
			continue;
		if (!xml_attr(p, "failed", v, sizeof(v)) || strcmp(v, "true") != 0)
			continue;
		for (n = gt; (n = strstr(n, "<node ")) && n < close; n++)
			if (xml_attr(n, "name", v, sizeof(v)) && (pn = pcmk_node(s, v)))
				pn->failed++;
	}
}
