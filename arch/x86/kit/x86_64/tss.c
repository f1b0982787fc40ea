/* See tss.h. In long mode there are no hardware task switches: each CPU has one 64-bit TSS
 * whose interrupt stack table (SDM 6.14.5) gives NMI and #DF stacks of their own, so both
 * still run when the interrupted stack has no room left. Their handlers get an ordinary
 * struct trap_frame from the stubs, on that stack. */
#include "tss.h"
#include "percpu.h"
#include "trap.h"

struct tss64 {
    uint32_t reserved0;
    uint64_t rsp[3];
    uint64_t reserved1;
    uint64_t ist[7]; /* ist[0] is IST1 */
    uint64_t reserved2;
    uint16_t reserved3;
    uint16_t iomap_base;
} __attribute__((packed));
_Static_assert(sizeof(struct tss64) == 104, "the 64-bit TSS is 104 bytes (SDM 8.7)");

#define IST_NMI 1
#define IST_DF  2

static struct tss64 tss[ARCH_MAX_CPUS] __attribute__((aligned(16)));
static uint8_t ist_stacks[ARCH_MAX_CPUS][2][TSS_STACK_SIZE] __attribute__((aligned(16)));

void tss_init_cpu(uint32_t index)
{
    struct tss64 *t = &tss[index];
    t->ist[IST_NMI - 1] = (uint64_t)(uintptr_t)(ist_stacks[index][0] + TSS_STACK_SIZE);
    t->ist[IST_DF - 1] = (uint64_t)(uintptr_t)(ist_stacks[index][1] + TSS_STACK_SIZE);
    t->iomap_base = sizeof(struct tss64);
    uint16_t selector = gdt_set_tss(index, 0, t, sizeof(*t));
    __asm__ volatile("ltr %0" ::"r"(selector));
    trap_set_ist(index, TRAP_VECTOR_NMI, IST_NMI);
    trap_set_ist(index, TRAP_VECTOR_DF, IST_DF);
}
