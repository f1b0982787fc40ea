#include "msr_safe.h"
#include "trap.h"

struct msr_fixup {
    uint32_t fault_ip;
    uint32_t resume_ip;
};

extern const struct msr_fixup __msr_fixup_start[], __msr_fixup_end[];

int msr_read_safe(uint32_t msr, uint64_t *value)
{
    uint32_t lo = 0, hi = 0;
    int err = 0;
    __asm__ volatile("1: rdmsr\n"
                     "2:\n"
                     ".pushsection .msr_fixup, \"a\"\n"
                     ".long 1b, 3f\n"
                     ".popsection\n"
                     ".pushsection .text.msr_fixup, \"ax\"\n"
                     "3: movl $-1, %2\n"
                     "jmp 2b\n"
                     ".popsection"
                     : "+a"(lo), "+d"(hi), "+r"(err)
                     : "c"(msr));
    *value = ((uint64_t)hi << 32) | lo;
    return err;
}

int msr_write_safe(uint32_t msr, uint64_t value)
{
    int err = 0;
    __asm__ volatile("1: wrmsr\n"
                     "2:\n"
                     ".pushsection .msr_fixup, \"a\"\n"
                     ".long 1b, 3f\n"
                     ".popsection\n"
                     ".pushsection .text.msr_fixup, \"ax\"\n"
                     "3: movl $-1, %0\n"
                     "jmp 2b\n"
                     ".popsection"
                     : "+r"(err)
                     : "c"(msr), "a"((uint32_t)value), "d"((uint32_t)(value >> 32))
                     : "memory");
    return err;
}

static void on_general_protection(struct trap_frame *frame)
{
    uint32_t n = (uint32_t)(((uintptr_t)__msr_fixup_end - (uintptr_t)__msr_fixup_start) /
                            sizeof(struct msr_fixup));
    for (uint32_t i = 0; i < n; i++) {
        if (__msr_fixup_start[i].fault_ip == frame->eip) {
            frame->eip = __msr_fixup_start[i].resume_ip;
            return;
        }
    }
    trap_report_fatal(frame);
}

void msr_safe_init(void)
{
    trap_set_handler(13, on_general_protection);
}
