/* cpha lab check-history: the decision (see lab_history.h).
 *
 * Per key, Wing and Gong's search with Lowe's memo (G. Lowe, "Testing for
 * linearizability", 2017): the key's invokes and completions in one list
 * by time; repeatedly take an operation whose invoke comes before every
 * completion still in the list and whose step the register allows, and
 * take it out of the list; at a completion, undo the last choice. A
 * (set of operations done, register value) pair seen once is never
 * explored again. Operations of unknown outcome have no completion: they
 * are optional, taken at any time after their invoke, or never. The
 * known operations done are kept as a 128-bit fingerprint (a random word
 * per operation, XORed in and out), so two different sets pass for one
 * with a chance of about 2^-80 over ten million states.
 *
 * Optional operations are what makes such a search explode, so they are
 * tried only where they can matter (may_follow()), the known ones first,
 * one of each group of twins (classes()), and a state is left alone when
 * one tried before was the same but had done fewer optional operations
 * (memo_add()). Each rule only drops orders that an order tried instead
 * can stand for.
 *
 * When a key fails, its witness: the first completion at which the
 * history up to it fails (a binary search: if a prefix fails, every longer
 * one fails), then the latest start s such that the operations from s to
 * that completion fail from any value at s. An operation invoked before s
 * and not complete at s may or may not have taken effect before s, so in
 * the window it becomes optional: a failing window then proves the whole
 * history fails. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lab_history.h"

#define VALUE_ANY  UINT32_MAX /* the register's value is not known yet */
#define NONE       SIZE_MAX   /* no entry */
#define RET_NEVER  LONG_MAX   /* an operation that may stay undone */
#define LINEAR_TRY 64         /* windows tried one by one before doubling */

/* An operation as the search sees it. */
struct sop {
	long call, ret; /* lines; ret RET_NEVER: optional, no completion */
	enum lab_hist_f f;
	uint32_t a, b; /* read: read; write: written; cas: old, new */
	size_t id;     /* in the history's ops */
};

/* An invoke (call) or a completion in the search's list; entry 0 heads it. */
struct entry {
	long time;
	size_t op;
	size_t match; /* a call's completion entry, or NONE */
	size_t prev, next;
	bool call;
};

struct frame {
	size_t entry;
	uint32_t state;
	uint32_t taken; /* the optional operations done (struct taken) */
	bool floated;   /* the value was set by an optional operation */
};

enum outcome {
	S_OK,
	S_FAIL,
	S_GAVE_UP,
	S_NOMEM,
};

/* The memo of states tried, each (done, value, floated, optional):
 * the known operations done as a fingerprint, the register's value, whether
 * an optional operation set it, and the optional operations done as a
 * node of `struct taken` (they are few). A state is left alone when one
 * tried before had the same known operations and value and did no more
 * optional ones (and was not more restricted): it could do all it can.
 * Open addressing; k1 == k2 == 0 is an empty slot. */
struct memo_slot {
	uint64_t k1, k2;
	uint32_t taken; /* node of the optional operations done */
	bool floated;
};

struct memo {
	struct memo_slot *slot;
	size_t cap, n;
};

/* The optional operations done along the search's path, a stack shared
 * by every state the memo holds: node 0 is the empty set, node i > 0 is
 * op[i] and everything of parent[i]. */
struct taken {
	uint32_t *op, *parent;
	size_t n, cap;
};

static uint64_t z1(size_t op)
{
	return lab_history_mix64((uint64_t)(op + 1) * 0x9e3779b97f4a7c15ULL);
}

static uint64_t z2(size_t op)
{
	return lab_history_mix64(
		((uint64_t)(op + 1) * 0xc2b2ae3d27d4eb4fULL) ^ 0x165667b19e3779f9ULL);
}

static int memo_grow(struct memo *m)
{
	size_t cap = m->cap ? m->cap * 2 : 1024;
	struct memo_slot *slot = calloc(cap, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->slot[i].k1 && !m->slot[i].k2)
			continue;
		for (j = m->slot[i].k1 & (cap - 1); slot[j].k1 || slot[j].k2;
			j = (j + 1) & (cap - 1))
			;
		slot[j] = m->slot[i];
	}
	free(m->slot);
	m->slot = slot;
	m->cap = cap;
	return 0;
}

/* Is every optional operation of node t done (done[op] set)? */
static bool taken_within(const struct taken *tk, uint32_t t, const bool *done)
{
	for (; t; t = tk->parent[t])
		if (!done[tk->op[t]])
			return false;
	return true;
}

/* Add the state (k1, k2, floated, taken t; done: the optional operations
 * done). Returns 1 when no state tried covers it, 0 when one does,
 * -ENOMEM. */
