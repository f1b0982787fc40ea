/* A tb5 file as a profile (tb5_read.c). profile_open() opens one for a path that is no
 * folder. */
#ifndef ACART_TOOLS_TB5_READ_H
#define ACART_TOOLS_TB5_READ_H

#include "diag.h"
#include "profile.h"

int tb5_read_open(const char *path, struct profile *p, struct diag *d);
int tb5_read_scan(struct profile *p, profile_sample_fn *fn, void *ctx, struct diag *d);
void tb5_read_close(struct profile *p);

#endif
