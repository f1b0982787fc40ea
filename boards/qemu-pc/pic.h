/* The legacy 8259 pair, remapped to TRAP_VECTOR_PIC_BASE. It reaches the boot CPU
 * through LINT0 (virtual-wire mode), which is how QEMU delivers the PIT and PCI INTx. */
#ifndef QEMU_PC_PIC_H
#define QEMU_PC_PIC_H

#include <stdint.h>

void pic_init(void);
void pic_unmask(uint8_t irq);
void pic_eoi(uint8_t irq);

#endif
