/* picolibc's stdio on the serial console. */
#include "console.h"
#include "io.h"
#include "serial.h"

#include <stdarg.h>
#include <stdio.h>

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
    va_list ap;
    va_start(ap, fmt);
    int n = vfprintf(stdout, fmt, ap);
    va_end(ap);
    irq_restore(flags);
    return n;
}
