/* acart's log lines, through the port's aca_port_log(). A small formatter of our own
 * (%s %c %d %u %x %lu %llu %llx and widths like %08x) so the runtime needs no stdio. */
#ifndef ACART_LOG_H
#define ACART_LOG_H

#include <stdarg.h>
#include <stddef.h>

int log_vformat(char *buf, size_t size, const char *fmt, va_list ap);
int log_format(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void agent_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