static int memo_add(struct memo *m, uint64_t k1, uint64_t k2, bool floated, uint32_t t,
	const struct taken *tk, const bool *done)
{
	size_t j;

	if (!k1 && !k2)
		k2 = 1;
	if ((m->n + 1) * 4 > m->cap * 3 && memo_grow(m) < 0)
		return -ENOMEM;
	for (j = k1 & (m->cap - 1); m->slot[j].k1 || m->slot[j].k2; j = (j + 1) & (m->cap - 1))
		if (m->slot[j].k1 == k1 && m->slot[j].k2 == k2 &&
			(!m->slot[j].floated || floated) &&
			taken_within(tk, m->slot[j].taken, done))
			return 0;
	m->slot[j] = (struct memo_slot){ k1, k2, t, floated };
	m->n++;
	return 1;
}

static int taken_push(struct taken *tk, uint32_t parent, size_t op, uint32_t *t)
{
	if (tk->n == tk->cap) {
		size_t c = tk->cap ? tk->cap * 2 : 1024;
		uint32_t *o = realloc(tk->op, c * sizeof(*o)), *p;

		if (!o)
			return -ENOMEM;
		tk->op = o;
		p = realloc(tk->parent, c * sizeof(*p));
		if (!p)
			return -ENOMEM;
		tk->parent = p;
		tk->cap = c;
	}
	if (!tk->n)
		tk->n = 1; /* node 0: the empty set */
	tk->op[tk->n] = (uint32_t)op;
	tk->parent[tk->n] = parent;
	*t = (uint32_t)tk->n++;
	return 0;
}

/* The register's step: false when op cannot happen in state. */
static bool step(const struct sop *op, uint32_t state, uint32_t *next)
{
	switch (op->f) {
	case LAB_HIST_READ:
		*next = op->a;
		return state == VALUE_ANY || state == op->a;
	case LAB_HIST_WRITE:
		*next = op->a;
		return true;
	case LAB_HIST_CAS:
		*next = op->b;
		return state == VALUE_ANY || state == op->a;
	}
	return false;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return (x->time > y->time) - (x->time < y->time);
}

static void lift(struct entry *e, size_t c)
{
	size_t r = e[c].match;

	e[e[c].prev].next = e[c].next;
	if (e[c].next != NONE)
		e[e[c].next].prev = e[c].prev;
	if (r != NONE) {
		e[e[r].prev].next = e[r].next;
		if (e[r].next != NONE)
			e[e[r].next].prev = e[r].prev;
	}
}

static void unlift(struct entry *e, size_t c)
{
	size_t r = e[c].match;

	if (r != NONE) {
		e[e[r].prev].next = r;
		if (e[r].next != NONE)
			e[e[r].next].prev = r;
	}
	e[e[c].prev].next = c;
	if (e[c].next != NONE)
		e[e[c].next].prev = c;
}

/* Optional operations that do the same (same f and values) are
 * interchangeable: of those not done yet, only the one invoked first is
 * tried. Gives each optional operation its class and its rank in it.
 * Returns the number of classes, or NONE when out of memory. */
struct twin {
	enum lab_hist_f f;
	uint32_t a, b;
	long call;
	size_t op;
};

static int cmp_twin(const void *x, const void *y)
{
	const struct twin *p = x, *q = y;

	if (p->f != q->f)
		return p->f < q->f ? -1 : 1;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	return (p->call > q->call) - (p->call < q->call);
}

static size_t classes(const struct sop *ops, size_t n, size_t *cls, size_t *rank)
{
	struct twin *t = malloc((n + 1) * sizeof(*t));
	size_t k = 0, ncls = 0;

	if (!t)
		return NONE;
	for (size_t i = 0; i < n; i++)
		if (ops[i].ret == RET_NEVER)
			t[k++] = (struct twin){ ops[i].f, ops[i].a, ops[i].b, ops[i].call, i };
	qsort(t, k, sizeof(*t), cmp_twin);
	for (size_t i = 0; i < k; i++) {
		bool same =
			i && t[i].f == t[i - 1].f && t[i].a == t[i - 1].a && t[i].b == t[i - 1].b;

		if (!same)
			ncls++;
		cls[t[i].op] = ncls - 1;
		rank[t[i].op] = same ? rank[t[i - 1].op] + 1 : 0;
	}
	free(t);
	return ncls;
}

/* May op come next, to give the value next? Orders that differ from a
 * tried one only by an optional write or cas that changes nothing seen
 * are not tried:
 * - after an optional operation set the value (flag `floated`), only one
 *   that reads that value may come: had it been overwritten unread, the
 *   optional one could as well never have happened;
 * - an optional operation must change the value, and a known one: from an
 *   unknown value (VALUE_ANY), the operation that reads it fixes it. */
