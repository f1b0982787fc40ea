/* Multiboot (v1) entry: QEMU's -kernel loader starts us in 32-bit protected mode, paging
 * off, EAX = magic, EBX = multiboot info. The boot stack becomes the idle task's stack. */
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
    movl $__bss_start, %edi
    movl $__bss_end, %ecx
    subl %edi, %ecx
    shrl $2, %ecx
    xorl %eax, %eax
    rep stosl
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

    .section .bss
    .balign 16
    .global boot_stack, boot_stack_top
boot_stack:
    .skip 16384
boot_stack_top:
