#include "pic.h"
#include "idt.h"
#include "io.h"

#define PIC1_CMD  0x20
#define PIC1_DATA 0x21
#define PIC2_CMD  0xa0
#define PIC2_DATA 0xa1

/* IRQ 7 and 15 arrive spuriously when a line drops before the CPU takes it. A spurious
 * 15 still needs an EOI on the master (the cascade line was real there). */
static void spurious_master(struct trap_frame *frame)
{
    (void)frame;
}

static void spurious_slave(struct trap_frame *frame)
{
    (void)frame;
    outb(PIC1_CMD, 0x20);
}

void pic_init(void)
{
    outb(PIC1_CMD, 0x11); /* ICW1: edge, cascade, ICW4 follows */
    outb(PIC2_CMD, 0x11);
    outb(PIC1_DATA, VEC_PIC_BASE);
    outb(PIC2_DATA, VEC_PIC_BASE + 8);
    outb(PIC1_DATA, 0x04); /* slave on IRQ 2 */
    outb(PIC2_DATA, 0x02);
    outb(PIC1_DATA, 0x01); /* 8086 mode */
    outb(PIC2_DATA, 0x01);
    outb(PIC1_DATA, 0xfb); /* everything masked but the cascade */
    outb(PIC2_DATA, 0xff);
    idt_set_handler(VEC_PIC_BASE + 7, spurious_master);
    idt_set_handler(VEC_PIC_BASE + 15, spurious_slave);
}

void pic_mask(uint8_t irq)
{
    uint16_t port = irq < 8 ? PIC1_DATA : PIC2_DATA;
    outb(port, (uint8_t)(inb(port) | (1u << (irq & 7))));
}

void pic_unmask(uint8_t irq)
{
    uint16_t port = irq < 8 ? PIC1_DATA : PIC2_DATA;
    outb(port, (uint8_t)(inb(port) & ~(1u << (irq & 7))));
}

void pic_eoi(uint8_t irq)
{
    if (irq >= 8)
        outb(PIC2_CMD, 0x20);
    outb(PIC1_CMD, 0x20);
}
