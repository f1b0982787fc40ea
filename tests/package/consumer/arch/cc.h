/* lwIP's compiler port for the consumer: little-endian i686, no diagnostics. */
#ifndef CONSUMER_ARCH_CC_H
#define CONSUMER_ARCH_CC_H

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
