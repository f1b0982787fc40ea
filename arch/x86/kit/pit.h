/* For a board that uses the kit (installed with libacart_x86.a): The 8254 PIT channel 0 as a
 * periodic tick (IRQ 0). */
#ifndef ACART_ARCH_X86_PIT_H
#define ACART_ARCH_X86_PIT_H

#include <stdint.h>

void pit_start_periodic(uint32_t hz);

#endif
