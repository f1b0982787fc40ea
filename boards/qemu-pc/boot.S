/* Multiboot (v1) entry: QEMU's -kernel loader puts us in 32-bit protected mode with
 * paging off, EAX = magic, EBX = multiboot info. The x86_64 image enters here too (QEMU
 * boots its ELF32 copy, acart-qemu-pc.multiboot.elf) and switches to long mode. */
    .set MB_MAGIC, 0x1badb002
    .set MB_FLAGS, 0x00000003 /* page-align modules, want the memory map */

    .section .multiboot, "a"
    .balign 4
    .long MB_MAGIC
    .long MB_FLAGS
    .long -(MB_MAGIC + MB_FLAGS)

#ifdef __x86_64__
    .section .text.boot, "ax"
    .code32
    .global _start
_start:
    cli
    cld
    movl %eax, %esi
    movl %ebx, %ebp
    /* Zero .bss (QEMU's loader does too, but a real loader may not). The boot page tables
     * live there. */
    movl $__bss_start, %edi
    movl $__bss_end, %ecx
    subl %edi, %ecx
    shrl $2, %ecx
    xorl %eax, %eax
    rep stosl
    /* Identity-map the low 4 GiB with 2 MiB pages: PML4[0] -> PDPT -> 4 page directories.
     * The kit's paging_init() replaces these with its own (uncached MMIO, guard pages). */
    movl $boot_pdpt, %eax
    orl $3, %eax
    movl %eax, boot_pml4
    xorl %ecx, %ecx
1:  movl %ecx, %eax
    shll $12, %eax
    addl $boot_pd, %eax
    orl $3, %eax
    movl %eax, boot_pdpt(, %ecx, 8)
    incl %ecx
    cmpl $4, %ecx
    jne 1b
    xorl %ecx, %ecx
2:  movl %ecx, %eax
    shll $21, %eax
    orl $0x83, %eax                 /* present, writable, 2 MiB */
    movl %eax, boot_pd(, %ecx, 8)  /* bits 63:32 stay zero: all below 4 GiB */
    incl %ecx
    cmpl $2048, %ecx
    jne 2b
    movl %cr4, %eax
    orl $0x20, %eax                 /* PAE */
    movl %eax, %cr4
    movl $boot_pml4, %eax
    movl %eax, %cr3
    movl $0xc0000080, %ecx          /* EFER */
    rdmsr
    orl $0x100, %eax                /* LME */
    wrmsr
    movl %cr0, %eax
    orl $0x80000000, %eax           /* PG: long mode active */
    movl %eax, %cr0
    lgdt boot_gdt_pointer
    ljmp $0x08, $long_mode_entry

    .code64
long_mode_entry:
    movw $0x10, %ax
    movw %ax, %ds
    movw %ax, %es
    movw %ax, %ss
    movq $boot_stack_top, %rsp
    movl %esi, %edi                 /* board_main(magic, multiboot info) */
    movl %ebp, %esi
    xorl %ebp, %ebp
    pushq $0                        /* a zero return address ends call-stack walks */
    jmp board_main

    .section .rodata
    .balign 8
boot_gdt:
    .quad 0
    .quad 0x00209a0000000000        /* 0x08: 64-bit code */
    .quad 0x00cf92000000ffff        /* 0x10: data */
boot_gdt_end:
boot_gdt_pointer:
    .word boot_gdt_end - boot_gdt - 1
    .long boot_gdt

    .section .bss
    .balign 4096
boot_pml4:
    .skip 4096
boot_pdpt:
    .skip 4096
boot_pd:
    .skip 4 * 4096

#else
    .section .text.boot, "ax"
    .code32
    .global _start
_start:
    cli
    cld
    movl %eax, %esi
    movl %ebx, %ebp
    /* Zero .bss (QEMU's loader does too, but a real loader may not). */
    movl $__bss_start, %edi
    movl $__bss_end, %ecx
    subl %edi, %ecx
    shrl $2, %ecx
    xorl %eax, %eax
    rep stosl
    movl $boot_stack_top, %esp
    pushl %ebp
    pushl %esi
    call board_main
1:  cli
    hlt
    jmp 1b

#endif

    .section .bss
    .balign 4096
    .global boot_stack_guard, boot_stack, boot_stack_top
boot_stack_guard:                /* unmapped by x86_kit_guard_page() */
    .skip 4096
boot_stack:
    .skip 32768
boot_stack_top:
