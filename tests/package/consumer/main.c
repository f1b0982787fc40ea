/* The smallest kit board: bring-up through the kit, lwIP, the port hooks, aca_start. */
#include "acart.h"
#include "acart_platform.h"
#include "acart_x86.h"
#include "io.h"
#include "ipr.h"

#include "lwip/init.h"
#include "lwip/sys.h"
#include "lwip/timeouts.h"

#include <stdint.h>

static uint8_t stack[16384] __attribute__((aligned(16)));

__asm__(".section .multiboot, \"a\"\n"
        ".align 4\n"
        ".long 0x1badb002, 0, -0x1badb002\n"
        ".text\n"
        ".global _start\n"
        "_start:\n"
        "movl $stack + 16384, %esp\n"
        "call consumer_main\n"
        "1: hlt\n"
        "jmp 1b\n");

u32_t sys_now(void)
{
    return (u32_t)(rdtsc() / (aca_plat_tsc_hz() / 1000u));
}

int aca_port_current_task(uint32_t cpu, uint32_t *pid, uint32_t *tid)
{
    (void)cpu;
    *pid = *tid = 1;
    return 0;
}

int aca_port_module_list(struct aca_module_info *out, int max)
{
    (void)out;
    (void)max;
    return 0;
}

void aca_port_log(const char *line)
{
    for (; *line; line++)
        outb(0x3f8, (uint8_t)*line);
    outb(0x3f8, '\n');
}

void consumer_main(void);

void consumer_main(void)
{
    x86_kit_init(stack, stack + sizeof(stack));
    lwip_init();
    struct aca_config cfg;
    aca_config_init(&cfg);
    if (aca_start(&cfg) != ACA_OK)
        return;
    /* IPROBE comes with the package: the firmware can own the counters itself. */
    if (IprAllocate() == IPR__SUCCESS)
        IprDeallocate();
    for (;;) {
        sys_check_timeouts();
        aca_poll();
    }
}
