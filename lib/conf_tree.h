/* keepalived's configuration language as a tree of statements, shared by
 * vipd and fenced: the lexer's logical lines (conf_lex.h), braces opening
 * and closing blocks ("keyword {" or "keyword" then "{", one-line blocks
 * such as "track_script { chk }"), and 'include FILE' (a path or a glob
 * pattern, relative to the including file). Messages go to a cfgdiag
 * collector as file:line. Then the reading of the statements as keepalived
 * reads them: values (numbers, booleans, seconds, strings) and blocks walked
 * with a keyword table. The grammar of each daemon, its keywords and what
 * they mean, stays in the daemon. */
#ifndef CPHA_CONF_TREE_H
#define CPHA_CONF_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfgdiag.h"
#include "conf_lex.h"

#define CPHA_CONF_MAX_INCLUDE 8   /* include nesting */
#define CPHA_CONF_MAX_FILES   100 /* files read in all, the first one included */
#define CPHA_CONF_MAX_NESTING 16  /* blocks inside blocks */

/* One statement: its words, where it starts (a cfgdiag loc), and its block. */
struct cpha_conf_node {
	char **w; /* n words; n == 0 only for a '{' without a keyword */
	size_t n;
	unsigned loc;
	bool block; /* followed by { ... } */
	struct cpha_conf_node *kids;
	size_t nkids;
};

/* A file being read; several when an include pattern matched several. */
struct cpha_conf_src {
	struct cpha_lex lx;
	bool open;
	unsigned file; /* index in the collector's files of the open one */
	char **paths;  /* files still to read, from next on */
	size_t npaths, next;
	unsigned inc_loc; /* the include line; 0 for the first file */
	bool prepared;    /* prepare() has seen this file's text */
	unsigned *lmap;   /* when prepare() rewrote the text: each line's line in the file */
	size_t nlmap;
};

/* The files being read and the blocks open. */
struct cpha_conf_reader {
	struct cpha_conf_src src[CPHA_CONF_MAX_INCLUDE + 1];
	int nsrc;
	struct cpha_conf_node *open[CPHA_CONF_MAX_NESTING];
	int depth;
	long attach; /* a statement that ended its line without '{', or -1 */
	char **w;    /* words of the statement being read */
	size_t nw, capw;
	unsigned wloc;
};

/* What is read, and how. */
struct cpha_conf_tree {
	struct cpha_cfgdiag *d;     /* messages; d->stop ends reading */
	bool includes;              /* 'include' allowed (read from a file) */
	struct cpha_conf_node root; /* the top-level statements */
	/* Called once with each file's text before it is read (it may rewrite
	 * s->lx.text and set s->lmap); returns 0, or -1 to skip the file. */
	int (*prepare)(void *ud, struct cpha_conf_src *s);
	void *ud;
};

/* cpha_conf_read_start() registers the first file (its lexer is then opened
 * by the caller in rd->src[0].lx); cpha_conf_read() reads everything into
 * t->root, following includes, and closes the files; cpha_conf_read_end()
 * closes what an early stop left open. Return -1 only when out of memory. */
int cpha_conf_read_start(struct cpha_conf_tree *t, struct cpha_conf_reader *rd, const char *name);
void cpha_conf_read(struct cpha_conf_tree *t, struct cpha_conf_reader *rd);
void cpha_conf_read_end(struct cpha_conf_reader *rd);
void cpha_conf_node_free(struct cpha_conf_node *n);
void cpha_conf_src_free(struct cpha_conf_src *s);
/* The file's line of a line of a source's (rewritten) text. */
unsigned cpha_conf_src_line(const struct cpha_conf_src *s, unsigned line);

