/* Application-processor start code, long mode. Linked into the image but copied to
 * SMP_TRAMPOLINE_ADDR (below 1 MiB, page aligned) before the SIPI, because an AP starts in
 * real mode at a page-aligned address; every address inside is relative to that copy.
 * Real mode -> protected mode (the kit's GDT, 32-bit code segment 0x18) -> PAE, the boot
 * CPU's page tables, EFER.LME, paging -> long mode (64-bit code segment 0x08). smp.c
 * fills in the GDT pointer, CR3, stack and CPU index. */
#define SMP_TRAMPOLINE_ADDR 0x8000
#define REL(sym) (SMP_TRAMPOLINE_ADDR + (sym) - ap_trampoline_entry)
#define MSR_EFER 0xc0000080
#define EFER_LME 0x100

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
    ljmpl $0x18, $REL(ap_trampoline_32)

    .code32
ap_trampoline_32:
    movw $0x10, %ax
    movw %ax, %ds
    movw %ax, %es
    movw %ax, %ss
    movl %cr4, %eax
    orl $0x20, %eax               /* PAE */
    movl %eax, %cr4
    movl REL(ap_trampoline_cr3), %eax
    movl %eax, %cr3
    movl $MSR_EFER, %ecx
    rdmsr
    orl $EFER_LME, %eax
    wrmsr
    movl %cr0, %eax
    orl $0x80000000, %eax         /* PG: long mode is active from here */
    movl %eax, %cr0
    ljmpl $0x08, $REL(ap_trampoline_64)

    .code64
ap_trampoline_64:
    movq REL(ap_trampoline_stack), %rsp
    /* smp_ap_main never returns: enter it with a zero return address and frame pointer
     * so call-stack walks end there instead of in this low-memory copy. */
    xorl %ebp, %ebp
    movl REL(ap_trampoline_index), %edi
    pushq $0
    movabsq $smp_ap_main, %rax
    jmp *%rax

    .balign 8
    .global ap_trampoline_gdtr, ap_trampoline_stack, ap_trampoline_index, ap_trampoline_cr3
ap_trampoline_gdtr:
    .word 0
    .long 0
    .balign 8
ap_trampoline_stack:
    .quad 0
ap_trampoline_index:
    .long 0
ap_trampoline_cr3:
    .long 0

    /* Where the copy ends: the trampoline is this file's section alone, so no linker
     * script needs to bracket it. */
    .global ap_trampoline_end
ap_trampoline_end:

    .section .note.GNU-stack, "", @progbits
