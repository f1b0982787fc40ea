/* Writing a profile (normally a collection folder) as a bound tb5 file. */
#ifndef ACART_TOOLS_TB5_WRITE_H
#define ACART_TOOLS_TB5_WRITE_H

#include "diag.h"
#include "profile.h"

/* Creates (or replaces) path with every section chapter 6.2 of the TBRW guide requires:
 * hardware, software, version info and modules; stream 0 with stream info, events, its
 * data description (TBRW_SampleRecordPC + TSC) and every sample. The session JSON goes
 * into the user-defined global section, so that the tools read the file back with the
 * collection's hostname, TSC rate and task names. On failure the file is removed. */
int tb5_write_profile(struct profile *p, const char *path, struct diag *d);

/* Binds stream 0 of the tb5 file at path (TBRW_dobind), in the file. */
int tb5_bind(const char *path, struct diag *d);

#endif
