/* What lwIP needs from the kernel under NO_SYS: a millisecond clock, a random number, and
 * somewhere to report a failed assertion. */
#include "console.h"
#include "io.h"
#include "tsc.h"

#include "lwip/sys.h"

u32_t sys_now(void)
{
    return (u32_t)(rdtsc() / (tsc_hz() / 1000u));
}

uint32_t net_random(void)
{
    /* xorshift seeded from the TSC: TCP initial sequence numbers need to differ between
     * boots, not to be secret. */
    static uint32_t state;
    if (state == 0)
        state = (uint32_t)rdtsc() | 1u;
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
}

void net_assert_failed(const char *msg, const char *file, int line)
{
    console_printf("lwIP assertion \"%s\" failed at %s:%d\n", msg, file, line);
    for (;;)
        __asm__ volatile("cli; hlt");
}
