/* Boot-selectable workloads. `hotspot` is what demos and tests profile: every CPU spins
 * in acart_demo_hotspot, whose inner loop is two instructions (6 bytes) so that nearly
 * every sample lands within a few bytes of the printed hotspot address. */
#include "workloads.h"
#include "console.h"
#include "selfmeasure.h"
#include "smp.h"
#include "io.h"
#include "tasks.h"
#include "tsc.h"

#include "acart.h"
#include "acart_platform.h"

#include <stdint.h>
#include <string.h>

#define HOTSPOT_WORDS 4096 /* 16 KiB per CPU: touches memory, stays in L1/L2 */

static uint32_t hotspot_buffers[64][HOTSPOT_WORDS] __attribute__((aligned(64)));

/* Passes over the buffer per CPU, one cache line each: the benchmarks' measure of how much
 * work the hotspot got done. */
struct pass_counter {
    volatile uint32_t passes __attribute__((aligned(64)));
};
static struct pass_counter pass_counters[64] __attribute__((aligned(64)));

extern const char acart_demo_hotspot_loop[];

/* The loop walks the buffer backwards with `loop`, incrementing each word. Written in
 * assembly so the compiler cannot unroll it or move the address tests rely on. Its label
 * (the board prints its address) is hidden: perf takes a visible label inside a function
 * for a symbol of its own, and then names the loop's samples by the label or by the
 * function depending on the shape of its symbol tree, that is on the rest of the image. */
__attribute__((noinline, noreturn)) void acart_demo_hotspot(uint32_t *buffer, uint32_t words,
                                                            volatile uint32_t *passes)
{
    /* GCC 12 leaves an x86_64 leaf function without a frame even under
     * -fno-omit-frame-pointer (its arguments come in registers): a frame-pointer walk from
     * here would skip run_hotspot. This one never returns, so it builds its frame itself,
     * as every non-leaf function does (docs/porting.md: leaf functions and call stacks).
     * Where the compiler emits CFI, the push is described in it too, or a CFI unwinder
     * (collect --callstack=dwarf) would take the saved RBP for the return address. */
    __asm__ volatile(
#ifdef __x86_64__
        "pushq %%rbp\n\t"
#ifdef __GCC_HAVE_DWARF2_CFI_ASM
        ".cfi_adjust_cfa_offset 8\n\t"
        ".cfi_rel_offset %%rbp, 0\n\t"
#endif
        "movq %%rsp, %%rbp\n"
#endif
        "1:\n\t"
        "incl (%2)\n\t"
        "movl %1, %%ecx\n\t"
        ".global acart_demo_hotspot_loop\n"
        ".hidden acart_demo_hotspot_loop\n"
        "acart_demo_hotspot_loop:\n\t"
#ifdef __x86_64__
        "incl -4(%0,%%rcx,4)\n\t" /* movl zero-extended RCX; loop counts RCX */
#else
        "incl -4(%0,%%ecx,4)\n\t"
#endif
        "loop acart_demo_hotspot_loop\n\t"
        "jmp 1b" ::"r"(buffer),
        "r"(words), "r"(passes)
        : "ecx", "memory");
    __builtin_unreachable();
}

static void run_hotspot(uint32_t cpu)
{
    irq_enable();
    acart_demo_hotspot(hotspot_buffers[cpu % 64], HOTSPOT_WORDS, &pass_counters[cpu % 64].passes);
}

/* `leaf`: the hotspot's work in a plain C leaf function, left as the compiler makes it. On
 * x86_64 GCC 12 gives it no frame even under -fno-omit-frame-pointer, so a frame-pointer
 * walk from a sample in it skips run_leaf; a CFI unwind (collect --callstack=dwarf) keeps
 * it (tests/qemu/test_callstack_dwarf.py --workload leaf). */
__attribute__((noinline, noreturn)) void acart_demo_leaf(volatile uint32_t *buffer, uint32_t words,
                                                         volatile uint32_t *passes)
{
    for (;;) {
        (*passes)++;
        for (uint32_t i = words; i; i--)
            buffer[i - 1]++;
    }
}

static void run_leaf(uint32_t cpu)
{
    irq_enable();
    acart_demo_leaf(hotspot_buffers[cpu % 64], HOTSPOT_WORDS, &pass_counters[cpu % 64].passes);
}

static void run_idle(uint32_t cpu)
{
    (void)cpu;
    for (;;)
        __asm__ volatile("sti; hlt");
}

/* For the exception-report test: only CPU 0 faults, the others idle. */
static void run_invalid_opcode(uint32_t cpu)
{
    if (cpu == 0) {
        console_printf("workload: executing ud2 on cpu 0\n");
        __asm__ volatile("ud2");
    }
    run_idle(cpu);
}

/* `stack-overflow`: cpu 1 recurses without end. Its stack's guard page turns the overflow
 * into a #PF the CPU cannot push, hence a #DF, which the kit runs as its own task on its
 * own stack: the report prints instead of a triple fault. */
static volatile uint32_t recursion_limit = 0xffffffffu; /* never reached: the guard is */