static bool may_follow(const struct sop *op, uint32_t state, bool floated, uint32_t next)
{
	if (floated && (op->f == LAB_HIST_WRITE || op->a != state))
		return false;
	if (op->ret == RET_NEVER && (state == VALUE_ANY || next == state))
		return false;
	return true;
}

/* Is there an order of ops (by invoke) that the register explains from
 * init, every operation with a completion in it? *states counts the
 * states explored. */
static enum outcome search(
	const struct sop *ops, size_t n, uint32_t init, unsigned long max, unsigned long *states)
{
	struct entry *e = calloc(2 * n + 1, sizeof(*e));
	struct frame *stack = calloc(n + 1, sizeof(*stack));
	size_t *cls = calloc(n + 1, sizeof(*cls)), *rank = calloc(n + 1, sizeof(*rank));
	size_t *ntaken = calloc(n + 1, sizeof(*ntaken));
	bool *done = calloc(n + 1, sizeof(*done));
	struct memo m = { 0 };
	struct taken tk = { 0 };
	size_t ne = 1, must = 0, depth = 0, cur;
	uint64_t h1 = 0, h2 = 0;
	uint32_t state = init, t = 0;
	bool floated = false, optional_pass = false;
	enum outcome rc = S_NOMEM;

	*states = 0;
	if (!e || !stack || !cls || !rank || !ntaken || !done || classes(ops, n, cls, rank) == NONE)
		goto out;
	for (size_t i = 0; i < n; i++) {
		e[ne++] = (struct entry){ .time = ops[i].call, .op = i, .call = true };
		if (ops[i].ret != RET_NEVER) {
			e[ne++] = (struct entry){ .time = ops[i].ret, .op = i };
			must++;
		}
	}
	rc = S_OK;
	if (!must)
		goto out;
	qsort(e + 1, ne - 1, sizeof(*e), cmp_entry);
	{
		size_t *ret_of = malloc(n * sizeof(*ret_of));

		rc = S_NOMEM;
		if (!ret_of)
			goto out;
		for (size_t i = 0; i < n; i++)
			ret_of[i] = NONE;
		for (size_t i = 1; i < ne; i++)
			if (!e[i].call)
				ret_of[e[i].op] = i;
		for (size_t i = 1; i < ne; i++)
			e[i].match = e[i].call ? ret_of[e[i].op] : NONE;
		free(ret_of);
	}
	for (size_t i = 0; i < ne; i++) {
		e[i].prev = i ? i - 1 : NONE;
		e[i].next = i + 1 < ne ? i + 1 : NONE;
	}
	cur = e[0].next;
	for (;;) {
		uint32_t next;

		if (cur != NONE && e[cur].call) {
			size_t i = e[cur].op;
			const struct sop *op = &ops[i];
			bool opt = op->ret == RET_NEVER;

			if (opt == optional_pass && (!opt || rank[i] == ntaken[cls[i]]) &&
				step(op, state, &next) && may_follow(op, state, floated, next)) {
				uint64_t n1 = opt ? h1 : h1 ^ z1(i), n2 = opt ? h2 : h2 ^ z2(i);
				uint32_t nt = t;
				int r;

				if (opt) {
					done[i] = true;
					if (taken_push(&tk, t, i, &nt) < 0) {
						rc = S_NOMEM;
						goto out;
					}
				}
				r = memo_add(&m, n1 ^ lab_history_mix64(next + 0x51ULL),
					n2 ^ lab_history_mix64(
						     (uint64_t)next * 0x2545f4914f6cdd1dULL + 7),
					opt, nt, &tk, done);
				if (r < 0) {
					rc = S_NOMEM;
					goto out;
				}
				if (r > 0) {
					if (++*states > max) {
						rc = S_GAVE_UP;
						goto out;
					}
					stack[depth++] = (struct frame){ cur, state, t, floated };
					state = next;
					floated = opt;
					t = nt;
					h1 = n1;
					h2 = n2;
					lift(e, cur);
					if (opt)
						ntaken[cls[i]]++;
					else if (!--must) {
						rc = S_OK;
						goto out;
					}
					optional_pass = false;
					cur = e[0].next;
					continue;
				}
				if (opt) {
					done[i] = false;
					tk.n--; /* the node just pushed, unused */
				}
			}
			cur = e[cur].next;
			continue;
		}
		/* a completion whose operation is not done yet (or, which cannot
		 * be while one is left, the end): try the optional operations, then
		 * undo the last choice */
		if (!optional_pass) {
			optional_pass = true;
			cur = e[0].next;
			continue;
		}
		if (!depth) {
			rc = S_FAIL;
			goto out;
		}
		cur = stack[--depth].entry;
		state = stack[depth].state;
		floated = stack[depth].floated;
		t = stack[depth].taken;
		unlift(e, cur);
		optional_pass = ops[e[cur].op].ret == RET_NEVER;
		if (!optional_pass) {
			h1 ^= z1(e[cur].op);
			h2 ^= z2(e[cur].op);
			must++;
		} else {
			ntaken[cls[e[cur].op]]--;
			done[e[cur].op] = false;
		}
		cur = e[cur].next;
	}
out:
	free(tk.op);
	free(tk.parent);
	free(m.slot);
	free(done);
	free(ntaken);
	free(rank);
	free(cls);
	free(stack);
	free(e);
	return rc;
}

