/* The #GP fixups of msr_safe.S, for whichever #GP handler the platform has. */
#include "acart.h"
#include "acart_platform.h"
#include "msr_safe.h"

extern const char msr_read_safe_insn[], msr_read_safe_fault[];
extern const char msr_write_safe_insn[], msr_write_safe_fault[];

int aca_fixup_gp(uintptr_t *ip)
{
    if (*ip == (uintptr_t)msr_read_safe_insn) {
        *ip = (uintptr_t)msr_read_safe_fault;
        return 1;
    }
    if (*ip == (uintptr_t)msr_write_safe_insn) {
        *ip = (uintptr_t)msr_write_safe_fault;
        return 1;
    }
    return 0;
}
