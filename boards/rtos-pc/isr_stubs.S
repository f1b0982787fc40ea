/* One entry stub per IDT vector. Each pushes a 0 where the CPU pushes no error code, then
 * its vector, and joins the common path, which saves the registers as struct trap_frame
 * (idt.h) and calls idt_dispatch(frame). Interrupt gates: IF is clear throughout. */
    .text
    .code32
    .altmacro /* so %v below passes v's value, giving each stub a numbered label */

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

    .set v, 0
    .rept 256
    stub %v
    .set v, v + 1
    .endr

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
    .set v, 0
    .rept 256
    stub_address %v
    .set v, v + 1
    .endr
