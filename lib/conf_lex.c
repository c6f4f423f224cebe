#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "conf_lex.h"

#define LEX_FILE_MAX (16u << 20) /* refuse configuration files above 16 MiB */

static int lex_error(struct cpha_lex *lx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int lex_error(struct cpha_lex *lx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(lx->err, sizeof(lx->err), fmt, ap);
	va_end(ap);
	lx->err_line = lx->line;
	return -EINVAL;
}

static void lex_clear_tokens(struct cpha_lex *lx)
{
	size_t i;

	for (i = 0; i < lx->ntok; i++)
		free(lx->tok[i].text);
	lx->ntok = 0;
}

int cpha_lex_open_mem(
	struct cpha_lex *lx, const char *name, const char *text, size_t len, unsigned flags)
{
	memset(lx, 0, sizeof(*lx));
	lx->file = strdup(name);
	lx->text = malloc(len + 1);
	if (!lx->file || !lx->text) {
		cpha_lex_free(lx);
		return -ENOMEM;
	}
	memcpy(lx->text, text, len);
	lx->text[len] = '\0';
	lx->len = len;
	lx->line = 1;
	lx->flags = flags;
	return 0;
}

int cpha_lex_open(struct cpha_lex *lx, const char *path, unsigned flags)
{
	struct cpha_buf b = { 0 };
	char chunk[8192];
	ssize_t n;
	int fd, r = 0;

	memset(lx, 0, sizeof(*lx));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd == -1) {
		r = -errno;
		snprintf(lx->err, sizeof(lx->err), "%s", strerror(errno));
		return r;
	}
	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			r = -errno;
			snprintf(lx->err, sizeof(lx->err), "read: %s", strerror(errno));
			break;
		}
		if (n == 0)
			break;
		if (b.len + (size_t)n > LEX_FILE_MAX) {
			r = -EFBIG;
			snprintf(lx->err, sizeof(lx->err), "file larger than %u bytes",
				LEX_FILE_MAX);
			break;
		}
		r = cpha_buf_append(&b, chunk, (size_t)n);
		if (r < 0)
			break;
	}
	close(fd);
	if (r == 0)
		r = cpha_lex_open_mem(lx, path, b.data ? b.data : "", b.len, flags);
	cpha_buf_free(&b);
	return r;
}

void cpha_lex_free(struct cpha_lex *lx)
{
	lex_clear_tokens(lx);
	free(lx->tok);
	free(lx->text);
	free(lx->file);
	lx->tok = NULL;
	lx->text = lx->file = NULL;
	lx->captok = 0;
}

