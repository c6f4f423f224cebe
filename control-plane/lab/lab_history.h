/* cpha lab check-history: is a history of operations on registers (etcd
 * keys) linearizable? Pure: no I/O. lab_history.c turns event lines into
 * operations; lab_history_check.c decides.
 *
 * The rules:
 * - An event is a JSON object {"process": N, "type": "invoke"|"ok"|"fail"|
 *   "info", "f": "read"|"write"|"cas", "key": K, "value": V}. Other fields
 *   are ignored; an event whose process is not an integer (a nemesis) is
 *   skipped. A cas's value is [old, new]. A missing or null key is one
 *   default register.
 * - A completion pairs with its process's outstanding invoke (same f, same
 *   key). An invoke never completed counts as info.
 * - ok: the operation took effect once, between its invoke and its
 *   completion. fail: it did not take effect. info: unknown; it may have
 *   taken effect at any time after its invoke, or never.
 * - Every key starts absent (null); a read returns the key's value; a write
 *   sets it; a cas sets it to new when it equals old (an ok cas matched).
 * - Linearizability is decided per key (it is compositional), by Wing and
 *   Gong's search with Lowe's memo of (operations done, value) pairs. */
#ifndef CPHA_LAB_HISTORY_H
#define CPHA_LAB_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* splitmix64's finalizer: the hashes of values, processes and operations
 * (lab_history.c, lab_history_check.c) */
static inline uint64_t lab_history_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/* What an operation does. */
enum lab_hist_f {
	LAB_HIST_READ,
	LAB_HIST_WRITE,
	LAB_HIST_CAS,
};

/* How it ended. */
enum lab_hist_outcome {
	LAB_HIST_PENDING, /* no completion in the history: as info */
	LAB_HIST_OK,      /* took effect, once, between invoke and completion */
	LAB_HIST_FAIL,    /* did not take effect */
	LAB_HIST_INFO,    /* unknown */
};

/* One operation: an invoke and its completion. Keys and values are
 * indices into the history's tables. */
struct lab_hist_op {
	long process;
	enum lab_hist_f f;
	enum lab_hist_outcome outcome;
	uint32_t key;
	uint32_t value;     /* write: written; cas: old; read: read (ok only) */
	uint32_t value2;    /* cas: new */
	long invoke_line;   /* file line of the invoke */
	long complete_line; /* of the completion; 0: none */
};

/* A history being read: operations in invoke order, and the distinct keys
 * and values they name (JSON scalars, owned; two are the same when
 * json_equal says so). Value 0 is null. */
struct lab_history {
	struct lab_hist_op *ops;
	size_t nops, capops;
	json_t **keys; /* NULL stands for the default register */
	size_t nkeys, capkeys;
	json_t **values;
	size_t nvalues, capvalues;
	size_t skipped; /* events of non-integer processes */
	long last_line; /* lines must increase */
	/* private: interning and pairing tables */
	struct lab_hist__table *ktab, *vtab;
	struct lab_hist__pending *pend;
};

/* An empty history. */
void lab_history_init(struct lab_history *h);

/* Free what h holds; h is empty afterwards. */
void lab_history_free(struct lab_history *h);

/* Add the event text found on file line `line` (greater than any line
 * added before). Returns 0 (added, or skipped for a non-integer process),
 * -EINVAL with why set (bad JSON, a missing or ill-typed field, an unknown
 * type or f, a completion that pairs with nothing or with an invoke of
 * another f or key, an invoke while one is outstanding), or -ENOMEM. */
int lab_history_add(struct lab_history *h, long line, const char *text, char *why, size_t whysize);

/* Ends the history: invokes still outstanding become pending (as info). */
void lab_history_end(struct lab_history *h);

/* Bounds of the search. */
struct lab_hist_limits {
	unsigned long max_states; /* per search; past it the key is unknown */
};

#define LAB_HIST_MAX_STATES 10000000UL /* the default bound */

enum lab_hist_verdict {
	LAB_HIST_LINEARIZABLE,
	LAB_HIST_VIOLATION, /* one key is not linearizable: a witness */
	LAB_HIST_GAVE_UP,   /* no violation found, a key's search too big */
};

/* The verdict. A violation outranks a search given up on another key. */
struct lab_hist_result {
	enum lab_hist_verdict verdict;
	size_t nops;          /* operations (of integer processes) */
	size_t nkeys;         /* keys */
	size_t nunknown;      /* operations that ended info or never ended */
	uint32_t key;         /* violation or gave up: the key */
	unsigned long states; /* gave up: states explored on that key */
	/* violation: the operation no order can explain (an ok one), and the
	 * smallest window of the key's history found that is not linearizable:
	 * its operations (indices into ops, in invoke order) and the lines of
	 * their events, ascending */
	size_t op;
	size_t *window;
	size_t nwindow;
	long *lines;
	size_t nlines;
	int from_start;  /* the window begins at the history's start, every key
			  * absent; else it holds from any value at its start */
	long from_line;  /* the window's first invoke at or after its start */
	size_t nearlier; /* of the window: operations invoked before its start
			  * and not complete at it, which may or may not have
			  * taken effect before it */
};

/* Decide h (after lab_history_end). Returns 0 with res filled, or -ENOMEM.
 * Free res with lab_hist_result_free(). */
int lab_history_check(const struct lab_history *h, const struct lab_hist_limits *lim,
	struct lab_hist_result *res);

void lab_hist_result_free(struct lab_hist_result *res);

#endif
