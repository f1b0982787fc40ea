/* acart's platform seam (acart_platform.h) on this kernel. */
#ifndef RTOS_PC_PLATFORM_H
#define RTOS_PC_PLATFORM_H

/* Hooks acart's #GP fix-up into the kernel's #GP handler. Boot, before aca_start(). */
void platform_init(void);

#endif
