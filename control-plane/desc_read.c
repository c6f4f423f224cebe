/* Reading typed values out of libyaml's document nodes for desc.c. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfgmsg.h"
#include "desc_read.h"
#include "duration.h"

struct cpha_pos desc_pos(const yaml_node_t *n)
{
	struct cpha_pos p = { (unsigned)n->start_mark.line + 1,
		(unsigned)n->start_mark.column + 1 };
	return p;
}

void desc_err(struct rd *r, const yaml_node_t *n, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	cpha_msgs_err(r->d, r->file, desc_pos(n), "%s", buf);
}

void *desc_calloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz);
	if (!p)
		cpha_oom();
	return p;
}

char *desc_strdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		cpha_oom();
	return p;
}

const char *desc_type_name(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE:
		return "a scalar";
	case YAML_SEQUENCE_NODE:
		return "a list";
	case YAML_MAPPING_NODE:
		return "a mapping";
	default:
		return "nothing";
	}
}

const char *desc_scalar(struct rd *r, const yaml_node_t *n, const char *key)
{
	if (n->type != YAML_SCALAR_NODE) {
		desc_err(r, n, "%s: expected a value, found %s", key, desc_type_name(n));
		return NULL;
	}
	return (const char *)n->data.scalar.value;
}

/* A scalar written as null ("~", "null", or nothing). */
bool desc_is_null(const yaml_node_t *n)
{
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	const char *v = (const char *)n->data.scalar.value;
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
	       !strcmp(v, "NULL");
}

int desc_str(struct rd *r, const yaml_node_t *n, const char *key, char **out)
{
	const char *v = desc_scalar(r, n, key);
	if (!v)
		return -1;
	if (!*v) {
		desc_err(r, n, "%s: empty value", key);
		return -1;
	}
	free(*out);
	*out = desc_strdup(v);
	return 0;
}

int desc_uint(struct rd *r, const yaml_node_t *n, const char *key, unsigned lo, unsigned hi,
	unsigned *out)
{
	const char *v = desc_scalar(r, n, key);
	char *end;
	unsigned long x;

	if (!v)
		return -1;
	errno = 0;
	x = strtoul(v, &end, 10);
	if (!*v || *end || errno || *v == '-' || x < lo || x > hi) {
		desc_err(r, n, "%s: '%s' is not a whole number from %u to %u", key, v, lo, hi);
		return -1;
	}
	*out = (unsigned)x;
	return 0;
}

int desc_bool(struct rd *r, const yaml_node_t *n, const char *key, bool *out)
{
	const char *const yes[] = { "true", "True", "TRUE", "yes", "Yes", "on", NULL };
	const char *const no[] = { "false", "False", "FALSE", "no", "No", "off", NULL };
	const char *v = desc_scalar(r, n, key);

	if (!v)
		return -1;
	for (size_t i = 0; yes[i]; i++)
		if (!strcmp(v, yes[i]))
			return *out = true, 0;
	for (size_t i = 0; no[i]; i++)
		if (!strcmp(v, no[i]))
			return *out = false, 0;
	desc_err(r, n, "%s: '%s' is not true or false", key, v);
	return -1;
}

int desc_duration(struct rd *r, const yaml_node_t *n, const char *key, uint64_t *out)
{
	const char *v = desc_scalar(r, n, key), *why = NULL;

	if (!v)
		return -1;
	/* "5s", "500ms"; a bare number is seconds */
	if (cpha_parse_duration(v, 1000000, out, &why) < 0) {
		desc_err(r, n, "%s: '%s': %s", key, v, why ? why : "not a duration (5s, 500ms)");
		return -1;
	}
	return 0;
}

int desc_enum(
	struct rd *r, const yaml_node_t *n, const char *key, const char *const *names, int *out)
{
	const char *v = desc_scalar(r, n, key);
	char list[256] = "";

	if (!v)
		return -1;
	for (int i = 0; names[i]; i++) {
		if (!strcmp(v, names[i]))
			return *out = i, 0;
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
			names[i]);
	}
	desc_err(r, n, "%s: '%s' is not one of %s", key, v, list);
	return -1;
}

/* A list of strings, NULL-terminated. */
int desc_strv(struct rd *r, const yaml_node_t *n, const char *key, char ***out)
{
	size_t len, i = 0;
	char **v;

	if (n->type != YAML_SEQUENCE_NODE) {
		desc_err(r, n, "%s: expected a list, found %s", key, desc_type_name(n));
		return -1;
	}
	len = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
	v = desc_calloc(len + 1, sizeof(*v));
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
		it++) {
		yaml_node_t *e = yaml_document_get_node(r->doc, *it);
		const char *s = desc_scalar(r, e, key);
		if (!s || !*s) {
			if (s)
				desc_err(r, e, "%s: empty entry", key);
			continue;
		}
		v[i++] = desc_strdup(s);
	}
	if (*out)
		for (char **p = *out; *p; p++)
			free(*p);
	free(*out);
	*out = v;
	return 0;
}

/* Walk a mapping: every key must be in keys (an error otherwise, naming the
 * ones allowed); a key given twice is an error. */
int desc_walk(
	struct rd *r, const yaml_node_t *m, const char *what, const struct key *keys, void *obj)
{
	unsigned seen = 0;
	int rc = 0;

	if (m->type != YAML_MAPPING_NODE) {
		desc_err(r, m, "%s: expected a mapping, found %s", what, desc_type_name(m));
		return -1;
	}
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top;
		p++) {
		yaml_node_t *k = yaml_document_get_node(r->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(r->doc, p->value);
		const char *name;
		size_t i;

		if (k->type != YAML_SCALAR_NODE) {
			desc_err(r, k, "%s: a key must be a plain name", what);
			rc = -1;
			continue;
		}
		name = (const char *)k->data.scalar.value;
		for (i = 0; keys[i].name && strcmp(keys[i].name, name); i++)
			;
		if (!keys[i].name) {
			char list[512] = "";
			for (size_t j = 0; keys[j].name; j++)
				snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
					j ? ", " : "", keys[j].name);
			desc_err(r, k, "%s: unknown key '%s' (known: %s)", what, name, list);
			rc = -1;
			continue;
		}
		if (seen & (1u << i)) {
			desc_err(r, k, "%s: '%s' given twice", what, name);
			rc = -1;
			continue;
		}
		seen |= 1u << i;
		if (keys[i].fn(r, v, obj, name) < 0)
			rc = -1;
	}
	return rc;
}
