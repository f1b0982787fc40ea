/* printf to the serial console (COM1), whole lines: on this one-CPU kernel a line is
 * written with interrupts off, so no task switch splits it. Task context only. */
#ifndef RTOS_PC_CONSOLE_H
#define RTOS_PC_CONSOLE_H

int console_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
