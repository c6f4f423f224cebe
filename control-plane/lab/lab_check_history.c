/* cpha lab check-history [--json] [--max-states N] FILE: read a history of
 * register operations (JSON Lines; FILE - is standard input), ask
 * lab_history.h whether it is linearizable, print the verdict. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "buf.h"
#include "lab.h"
#include "lab_history.h"

#define CH_EXIT_LINEARIZABLE 0 /* every key linearizable */
#define CH_EXIT_VIOLATION    1 /* a key is not: the witness is printed */
#define CH_EXIT_BAD          2 /* bad input or usage (or out of memory) */
#define CH_EXIT_GAVE_UP      3 /* no violation found, a search too big */

#define PROG "cpha lab check-history"

/* The file's lines, kept to print the witness's events. */
struct lines {
	char **v; /* v[i]: line i + 1, or NULL for a blank one */
	size_t n, cap;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [--json] [--max-states N] FILE\n"
		"  FILE: JSON Lines, one event per line ({\"process\": N, \"type\": "
		"\"invoke\"|\"ok\"|\"fail\"|\"info\",\n"
		"        \"f\": \"read\"|\"write\"|\"cas\", \"key\": K, \"value\": V}); - "
		"reads standard input\n"
		"  exit 0 linearizable, 1 not (the smallest failing window is printed), 2 bad "
		"input,\n"
		"  3 gave up after N states on a key (default %lu)\n",
		LAB_HIST_MAX_STATES);
}

