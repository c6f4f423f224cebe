/* cpha lab's C subcommands: the prober and the report. */
#ifndef CPHA_LAB_H
#define CPHA_LAB_H

/* cpha lab probe ...: see lab_probe.c. argv[0] is "probe". */
int cmd_lab_probe(int argc, char **argv);

/* cpha lab report ...: see lab_report.c. argv[0] is "report". */
int cmd_lab_report(int argc, char **argv);

#endif
