/* lwIP's compiler/platform port for acart targets (i686, freestanding + picolibc). */
#ifndef ACART_LWIP_ARCH_CC_H
#define ACART_LWIP_ARCH_CC_H

#include <stdint.h>

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
