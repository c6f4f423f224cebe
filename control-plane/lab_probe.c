/* cpha lab probe: placeholder until the prober lands. */
#include <stdio.h>

#include "cpha.h"
#include "lab.h"

int cmd_lab_probe(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "cpha lab probe: not built yet\n");
	return CPHA_EXIT_SOFTWARE;
}
