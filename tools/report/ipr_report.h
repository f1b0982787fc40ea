/* `acart report DIR` for a folder of IPROBE sample files (`acart fetch`): histograms as
 * per-function and per-address tables, sample buffers as a profile by function. */
#ifndef ACART_TOOLS_IPR_REPORT_H
#define ACART_TOOLS_IPR_REPORT_H

#include <stdint.h>

/* Prints the report; returns an exit status (docs/cli.md). elf may be NULL. */
int ipr_report(const char *dir, const char *elf, uint64_t top);

#endif
