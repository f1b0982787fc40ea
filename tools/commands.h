/* The subcommands of the `acart` host tool. Every command has the same signature: argv[0]
 * is the command's own name (as for main), the return value is the process exit status. */
#ifndef ACART_TOOLS_COMMANDS_H
#define ACART_TOOLS_COMMANDS_H

/* Exit statuses, documented in docs/cli.md. */
enum acart_exit {
    ACART_EXIT_OK = 0,
    ACART_EXIT_FAILURE = 1, /* anything not covered below (out of memory, library failure) */
    ACART_EXIT_USAGE = 2,   /* unknown command or option, missing argument */
    ACART_EXIT_INPUT = 3,   /* an input file is missing, unreadable or malformed */
    ACART_EXIT_OUTPUT = 4,  /* an output file could not be written */
    ACART_EXIT_TARGET = 5,  /* `acart collect`: the target could not be reached or failed */
};

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
