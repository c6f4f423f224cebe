/* cpha lab check-history: event lines to operations (see lab_history.h).
 * Keys and values are interned (an index per distinct JSON scalar) so the
 * search compares integers; invokes are paired with their completions
 * through a table of each process's outstanding invoke. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lab_history.h"

/* An open-addressing set of interned JSON scalars: slot holds index + 1,
 * 0 is empty. */
struct lab_hist__table {
	uint32_t *slot;
	size_t cap; /* a power of two, or 0 */
};

/* Each process's outstanding invoke: proc -1 is empty, -2 a tombstone. */
struct lab_hist__pending {
	long *proc;
	size_t *op;
	size_t cap, used; /* used counts tombstones too */
};

#define PEND_EMPTY -1L /* a free slot */
#define PEND_GONE  -2L /* a slot whose process completed */

static const char *const f_names[] = { "read", "write", "cas" };

static void say(char *why, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
}

/* A hash that agrees with json_equal on scalars (NULL: the default key). */
static uint64_t scalar_hash(const json_t *v)
{
	uint64_t h;

	if (!v)
		return 0x5bd1e995;
	switch (json_typeof(v)) {
	case JSON_STRING: {
		const unsigned char *s = (const unsigned char *)json_string_value(v);
		size_t n = json_string_length(v);

		h = 1469598103934665603ULL;
		for (size_t i = 0; i < n; i++)
			h = (h ^ s[i]) * 1099511628211ULL;
		return lab_history_mix64(h ^ 1);
	}
	case JSON_INTEGER:
		return lab_history_mix64((uint64_t)json_integer_value(v) ^ 2);
	case JSON_REAL: {
		double d = json_real_value(v);

		if (d == 0)
			d = 0; /* -0.0 equals 0.0 */
		memcpy(&h, &d, sizeof(h));
		return lab_history_mix64(h ^ 3);
	}
	default:
		return lab_history_mix64((uint64_t)json_typeof(v) + 4);
	}
}

static bool same(const json_t *a, const json_t *b)
{
	if (!a || !b)
		return a == b;
	return json_equal((json_t *)a, (json_t *)b);
}

static int table_grow(struct lab_hist__table *t, json_t **items, size_t n)
{
	size_t cap = t->cap ? t->cap * 2 : 64;
	uint32_t *slot = calloc(cap, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		size_t j = scalar_hash(items[i]) & (cap - 1);

		while (slot[j])
			j = (j + 1) & (cap - 1);
		slot[j] = (uint32_t)i + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->cap = cap;
	return 0;
}

/* The index of v in items (appending a new reference to it when it is not
 * there yet). Returns 0 or -ENOMEM. */
static int intern(
	struct lab_hist__table *t, json_t ***items, size_t *n, size_t *cap, json_t *v, uint32_t *id)
{
	size_t j;

	if ((*n + 1) * 2 > t->cap && table_grow(t, *items, *n) < 0)
		return -ENOMEM;
	j = scalar_hash(v) & (t->cap - 1);
	for (; t->slot[j]; j = (j + 1) & (t->cap - 1))
		if (same((*items)[t->slot[j] - 1], v)) {
			*id = t->slot[j] - 1;
			return 0;
		}
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		json_t **p = realloc(*items, c * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*items = p;
		*cap = c;
	}
	(*items)[*n] = v ? json_incref(v) : NULL;
	t->slot[j] = (uint32_t)*n + 1;
	*id = (uint32_t)(*n)++;
	return 0;
}

static size_t pend_find(const struct lab_hist__pending *p, long proc)
{
	size_t j = lab_history_mix64((uint64_t)proc) & (p->cap - 1);

	while (p->proc[j] != PEND_EMPTY && p->proc[j] != proc)
		j = (j + 1) & (p->cap - 1);
	return j;
}

/* Rebuild p with room for four times its live processes (tombstones go). */
static int pend_rehash(struct lab_hist__pending *p)
{
	struct lab_hist__pending q = { .cap = 64 };
	size_t live = 0;

	for (size_t i = 0; i < p->cap; i++)
		live += p->proc[i] >= 0;
	while (q.cap < live * 4)
		q.cap *= 2;
	q.proc = malloc(q.cap * sizeof(*q.proc));
	q.op = malloc(q.cap * sizeof(*q.op));
	if (!q.proc || !q.op) {
		free(q.proc);
		free(q.op);
		return -ENOMEM;
	}
	for (size_t i = 0; i < q.cap; i++)
		q.proc[i] = PEND_EMPTY;
	for (size_t i = 0; i < p->cap; i++)
		if (p->proc[i] >= 0) {
			size_t j = pend_find(&q, p->proc[i]);

			q.proc[j] = p->proc[i];
			q.op[j] = p->op[i];
			q.used++;
		}
	free(p->proc);
	free(p->op);
	*p = q;
	return 0;
}

void lab_history_init(struct lab_history *h)
{
	memset(h, 0, sizeof(*h));
}

void lab_history_free(struct lab_history *h)
{
	for (size_t i = 0; i < h->nkeys; i++)
		json_decref(h->keys[i]);
	for (size_t i = 0; i < h->nvalues; i++)
		json_decref(h->values[i]);
	free(h->ops);
	free(h->keys);
	free(h->values);
	if (h->ktab)
		free(h->ktab->slot);
	if (h->vtab)
		free(h->vtab->slot);
	free(h->ktab);
	free(h->vtab);
	if (h->pend) {
		free(h->pend->proc);
		free(h->pend->op);
	}
	free(h->pend);
	memset(h, 0, sizeof(*h));
}

void lab_history_end(struct lab_history *h)
{
	/* what is still outstanding stays LAB_HIST_PENDING */
	if (h->pend) {
		free(h->pend->proc);
		free(h->pend->op);
		memset(h->pend, 0, sizeof(*h->pend));
	}
}

static bool is_scalar(const json_t *v)
{
	return v && !json_is_object(v) && !json_is_array(v);
}

static int value_id(struct lab_history *h, json_t *v, uint32_t *id)
{
	return intern(h->vtab, &h->values, &h->nvalues, &h->capvalues, v, id);
}

/* The [old, new] of a cas, or -EINVAL. */
static int cas_pair(json_t *v, json_t **old, json_t **new)
{
	if (!json_is_array(v) || json_array_size(v) != 2 || !is_scalar(json_array_get(v, 0)) ||
		!is_scalar(json_array_get(v, 1)))
		return -EINVAL;
	*old = json_array_get(v, 0);
	*new = json_array_get(v, 1);
	return 0;
}

static int lookup(const char *name, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(name, names[i]))
			return (int)i;
	return -1;
}

