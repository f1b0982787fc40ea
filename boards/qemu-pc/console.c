/* picolibc's stdio on the serial console. A lock keeps lines from different CPUs whole;
 * it is taken with interrupts off so the net interrupt cannot deadlock against the task
 * it interrupted on the same CPU. */
#include "console.h"
#include "io.h"
#include "serial.h"

#include <stdarg.h>
#include <stdio.h>

static volatile uint32_t console_lock;

static int console_putc(char c, FILE *f)
{
    (void)f;
    if (c == '\n')
        serial_putc('\r');
    serial_putc(c);
    return (unsigned char)c;
}

static FILE console_file = FDEV_SETUP_STREAM(console_putc, NULL, NULL, _FDEV_SETUP_WRITE);
FILE *const stdin = &console_file;
FILE *const stdout = &console_file;
FILE *const stderr = &console_file;

int console_printf(const char *fmt, ...)
{
    uintptr_t flags = irq_save();
    while (__atomic_exchange_n(&console_lock, 1, __ATOMIC_ACQUIRE))
        cpu_relax();
    va_list ap;
    va_start(ap, fmt);
    int n = vfprintf(stdout, fmt, ap);
    va_end(ap);
    __atomic_store_n(&console_lock, 0, __ATOMIC_RELEASE);
    irq_restore(flags);
    return n;
}

void console_take_for_report(void)
{
    /* Another CPU may be mid-line (wait for it, briefly), or the faulting code may hold
     * the lock itself (then take it anyway). */
    for (uint32_t spins = 0; spins < 20000000u; spins++)
        if (!__atomic_exchange_n(&console_lock, 1, __ATOMIC_ACQUIRE))
            return;
    __atomic_store_n(&console_lock, 1, __ATOMIC_RELEASE);
}

void console_release_after_report(void)
{
    __atomic_store_n(&console_lock, 0, __ATOMIC_RELEASE);
}
