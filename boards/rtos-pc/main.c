/* The rtos-pc kernel: a small preemptive kernel that owns its GDT, IDT and LAPIC tick,
 * runs lwIP from its own net task, and three workers with a known work split. It links
 * acart as an outside RTOS would: the installed package, the platform seam implemented
 * here (platform.c), the port hooks (port.c), acart started from the net task. */
#include "console.h"
#include "gdt.h"
#include "heap.h"
#include "idt.h"
#include "io.h"
#include "lapic_tick.h"
#include "net_task.h"
#include "pic.h"
#include "platform.h"
#include "port.h"
#include "sched.h"
#include "serial.h"
#include "tsc.h"
#include "workers.h"

#include "acart.h"

#include <string.h>

#define MULTIBOOT_BOOTLOADER_MAGIC 0x2badb002

/* The start of the multiboot information: flags, then (flags bit 2) the command line at
 * offset 16. */
struct multiboot_info {
    uint32_t flags;
    // cppcheck-suppress unusedStructMember ; layout only: mem_lower, mem_upper, boot_device
    uint32_t fields_we_skip[3];
    uint32_t cmdline;
};

extern uint8_t boot_stack[], boot_stack_top[];
extern const char __text_start[], __text_end[];

static enum aca_transfer_mode transfer_mode = ACA_TRANSFER_DELAYED;

/* The value of `key` (e.g. "sched_hz=") on the command line, or `otherwise`. */
static uint32_t cmdline_number(const char *cmdline, const char *key, uint32_t otherwise)
{
    const char *at = strstr(cmdline, key);
    if (!at)
        return otherwise;
    uint32_t v = 0;
    for (at += strlen(key); *at >= '0' && *at <= '9' && v < 100000000u; at++)
        v = v * 10 + (uint32_t)(*at - '0');
    return v;
}

void kernel_main(uint32_t magic, const struct multiboot_info *mbi);

/* The FPU and SSE off, as in an RTOS that saves no x87/SSE state at task switches and
 * interrupts (sched.c): CR0.EM set (x87 and MMX instructions raise #NM, SSE ones #UD) and
 * CR4.OSFXSR clear (SSE raises #UD), so an instruction that would corrupt another task's
 * registers stops the kernel with an exception report instead. Nothing in the image uses
 * them: acart's package, the general-registers-only picolibc and this kernel are built
 * with -mgeneral-regs-only, and the general_regs_only tests disassemble the image. */
static void fpu_off(void)
{
    /* Control registers are as wide as the mode: 32 or 64 bits. */
    uintptr_t cr0, cr4;
    __asm__ volatile("mov %%cr0, %0" : "=r"(cr0));
    cr0 = (cr0 | (1u << 2)) & ~(uintptr_t)(1u << 1); /* EM on, MP off */
    __asm__ volatile("mov %0, %%cr0" ::"r"(cr0));
    __asm__ volatile("mov %%cr4, %0" : "=r"(cr4));
    cr4 &= ~(uintptr_t)((1u << 9) | (1u << 10)); /* OSFXSR, OSXMMEXCPT off */
    __asm__ volatile("mov %0, %%cr4" ::"r"(cr4));
}

/* In the net task, once the interface is up: acart's porting self-test (it prints what
 * it finds), then acart. */
static void start_acart(uint32_t ip)
{
    int err = aca_selftest();
    if (err != ACA_OK)
        console_printf("acart: self-test failed: %s\n", aca_strerror(err));
    struct aca_config cfg;
    aca_config_init(&cfg);
    cfg.transfer = transfer_mode;
    err = aca_start(&cfg);
    if (err != ACA_OK) {
        console_printf("acart: aca_start failed: %s\n", aca_strerror(err));
        return;
    }
    net_set_poll(aca_poll);
    console_printf("acart: listening on %lu.%lu.%lu.%lu:%u (%s transfer)\n",
                   (unsigned long)(ip >> 24), (unsigned long)((ip >> 16) & 0xff),
                   (unsigned long)((ip >> 8) & 0xff), (unsigned long)(ip & 0xff),
                   cfg.port ? cfg.port : 9321,
                   transfer_mode == ACA_TRANSFER_IMMEDIATE ? "immediate" : "delayed");
}

static void __attribute__((noinline, noreturn)) idle_loop(void)
{
    for (;;)
        __asm__ volatile("sti; hlt" ::: "memory");
}

void kernel_main(uint32_t magic, const struct multiboot_info *mbi)
{
    fpu_off();
    serial_init();
    console_printf("\nrtos-pc kernel\n");
    uintptr_t cr0, cr4;
    __asm__ volatile("mov %%cr0, %0" : "=r"(cr0));
    __asm__ volatile("mov %%cr4, %0" : "=r"(cr4));
    console_printf("fpu: off, no x87/SSE state saved (cr0 0x%lx, cr4 0x%lx)\n", (unsigned long)cr0,
                   (unsigned long)cr4);
    const char *cmdline = "";
    if (magic == MULTIBOOT_BOOTLOADER_MAGIC && (mbi->flags & (1u << 2)))
        cmdline = (const char *)(uintptr_t)mbi->cmdline; /* a 32-bit physical address */
    console_printf("cmdline: %s\n", cmdline);
    if (strstr(cmdline, "transfer=immediate"))
        transfer_mode = ACA_TRANSFER_IMMEDIATE;
    /* sampling=tick: no sampling timer for acart, the scheduler tick samples (platform.c);
     * sched_hz=N: the tick's rate, 100..10000 Hz (a faster tick gives that mode more
     * samples per second). */
    int sample_from_tick = strstr(cmdline, "sampling=tick") != 0;
    uint32_t sched_hz = cmdline_number(cmdline, "sched_hz=", SCHED_HZ);
    if (sched_hz < 100 || sched_hz > 10000)
        sched_hz = SCHED_HZ;

    gdt_init();
    idt_init();
    pic_init();
    int runs = tsc_calibrate();
    lapic_init();
    console_printf("tsc: %llu Hz (PIT, %d runs agreeing); lapic %lu: xAPIC at 0x%lx, timer %llu "
                   "Hz, tick %lu Hz%s\n",
                   (unsigned long long)tsc_hz(), runs, (unsigned long)lapic_id(),
                   (unsigned long)lapic_mmio_base(), (unsigned long long)lapic_timer_hz(),
                   (unsigned long)sched_hz,
                   sample_from_tick ? " (acart samples from it: no sampling timer)" : "");

    platform_init(sample_from_tick);
    sched_init("idle", boot_stack, boot_stack_top);
    if (workers_start() != 0)
        console_printf("workers: not all started\n");
    const struct net_config net = {0x0a00020fu /* 10.0.2.15 */, 0xffffff00u,
                                   0x0a000202u /* 10.0.2.2 */};
    if (net_task_start(&net, start_acart) < 0)
        console_printf("net: disabled\n");
    port_announce_tasks();
    console_printf("Module: %s 0x%lx-0x%lx\n", IMAGE_NAME, (unsigned long)(uintptr_t)__text_start,
                   (unsigned long)(uintptr_t)__text_end);
    console_printf("heap: %lu of %lu bytes used\n", (unsigned long)heap_used(),
                   (unsigned long)heap_size());
    lapic_tick_start(sched_hz);
    idle_loop();
}

void _exit(int status)
{
    console_printf("exit(%d)\n", status);
    for (;;)
        __asm__ volatile("cli; hlt");
}
