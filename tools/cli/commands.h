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
/* acart export chrome (export_chrome.c), reached through cmd_export. */
int export_chrome(int argc, char **argv);

#endif
