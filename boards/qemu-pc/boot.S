/* Multiboot (v1) entry: QEMU's -kernel loader puts us in 32-bit protected mode with
 * paging off, EAX = magic, EBX = multiboot info. */
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

    .section .bss
    .balign 4096
    .global boot_stack_guard, boot_stack, boot_stack_top
boot_stack_guard:                /* unmapped by x86_kit_guard_page() */
    .skip 4096
boot_stack:
    .skip 32768
boot_stack_top:
