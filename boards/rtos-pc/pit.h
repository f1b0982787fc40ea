/* The 8254 PIT's ports and input clock. Channel 2 measures the TSC at boot (tsc.c);
 * channel 0 is acart's sampling timer (pit_timer.c). */
#ifndef RTOS_PC_PIT_H
#define RTOS_PC_PIT_H

#define PIT_HZ       1193182u
#define PIT_CHANNEL0 0x40
#define PIT_CHANNEL2 0x42
#define PIT_COMMAND  0x43

#endif
