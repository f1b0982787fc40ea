/* The subcommands of the `acart` host tool. Every command has the same signature: argv[0]
 * is the command's own name (as for main), the return value is the process exit status. */
#ifndef ACART_TOOLS_COMMANDS_H
#define ACART_TOOLS_COMMANDS_H

#include "diag.h" /* enum acart_exit: what the commands return */

int cmd_collect(int argc, char **argv);
int cmd_fetch(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_flamegraph(int argc, char **argv);
int cmd_tb5(int argc, char **argv);
int cmd_pt(int argc, char **argv);
int cmd_diff(int argc, char **argv);
/* The formats of acart export besides csv, reached through cmd_export; each in
 * export_<format>.c. */
int export_chrome(int argc, char **argv);
int export_pprof(int argc, char **argv);
int export_perf(int argc, char **argv);
int export_folded(int argc, char **argv);
int export_perfetto(int argc, char **argv);

#endif
