/* cpha lab's C subcommands: the prober, the report and the history
 * checker. */
#ifndef CPHA_LAB_H
#define CPHA_LAB_H

/* cpha lab probe ...: see lab_probe.c. argv[0] is "probe". */
int cmd_lab_probe(int argc, char **argv);

/* cpha lab report ...: see lab_report.c. argv[0] is "report". */
int cmd_lab_report(int argc, char **argv);

/* cpha lab check-history ...: see lab_check_history.c. argv[0] is
 * "check-history". */
int cmd_lab_check_history(int argc, char **argv);

#endif
