/* Application-processor start code. It is linked into the image but copied to
 * SMP_TRAMPOLINE_ADDR (below 1 MiB, page aligned) before the SIPI, because an AP starts
 * in real mode at a page-aligned address. Every address inside is therefore computed
 * relative to that copy. smp.c fills in the GDT pointer, stack and CPU index. */
#define SMP_TRAMPOLINE_ADDR 0x8000
#define REL(sym) (SMP_TRAMPOLINE_ADDR + (sym) - ap_trampoline_entry)

    .section .ap_trampoline, "ax"
    .code16
    .global ap_trampoline_entry
ap_trampoline_entry:
    cli
    cld
    xorw %ax, %ax
    movw %ax, %ds
    lgdtl REL(ap_trampoline_gdtr)
    movl %cr0, %eax
    orl $1, %eax
    movl %eax, %cr0
    ljmpl $0x08, $REL(ap_trampoline_32)

    .code32
ap_trampoline_32:
    movw $0x10, %ax
    movw %ax, %ds
    movw %ax, %es
    movw %ax, %ss
    movl REL(ap_trampoline_stack), %esp
    /* smp_ap_main never returns: enter it with a zero return address and frame pointer
     * so call-stack walks end there instead of in this low-memory copy. */
    xorl %ebp, %ebp
    pushl REL(ap_trampoline_index)
    pushl $0
    movl $smp_ap_main, %eax
    jmp *%eax

    .balign 8
    .global ap_trampoline_gdtr, ap_trampoline_stack, ap_trampoline_index
ap_trampoline_gdtr:
    .word 0
    .long 0
ap_trampoline_stack:
    .long 0
ap_trampoline_index:
    .long 0

    /* Where the copy ends: the trampoline is this file's section alone, so no linker
     * script needs to bracket it. */
    .global ap_trampoline_end
ap_trampoline_end:
