/* acart's platform seam (acart_platform.h) on this kernel. */
#ifndef RTOS_PC_PLATFORM_H
#define RTOS_PC_PLATFORM_H

/* Hooks acart's #GP fix-up into the kernel's #GP handler. With sample_from_tick, the
 * platform gives acart no sampling timer and the scheduler tick samples instead. Boot,
 * before aca_start(). */
void platform_init(int sample_from_tick);

#endif
