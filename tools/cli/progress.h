/* A one-line progress display on stderr, only when stderr is a terminal and the input is
 * large enough for the wait to be noticed. */
#ifndef ACART_TOOLS_PROGRESS_H
#define ACART_TOOLS_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "profile.h"

struct progress {
    const char *what;
    uint64_t total_bytes;
    int shown_percent;
    bool enabled;
};

/* Attaches a progress display for a scan of p to p's progress hook. */
void progress_attach(struct progress *pr, struct profile *p, const char *what);

/* Replaces the progress line with a note on what happens now ("binding"). */
void progress_note(struct progress *pr, const char *what);

/* Clears the progress line. */
void progress_done(struct progress *pr);

#endif
