/* Errors of the acart host tools: a negative code plus a message that names the file and
 * what is wrong with it. Library-style functions fill a struct diag and return its code;
 * only the command layer prints, and it maps the code to the documented exit status. */
#ifndef ACART_TOOLS_DIAG_H
#define ACART_TOOLS_DIAG_H

enum diag_code {
    DIAG_OK = 0,
    DIAG_USAGE = -1,   /* bad options or arguments */
    DIAG_INPUT = -2,   /* an input file is missing, unreadable or malformed */
    DIAG_OUTPUT = -3,  /* an output file could not be written */
    DIAG_NOMEM = -4,   /* out of memory */
    DIAG_LIBRARY = -5, /* a library (tb5, elfutils) failed on valid input */
};

/* Exit statuses, documented in docs/cli.md. */
enum acart_exit {
    ACART_EXIT_OK = 0,
    ACART_EXIT_FAILURE = 1, /* anything not covered below (out of memory, library failure) */
    ACART_EXIT_USAGE = 2,   /* unknown command or option, missing argument */
    ACART_EXIT_INPUT = 3,   /* an input file is missing, unreadable or malformed */
    ACART_EXIT_OUTPUT = 4,  /* an output file could not be written */
    ACART_EXIT_TARGET = 5,  /* `acart collect`: the target could not be reached or failed */
    /* `acart diff --fail-if`: a change crossed a threshold; distinct from every failure so
     * that a CI job tells "the firmware got slower" from "the diff did not run". */
    ACART_EXIT_THRESHOLD = 6,
};

struct diag {
    int code;
    char msg[1024];
};

/* Records code and a printf-style message in d (which may be NULL) and returns code. */
int diag_fail(struct diag *d, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* "no error", "usage error", ... for a diag_code. */
const char *diag_strerror(int code);

/* The process exit status documented in docs/cli.md for a diag_code. */
int diag_exit_status(int code);

/* Prints "acart <command>: <message>" on stderr and returns diag_exit_status(d->code). */
int diag_report(const char *command, const struct diag *d);

#endif
