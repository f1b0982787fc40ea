#include "progress.h"

#include <stdio.h>
#include <unistd.h>

/* Inputs below this size take well under a second: no display. */
#define PROGRESS_MIN_BYTES (64u << 20)

static void show(uint64_t done, void *ctx)
{
    struct progress *pr = ctx;
    int percent = (int)(done * 100 / pr->total_bytes);
    if (percent == pr->shown_percent)
        return;
    pr->shown_percent = percent;
    fprintf(stderr, "\r%s: %3d%% of %.1f MB", pr->what, percent, (double)pr->total_bytes / 1e6);
    fflush(stderr);
}

void progress_attach(struct progress *pr, struct profile *p, const char *what)
{
    pr->what = what;
    pr->total_bytes = p->input_bytes;
    pr->shown_percent = -1;
    pr->enabled = pr->total_bytes >= PROGRESS_MIN_BYTES && isatty(STDERR_FILENO);
    if (pr->enabled) {
        p->progress = show;
        p->progress_ctx = pr;
    }
}

void progress_note(struct progress *pr, const char *what)
{
    if (!pr->enabled)
        return;
    fprintf(stderr, "\r%s: %s\033[K", pr->what, what);
    fflush(stderr);
    pr->shown_percent = 100;
}

void progress_done(struct progress *pr)
{
    if (pr->enabled && pr->shown_percent >= 0)
        fputs("\r\033[K", stderr);
}
