/* cpha lab report: placeholder until the reportr lands. */
#include <stdio.h>

#include "cpha.h"
#include "lab.h"

int cmd_lab_report(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "cpha lab report: not built yet\n");
	return CPHA_EXIT_SOFTWARE;
}
