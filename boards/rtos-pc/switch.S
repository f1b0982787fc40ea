/* void context_switch(uintptr_t *save_sp, uintptr_t new_sp)
 * Saves the callee-saved registers and EFLAGS/RFLAGS on the current stack, stores the
 * stack pointer in *save_sp, and resumes the task whose stack pointer is new_sp the same
 * way. Called with interrupts off. That is a task's whole context: the kernel saves no
 * x87/SSE state (sched.c). A new task's stack is built by sched.c to look like one this
 * function saved. */
    .text
    .global context_switch
#ifdef __x86_64__
    .code64
/* System V AMD64: save_sp in RDI, new_sp in RSI; RBX, RBP and R12-R15 are the callee's to
 * keep. The pushes are 7 quadwords after the return address, the same on every task. */
context_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    pushfq
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popfq
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
#else
    .code32
context_switch:
    movl 4(%esp), %eax
    movl 8(%esp), %edx
    pushl %ebp
    pushl %ebx
    pushl %esi
    pushl %edi
    pushfl
    movl %esp, (%eax)
    movl %edx, %esp
    popfl
    popl %edi
    popl %esi
    popl %ebx
    popl %ebp
    ret
#endif