static int lex_push(struct cpha_lex *lx, enum cpha_tok_kind kind, int quoted, struct cpha_buf *w)
{
	struct cpha_token *t;
	char *text;

	if (lx->ntok == lx->captok) {
		size_t cap = lx->captok ? lx->captok * 2 : 8;

		t = realloc(lx->tok, cap * sizeof(*t));
		if (!t)
			return -ENOMEM;
		lx->tok = t;
		lx->captok = cap;
	}
	text = cpha_buf_steal(w);
	if (!text)
		return -ENOMEM;
	lx->tok[lx->ntok].kind = kind;
	lx->tok[lx->ntok].quoted = quoted;
	lx->tok[lx->ntok].text = text;
	lx->ntok++;
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Backslash escape at lx->pos (just after the backslash). */
static int lex_escape(struct cpha_lex *lx, struct cpha_buf *w)
{
	char c = lx->text[lx->pos];
	int hi, lo;

	switch (c) {
	case 't':
		lx->pos++;
		return cpha_buf_append(w, "\t", 1);
	case 'n':
		lx->pos++;
		return cpha_buf_append(w, "\n", 1);
	case 'r':
		lx->pos++;
		return cpha_buf_append(w, "\r", 1);
	case 'x':
		hi = lx->pos + 1 < lx->len ? hexval(lx->text[lx->pos + 1]) : -1;
		lo = lx->pos + 2 < lx->len ? hexval(lx->text[lx->pos + 2]) : -1;
		if (hi < 0 || lo < 0)
			return lex_error(lx, "bad escape: \\x needs two hex digits");
		if (hi == 0 && lo == 0)
			return lex_error(lx, "bad escape: \\x00 is not allowed");
		lx->pos += 3;
		return cpha_buf_append(w, (char[]){ (char)(hi << 4 | lo) }, 1);
	case '\0':
	case '\n':
		return lex_error(lx, "backslash at the end of a line");
	default:
		/* \\ \" \' \# \! \space and any other character stand for themselves */
		lx->pos++;
		return cpha_buf_append(w, &c, 1);
	}
}

static int lex_env(struct cpha_lex *lx, struct cpha_buf *w)
{
	size_t start, end;
	int braced = 0;
	char name[256];
	const char *val;

	start = lx->pos + 1; /* after '$' */
	if (start < lx->len && lx->text[start] == '{') {
		braced = 1;
		start++;
	}
	end = start;
	while (end < lx->len && (isalnum((unsigned char)lx->text[end]) || lx->text[end] == '_'))
		end++;
	if (end == start || (braced && (end >= lx->len || lx->text[end] != '}'))) {
		if (braced)
			return lex_error(lx, "bad variable reference: expected ${NAME}");
		lx->pos++;
		return cpha_buf_append(w, "$", 1); /* a lone '$' stays */
	}
	if (end - start >= sizeof(name))
		return lex_error(lx, "variable name too long");
	memcpy(name, lx->text + start, end - start);
	name[end - start] = '\0';
	lx->pos = end + (braced ? 1 : 0);
	val = getenv(name);
	return val ? cpha_buf_puts(w, val) : 0;
}

static int is_comment(const struct cpha_lex *lx, char c)
{
	return c == '#' || (c == '!' && (lx->flags & CPHA_LEX_BANG_COMMENT));
}

static int is_brace(const struct cpha_lex *lx, char c)
{
	return (c == '{' || c == '}') && (lx->flags & CPHA_LEX_BRACES);
}

/* Lex one physical line (joined with the next ones on continuation). */
static int lex_line(struct cpha_lex *lx, unsigned *first_line)
{
	struct cpha_buf w = { 0 };
	int in_word = 0, quoted = 0, r = 0;
	char c;

	*first_line = 0;
	while (lx->pos < lx->len) {
		c = lx->text[lx->pos];
		if (c == '\0') {
			r = lex_error(lx, "NUL byte in the file");
			goto out;
		}
		if (c == '\n' || is_comment(lx, c)) {
			if (c != '\n')
				while (lx->pos < lx->len && lx->text[lx->pos] != '\n')
					lx->pos++;
			break;
		}
		if (c == '\\' && (lx->flags & CPHA_LEX_CONTINUATION) && lx->pos + 1 < lx->len &&
			(lx->text[lx->pos + 1] == '\n' ||
				(lx->text[lx->pos + 1] == '\r' && lx->pos + 2 < lx->len &&
					lx->text[lx->pos + 2] == '\n'))) {
			lx->pos += lx->text[lx->pos + 1] == '\n' ? 2 : 3;
			lx->line++;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			if (in_word) {
				r = lex_push(lx, CPHA_TOK_WORD, quoted, &w);
				if (r < 0)
					goto out;
				in_word = quoted = 0;
			}
			lx->pos++;
			continue;
		}
		if (!*first_line)
			*first_line = lx->line;
		if (is_brace(lx, c)) {
			if (in_word) {
				r = lex_push(lx, CPHA_TOK_WORD, quoted, &w);
				if (r < 0)
					goto out;
				in_word = quoted = 0;
			}
			r = cpha_buf_append(&w, &c, 1);
			if (r == 0)
				r = lex_push(
					lx, c == '{' ? CPHA_TOK_LBRACE : CPHA_TOK_RBRACE, 0, &w);
			if (r < 0)
				goto out;
			lx->pos++;
			continue;
		}
		in_word = 1;
		if (c == '\\') {
			lx->pos++;
			quoted = 1;
			r = lex_escape(lx, &w);
		} else if (c == '\'') {
			size_t end = lx->pos + 1;

			while (end < lx->len && lx->text[end] != '\'' && lx->text[end] != '\n')
				end++;
			if (end >= lx->len || lx->text[end] != '\'') {
				r = lex_error(lx, "unterminated single quote");
				goto out;
			}
			r = cpha_buf_append(&w, lx->text + lx->pos + 1, end - lx->pos - 1);
			lx->pos = end + 1;
			quoted = 1;
		} else if (c == '"') {
			lx->pos++;
			quoted = 1;
			/* make sure an empty "" still yields a word */
			r = cpha_buf_append(&w, "", 0);
			while (r == 0) {
				if (lx->pos >= lx->len || lx->text[lx->pos] == '\n') {
					r = lex_error(lx, "unterminated double quote");
					goto out;
				}
				c = lx->text[lx->pos];
				if (c == '"') {
					lx->pos++;
					break;
				}
				if (c == '\\') {
					lx->pos++;
					r = lex_escape(lx, &w);
				} else if (c == '$' && (lx->flags & CPHA_LEX_ENV)) {
					r = lex_env(lx, &w);
				} else if (c == '\0') {
					r = lex_error(lx, "NUL byte in the file");
				} else {
					r = cpha_buf_append(&w, &c, 1);
					lx->pos++;
				}
			}
		} else {
			r = cpha_buf_append(&w, &c, 1);
			lx->pos++;
		}
		if (r < 0)
			goto out;
	}
	if (in_word)
		r = lex_push(lx, CPHA_TOK_WORD, quoted, &w);
	if (lx->pos < lx->len && lx->text[lx->pos] == '\n') {
		lx->pos++;
		lx->line++;
	}
out:
	cpha_buf_free(&w);
	return r;
}

int cpha_lex_next(struct cpha_lex *lx, struct cpha_lex_line *out)
{
	unsigned first;
	int r;

	lex_clear_tokens(lx);
	while (lx->pos < lx->len) {
		r = lex_line(lx, &first);
		if (r < 0) {
			lex_clear_tokens(lx);
			return r;
		}
		if (lx->ntok > 0) {
			out->line = first;
			out->n = lx->ntok;
			out->tok = lx->tok;
			return 1;
		}
	}
	return 0;
}