static void lines_free(struct lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

/* Read every event of f into h, keeping its lines in l. Returns 0, or
 * CH_EXIT_BAD (printed). */
static int read_history(FILE *f, const char *name, struct lab_history *h, struct lines *l)
{
	char *line = NULL, why[300];
	size_t cap = 0;
	ssize_t n;
	int rc = CH_EXIT_BAD;

	while ((n = getline(&line, &cap, f)) != -1) {
		bool blank = true;
		int r;

		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		for (ssize_t i = 0; i < n; i++)
			if (!strchr(" \t\r\f\v", line[i]))
				blank = false;
		if (l->n == l->cap) {
			size_t c = l->cap ? l->cap * 2 : 1024;
			char **v = realloc(l->v, c * sizeof(*v));

			if (!v)
				goto nomem;
			l->v = v;
			l->cap = c;
		}
		l->v[l->n] = blank ? NULL : strdup(line);
		if (!blank && !l->v[l->n])
			goto nomem;
		l->n++;
		if (blank)
			continue;
		r = lab_history_add(h, (long)l->n, line, why, sizeof(why));
		if (r == -ENOMEM)
			goto nomem;
		if (r < 0) {
			fprintf(stderr, PROG ": %s:%zu: %s\n", name, l->n, why);
			goto out;
		}
	}
	if (ferror(f)) {
		fprintf(stderr, PROG ": %s: %s\n", name, strerror(errno));
		goto out;
	}
	lab_history_end(h);
	rc = 0;
	goto out;
nomem:
	fprintf(stderr, PROG ": %s: out of memory\n", name);
out:
	free(line);
	return rc;
}

/* JSON text of a key (the default register: "the default key"). */
static int put_key(struct cpha_buf *b, const struct lab_history *h, uint32_t key)
{
	char *s;
	int r;

	if (!h->keys[key])
		return cpha_buf_puts(b, "the default key");
	s = json_dumps(h->keys[key], JSON_ENCODE_ANY);
	if (!s)
		return -ENOMEM;
	r = cpha_buf_printf(b, "key %s", s);
	free(s);
	return r;
}

static int put_value(struct cpha_buf *b, const struct lab_history *h, uint32_t v)
{
	char *s = json_dumps(h->values[v], JSON_ENCODE_ANY);
	int r;

	if (!s)
		return -ENOMEM;
	r = cpha_buf_puts(b, s);
	free(s);
	return r;
}

/* The one-line explanation of a violation. */
static int explain(
	struct cpha_buf *b, const struct lab_history *h, const struct lab_hist_result *res)
{
	const struct lab_hist_op *op = &h->ops[res->op];
	int r = 0;

	switch (op->f) {
	case LAB_HIST_READ:
		r |= cpha_buf_puts(b, "read of ");
		r |= put_key(b, h, op->key);
		r |= cpha_buf_puts(b, " returned ");
		r |= put_value(b, h, op->value);
		break;
	case LAB_HIST_WRITE:
		r |= cpha_buf_puts(b, "write of ");
		r |= put_value(b, h, op->value);
		r |= cpha_buf_puts(b, " to ");
		r |= put_key(b, h, op->key);
		r |= cpha_buf_puts(b, " acknowledged");
		break;
	case LAB_HIST_CAS:
		r |= cpha_buf_puts(b, "cas of ");
		r |= put_key(b, h, op->key);
		r |= cpha_buf_puts(b, " from ");
		r |= put_value(b, h, op->value);
		r |= cpha_buf_puts(b, " to ");
		r |= put_value(b, h, op->value2);
		r |= cpha_buf_puts(b, " acknowledged");
		break;
	}
	if (res->from_start)
		r |= cpha_buf_printf(b,
			" at line %ld: no order of the %zu operations from the start (the key "
			"absent) to line %ld explains it",
			op->complete_line, res->nwindow, op->complete_line);
	else
		r |= cpha_buf_printf(b,
			" at line %ld: no order of the %zu operations between lines %ld and %ld%s "
			"explains it",
			op->complete_line, res->nwindow - res->nearlier, res->from_line,
			op->complete_line,
			res->nearlier ? " (with those invoked before and still open)" : "");
	return r ? -ENOMEM : 0;
}

static int print_json(
	const struct lab_history *h, const struct lab_hist_result *res, const char *explanation)
{
	json_t *o = json_object(), *v = NULL, *lines;
	int r = 0;

	if (!o)
		return -ENOMEM;
	r |= json_object_set_new(o, "linearizable",
		res->verdict == LAB_HIST_GAVE_UP
			? json_null()
			: json_boolean(res->verdict == LAB_HIST_LINEARIZABLE));
	r |= json_object_set_new(o, "operations", json_integer((json_int_t)res->nops));
	r |= json_object_set_new(o, "keys", json_integer((json_int_t)res->nkeys));
	r |= json_object_set_new(o, "unknown", json_integer((json_int_t)res->nunknown));
	if (res->verdict != LAB_HIST_LINEARIZABLE) {
		json_t *key = h->keys[res->key];

		v = json_object();
		r |= json_object_set_new(
			o, res->verdict == LAB_HIST_VIOLATION ? "violation" : "gave_up", v);
		r |= json_object_set_new(v, "key", key ? json_incref(key) : json_null());
	}
	if (res->verdict == LAB_HIST_VIOLATION && v) {
		lines = json_array();
		for (size_t i = 0; lines && i < res->nlines; i++)
			r |= json_array_append_new(lines, json_integer(res->lines[i]));
		r |= json_object_set_new(v, "lines", lines);
		r |= json_object_set_new(v, "op_line", json_integer(h->ops[res->op].complete_line));
		r |= json_object_set_new(v, "from_line", json_integer(res->from_line));
		r |= json_object_set_new(v, "from_start", json_boolean(res->from_start));
		r |= json_object_set_new(v, "explanation", json_string(explanation));
	} else if (res->verdict == LAB_HIST_GAVE_UP && v) {
		r |= json_object_set_new(v, "states", json_integer((json_int_t)res->states));
	}
	if (!r)
		r = json_dumpf(o, stdout, JSON_INDENT(2) | JSON_ENSURE_ASCII);
	if (!r)
		putchar('\n');
	json_decref(o);
	return r ? -ENOMEM : 0;
}

static int print_text(const struct lab_history *h, const struct lab_hist_result *res,
	const struct lines *l, const char *explanation)
{
	struct cpha_buf key = { 0 };

	if (put_key(&key, h, res->key) < 0)
		return -ENOMEM;
	switch (res->verdict) {
	case LAB_HIST_LINEARIZABLE:
		printf("linearizable: %zu operation%s on %zu key%s (%zu unknown outcome%s)\n",
			res->nops, res->nops == 1 ? "" : "s", res->nkeys,
			res->nkeys == 1 ? "" : "s", res->nunknown, res->nunknown == 1 ? "" : "s");
		break;
	case LAB_HIST_GAVE_UP:
		printf("unknown: search gave up after %lu states on %s\n", res->states, key.data);
		break;
	case LAB_HIST_VIOLATION:
		printf("not linearizable: %s\n", key.data);
		for (size_t i = 0; i < res->nlines; i++)
			printf("%6ld  %s\n", res->lines[i], l->v[res->lines[i] - 1]);
		printf("%s\n", explanation);
		break;
	}
	cpha_buf_free(&key);
	return 0;
}

int cmd_lab_check_history(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "max-states", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct lab_hist_limits lim = { .max_states = LAB_HIST_MAX_STATES };
	struct lab_history h;
	struct lab_hist_result res = { 0 };
	struct lines l = { 0 };
	struct cpha_buf why = { 0 };
	const char *path, *name;
	bool json = false;
	FILE *f;
	int c, rc = CH_EXIT_BAD;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'm': {
			char *end;

			errno = 0;
			lim.max_states = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || !lim.max_states || optarg[0] == '-') {
				fprintf(stderr, PROG ": --max-states: not a positive integer: %s\n",
					optarg);
				return CH_EXIT_BAD;
			}
			break;
		}
		case 'h':
			usage(stdout);
			return CH_EXIT_LINEARIZABLE;
		default:
			fprintf(stderr, PROG ": %s: unknown option or missing value\n",
				argv[optind - 1]);
			usage(stderr);
			return CH_EXIT_BAD;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, PROG ": %s\n",
			optind < argc ? "one FILE only"
				      : "FILE is required (- for standard input)");
		usage(stderr);
		return CH_EXIT_BAD;
	}
	path = argv[optind];
	name = strcmp(path, "-") ? path : "stdin";
	f = strcmp(path, "-") ? fopen(path, "re") : stdin;
	if (!f) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		return CH_EXIT_BAD;
	}
	lab_history_init(&h);
	if (read_history(f, name, &h, &l))
		goto out;
	if (lab_history_check(&h, &lim, &res) < 0 ||
		(res.verdict == LAB_HIST_VIOLATION && explain(&why, &h, &res) < 0)) {
		fprintf(stderr, PROG ": %s: out of memory\n", name);
		goto out;
	}
	if ((json ? print_json(&h, &res, why.data) : print_text(&h, &res, &l, why.data)) < 0 ||
		fflush(stdout) == EOF) {
		fprintf(stderr, PROG ": standard output: %s\n", strerror(errno ? errno : ENOMEM));
		goto out;
	}
	rc = res.verdict == LAB_HIST_LINEARIZABLE ? CH_EXIT_LINEARIZABLE
	     : res.verdict == LAB_HIST_VIOLATION  ? CH_EXIT_VIOLATION
						  : CH_EXIT_GAVE_UP;
out:
	cpha_buf_free(&why);
	lab_hist_result_free(&res);
	lab_history_free(&h);
	lines_free(&l);
	if (f != stdin)
		fclose(f);
	return rc;
}
