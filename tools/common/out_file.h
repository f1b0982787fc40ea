/* An output file that appears complete or not at all: written under a temporary name in
 * the same folder and renamed over the final name only when every byte is out, so that a
 * failed command (damaged input found halfway, a full disk) never leaves a partial file
 * that looks like a finished export. */
#ifndef ACART_TOOLS_OUT_FILE_H
#define ACART_TOOLS_OUT_FILE_H

#include <stdio.h>

#include "diag.h"

struct out_file {
    FILE *f;    /* write here between out_file_open and out_file_commit */
    char *path; /* the final name */
    char *temp; /* the temporary name, "<path>.tmp-XXXXXX" */
};

/* Creates the temporary file beside path. Returns 0 or DIAG_OUTPUT/DIAG_NOMEM. */
int out_file_open(struct out_file *o, const char *path, struct diag *d);

/* Flushes, closes and renames the temporary file to the final name. On failure the
 * temporary file is removed and d names the final path. Returns 0 or DIAG_OUTPUT. */
int out_file_commit(struct out_file *o, struct diag *d);

/* Closes and removes the temporary file (after a failure); the final name is untouched.
 * Safe after out_file_commit and on a zeroed struct. */
void out_file_discard(struct out_file *o);

#endif
