/* The little lwIP needs from the platform under NO_SYS, for the boards that build lwIP
 * with acart's lwipopts.h: a millisecond clock, a random number, and somewhere to report
 * a failed assertion. Only the public seam: the TSC rate and the port's log. */
#include "acart.h"
#include "acart_platform.h"

#include "lwip/sys.h"

static inline uint64_t read_tsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

u32_t sys_now(void)
{
    return (u32_t)(read_tsc() / (aca_plat_tsc_hz() / 1000u));
}

uint32_t netstack_random(void)
{
    /* xorshift seeded from the TSC: TCP initial sequence numbers and DHCP ids need to
     * differ between boots, not to be secret. */
    static uint32_t state;
    if (state == 0)
        state = (uint32_t)read_tsc() | 1u;
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
}

void netstack_assert_failed(const char *msg, const char *file, int line)
{
    (void)line;
    aca_port_log("lwIP assertion failed:");
    aca_port_log(msg);
    aca_port_log(file);
    for (;;)
        __asm__ volatile("cli; hlt");
}
