/* What a configuration parser or checker reports, collected instead of
 * logged. struct cpha_msgs is what a parser hands back: errors and warnings,
 * each with its text as printed and its place (line, and column where the
 * parser knows one). struct cpha_cfgdiag is the collector a parser fills
 * while it reads: errors and notices, each "file:line: text" with the place it concerns,
 * the names of the files read, and the rule that parsing stops after too
 * many errors or when memory runs out. Also the lookup of a
 * keyword in a parser's table, which tells an unknown keyword from one that
 * is known but not allowed where it was written.
 *
 * A location ("loc") is a file index and a line in one unsigned:
 * CPHA_CFGDIAG_LOC(file, line). Loc 0 is the first file without a line. */
#ifndef CPHA_CFGDIAG_H
#define CPHA_CFGDIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define CPHA_CFGDIAG_LINE_BITS 25 /* a 16 MiB file has fewer lines than 2^25 */
#define CPHA_CFGDIAG_LINE_MASK ((1u << CPHA_CFGDIAG_LINE_BITS) - 1)
#define CPHA_CFGDIAG_LOC(f, l)                                                                     \
	(((unsigned)(f) << CPHA_CFGDIAG_LINE_BITS) | ((unsigned)(l)&CPHA_CFGDIAG_LINE_MASK))
#define CPHA_CFGDIAG_LOC_FILE(l) ((l) >> CPHA_CFGDIAG_LINE_BITS)
#define CPHA_CFGDIAG_LOC_LINE(l) ((l)&CPHA_CFGDIAG_LINE_MASK)

/* A place in a file: 1-based line and column; 0 for what is not known
 * (0/0: the file as a whole, or a default). */
struct cpha_pos {
	unsigned line, col;
};

/* One message handed back: its text as printed and the place it concerns. */
struct cpha_msg {
	struct cpha_pos pos;
	char *text; /* "file:line:col: text", "file:line: text" or "file: text" */
};

/* The messages a parser or a checker hands back: errors, and warnings
 * (accepted, but worth saying). Zero it before use. */
struct cpha_msgs {
	struct cpha_msg *errs, *warns;
	size_t nerrs, nwarns;
};

/* Add an error (or with warn a warning) at pos in file:
 * "file:line:col: text", "file:line: text" when the column is not known,
 * "file: text" when the line is not either; a warning has "warning: "
 * before the text (gcc's form). 0, or -ENOMEM with the message left out. */
int cpha_msgs_add(struct cpha_msgs *m, bool warn, const char *file, struct cpha_pos pos,
	const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* The same for programs that stop when memory runs out (cpha): it ends
 * the program through cpha_oom() instead, as a lost error would read as
 * success. cpha_msgs_err() and cpha_msgs_warn() are its two kinds. */
void cpha_msgs_put(struct cpha_msgs *m, bool warn, const char *file, struct cpha_pos pos,
	const char *fmt, ...) __attribute__((format(printf, 5, 6)));
#define cpha_msgs_err(m, file, pos, ...)  cpha_msgs_put(m, false, file, pos, __VA_ARGS__)
#define cpha_msgs_warn(m, file, pos, ...) cpha_msgs_put(m, true, file, pos, __VA_ARGS__)

/* The error "file: cannot read: why" of a file that could not be opened;
 * returns -1 (the load failed), with the message left out when memory runs
 * out, as a daemon reloading must not exit for that. */
int cpha_msgs_cannot_read(struct cpha_msgs *m, const char *file, const char *why);

/* Print the texts of v[0..n), one a line. */
void cpha_msgs_print(const struct cpha_msg *v, size_t n, FILE *f);

/* Free every message; m may be reused. */
void cpha_msgs_free(struct cpha_msgs *m);

/* One message being collected and the place it concerns. */
struct cpha_cfgdiag_msg {
	unsigned loc;
	char *text; /* "file:line: text" */
};

/* Zero it, set max_errors, then add the first file. */
struct cpha_cfgdiag {
	char **files; /* names for messages, by file index; owned */
	size_t nfiles;
	struct cpha_cfgdiag_msg *errv, *notv;
	size_t nerrs, nnotices;
	size_t max_errors; /* after this many errors, one more says so and parsing stops; 0: no cap
			    */
	bool stop;         /* too many errors, or out of memory: nothing sensible can follow */
};

/* Add a file name for messages; returns its index, or -ENOMEM (then stop
 * is set and an error says so). */
int cpha_cfgdiag_file(struct cpha_cfgdiag *d, const char *name);

/* An error at loc. After max_errors errors the next one is "too many errors;
 * stopped here" and stop is set; once stop is set nothing more is added. */
void cpha_cfgdiag_err(struct cpha_cfgdiag *d, unsigned loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void cpha_cfgdiag_verr(struct cpha_cfgdiag *d, unsigned loc, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/* A notice at loc (accepted, but worth saying); none once stop is set. */
void cpha_cfgdiag_notice(struct cpha_cfgdiag *d, unsigned loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void cpha_cfgdiag_vnotice(struct cpha_cfgdiag *d, unsigned loc, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/* The error "out of memory", and stop. */
void cpha_cfgdiag_oom(struct cpha_cfgdiag *d);

/* strdup() and cpha_array_push() that report running out of memory. */
char *cpha_cfgdiag_strdup(struct cpha_cfgdiag *d, const char *s);
void *cpha_cfgdiag_push(struct cpha_cfgdiag *d, void *arrayp, size_t *n, size_t size);

/* Sort m[0..*n) by place (stable) and move the texts to the end of the
 * array *out of *nout. 0 with *n set to 0, or -ENOMEM with nothing moved. */
int cpha_cfgdiag_take(struct cpha_cfgdiag_msg *m, size_t *n, char ***out, size_t *nout);

/* The same for the errors collected in d, moved to out->errs with their
 * lines (column 0: the collector keeps none). */
int cpha_cfgdiag_take_errs(struct cpha_cfgdiag *d, struct cpha_msgs *out);

/* Where loc is, for a message about a statement at from: "line N", or
 * "file:N" when loc is in another file. Returns buf. */
const char *cpha_cfgdiag_at(
	const struct cpha_cfgdiag *d, unsigned loc, unsigned from, char *buf, size_t len);

/* Free the messages left and the file names; d may be reused after
 * zeroing. */
void cpha_cfgdiag_free(struct cpha_cfgdiag *d);

/* The head of a row of a keyword table; a parser's row starts with it. */
struct cpha_cfgkw {
	const char *name; /* "ssl-default-bind-*": every keyword with that prefix */
	unsigned caps; /* the sections it is allowed in, one bit each */
};

/* Find name in the n rows of size bytes at table. 0 with *row set when it
 * is allowed in a section with the capability bits caps; -EPERM with *row
 * set when it is known but allowed in none of them; -ENOENT when unknown
 * (*row NULL). Rows are tried in order: put a prefix row after the exact
 * rows it covers. */
int cpha_cfgkw_find(const void *table, size_t n, size_t size, const char *name, unsigned caps,
	const void **row);

#endif