static uint32_t __attribute__((noinline)) recurse_deeper(uint32_t depth)
{
    volatile uint8_t frame[256];
    frame[depth & 0xff] = (uint8_t)depth;
    if (depth == recursion_limit)
        return depth;
    return recurse_deeper(depth + 1) + frame[(depth + 1) & 0xff];
}

static void run_stack_overflow(uint32_t cpu)
{
    if (cpu == 1) {
        console_printf("workload: overflowing cpu 1's stack\n");
        recurse_deeper(0);
    }
    run_idle(cpu);
}

/* `overlay`: code loaded at run time. CPU 1 copies a small position-independent loop into
 * RAM, reports it to acart as module "overlay-a.bin", runs it for ~100 ms, reports the
 * unload, then does the same with "overlay-b.bin" at the same address, and again. The
 * other CPUs run the hotspot. Samples at that address belong to a or b by time only:
 * what module lifetimes (load/unload records) are for. */
extern const uint8_t overlay_code_start[], overlay_code_end[];
#ifdef __x86_64__
__asm__(".section .rodata\n"
        ".global overlay_code_start, overlay_code_end\n"
        "overlay_code_start:\n\t"
        "movl %esi, %ecx\n" /* iterations; the counter is in RDI (SysV AMD64) */
        "1:\n\t"
        "incl (%rdi)\n\t"
        "decl %ecx\n\t"
        "jnz 1b\n\t"
        "ret\n"
        "overlay_code_end:\n\t"
        ".previous");
#else
__asm__(".section .rodata\n"
        ".global overlay_code_start, overlay_code_end\n"
        "overlay_code_start:\n\t"
        "movl 4(%esp), %eax\n\t" /* counter */
        "movl 8(%esp), %ecx\n"   /* iterations */
        "1:\n\t"
        "incl (%eax)\n\t"
        "decl %ecx\n\t"
        "jnz 1b\n\t"
        "ret\n"
        "overlay_code_end:\n\t"
        ".previous");
#endif

static uint8_t overlay_ram[64] __attribute__((aligned(16)));
static volatile uint32_t overlay_counter;

#define OVERLAY_PERIOD_MS 100

static void run_overlay_loader(void)
{
    const uint32_t len = (uint32_t)((uintptr_t)overlay_code_end - (uintptr_t)overlay_code_start);
    void (*entry)(volatile uint32_t *, uint32_t) =
        (void (*)(volatile uint32_t *, uint32_t))(uintptr_t)overlay_ram;
    static const char *const names[2] = {"overlay-a.bin", "overlay-b.bin"};
    for (uint32_t k = 0;; k++) {
        memcpy(overlay_ram, overlay_code_start, len);
        __asm__ volatile("" ::: "memory"); /* the copy is code from here on */
        aca_module_loaded(BOARD_PID, names[k & 1], (uintptr_t)overlay_ram, len);
        uint64_t end = rdtsc() + tsc_hz() / 1000 * OVERLAY_PERIOD_MS;
        while (rdtsc() < end)
            entry(&overlay_counter, 100000);
        aca_module_unloaded(BOARD_PID, (uintptr_t)overlay_ram);
    }
}

static void run_overlay(uint32_t cpu)
{
    irq_enable();
    if (cpu == 1)
        run_overlay_loader();
    run_hotspot(cpu);
}

/* `selfmeasure`: the last CPU measures its own control loop through IPROBE. */
static void run_selfmeasure(uint32_t cpu)
{
    if (cpu == smp_num_cpus() - 1)
        selfmeasure_run(cpu);
    run_idle(cpu);
}

static const struct workload workloads[] = {
    {"idle", "every CPU halts until an interrupt", run_idle},
    {"hotspot", "every CPU spins in acart_demo_hotspot touching 16 KiB", run_hotspot},
    {"leaf", "every CPU spins in acart_demo_leaf, a leaf function as the compiler makes it",
     run_leaf},
    {"invalid-opcode", "cpu 0 executes ud2 (tests the exception report)", run_invalid_opcode},
    {"stack-overflow", "cpu 1 recurses until its stack's guard page (tests the #DF task)",
     run_stack_overflow},
    {"overlay", "cpu 1 loads, runs and unloads overlay-a.bin / overlay-b.bin at one address",
     run_overlay},
    {"selfmeasure", "the last CPU measures its control loop with IPROBE (selfmeasure=DELAY_MS,S)",
     run_selfmeasure},
};

uint32_t workload_hotspot_passes(uint32_t cpu)
{
    return cpu < 64 ? pass_counters[cpu].passes : 0;
}

const struct workload *workload_find(const char *name)
{
    for (unsigned i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++)
        if (strcmp(workloads[i].name, name) == 0)
            return &workloads[i];
    return 0;
}

void workload_print_info(const struct workload *w)
{
    console_printf("workload: %s (%s)\n", w->name, w->help);
    if (w->run == run_hotspot || w->run == run_overlay)
        console_printf("Hotspot ip: 0x%lx\n", (unsigned long)(uintptr_t)acart_demo_hotspot_loop);
    if (w->run == run_overlay)
        console_printf("Overlay: 0x%lx-0x%lx\n", (unsigned long)(uintptr_t)overlay_ram,
                       (unsigned long)((uintptr_t)overlay_ram + (uintptr_t)overlay_code_end -
                                       (uintptr_t)overlay_code_start));
}
