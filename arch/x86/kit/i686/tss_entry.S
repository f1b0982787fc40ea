/* Entry points of the NMI and #DF tasks (tss.c). A task resumes where its last IRET left
 * it, so the NMI task loops: handle, IRET back to the interrupted task (EFLAGS.NT is set,
 * so IRET is a task switch), and start over at the next NMI. */
    .text
    .code32
    .global nmi_task_entry
nmi_task_entry:
    call nmi_task_main
    iret
    jmp nmi_task_entry

    /* The CPU pushed #DF's error code (always 0) on this task's stack: the argument. */
    .global df_task_entry
df_task_entry:
    call df_task_main
1:  cli
    hlt
    jmp 1b

    .section .note.GNU-stack, "", @progbits
