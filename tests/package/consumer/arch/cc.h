/* lwIP's compiler port for the consumer: little-endian i686 or x86_64, no diagnostics. */
#ifndef CONSUMER_ARCH_CC_H
#define CONSUMER_ARCH_CC_H

/* ssize_t as the libc has it (picolibc: int on i686, long on x86_64, as ptrdiff_t): lwIP
 * would otherwise define it as int, since picolibc has no SSIZE_MAX. No libc header here:
 * lwIP's arch.h defines LITTLE_ENDIAN before it includes this file. */
typedef __PTRDIFF_TYPE__ ssize_t;
#define SSIZE_MAX        __PTRDIFF_MAX__
#define LWIP_NO_UNISTD_H 1

#define BYTE_ORDER LITTLE_ENDIAN
#define LWIP_PLATFORM_DIAG(x)                                                                      \
    do {                                                                                           \
    } while (0)
#define LWIP_PLATFORM_ASSERT(x)                                                                    \
    do {                                                                                           \
        for (;;)                                                                                   \
            ;                                                                                      \
    } while (0)

#endif
