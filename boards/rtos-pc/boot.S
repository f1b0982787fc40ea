/* Multiboot (v1) entry: QEMU's -kernel loader starts us in 32-bit protected mode, paging
 * off, EAX = magic, EBX = multiboot info. The boot stack becomes the idle task's stack.
 * The x86_64 kernel enters here too (QEMU boots its ELF32 copy, acart-rtos-pc.multiboot.elf,
 * because its multiboot loader takes no ELF64) and switches to long mode itself. */
    .set MB_MAGIC, 0x1badb002
    .set MB_FLAGS, 0x00000003 /* page-align modules, want the memory map */

    .section .multiboot, "a"
    .balign 4
    .long MB_MAGIC
    .long MB_FLAGS
    .long -(MB_MAGIC + MB_FLAGS)

    .section .text.boot, "ax"
    .code32
    .global _start
_start:
    cli
    cld
    movl %eax, %esi
    movl %ebx, %edx
    /* Zero .bss (QEMU's loader does too, a real one may not); on x86_64 the page tables
     * below live there. rep stosl leaves ESI and EDX alone. */
    movl $__bss_start, %edi
    movl $__bss_end, %ecx
    subl %edi, %ecx
    shrl $2, %ecx
    xorl %eax, %eax
    rep stosl
#ifdef __x86_64__
    /* Long mode needs paging. Identity-map the low 4 GiB with 2 MiB pages (PML4[0] ->
     * PDPT -> four page directories), so physical = virtual as on i686 and the kernel,
     * the heap, the LAPIC and the e1000's BAR are where they are. The fourth GiB holds
     * only MMIO (LAPIC, IOAPIC, PCI BARs): cache-disabled, as device memory must be. */
    movl $boot_pdpt, %eax
    orl $0x3, %eax                  /* present, writable */
    movl %eax, boot_pml4
    xorl %ecx, %ecx
1:  movl %ecx, %eax
    shll $12, %eax
    addl $boot_pd, %eax
    orl $0x3, %eax
    movl %eax, boot_pdpt(, %ecx, 8)
    incl %ecx
    cmpl $4, %ecx
    jne 1b
    xorl %ecx, %ecx
2:  movl %ecx, %eax
    shll $21, %eax
    orl $0x83, %eax                 /* present, writable, 2 MiB page */
    cmpl $1536, %ecx
    jb 3f
    orl $0x18, %eax                 /* PCD, PWT: uncached MMIO above 3 GiB */
3:  movl %eax, boot_pd(, %ecx, 8)  /* bits 63:32 stay zero: all below 4 GiB */
    incl %ecx
    cmpl $2048, %ecx
    jne 2b
    movl %cr4, %eax
    orl $0x20, %eax                 /* PAE, required by long mode */
    movl %eax, %cr4
    movl $boot_pml4, %eax
    movl %eax, %cr3
    movl $0xc0000080, %ecx          /* IA32_EFER */
    rdmsr
    orl $0x100, %eax                /* LME */
    wrmsr
    movl %cr0, %eax
    orl $0x80000000, %eax           /* PG: with LME set, long mode becomes active */
    movl %eax, %cr0
    /* A GDT with a 64-bit code segment to jump into; gdt_init() loads the kernel's own. */
    lgdt boot_gdt_pointer
    ljmp $0x08, $long_mode_entry

    .code64
long_mode_entry:
    movw $0x10, %ax
    movw %ax, %ds
    movw %ax, %es
    movw %ax, %ss
    movq $boot_stack_top, %rsp
    /* kernel_main(magic, multiboot info) in RDI, RSI (zero-extended by the 32-bit moves):
     * the magic from ESI, the info from EBX, which nothing above touched (rdmsr overwrote
     * the copy in EDX). A zero frame pointer and return address end every call-stack walk
     * here; RSP is then 8 mod 16, as after a call from an aligned stack. */
    movl %esi, %edi
    movl %ebx, %esi
    xorl %ebp, %ebp
    pushq $0
    jmp kernel_main

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
    movl $boot_stack_top, %esp
    /* A zero frame pointer and return address end every call-stack walk here; the two
     * pads keep the arguments 16-byte aligned as the ABI expects at a call. */
    xorl %ebp, %ebp
    pushl $0
    pushl $0
    pushl %edx
    pushl %esi
    pushl $0
    jmp kernel_main
#endif

    .section .bss
    .balign 16
    .global boot_stack, boot_stack_top
boot_stack:
    .skip 16384
boot_stack_top:
