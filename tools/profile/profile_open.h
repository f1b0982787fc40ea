/* What the analysis commands open: a collection folder (collection.h) or a tb5 file
 * (tb5_read.h), whichever the path names, as one profile (profile.h). */
#ifndef ACART_TOOLS_PROFILE_OPEN_H
#define ACART_TOOLS_PROFILE_OPEN_H

#include "diag.h"
#include "profile.h"

/* Opens a collection folder or a tb5 file. */
int profile_open(const char *path, struct profile *p, struct diag *d);

/* Feeds every sample to fn. Returns 0, fn's positive stop value, or a (negative) diag
 * code with d filled in. */
int profile_scan(struct profile *p, profile_sample_fn *fn, void *ctx, struct diag *d);

void profile_close(struct profile *p);

#endif
