/* keepalived's configuration language as a tree of statements, shared by
 * vipd and fenced: the lexer's logical lines (conf_lex.h), braces opening
 * and closing blocks ("keyword {" or "keyword" then "{", one-line blocks
 * such as "track_script { chk }"), and 'include FILE' (a path or a glob
 * pattern, relative to the including file). Messages go to a cfgdiag
 * collector as file:line. The grammar of each daemon stays in the daemon. */
#ifndef CPHA_CONF_TREE_H
#define CPHA_CONF_TREE_H

#include <stdbool.h>
#include <stddef.h>

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

#endif
