/* One entry stub per vector: push a zero error code where the CPU pushes none, push
 * the vector, save the general registers and call trap_dispatch(). The handler runs on
 * the interrupted stack (ring 0 only, no stack switch). */
    .altmacro
    .code32

    .macro isr_stub v
isr_stub_\v:
    .if (\v == 8) || (\v == 10) || (\v == 11) || (\v == 12) || (\v == 13) || (\v == 14) || (\v == 17) || (\v == 21) || (\v == 29) || (\v == 30)
    .else
    pushl $0
    .endif
    pushl $\v
    jmp isr_common
    .endm

    .macro isr_entry v
    .long isr_stub_\v
    .endm

    .section .text
    .set vec, 0
    .rept 256
    isr_stub %vec
    .set vec, vec + 1
    .endr

isr_common:
    pushal
    cld
    pushl %esp
    call trap_dispatch
    addl $4, %esp
    popal
    addl $8, %esp
    iret

    .section .rodata
    .balign 4
    .global isr_stub_table
isr_stub_table:
    .set vec, 0
    .rept 256
    isr_entry %vec
    .set vec, vec + 1
    .endr
