#include "log.h"
#include "acart.h"
#include "acart_platform.h"

#include <stdint.h>

struct out {
    char *buf;
    size_t size, len;
};

static void put(struct out *o, char c)
{
    if (o->len + 1 < o->size)
        o->buf[o->len] = c;
    o->len++;
}

static void put_number(struct out *o, unsigned long long v, unsigned base, int width, char pad,
                       int negative)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v);
    if (negative)
        tmp[n++] = '-';
    while (width-- > n)
        put(o, pad);
    while (n)
        put(o, tmp[--n]);
}

int log_vformat(char *buf, size_t size, const char *fmt, va_list ap)
{
    struct out o = {buf, size, 0};
    for (const char *p = fmt; *p; p++) {
        if (*p != '%') {
            put(&o, *p);
            continue;
        }
        p++;
        char pad = ' ';
        int width = 0, longs = 0;
        if (*p == '0')
            pad = '0';
        while (*p >= '0' && *p <= '9')
            width = width * 10 + (*p++ - '0');
        while (*p == 'l') {
            longs++;
            p++;
        }
        switch (*p) {
        case 's': {
            const char *s = va_arg(ap, const char *);
            for (s = s ? s : "(null)"; *s; s++)
                put(&o, *s);
            break;
        }
        case 'c':
            put(&o, (char)va_arg(ap, int));
            break;
        case 'd': {
            long long v =
                longs >= 2 ? va_arg(ap, long long) : (longs ? va_arg(ap, long) : va_arg(ap, int));
            put_number(&o, v < 0 ? -(unsigned long long)v : (unsigned long long)v, 10, width, pad,
                       v < 0);
            break;
        }
        case 'u':
        case 'x': {
            unsigned long long v = longs >= 2
                                       ? va_arg(ap, unsigned long long)
                                       : (longs ? va_arg(ap, unsigned long) : va_arg(ap, unsigned));
            put_number(&o, v, *p == 'x' ? 16 : 10, width, pad, 0);
            break;
        }
        case '%':
            put(&o, '%');
            break;
        default:
            put(&o, '?');
            if (!*p)
                p--;
            break;
        }
    }
    if (size)
        buf[o.len < size ? o.len : size - 1] = 0;
    return (int)o.len;
}

int log_format(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = log_vformat(buf, size, fmt, ap);
    va_end(ap);
    return n;
}

void agent_log(const char *fmt, ...)
{
    char line[160];
    va_list ap;
    va_start(ap, fmt);
    log_vformat(line, sizeof(line), fmt, ap);
    va_end(ap);
    aca_port_log(line);
}