static int add_invoke(struct lab_history *h, long line, long proc, enum lab_hist_f f, uint32_t key,
	json_t *value, char *why, size_t whysize)
{
	struct lab_hist_op op = { .process = proc,
		.f = f,
		.outcome = LAB_HIST_PENDING,
		.key = key,
		.invoke_line = line };
	struct lab_hist__pending *p = h->pend;
	json_t *old, *new;
	size_t j;

	j = pend_find(p, proc);
	if (p->proc[j] == proc) {
		say(why, whysize,
			"process %ld invokes while its invoke at line %ld is still outstanding",
			proc, h->ops[p->op[j]].invoke_line);
		return -EINVAL;
	}
	if (f == LAB_HIST_WRITE) {
		if (!is_scalar(value)) {
			say(why, whysize,
				"a write's invoke needs a \"value\" that is a JSON scalar");
			return -EINVAL;
		}
		if (value_id(h, value, &op.value) < 0)
			return -ENOMEM;
	} else if (f == LAB_HIST_CAS) {
		if (cas_pair(value, &old, &new) < 0) {
			say(why, whysize,
				"a cas's \"value\" must be [old, new] (two JSON scalars)");
			return -EINVAL;
		}
		if (value_id(h, old, &op.value) < 0 || value_id(h, new, &op.value2) < 0)
			return -ENOMEM;
	}
	if (h->nops == h->capops) {
		size_t c = h->capops ? h->capops * 2 : 256;
		struct lab_hist_op *o = realloc(h->ops, c * sizeof(*o));

		if (!o)
			return -ENOMEM;
		h->ops = o;
		h->capops = c;
	}
	if ((p->used + 1) * 2 > p->cap) {
		if (pend_rehash(p) < 0)
			return -ENOMEM;
		j = pend_find(p, proc);
	}
	if (p->proc[j] == PEND_EMPTY)
		p->used++;
	p->proc[j] = proc;
	p->op[j] = h->nops;
	h->ops[h->nops++] = op;
	return 0;
}

