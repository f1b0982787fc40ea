/* void context_switch(uint32_t *save_sp, uint32_t new_sp)
 * Saves the callee-saved registers and EFLAGS on the current stack, stores the stack
 * pointer in *save_sp, and resumes the task whose stack pointer is new_sp the same way.
 * Called with interrupts off; the FPU/SSE state is saved by the caller (sched.c). A new
 * task's stack is built by sched.c to look like one this function saved. */
    .text
    .code32
    .global context_switch
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
