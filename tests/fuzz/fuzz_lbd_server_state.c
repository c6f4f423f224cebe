/* libFuzzer target: lbd's reader of HAProxy's server-state file (the file
 * a previous run, or HAProxy, left; anyone who can write it controls the
 * text). Any text parses or is refused; every line that parses has 20 to
 * 25 fields inside the text; values either check or are refused with a
 * message; a decision on checked values keeps health within rise + fall
 * and the weight within 0..256. Nothing leaks. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server_state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct srvstate_target t = { .rise = 2, .fall = 3, .checked = true, .cfg_weight = 1 };
	struct srvstate_file f = { 0 };
	struct srvstate_decision d;
	struct srvstate_vals v;
	char err[512], *text;
	unsigned bad = 0, k;
	size_t i;
	int r;

	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	r = srvstate_parse(text, size, &f, &bad);
	if (r == 0) {
		for (i = 0; i < f.nlines; i++) {
			const struct srvstate_line *l = &f.lines[i];

			if (l->n < SRVSTATE_FIELDS_MIN || l->n > SRVSTATE_FIELDS_MAX)
				__builtin_trap();
			for (k = 0; k < l->n; k++)
				if (l->f[k] < f.text || l->f[k] > f.text + size)
					__builtin_trap(); /* fields point into the text */
			err[0] = '\0';
			if (srvstate_values(l, &v, err, sizeof(err)) < 0) {
				if (!err[0])
					__builtin_trap(); /* a refusal says why */
				continue;
			}
			srvstate_decide(&v, &t, &d);
			if (d.set_up && d.health > t.rise + t.fall)
				__builtin_trap();
			if (d.set_weight && d.weight > 256)
				__builtin_trap();
			srvstate_find(&f, l->f[1], l->f[3]);
		}
	} else if (r == -3 && !bad) {
		__builtin_trap(); /* a corrupt file names its line */
	}
	srvstate_file_free(&f);
	return 0;
}
