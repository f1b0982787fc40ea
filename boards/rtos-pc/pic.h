/* The two 8259 PICs, remapped to vectors 0x20..0x2f and fully masked at boot. They carry
 * the PIT (IRQ 0, acart's sampling timer) and the e1000's PCI interrupt line. */
#ifndef RTOS_PC_PIC_H
#define RTOS_PC_PIC_H

#include <stdint.h>

void pic_init(void);
void pic_mask(uint8_t irq);
void pic_unmask(uint8_t irq);
void pic_eoi(uint8_t irq);

#endif
