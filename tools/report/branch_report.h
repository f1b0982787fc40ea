/* acart report --by branch: the hot branch edges of the LBR stacks samples carry
 * (acart collect --lbr), with mispredict rate and cycles where the CPU records them. */
#ifndef ACART_TOOLS_BRANCH_REPORT_H
#define ACART_TOOLS_BRANCH_REPORT_H

#include <stdint.h>

#include "diag.h"
#include "profile.h"
#include "symbols.h"

/* Scans p (opened) and prints its top edges (all for top 0); sym may be NULL. */
int branch_report(struct profile *p, struct symbols *sym, uint64_t top, struct diag *d);

#endif
