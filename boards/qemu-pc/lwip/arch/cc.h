/* lwIP's compiler/platform port for acart targets (i686 or x86_64, freestanding + picolibc). */
#ifndef ACART_LWIP_ARCH_CC_H
#define ACART_LWIP_ARCH_CC_H

#include <stdint.h>
/* ssize_t as the libc has it (picolibc: int on i686, long on x86_64, as ptrdiff_t): lwIP
 * would otherwise define it as int, since picolibc has no SSIZE_MAX. No libc header here:
 * lwIP's arch.h defines LITTLE_ENDIAN before it includes this file. */
typedef __PTRDIFF_TYPE__ ssize_t;
#define SSIZE_MAX        __PTRDIFF_MAX__
#define LWIP_NO_UNISTD_H 1

#define LWIP_NO_INTTYPES_H 0
#define BYTE_ORDER         LITTLE_ENDIAN
#define LWIP_RAND()        ((u32_t)netstack_random())

uint32_t netstack_random(void);
void netstack_assert_failed(const char *msg, const char *file, int line);

#define LWIP_PLATFORM_DIAG(x)                                                                      \
    do {                                                                                           \
    } while (0)
#define LWIP_PLATFORM_ASSERT(x) netstack_assert_failed((x), __FILE__, __LINE__)

#endif
