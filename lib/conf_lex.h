/* Configuration lexer shared by the HAProxy-style (lbd) and keepalived-style
 * (vipd, fenced) grammars. It turns a file into logical lines of words with
 * file:line positions; the grammars stay in each daemon. */
#ifndef CPHA_CONF_LEX_H
#define CPHA_CONF_LEX_H

#include <stddef.h>

#define CPHA_LEX_BRACES       (1u << 0) /* '{' and '}' are tokens of their own (keepalived) */
#define CPHA_LEX_BANG_COMMENT (1u << 1) /* '!' starts a comment like '#' (keepalived) */
#define CPHA_LEX_ENV          (1u << 2) /* $VAR and ${VAR} expand inside double quotes (HAProxy) */
#define CPHA_LEX_CONTINUATION (1u << 3) /* a backslash at the end of a line joins the next */

#define CPHA_LEX_HAPROXY    (CPHA_LEX_ENV)
#define CPHA_LEX_KEEPALIVED (CPHA_LEX_BRACES | CPHA_LEX_BANG_COMMENT | CPHA_LEX_CONTINUATION)

enum cpha_tok_kind {
	CPHA_TOK_WORD,
	CPHA_TOK_LBRACE,
	CPHA_TOK_RBRACE,
};

struct cpha_token {
	enum cpha_tok_kind kind;
	int quoted; /* any part of the word was quoted or escaped */
	char *text; /* NUL-terminated; "{" or "}" for braces */
};

/* One logical line. Tokens stay valid until the next cpha_lex_next() or
 * cpha_lex_free() on the same lexer. */
struct cpha_lex_line {
	unsigned line; /* line number of the first token, from 1 */
	size_t n;      /* number of tokens, at least 1 */
	struct cpha_token *tok;
};

struct cpha_lex {
	char *file; /* name for messages */
	char *text;
	size_t len;
	size_t pos;
	unsigned line; /* current line, from 1 */
	unsigned flags;
	struct cpha_token *tok;
	size_t ntok, captok;
	char err[256]; /* message of the last error, without file:line */
	unsigned err_line;
};

/* Read a whole file. Returns 0 or a negative errno (lx->err says why). */
int cpha_lex_open(struct cpha_lex *lx, const char *path, unsigned flags);

/* Lex text held in memory; name is used for messages. Returns 0 or -ENOMEM. */
int cpha_lex_open_mem(
	struct cpha_lex *lx, const char *name, const char *text, size_t len, unsigned flags);

/* Next non-empty logical line. Returns 1 with *out filled, 0 at the end of
 * input, or -EINVAL with lx->err and lx->err_line set (unterminated quote,
 * bad escape, NUL byte). */
int cpha_lex_next(struct cpha_lex *lx, struct cpha_lex_line *out);

/* Release everything the lexer holds. */
void cpha_lex_free(struct cpha_lex *lx);

#endif
