/* libFuzzer target: the configuration lexer in both of its modes. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "conf_lex.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned modes[] = { CPHA_LEX_HAPROXY, CPHA_LEX_KEEPALIVED, 0,
		CPHA_LEX_HAPROXY | CPHA_LEX_KEEPALIVED };
	struct cpha_lex lx;
	struct cpha_lex_line l;
	unsigned lines = 0;
	size_t i;
	int r;

	if (size == 0)
		return 0;
	if (cpha_lex_open_mem(&lx, "fuzz", (const char *)data + 1, size - 1, modes[data[0] & 3]))
		return 0;
	while ((r = cpha_lex_next(&lx, &l)) == 1) {
		/* a line has tokens, inside the input's line range; without
		 * environment expansion no token is longer than the input */
		if (l.n == 0 || l.line < 1 || l.line > lx.line)
			__builtin_trap();
		for (i = 0; i < l.n; i++)
			if (!(modes[data[0] & 3] & CPHA_LEX_ENV) && strlen(l.tok[i].text) > size)
				__builtin_trap();
		if (++lines > size + 1)
			__builtin_trap(); /* more lines than bytes: not progressing */
	}
	if (r < 0 && (lx.err[0] == '\0' || lx.err_line < 1))
		__builtin_trap(); /* errors always say what and where */
	cpha_lex_free(&lx);
	return 0;
}
