/* TEMPORARY (not to be committed): commands being written. */
#include <stdio.h>
#include "cpha.h"
#define STUB(n)                                                                                    \
	int n(int argc, char **argv, const char *file)                                             \
	{                                                                                          \
		(void)argc;                                                                        \
		(void)file;                                                                        \
		fprintf(stderr, "cpha %s: not built yet\n", argv[0]);                              \
		return 70;                                                                         \
	}
