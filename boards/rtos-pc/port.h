/* acart's port hooks (acart.h) on this kernel. */
#ifndef RTOS_PC_PORT_H
#define RTOS_PC_PORT_H

#define PORT_PID   1 /* one address space: every task is in process 1 */
#define IMAGE_NAME "acart-rtos-pc.elf"

/* Tells acart about every task created so far (names for its reports). */
void port_announce_tasks(void);

#endif