/* The key's operations from start s to completion r into out (n entries):
 * those invoked at or after s and before r as they are, except that one
 * completed after r becomes optional; those invoked before s and not
 * complete at s become optional too; the rest is left out. An optional
 * read changes nothing and is dropped. */
static size_t window(const struct sop *key, size_t n, long s, long r, struct sop *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n && key[i].call < r; i++) {
		struct sop o = key[i];

		if (o.call < s && o.ret < s)
			continue;
		if (o.call < s || o.ret > r)
			o.ret = RET_NEVER;
		if (o.ret == RET_NEVER && o.f == LAB_HIST_READ)
			continue;
		out[k++] = o;
	}
	return k;
}

/* Does the window (s, r] fail from init? A search given up proves nothing:
 * no. Returns 1, 0 or -ENOMEM. */
static int fails(const struct sop *key, size_t n, long s, long r, uint32_t init,
	const struct lab_hist_limits *lim, struct sop *buf)
{
	unsigned long states;
	size_t k = window(key, n, s, r, buf);

	switch (search(buf, k, init, lim->max_states, &states)) {
	case S_FAIL:
		return 1;
	case S_NOMEM:
		return -ENOMEM;
	default:
		return 0;
	}
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* Fill res's witness for a key whose operations (key, n) fail from null. */
static int witness(const struct lab_history *h, const struct sop *key, size_t n,
	const struct lab_hist_limits *lim, struct lab_hist_result *res)
{
	struct sop *buf = malloc((n + 1) * sizeof(*buf));
	long *rets = malloc((n + 1) * sizeof(*rets));
	long *calls = malloc((n + 1) * sizeof(*calls));
	size_t nr = 0, lo, hi, nc = 0, x = 0, k, best = NONE;
	long r, s;
	int f = 0, rc = -ENOMEM;

	if (!buf || !rets || !calls)
		goto out;
	for (size_t i = 0; i < n; i++)
		if (key[i].ret != RET_NEVER)
			rets[nr++] = key[i].ret;
	qsort(rets, nr, sizeof(*rets), cmp_long);
	/* the first completion at which the history fails */
	lo = 0;
	hi = nr - 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		f = fails(key, n, LONG_MIN, rets[mid], 0, lim, buf);
		if (f < 0)
			goto out;
		if (f)
			hi = mid;
		else
			lo = mid + 1;
	}
	r = rets[hi];
	for (size_t i = 0; i < n; i++)
		if (key[i].ret == r)
			x = i;
	/* the starts to try, latest first: invokes up to the failing one's */
	for (size_t i = x + 1; i-- > 0;)
		calls[nc++] = key[i].call;
	/* one by one, then doubling, then halving back to the smallest */
	lo = 0;
	for (k = 0; k < nc; k = k < LINEAR_TRY ? k + 1 : 2 * k + 1) {
		f = fails(key, n, calls[k], r, VALUE_ANY, lim, buf);
		if (f < 0)
			goto out;
		if (f) {
			best = k;
			break;
		}
		lo = k + 1;
	}
	if (best == NONE && nc > LINEAR_TRY) {
		f = fails(key, n, calls[nc - 1], r, VALUE_ANY, lim, buf);
		if (f < 0)
			goto out;
		if (f)
			best = nc - 1;
	}
	if (best != NONE && best > lo) {
		hi = best;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			f = fails(key, n, calls[mid], r, VALUE_ANY, lim, buf);
			if (f < 0)
				goto out;
			if (f)
				hi = mid;
			else
				lo = mid + 1;
		}
		best = hi;
	}
	s = best != NONE ? calls[best] : LONG_MIN;
	res->from_start = best == NONE;
	k = window(key, n, s, r, buf);
	res->from_line = best != NONE ? s : k ? buf[0].call : r;
	for (size_t i = 0; i < k; i++)
		res->nearlier += buf[i].call < s;
	res->op = key[x].id;
	res->window = malloc(k * sizeof(*res->window));
	res->lines = malloc(2 * k * sizeof(*res->lines));
	if (!res->window || !res->lines)
		goto out;
	for (size_t i = 0; i < k; i++) {
		const struct lab_hist_op *op = &h->ops[buf[i].id];

		res->window[res->nwindow++] = buf[i].id;
		res->lines[res->nlines++] = op->invoke_line;
		if (op->complete_line && op->complete_line <= r)
			res->lines[res->nlines++] = op->complete_line;
	}
	qsort(res->lines, res->nlines, sizeof(*res->lines), cmp_long);
	rc = 0;
