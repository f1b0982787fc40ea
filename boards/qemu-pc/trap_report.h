/* The board's report of an exception nobody claimed (trap_set_fatal_handler). */
#ifndef BOARD_TRAP_REPORT_H
#define BOARD_TRAP_REPORT_H

#include "trap.h"

void trap_report_fatal(struct trap_frame *f);

#endif
