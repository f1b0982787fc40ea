#include "diag.h"

#include <stdarg.h>
#include <stdio.h>

#include "text_escape.h"

int diag_fail(struct diag *d, int code, const char *fmt, ...)
{
    if (d) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(d->msg, sizeof d->msg, fmt, ap);
        va_end(ap);
        d->code = code;
    }
    return code;
}

const char *diag_strerror(int code)
{
    switch (code) {
    case DIAG_OK:
        return "no error";
    case DIAG_USAGE:
        return "usage error";
    case DIAG_INPUT:
        return "bad input";
    case DIAG_OUTPUT:
        return "cannot write output";
    case DIAG_NOMEM:
        return "out of memory";
    case DIAG_LIBRARY:
        return "library failure";
    default:
        return "unknown error";
    }
}

int diag_exit_status(int code)
{
    switch (code) {
    case DIAG_OK:
        return ACART_EXIT_OK;
    case DIAG_USAGE:
        return ACART_EXIT_USAGE;
    case DIAG_INPUT:
        return ACART_EXIT_INPUT;
    case DIAG_OUTPUT:
        return ACART_EXIT_OUTPUT;
    default:
        return ACART_EXIT_FAILURE;
    }
}

int diag_report(const char *command, const struct diag *d)
{
    /* Messages quote names from collections and tb5 files: escaped like any target text. */
    fprintf(stderr, "acart %s: ", command);
    text_fput_terminal(d->msg[0] ? d->msg : diag_strerror(d->code), stderr);
    fputc('\n', stderr);
    return diag_exit_status(d->code);
}
