/* One entry stub per vector (long mode): push a zero error code where the CPU pushes none,
 * push the vector, save the general registers and call trap_dispatch(). Ring 0 only; the
 * handler runs on the interrupted stack, except NMI and #DF, which the IDT sends to their
 * own interrupt-stack-table stacks (tss.c). The CPU aligned RSP to 16 bytes before its
 * frame; the 22 quadwords of struct trap_frame keep that alignment for the call. */
    .altmacro
    .code64

    .macro isr_stub v
isr_stub_\v:
    .if (\v == 8) || (\v == 10) || (\v == 11) || (\v == 12) || (\v == 13) || (\v == 14) || (\v == 17) || (\v == 21) || (\v == 29) || (\v == 30)
    .else
    pushq $0
    .endif
    pushq $\v
    jmp isr_common
    .endm

    .macro isr_entry v
    .quad isr_stub_\v
    .endm

    .section .text
    .set vec, 0
    .rept 256
    isr_stub %vec
    .set vec, vec + 1
    .endr

isr_common:
    pushq %rax
    pushq %rcx
    pushq %rdx
    pushq %rbx
    pushq %rbp
    pushq %rsi
    pushq %rdi
    pushq %r8
    pushq %r9
    pushq %r10
    pushq %r11
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    cld
    movq %rsp, %rdi
    call trap_dispatch
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %r11
    popq %r10
    popq %r9
    popq %r8
    popq %rdi
    popq %rsi
    popq %rbp
    popq %rbx
    popq %rdx
    popq %rcx
    popq %rax
    addq $16, %rsp
    iretq

    .section .rodata
    .balign 8
    .global isr_stub_table
isr_stub_table:
    .set vec, 0
    .rept 256
    isr_entry %vec
    .set vec, vec + 1
    .endr

    .section .note.GNU-stack, "", @progbits
