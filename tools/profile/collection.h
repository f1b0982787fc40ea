/* A collection folder as a profile (collection.c): session.json, module.bin and the
 * cpu<N>.bin files that `acart collect` writes. profile_open() opens one for a folder. */
#ifndef ACART_TOOLS_COLLECTION_H
#define ACART_TOOLS_COLLECTION_H

#include "diag.h"
#include "profile.h"

int collection_open(const char *dir, struct profile *p, struct diag *d);
int collection_scan(struct profile *p, profile_sample_fn *fn, void *ctx, struct diag *d);

#endif