/* Reading the values of a statement, as keepalived reads them. Each reader
 * takes word i of n (the keyword is word 0) and returns 0, or adds an
 * error to d naming the keyword and where (a block such as "global_defs"
 * or "vrrp_instance 'VI_1'") and returns -1:
 *   cpha_conf_nargs()   min to max values after the keyword: "'K' needs a
 *                       value", "'K' needs more values", "'K': unexpected 'W'";
 *   cpha_conf_uint(), cpha_conf_int()  a whole number from min to max;
 *   cpha_conf_bool()    KEYWORD [on|off|true|false|yes|no], none meaning on
 *                       (keepalived's check_true_false: no 1 or 0);
 *   cpha_conf_seconds() keepalived's decimal seconds ("1", "0.5") from min to
 *                       max; with CPHA_CONF_UNITS also a number with a unit
 *                       (500ms, 6s, 2m, 1h);
 *   cpha_conf_string()  exactly one value, a copy of it in *out (what *out
 *                       held is freed; NULL when out of memory, reported). */
#define CPHA_CONF_UNITS (1u << 0) /* cpha_conf_seconds(): units taken too */

int cpha_conf_nargs(struct cpha_cfgdiag *d, const struct cpha_conf_node *n, size_t min, size_t max,
	const char *where);
int cpha_conf_uint(struct cpha_cfgdiag *d, const struct cpha_conf_node *n, size_t i,
	unsigned long long min, unsigned long long max, unsigned long long *out, const char *where);
int cpha_conf_int(struct cpha_cfgdiag *d, const struct cpha_conf_node *n, size_t i, long min,
	long max, long *out, const char *where);
int cpha_conf_bool(
	struct cpha_cfgdiag *d, const struct cpha_conf_node *n, bool *out, const char *where);
int cpha_conf_seconds(struct cpha_cfgdiag *d, const struct cpha_conf_node *n, size_t i,
	uint64_t min, uint64_t max, unsigned flags, uint64_t *out, const char *where);
int cpha_conf_string(
	struct cpha_cfgdiag *d, const struct cpha_conf_node *n, char **out, const char *where);

/* Seconds as keepalived writes them: "0.01", "40.95", "1000". Returns buf. */
const char *cpha_conf_fmt_seconds(uint64_t usec, char *buf, size_t len);

/* Keyword flags of a table row (at cpha_conf_walk.flags_at in the row). */
#define CPHA_CONF_KW_BLOCK (1u << 0) /* takes a { ... } block */
#define CPHA_CONF_KW_MULTI (1u << 1) /* may be given more than once */

#define CPHA_CONF_MAX_KWS 80 /* rows of one keyword table */

/* How to read a block with a keyword table. */
struct cpha_conf_walk {
	const void *table; /* nrows rows of size bytes, each starting with struct cpha_cfgkw */
	size_t nrows, size;
	size_t flags_at;   /* offsetof() the row's unsigned CPHA_CONF_KW_* flags */
	const char *where; /* the block, for messages; NULL: the top level */
	unsigned *seen;    /* CPHA_CONF_MAX_KWS locs of what was given, kept by the caller
			    * across blocks (global_defs); NULL: this block's own */
	/* read one statement with its row: the row's function, called with
	 * the parser's context and the object the block fills */
	void (*fn)(void *ctx, const void *row, const struct cpha_conf_node *n, void *obj);
	/* report a keyword the table does not have (where as above) */
	void (*unknown)(void *ctx, const struct cpha_conf_node *n, const char *where);
	void *ctx, *obj;
};

/* Read the statements of block n: each one's row is looked up and its fn
 * called, in order, until d->stop. An unknown keyword goes to unknown();
 * a missing block ("'K' needs a block: K { ... }"), a block where none is
 * taken ("'K' takes no block") and a keyword given twice without
 * CPHA_CONF_KW_MULTI ("'K' is given twice (where; first at line N)") are
 * errors, and the statement is not read. A '{' without a keyword was
 * reported when read and is passed over. */
void cpha_conf_walk(
	struct cpha_cfgdiag *d, const struct cpha_conf_node *n, const struct cpha_conf_walk *w);

#endif
