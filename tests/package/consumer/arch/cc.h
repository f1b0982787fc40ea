/* lwIP's compiler port for the consumer: little-endian i686 or x86_64, no diagnostics. */
#ifndef CONSUMER_ARCH_CC_H
#define CONSUMER_ARCH_CC_H

#include <sys/types.h>

/* picolibc's ssize_t is long on x86_64; without SSIZE_MAX lwIP would define it as int. */
#ifndef SSIZE_MAX
#define SSIZE_MAX        __PTRDIFF_MAX__
#define LWIP_NO_UNISTD_H 1
#endif

#ifndef BYTE_ORDER
#define BYTE_ORDER LITTLE_ENDIAN
#endif
#define LWIP_PLATFORM_DIAG(x)                                                                      \
    do {                                                                                           \
    } while (0)
#define LWIP_PLATFORM_ASSERT(x)                                                                    \
    do {                                                                                           \
        for (;;)                                                                                   \
            ;                                                                                      \
    } while (0)

#endif
