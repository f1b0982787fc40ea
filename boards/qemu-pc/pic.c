#include "pic.h"
#include "io.h"
#include "trap.h"

static uint16_t mask = 0xfffb; /* everything masked but the cascade (IRQ 2) */

static void write_mask(void)
{
    outb(0x21, (uint8_t)mask);
    outb(0xa1, (uint8_t)(mask >> 8));
}

void pic_init(void)
{
    outb(0x20, 0x11); /* ICW1: edge (ELCR decides per IRQ), cascade, ICW4 */
    outb(0xa0, 0x11);
    outb(0x21, TRAP_VECTOR_PIC_BASE);
    outb(0xa1, TRAP_VECTOR_PIC_BASE + 8);
    outb(0x21, 0x04); /* slave on IRQ 2 */
    outb(0xa1, 0x02);
    outb(0x21, 0x01); /* 8086 mode */
    outb(0xa1, 0x01);
    write_mask();
}

void pic_unmask(uint8_t irq)
{
    mask &= (uint16_t) ~(1u << irq);
    if (irq >= 8)
        mask &= (uint16_t) ~(1u << 2);
    write_mask();
}

void pic_eoi(uint8_t irq)
{
    if (irq >= 8)
        outb(0xa0, 0x20);
    outb(0x20, 0x20);
}
