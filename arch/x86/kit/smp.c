/* AP startup (INIT-SIPI-SIPI) and the IPI-based call-on-every-CPU primitive. */
#include "smp.h"
#include "acpi_madt.h"
#include "cpu.h"
#include "io.h"
#include "lapic.h"
#include "paging.h"
#include "percpu.h"
#include "tss.h"
#include "trap.h"
#include "tsc.h"

#include <string.h>

#define SMP_TRAMPOLINE_ADDR 0x8000

extern const uint8_t ap_trampoline_entry[], ap_trampoline_end[], ap_trampoline_gdtr[],
    ap_trampoline_stack[], ap_trampoline_index[];
#ifdef __x86_64__
extern const uint8_t ap_trampoline_cr3[]; /* long mode: the page tables to enter it on */
#endif
extern const uint8_t gdt_pointer[];

/* Each AP's stack sits above a guard page that paging leaves unmapped. */
#define SMP_GUARD_SIZE 4096
static uint8_t ap_stacks[ARCH_MAX_CPUS][SMP_GUARD_SIZE + SMP_STACK_SIZE]
    __attribute__((aligned(4096)));
static volatile uint32_t cpus_online = 1;
static smp_ap_entry_fn ap_entry;

static struct {
    volatile uint32_t lock;
    smp_call_fn fn;
    void *arg;
    volatile uint32_t pending;
} call;

void smp_ap_main(uint32_t index);

static void per_cpu_setup(uint32_t index)
{
    if (index)
        paging_enable_cpu();
    gdt_load_cpu(index);
    tss_init_cpu(index);
    trap_load_idt();
    cpu_enable_sse();
    lapic_init_cpu();
    percpu_table[index].apic_id = lapic_id();
    if (index) {
        percpu_table[index].stack_bottom = ap_stacks[index] + SMP_GUARD_SIZE;
        percpu_table[index].stack_top = ap_stacks[index] + SMP_GUARD_SIZE + SMP_STACK_SIZE;
    }
}

static void call_ipi_handler(struct trap_frame *frame)
{
    (void)frame;
    call.fn(call.arg);
    lapic_eoi();
    __atomic_fetch_sub(&call.pending, 1, __ATOMIC_RELEASE);
}

void smp_init_boot_cpu(void)
{
    trap_init();
    per_cpu_setup(0);
    percpu_table[0].online = 1;
    trap_set_handler(TRAP_VECTOR_CALL, call_ipi_handler);
}

void smp_ap_main(uint32_t index)
{
    per_cpu_setup(index);
    __atomic_store_n(&percpu_table[index].online, 1, __ATOMIC_RELEASE);
    ap_entry(index);
    for (;;)
        __asm__ volatile("cli; hlt");
}

/* Offset of a trampoline symbol from its start (linker symbols, compared as addresses). */
#define TRAMPOLINE_OFFSET(sym) ((uint32_t)((uintptr_t)(sym) - (uintptr_t)ap_trampoline_entry))

static void patch_trampoline(uint32_t field_offset, const void *value, uint32_t len)
{
    memcpy((uint8_t *)phys_ptr(SMP_TRAMPOLINE_ADDR) + field_offset, value, len);
}

static int start_one(uint32_t index, uint32_t apic_id)
{
    paging_guard_page(ap_stacks[index]);
    uintptr_t stack = (uintptr_t)(ap_stacks[index] + SMP_GUARD_SIZE + SMP_STACK_SIZE);
    patch_trampoline(TRAMPOLINE_OFFSET(ap_trampoline_stack), &stack, sizeof(stack));
    patch_trampoline(TRAMPOLINE_OFFSET(ap_trampoline_index), &index, 4);

    lapic_send_init(apic_id);
    tsc_delay_us(10000);
    for (int sipi = 0; sipi < 2; sipi++) {
        lapic_send_sipi(apic_id, SMP_TRAMPOLINE_ADDR >> 12);
        /* Under TCG an AP can take a while to be scheduled: wait up to 1 s in total. */
        for (int i = 0; i < (sipi ? 5000 : 200); i++) {
            if (__atomic_load_n(&percpu_table[index].online, __ATOMIC_ACQUIRE))
                return 0;
            tsc_delay_us(200);
        }
    }
    return -1;
}

uint32_t smp_start_aps(smp_ap_entry_fn entry)
{
    uint32_t ids[ARCH_MAX_CPUS];
    int n = acpi_madt_cpus(ids, ARCH_MAX_CPUS);
    uint32_t self = percpu_table[0].apic_id;

    ap_entry = entry;
    memcpy(phys_ptr(SMP_TRAMPOLINE_ADDR), ap_trampoline_entry,
           (uint32_t)((uintptr_t)ap_trampoline_end - (uintptr_t)ap_trampoline_entry));
    /* Real mode's lgdtl reads a 6-byte pointer: the limit and the low 32 bits of the base,
     * which is all there is (the image lies below 4 GiB) in either mode. */
    patch_trampoline(TRAMPOLINE_OFFSET(ap_trampoline_gdtr), gdt_pointer, 6);
#ifdef __x86_64__
    uint32_t cr3 = paging_cr3();
    patch_trampoline(TRAMPOLINE_OFFSET(ap_trampoline_cr3), &cr3, sizeof(cr3));
#endif

    for (int i = 0; i < n; i++) {
        if (ids[i] == self)
            continue;
        if (start_one(cpus_online, ids[i]) == 0)
            cpus_online++;
    }
    return cpus_online;
}

void smp_set_boot_stack(uint8_t *bottom, uint8_t *top)
{
    percpu_table[0].stack_bottom = bottom;
    percpu_table[0].stack_top = top;
}

uint32_t smp_num_cpus(void)
{
    return cpus_online;
}

void smp_call_all(smp_call_fn fn, void *arg)
{
    uintptr_t flags = irq_save();
    while (__atomic_exchange_n(&call.lock, 1, __ATOMIC_ACQUIRE))
        cpu_relax();
    call.fn = fn;
    call.arg = arg;
    __atomic_store_n(&call.pending, cpus_online - 1, __ATOMIC_RELEASE);
    if (cpus_online > 1)
        lapic_send_ipi_all_but_self(TRAP_VECTOR_CALL);
    fn(arg);
    while (__atomic_load_n(&call.pending, __ATOMIC_ACQUIRE))
        cpu_relax();
    __atomic_store_n(&call.lock, 0, __ATOMIC_RELEASE);
    irq_restore(flags);
}