out:
	free(calls);
	free(rets);
	free(buf);
	return rc;
}

/* The operations of key that matter, in invoke order: failed ones and
 * reads without an answer are left out, and so is a write or cas of
 * unknown outcome whose new value nothing reads (it can always come last
 * or never). A value is read by an ok read, as the old value of an ok cas,
 * or as the old value of a cas of unknown outcome whose own new value is
 * read. seen: scratch of h->nvalues bytes. */
static size_t key_ops(
	const struct lab_history *h, uint32_t key, unsigned char *seen, struct sop *out)
{
	size_t k = 0;
	bool more = true;

	memset(seen, 0, h->nvalues);
	for (size_t i = 0; i < h->nops; i++) {
		const struct lab_hist_op *op = &h->ops[i];

		if (op->key == key && op->outcome == LAB_HIST_OK && op->f != LAB_HIST_WRITE)
			seen[op->value] = 1;
	}
	while (more) {
		more = false;
		for (size_t i = 0; i < h->nops; i++) {
			const struct lab_hist_op *op = &h->ops[i];

			if (op->key != key || op->f != LAB_HIST_CAS ||
				(op->outcome != LAB_HIST_INFO && op->outcome != LAB_HIST_PENDING))
				continue;
			if (seen[op->value2] && !seen[op->value]) {
				seen[op->value] = 1;
				more = true;
			}
		}
	}
	for (size_t i = 0; i < h->nops; i++) {
		const struct lab_hist_op *op = &h->ops[i];
		bool known = op->outcome == LAB_HIST_OK;
		struct sop o = { .call = op->invoke_line,
			.f = op->f,
			.a = op->value,
			.b = op->value2,
			.id = i };

		if (op->key != key || op->outcome == LAB_HIST_FAIL)
			continue;
		if (op->f == LAB_HIST_READ && !known)
			continue;
		if (!known && !seen[op->f == LAB_HIST_CAS ? op->value2 : op->value])
			continue;
		o.ret = known ? op->complete_line : RET_NEVER;
		out[k++] = o;
	}
	return k;
}

int lab_history_check(
	const struct lab_history *h, const struct lab_hist_limits *lim, struct lab_hist_result *res)
{
	struct sop *ops = malloc((h->nops + 1) * sizeof(*ops));
	unsigned char *seen = malloc(h->nvalues + 1);
	bool gave_up = false;
	int rc = -ENOMEM;

	memset(res, 0, sizeof(*res));
	res->verdict = LAB_HIST_LINEARIZABLE;
	res->nops = h->nops;
	res->nkeys = h->nkeys;
	for (size_t i = 0; i < h->nops; i++)
		res->nunknown +=
			h->ops[i].outcome == LAB_HIST_INFO || h->ops[i].outcome == LAB_HIST_PENDING;
	if (!ops || !seen)
		goto out;
	for (uint32_t key = 0; key < h->nkeys; key++) {
		size_t n = key_ops(h, key, seen, ops);
		unsigned long states;

		switch (search(ops, n, 0, lim->max_states, &states)) {
		case S_OK:
			break;
		case S_NOMEM:
			goto out;
		case S_GAVE_UP:
			if (!gave_up) {
				gave_up = true;
				res->key = key;
				res->states = states;
			}
			break;
		case S_FAIL:
			res->verdict = LAB_HIST_VIOLATION;
			res->key = key;
			res->states = 0;
			rc = witness(h, ops, n, lim, res);
			goto out;
		}
	}
	if (gave_up)
		res->verdict = LAB_HIST_GAVE_UP;
	rc = 0;
out:
	free(seen);
	free(ops);
	return rc;
}

void lab_hist_result_free(struct lab_hist_result *res)
{
	free(res->window);
	free(res->lines);
	res->window = NULL;
	res->lines = NULL;
	res->nwindow = res->nlines = 0;
}
