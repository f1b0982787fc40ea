/* One entry stub per IDT vector. Each pushes a 0 where the CPU pushes no error code, then
 * its vector, and joins the common path, which saves the registers as struct trap_frame
 * (idt.h) and calls idt_dispatch(frame). Interrupt gates: IF is clear throughout. */
    .text
    .altmacro /* so %v below passes v's value, giving each stub a numbered label */

#ifdef __x86_64__
    .code64
    .macro stub vector
    .balign 8
isr_\vector:
    .if (\vector == 8) || (\vector == 10) || (\vector == 11) || (\vector == 12) || (\vector == 13) || (\vector == 14) || (\vector == 17) || (\vector == 21) || (\vector == 29) || (\vector == 30)
    .else
    pushq $0
    .endif
    pushq $\vector
    jmp isr_common
    .endm
#else
    .code32
    .macro stub vector
    .balign 8
isr_\vector:
    .if (\vector == 8) || (\vector == 10) || (\vector == 11) || (\vector == 12) || (\vector == 13) || (\vector == 14) || (\vector == 17) || (\vector == 21) || (\vector == 29) || (\vector == 30)
    .else
    pushl $0
    .endif
    pushl $\vector
    jmp isr_common
    .endm
#endif

    .set v, 0
    .rept 256
    stub %v
    .set v, v + 1
    .endr

#ifdef __x86_64__
/* Long mode has no pusha: all 15 general registers one by one, RAX first, so R15 ends up
 * at the lowest address as struct trap_frame has it. The CPU aligned RSP to 16 bytes
 * before pushing its five quadwords (SDM 6.14.2); with the error code, the vector and the
 * 15 registers that is 22 quadwords, so RSP is 16-byte aligned at the call, as the ABI
 * wants. Nothing here touches the red zone: the kernel is built with -mno-red-zone. */
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
    call idt_dispatch
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
    .macro stub_address vector
    .quad isr_\vector
    .endm
#else
isr_common:
    pushal
    cld
    movl %esp, %eax
    /* Keep the C handler's stack 16-byte aligned whatever was interrupted. */
    movl %esp, %ebx
    andl $-16, %esp
    subl $12, %esp
    pushl %eax
    call idt_dispatch
    movl %ebx, %esp
    popal
    addl $8, %esp
    iret

    .section .rodata
    .balign 4
    .global isr_stub_table
isr_stub_table:
    .macro stub_address vector
    .long isr_\vector
    .endm
#endif
    .set v, 0
    .rept 256
    stub_address %v
    .set v, v + 1
    .endr