static int add_completion(struct lab_history *h, long line, long proc, enum lab_hist_outcome out,
	const char *type, enum lab_hist_f f, json_t *ev, char *why, size_t whysize)
{
	struct lab_hist__pending *p = h->pend;
	size_t j = pend_find(p, proc);
	struct lab_hist_op *op;
	json_t *key = json_object_get(ev, "key"), *value = json_object_get(ev, "value");
	json_t *old, *new;

	if (p->proc[j] != proc) {
		say(why, whysize, "process %ld completes (%s) with no outstanding invoke", proc,
			type);
		return -EINVAL;
	}
	op = &h->ops[p->op[j]];
	if (op->f != f) {
		say(why, whysize, "process %ld completes a %s but invoked a %s at line %ld", proc,
			f_names[f], f_names[op->f], op->invoke_line);
		return -EINVAL;
	}
	if (key && !same(json_is_null(key) ? NULL : key, h->keys[op->key])) {
		say(why, whysize, "the key differs from that of its invoke at line %ld",
			op->invoke_line);
		return -EINVAL;
	}
	if (out == LAB_HIST_OK && f == LAB_HIST_READ) {
		if (!is_scalar(value)) {
			say(why, whysize, "a read's ok needs a \"value\" that is a JSON scalar");
			return -EINVAL;
		}
		if (value_id(h, value, &op->value) < 0)
			return -ENOMEM;
	} else if (out == LAB_HIST_OK && f == LAB_HIST_WRITE && value) {
		if (!same(value, h->values[op->value])) {
			say(why, whysize,
				"the write's ok carries another value than its invoke at "
				"line %ld",
				op->invoke_line);
			return -EINVAL;
		}
	} else if (out == LAB_HIST_OK && f == LAB_HIST_CAS && value) {
		if (cas_pair(value, &old, &new) < 0 || !same(old, h->values[op->value]) ||
			!same(new, h->values[op->value2])) {
			say(why, whysize,
				"the cas's ok carries another [old, new] than its invoke "
				"at line %ld",
				op->invoke_line);
			return -EINVAL;
		}
	}
	op->outcome = out;
	op->complete_line = line;
	p->proc[j] = PEND_GONE;
	return 0;
}

int lab_history_add(struct lab_history *h, long line, const char *text, char *why, size_t whysize)
{
	static const char *const types[] = { "invoke", "ok", "fail", "info" };
	static const enum lab_hist_outcome outcomes[] = { LAB_HIST_PENDING, LAB_HIST_OK,
		LAB_HIST_FAIL, LAB_HIST_INFO };
	json_error_t jerr;
	json_t *ev, *v, *key;
	const char *type;
	long proc;
	uint32_t kid;
	int t, f, r = -EINVAL;

	if (line <= h->last_line) {
		say(why, whysize, "line %ld after line %ld", line, h->last_line);
		return -EINVAL;
	}
	h->last_line = line;
	if (!h->ktab || !h->vtab || !h->pend) {
		if (!h->ktab)
			h->ktab = calloc(1, sizeof(*h->ktab));
		if (!h->vtab)
			h->vtab = calloc(1, sizeof(*h->vtab));
		if (!h->pend)
			h->pend = calloc(1, sizeof(*h->pend));
		if (!h->ktab || !h->vtab || !h->pend)
			return -ENOMEM;
	}
	if (!h->pend->cap && pend_rehash(h->pend) < 0)
		return -ENOMEM;
	if (!h->nvalues && value_id(h, json_null(), &kid) < 0)
		return -ENOMEM; /* null is value 0 */
	ev = json_loads(text, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
	if (!ev) {
		say(why, whysize, "not JSON: %s (column %d)", jerr.text, jerr.column);
		return -EINVAL;
	}
	if (!json_is_object(ev)) {
		say(why, whysize, "an event must be a JSON object");
		goto out;
	}
	v = json_object_get(ev, "process");
	if (!v) {
		say(why, whysize, "no \"process\"");
		goto out;
	}
	if (!json_is_integer(v)) {
		h->skipped++; /* a nemesis, or another actor that is no client */
		r = 0;
		goto out;
	}
	if (json_integer_value(v) < 0) {
		say(why, whysize, "\"process\" must be a non-negative integer");
		goto out;
	}
	proc = (long)json_integer_value(v);
	v = json_object_get(ev, "type");
	type = json_string_value(v);
	if (!type || (t = lookup(type, types, 4)) < 0) {
		say(why, whysize, "\"type\" must be \"invoke\", \"ok\", \"fail\" or \"info\"");
		goto out;
	}
	v = json_object_get(ev, "f");
	if (!json_string_value(v) || (f = lookup(json_string_value(v), f_names, 3)) < 0) {
		say(why, whysize, "\"f\" must be \"read\", \"write\" or \"cas\"");
		goto out;
	}
	key = json_object_get(ev, "key");
	if (key && !json_is_null(key) && !json_is_integer(key) && !json_is_string(key)) {
		say(why, whysize, "\"key\" must be an integer or a string");
		goto out;
	}
	if (t == 0) {
		if (intern(h->ktab, &h->keys, &h->nkeys, &h->capkeys,
			    key && !json_is_null(key) ? key : NULL, &kid) < 0) {
			r = -ENOMEM;
			goto out;
		}
		r = add_invoke(h, line, proc, (enum lab_hist_f)f, kid, json_object_get(ev, "value"),
			why, whysize);
	} else {
		r = add_completion(
			h, line, proc, outcomes[t], type, (enum lab_hist_f)f, ev, why, whysize);
	}
out:
	json_decref(ev);
	return r;
}
