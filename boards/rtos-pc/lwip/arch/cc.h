/* lwIP's compiler/platform port for the rtos-pc kernel (i686 or x86_64, freestanding +
 * picolibc). */
#ifndef RTOS_PC_LWIP_ARCH_CC_H
#define RTOS_PC_LWIP_ARCH_CC_H

#include <stdint.h>
#include <sys/types.h>

/* picolibc has ssize_t (long on x86_64) but no SSIZE_MAX without POSIX: without one lwIP
 * would define ssize_t itself as int, which conflicts on x86_64. With SSIZE_MAX lwIP would
 * include unistd.h for ssize_t, which sys/types.h has already given us. */
#ifndef SSIZE_MAX
#define SSIZE_MAX        __PTRDIFF_MAX__
#define LWIP_NO_UNISTD_H 1
#endif

#define LWIP_NO_INTTYPES_H 0
#define BYTE_ORDER         LITTLE_ENDIAN
#define LWIP_RAND()        ((u32_t)net_random())

uint32_t net_random(void);
void net_assert_failed(const char *msg, const char *file, int line);

#define LWIP_PLATFORM_DIAG(x)                                                                      \
    do {                                                                                           \
    } while (0)
#define LWIP_PLATFORM_ASSERT(x) net_assert_failed((x), __FILE__, __LINE__)

#endif
