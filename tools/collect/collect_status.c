/* acart collect's status line (see collect_internal.h). */
#include <stdarg.h>
#include <stdio.h>

#include "collect_internal.h"

void collect_status_show(struct collect_status *sl, const char *fmt, ...)
{
    if (!sl->enabled)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputc('\r', stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\033[K", stderr);
    fflush(stderr);
    va_end(ap);
    sl->shown = 1;
}

void collect_status_clear(struct collect_status *sl)
{
    if (sl->shown)
        fputs("\r\033[K", stderr);
    sl->shown = 0;
}

void collect_status_bar(char *buf, size_t width, double fraction)
{
    size_t full = (size_t)(fraction * (double)width);
    for (size_t i = 0; i < width; i++)
        buf[i] = i < full ? '#' : '.';
    buf[width] = '\0';
}
