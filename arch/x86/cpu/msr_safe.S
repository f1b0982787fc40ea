/* MSR access that survives a #GP: the host may name an MSR this CPU lacks (QEMU TCG has
 * no MSR_PLATFORM_INFO, for one). Each function has exactly one instruction that may
 * fault; aca_fixup_gp() (msr_fixup.c), which the #GP handler calls first, moves a fault
 * there to the function's failure exit. Written in assembly so that the compiler can
 * never duplicate the faulting instruction, and no linker section is needed. cdecl on
 * i686, the SysV AMD64 convention on x86_64. */
#ifdef __x86_64__
    .text

/* int msr_read_safe(uint32_t msr, uint64_t *value): 0, or -1 (value 0) after a #GP.
 * SysV AMD64: msr in %edi, value in %rsi. */
    .globl msr_read_safe
    .type msr_read_safe, @function
msr_read_safe:
    movl %edi, %ecx
    xorl %eax, %eax
    xorl %edx, %edx
    .globl msr_read_safe_insn
msr_read_safe_insn:
    rdmsr
    movl %eax, (%rsi)
    movl %edx, 4(%rsi)
    xorl %eax, %eax
    ret
    .globl msr_read_safe_fault
msr_read_safe_fault:
    movq $0, (%rsi)
    movl $-1, %eax
    ret
    .size msr_read_safe, . - msr_read_safe

/* int msr_write_safe(uint32_t msr, uint64_t value): 0, or -1 after a #GP.
 * SysV AMD64: msr in %edi, value in %rsi. */
    .globl msr_write_safe
    .type msr_write_safe, @function
msr_write_safe:
    movl %edi, %ecx
    movl %esi, %eax
    movq %rsi, %rdx
    shrq $32, %rdx
    .globl msr_write_safe_insn
msr_write_safe_insn:
    wrmsr
    xorl %eax, %eax
    ret
    .globl msr_write_safe_fault
msr_write_safe_fault:
    movl $-1, %eax
    ret
    .size msr_write_safe, . - msr_write_safe

#else
    .text

/* int msr_read_safe(uint32_t msr, uint64_t *value): 0, or -1 (value 0) after a #GP */
    .globl msr_read_safe
    .type msr_read_safe, @function
msr_read_safe:
    movl 4(%esp), %ecx
    xorl %eax, %eax
    xorl %edx, %edx
    .globl msr_read_safe_insn
msr_read_safe_insn:
    rdmsr
    movl 8(%esp), %ecx
    movl %eax, (%ecx)
    movl %edx, 4(%ecx)
    xorl %eax, %eax
    ret
    .globl msr_read_safe_fault
msr_read_safe_fault:
    movl 8(%esp), %ecx
    movl $0, (%ecx)
    movl $0, 4(%ecx)
    movl $-1, %eax
    ret
    .size msr_read_safe, . - msr_read_safe

/* int msr_write_safe(uint32_t msr, uint64_t value): 0, or -1 after a #GP */
    .globl msr_write_safe
    .type msr_write_safe, @function
msr_write_safe:
    movl 4(%esp), %ecx
    movl 8(%esp), %eax
    movl 12(%esp), %edx
    .globl msr_write_safe_insn
msr_write_safe_insn:
    wrmsr
    xorl %eax, %eax
    ret
    .globl msr_write_safe_fault
msr_write_safe_fault:
    movl $-1, %eax
    ret
    .size msr_write_safe, . - msr_write_safe

#endif

    .section .note.GNU-stack, "", @progbits
