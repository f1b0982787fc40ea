#ifndef QEMU_PC_CONSOLE_H
#define QEMU_PC_CONSOLE_H

#include <stdint.h>

/* printf to the serial console, whole lines even with several CPUs printing. */
int console_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* For the fatal-exception path only: the faulting CPU may have held the lock. */
/* The exception report's hold on the console: whole lines from other CPUs finish first,
 * and none start until the report is out. */
void console_take_for_report(void);
void console_release_after_report(void);

#endif
